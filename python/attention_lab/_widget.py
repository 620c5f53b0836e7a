"""The notebook widget: an anywidget whose front end (widget.js) shows the lab's page in a frame
of its own and sends it the widget's tensors as `.npz` bytes (or a model's files) and its
settings."""
from __future__ import annotations

from pathlib import Path

import anywidget
import traitlets

from ._page import GIVEN, shell


class AttentionWidget(anywidget.AnyWidget):
    """The lab on one's own attention, in a notebook."""

    _esm = Path(__file__).parent / "widget.js"
    # The page, its link left as a placeholder for the front end to fill.
    shell = traitlets.Unicode().tag(sync=True)
    # One's attention as the bytes of an .npz (attention or q, k, v; tokens).
    data = traitlets.Bytes(b"").tag(sync=True)
    # Or a model the lab runs: {"name": ..., "files": {file name: bytes}} (a Hugging Face folder's
    # config.json, tokenizer.json and safetensors), each file sent as a binary buffer.
    model = traitlets.Dict({}).tag(sync=True)
    link = traitlets.Unicode("?embed=1").tag(sync=True)
    params = traitlets.Unicode("{}").tag(sync=True)
    # How one's attention is looked at: {"hide_special": bool, "mean": "heads" | "layers"}.
    view = traitlets.Unicode("{}").tag(sync=True)
    height = traitlets.Int(640).tag(sync=True)

    @traitlets.default("shell")
    def _shell(self) -> str:
        return shell().replace(GIVEN, "null", 1)
