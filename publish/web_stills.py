"""Stills of widgets for the web edition: a static picture of a widget's first view.

A static page cannot run a kernel, so a widget output of a committed notebook would show
nothing (or a ``VBox(children=...)`` repr). The web edition replaces it by a *still*: the
widget tree as it first appeared, drawn as plain HTML from the ipywidgets state that
nbclient records while it runs the notebook (``store_widget_state``): images are the very
PNG/JPEG bytes the widget showed, sliders and text boxes show their starting values,
buttons and choices their labels (a dropdown, closed, its chosen one), hidden parts (``layout.display = "none"``) stay hidden.
It knows only the ipywidgets models (``@jupyter-widgets/controls`` and ``/output``), never
the series' helpers, so it keeps working while helpers/ is reorganised.

``run_for_widget_state`` executes a copy of a notebook up to its last widget cell and returns
the executed copy; ``widget_still_html`` renders one displayed widget from that copy's state.
"""

from __future__ import annotations

import base64
import copy
import html
import shutil
import tempfile
from pathlib import Path

import nbformat

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
STATE_MIME = "application/vnd.jupyter.widget-state+json"
_BOXES = {"VBoxModel": "column", "HBoxModel": "row", "BoxModel": "row", "GridBoxModel": "row"}
_SLIDERS = {"IntSliderModel", "FloatSliderModel", "FloatLogSliderModel", "SelectionSliderModel",
            "IntRangeSliderModel", "FloatRangeSliderModel", "SelectionRangeSliderModel", "PlayModel",
            "IntProgressModel", "FloatProgressModel"}
_CHOICES = {"RadioButtonsModel", "ToggleButtonsModel", "SelectModel", "SelectMultipleModel"}   # every option shows
_TEXTS = {"TextModel", "TextareaModel", "IntTextModel", "FloatTextModel", "BoundedIntTextModel",
          "BoundedFloatTextModel", "PasswordModel", "ComboboxModel"}


def widget_cells(nb) -> list[int]:
    """Indices of the cells of ``nb`` that display a widget (found by output type, not position)."""
    return [i for i, c in enumerate(nb.cells) if c.cell_type == "code"
            and any(WIDGET_MIME in o.get("data", {}) for o in c.get("outputs", []))]


def run_for_widget_state(nb_path: Path, *, timeout: int = 300) -> nbformat.NotebookNode | None:
    """Execute a copy of ``nb_path`` up to its last widget cell; return it with its widget state.

    The notebook runs in a fresh kernel of this Python environment (``sys.executable``), in a temporary copy of its folder
    (so nothing is written next to the committed notebooks). Returns None when the notebook
    displays no widget. Cells after the last widget cell are not run (they cannot change a
    first view); their outputs stay as committed.
    """
    import subprocess

    import ipykernel.kernelspec
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from nbclient import NotebookClient
    from traitlets import default

    class ThisEnvironment(KernelSpecManager):
        """The kernel of the Python running this build (not whatever 'python3' a user dir names)."""

        def get_kernel_spec(self, kernel_name):
            return self.kernel_spec_class(resource_dir=ipykernel.kernelspec.RESOURCES,
                                          **ipykernel.kernelspec.get_kernel_dict())

    class ThisEnvironmentKernel(AsyncKernelManager):
        @default("kernel_spec_manager")
        def _kernel_spec_manager_default(self):
            return ThisEnvironment()

    nb = nbformat.read(nb_path, as_version=4)
    cells = widget_cells(nb)
    if not cells:
        return None
    trimmed = copy.deepcopy(nb)
    trimmed.cells = trimmed.cells[: cells[-1] + 1]
    with tempfile.TemporaryDirectory(prefix="web-edition-run-") as tmp:
        base = Path(tmp)
        work = base / nb_path.parent.name
        shutil.copytree(nb_path.parent, work, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "*.ipynb"))
        for sibling in ("docs", "data"):  # what a notebook may read as ../docs/..., ../data/...
            if (nb_path.parent.parent / sibling).is_dir():
                shutil.copytree(nb_path.parent.parent / sibling, base / sibling)
        client = NotebookClient(trimmed, kernel_manager_class=ThisEnvironmentKernel, kernel_name="this-environment",
                                timeout=timeout, allow_errors=True,
                                store_widget_state=True, resources={"metadata": {"path": str(work)}})
        with open(base / "kernel.log", "wb") as log:  # the kernel's own chatter stays out of the build log
            client.execute(stdout=log, stderr=subprocess.STDOUT)
    return trimmed


def _state(nb) -> dict:
    return (nb.metadata.get("widgets", {}).get(STATE_MIME, {}) or {}).get("state", {})


def _ref(value) -> str | None:
    if isinstance(value, str) and value.startswith("IPY_MODEL_"):
        return value[len("IPY_MODEL_"):]
    return None


def _buffer(model: dict, key: str) -> bytes | None:
    for buf in model.get("buffers", []) or []:
        if buf.get("path") == [key] and buf.get("encoding", "base64") == "base64":
            return base64.b64decode(buf["data"])
    value = model.get("state", {}).get(key)
    if isinstance(value, dict) and "buffer" in value:  # older serialisation
        return base64.b64decode(value["buffer"])
    return None


def _hidden(state: dict, s: dict) -> bool:
    layout = state.get(_ref(s.get("layout")) or "", {}).get("state", {})
    return layout.get("display") == "none" or layout.get("visibility") == "hidden"


def _label(s: dict) -> str:
    d = s.get("description") or ""
    return f'<span class="still-label">{html.escape(d)}</span> ' if d else ""


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, (list, tuple)):
        return " – ".join(_fmt(x) for x in v)
    return html.escape(str(v))


def _output_html(outputs: list) -> str:
    parts = []
    for o in outputs or []:
        data = o.get("data", {})
        if o.get("output_type") == "stream":
            parts.append(f'<pre class="still-text">{html.escape(o.get("text", ""))}</pre>')
        elif "image/png" in data or "image/jpeg" in data:
            mime = "image/png" if "image/png" in data else "image/jpeg"
            b64 = "".join(data[mime]).replace("\n", "")
            parts.append(f'<img class="still-image" alt="widget output" src="data:{mime};base64,{b64}">')
        elif "text/html" in data:
            parts.append("".join(data["text/html"]))
        elif "text/plain" in data:
            parts.append(f'<pre class="still-text">{html.escape("".join(data["text/plain"]))}</pre>')
    return "".join(parts)


def _render(state: dict, model_id: str, depth: int = 0) -> str:
    model = state.get(model_id)
    if model is None or depth > 50:
        return ""
    name, s = model.get("model_name", ""), model.get("state", {})
    if _hidden(state, s):
        return ""
    if name in _BOXES or name in {"TabModel", "AccordionModel", "StackModel"}:
        kids = [_render(state, _ref(c) or "", depth + 1) for c in s.get("children", [])]
        if name in {"TabModel", "AccordionModel", "StackModel"}:
            titles = s.get("titles") or s.get("_titles") or []
            if isinstance(titles, dict):
                titles = [titles.get(str(i), "") for i in range(len(kids))]
            sel = s.get("selected_index")
            kids = [f'<div class="still-title">{html.escape(str(t))}</div>{k}' if t else k
                    for t, k in zip(list(titles) + [""] * len(kids), kids)]
            if name == "StackModel" and isinstance(sel, int) and 0 <= sel < len(kids):
                kids = [kids[sel]]
        direction = _BOXES.get(name, "column")
        return f'<div class="still-box still-{direction}">{"".join(kids)}</div>'
    if name == "ImageModel":
        data = _buffer(model, "value")
        if not data:
            return ""
        fmt = (s.get("format") or "png").lower()
        mime = "image/svg+xml" if fmt == "svg+xml" else f"image/{'jpeg' if fmt == 'jpg' else fmt}"
        return (f'<img class="still-image" alt="{html.escape(s.get("description") or "widget image")}" '
                f'src="data:{mime};base64,{base64.b64encode(data).decode()}">')
    if name in {"HTMLModel", "HTMLMathModel"}:
        return f'<div class="still-html">{_label(s)}{s.get("value", "")}</div>' if s.get("value") else ""
    if name == "LabelModel":
        return f'<div class="still-html">{html.escape(s.get("value", ""))}</div>' if s.get("value") else ""
    if name == "OutputModel":
        return f'<div class="still-output">{_output_html(s.get("outputs", []))}</div>'
    if name in _SLIDERS:
        if "_options_labels" in s and "index" in s:
            labels, idx = s["_options_labels"], s["index"]
            idx = idx if isinstance(idx, (list, tuple)) else [idx]
            value = " – ".join(html.escape(str(labels[i])) for i in idx if isinstance(i, int) and 0 <= i < len(labels))
        else:  # (a FloatLogSlider's value is the value itself; its min/max are exponents)
            value = _fmt(s.get("value", ""))
        return f'<div class="still-control still-slider">{_label(s)}<span class="still-value">{value}</span></div>'
    if name == "DropdownModel":  # closed, as it first appears: its chosen option only (2.13's menu has a line per token)
        labels, idx = s.get("_options_labels", []), s.get("index")
        chosen = html.escape(str(labels[idx])) if isinstance(idx, int) and 0 <= idx < len(labels) else ""
        return f'<div class="still-control">{_label(s)}<span class="still-field">{chosen} ▾</span></div>'
    if name in _CHOICES:
        labels, idx = s.get("_options_labels", []), s.get("index")
        chosen = set(idx) if isinstance(idx, (list, tuple)) else {idx}
        items = "".join(f'<li class="{"still-chosen" if i in chosen else ""}">{"●" if i in chosen else "○"} '
                        f"{html.escape(str(lab))}</li>" for i, lab in enumerate(labels))
        return f'<div class="still-control still-choices">{_label(s)}<ul>{items}</ul></div>'
    if name in {"CheckboxModel", "ToggleButtonModel", "ValidModel"}:
        mark = "☑" if s.get("value") else "☐"
        return f'<div class="still-control">{mark} {html.escape(s.get("description") or "")}</div>'
    if name == "ButtonModel":
        # A picture of a button: it must not look like one a reader can tap (nothing would happen).
        return (f'<span class="still-button" aria-disabled="true" title="静态截图：运行本笔记本后才能点击">'
                f'{html.escape(s.get("description") or s.get("tooltip") or "")}</span>')
    if name in _TEXTS:
        value = s.get("value")
        shown = _fmt(value) if value not in (None, "") else f'<i>{html.escape(s.get("placeholder") or "")}</i>'
        return f'<div class="still-control">{_label(s)}<span class="still-field">{shown}</span></div>'
    if s.get("description"):
        return f'<div class="still-control">{html.escape(s["description"])}</div>'
    return ""


def widget_still_html(executed_nb, model_id: str) -> str:
    """The first view of the widget ``model_id`` of ``executed_nb``, as static HTML ('' if unknown)."""
    return _render(_state(executed_nb), model_id)
