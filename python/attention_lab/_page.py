"""The lab as one self-contained page: its stylesheet, its wasm-bindgen glue and its module
(base64) inline, then the data handed to `attentionLab.load` once it has started."""
from __future__ import annotations

import base64
import json
from functools import lru_cache
from importlib import resources

DATA = "__ATTENTION_LAB_DATA__"
LINK = "__ATTENTION_LAB_LINK__"
PARAMS = "__ATTENTION_LAB_PARAMS__"


def _static(name: str) -> bytes:
    try:
        return resources.files("attention_lab").joinpath("static", name).read_bytes()
    except FileNotFoundError:
        raise RuntimeError(
            f"attention_lab/static/{name} is missing: build the lab (trunk build --release) and "
            "run python/build_static.py before installing the package"
        ) from None


def _script_json(value: object) -> str:
    """JSON safe inside a <script>: no "</" to end it early."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/")


@lru_cache(maxsize=1)
def shell() -> str:
    """The page with placeholders for the data, the link and the parameters (each a JSON
    value); the widget's module fills them in the browser, `page` in Python."""
    css = _static("lab.css").decode("utf-8")
    glue = _static("lab.js").decode("utf-8")
    wasm = base64.b64encode(_static("lab_bg.wasm")).decode("ascii")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Attention Lab</title>
<style>{css}</style>
<script>window.attentionLabLink = {LINK};</script>
</head><body>
<script type="module">
{glue}
const bytes = Uint8Array.from(atob("{wasm}"), (c) => c.charCodeAt(0));
await __wbg_init({{ module_or_path: bytes }});
const lab = window.attentionLab;
const params = {PARAMS};
const set = Object.keys(params).length ? lab.set(params) : {{ ok: true }};
const loaded = lab.load(Object.assign({{ name: "attention_lab" }}, {DATA}));
window.attentionLabReady = {{ set, loaded }};
for (const result of [set, loaded]) {{
  if (!result.ok) console.warn("attention_lab:", result.error);
}}
</script>
</body></html>
"""


def page(data: dict, link: str, params: dict) -> str:
    return (
        shell()
        .replace(LINK, _script_json(link), 1)
        .replace(PARAMS, _script_json(params), 1)
        .replace(DATA, _script_json(data), 1)
    )
