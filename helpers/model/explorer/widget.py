"""The explorer's picture and panel (2.13): they only draw what :func:`.view.attention_view` returns.

- :class:`ExplorerFigure`  one figure (Agg, not pyplot): new token labels per sentence, blitted moves
- :class:`AttentionExplorer` / :func:`attention_explorer`  the ipywidgets panel; bad input becomes a Chinese
  message in the panel, never a traceback. ``layout="lecture"``: the panel as lecture 2's deck shows it on a
  1280x720 projector (the figure's text a third larger, no save buttons; :data:`LECTURE_FIGSIZE`, :data:`LECTURE_DPI`)

Plot text stays ASCII (a token outside ASCII is drawn escaped); the controls and the readout are Chinese.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np

from ..._validate import check_choice, check_int
from ...lessons.saturation.widget import bar_verts, encode_jpeg
from ...ui.plotting import MIN_FONT_PT, STYLE
from .view import AttentionView, ExplorerInputError, SentenceCache, attention_view

__all__ = ["ExplorerFigure", "AttentionExplorer", "attention_explorer"]

SINK_COLOR = "tab:red"          # [CLS] and [SEP]: the "sinks" of the optional section on [CLS]
QUERY_COLOR = "tab:orange"      # the chosen token (the query row)
KEY_COLOR = "tab:blue"          # every other key
HIDDEN_COLOR = "0.75"           # keys a causal mask hides
#: The lecture layout's figure (a deck slide of 1280 x 720 with a heading, the controls and the readout): 1160 x 450
#: pixels, drawn at 4/3 of the notebook's dpi, so that every text of the figure is a third larger on the projector.
LECTURE_DPI = STYLE["figure.dpi"] * 4 / 3
LECTURE_FIGSIZE = (1160 / LECTURE_DPI, 450 / LECTURE_DPI)
#: What the lecture layout shows without weights (a deck slide shows widgets, not printed lines).
NO_WEIGHTS_LECTURE = ("没有模型权重（all-MiniLM-L6-v2：这台机器的缓存里没有，也没能下载），这张幻灯片的探索器无法运行；其余幻灯片不受影响。"
                      "课前在终端运行 python -m helpers.model fetch 下载一次（约 84 MB，核对 SHA-256），再重新启动幻灯片。")


def _ascii(token: str) -> str:
    """A token as plot text: ASCII as is, anything else escaped (matplotlib's font has no CJK glyphs)."""
    return token if token.isascii() else token.encode("ascii", "backslashreplace").decode("ascii")


def _title(view: AttentionView) -> str:
    who = f"'{_ascii(view.tokens[view.token])}'（token {view.token}）"
    where = f"第 {view.layer} 层，" + ("各头平均" if view.head is None else f"第 {view.head} 头")
    return f"{where}：{who}看向哪里" + ("（因果掩码）" if view.causal else "")


class ExplorerFigure:
    """The explorer's picture, built once: two panels over the same token axis (labelled once, at the bottom): above, the
    chosen token's row in the chosen head as bars ([CLS]/[SEP] red, the token itself orange, keys a causal mask
    hides grey); below, that row in all heads (one image row per head, 6 x 12 = 72, grouped by layer; the
    chosen head outlined), the small multiples of every head at once.

    A new sentence changes the token labels and paints the background (axes, ticks, labels) once; a move (layer,
    head, token, causal) restores that background and redraws only the data artists (blitting); the widget
    shows the pixels as JPEG.

    Parameters
    ----------
    n_layers, n_heads : int
    layout : "full" (the notebook's, 900 x 560 px) or "lecture" (a deck slide's, :data:`LECTURE_FIGSIZE`)
    """

    def __init__(self, n_layers: int, n_heads: int, layout: str = "full"):
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PolyCollection
        from matplotlib.figure import Figure
        from matplotlib.patches import Patch, Rectangle

        self.n_layers, self.n_heads = check_int("n_layers", n_layers, 1), check_int("n_heads", n_heads, 1)
        self.layout = check_choice("layout", layout, ("full", "lecture"))
        self.tokens: list[str] = []
        lecture = self.layout == "lecture"
        with matplotlib.rc_context(STYLE):
            self.fig = Figure(figsize=LECTURE_FIGSIZE if lecture else (9.0, 5.6),
                              dpi=LECTURE_DPI if lecture else STYLE["figure.dpi"])
            self.canvas = FigureCanvasAgg(self.fig)
            ratios = [1.2, 1.3] if lecture else [1.0, 1.5]   # on the projector the chosen head's bars come first
            self.ax_row, self.ax_all = self.fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": ratios})
            self.bars = PolyCollection(bar_verts(np.zeros(1), offset=-1.0), animated=True, edgecolors="none")
            self.ax_row.add_collection(self.bars, autolim=False)
            self.ax_row.set_ylim(0, 1.0)
            self.ax_row.set_ylabel("权重")
            # lecture: no title (the menus and the readout under the figure say which layer, head and token), the
            # legend on one line over the panel instead, not over its bars
            self.title = self.ax_row.set_title("", y=1.0, animated=True, visible=not lecture)
            self.image = self.ax_all.imshow(np.zeros((n_layers * n_heads, 1)), cmap="viridis", vmin=0.0, vmax=1.0,
                                            aspect="auto", interpolation="nearest", animated=True)
            self.separators = [self.ax_all.axhline(l * n_heads - 0.5, color="white", lw=1.2, animated=True)
                               for l in range(1, n_layers)]
            self.ax_all.set_yticks([l * n_heads + (n_heads - 1) / 2 for l in range(n_layers)],
                                   [f"L{l + 1}" for l in range(n_layers)])
            self.ax_all.set_ylabel(f"所有头\n（每层 1..{n_heads}）")
            self.outline = Rectangle((-0.5, -0.5), 1, 1, fill=False, edgecolor=QUERY_COLOR, lw=1.5, clip_on=False,
                                     animated=True)
            self.ax_all.add_patch(self.outline)
            for ax in (self.ax_row, self.ax_all):    # no x ticks: the token labels are texts drawn per sentence
                ax.set_xticks([])
            self.ax_row.legend(handles=[Patch(color=SINK_COLOR, label="[CLS] / [SEP]"),
                                        Patch(color=QUERY_COLOR, label="这个词自己"),
                                        Patch(color=HIDDEN_COLOR, label="被因果掩码去掉的键")],
                               frameon=False, fontsize=MIN_FONT_PT + 1,
                               **({"loc": "lower center", "bbox_to_anchor": (0.5, 1.0), "ncols": 3, "borderaxespad": 0.1,
                                   "handlelength": 1.2, "columnspacing": 1.0} if lecture else {"loc": "upper right"}))
            if lecture:  # wide and low: less room left of the panels, more under them for the token labels
                self.fig.subplots_adjust(left=0.09, right=0.91, bottom=0.2, top=0.91, hspace=0.08)
            else:
                self.fig.subplots_adjust(left=0.13, right=0.89, bottom=0.2, top=0.93, hspace=0.08)
            box = self.ax_all.get_position()
            cax = self.fig.add_axes((0.905, box.y0, 0.018, box.height))
            self.fig.colorbar(self.image, cax=cax).set_label("权重")
        self._background = None
        self._base = None               # the background without token labels, the same for every sentence
        self.labels: list = []
        self._animated = [self.bars, self.title, self.image, *self.separators, self.outline]

    def fits(self, view: AttentionView) -> bool:
        """True when ``view`` has this figure's numbers of layers and heads."""
        return view.all_heads.shape[:2] == (self.n_layers, self.n_heads)

    def _set_tokens(self, tokens) -> None:
        """A new sentence: T slots on the shared axis and one text per token under them (drawn over the cached
        background, then kept as this sentence's background)."""
        import matplotlib
        from matplotlib.transforms import blended_transform_factory

        self.tokens = list(tokens)
        T, rows = len(self.tokens), self.n_layers * self.n_heads
        for text in self.labels:
            text.remove()
        with matplotlib.rc_context(STYLE):
            self.ax_all.set_xlim(-0.5, T - 0.5)
            under = blended_transform_factory(self.ax_all.transData, self.ax_all.transAxes)
            size = STYLE["xtick.labelsize"] if T <= 20 else MIN_FONT_PT
            self.labels = [self.ax_all.text(j, -0.02, _ascii(t), transform=under, rotation=90, ha="center", va="top",
                                            fontsize=size, animated=True) for j, t in enumerate(self.tokens)]
        self.image.set_data(np.zeros((rows, T)))
        self.image.set_extent((-0.5, T - 0.5, rows - 0.5, -0.5))
        self.outline.set_width(T)
        self._background = None

    def draw(self, view: AttentionView) -> None:
        """Show ``view``. A new sentence restores the background (painted in full at the first draw only: axes,
        legend, colour bar), draws its token labels and keeps that; a move restores it and draws only the data."""
        if not self.fits(view):
            raise ValueError(f"this figure shows {self.n_layers} layers x {self.n_heads} heads; the view has "
                             f"{view.all_heads.shape[:2]}: build a new ExplorerFigure.")
        if view.tokens != self.tokens:
            self._set_tokens(view.tokens)
        T = len(self.tokens)
        renderer = self.canvas.get_renderer()
        if self._background is None:
            if self._base is None:      # once per figure: axes, legend, colour bar (no x ticks: it fits every T)
                self.canvas.draw()      # animated artists (data, token labels) are skipped
                self._base = self.canvas.copy_from_bbox(self.fig.bbox)
                renderer = self.canvas.get_renderer()
            else:
                self.canvas.restore_region(self._base)
            for text in self.labels:
                text.draw(renderer)
            self._background = self.canvas.copy_from_bbox(self.fig.bbox)
        self.canvas.restore_region(self._background)
        self.image.set_data(view.all_heads.reshape(self.n_layers * self.n_heads, T))
        if view.head is None:       # the whole layer outlined
            self.outline.set_xy((-0.5, (view.layer - 1) * self.n_heads - 0.5))
            self.outline.set_height(self.n_heads)
        else:
            self.outline.set_xy((-0.5, (view.layer - 1) * self.n_heads + view.head - 1.5))
            self.outline.set_height(1)
        self.bars.set_verts(bar_verts(view.row, offset=-1.0))
        self.bars.set_facecolor([HIDDEN_COLOR if view.causal and j > view.token else
                                 SINK_COLOR if j in (0, T - 1) else QUERY_COLOR if j == view.token else KEY_COLOR
                                 for j in range(T)])
        self.title.set_text(_title(view))
        for artist in self._animated:
            artist.draw(renderer)

    def jpeg(self) -> bytes:
        """The pixels drawn last, as JPEG (what the widget shows)."""
        return encode_jpeg(self.canvas)

    def save(self, path) -> Path:
        """Write the current figure to ``path`` (the format from its suffix: .png or .svg), data included."""
        path = Path(path)
        if path.suffix not in (".png", ".svg"):
            raise ValueError(f"path must end in .png or .svg; got {str(path)!r}.")
        for artist in (*self._animated, *self.labels):
            artist.set_animated(False)
        try:
            self.fig.savefig(path)
        finally:
            for artist in (*self._animated, *self.labels):
                artist.set_animated(True)
        return path


def _readout(view: AttentionView) -> str:
    """The Chinese readout under the figure (pure: a view in, HTML out)."""
    tok = html.escape(view.tokens[view.token])
    order = np.argsort(-view.row)[:3]
    top = "，".join(f"{html.escape(view.tokens[j])}（{j}）{view.row[j]:.2f}" for j in order)
    head = "各头平均" if view.head is None else f"第 {view.head} 头"
    lines = [f"第 {view.layer} 层 {head}：<b>{tok}</b>（下标 {view.token}）看得最多的是 {top}。",
             f"落在 [CLS] 和 [SEP] 上的权重合计 {view.sinks:.2f}（红色柱；见选读「[CLS] 吸走了大量注意力」）；"
             f"落在它后面的 token 上 {view.future:.2f}" + ("（因果掩码下必然是 0，灰色柱是被挡住的位置；见选读「这是双向编码器」）。"
                                                    if view.causal else "。")]
    return "<br>".join(lines)


def _file_stem(view: AttentionView) -> str:
    head = "mean" if view.head is None else f"H{view.head}"
    word = re.sub(r"[^A-Za-z0-9]+", "", view.tokens[view.token]) or "tok"
    return f"attention-L{view.layer}{head}-{view.token}{word}" + ("-causal" if view.causal else "")


class AttentionExplorer:
    """The live panel: a sentence box with its 编码 button, token / layer / head dropdowns, the causal switch, save
    buttons.

    A sentence is taken when the learner presses Enter in the box or the 编码 button (:meth:`encode`); typing
    alone computes nothing. The box sends its text as it is typed (``continuous_update=True``) and Enter sends
    ipywidgets' "submit" message after it, so the text is in the kernel when Enter arrives. (A box that waits for
    its change event, ``continuous_update=False``, missed Enter in the browser edition: its page fires no change
    event on Enter, only the submit message, which carries no text.)

    Every control change calls :func:`attention_view` (the encoder runs only for a new sentence or causal
    setting) and redraws the same :class:`ExplorerFigure`; a new token list builds a new one. Bad input
    shows its Chinese message above the figure and keeps the last good figure. ``layout="lecture"``: the
    figure of a deck slide (:class:`ExplorerFigure`) and no save buttons (the class watches; nothing to hand in).

    Attributes
    ----------
    sentence_box, encode_button, token_menu, layer_menu, head_menu, causal_box, save_png, save_svg, message, image,
    readout
        The ipywidgets.
    sentence : str             the sentence taken last (the box may hold newer text, not taken yet)
    widget : ipywidgets.VBox
    view : AttentionView       what is shown now
    cache : SentenceCache
    """

    def __init__(self, model, sentence: str, layer: int = 1, head: int | None = 1, token: int = 0,
                 causal: bool = False, folder=".", layout: str = "full"):
        import ipywidgets as W

        self.layout = check_choice("layout", layout, ("full", "lecture"))
        self.cache = SentenceCache(model)
        self.folder = Path(folder)
        self.figure = None
        self.view = None
        self._hold = False
        self.sentence = sentence
        cfg = model.config
        wide = {"description_width": "56px"}
        self.sentence_box = W.Text(value=sentence, description="句子", continuous_update=True, style=wide,
                                   placeholder="输入一句英文，按回车（Enter）或点「编码」",
                                   layout=W.Layout(flex="1 1 auto", width="auto"))
        self.encode_button = W.Button(description="编码", icon="play", tooltip="编码这个句子（在句子框里按回车也一样）",
                                      layout=W.Layout(width="auto"))
        self.token_menu = W.Dropdown(description="token", style=wide, layout=W.Layout(width="220px"))
        self.layer_menu = W.Dropdown(options=[(f"第 {l} 层", l) for l in range(1, cfg.n_layers + 1)], value=layer,
                                     description="层", style=wide, layout=W.Layout(width="180px"))
        self.head_menu = W.Dropdown(options=[(f"第 {h} 头", h) for h in range(1, cfg.n_heads + 1)] + [("各头平均", None)],
                                    value=head, description="头", style=wide, layout=W.Layout(width="180px"))
        self.causal_box = W.Checkbox(value=causal, description="加因果掩码（2.10）", indent=False)
        self.save_png = W.Button(description="保存 PNG", icon="download", layout=W.Layout(width="auto"))
        self.save_svg = W.Button(description="保存 SVG", icon="download", layout=W.Layout(width="auto"))
        self.message = W.HTML()
        self.image = W.Image(format="jpeg")
        self.readout = W.HTML()
        sentence_row = W.HBox([self.sentence_box, self.encode_button], layout=W.Layout(width="98%"))
        self.save_png.on_click(lambda _b: self.save(".png"))
        self.save_svg.on_click(lambda _b: self.save(".svg"))
        controls = W.HBox([self.token_menu, self.layer_menu, self.head_menu, self.causal_box])
        saving = [] if self.layout == "lecture" else [W.HBox([self.save_png, self.save_svg])]
        self.widget = W.VBox([sentence_row, controls, *saving, self.message, self.image, self.readout])
        self.sentence_box.on_msg(self._on_box_message)      # Enter: ipywidgets' TextView sends {"event": "submit"}
        self.encode_button.on_click(lambda _b: self.encode())
        for w in (self.token_menu, self.layer_menu, self.head_menu, self.causal_box):
            w.observe(lambda _c: self.update(), names="value")
        self.update(new_sentence=True, token=token)

    def _say(self, text: str) -> None:
        self.message.value = f'<span style="color:#b00020">{html.escape(text)}</span>' if text else ""

    def _on_box_message(self, _box, content, _buffers) -> None:
        if isinstance(content, dict) and content.get("event") == "submit":
            self.encode()

    def encode(self):
        """Take the sentence in the box (what Enter and the 编码 button do): encode it, redraw, return the view."""
        return self.update(new_sentence=True)

    def _set_tokens(self, tokens, token: int) -> None:
        self._hold = True
        try:
            self.token_menu.options = [(f"{j}: {t}", j) for j, t in enumerate(tokens)]
            self.token_menu.value = min(token, len(tokens) - 1)
        finally:
            self._hold = False

    def update(self, new_sentence: bool = False, token: int | None = None):
        """Recompute from the controls and redraw; return the view (or None: the message says why)."""
        if self._hold:
            return self.view
        try:
            if new_sentence:
                self.sentence = self.sentence_box.value
            sentence, causal = self.sentence, bool(self.causal_box.value)
            if new_sentence:
                tokens, _ = self.cache.get(sentence, causal)
                old = self.view.tokens[self.view.token] if self.view is not None else None
                keep = token if token is not None else (tokens.index(old) if old in tokens else 0)
                self._set_tokens(tokens, keep)
            view = attention_view(self.cache, sentence, self.layer_menu.value, self.head_menu.value,
                                  self.token_menu.value, causal)
        except ExplorerInputError as exc:
            self._say(exc.zh)
            return None
        except Exception as exc:  # noqa: BLE001 -- a live panel shows a message, never a traceback
            self._say(f"没能画出这个视图（{type(exc).__name__}: {exc}）。")
            return None
        if self.figure is None or not self.figure.fits(view):
            self.figure = ExplorerFigure(*view.all_heads.shape[:2], layout=self.layout)
        self.figure.draw(view)
        self.image.value = self.figure.jpeg()
        self.readout.value = _readout(view)
        self._say("")
        self.view = view
        return view

    def save(self, suffix: str) -> Path | None:
        """Save the current figure as PNG or SVG in ``folder``; the message line says where."""
        if self.view is None:
            self._say("还没有可以保存的图。")
            return None
        try:
            path = self.figure.save(self.folder / (_file_stem(self.view) + suffix))
        except OSError as exc:
            self._say(f"没能保存（{exc.strerror}）：{exc.filename}")
            return None
        self.message.value = f"已保存：<code>{html.escape(str(path))}</code>"
        return path

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def attention_explorer(model, sentence: str = "The animal didn't cross the street because it was too tired.",
                       layer: int = 4, head: int | None = 2, token: int | str = "it", causal: bool = False,
                       folder=".", layout: str = "full"):
    """Build the live explorer for ``model`` (display it); ``token`` is an index or a token of the sentence;
    ``layout``: "full" (the notebook's) or "lecture" (lecture 2's deck slide, :class:`AttentionExplorer`).

    When ``model`` is None (the weights are absent): in the full layout, prints one Chinese line and returns None;
    in the lecture layout, returns an ``ipywidgets.HTML`` saying so in Chinese (:data:`NO_WEIGHTS_LECTURE`; a deck
    slide shows a widget, not a printed line), at slide size.
    """
    check_choice("layout", layout, ("full", "lecture"))
    if model is None:
        if layout == "lecture":
            import ipywidgets as W

            return W.HTML(f'<div style="font-size:24px;line-height:1.45;color:#b00020">{html.escape(NO_WEIGHTS_LECTURE)}</div>')
        print("没有模型权重，探索器无法运行（见本节开头的说明）。")
        return None
    if isinstance(token, str):
        tokens = model.tokenizer.encode(sentence).tokens
        token = tokens.index(token) if token in tokens else 0
    return AttentionExplorer(model, sentence, layer=layer, head=head, token=token, causal=causal, folder=folder,
                             layout=layout)
