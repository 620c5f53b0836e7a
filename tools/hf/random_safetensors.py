"""Writes a safetensors file of random weights a tensor at a time (never the whole model in
memory), for the large folders made by hand to measure the page: `make_billion.py` (bf16) and
`make_gpt2_small.py` (f32)."""

import json
import struct

import numpy as np

SIZES = {"F32": 4, "BF16": 2}


def bf16(values):
    """f32 → bf16 bits, rounded to nearest even."""
    bits = values.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def write(path, shapes, dtype, value, metadata=None):
    """Writes `shapes()` (a function giving (name, shape) pairs, called twice) to `path` in
    `dtype` ("F32" or "BF16"), each tensor `value(name, shape)` (f32); returns the parameters
    and the data's bytes."""
    size = SIZES[dtype]
    header, offset, count = ({"__metadata__": metadata} if metadata else {}), 0, 0
    for name, shape in shapes():
        n = int(np.prod(shape))
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size * n]}
        offset += size * n
        count += n
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in shapes():
            values = value(name, shape)
            f.write((bf16(values) if dtype == "BF16" else values.astype("<f4")).tobytes())
    return count, offset
