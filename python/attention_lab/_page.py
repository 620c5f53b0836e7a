"""The lab as one self-contained page: its stylesheet, its wasm-bindgen glue and its module
(base64) inline. Its data (the `.npz` bytes of one's attention) and settings come inline (a page
saved from a notebook) or from the widget around it, by a message."""
from __future__ import annotations

import base64
from typing import Optional
import json
from functools import lru_cache
from importlib import resources

LINK = "__ATTENTION_LAB_LINK__"
GIVEN = "__ATTENTION_LAB_GIVEN__"

# The widget's messages: the page says it is ready; the widget sends the data and settings
# (either may come alone later, when the cell changes them).
READY = "attention-lab-widget:ready"
DATA = "attention-lab-widget:data"


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


def _tokenizer_script() -> str:
    """The tokenizer module inline (a model's `tokenizer.json` is read by it): its no-modules
    script's `wasm_bindgen`, handed to the lab with its module's bytes, as
    `src/ui/bridge/tokenizer_module.rs` looks for them."""
    script = _static("tokenizer.js").decode("utf-8")
    module = base64.b64encode(_static("tokenizer_bg.wasm")).decode("ascii")
    # Run with no `document` in its scope: the glue would resolve its own address against the
    # page's, and a page in a frame's srcdoc has none it can resolve against.
    return f"""<script>
window.__attentionLabTokenizer = (() => {{
const document = undefined;
{script}
return wasm_bindgen;
}})();
window.__attentionLabTokenizerModule = Uint8Array.from(atob("{module}"), (c) => c.charCodeAt(0));
</script>"""


@lru_cache(maxsize=2)
def shell(tokenizer: bool = False) -> str:
    """The page with two placeholders: the link (a JSON string) and what is given inline (a
    JavaScript expression: `{data, params}`, or `null` when the widget sends them). With
    `tokenizer`, it carries the tokenizer module too (2.4 MB more), for a model shown in it."""
    css = _static("lab.css").decode("utf-8")
    glue = _static("lab.js").decode("utf-8")
    wasm = base64.b64encode(_static("lab_bg.wasm")).decode("ascii")
    tokenizer_script = _tokenizer_script() if tokenizer else ""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Attention Lab</title>
<style>{css}</style>
<script>window.attentionLabLink = {LINK};</script>
{tokenizer_script}
</head><body>
<script type="module">
{glue}
const base64 = (text) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
await __wbg_init({{ module_or_path: base64("{wasm}") }});
const lab = window.attentionLab;
// A model (a Hugging Face folder's files) opens first, then the settings (its sentence) apply.
async function apply({{ data, params, model }}) {{
  const opened = model ? await lab.load({{ model }}) : {{ ok: true }};
  const set = params && Object.keys(params).length ? lab.set(params) : {{ ok: true }};
  const loaded = data ? lab.load(Object.assign({{ name: "attention_lab" }}, data)) : {{ ok: true }};
  window.attentionLabReady = {{ set, loaded, opened }};
  for (const result of [opened, set, loaded]) {{
    if (!result.ok) console.warn("attention_lab:", result.error);
  }}
}}
const given = {GIVEN};
if (given) {{
  apply(given);
}} else {{
  addEventListener("message", (event) => {{
    if (event.source === parent && event.data?.type === "{DATA}") apply(event.data);
  }});
  parent.postMessage({{ type: "{READY}" }}, "*");
}}
</script>
</body></html>
"""


def page(data: bytes, link: str, params: dict, view: Optional[dict] = None) -> str:
    """The page with `data` (the `.npz` bytes), `params` (`attentionLab.set`'s) and how the file
    is looked at (`view`: `hide_special`, `mean`, as `attentionLab.load` takes them) inline."""
    given = (
        '{data: Object.assign({format: "npz", bytes: base64("'
        + base64.b64encode(data).decode("ascii")
        + '")}, '
        + _script_json(view or {})
        + "), params: "
        + _script_json(params)
        + "}"
    )
    return shell().replace(LINK, _script_json(link), 1).replace(GIVEN, given, 1)

