"""Shared plots: the attention heatmap and the weight bar chart.

Every function draws into an ``Axes`` it is given (or a new one) and returns
what it drew, so notebooks compose figures and tests can inspect them without
a display. Plot text is Chinese, like the notebooks' prose (the English term in
parentheses where a label names it, e.g. "键 j（key，被关注）"). Importing this
module registers the series' figure font with matplotlib (fonts/, the Chinese of
Noto Sans CJK SC subset by ``python -m publish font``), so Chinese is drawn on a
machine without a CJK font too: :data:`FONT_FAMILY` draws Latin, digits and maths
in DejaVu Sans and falls back to it glyph by glyph.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager

from .._validate import as_real_array, check_labels

__all__ = [
    "FONT_FILE", "FONT_FAMILY", "STYLE", "INLINE_PRINT_KWARGS", "MIN_FONT_PT", "HEATMAP_TICK_PT", "MAX_DISPLAY_PX", "DIVERGING_CMAP", "use_style", "displayed_text_sizes",
    "attention_heatmap", "weights_bar", "token_labels",
]

#: The figures' Chinese: Noto Sans CJK SC (SIL Open Font License 1.1), only the characters the series' figures use.
FONT_FILE = Path(__file__).parent / "fonts" / "NotoSansSC-ch02-plots.otf"
#: Latin and maths in matplotlib's default face; a character it lacks (Chinese) is taken from the next.
FONT_FAMILY = ["DejaVu Sans", "Noto Sans CJK SC"]
font_manager.fontManager.addfont(str(FONT_FILE))
if plt.rcParams["font.family"] == ["sans-serif"]:  # matplotlib's default, untouched: the same face for Latin
    plt.rcParams["font.family"] = FONT_FAMILY

#: The one figure style of the series: legible from the back row of a lecture hall.
#: Every text (ticks, labels, titles, annotations, legends, colorbar labels) is at least
#: ``MIN_FONT_PT`` at the size the figure is displayed (see :func:`displayed_text_sizes`).
STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 100,
    "figure.figsize": (7.0, 3.8),
    "font.family": FONT_FAMILY,
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "legend.title_fontsize": 11,
    "figure.titlesize": 14,
    "mathtext.fontset": "dejavusans",
    "image.cmap": "viridis",
    "lines.linewidth": 2.0,
}
MIN_FONT_PT = 10.0
#: A heatmap's token labels (up to 12 per axis): 13 pt is 18 px at the series' 100 dpi, the lecture deck's floor for
#: labels on a 1280x720 slide (widget labels and readouts >= 18 px), and the deck never shows a figure below its
#: natural size (tests/browser/test_lecture_deck.py); the slides' prose floor, 24 px, is for text, not tick labels.
HEATMAP_TICK_PT = 13.0
#: JupyterLab (and Voila) show an inline PNG at its natural size up to about this width;
#: a wider figure is scaled down, and so is its text.
MAX_DISPLAY_PX = 900
#: Signed quantities (scores, differences) use a diverging colormap centred on 0.
DIVERGING_CMAP = "RdBu_r"


#: What the inline backend (JupyterLab, Voila, nbval) passes to ``savefig`` after :func:`use_style`:
#: the figure as laid out, at its own size. The backend's default, ``bbox_inches="tight"``, lays
#: every figure out twice (once to measure the drawn content, once to draw it), which made figures
#: the largest cost of Run All; the series' figures set their own margins instead, and
#: ``tests/test_figures_fit.py`` checks every committed figure for a label cut at an edge.
INLINE_PRINT_KWARGS = {"bbox_inches": None}


def use_style() -> None:
    """Apply :data:`STYLE` to matplotlib's rcParams (call once in a notebook's setup cell).

    In an IPython kernel it also sets the inline backend's ``print_figure_kwargs`` to
    :data:`INLINE_PRINT_KWARGS` (no tight crop: one layout pass per figure instead of two).
    """
    plt.rcParams.update(STYLE)
    try:
        from IPython import get_ipython
        from matplotlib_inline.config import InlineBackend
    except ImportError:  # plain Python: no inline backend to configure
        return
    if get_ipython() is not None:
        InlineBackend.instance().print_figure_kwargs = dict(INLINE_PRINT_KWARGS)


def displayed_text_sizes(fig) -> list[tuple[str, float]]:
    """Every visible, non-empty text of ``fig`` with its size in points *as displayed*.

    A figure wider than :data:`MAX_DISPLAY_PX` pixels is shrunk to fit, so its text
    shrinks by the same factor. Returns ``[(text, displayed_pt), ...]``.
    """
    from matplotlib.text import Text

    fig.canvas.draw()
    width_px = fig.get_figwidth() * fig.dpi
    shrink = min(1.0, MAX_DISPLAY_PX / width_px)
    sizes = []
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.get_figure() is not None:
            sizes.append((t.get_text(), float(t.get_fontsize()) * shrink))
    return sizes


def token_labels(T: int, prefix: str = "t") -> list[str]:
    """``["t1", "t2", ..., "tT"]`` — 1-based, as in the book."""
    return [f"{prefix}{i + 1}" for i in range(T)]


def attention_heatmap(
    A,
    row_labels: Sequence[str] | None = None,
    col_labels: Sequence[str] | None = None,
    *,
    ax=None,
    title: str = "注意力权重 A",
    annotate: bool | None = None,
    fmt: str = "{:.2f}",
    cmap: str = "viridis",
    vmin: float | None = 0.0,
    vmax: float | None = 1.0,
    colorbar: bool = True,
    xlabel: str = "键 j（key，被关注）",
    ylabel: str = "查询 i（query，去关注）",
    colorbar_label: str = "权重",
):
    """Draw a (T_q, T_k) matrix as a labelled heatmap.

    Parameters
    ----------
    A : array_like, shape (T_q, T_k)
        Weights (or scores: pass ``vmin=None, vmax=None`` and a diverging cmap).
        ``-inf`` entries (masked scores) are drawn blank and annotated "-inf".
    row_labels, col_labels : sequence of str, optional
        Token names for queries (rows) and keys (columns); default t1..tT.
    ax : matplotlib Axes, optional
    annotate : bool, optional
        Write each value in its cell; default: on when the matrix is at most 12x12.
        Up to 12 rows and columns, the token labels are :data:`HEATMAP_TICK_PT` (legible on a slide).
    colorbar_label : str
        Label of the colorbar (pass e.g. "分数" when drawing scores).

    Returns
    -------
    matplotlib.image.AxesImage
    """
    A = as_real_array("A", A, ndim=2, expected="(T_q, T_k)", allow_nonfinite=True)  # -inf: a masked score
    if np.isnan(A).any():
        raise ValueError(f"A contains NaN (shape {A.shape}); nothing sensible to draw.")
    tq, tk = A.shape
    rows = token_labels(tq) if row_labels is None else check_labels("row_labels", row_labels, tq, "one label per row")
    cols = token_labels(tk) if col_labels is None else check_labels("col_labels", col_labels, tk, "one label per column")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.6 + 0.8 * tk, 1.2 + 0.6 * tq))
    shown = np.ma.masked_invalid(A)
    im = ax.imshow(shown, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(tk), cols, rotation=45 if max(map(len, cols)) > 3 else 0, ha="right" if max(map(len, cols)) > 3 else "center")
    ax.set_yticks(range(tq), rows)
    if max(tq, tk) <= 12:  # token names read from the back row; a longer axis keeps the style's size (no overlap)
        ax.tick_params(labelsize=HEATMAP_TICK_PT)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if annotate is None:
        annotate = tq <= 12 and tk <= 12
    if annotate:
        for i in range(tq):
            for j in range(tk):
                v = A[i, j]
                text = "-inf" if np.isneginf(v) else fmt.format(v)
                ax.text(j, i, text, ha="center", va="center", fontsize=MIN_FONT_PT + 1, color=_text_color(im, v))
    if colorbar:
        cb = ax.figure.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
        cb.set_label(colorbar_label)
    return im


def _text_color(im, v: float) -> str:
    """Black on light cells, white on dark ones -- by the cell's actual colour, so the text
    stays readable with any colormap (viridis, a diverging map centred on 0, ...)."""
    if not np.isfinite(v):
        return "black"  # masked cells are drawn blank
    r, g, b, _ = im.cmap(im.norm(v))
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def weights_bar(weights, labels: Sequence[str] | None = None, *, ax=None, title: str = "注意力权重", highlight=None,
                ylim=(0.0, 1.0), xlabel: str | None = None, ylabel: str = "权重", color: str = "tab:blue",
                highlight_color: str = "tab:orange"):
    """Bar chart of one row of weights over labelled tokens.

    Parameters
    ----------
    weights : array_like, shape (T,)
    labels : sequence of str, optional
        One label per token (default t1..tT).
    highlight : int or sequence of int, optional
        Indices drawn in ``highlight_color``.
    color, highlight_color : str
        Bar colours (keep one colour = one meaning within a notebook).
    xlabel, ylabel : str, optional
        Axis labels (default: no x label, "权重" on y).

    Returns
    -------
    matplotlib.container.BarContainer
    """
    w = as_real_array("weights", weights, ndim=1, expected="(T,)")
    labels = token_labels(w.shape[0]) if labels is None else check_labels("labels", labels, w.shape[0], "one label per bar")
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, 0.6 * w.shape[0]), 2.8))
    hi = set(np.atleast_1d(highlight).tolist()) if highlight is not None else set()
    colors = [highlight_color if i in hi else color for i in range(w.shape[0])]
    bars = ax.bar(range(w.shape[0]), w, color=colors)
    ax.set_xticks(range(w.shape[0]), labels, rotation=45 if max(map(len, labels)) > 3 else 0)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ylim is not None:
        ax.set_ylim(*ylim)
    return bars
