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
from ._fields import check, plain
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
    """The lab's parameters as `attentionLab.set` takes them, checked against the lab's table
    (TypeError for an unknown keyword or a value of the wrong type): a mask may be named by its
    kind, NumPy numbers stand for their values."""
    params = {name: plain(value) for name, value in params.items()}
    if isinstance(params.get("mask"), str):
        params["mask"] = {"kind": params["mask"]}
    check(params)
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
    """One self-contained HTML page of the lab showing this attention. Keywords other than
    these are the lab's parameters (`temperature=2`, `mask="causal"`), checked first."""
    params = _params(params)
    link = _link(panels, lang)
    data = arrays(attention, tokens, q=q, k=k, v=v, key_tokens=key_tokens, batch=batch)
    return page(npz(data), link, params)


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

    own = {name: options.pop(name) for name in ("q", "k", "v", "key_tokens", "batch", "panels", "lang") if name in options}
    params = _params(options)
    link = _link(own.get("panels"), own.get("lang"))
    data = arrays(
        attention,
        tokens,
        q=own.get("q"),
        k=own.get("k"),
        v=own.get("v"),
        key_tokens=own.get("key_tokens"),
        batch=own.get("batch", 0),
    )
    return AttentionWidget(
        data=npz(data),
        link=link,
        params=json.dumps(params),
        height=height,
    )
