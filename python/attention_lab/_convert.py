"""A user's attention, in whatever form a notebook holds it, as the lab reads it: the arrays
`attention` [layers, heads, queries, keys] or `q`, `k` (and `v`), with `tokens` (and
`key_tokens`); as NumPy's `.npz` bytes (what the widget and the saved page carry, read by the
lab's own reader) or as the lab's JSON format (`payload`). Checked here as the lab checks it, so
that a mistake is named in the cell that made it, not in the widget."""
from __future__ import annotations

import io
import re
from typing import Any, Optional, Sequence

import numpy as np

MAX_TOKENS = 4096
# As many numbers as the page takes (16 Mi: 64 MiB as f32).
BUDGET = 16 << 20


def as_array(value: Any, name: str) -> np.ndarray:
    """A NumPy array from a NumPy array, a PyTorch (or JAX, or TensorFlow) tensor, or nested
    lists; float32."""
    if hasattr(value, "detach"):  # torch.Tensor
        value = value.detach()
        if hasattr(value, "float"):
            value = value.float()
        if hasattr(value, "cpu"):
            value = value.cpu()
        value = value.numpy()
    elif hasattr(value, "numpy") and not isinstance(value, np.ndarray):  # tf.Tensor
        value = value.numpy()
    try:
        array = np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name}: not an array of numbers ({error})") from None
    return array


def _stack_layers(layers: Sequence[Any], name: str, batch: Optional[int]) -> np.ndarray:
    """Per-layer tensors [batch, heads, rows, cols] (Hugging Face's `outputs.attentions`,
    TransformerLens's patterns) as [layers, heads, rows, cols] of example `batch`."""
    arrays = []
    for index, layer in enumerate(layers):
        array = as_array(layer, f"{name}[{index}]")
        if array.ndim != 4:
            raise ValueError(
                f"{name}[{index}] has shape {list(array.shape)}; each layer of a tuple must be "
                "[batch, heads, queries, keys] as Hugging Face's outputs.attentions are"
            )
        example = batch or 0
        if not 0 <= example < array.shape[0]:
            raise ValueError(f"{name}[{index}]: batch {example}, but it has {array.shape[0]} examples (0 to {array.shape[0] - 1})")
        arrays.append(array[example])
    if not arrays:
        raise ValueError(f"{name}: an empty tuple")
    shapes = {a.shape for a in arrays}
    if len(shapes) > 1:
        raise ValueError(f"{name}: the layers' shapes differ: {sorted(shapes)}")
    return np.stack(arrays)


def _activation_cache(cache: Any, batch: Optional[int]) -> Optional[np.ndarray]:
    """TransformerLens's ActivationCache: every `blocks.{l}.attn.hook_pattern`, in layer order."""
    keys = getattr(cache, "keys", None)
    if keys is None:
        return None
    found = []
    for key in keys():
        match = re.fullmatch(r"blocks\.(\d+)\.attn\.hook_pattern", str(key))
        if match:
            found.append((int(match.group(1)), key))
    if not found:
        return None
    return _stack_layers([cache[key] for _, key in sorted(found)], "cache", batch)


def attention_array(attention: Any, batch: Optional[int] = None, name: str = "attention") -> np.ndarray:
    """`attention` (or q, k, v) in any accepted form as an array of rank 2 to 4. A tuple or list
    of per-layer tensors is [batch, heads, rows, cols] each; five dimensions are [layers, batch,
    heads, rows, cols]; with `batch` given, four are [batch, heads, rows, cols] (one layer).
    Without `batch`, four are [layers, heads, rows, cols] and the lab says so where the first
    axis has more than one."""
    cache = _activation_cache(attention, batch) if name == "attention" else None
    if cache is not None:
        return cache
    if isinstance(attention, tuple) or (
        isinstance(attention, list) and attention and hasattr(attention[0], "shape")
    ):
        return _stack_layers(attention, name, batch)
    array = as_array(attention, name)
    if array.ndim == 5 or (array.ndim == 4 and batch is not None):
        axis = 1 if array.ndim == 5 else 0
        example = batch or 0
        form = "[layers, batch, heads, rows, cols]" if axis else "[batch, heads, rows, cols]"
        if not 0 <= example < array.shape[axis]:
            raise ValueError(
                f"{name} {form} {list(array.shape)}: batch {example}, but it has "
                f"{array.shape[axis]} examples (0 to {array.shape[axis] - 1})"
            )
        return array[:, example] if axis else array[example][np.newaxis]
    if batch not in (None, 0):
        raise ValueError(f"{name} {list(array.shape)} has no batch axis: batch {batch} cannot be read")
    return array


def _check(array: np.ndarray, name: str, rows: str, columns: str) -> None:
    if not 2 <= array.ndim <= 4:
        raise ValueError(
            f"{name} has {array.ndim} dimensions {list(array.shape)}; expected 2 to 4: "
            f"[layers, heads, {rows}, {columns}], [heads, {rows}, {columns}] or [{rows}, {columns}]"
        )
    if 0 in array.shape:
        raise ValueError(f"{name} has an empty dimension {list(array.shape)}")
    bad = np.argwhere(~np.isfinite(array))
    if len(bad):
        index = tuple(int(i) for i in bad[0])
        raise ValueError(f"{name}{list(index)} is {array[index]}: every number must be finite")


def _four(array: np.ndarray) -> np.ndarray:
    while array.ndim < 4:
        array = array[np.newaxis]
    return array


def _tokens(tokens: Any, count: int, name: str) -> list:
    if tokens is None:
        return [str(i) for i in range(count)]
    tokens = [str(t) for t in tokens]
    if len(tokens) != count:
        raise ValueError(f"{name} has {len(tokens)} entries where the tensors have {count} positions")
    return tokens


def arrays(
    attention: Any = None,
    tokens: Optional[Sequence[Any]] = None,
    *,
    q: Any = None,
    k: Any = None,
    v: Any = None,
    key_tokens: Optional[Sequence[Any]] = None,
    batch: Optional[int] = None,
) -> dict:
    """The arrays the lab reads for weights, or for Q and K (and V), each of rank 4 and float32,
    with the tokens (and key tokens for cross-attention) as lists of strings."""
    if attention is not None and (q is not None or k is not None):
        raise ValueError("give attention, or q and k, not both")
    if attention is not None:
        array = attention_array(attention, batch)
        _check(array, "attention", "queries", "keys")
        array = _four(array)
        layers, heads, queries, keys = array.shape
        data = {"attention": array.astype(np.float32)}
    elif q is not None and k is not None:
        qa, ka = attention_array(q, batch, "q"), attention_array(k, batch, "k")
        _check(qa, "q", "queries", "d")
        _check(ka, "k", "keys", "d")
        qa, ka = _four(qa), _four(ka)
        # Grouped-query attention: k (and v) may have a divisor of q's heads.
        grouped = qa.shape[1] % ka.shape[1] == 0
        if qa.shape[0] != ka.shape[0] or not grouped or qa.shape[3] != ka.shape[3]:
            raise ValueError(
                f"q {list(qa.shape)} does not fit k {list(ka.shape)}: layers and the width d must "
                "agree, and k's heads must be q's or divide them (grouped-query attention)"
            )
        layers, heads, queries, _ = qa.shape
        keys = ka.shape[2]
        data = {"q": qa.astype(np.float32), "k": ka.astype(np.float32)}
        if v is not None:
            va = attention_array(v, batch, "v")
            _check(va, "v", "keys", "d_v")
            va = _four(va)
            if va.shape[:3] != ka.shape[:3]:
                raise ValueError(f"v {list(va.shape)} does not fit k {list(ka.shape)}: one value per key")
            data["v"] = va.astype(np.float32)
    else:
        raise ValueError("give attention (with its tokens), or q and k (and v)")
    if max(queries, keys) > MAX_TOKENS:
        raise ValueError(f"{max(queries, keys)} tokens; the lab handles at most {MAX_TOKENS}")
    numbers = layers * heads * queries * keys
    if numbers > BUDGET:
        raise ValueError(
            f"{numbers} numbers (layers × heads × cells) is more than the page's budget of {BUDGET}; "
            "take fewer layers or heads, or a shorter text"
        )
    data["tokens"] = _tokens(tokens, queries, "tokens")
    if key_tokens is not None:
        data["key_tokens"] = _tokens(key_tokens, keys, "key_tokens")
    elif keys != queries:
        raise ValueError(
            f"{queries} queries but {keys} keys: give key_tokens for cross-attention"
        )
    return data


def payload(
    attention: Any = None,
    tokens: Optional[Sequence[Any]] = None,
    *,
    q: Any = None,
    k: Any = None,
    v: Any = None,
    key_tokens: Optional[Sequence[Any]] = None,
    batch: Optional[int] = None,
) -> dict:
    """The lab's JSON format for weights, or for Q and K (and V): nested lists of the float32
    values (each exactly, as a Python float)."""
    data = arrays(attention, tokens, q=q, k=k, v=v, key_tokens=key_tokens, batch=batch)
    return {name: value.tolist() if isinstance(value, np.ndarray) else value for name, value in data.items()}


def npz(data: dict) -> bytes:
    """`arrays(...)` as the bytes of an `.npz` (uncompressed: the numbers are float32 and do not
    shrink much), the tokens as string arrays."""
    buffer = io.BytesIO()
    np.savez(
        buffer,
        **{name: np.array(value, dtype=str) if name in ("tokens", "key_tokens") else value for name, value in data.items()},
    )
    return buffer.getvalue()
