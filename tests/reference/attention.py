"""Independent reference for the attention core: float64 numpy, written from the formulas of the
course's source articles, not from the Rust code. Writes tests/fixtures/attention.json, which
tests/fixtures.rs replays through the JSON API and compares within 1e-5.

    pip install numpy && python3 tests/reference/attention.py

Each case holds a `request` in the trace CLI's input shape (explicit x and weights, so no PRNG or
tokenizer is involved) and the `expected` intermediates.
"""
import json
import pathlib

import numpy as np

OUT = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "attention.json"


def layer_norm(x, eps=1e-6):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def mask_matrix(kind, n, m, spec):
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    if kind == "none":
        return np.ones((n, m), dtype=bool)
    if kind == "causal":
        return j <= i
    if kind == "padding":
        return np.broadcast_to(j < spec["valid_len"], (n, m)).copy()
    if kind == "window":
        return np.abs(i - j) <= spec["radius"]
    if kind == "custom":
        return np.array(spec["allowed"], dtype=bool)
    raise ValueError(kind)


def attention(x, src, w, n_heads, n_kv_heads, d_k, d_v, temperature, allowed, layer_norm_mode):
    """softmax(QKᵀ / (√d_k · T) + M) V per head, concat, W_O, optional residual + LayerNorm."""
    attn_in = layer_norm(x) if layer_norm_mode == "pre" else x
    kv_in = src if src is not None else attn_in
    q_all = attn_in @ w["w_q"]
    k_all = kv_in @ w["w_k"]
    v_all = kv_in @ w["w_v"]
    group = n_heads // n_kv_heads
    heads = []
    for h in range(n_heads):
        g = h // group
        q = q_all[:, h * d_k:(h + 1) * d_k]
        k = k_all[:, g * d_k:(g + 1) * d_k]
        v = v_all[:, g * d_v:(g + 1) * d_v]
        scores = q @ k.T / (np.sqrt(d_k) * temperature)
        masked = np.where(allowed, scores, -np.inf)
        row_max = masked.max(axis=1, keepdims=True)
        fully = ~allowed.any(axis=1)
        row_max[fully] = 0.0
        e = np.where(allowed, np.exp(masked - row_max), 0.0)
        sums = e.sum(axis=1, keepdims=True)
        sums[fully] = 1.0
        weights = e / sums
        heads.append({
            "kv_group": g,
            "q": q, "k": k, "v": v,
            "scores": np.where(allowed, scores, np.nan),
            "weights": weights,
            "output": weights @ v,
            "fully_masked_rows": [int(r) for r in np.nonzero(fully)[0]],
        })
    concat = np.concatenate([hd["output"] for hd in heads], axis=1)
    projected = concat @ w["w_o"]
    if layer_norm_mode == "pre":
        output = x + projected
    elif layer_norm_mode == "post":
        output = layer_norm(x + projected)
    else:
        output = projected
    return heads, concat, output


def listify(a):
    a = np.asarray(a, dtype=np.float64)
    return [[None if np.isnan(v) else float(v) for v in row] for row in a]


def case(rng, name, seq_len, d_model, n_heads, n_kv_heads, d_k, d_v, temperature=1.0,
         mask=None, src_len=None, layer_norm_mode="none", block=(16, 16)):
    mask = mask or {"kind": "none"}
    x = rng.standard_normal((seq_len, d_model))
    src = rng.standard_normal((src_len, d_model)) if src_len else None
    key_len = src_len or seq_len

    def xavier(fan_in, fan_out):
        a = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-a, a, (fan_in, fan_out))

    w = {
        "w_q": xavier(d_model, n_heads * d_k),
        "w_k": xavier(d_model, n_kv_heads * d_k),
        "w_v": xavier(d_model, n_kv_heads * d_v),
        "w_o": xavier(n_heads * d_v, d_model),
    }
    # Round the inputs to f32 so both sides start from exactly the same numbers.
    x = x.astype(np.float32).astype(np.float64)
    src = None if src is None else src.astype(np.float32).astype(np.float64)
    w = {k: v.astype(np.float32).astype(np.float64) for k, v in w.items()}
    allowed = mask_matrix(mask["kind"], seq_len, key_len, mask)
    heads, concat, output = attention(x, src, w, n_heads, n_kv_heads, d_k, d_v, temperature,
                                      allowed, layer_norm_mode)
    request = {
        "x": listify(x), "d_model": d_model, "n_heads": n_heads, "n_kv_heads": n_kv_heads,
        "d_k": d_k, "d_v": d_v, "temperature": temperature, "mask": mask,
        "weights": {k: listify(v) for k, v in w.items()},
        "block": {"rows": block[0], "cols": block[1]}, "layer_norm": layer_norm_mode,
    }
    if src is not None:
        request["source_x"] = listify(src)
    return {
        "name": name,
        "request": request,
        "expected": {
            "heads": [{k: (listify(v) if isinstance(v, np.ndarray) else v) for k, v in hd.items()}
                      for hd in heads],
            "concat": listify(concat),
            "output": listify(output),
        },
    }


def main():
    rng = np.random.default_rng(20261121)
    custom = [[True, False, True, False, True],
              [False, False, False, False, False],
              [True, True, False, False, True],
              [False, True, True, True, False],
              [True, False, False, False, False]]
    cases = [
        case(rng, "mha no mask", 5, 8, 2, 2, 4, 4),
        case(rng, "single head, d_k != d_v", 4, 6, 1, 1, 3, 5),
        case(rng, "causal", 6, 8, 2, 2, 4, 4, mask={"kind": "causal"}),
        case(rng, "padding", 6, 8, 2, 2, 4, 4, mask={"kind": "padding", "valid_len": 4}),
        case(rng, "padding, every key masked", 3, 4, 1, 1, 2, 2, mask={"kind": "padding", "valid_len": 0}),
        case(rng, "window", 7, 8, 2, 2, 4, 4, mask={"kind": "window", "radius": 1}),
        case(rng, "custom with an all-masked row", 5, 6, 2, 1, 3, 3, mask={"kind": "custom", "allowed": custom}),
        case(rng, "temperature 0.05 (sharp)", 5, 8, 2, 2, 4, 4, temperature=0.05),
        case(rng, "temperature 10 (flat)", 5, 8, 2, 2, 4, 4, temperature=10.0),
        case(rng, "gqa 4 heads / 2 kv", 6, 8, 4, 2, 2, 3),
        case(rng, "mqa 3 heads / 1 kv", 5, 6, 3, 1, 2, 2, mask={"kind": "causal"}),
        case(rng, "cross-attention", 4, 6, 2, 2, 3, 3, src_len=7),
        case(rng, "cross-attention with padding", 5, 6, 2, 1, 3, 2, src_len=3,
             mask={"kind": "padding", "valid_len": 2}),
        case(rng, "pre-ln", 5, 8, 2, 2, 4, 4, layer_norm_mode="pre"),
        case(rng, "post-ln causal", 5, 8, 2, 2, 4, 4, layer_norm_mode="post", mask={"kind": "causal"}),
        case(rng, "pre-ln cross", 4, 6, 3, 3, 2, 2, src_len=5, layer_norm_mode="pre"),
        case(rng, "uneven blocks 3x2 causal", 7, 8, 2, 2, 4, 4, mask={"kind": "causal"}, block=(3, 2)),
        case(rng, "uneven blocks 2x3 window", 7, 6, 1, 1, 3, 3, mask={"kind": "window", "radius": 2}, block=(2, 3)),
        case(rng, "blocks of 1", 4, 4, 2, 2, 2, 2, block=(1, 1)),
        case(rng, "block larger than sequence", 3, 4, 1, 1, 4, 4, block=(64, 64)),
    ]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"generator": "tests/reference/attention.py", "numpy": np.__version__,
                               "cases": cases}, separators=(",", ":")) + "\n")
    print(f"wrote {len(cases)} cases to {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
