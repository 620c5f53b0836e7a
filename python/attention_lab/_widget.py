"""The notebook widget: an anywidget whose module carries the lab's page (its wasm inline) and
shows it in a frame of its own, filled with the widget's data."""
from __future__ import annotations

import json

import anywidget
import traitlets

from ._page import DATA, LINK, PARAMS, shell


def _esm() -> str:
    return f"""
const SHELL = {json.dumps(shell())};
function render({{ model, el }}) {{
  const frame = document.createElement("iframe");
  frame.title = "Attention Lab";
  frame.style.cssText = "width: 100%; border: 0; display: block";
  const fill = () => {{
    frame.style.height = model.get("height") + "px";
    // Safe inside the page's <script>: no "</" ends it early.
    const safe = (text) => text.replaceAll("</", "<\\\\/");
    frame.srcdoc = SHELL.replace({json.dumps(LINK)}, () => safe(JSON.stringify(model.get("link"))))
      .replace({json.dumps(PARAMS)}, () => safe(model.get("params")))
      .replace({json.dumps(DATA)}, () => safe(model.get("data")));
  }};
  fill();
  model.on("change:data", fill);
  model.on("change:params", fill);
  model.on("change:height", () => {{ frame.style.height = model.get("height") + "px"; }});
  el.appendChild(frame);
}}
export default {{ render }};
"""


class AttentionWidget(anywidget.AnyWidget):
    """The lab on one's own attention, in a notebook."""

    _esm = _esm()
    data = traitlets.Unicode("{}").tag(sync=True)
    link = traitlets.Unicode("?embed=1").tag(sync=True)
    params = traitlets.Unicode("{}").tag(sync=True)
    height = traitlets.Int(640).tag(sync=True)
