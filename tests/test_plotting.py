import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from helpers.ui.plotting import attention_heatmap, token_labels, weights_bar  # noqa: E402


def test_token_labels_are_one_based():
    assert token_labels(3) == ["t1", "t2", "t3"]


def test_heatmap_labels_annotations_and_masked_cells():
    fig, ax = plt.subplots()
    A = np.array([[1.0, -np.inf], [0.25, 0.75]])
    attention_heatmap(A, ["a", "b"], ["c", "d"], ax=ax, title="T")
    assert [t.get_text() for t in ax.get_xticklabels()] == ["c", "d"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b"]
    assert sorted(t.get_text() for t in ax.texts) == ["-inf", "0.25", "0.75", "1.00"]
    assert ax.get_title() == "T"
    plt.close(fig)


def test_heatmap_rejects_bad_input():
    with pytest.raises(ValueError, match="row_labels must have one label per row"):
        attention_heatmap(np.eye(2), ["only one"])
    with pytest.raises(ValueError, match="NaN"):
        attention_heatmap(np.array([[np.nan]]))
    with pytest.raises(ValueError, match=r"A must be 2-D"):
        attention_heatmap(np.ones(3))
    plt.close("all")


def test_weights_bar_heights_labels_and_highlight():
    fig, ax = plt.subplots()
    bars = weights_bar([0.2, 0.8], ["x", "y"], ax=ax, highlight=1, xlabel="key")
    assert [b.get_height() for b in bars] == [0.2, 0.8]
    assert bars[0].get_facecolor() != bars[1].get_facecolor()
    assert ax.get_xlabel() == "key" and ax.get_ylabel() == "权重"
    plt.close(fig)


def test_annotation_text_is_readable_on_a_diverging_map():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from helpers.ui.plotting import DIVERGING_CMAP, attention_heatmap

    S = np.array([[-3.0, 0.0], [0.1, 3.0]])
    fig, ax = plt.subplots()
    attention_heatmap(S, ax=ax, cmap=DIVERGING_CMAP, vmin=-3, vmax=3, colorbar_label="score")
    colors = {t.get_text(): t.get_color() for t in ax.texts}
    # near 0 the diverging map is almost white: the text must be black there, white on the dark ends
    assert colors["0.00"] == "black" and colors["0.10"] == "black"
    assert colors["-3.00"] == "white" and colors["3.00"] == "white"
    plt.close(fig)


def test_weights_bar_colours():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgba

    from helpers.ui.plotting import weights_bar

    fig, ax = plt.subplots()
    bars = weights_bar([0.2, 0.8], ["a", "b"], ax=ax, highlight=1, color="tab:green", highlight_color="tab:red")
    assert bars[0].get_facecolor() == to_rgba("tab:green") and bars[1].get_facecolor() == to_rgba("tab:red")
    plt.close(fig)


def test_the_figures_font_has_every_chinese_character_a_figure_can_draw():
    """The shipped subset covers the plotting helpers and the notebooks' code cells (python -m publish font)."""
    from fontTools.ttLib import TTFont

    from helpers.ui.plotting import FONT_FILE
    from publish.deck.font import is_cjk, plot_text

    cmap = TTFont(str(FONT_FILE))["cmap"].getBestCmap()
    missing = sorted({c for c in plot_text() if is_cjk(c) and ord(c) not in cmap})
    assert not missing, f"{FONT_FILE.name} lacks {''.join(missing)}: run python -m publish font"


def test_chinese_labels_are_drawn_in_the_shipped_font_not_as_boxes():
    """Default labels are Chinese; drawing them warns of no missing glyph, and the CJK face is the shipped file."""
    import warnings

    from matplotlib.font_manager import FontProperties, fontManager

    from helpers.ui.plotting import FONT_FAMILY, FONT_FILE

    fig, (ax1, ax2) = plt.subplots(1, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # matplotlib warns "Glyph ... missing from font(s)" for a box
        attention_heatmap(np.eye(2), ax=ax1)
        weights_bar([0.5, 0.5], ax=ax2)
        fig.canvas.draw()
    assert "键" in ax1.get_xlabel() and "查询" in ax1.get_ylabel() and "权重" in ax2.get_ylabel()
    assert ax1.xaxis.label.get_fontfamily() == FONT_FAMILY
    cjk = fontManager.findfont(FontProperties(family=FONT_FAMILY[1]), fallback_to_default=False)
    assert cjk == str(FONT_FILE) or "NotoSansCJK" in cjk   # ours, or a system copy of the same face
    plt.close(fig)


def test_a_small_heatmaps_token_labels_are_18_px_on_a_slide():
    """The deck shows a figure at >= its natural size (100 dpi); its labels' floor there is 18 px (issue 31)."""
    from helpers.ui.plotting import STYLE

    fig, ax = plt.subplots(dpi=STYLE["figure.dpi"])
    attention_heatmap(np.full((8, 8), 1 / 8), list("abcdefgh"), list("abcdefgh"), ax=ax, annotate=False)
    ticks = ax.get_xticklabels() + ax.get_yticklabels()
    assert len(ticks) == 16 and min(t.get_fontsize() for t in ticks) * fig.dpi / 72 >= 18
    plt.close(fig)


# -- Every figure text a learner or a class sees is Chinese (issue 31, teacher's review): titles, axis labels, legends
# and colour-bar labels that the notebooks pass to matplotlib and to the plotting helpers, and the helpers' defaults.
# Maths ($...$), token labels and tick labels are not words to translate; an English term may stay in parentheses.

_LABEL_KWARGS = {"title", "xlabel", "ylabel", "label", "colorbar_label"}
_LABEL_CALLS = {"set_title", "set_xlabel", "set_ylabel", "suptitle"}
#: The learner-facing helpers that draw figures (helpers/model's explorer belongs to 2.13's work and is not checked here).
_FIGURE_HELPERS = ("helpers/ui/plotting.py", "helpers/lessons")


def _literal(node) -> str | None:
    """The text of a string literal, an f-string's literal parts, or a sum of those; None for anything else."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else " " for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None and right is None else (left or "") + " " + (right or "")
    return None


def english_labels(source: str) -> list[str]:
    """The figure labels of ``source`` (keyword arguments title/xlabel/ylabel/label/colorbar_label, the first argument
    of set_title/set_xlabel/set_ylabel/suptitle, a helper's default for such a parameter) that hold an English word
    and no Chinese, or Chinese beside $...$ maths (drawn as boxes: write the maths in Unicode, τ, √dₖ, QKᵀ)."""
    import ast

    tree = ast.parse(source)
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            texts += [_literal(k.value) for k in node.keywords if k.arg in _LABEL_KWARGS]
            if getattr(node.func, "attr", None) in _LABEL_CALLS and node.args:
                texts.append(_literal(node.args[0]))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            pairs = list(zip(a.args[len(a.args) - len(a.defaults):], a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
            texts += [_literal(d) for arg, d in pairs if d is not None and arg.arg in _LABEL_KWARGS]
    out = []
    for t in texts:
        words = re.sub(r"\$[^$]*\$", "", t or "")
        chinese = re.search(r"[\u4e00-\u9fff]", words)
        # mathtext draws a label with $...$ in its maths fonts alone: Chinese beside the maths comes out as boxes
        if (re.search(r"[A-Za-z]{3,}", words) and not chinese) or (chinese and words != (t or "")):
            out.append(t)
    return out


def test_the_label_check_catches_english_and_passes_chinese():
    assert english_labels('ax.set_title("Weights vs temperature")') == ["Weights vs temperature"]
    assert english_labels('H.attention_heatmap(A, title=r"$A\' = PAP^\\top$ (shuffled)")')
    assert english_labels('def draw(x, *, title="shape flow of $V$"):\n    pass')
    assert english_labels('ax.plot(x, label=f"key {i} (value {v})")')
    assert not english_labels('ax.set_title("权重随温度的变化")')
    assert english_labels('ax.set_xlabel(r"温度 $\\tau$（对数刻度）")')        # boxes beside the maths
    assert not english_labels('ax.set_xlabel("温度 τ（对数刻度，log scale）")')
    assert not english_labels('ax.set_ylabel(r"$\\|J\\|_F$")')


def test_every_figure_label_a_learner_sees_is_chinese():
    import json

    from publish.notebooks import ROOT, series

    found = []
    for nb in series():
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                src = "\n".join(ln for ln in "".join(cell["source"]).split("\n") if not ln.lstrip().startswith(("%", "!")))
                found += [f"{nb.name} cell {cell.get('id')}: {t!r}" for t in english_labels(src)]
    for where in _FIGURE_HELPERS:
        path = ROOT / where
        for py in ([path] if path.suffix == ".py" else sorted(path.rglob("*.py"))):
            found += [f"{py.relative_to(ROOT)}: {t!r}" for t in english_labels(py.read_text(encoding="utf-8"))]
    assert not found, "\n".join(found)
