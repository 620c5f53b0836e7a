"""Makes a Llama-layout folder at the size the lab opens in the page: a billion parameters less a
little, in bf16 (Llama 3.2 1B's widths and vocabulary with 12 layers instead of 16: hidden 2048,
32 query heads and 8 K/V heads of 64, an MLP of 8192, 128 256 tokens, tied embeddings), random
weights, the tokenizer of the Llama fixture (the rows past its ids are padding, as real models
have). For measuring the page's memory and speed by hand (tests/e2e/own_model_bench.mjs), not for
the test command: the folder is 2 GB. Needs only numpy.

    .venv/bin/python tools/hf/make_billion.py /tmp/llama-1b
    HF_BENCH_FOLDER=/tmp/llama-1b node tests/e2e/own_model_bench.mjs
"""

import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

import random_safetensors

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "hf" / "llama"

HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FF, VOCAB = 2048, 12, 32, 8, 64, 8192, 128256
# Smaller variants for probing what the time goes to: LAYERS=2 VOCAB=32000 … make_billion.py DIR
LAYERS = int(os.environ.get("LAYERS", LAYERS))
VOCAB = int(os.environ.get("VOCAB", VOCAB))


def shapes():
    yield "model.embed_tokens.weight", (VOCAB, HIDDEN)
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        yield p + "input_layernorm.weight", (HIDDEN,)
        yield p + "self_attn.q_proj.weight", (HEADS * HEAD_DIM, HIDDEN)
        yield p + "self_attn.k_proj.weight", (KV_HEADS * HEAD_DIM, HIDDEN)
        yield p + "self_attn.v_proj.weight", (KV_HEADS * HEAD_DIM, HIDDEN)
        yield p + "self_attn.o_proj.weight", (HIDDEN, HEADS * HEAD_DIM)
        yield p + "post_attention_layernorm.weight", (HIDDEN,)
        yield p + "mlp.gate_proj.weight", (FF, HIDDEN)
        yield p + "mlp.up_proj.weight", (FF, HIDDEN)
        yield p + "mlp.down_proj.weight", (HIDDEN, FF)
    yield "model.norm.weight", (HIDDEN,)


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)

    def value(name, shape):
        if name.endswith("norm.weight"):
            return np.ones(shape, np.float32)
        return rng.standard_normal(shape, dtype=np.float32) * 0.02

    count, offset = random_safetensors.write(out / "model.safetensors", shapes, "BF16", value)
    config = json.loads((FIXTURE / "config.json").read_text())
    config.update(
        hidden_size=HIDDEN, num_hidden_layers=LAYERS, num_attention_heads=HEADS,
        num_key_value_heads=KV_HEADS, head_dim=HEAD_DIM, intermediate_size=FF, vocab_size=VOCAB,
        max_position_embeddings=2048, tie_word_embeddings=True, dtype="bfloat16",
    )
    (out / "config.json").write_text(json.dumps(config, indent=2))
    for name in ["tokenizer.json", "tokenizer_config.json"]:
        shutil.copy(FIXTURE / name, out / name)
    print(f"{out}: {count:,} parameters, {offset / 1e9:.2f} GB of bf16")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/llama-1b")
