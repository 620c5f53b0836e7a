"""Attention Lab in a notebook.

    import attention_lab
    attention_lab.show(attention, tokens)              # weights: [layers, heads, q, k], ...
    attention_lab.show(q=q, k=k, v=v, tokens=tokens)  # or each head's Q and K (and V)
    attention_lab.save_html("attention.html", attention, tokens)

`attention` may be a NumPy array, a PyTorch tensor, nested lists, Hugging Face's
`outputs.attentions` (a tuple of [batch, heads, q, k] per layer) or a TransformerLens
`ActivationCache`. The lab's own WebAssembly, carried inline, draws it: no CDN, works offline.
The numbers travel as the bytes of an `.npz`, read by the lab's own reader.
"""
from __future__ import annotations

import json
from typing import Any, Optional, Sequence
from urllib.parse import urlencode

from ._convert import arrays, npz, payload
from ._page import page

__all__ = ["show", "save_html", "html", "payload"]

PANELS = "weights,head-view,all-heads,head-roles"


def _link(panels: Any, lang: Optional[str]) -> str:
    if panels is None:
        panels = PANELS
    if not isinstance(panels, str):
        panels = ",".join(panels)
    query = {"embed": "1", "panels": panels}
    if lang is not None:
        if lang not in ("en", "zh"):
            raise ValueError(f'lang: "en" or "zh", not {lang!r}')
        query["lang"] = lang
    return "?" + urlencode(query, safe=",")


def _params(params: dict) -> dict:
    """The lab's parameters as `attentionLab.set` takes them: a mask may be named by its kind."""
    params = dict(params)
    if isinstance(params.get("mask"), str):
        params["mask"] = {"kind": params["mask"]}
    return params


def html(
    attention: Any = None,
    tokens: Optional[Sequence[Any]] = None,
    *,
    q: Any = None,
    k: Any = None,
    v: Any = None,
    key_tokens: Optional[Sequence[Any]] = None,
    panels: Any = None,
    lang: Optional[str] = None,
    batch: int = 0,
    **params: Any,
) -> str:
    """One self-contained HTML page of the lab showing this attention."""
    data = arrays(attention, tokens, q=q, k=k, v=v, key_tokens=key_tokens, batch=batch)
    return page(npz(data), _link(panels, lang), _params(params))


def save_html(path: str, attention: Any = None, tokens: Optional[Sequence[Any]] = None, **options: Any) -> str:
    """Writes the page `html(...)` makes to `path` (it opens from disk); returns the path."""
    text = html(attention, tokens, **options)
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return path


def show(attention: Any = None, tokens: Optional[Sequence[Any]] = None, *, height: int = 640, **options: Any):
    """An anywidget showing this attention in the lab (Jupyter, JupyterLab, VS Code, Colab,
    marimo)."""
    from ._widget import AttentionWidget

    data = arrays(
        attention,
        tokens,
        q=options.pop("q", None),
        k=options.pop("k", None),
        v=options.pop("v", None),
        key_tokens=options.pop("key_tokens", None),
        batch=options.pop("batch", 0),
    )
    link = _link(options.pop("panels", None), options.pop("lang", None))
    return AttentionWidget(
        data=npz(data),
        link=link,
        params=json.dumps(_params(options)),
        height=height,
    )
