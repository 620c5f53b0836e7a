"""Makes a GPT-2-layout folder of GPT-2 small's shape (transformers' `GPT2Config()` defaults: 12
layers of 12 heads, n_embd 768, 1 024 positions, 50 257 tokens; 124 M parameters in f32), with
random weights as transformers initialises them (normal, σ 0.02; LayerNorms at 1 and 0) and the
tokenizer of the GPT-2 fixture (the rows past its ids are padding). The same folder as
`make_fixtures.py --gpt2-small` makes, without torch (6 GB): for measuring the page by hand
(tests/e2e/own_model_bench.mjs), not for the test command: the folder is 498 MB. Needs only numpy.

    .venv/bin/python tools/hf/make_gpt2_small.py /tmp/gpt2-small
    HF_BENCH_FOLDER=/tmp/gpt2-small node tests/e2e/own_model_bench.mjs
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np

import random_safetensors

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "hf" / "gpt2"

EMBD, LAYERS, HEADS, POSITIONS, VOCAB = 768, 12, 12, 1024, 50257


def shapes():
    """Every tensor's name and shape, as `GPT2LMHeadModel.save_pretrained` writes them (the LM
    head is tied to `wte`, so it is not written; `Conv1D` weights are [in, out])."""
    yield "transformer.wte.weight", (VOCAB, EMBD)
    yield "transformer.wpe.weight", (POSITIONS, EMBD)
    for i in range(LAYERS):
        p = f"transformer.h.{i}."
        yield p + "ln_1.weight", (EMBD,)
        yield p + "ln_1.bias", (EMBD,)
        yield p + "attn.c_attn.weight", (EMBD, 3 * EMBD)
        yield p + "attn.c_attn.bias", (3 * EMBD,)
        yield p + "attn.c_proj.weight", (EMBD, EMBD)
        yield p + "attn.c_proj.bias", (EMBD,)
        yield p + "ln_2.weight", (EMBD,)
        yield p + "ln_2.bias", (EMBD,)
        yield p + "mlp.c_fc.weight", (EMBD, 4 * EMBD)
        yield p + "mlp.c_fc.bias", (4 * EMBD,)
        yield p + "mlp.c_proj.weight", (4 * EMBD, EMBD)
        yield p + "mlp.c_proj.bias", (EMBD,)
    yield "transformer.ln_f.weight", (EMBD,)
    yield "transformer.ln_f.bias", (EMBD,)


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)

    def value(name, shape):
        if name.endswith(".bias"):
            return np.zeros(shape, np.float32)
        if ".ln_" in name:
            return np.ones(shape, np.float32)
        return rng.standard_normal(shape, dtype=np.float32) * 0.02

    count, offset = random_safetensors.write(
        out / "model.safetensors", shapes, "F32", value, metadata={"format": "pt"}
    )
    config = json.loads((FIXTURE / "config.json").read_text())
    config.update(n_embd=EMBD, n_layer=LAYERS, n_head=HEADS, n_positions=POSITIONS, vocab_size=VOCAB)
    (out / "config.json").write_text(json.dumps(config, indent=2))
    for name in ["tokenizer.json", "tokenizer_config.json"]:
        shutil.copy(FIXTURE / name, out / name)
    print(f"{out}: {count:,} parameters, {offset / 1e6:.0f} MB of f32")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/gpt2-small")
