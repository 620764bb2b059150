"""What may token t see? The causal-mask view of chapter 2.10, as numbers, a figure and a widget.

- :func:`causal_view_state`  pure: (t, weights) -> which keys are visible, the weight row, leaks
- :class:`CausalViewPlot`    draws that view into one figure and updates it in place
- :func:`causal_widget`      a slider for t; redraws the *same* figure and shows it as a PNG

Positions are 1-based as in the book (t = 1..T); the index arrays returned are 0-based
numpy indices (token t is row ``t - 1``).
"""

from __future__ import annotations

import html
import io
from typing import NamedTuple

import numpy as np
from matplotlib.patches import Rectangle

from .._validate import as_real_array, check_distribution_rows, check_int, check_labels
from ..ui.plotting import attention_heatmap, token_labels

__all__ = ["CausalView", "causal_view_state", "CausalViewPlot", "causal_widget"]


class CausalView(NamedTuple):
    """What token ``t`` may see under the causal mask.

    Attributes
    ----------
    t : int
        Current position, 1-based (1..T).
    visible : numpy.ndarray of int, shape (t,)
        0-based indices of the keys token t may attend to: ``0..t-1``.
    hidden : numpy.ndarray of int, shape (T - t,)
        0-based indices of the future keys it must not see: ``t..T-1``.
    allowed : numpy.ndarray of bool, shape (T,)
        Row ``t - 1`` of the boolean causal mask.
    row : numpy.ndarray, shape (T,)
        Row ``t - 1`` of the weights: how token t spreads its attention.
    leaked : float
        Total weight the row puts on hidden keys; exactly 0.0 for causal weights.
    """

    t: int
    visible: np.ndarray
    hidden: np.ndarray
    allowed: np.ndarray
    row: np.ndarray
    leaked: float


def causal_view_state(t, weights) -> CausalView:
    """The causal view of position ``t``: visible and hidden keys and its weight row.

    Parameters
    ----------
    t : int
        Current position, 1-based: 1 <= t <= T.
    weights : array_like, shape (T, T)
        An attention matrix (rows non-negative, summing to 1), e.g. the weights
        of causal self-attention. Bidirectional weights are accepted too; their
        ``leaked`` weight is then positive.

    Returns
    -------
    CausalView

    Raises
    ------
    TypeError, ValueError
        For a non-integer or out-of-range ``t``, or ``weights`` that are not a
        square matrix of attention weights.
    """
    A = _attention_weights(weights)
    return _view(_position(t, A.shape[0]), A)


def _attention_weights(weights) -> np.ndarray:
    """A non-empty square (T, T) attention matrix whose rows are distributions."""
    return check_distribution_rows("weights", as_real_array("weights", weights, shape=("T", "T"), expected="(T, T)",
                                                        note=" (a square attention matrix)"))


def _position(t, T: int) -> int:
    """``t`` as int if it is a position 1..T (1-based, as in the book)."""
    return check_int("t", t, 1, T, note=f" (a position 1..T = 1..{T}, 1-based as in the book)")


def _view(t: int, A: np.ndarray) -> CausalView:
    """:func:`causal_view_state` of an already-checked position and matrix."""
    idx = np.arange(A.shape[0])
    allowed = idx < t
    row = A[t - 1].copy()
    return CausalView(t, idx[allowed], idx[~allowed], allowed, row, float(row[~allowed].sum()))




class CausalViewPlot:
    """Heatmap of A with row t outlined, and a bar chart of row t; updated in place.

    Parameters
    ----------
    weights : array_like, shape (T, T)
        Attention weights (see :func:`causal_view_state`).
    labels : sequence of str, optional
        One token label per position (default t1..tT).
    fig : matplotlib.figure.Figure
        The figure to draw into (two axes are added to it). Created once; every
        :meth:`update` changes the existing artists instead of drawing anew.
    t : int
        Initial position (1-based).
    note : str, optional
        A line above both panels saying where the weights come from (e.g. that random W_Q, W_K give them no meaning).
    annotate : bool, optional
        Write each weight in its cell of the heatmap (default: when T <= 8).
    """

    def __init__(self, weights, labels=None, *, fig, t: int = 1, note: str | None = None,
                 annotate: bool | None = None):
        self.weights = _attention_weights(weights)
        T = self.weights.shape[0]
        if annotate is not None and not isinstance(annotate, bool):
            raise TypeError(f"annotate should be True, False or None (when T <= 8); got {annotate!r}")
        self.labels = token_labels(T) if labels is None else check_labels("labels", labels, T, "one entry per token")
        self.fig = fig
        self.ax_map, self.ax_bar = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.1, 1.0]})
        attention_heatmap(self.weights, self.labels, self.labels, ax=self.ax_map, colorbar=False,
                          annotate=T <= 8 if annotate is None else annotate, title="注意力权重 A")
        self.row_box = Rectangle((-0.5, -0.5), T, 1, fill=False, edgecolor="red", linewidth=2.5, clip_on=False)
        self.ax_map.add_patch(self.row_box)
        self.future = Rectangle((0, 0), 0, 1, transform=self.ax_bar.get_xaxis_transform(),
                                color="0.88", zorder=0)
        self.ax_bar.add_patch(self.future)
        self.future_text = self.ax_bar.text(0, 0.9, "未来：已掩码（masked）", transform=self.ax_bar.get_xaxis_transform(),
                                            ha="center", va="center", fontsize=10, color="0.35")
        self.bars = self.ax_bar.bar(np.arange(T), np.zeros(T), color="tab:orange", zorder=2)
        self.ax_bar.set_xticks(np.arange(T), self.labels, rotation=45 if max(map(len, self.labels)) > 3 else 0,
                               ha="right" if max(map(len, self.labels)) > 3 else "center")
        self.ax_bar.set_xlim(-0.5, T - 0.5)
        self.ax_bar.set_ylim(0, 1.05)
        self.ax_bar.set_xlabel("键 j")
        self.ax_bar.set_ylabel("权重 A[t, j]")
        if note is not None:
            fig.suptitle(str(note))
        fig.tight_layout()
        self.view = self.update(t)

    def update(self, t: int) -> CausalView:
        """Show position ``t``; return the :class:`CausalView` that was drawn."""
        view = _view(_position(t, self.weights.shape[0]), self.weights)  # weights checked once, in __init__
        T = self.weights.shape[0]
        self.row_box.set_y(view.t - 1.5)
        for j, bar in enumerate(self.bars):
            bar.set_height(view.row[j])
            bar.set_color("tab:orange" if view.allowed[j] else "tab:gray")
        self.future.set_x(view.t - 0.5)
        self.future.set_width(T - view.t)
        width = T - view.t
        self.future_text.set_x(view.t - 0.5 + width / 2)
        self.future_text.set_text("未来：已掩码（masked）" if width >= 4 else "已掩码")
        self.future_text.set_rotation(0 if width >= 2 else 90)
        self.future_text.set_y(0.9 if width >= 2 else 0.7)
        self.future_text.set_visible(width > 0)
        for j, tick in enumerate(self.ax_bar.get_xticklabels()):
            tick.set_color("black" if view.allowed[j] else "0.6")
        seen = self.labels[0] if view.t == 1 else f"{self.labels[0]}..{self.labels[view.t - 1]}"
        self.ax_bar.set_title(f"t={view.t}（{self.labels[view.t - 1]}）能看到 {seen}")
        self.view = view
        return view


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def causal_widget(weights, labels=None, *, t: int = 1, note: str | None = None, figsize=(9.0, 3.4), dpi: int = 80,
                  annotate: bool | None = None):
    """A slider for the current position t that highlights what token t may see.

    One Agg figure is created once; moving the slider updates its artists in
    place (:meth:`CausalViewPlot.update`) and replaces the PNG shown in an
    ``ipywidgets.Image``. Nothing is drawn through pyplot, so no figure piles up.

    Parameters
    ----------
    weights : array_like, shape (T, T)
        Attention weights to show (typically causal).
    labels : sequence of str, optional
        Token labels.
    t : int
        Initial position (1-based).
    note : str, optional
        A line above the figure saying where the weights come from (see :class:`CausalViewPlot`).
    figsize, dpi :
        The figure's size in inches and its pixels per inch: the image is shown at its pixel size (the lecture deck
        asks for a larger one, metadata["slides"] of 2.10's slider cell).
    annotate : bool, optional
        Write each weight in its heatmap cell (default: when T <= 8; see :class:`CausalViewPlot`).

    Returns
    -------
    ipywidgets.VBox
        ``children == (slider, image, caption)``; the :class:`CausalViewPlot` is
        available as ``box.plot``.
    """
    import ipywidgets as widgets
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    plot = CausalViewPlot(weights, labels, fig=fig, t=t, note=note, annotate=annotate)
    T = plot.weights.shape[0]
    slider = widgets.IntSlider(value=plot.view.t, min=1, max=T, step=1, description="t",
                               continuous_update=True)
    image = widgets.Image(value=_png(fig), format="png")
    caption = widgets.HTML()

    def _caption(view: CausalView) -> str:
        seen = html.escape(", ".join(plot.labels[j] for j in view.visible))
        return f"位置 {view.t} 能看到：<b>{seen}</b> &nbsp;（落在未来位置上的权重：{view.leaked:.1f}）"

    caption.value = _caption(plot.view)

    def _on_change(change):
        view = plot.update(change["new"])
        image.value = _png(fig)
        caption.value = _caption(view)

    slider.observe(_on_change, names="value")
    box = widgets.VBox([slider, image, caption])
    box.plot = plot
    return box
