"""Softmax saturation (chapter 2.5): the live explorer and its static twin. It only draws.

- :class:`SaturationFigure` — one matplotlib figure built once (Agg canvas, not pyplot):
  the scores with a +/- std band, the weights, the median curves over many seeds
  against d_k, and the Jacobian as a heatmap. Each update restores a cached
  background, redraws only the artists that change (blitting) and encodes the
  canvas as JPEG with Pillow (:func:`encode_jpeg`).
- :class:`SaturationExplorer` / :func:`saturation_explorer` — ipywidgets controls
  -> :func:`helpers.lessons.saturation.view.saturation_state` -> the figure; readouts in
  Chinese in an HTML widget (plot text stays ASCII).
- :func:`small_multiples` — a static grid for readers without a kernel.

Colours: orange = unscaled, blue = divided by sqrt(d_k), in every panel.
"""

from __future__ import annotations

import io
import math

import numpy as np

from ...ui.plotting import DIVERGING_CMAP, STYLE
from ..._validate import check_choice, check_flag, check_int, check_real
from .view import (D_K_OPTIONS, D_MAX, DEFAULT_T, INV_TEMP_RANGE, SATURATED, T_RANGE, bank_summary, fixed_draw,
                   saturation_state, score_bank)

__all__ = ["UNSCALED_COLOR", "SCALED_COLOR", "PRESETS", "SaturationFigure", "SaturationExplorer",
           "saturation_explorer", "small_multiples", "score_limit", "bar_verts", "readout_html", "encode_jpeg"]

UNSCALED_COLOR = "#dd8452"
SCALED_COLOR = "#4c72b0"
FIGSIZE = (9.0, 6.0)
HALF_WIDTH = 0.4
J_LIMIT = 0.25  # |J_ij| <= 1/4 for every softmax: a fixed colour scale
#: The guided steps of the notebook: name -> (d_k, 1/tau, divide by sqrt(d_k)).
PRESETS = {
    "步骤1 不缩放": (1, 1.0, False),
    "步骤2 缩放": (1, 1.0, True),
    "步骤3 缩放+1/τ=10": (64, 10.0, True),
}


def score_limit(max_abs: float) -> float:
    """A 'nice' symmetric y-limit >= max_abs from the ladder 1, 2, 5, 10, 20, 50, ...: it changes only when
    the scores cross a rung, so most moves keep the axes (and the cached background) as they are."""
    decade = 1.0
    while True:
        for step in (1.0, 2.0, 5.0):
            if step * decade >= max_abs * 1.05:
                return step * decade
        decade *= 10.0


def bar_verts(heights: np.ndarray, offset: float = 0.0, half_width: float = HALF_WIDTH) -> np.ndarray:
    """Rectangles centred on 1..T (+ offset) from 0 to each height, shape (T, 4, 2)."""
    T = heights.shape[0]
    x = np.arange(1, T + 1, dtype=float) + offset
    verts = np.empty((T, 4, 2))
    verts[:, (0, 1), 0] = (x - half_width)[:, None]
    verts[:, (2, 3), 0] = (x + half_width)[:, None]
    verts[:, (0, 3), 1] = 0.0
    verts[:, (1, 2), 1] = heights[:, None]
    return verts


def _band_verts(half: float, T: int) -> np.ndarray:
    return np.array([[[0.0, -half], [0.0, half], [T + 1.0, half], [T + 1.0, -half]]])


class SaturationFigure:
    """The explorer's picture, updated in place.

    Panels: scores fed to softmax (bars of the chosen mode, the other mode as
    ghost bars, a band of +/- one theoretical std for each mode); softmax weights
    (same convention); median largest weight and median ``||J||_F`` over many
    seeds against d_k (current d_k marked); the Jacobian of the chosen mode.

    Parameters
    ----------
    T : int
        Number of keys.
    """

    def __init__(self, T: int = DEFAULT_T, layout: str = "full"):
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PolyCollection
        from matplotlib.colors import to_rgba
        from matplotlib.figure import Figure
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch

        self.T, self.layout = check_int("T", T, *T_RANGE), check_choice("layout", layout, ("full", "lecture"))
        self._band_fill = {c: to_rgba(c, 0.18) for c in (UNSCALED_COLOR, SCALED_COLOR)}
        with matplotlib.rc_context(STYLE):
            self.fig = Figure(figsize=(9.0, 2.5) if self.layout == "lecture" else FIGSIZE, dpi=STYLE["figure.dpi"])
            self.canvas = FigureCanvasAgg(self.fig)
            if self.layout == "lecture":  # the score and Jacobian panels go on a figure that is never drawn
                (self.ax_w, self.ax_c), (self.ax_s, self.ax_j) = self.fig.subplots(1, 2), Figure().subplots(1, 2)
            else:
                (self.ax_s, self.ax_w), (self.ax_c, self.ax_j) = self.fig.subplots(2, 2)
            zeros = np.zeros(self.T)

            def bars(ax, **kw):
                c = PolyCollection(bar_verts(zeros), animated=True, **kw)
                ax.add_collection(c, autolim=False)
                return c

            off = {"visible": self.layout == "full"}  # the lecture layout never draws the score and Jacobian artists
            self.bands = [bars(self.ax_s, linewidths=1.2, **off) for _ in range(2)]
            self.ghost_s = bars(self.ax_s, facecolors="none", linewidths=1.2, **off)
            self.shown_s = bars(self.ax_s, edgecolors="none", **off)
            self.ghost_w = bars(self.ax_w, facecolors="none", linewidths=1.2)
            self.shown_w = bars(self.ax_w, edgecolors="none")
            self.curves = {}
            x = np.array(D_K_OPTIONS, dtype=float)
            for mode, color in (("unscaled", UNSCALED_COLOR), ("scaled", SCALED_COLOR)):
                self.curves[mode] = (self.ax_c.plot(x, np.zeros_like(x), color=color, animated=True)[0],
                                     self.ax_c.plot(x, np.zeros_like(x), color=color, ls="--", animated=True)[0])
            self.marker = self.ax_c.axvline(D_K_OPTIONS[0], color="0.3", lw=1.5, animated=True)
            edges = np.arange(self.T + 1) + 0.5
            self.image = self.ax_j.pcolormesh(edges, edges, np.zeros((self.T, self.T)), cmap=DIVERGING_CMAP,
                                              vmin=-J_LIMIT, vmax=J_LIMIT, animated=True, **off)
            self.ax_j.set_ylim(self.T + 0.5, 0.5)
            self.ax_j.set_aspect("equal")
            cbar = self.ax_j.figure.colorbar(self.image, ax=self.ax_j)
            cbar.set_label(r"$J_{ij}$")
            self._style(Patch, Line2D)
        self._ylim = None
        self._backgrounds: dict[float, object] = {}
        self.n_full_draws = 0

    def _style(self, Patch, Line2D) -> None:
        T = self.T
        self.ax_s.axhline(0, color="0.3", lw=0.8)
        # titles at a given y = 1 (no tick labels above any axes): matplotlib skips measuring where to put them
        self.ax_s.set_title("送入 softmax 的分数（色带：理论 ± 标准差）", y=1.0)
        self.ax_s.set_ylabel("分数")
        self.ax_w.axhline(1.0 / T, color="0.5", lw=1.0, ls=":")
        self.ax_w.set_ylim(0, 1.05)
        self.ax_w.set_title("softmax 权重", y=1.0)
        self.ax_w.set_ylabel("权重")
        for ax in (self.ax_s, self.ax_w):
            ax.set_xlim(0.5, T + 0.5)
            ax.set_xlabel("键 j")
            ax.set_xticks(np.arange(1, T + 1)[:: max(1, T // 4)])
        # One legend for the whole figure, above the panels (inside the weights panel it hid the tallest bars):
        # colour = mode (in every panel), filled = the mode the checkbox chose, hollow = the other mode.
        self.fig.legend(handles=[Patch(color=UNSCALED_COLOR, label="未缩放"),
                                 Patch(color=SCALED_COLOR, label="除以 √dₖ"),
                                 Patch(facecolor="none", edgecolor="0.3", label="空心：另一种模式"),
                                 Line2D([], [], color="0.5", lw=1.0, ls=":", label="均匀 1/T")],
                        loc="upper center", ncol=4, frameon=False, fontsize=STYLE["legend.fontsize"],
                        bbox_to_anchor=(0.5, 1.0), handlelength=1.5, columnspacing=1.2)
        self.ax_c.set_xscale("log", base=2)
        self.ax_c.set_xlim(D_K_OPTIONS[0] * 0.8, D_K_OPTIONS[-1] * 1.25)
        self.ax_c.set_xticks(D_K_OPTIONS[::2], labels=[str(d) for d in D_K_OPTIONS[::2]])  # d_k as numbers
        self.ax_c.set_ylim(0, 1.05)
        self.ax_c.set_xlabel(r"$d_k$")
        self.ax_c.set_ylabel("各随机种子的中位数")
        self.ax_c.set_title("最大权重（实线），Frobenius 范数 ‖J‖（虚线）", y=1.0)
        self.ax_j.set_title("所示模式的雅可比矩阵（Jacobian）", y=1.0)
        self.ax_j.set_xlabel("j")
        self.ax_j.set_ylabel("i")
        self.ax_j.set_xticks(np.arange(1, T + 1)[:: max(1, T // 4)])
        self.ax_j.set_yticks(np.arange(1, T + 1)[:: max(1, T // 4)])
        self.fig.subplots_adjust(**(dict(top=0.74, bottom=0.2) if self.layout == "lecture" else
                                    dict(top=0.87, bottom=0.09, hspace=0.55)), left=0.08, right=0.97, wspace=0.3)

    def _background_for(self, ylim: float):
        if ylim != self._ylim:
            self.ax_s.set_ylim(-ylim, ylim)
            self._ylim = ylim
        bg = self._backgrounds.get(ylim)
        if bg is None:
            self.canvas.draw()  # animated artists are skipped: this paints the static part
            self.n_full_draws += 1
            bg = self._backgrounds[ylim] = self.canvas.copy_from_bbox(self.fig.bbox)
        return bg

    def render(self, view, summary) -> bytes:
        """Draw ``view`` (a SaturationView) and ``summary`` (a BankSummary); return JPEG bytes."""
        if view.T != self.T:
            raise ValueError(f"this figure has {self.T} bars; the view has T={view.T}.")
        shown, ghost = view.shown, view.ghost
        c_shown, c_ghost = (SCALED_COLOR, UNSCALED_COLOR) if view.divide else (UNSCALED_COLOR, SCALED_COLOR)
        # the score axis fits the chosen mode: its band and bars stay readable (the scaled band does not widen
        # with d_k); the other mode's hollow bars and outlined band may run off the axis
        top = max(float(np.max(np.abs(shown.scores))), shown.std_theory)
        self.canvas.restore_region(self._background_for(score_limit(top)))
        for band, mode, color in zip(self.bands, (view.unscaled, view.scaled), (UNSCALED_COLOR, SCALED_COLOR)):
            band.set_verts(_band_verts(mode.std_theory, self.T))
            chosen = mode is shown
            band.set_facecolor(self._band_fill[color] if chosen else "none")  # filled = chosen, outlined = other
            band.set_edgecolor("none" if chosen else color)
            band.set_linestyle("solid" if chosen else "dashed")
        self.ghost_s.set_verts(bar_verts(ghost.scores))
        self.ghost_w.set_verts(bar_verts(ghost.weights))
        self.shown_s.set_verts(bar_verts(shown.scores, half_width=0.25))
        self.shown_w.set_verts(bar_verts(shown.weights, half_width=0.25))
        for c in (self.ghost_s, self.ghost_w):
            c.set_edgecolor(c_ghost)
        for c in (self.shown_s, self.shown_w):
            c.set_facecolor(c_shown)
        for mode, (solid, dashed) in self.curves.items():
            solid.set_ydata(summary.median_max_weight[mode])
            dashed.set_ydata(summary.median_jacobian_norm[mode])
        self.marker.set_xdata([view.d_k, view.d_k])
        self.image.set_array(shown.jacobian.ravel())
        renderer = self.canvas.get_renderer()
        for artist in (*self.bands, self.ghost_s, self.shown_s, self.ghost_w, self.shown_w,
                       *(line for pair in self.curves.values() for line in pair), self.marker, self.image):
            artist.draw(renderer)
        return encode_jpeg(self.canvas)


def encode_jpeg(canvas) -> bytes:
    """The canvas's current pixels as JPEG bytes, encoded by Pillow (matplotlib's own image library).

    JPEG costs a fraction of PNG's per-row filters (which dominated the update at this
    size). Quality 85 with 4:2:0 chroma subsampling: the text is black or grey (no
    chroma), so it stays crisp; the colour bars look the same as at quality 92 without
    subsampling, and the image is ~30% smaller and ~1 ms faster to encode.
    """
    from PIL import Image

    w, h = canvas.get_width_height(physical=True)
    out = io.BytesIO()
    # The figure is opaque, so the RGBA buffer is read as RGBX: no RGB copy before encoding.
    Image.frombuffer("RGBX", (w, h), canvas.buffer_rgba(), "raw", "RGBX", 0, 1).save(
        out, format="jpeg", quality=85, subsampling=2)
    return out.getvalue()


def _fmt(x: float) -> str:
    return f"{x:.3f}" if x >= 1e-3 else f"{x:.1e}"


def readout_html(view, summary, n_seeds: int, layout: str = "full") -> str:
    """The Chinese readout under the figure (pure: view and summary in, HTML out); ``layout`` places the median curve."""
    i = summary.d_ks.index(view.d_k) if view.d_k in summary.d_ks else None
    u, s = view.unscaled, view.scaled
    lines = [
        f"<b>当前显示：{'除以 √d_k（蓝）' if view.divide else '不缩放（橙）'}</b>；另一种画成空心的“幽灵柱”。"
        f" d_k = {view.d_k}，1/τ = {view.inv_temp:.2f}；分数的理论标准差：不缩放 {u.std_theory:.2f}，缩放 {s.std_theory:.2f}",
        f"这一个样本：最大权重 不缩放 {_fmt(u.max_weight)} · 缩放 {_fmt(s.max_weight)}；"
        f"熵（nats，均匀时 {math.log(view.T):.2f}）不缩放 {u.entropy:.2f} · 缩放 {s.entropy:.2f}；"
        f"‖J‖<sub>F</sub> 不缩放 {_fmt(u.jacobian_norm)} · 缩放 {_fmt(s.jacobian_norm)}",
    ]
    if i is not None:
        lines.append(
            f"{n_seeds} 个种子的中位数（{'右侧' if layout == 'lecture' else '左下'}曲线）：最大权重 不缩放 {_fmt(summary.median_max_weight['unscaled'][i])} · "
            f"缩放 {_fmt(summary.median_max_weight['scaled'][i])}；‖J‖<sub>F</sub> 不缩放 "
            f"{_fmt(summary.median_jacobian_norm['unscaled'][i])} · 缩放 {_fmt(summary.median_jacobian_norm['scaled'][i])}；"
            f"最大权重 &gt; {SATURATED} 的比例 不缩放 {summary.frac_saturated['unscaled'][i]:.0%} · "
            f"缩放 {summary.frac_saturated['scaled'][i]:.0%}")
    return "<br>".join(lines)


class SaturationExplorer:
    """The live control panel: controls -> saturation_state -> SaturationFigure (+ Chinese readout).

    Attributes
    ----------
    d_k_slider : ipywidgets.SelectionSlider          d_k in 1, 2, 4, ..., 1024
    inv_temp_slider : ipywidgets.FloatLogSlider      inverse temperature 1/tau, 0.1 ... 10
    divide_checkbox : ipywidgets.Checkbox            "除以 √d_k"
    seed_input : ipywidgets.BoundedIntText           which fixed draw
    preset_buttons : list of ipywidgets.Button       one per :data:`PRESETS` entry
    reset_button : ipywidgets.Button                 back to the starting values
    image : ipywidgets.Image                         the JPEG
    readout : ipywidgets.HTML                        numbers in Chinese
    widget : ipywidgets.VBox                         everything, ready to display
    view, summary                                    what is shown now
    """

    def __init__(self, d_k: int = 64, inv_temp: float = 1.0, divide: bool = False, seed: int = 0,
                 T: int = DEFAULT_T, n_seeds: int = 200, layout: str = "full"):
        import ipywidgets as W

        self.T = check_int("T", T, *T_RANGE)
        self._start = {"d_k": check_choice("d_k", d_k, D_K_OPTIONS), "divide": check_flag("divide", divide),
                       "inv_temp": check_real("inv_temp", inv_temp, *INV_TEMP_RANGE), "seed": check_int("seed", seed, 0)}
        self.figure = SaturationFigure(self.T, layout=layout)
        self.bank = score_bank(self.T, n_seeds, D_K_OPTIONS)
        self._summaries: dict[float, object] = {}
        self._draw_seed, self._draw = None, None
        self._hold = False
        style = {"description_width": "70px"}
        self.d_k_slider = W.SelectionSlider(options=list(D_K_OPTIONS), value=self._start["d_k"], description="d_k", style=style)
        self.inv_temp_slider = W.FloatLogSlider(value=self._start["inv_temp"], base=10, min=-1, max=1, step=0.05,
                                                description="1/τ（逆温度）", style={"description_width": "90px"},
                                                readout_format=".2f")
        self.divide_checkbox = W.Checkbox(value=self._start["divide"], description="除以 √d_k", indent=False)
        self.seed_input = W.BoundedIntText(value=self._start["seed"], min=0, max=10**6, description="seed",
                                           style={"description_width": "40px"}, layout=W.Layout(width="140px"))
        self.preset_buttons = [W.Button(description=name, layout=W.Layout(width="auto")) for name in PRESETS]
        self.reset_button = W.Button(description="重置", button_style="warning", layout=W.Layout(width="auto"))
        for button, name in zip(self.preset_buttons, PRESETS):
            button.on_click(lambda _b, name=name: self.apply_preset(name))
        self.reset_button.on_click(lambda _b: self.reset())
        self.image = W.Image(format="jpeg")
        self.readout = W.HTML()
        controls = W.HBox([W.VBox([self.d_k_slider, self.inv_temp_slider]),
                           W.VBox([self.divide_checkbox, self.seed_input])])
        self.widget = W.VBox([controls, W.HBox([*self.preset_buttons, self.reset_button]), self.image, self.readout])
        for w in (self.d_k_slider, self.inv_temp_slider, self.divide_checkbox, self.seed_input):
            w.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, _change) -> None:
        if not self._hold:
            self.update()

    def _set(self, d_k, inv_temp, divide, seed=None) -> None:
        self._hold = True
        try:
            self.d_k_slider.value = d_k
            self.inv_temp_slider.value = inv_temp
            self.divide_checkbox.value = divide
            if seed is not None:
                self.seed_input.value = seed
        finally:
            self._hold = False
        self.update()

    def apply_preset(self, name: str) -> None:
        """Set the controls to one of :data:`PRESETS` (keeps the seed)."""
        self._set(*PRESETS[name])

    def reset(self) -> None:
        """Back to the values the explorer started with."""
        s = self._start
        self._set(s["d_k"], s["inv_temp"], s["divide"], s["seed"])

    def update(self):
        """Recompute from the current control values and redraw; return the view."""
        seed = int(self.seed_input.value)
        if seed != self._draw_seed:
            self._draw_seed, self._draw = seed, fixed_draw(seed, self.T)
        inv_temp = float(self.inv_temp_slider.value)
        summary = self._summaries.get(inv_temp)
        if summary is None:
            summary = self._summaries[inv_temp] = bank_summary(self.bank, D_K_OPTIONS, inv_temp)
        self.summary = summary
        self.view = saturation_state(int(self.d_k_slider.value), inv_temp, bool(self.divide_checkbox.value),
                                     seed, self.T, draw=self._draw)
        self.image.value = self.figure.render(self.view, summary)
        self.readout.value = readout_html(self.view, summary, self.bank.shape[0], self.figure.layout)
        return self.view

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def saturation_explorer(d_k: int = 64, inv_temp: float = 1.0, divide: bool = False, seed: int = 0,
                        T: int = DEFAULT_T, layout: str = "full") -> SaturationExplorer:
    """Build the live softmax-saturation explorer (display it or its ``.widget``); ``layout="lecture"``: two panels."""
    return SaturationExplorer(d_k=d_k, inv_temp=inv_temp, divide=divide, seed=seed, T=T, layout=layout)


def small_multiples(d_ks=(16, 64, 256, 1024), T: int = DEFAULT_T, seed: int = 0, inv_temp: float = 1.0):
    """Static view of the explorer's weight panel for one draw: unscaled above, scaled below, a group of T bars
    per d_k (the first d_k components of the same draw), each group's largest weight written over it.

    Two axes, not one per d_k and mode: the figure costs half as much to draw. Returns a pyplot figure
    (call ``plt.show()``).
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    if not (d_ks := [check_int("d_k", d, 1, D_MAX) for d in d_ks]):
        raise ValueError("d_ks must list at least one d_k.")
    draw = fixed_draw(seed, T)
    views = [saturation_state(d_k, inv_temp, True, seed, T, draw=draw) for d_k in d_ks]
    step = T + 3                                       # a group of T bars per d_k, three bar widths apart
    fig, axes = plt.subplots(2, 1, figsize=(9.0, 5.0), sharex=True)
    rows = (("unscaled", UNSCALED_COLOR, "未缩放分数"), ("scaled", SCALED_COLOR, "分数 / √dₖ"))
    for ax, (name, color, what) in zip(axes, rows):
        modes = [getattr(v, name) for v in views]
        verts = np.concatenate([bar_verts(m.weights, offset=i * step) for i, m in enumerate(modes)])
        ax.add_collection(PolyCollection(verts, facecolors=color, edgecolors="none"))
        starts = np.arange(len(modes)) * step + 0.5
        ax.hlines(np.full(len(modes), 1.0 / T), starts, starts + T, color="0.5", lw=1.0, ls=":")  # uniform 1/T, per group
        for i, m in enumerate(modes):
            ax.text(i * step + (T + 1) / 2, 1.08, f"最大 {m.max_weight:.2f}", ha="center", va="bottom")
        # the weights of the unscaled scores, and of the scores divided by sqrt(d_k)
        ax.set(ylim=(0, 1.05), yticks=[0.0, 0.5, 1.0], ylabel=what + "\n的权重")
        ax.spines[["top", "right"]].set_visible(False)
    axes[1].set(xlim=(0, len(d_ks) * step - 2), xticks=[i * step + (T + 1) / 2 for i in range(len(d_ks))],
                xticklabels=[f"$d_k$ = {d_k}" for d_k in d_ks])
    fig.suptitle(f"一次抽样（种子 {seed}），T = {T} 个键：softmax 权重（点线：均匀 1/{T}）")
    # fixed margins, no tight_layout: the figure is shown as laid out (H.use_style turns off the inline crop)
    fig.subplots_adjust(left=0.13, right=0.98, bottom=0.1, top=0.86, hspace=0.35)
    return fig
