"""attention_lab with PyTorch itself, where it is installed.

CI does not run these: the only index CI reaches is PyPI, whose Linux torch wheels are CUDA
builds that pull about 5 GB of NVIDIA libraries (the CPU-only wheels are on download.pytorch.org,
which CI cannot reach), too much for its 90 minutes. test_attention_lab.py's stand-in covers
what the package reads of a tensor (detach, float, cpu, numpy); run these by hand where torch is:

    pip install torch && pytest python/tests/test_torch.py
"""
import numpy as np
import pytest

from attention_lab import payload

torch = pytest.importorskip("torch")
nn = torch.nn


def test_tensors_that_need_grad_or_are_half_precision_are_read():
    torch.manual_seed(0)
    weights = torch.softmax(torch.randn(2, 3, 5, 5, requires_grad=True), dim=-1)
    assert weights.requires_grad
    data = payload(weights, list("abcde"))
    assert data["attention"] == weights.detach().numpy().tolist()
    for dtype in (torch.float16, torch.bfloat16):
        half = weights.detach().to(dtype)
        got = np.array(payload(half, list("abcde"))["attention"], dtype=np.float32)
        assert np.array_equal(got, half.float().numpy()), dtype


def test_multihead_attentions_own_weights_per_layer_as_hugging_face_returns_them():
    torch.manual_seed(1)
    layers = [nn.MultiheadAttention(embed_dim=8, num_heads=2, batch_first=True) for _ in range(3)]
    x = torch.randn(2, 6, 8)  # [batch, tokens, d_model]
    causal = torch.triu(torch.ones(6, 6, dtype=torch.bool), diagonal=1)
    attentions = []
    for layer in layers:
        x, w = layer(x, x, x, attn_mask=causal, need_weights=True, average_attn_weights=False)
        attentions.append(w)  # [batch, heads, queries, keys]
    data = payload(tuple(attentions), list("abcdef"), batch=1)
    got = np.array(data["attention"])
    assert got.shape == (3, 2, 6, 6)
    want = torch.stack([w[1] for w in attentions]).detach().numpy()
    assert np.array_equal(got, want)
    # torch's own causal weights: nothing after the query, rows that sum to 1.
    assert np.all(np.triu(got, k=1) == 0)
    assert np.allclose(got.sum(-1), 1, atol=1e-6)


def test_q_k_and_v_from_a_modules_projections():
    torch.manual_seed(2)
    w_q, w_k, w_v = (nn.Linear(8, 8) for _ in range(3))
    x = torch.randn(5, 8)
    split = lambda t: t.view(5, 2, 4).transpose(0, 1)  # noqa: E731 — [heads, tokens, d_k]
    q, k, v = split(w_q(x)), split(w_k(x)), split(w_v(x))
    data = payload(q=q, k=k, v=v, tokens=list("vwxyz"))
    assert data["q"] == [q.detach().numpy().tolist()]
    assert data["v"] == [v.detach().numpy().tolist()]
