"""Independent reference for the score options of the attention core: float64 numpy, written from
the papers' formulas (RoPE, ALiBi and its reference slopes, soft-capping, QK-norm, sink logits,
the sliding window with attention sinks), not from the Rust code. Writes
tests/fixtures/shaping.json, which tests/fixtures.rs replays through the JSON API.

    pip install numpy && python3 tests/reference/shaping.py

The order of the steps, per head (the core's `scoring` module says the same):
  q, k <- QK-norm (each row over its root mean square, eps 1e-6), then RoPE (pair p of the
  vector at position m turned by m * base^(-2p/d_k); positions are row indices plus the offset);
  z = q.k / sqrt(d_k) + ALiBi's bias -m_h |i - j|; z = c tanh(z / c); z = z / T;
  masked keys -inf; softmax over the visible keys and the sink logit / T, whose column is dropped.
"""
import json
import math
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from attention import layer_norm, listify  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "shaping.json"


def alibi_slopes(n):
    """The ALiBi repository's get_slopes (Press et al., 2022)."""
    def power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        return [start * start ** i for i in range(n)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    closest = 2 ** math.floor(math.log2(n))
    return power_of_2(closest) + alibi_slopes(2 * closest)[0::2][: n - closest]


def rope(x, base, pairing, first):
    n, d = x.shape
    out = x.copy()
    for r in range(n):
        m = first + r
        for p in range(d // 2):
            theta = base ** (-2.0 * p / d)
            a, b = (p, p + d // 2) if pairing == "half" else (2 * p, 2 * p + 1)
            c, s = math.cos(m * theta), math.sin(m * theta)
            out[r, a] = x[r, a] * c - x[r, b] * s
            out[r, b] = x[r, a] * s + x[r, b] * c
    return out


def qk_norm(x):
    return x / np.sqrt((x ** 2).mean(axis=1, keepdims=True) + 1e-6)


def mask_matrix(spec, n, m):
    i = np.arange(n)[:, None]
    j = np.arange(m)[None, :]
    kind = spec["kind"]
    if kind == "none":
        return np.ones((n, m), dtype=bool)
    if kind == "causal":
        return j <= i
    if kind == "padding":
        return np.broadcast_to(j < spec["valid_len"], (n, m)).copy()
    if kind == "sliding":
        return (j <= i) & ((i - j <= spec["radius"]) | (j < spec.get("sink_tokens", 0)))
    raise ValueError(kind)


def attention(x, src, w, n_heads, n_kv_heads, d_k, d_v, temperature, allowed, opts):
    position = opts.get("position", {"kind": "absolute"})
    offset = position.get("offset", 0)
    kv_in = src if src is not None else x
    q_all, k_all, v_all = x @ w["w_q"], kv_in @ w["w_k"], kv_in @ w["w_v"]
    group = n_heads // n_kv_heads
    n, m = allowed.shape
    slopes = alibi_slopes(n_heads)
    heads = []
    for h in range(n_heads):
        g = h // group
        q0 = q_all[:, h * d_k:(h + 1) * d_k]
        k0 = k_all[:, g * d_k:(g + 1) * d_k]
        v = v_all[:, g * d_v:(g + 1) * d_v]
        q, k = q0, k0
        if opts.get("qk_norm"):
            q, k = qk_norm(q), qk_norm(k)
        if position["kind"] == "rope":
            base = position.get("base", 10000.0)
            pairing = position.get("pairing", "half")
            q, k = rope(q, base, pairing, offset), rope(k, base, pairing, offset)
        z = q @ k.T / math.sqrt(d_k)
        if position["kind"] == "alibi":
            i = np.arange(n)[:, None]
            j = np.arange(m)[None, :]
            z = z - slopes[h] * np.abs(i - j)
        if "softcap" in opts:
            c = opts["softcap"]
            z = c * np.tanh(z / c)
        z = z / temperature
        sink = opts["sink_logits"][h] / temperature if "sink_logits" in opts else None
        fully = ~allowed.any(axis=1)
        masked = np.where(allowed, z, -np.inf)
        top = masked.max(axis=1, keepdims=True)
        if sink is not None:
            top = np.maximum(top, sink)
        top[fully] = 0.0
        e = np.where(allowed, np.exp(masked - top), 0.0)
        sums = e.sum(axis=1, keepdims=True)
        if sink is not None:
            sums = sums + np.exp(sink - top)
        sums[fully] = 1.0
        weights = e / sums
        weights[fully] = 0.0
        head = {
            "kv_group": g,
            "q": q0, "k": k0, "v": v,
            "scores": np.where(allowed, z, np.nan),
            "weights": weights,
            "output": weights @ v,
            "fully_masked_rows": [int(r) for r in np.nonzero(fully)[0]],
        }
        if opts.get("qk_norm") or position["kind"] == "rope":
            head["q_scored"], head["k_scored"] = q, k
        heads.append(head)
    concat = np.concatenate([hd["output"] for hd in heads], axis=1)
    return heads, concat, concat @ w["w_o"]


def case(rng, name, seq_len, d_model, n_heads, n_kv_heads, d_k, d_v, temperature=1.0,
         mask=None, src_len=None, block=(3, 3), **opts):
    mask = mask or {"kind": "none"}
    x = rng.standard_normal((seq_len, d_model)).astype(np.float32).astype(np.float64)
    src = None
    if src_len:
        src = rng.standard_normal((src_len, d_model)).astype(np.float32).astype(np.float64)
    key_len = src_len or seq_len

    def xavier(fan_in, fan_out):
        a = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-a, a, (fan_in, fan_out)).astype(np.float32).astype(np.float64)

    w = {
        "w_q": xavier(d_model, n_heads * d_k),
        "w_k": xavier(d_model, n_kv_heads * d_k),
        "w_v": xavier(d_model, n_kv_heads * d_v),
        "w_o": xavier(n_heads * d_v, d_model),
    }
    allowed = mask_matrix(mask, seq_len, key_len)
    heads, concat, output = attention(x, src, w, n_heads, n_kv_heads, d_k, d_v, temperature,
                                      allowed, opts)
    request = {
        "x": listify(x), "d_model": d_model, "n_heads": n_heads, "n_kv_heads": n_kv_heads,
        "d_k": d_k, "d_v": d_v, "temperature": temperature, "mask": mask,
        "weights": {k: listify(v) for k, v in w.items()},
        "block": {"rows": block[0], "cols": block[1]},
    }
    for key in ("position", "softcap", "qk_norm", "sink_logits"):
        if key in opts:
            request[key] = opts[key]
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
    rng = np.random.default_rng(20261123)
    rope_half = {"kind": "rope", "base": 10000.0, "pairing": "half"}
    rope_inter = {"kind": "rope", "base": 10000.0, "pairing": "interleaved"}
    cases = [
        case(rng, "rope half", 6, 8, 2, 2, 4, 4, position=rope_half),
        case(rng, "rope interleaved", 6, 8, 2, 2, 4, 4, position=rope_inter),
        case(rng, "rope base 100, offset 7, causal", 7, 8, 2, 1, 6, 3, position={
            "kind": "rope", "base": 100.0, "pairing": "half", "offset": 7}, mask={"kind": "causal"}),
        case(rng, "rope cross-attention (keys at their own indices)", 4, 6, 2, 2, 4, 3, src_len=6,
             position=rope_inter),
        case(rng, "no positions", 5, 6, 2, 2, 3, 3, position={"kind": "none"}),
        case(rng, "qk-norm", 6, 8, 2, 2, 4, 4, qk_norm=True),
        case(rng, "qk-norm and rope, temperature 0.3", 6, 8, 4, 2, 4, 2, temperature=0.3,
             qk_norm=True, position=rope_half),
        case(rng, "soft-cap 1.5", 6, 8, 2, 2, 4, 4, softcap=1.5, temperature=0.5),
        case(rng, "soft-cap 30 with alibi, causal", 7, 8, 4, 4, 2, 2, softcap=30.0,
             position={"kind": "alibi"}, mask={"kind": "causal"}),
        case(rng, "sink logits", 6, 8, 2, 2, 4, 4, sink_logits=[0.5, -2.0]),
        case(rng, "sink logits with a fully masked row", 5, 6, 2, 1, 3, 3,
             mask={"kind": "padding", "valid_len": 0}, sink_logits=[1.0, 3.0]),
        case(rng, "sliding window", 9, 8, 2, 2, 4, 4, mask={"kind": "sliding", "radius": 2}),
        case(rng, "sliding window, sinks beyond it", 10, 8, 2, 2, 4, 4,
             mask={"kind": "sliding", "radius": 2, "sink_tokens": 2}, block=(3, 2)),
        case(rng, "sliding window, sinks and sink logits, rope", 10, 8, 2, 1, 4, 4,
             mask={"kind": "sliding", "radius": 1, "sink_tokens": 3}, sink_logits=[0.0, 2.0],
             position=rope_half),
        case(rng, "everything at once", 8, 12, 6, 3, 4, 2, temperature=0.7, qk_norm=True,
             position=rope_inter, softcap=4.0, sink_logits=[0.0, 1.0, -1.0, 2.0, 0.5, -0.5],
             mask={"kind": "sliding", "radius": 3, "sink_tokens": 1}),
    ]
    for n_heads in (1, 2, 3, 4, 6, 8, 12):
        cases.append(case(rng, f"alibi, {n_heads} heads", 6, 12, n_heads, n_heads, 2, 2,
                          position={"kind": "alibi", "offset": 5}))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"generator": "tests/reference/shaping.py", "numpy": np.__version__,
                               "cases": cases}, separators=(",", ":")) + "\n")
    print(f"wrote {len(cases)} cases to {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
