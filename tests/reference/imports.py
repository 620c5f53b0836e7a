"""Files of a user's own attention, written by NumPy and safetensors themselves, for the lab's
readers (attention_core::api::import) to be checked against: random softmax weights of 2 layers
x 3 heads x 5 tokens, and a head's Q, K and V, in every format the lab reads.

    pip install numpy safetensors && python3 tests/reference/imports.py

writes tests/fixtures/imports/ (committed; tests/import.rs reads it).
"""
import json
import struct
from pathlib import Path

import numpy as np
from safetensors.numpy import save as save_safetensors

OUT = Path(__file__).resolve().parent.parent / "fixtures" / "imports"
rng = np.random.default_rng(20261123)
tokens = ["the", "cat", "sat", "猫", "mat"]
key_tokens = ["le", "chat", "est", "assis", "sur", "tapis"]


def softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=-1, keepdims=True)


attention = softmax(rng.normal(size=(2, 3, 5, 5)) * 2).astype(np.float32)
cross = softmax(rng.normal(size=(4, 5, 6))).astype(np.float32)  # [heads, queries, keys]
q = rng.normal(size=(2, 3, 5, 4)).astype(np.float32)
k = rng.normal(size=(2, 3, 5, 4)).astype(np.float32)
v = rng.normal(size=(2, 3, 5, 4)).astype(np.float32)
# What a PyTorch-style SelfAttention gives for these q and k: softmax(q kᵀ / √d), no mask.
qk_weights = softmax(q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64) / 2.0)


def safetensors_bf16(path, name, array, metadata):
    """bfloat16 by truncating f32 (what torch's .to(torch.bfloat16) does up to rounding);
    NumPy has no bfloat16, so the file is written by hand, in the format's own layout."""
    bits = (array.astype(np.float32).view(np.uint32) >> 16).astype("<u2")
    data = bits.tobytes()
    header = {name: {"dtype": "BF16", "shape": list(array.shape), "data_offsets": [0, len(data)]},
              "__metadata__": metadata}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)
    return bits.astype(np.uint32) << 16


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    meta = {"tokens": json.dumps(tokens, ensure_ascii=False)}
    (OUT / "attention.json").write_text(json.dumps(
        {"attention": attention.tolist(), "tokens": tokens}, ensure_ascii=False))
    (OUT / "cross.json").write_text(json.dumps(
        {"attention": cross.tolist(), "tokens": tokens, "key_tokens": key_tokens},
        ensure_ascii=False))
    (OUT / "qkv.json").write_text(json.dumps(
        {"q": q.tolist(), "k": k.tolist(), "v": v.tolist(), "tokens": tokens}, ensure_ascii=False))
    np.savez(OUT / "attention.npz", attention=attention, tokens=np.array(tokens))
    np.savez_compressed(OUT / "attention_compressed.npz", attention=attention,
                        tokens=np.array(tokens))
    np.savez(OUT / "qkv.npz", q=q, k=k, v=v, tokens=np.array(tokens))
    # 16 MB of zeros that deflate to a few kilobytes: read only within a budget.
    np.savez_compressed(OUT / "zeros_compressed.npz", attention=np.zeros((2048, 2048), np.float32))
    # Arrays under names the lab does not read (np.savez's default, a hook's): the refusal names them.
    np.savez(OUT / "other_names.npz", np.ones((2, 2), np.float32), attn_weights=np.ones((2, 2), np.float32))
    np.save(OUT / "attention.npy", attention[1])  # [heads, queries, keys]
    np.save(OUT / "fortran.npy", np.asfortranarray(attention[0, 2]))
    np.save(OUT / "attention_f16.npy", attention[1].astype(np.float16))
    (OUT / "attention_f32.safetensors").write_bytes(
        save_safetensors({"attention": attention}, metadata=meta))
    (OUT / "attention_f16.safetensors").write_bytes(
        save_safetensors({"attention": attention.astype(np.float16)}, metadata=meta))
    bf16 = safetensors_bf16(OUT / "attention_bf16.safetensors", "attention", attention, meta)
    (OUT / "qkv.safetensors").write_bytes(save_safetensors({"q": q, "k": k}, metadata=meta))
    (OUT / "expected.json").write_text(json.dumps({
        "generator": "tests/reference/imports.py", "numpy": np.__version__,
        "tokens": tokens, "key_tokens": key_tokens,
        "attention": attention.astype(np.float64).tolist(),
        "attention_f16": attention.astype(np.float16).astype(np.float64).tolist(),
        "attention_bf16": bf16.view(np.float32).astype(np.float64).tolist(),
        "cross": cross.astype(np.float64).tolist(),
        "q": q.astype(np.float64).tolist(), "k": k.astype(np.float64).tolist(),
        "v": v.astype(np.float64).tolist(),
        "qk_weights": qk_weights.tolist(),
    }, ensure_ascii=False))
    per_layer(meta)
    print("wrote", sorted(p.name for p in OUT.iterdir()))


def per_layer(meta):
    """The same attention saved one tensor per layer, as hooks save it: `.npz` with a batch of
    one in front of each layer, safetensors and JSON under other hooks' names."""
    np.savez(OUT / "per_layer.npz", tokens=np.array(tokens),
             **{f"layers.{l}.attn": attention[l][np.newaxis] for l in range(len(attention))})
    (OUT / "per_layer.safetensors").write_bytes(save_safetensors(
        {f"model.layers.{l}.self_attn.attn_weights": np.ascontiguousarray(attention[l])
         for l in range(len(attention))}, metadata=meta))
    (OUT / "per_layer.json").write_text(json.dumps(
        {**{f"h.{l}.attention": attention[l].tolist() for l in range(len(attention))},
         "tokens": tokens}, ensure_ascii=False))


if __name__ == "__main__":
    main()
