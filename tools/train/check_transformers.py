"""Shows that the shipped files are an ordinary Hugging Face model: transformers loads each with its
own implementation (`GPT2Config` / `LlamaConfig` from config.json, the model from
model.safetensors by its tensor names) and computes the same logits as the training program and
the lab's Rust forward pass.

    python3 -m venv /tmp/hf && /tmp/hf/bin/pip install "transformers>=4.45,<5" flax jax==0.10.2
    /tmp/hf/bin/python tools/train/check_transformers.py              # both models
    /tmp/hf/bin/python tools/train/check_transformers.py assets/llama # one

transformers' PyTorch classes (`GPT2LMHeadModel`, `LlamaForCausalLM`) read the same files the
same way; their Flax twins (`from_pt=True`, which converts a PyTorch-layout safetensors file) are
used here because PyTorch's wheels on PyPI pull in gigabytes of CUDA libraries. Where torch is
installed, the PyTorch classes are checked too.
"""

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
# Each model folder, with the fixtures its training run wrote.
MODELS = {"gpt2": "gpt2.json", "llama": "llama.json", "hybrid": "hybrid.json"}


def compare(name, logits, fixtures):
    worst = 0.0
    for fixture, got in zip(fixtures, logits):
        expected = np.array(fixture["logits"])
        # A long fixture keeps some positions only (`rows`).
        rows = fixture.get("rows", list(range(len(fixture["ids"]))))
        got = np.asarray(got)[rows][:, fixture["token_ids"]]
        worst = max(worst, float(np.abs(got - expected).max()))
    print(f"{name}: largest logit difference from the training program's {worst:.2e}")
    return worst


def check(folder):
    config = json.loads((folder / "config.json").read_text())
    fixtures = json.loads((ROOT / "tests" / "fixtures" / MODELS[folder.name]).read_text(encoding="utf-8"))["fixtures"]
    if config["model_type"] == "qwen3_next":
        # Qwen3-Next has no Flax port: PyTorch's class only.
        import torch
        from transformers import Qwen3NextConfig, Qwen3NextForCausalLM
        loaded = Qwen3NextConfig.from_pretrained(folder)
        print(f"{folder.name}: {type(loaded).__name__}, layers {loaded.layer_types}, {loaded.num_attention_heads} heads, "
              f"{loaded.num_key_value_heads} K/V heads, {loaded.linear_num_value_heads} linear heads, {loaded.hidden_size} wide")
        torch_model = Qwen3NextForCausalLM.from_pretrained(folder).eval()
        with torch.no_grad():
            logits = [torch_model(torch.tensor([f["ids"]])).logits[0].numpy() for f in fixtures]
        return compare("Qwen3NextForCausalLM", logits, fixtures)
    if config["model_type"] == "llama":
        from transformers import FlaxLlamaForCausalLM as Flax, LlamaConfig as Config
        torch_class = "LlamaForCausalLM"
    else:
        from transformers import FlaxGPT2LMHeadModel as Flax, GPT2Config as Config
        torch_class = "GPT2LMHeadModel"
    loaded = Config.from_pretrained(folder)
    print(f"{folder.name}: {type(loaded).__name__}, {loaded.num_hidden_layers} layers, "
          f"{loaded.num_attention_heads} heads, {getattr(loaded, 'num_key_value_heads', loaded.num_attention_heads)} K/V heads, "
          f"{loaded.hidden_size} wide, vocabulary {loaded.vocab_size}")
    worst = []
    flax_model = Flax.from_pretrained(folder, from_pt=True)
    if config["model_type"] == "llama" and config.get("tie_word_embeddings"):
        # Flax's Llama port has no tied LM head (PyTorch's `LlamaForCausalLM` ties it to
        # `embed_tokens` as config.json asks): give it the embedding, as the tying does.
        params = flax_model.params
        params["lm_head"]["kernel"] = params["model"]["embed_tokens"]["embedding"].T
        flax_model.params = params
    logits = [flax_model(np.array([f["ids"]])).logits[0] for f in fixtures]
    worst.append(compare(Flax.__name__, logits, fixtures))
    try:
        import torch
        import transformers
    except ImportError:
        print(f"{torch_class} (PyTorch): torch is not installed here; skipped")
    else:
        torch_model = getattr(transformers, torch_class).from_pretrained(folder).eval()
        with torch.no_grad():
            logits = [torch_model(torch.tensor([f["ids"]])).logits[0].numpy() for f in fixtures]
        worst.append(compare(torch_class, logits, fixtures))
    return max(worst)


def main():
    folders = [Path(a).resolve() for a in sys.argv[1:]] or [ROOT / "assets" / name for name in MODELS]
    worst = max(check(folder) for folder in folders)
    if worst > 1e-4:
        sys.exit("the logits differ by more than 1e-4")
    print("ok: transformers' own implementations compute the same logits")


if __name__ == "__main__":
    main()
