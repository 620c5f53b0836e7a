"""Attention Lab in a notebook.

    import attention_lab
    attention_lab.show(attention, tokens)              # weights: [layers, heads, q, k], ...
    attention_lab.show(q=q, k=k, v=v, tokens=tokens)  # or each head's Q and K (and V)
    attention_lab.save_html("attention.html", attention, tokens)
    attention_lab.show(model="path/to/folder", text="...")  # a model the lab runs itself
    attention_lab.show(model=hf_model, tokenizer=tok)       # a transformers model, live

`attention` may be a NumPy array, a PyTorch tensor, nested lists, Hugging Face's
`outputs.attentions` (a tuple of [batch, heads, q, k] per layer) or a TransformerLens
`ActivationCache`. The lab's own WebAssembly, carried inline, draws it: no CDN, works offline.
The numbers travel as the bytes of an `.npz`, read by the lab's own reader.

With `model=` (a Hugging Face folder, or a transformers model and its fast tokenizer), the widget
is sent the model's files and the lab runs it in the page, its own WebAssembly: the sentence,
edited in the widget, is computed again there, with no round trip to Python.
"""
from __future__ import annotations

import json
from typing import Any, Optional, Sequence
from urllib.parse import urlencode

from ._convert import arrays, npz, payload
from ._fields import check, plain
from ._model import model_files
from ._page import page, shell

__all__ = ["show", "save_html", "html", "payload"]

PANELS = "weights,head-view,all-heads,head-roles"
# A model's panels: the sentence (edited live), every layer × head, the chosen head, what comes
# next and generation.
MODEL_PANELS = "sentence,model-view,weights,head-view,next-token,generate"


def _link(panels: Any, lang: Optional[str], default: str = PANELS) -> str:
    if panels is None:
        panels = default
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
    batch: Optional[int] = None,
    hide_special: bool = False,
    mean: Optional[str] = None,
    **params: Any,
) -> str:
    """One self-contained HTML page of the lab showing this attention. Keywords other than
    these are the lab's parameters (`temperature=2`, `mask="causal"`), checked first."""
    if "model" in params or "tokenizer" in params:
        raise TypeError("model: a page saved to a file carries attention only; show(model=...) runs a model in a notebook")
    params = _params(params)
    link = _link(panels, lang)
    data = arrays(attention, tokens, q=q, k=k, v=v, key_tokens=key_tokens, batch=batch)
    return page(npz(data), link, params, _view(hide_special, mean))


def save_html(path: str, attention: Any = None, tokens: Optional[Sequence[Any]] = None, **options: Any) -> str:
    """Writes the page `html(...)` makes to `path` (it opens from disk); returns the path."""
    text = html(attention, tokens, **options)
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return path


def show(
    attention: Any = None,
    tokens: Optional[Sequence[Any]] = None,
    *,
    height: int = 640,
    model: Any = None,
    tokenizer: Any = None,
    text: Optional[str] = None,
    **options: Any,
):
    """An anywidget showing this attention in the lab (Jupyter, JupyterLab, VS Code, Colab,
    marimo). With `model=` (a Hugging Face folder's path, or a transformers model with
    `tokenizer=`), the lab runs that model on `text` in the page instead: every layer and head,
    what comes next, generation; editing the sentence in the widget computes it again there."""
    from ._widget import AttentionWidget

    own = {name: options.pop(name) for name in ("q", "k", "v", "key_tokens", "batch", "panels", "lang", "hide_special", "mean") if name in options}
    if model is not None:
        if attention is not None or any(name in own for name in ("q", "k", "v")):
            raise TypeError("show: a model, or one's own attention (attention or q, k, v), not both")
        name, files = model_files(model, tokenizer)
        if text is not None:
            options["sentence"] = text
        params = _params(options)
        return AttentionWidget(
            model={"name": name, "files": files},
            link=_link(own.get("panels"), own.get("lang"), MODEL_PANELS),
            params=json.dumps(params),
            height=height,
            shell=shell(tokenizer=True).replace("__ATTENTION_LAB_GIVEN__", "null", 1),
        )
    if tokenizer is not None:
        raise TypeError("tokenizer: goes with model=")
    if text is not None:
        raise TypeError("text: goes with model= (one's own attention brings its tokens)")
    params = _params(options)
    link = _link(own.get("panels"), own.get("lang"))
    data = arrays(
        attention,
        tokens,
        q=own.get("q"),
        k=own.get("k"),
        v=own.get("v"),
        key_tokens=own.get("key_tokens"),
        batch=own.get("batch"),
    )
    return AttentionWidget(
        data=npz(data),
        link=link,
        params=json.dumps(params),
        view=json.dumps(_view(own.get("hide_special", False), own.get("mean"))),
        height=height,
    )


def _view(hide_special: Any, mean: Any) -> dict:
    """How one's attention is looked at, checked: special tokens hidden (each row renormalised),
    and the mean over each layer's heads or over the layers."""
    if not isinstance(hide_special, bool):
        raise TypeError(f"hide_special: True or False, not {hide_special!r}")
    if mean not in (None, "heads", "layers"):
        raise ValueError(f'mean: "heads" or "layers" (or None for each head), not {mean!r}')
    view: dict = {}
    if hide_special:
        view["hide_special"] = True
    if mean is not None:
        view["mean"] = mean
    return view
