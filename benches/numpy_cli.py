"""The native CLI against NumPy in float32 on the same attention (issue 24's measure).

    cargo build --release --bin attention-trace && .venv/bin/python benches/numpy_cli.py

Both get the same inputs: X (2048 tokens) and W_Q, W_K, W_V, W_O, drawn here and rounded to
float32; 8 heads, a causal mask. NumPy computes the standard pass the textbook way in float32
(X·W, QKᵀ/√d_k per head, the mask as −∞, softmax, ·V, concat, ·W_O), BLAS for the products.
The CLI (`"trace": false`) computes more: the standard pass *and* FlashAttention's tiles, and
their largest difference; its time is the whole process, reading the JSON request and writing
the JSON answer included; natively it computes the heads on every processor, as NumPy's BLAS
does. Each side's best of several runs; the line ends with the CLI's time over NumPy's, and the
largest |CLI − NumPy| of the outputs. Issue 24's goal: the CLI within 0.2 s at d_model 64, its
numbers NumPy's. Not a test: it prints numbers (benches/README.md keeps them).
"""

import json
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = os.environ.get("ATTENTION_TRACE", os.path.join(ROOT, "target", "release", "attention-trace"))
RUNS = 5


def numpy_attention(x, w, heads):
    """The standard pass in float32, causal."""
    n, d_model = x.shape
    d_k = w["w_q"].shape[1] // heads
    q, k, v = x @ w["w_q"], x @ w["w_k"], x @ w["w_v"]
    scale = np.float32(1.0 / np.sqrt(d_k))
    hidden = np.triu(np.ones((n, n), dtype=bool), k=1)
    outputs = []
    for h in range(heads):
        cols = slice(h * d_k, (h + 1) * d_k)
        scores = (q[:, cols] @ k[:, cols].T) * scale
        scores[hidden] = -np.inf
        scores -= scores.max(axis=1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=1, keepdims=True)
        outputs.append(scores @ v[:, cols])
    return np.concatenate(outputs, axis=1) @ w["w_o"]


def best(runs, f):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    if not os.path.exists(CLI):
        sys.exit(f"build the CLI first: cargo build --release --bin attention-trace ({CLI})")
    n, heads = 2048, 8
    for d_model in (64, 128, 512):
        rng = np.random.default_rng(0)
        x = rng.normal(size=(n, d_model)).astype(np.float32)
        bound = np.sqrt(6.0 / (2 * d_model))
        w = {
            name: rng.uniform(-bound, bound, size=(d_model, d_model)).astype(np.float32)
            for name in ("w_q", "w_k", "w_v", "w_o")
        }
        request = json.dumps(
            {
                "x": x.tolist(),
                "weights": {name: m.tolist() for name, m in w.items()},
                "n_heads": heads,
                "mask": {"kind": "causal"},
                "trace": False,
            }
        ).encode()

        def cli():
            return subprocess.run([CLI], input=request, capture_output=True, check=True).stdout

        cli_s, stdout = best(RUNS, cli)
        answer = json.loads(stdout)
        numpy_s, expected = best(RUNS, lambda: numpy_attention(x, w, heads))
        output = np.asarray(answer["output"], dtype=np.float32)
        diff = float(np.abs(output - expected).max())
        print(
            f"{n} tokens, {heads} heads, d_model {d_model} (d_k {d_model // heads}), causal: "
            f"CLI {cli_s * 1000:.0f} ms (standard + FlashAttention, JSON in and out), "
            f"NumPy float32 {numpy_s * 1000:.0f} ms (standard only): "
            f"CLI / NumPy = {cli_s / numpy_s:.2f}; max |CLI − NumPy| = {diff:.1e}; "
            f"the CLI's max |flash − standard| = {answer['flash']['max_abs_diff']:.1e}"
        )


if __name__ == "__main__":
    main()
