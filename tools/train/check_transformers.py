"""Shows that the shipped files are an ordinary GPT-2: Hugging Face transformers loads them with
its own GPT-2 (`GPT2Config` from config.json, the model from model.safetensors by its tensor
names) and computes the same logits as the training program and the lab's Rust forward pass.

    python3 -m venv /tmp/hf && /tmp/hf/bin/pip install "transformers>=4.45,<5" flax jax==0.10.2
    /tmp/hf/bin/python tools/train/check_transformers.py

transformers' PyTorch class (`GPT2LMHeadModel`) reads the same file the same way; its Flax twin
(`FlaxGPT2LMHeadModel`, `from_pt=True`, which converts a PyTorch-layout safetensors file) is
used here because PyTorch's wheels on PyPI pull in gigabytes of CUDA libraries. Where torch is
installed, the PyTorch class is checked too.
"""

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
MODEL = ROOT / "assets" / "model"
FIXTURES = ROOT / "tests" / "fixtures" / "model.json"


def compare(name, logits, fixtures):
    worst = 0.0
    for fixture, got in zip(fixtures, logits):
        expected = np.array(fixture["logits"])
        got = np.asarray(got)[:, fixture["token_ids"]]
        worst = max(worst, float(np.abs(got - expected).max()))
    print(f"{name}: largest logit difference from the training program's {worst:.2e}")
    return worst


def main():
    from transformers import GPT2Config

    config = GPT2Config.from_pretrained(MODEL)
    print(f"GPT2Config: {config.n_layer} layers, {config.n_head} heads, {config.n_embd} wide, vocabulary {config.vocab_size}")
    fixtures = json.loads(FIXTURES.read_text(encoding="utf-8"))["fixtures"]
    worst = []

    from transformers import FlaxGPT2LMHeadModel

    flax_model = FlaxGPT2LMHeadModel.from_pretrained(MODEL, from_pt=True)
    logits = [flax_model(np.array([f["ids"]])).logits[0] for f in fixtures]
    worst.append(compare("FlaxGPT2LMHeadModel", logits, fixtures))

    try:
        import torch
        from transformers import GPT2LMHeadModel
    except ImportError:
        print("GPT2LMHeadModel (PyTorch): torch is not installed here; skipped")
    else:
        torch_model = GPT2LMHeadModel.from_pretrained(MODEL).eval()
        with torch.no_grad():
            logits = [torch_model(torch.tensor([f["ids"]])).logits[0].numpy() for f in fixtures]
        worst.append(compare("GPT2LMHeadModel", logits, fixtures))

    if max(worst) > 1e-4:
        sys.exit("the logits differ by more than 1e-4")
    print("ok: transformers' GPT-2 computes the same logits")


if __name__ == "__main__":
    main()
