"""Every committed figure fits its canvas: no label, tick or colorbar cut at an edge.

``H.use_style()`` turns off the inline backend's tight crop (``bbox_inches="tight"`` lays each figure out
twice, the largest cost of Run All), so a figure is shown exactly at its own size and margins. A figure
whose margins are too small then shows its tick labels or axis label cut at the border. This test reads
every PNG output committed in the notebooks and asks that a frame of ``EDGE_PX`` pixels around it is
background only; it failed on 12 of 32 figures before their cells set fixed margins.
"""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from nbclient import NotebookClient
from PIL import Image  # Pillow: a dependency of matplotlib
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = series()
EDGE_PX = 2
#: A pixel counts as drawn when its RGB distance (L1) from white exceeds this (antialiasing ghosts stay below).
INK = 60


def _figures():
    for path in NOTEBOOKS:
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for k, out in enumerate(cell.get("outputs", [])):
                png = out.get("data", {}).get("image/png")
                if png:
                    yield pytest.param(png, id=f"{path.name[:5]}-{cell.get('id')}-{k}")


FIGURES = list(_figures())


def cut_edges(rgb: np.ndarray, edge: int = EDGE_PX) -> list[str]:
    """The edges of an (h, w, 3) image whose outer ``edge`` pixels carry ink."""
    ink = np.abs(rgb.astype(int) - 255).sum(axis=-1) > INK
    frames = {"top": ink[:edge], "bottom": ink[-edge:], "left": ink[:, :edge], "right": ink[:, -edge:]}
    return [name for name, strip in frames.items() if strip.any()]


def test_the_notebooks_have_figures():
    assert len(FIGURES) >= 25, f"only {len(FIGURES)} committed figures: are the notebooks executed?"


@pytest.mark.parametrize("png", FIGURES)
def test_figure_is_not_cut_at_an_edge(png):
    rgb = np.asarray(Image.open(io.BytesIO(base64.b64decode(png))).convert("RGB"))
    cut = cut_edges(rgb)
    assert not cut, (f"ink on the {', '.join(cut)} edge of a {rgb.shape[1]}x{rgb.shape[0]} figure: a label is cut; "
                     "give the figure wider fixed margins (fig.subplots_adjust)")


def _png_of(bottom: float) -> np.ndarray:
    fig = Figure(figsize=(4, 2))
    FigureCanvasAgg(fig)
    fig.subplots_adjust(left=0.15, right=0.95, bottom=bottom, top=0.85)
    fig.add_subplot().set_xlabel("an x label")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return np.asarray(Image.open(buf).convert("RGB"))


def test_the_edge_check_sees_a_cut_label():
    assert "bottom" in cut_edges(_png_of(bottom=0.0))   # no room for the tick labels and the x label below
    assert cut_edges(_png_of(bottom=0.3)) == []


def test_use_style_shows_figures_at_their_own_size_in_a_kernel():
    """In a kernel, after ``H.use_style()``, a 3 x 2 inch figure at 100 dpi arrives as 300 x 200 px, uncropped
    (the inline backend's default tight crop would cut the white around a small axes)."""
    source = ("import matplotlib.pyplot as plt\nimport helpers as H\nH.use_style()\n"
              "fig = plt.figure(figsize=(3, 2))\nax = fig.add_axes((0.4, 0.4, 0.2, 0.2))\nax.set_axis_off()\n"
              "ax.plot([0, 1], [0, 1])\nplt.show()")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    (png,) = [o["data"]["image/png"] for o in nb.cells[0].outputs if "image/png" in o.get("data", {})]
    assert Image.open(io.BytesIO(base64.b64decode(png))).size == (300, 200)
