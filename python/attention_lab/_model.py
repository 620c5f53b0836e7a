"""A model for the lab to run in the notebook's page: a Hugging Face folder's files (its config,
its fast tokenizer's `tokenizer.json`, its safetensors weights), read from disk or written by
transformers' `save_pretrained`, and checked before anything is sent: the lab opens GPT-2, Llama,
Mistral, Qwen2, Qwen3, Gemma 2 and Gemma 3 (text) layouts up to 1 B parameters, and refuses the rest itself, naming the
file and the field."""
from __future__ import annotations

import json
import os
import struct
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

CONFIG = "config.json"
TOKENIZER = "tokenizer.json"
TOKENIZER_CONFIG = "tokenizer_config.json"
WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"
# The lab's own limit (crates/attention-core/src/io/hf_folder.rs, MAX_PARAMETERS).
MAX_PARAMETERS = 1_000_000_000


def _parameters(name: str, data: bytes) -> int:
    """How many numbers a safetensors file holds, from its header alone."""
    if len(data) < 8:
        raise ValueError(f"{name}: not safetensors: shorter than its header")
    (length,) = struct.unpack("<Q", data[:8])
    if length > 100_000_000 or 8 + length > len(data):
        raise ValueError(f"{name}: not safetensors: a header of {length} bytes")
    header = json.loads(data[8 : 8 + length])
    total = 0
    for tensor, entry in header.items():
        if tensor == "__metadata__":
            continue
        count = 1
        for extent in entry.get("shape", []):
            count *= int(extent)
        total += count
    return total


def read_folder(folder: Any) -> Tuple[str, Dict[str, bytes]]:
    """A folder's name and the files the lab reads from it, name → bytes; ValueError naming the
    file when one it needs is missing, or when the model is over the lab's limit."""
    path = Path(os.fspath(folder))
    if not path.is_dir():
        raise ValueError(f"model: {path} is not a folder (a Hugging Face model folder: {CONFIG}, {TOKENIZER}, {WEIGHTS})")
    files: Dict[str, bytes] = {}
    for name in (CONFIG, TOKENIZER):
        if not (path / name).is_file():
            hint = ""
            if name == TOKENIZER and any((path / other).is_file() for other in ("tokenizer.model", "vocab.json", "vocab.txt")):
                hint = " (the lab reads a fast tokenizer's tokenizer.json: save it with a PreTrainedTokenizerFast)"
            raise ValueError(f"model: {name} is missing in {path}{hint}")
        files[name] = (path / name).read_bytes()
    if (path / TOKENIZER_CONFIG).is_file():
        files[TOKENIZER_CONFIG] = (path / TOKENIZER_CONFIG).read_bytes()
    if (path / WEIGHTS).is_file():
        shards = [WEIGHTS]
    elif (path / INDEX).is_file():
        files[INDEX] = (path / INDEX).read_bytes()
        shards = sorted(set(json.loads(files[INDEX]).get("weight_map", {}).values()))
        if not shards:
            raise ValueError(f"model: {INDEX} in {path} names no shard")
    else:
        raise ValueError(f"model: {WEIGHTS} (or {INDEX} and its shards) is missing in {path}")
    parameters = 0
    for shard in shards:
        if not (path / shard).is_file():
            raise ValueError(f"model: {shard}, named by {INDEX}, is missing in {path}")
        with open(path / shard, "rb") as file:
            head = file.read(8)
            if len(head) == 8:
                (length,) = struct.unpack("<Q", head)
                head += file.read(min(length, 100_000_001))
        parameters += _parameters(shard, head)
        if parameters > MAX_PARAMETERS:
            raise ValueError(
                f"model: {parameters:,} parameters, more than the {MAX_PARAMETERS:,} the lab opens in a page"
            )
        files[shard] = (path / shard).read_bytes()
    return path.name, files


def model_files(model: Any, tokenizer: Optional[Any] = None) -> Tuple[str, Dict[str, bytes]]:
    """`model` as the lab's page opens it: a folder's path, or a transformers model (with its
    `tokenizer`, a fast one) saved to a temporary folder by `save_pretrained` and read back."""
    if isinstance(model, (str, os.PathLike)):
        if tokenizer is not None:
            raise TypeError("tokenizer: the folder's own tokenizer.json is read; give tokenizer= with a transformers model only")
        return read_folder(model)
    if not hasattr(model, "save_pretrained"):
        raise TypeError(
            "model: a Hugging Face folder's path, or a transformers model (with tokenizer=), "
            f"not {type(model).__name__}"
        )
    if tokenizer is None or not hasattr(tokenizer, "save_pretrained"):
        raise TypeError("tokenizer: a transformers model needs its tokenizer too (tokenizer=..., a fast one: it writes tokenizer.json)")
    with tempfile.TemporaryDirectory() as folder:
        model.save_pretrained(folder, safe_serialization=True)
        tokenizer.save_pretrained(folder)
        _, files = read_folder(folder)
    config = getattr(model, "config", None)
    name = str(getattr(config, "name_or_path", "") or getattr(config, "model_type", "") or "model")
    return Path(name).name or "model", files
