"""The lab's parameters as a cell gives them (`show(..., temperature=2, mask="causal")`), checked
against the lab's own table before anything is drawn: the request's fields by the JSON Schema the
lab's build ships (static/request.schema.json, the same as `attention-trace --schema`), the view
settings below. An unknown keyword is a TypeError naming it and the closest field; a value of the
wrong type, a TypeError naming the field and what it takes."""
from __future__ import annotations

import difflib
import json
import numbers
from functools import lru_cache
from importlib import resources
from typing import Any

# The view settings attentionLab.set() takes beside the request (`lang` and `panels` are
# show()'s and html()'s own keywords). tests/element.rs checks these names against the lab's.
VIEW = {
    "head": {"type": "integer", "minimum": 1},
    "layer": {"type": "integer", "minimum": 1},
    "step": {"type": "integer", "minimum": 1},
    "theme": {"enum": ["auto", "light", "dark"]},
    "view": {"type": "string"},
    "lesson": {"type": "string"},
    "scale": {"enum": ["honest", "contrast"]},
}


@lru_cache(maxsize=1)
def schema() -> dict:
    """The request's JSON Schema, as the lab's build ships it."""
    try:
        text = resources.files("attention_lab").joinpath("static", "request.schema.json").read_text("utf-8")
    except FileNotFoundError:
        raise RuntimeError(
            "attention_lab/static/request.schema.json is missing: build the lab (trunk build --release) "
            "and run python/build_static.py before installing the package"
        ) from None
    return json.loads(text)


def _known() -> dict:
    return {**schema()["properties"], **VIEW}


def _types(spec: dict) -> set:
    """The JSON types a value of `spec` may have."""
    if "type" in spec:
        kinds = spec["type"]
        return set(kinds if isinstance(kinds, list) else [kinds])
    if "enum" in spec:
        return {_json_type(v) for v in spec["enum"]}
    if "const" in spec:
        return {_json_type(spec["const"])}
    for key in ("oneOf", "anyOf"):
        if key in spec:
            return set().union(*(_types(s) for s in spec[key]))
    return {"string", "number", "integer", "boolean", "array", "object", "null"}


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, numbers.Integral):
        return "integer"
    if isinstance(value, numbers.Real):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)):
        return "array"
    return type(value).__name__


def plain(value: Any) -> Any:
    """NumPy scalars and arrays (and tuples) as the JSON values they stand for."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return value.tolist()
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def check(params: dict) -> None:
    """Raises TypeError for a keyword the lab does not know (naming the closest one) or a value
    of a type its field does not take."""
    known = _known()
    for name, value in params.items():
        spec = known.get(name)
        if spec is None:
            close = difflib.get_close_matches(name, list(known) + ["lang", "panels"], n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}?" if close else f"; the lab takes {', '.join(sorted(known))}"
            raise TypeError(f"{name!r} is not a parameter of the lab{hint}")
        found = _json_type(value)
        allowed = _types(spec)
        # An integer is a number too.
        if found not in allowed and not (found == "integer" and "number" in allowed):
            raise TypeError(f"{name}: expected {' or '.join(sorted(allowed))}, not {found} {value!r}")
        if "enum" in spec and value not in spec["enum"]:
            raise TypeError(f"{name}: one of {', '.join(repr(v) for v in spec['enum'])}, not {value!r}")
