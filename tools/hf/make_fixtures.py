"""Makes the Hugging Face model folders the lab's tests open (tests/fixtures/hf/<name>/), and what
Hugging Face computes on them (expected.json): tokenizers trained here with `tokenizers`, models
of real layouts at a reduced width, random-initialised by transformers and saved with
`save_pretrained`, exactly as a user's folder is laid out.

    python3 -m venv /tmp/hf && /tmp/hf/bin/pip install "transformers>=4.45,<5" tokenizers safetensors torch
    /tmp/hf/bin/python tools/hf/make_fixtures.py
    /tmp/hf/bin/python tools/hf/make_fixtures.py --gpt2-small /tmp/gpt2-small   # the benchmark's

Run by hand (torch from PyPI is about 6 GB); its outputs are committed. Each folder's
expected.json holds, for a few texts in English, Chinese and emoji: the ids `tokenizers` gives
(`encode` with the special tokens the tokenizer adds), every position's logits from transformers'
own class (eager attention; a bf16 file's weights computed in f32, as the lab computes them), and
its greedy `generate`.
"""

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "hf"
SEEDS = ROOT.parent / "shared" / "seeds"

TEXTS = [
    "The cat sat on the mat. The cat sat on the",
    "注意力机制让每个词看见其他的词。",
    "Attention 注意力 is all you need 🙂 — really!",
    "  two  spaces, tabs\tand\nlines 123",
]

# Qwen2's pre-tokenizer pattern (its tokenizer.json), which Llama 3 shares up to the digits.
QWEN_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def corpus():
    texts = [(ROOT / "README.md").read_text(encoding="utf-8"), (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")]
    texts += [p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt"))]
    return texts


def byte_level(vocab_size, split=None, bos=None):
    """A byte-level BPE as GPT-2's (or, with `split`, Qwen's: a regex, then bytes)."""
    tok = Tokenizer(models.BPE())
    if split:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(split), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ])
    else:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    special = ["<|endoftext|>"]
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=special, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(corpus(), trainer)
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    return tok


def sentencepiece_style(vocab_size):
    """A SentencePiece-style BPE as Llama 2's and Mistral's: ▁ for spaces, bytes as <0xNN> where a
    character is not in the vocabulary, <s> before every text."""
    tok = Tokenizer(models.BPE(unk_token="<unk>", byte_fallback=True, fuse_unk=True))
    tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
    tok.decoder = decoders.Sequence([
        decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)
    ])
    special = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special, limit_alphabet=400)
    tok.train_from_iterator(corpus(), trainer)
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", special_tokens=[("<s>", tok.token_to_id("<s>"))])
    return tok


def small(config_class, **fields):
    return config_class(**fields)


def make(name, tok, config, dtype=torch.float32, shard=None, out=None, expect=True, tweak=None):
    folder = (out or OUT / name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    torch.manual_seed(0)
    config._attn_implementation = "eager"
    model = transformers.AutoModelForCausalLM.from_config(config, attn_implementation="eager")
    # Random-initialised weights are small; a wider spread makes the heads differ and the logits
    # spread, so that a mistake shows.
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() > 1:
                p.normal_(0.0, 0.2)
            else:
                p.add_(torch.randn_like(p) * 0.1)
        if tweak:
            tweak(model)
    model = model.to(dtype)
    model.eval()
    kwargs = {"safe_serialization": True}
    if shard:
        kwargs["max_shard_size"] = shard
    model.save_pretrained(folder, **kwargs)
    # Computed as the lab computes it, from the folder as a user has it: the file's weights (bf16
    # stays bf16 in the file) loaded by transformers and computed in f32.
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, attn_implementation="eager")
    model.eval()
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "PreTrainedTokenizerFast"}, indent=2) + "\n")
    (folder / "generation_config.json").unlink(missing_ok=True)
    if not expect:
        size = sum(p.stat().st_size for p in folder.iterdir())
        print(f"{folder}: {type(model).__name__}, {sum(p.numel() for p in model.parameters())} parameters, {size / 2**20:.0f} MiB")
        return
    cases = []
    for text in TEXTS:
        enc = tok.encode(text)
        ids = torch.tensor([enc.ids])
        with torch.no_grad():
            logits = model(ids).logits[0].float().numpy()
            generated = model.generate(
                ids, max_new_tokens=8, do_sample=False, pad_token_id=0, eos_token_id=None
            )[0].tolist()[len(enc.ids):]
        cases.append({
            "text": text,
            "ids": enc.ids,
            "tokens": enc.tokens,
            "logits": np.round(logits.astype(np.float64), 5).tolist(),
            "generated": generated,
        })
    expected = {
        "transformers": transformers.__version__,
        "torch": torch.__version__,
        "class": type(model).__name__,
        "dtype": str(dtype).removeprefix("torch."),
        "cases": cases,
    }
    (folder / "expected.json").write_text(json.dumps(expected, ensure_ascii=False) + "\n", encoding="utf-8")
    size = sum(p.stat().st_size for p in folder.iterdir())
    print(f"{name}: {type(model).__name__}, {sum(p.numel() for p in model.parameters())} parameters, {size / 1024:.0f} KiB")


def main():
    names = sys.argv[1:]
    if names[:1] == ["--gpt2-small"]:
        # The speed benchmark's model (benches/README.md): GPT-2 small's shape (124 M parameters,
        # GPT2Config's defaults) random-initialised, written where asked, never committed.
        out = Path(names[1])
        tok = byte_level(320)
        make("gpt2-small", tok, transformers.GPT2Config(), out=out, expect=False)
        return
    common = dict(num_hidden_layers=2, num_attention_heads=4, hidden_size=32, intermediate_size=64,
                  max_position_embeddings=128, rms_norm_eps=1e-6)
    gpt2_tok = byte_level(320)
    qwen_tok = byte_level(360, split=QWEN_SPLIT)
    sp_tok = sentencepiece_style(400)
    jobs = {
        "gpt2": lambda: make("gpt2", gpt2_tok, transformers.GPT2Config(
            n_layer=2, n_head=4, n_embd=32, n_positions=128, vocab_size=gpt2_tok.get_vocab_size(),
            activation_function="gelu_new", bos_token_id=0, eos_token_id=0)),
        "llama": lambda: make("llama", sp_tok, transformers.LlamaConfig(
            **common, num_key_value_heads=2, vocab_size=sp_tok.get_vocab_size(), tie_word_embeddings=False,
            rope_theta=10000.0), shard="60KB"),
        "llama-bf16": lambda: make("llama-bf16", sp_tok, transformers.LlamaConfig(
            **common, num_key_value_heads=2, vocab_size=sp_tok.get_vocab_size(), tie_word_embeddings=True),
            dtype=torch.bfloat16),
        "mistral": lambda: make("mistral", sp_tok, transformers.MistralConfig(
            **common, num_key_value_heads=1, vocab_size=sp_tok.get_vocab_size(), sliding_window=6,
            tie_word_embeddings=False, head_dim=8)),
        "qwen2": lambda: make("qwen2", qwen_tok, transformers.Qwen2Config(
            **common, num_key_value_heads=2, vocab_size=qwen_tok.get_vocab_size() + 6, tie_word_embeddings=True,
            rope_theta=1000000.0)),
        "qwen3": lambda: make("qwen3", qwen_tok, transformers.Qwen3Config(
            **common, num_key_value_heads=2, head_dim=16, vocab_size=qwen_tok.get_vocab_size(),
            tie_word_embeddings=True)),
        # Gemma 2: a sliding layer then a full one, soft-caps low enough to bend these scores
        # and logits, q·k over √24 rather than √d_k.
        "gemma2": lambda: make("gemma2", sp_tok, transformers.Gemma2Config(
            **common, num_key_value_heads=2, head_dim=16, vocab_size=sp_tok.get_vocab_size(),
            sliding_window=6, query_pre_attn_scalar=24, attn_logit_softcapping=5.0,
            final_logit_softcapping=8.0, hidden_activation="gelu_pytorch_tanh", pad_token_id=0,
            bos_token_id=1, eos_token_id=2)),
        # Gemma 3: two sliding layers (RoPE base 10 000) then a full one (10⁶), QK-norm.
        "gemma3": lambda: make("gemma3", sp_tok, transformers.Gemma3TextConfig(
            **{**common, "num_hidden_layers": 3}, num_key_value_heads=1, head_dim=16,
            vocab_size=sp_tok.get_vocab_size(), sliding_window=5, query_pre_attn_scalar=12,
            layer_types=["sliding_attention", "sliding_attention", "full_attention"],
            rope_theta=1000000.0, rope_local_base_freq=10000.0, pad_token_id=0, bos_token_id=1,
            eos_token_id=2)),
        # Qwen3-Next (the hybrid layout): three Gated DeltaNet layers then a gated full-attention
        # one, RoPE on a quarter of each head, dense MLPs (no experts). A is drawn in [0.5, 2]
        # so that the decay keeps a visible memory.
        "qwen3_next": lambda: make("qwen3_next", qwen_tok, transformers.Qwen3NextConfig(
            **{**common, "num_hidden_layers": 4}, num_key_value_heads=2, head_dim=16,
            vocab_size=qwen_tok.get_vocab_size(), partial_rotary_factor=0.25, linear_num_key_heads=4,
            linear_num_value_heads=4, linear_key_head_dim=16, linear_value_head_dim=16,
            linear_conv_kernel_dim=4, num_experts=0, tie_word_embeddings=False),
            tweak=lambda m: [layer.linear_attn.A_log.data.uniform_(0.5, 2.0).log_()
                             for layer in m.model.layers if hasattr(layer, "linear_attn")]),
    }
    for name, job in jobs.items():
        if not names or name in names:
            job()


if __name__ == "__main__":
    main()
