"""Every figure the notebooks and their widgets draw is legible from the back row.

Each notebook runs in a fresh kernel with one extra first cell that wraps matplotlib's
``FigureCanvasBase.print_figure`` -- the call behind every inline plot, ``savefig`` and the
widgets' PNG frames -- so that each rendered figure reports its texts and their sizes as
displayed (:func:`helpers.plotting.displayed_text_sizes`). Any text below
``helpers.plotting.MIN_FONT_PT`` fails, naming the notebook, the text and its size.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from helpers.ui.plotting import MIN_FONT_PT, displayed_text_sizes

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("02-*.ipynb"))
MARK = "FIGURE-TEXT-REPORT:"

PROBE = r"""
import json as _json
from matplotlib.backend_bases import FigureCanvasBase as _Canvas
from helpers.ui.plotting import displayed_text_sizes as _sizes
_FIGURE_TEXTS = []
_original_print_figure = _Canvas.print_figure
def _recording_print_figure(self, *args, **kwargs):
    _FIGURE_TEXTS.append([(t, s) for t, s in _sizes(self.figure)])
    return _original_print_figure(self, *args, **kwargs)
_Canvas.print_figure = _recording_print_figure
"""

REPORT = f"print({MARK!r} + _json.dumps(_FIGURE_TEXTS))"


def test_displayed_sizes_shrink_with_wide_figures():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3), dpi=100)
    ax.set_title("title", fontsize=12)
    assert ("title", 12.0) in displayed_text_sizes(fig)
    fig.set_size_inches(18, 3)  # 1800 px wide: shown at half size
    assert ("title", 6.0) in displayed_text_sizes(fig)
    plt.close(fig)


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_figure_text_is_at_least_10pt(path):
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(PROBE))
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))
    NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    assert MARK in text, f"{path.name}: the report cell printed nothing: {nb.cells[-1].outputs}"
    figures = json.loads(text.split(MARK, 1)[1])
    small = sorted({(t[:40], round(s, 1)) for fig in figures for t, s in fig if s < MIN_FONT_PT - 1e-9})
    assert not small, f"{path.name}: {len(small)} texts below {MIN_FONT_PT} pt as displayed: {small[:12]}"
