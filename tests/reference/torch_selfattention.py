"""PyTorch itself, for the lab's claim that a model's own Q and K give the weights its own
softmax gave: a SelfAttention module as the course's articles write it (nn.Linear projections,
heads split by view/transpose, scores q kᵀ / √d_k, masked_fill(-inf) for the causal mask,
softmax), run by torch on a 7-character sentence. Its per-head Q, K and V are saved by
safetensors.torch in float32, and in float16 and bfloat16 as torch rounds them; beside them, what
torch computed: the weights with and without the causal mask, each head's output, and
torch.nn.functional.scaled_dot_product_attention's output.

    pip install torch safetensors && python3 tests/reference/torch_selfattention.py

writes tests/fixtures/imports/torch_* (committed; tests/import.rs reads them). CI does not
install torch (about 5 GB); the files are its output.
"""
import json
import math
from pathlib import Path

import torch
from torch import nn
from safetensors.torch import save_file

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "imports"
TOKENS = list("注意力就是一切")


class SelfAttention(nn.Module):
    """Multi-head self-attention as the articles build it."""

    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        self.n_heads, self.d_k = n_heads, d_model // n_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)

    def split(self, x):
        n = x.shape[0]
        return x.view(n, self.n_heads, self.d_k).transpose(0, 1)  # [heads, n, d_k]

    def forward(self, x, causal: bool = False):
        q, k, v = self.split(self.w_q(x)), self.split(self.w_k(x)), self.split(self.w_v(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_k)
        if causal:
            n = x.shape[0]
            hidden = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
            scores = scores.masked_fill(hidden, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return q, k, v, weights, weights @ v


def weights_of(q, k, causal):
    """torch's softmax(q kᵀ / √d) for (possibly rounded) q and k, in float32."""
    q, k = q.float(), k.float()
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        n = q.shape[-2]
        scores = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    return torch.softmax(scores, dim=-1)


def main():
    torch.manual_seed(20261124)
    model = SelfAttention(d_model=16, n_heads=4)
    x = torch.randn(len(TOKENS), 16)
    with torch.no_grad():
        q, k, v, weights, output = model(x)
        _, _, _, causal_weights, causal_output = model(x, causal=True)
        sdpa = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    meta = {"tokens": json.dumps(TOKENS, ensure_ascii=False), "torch": torch.__version__}
    tensors = {"q": q.contiguous(), "k": k.contiguous(), "v": v.contiguous()}
    save_file(tensors, OUT / "torch_qkv_f32.safetensors", metadata=meta)
    rounded = {}
    for dtype, name in [(torch.float16, "f16"), (torch.bfloat16, "bf16")]:
        half = {key: t.to(dtype) for key, t in tensors.items()}
        save_file(half, OUT / f"torch_qkv_{name}.safetensors", metadata=meta)
        rounded[name] = weights_of(half["q"], half["k"], causal=False).tolist()
    expected = {
        "torch": torch.__version__,
        "tokens": TOKENS,
        "weights": weights.tolist(),
        "output": output.tolist(),
        "causal_weights": causal_weights.tolist(),
        "causal_output": causal_output.tolist(),
        "sdpa_causal_output": sdpa.tolist(),
        "weights_f16": rounded["f16"],
        "weights_bf16": rounded["bf16"],
    }
    (OUT / "torch_expected.json").write_text(json.dumps(expected, ensure_ascii=False))
    print("wrote", *sorted(p.name for p in OUT.glob("torch_*")))


if __name__ == "__main__":
    main()
