"""Shape flow of the whole formula (chapter 2.7) and the parameter count.

:func:`shape_flow` really runs the five steps on the arrays it is given and records
the shape of every array it makes, so the figure drawn by :func:`draw_shape_flow`
is generated from real shapes, never typed in by hand:

    X (T, d_model) --W_Q (d_model, d_k)--> Q (T, d_k)
                   --W_K (d_model, d_k)--> K (T, d_k)     S = Q K^T (T, T) -> S' -> A (T, T)
                   --W_V (d_model, d_v)--> V (T, d_v)     output = A V (T, d_v)

:func:`qkv_parameter_count` counts the learned numbers in W_Q, W_K, W_V (the
parameters), which do not depend on the number of tokens T (the input).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import matplotlib.pyplot as plt
import numpy as np

from .._validate import as_real_array, check_flag, check_int
from ..core.attention import scaled_dot_product_attention
from ..core.projections import project_qkv
from ..core.scores import dot_product_scores

__all__ = ["ShapeStep", "shape_flow", "draw_shape_flow", "qkv_parameter_count"]


class ShapeStep(NamedTuple):
    """One array of the computation.

    Attributes
    ----------
    name : str
        ASCII name as drawn ("Q", "S' = S/sqrt(d_k)").
    shape : tuple of int
        The real array's shape.
    symbolic : str
        The shape in the chapter's symbols, e.g. "(T, d_k)".
    kind : str
        "input", "parameter" or "computed".
    """

    name: str
    shape: tuple[int, ...]
    symbolic: str
    kind: str


def shape_flow(X, W_Q, W_K, W_V) -> list[ShapeStep]:
    """Run the five steps on real arrays and list every array's shape, in order.

    Parameters
    ----------
    X : array_like, shape (T, d_model)
    W_Q, W_K : array_like, shape (d_model, d_k)
    W_V : array_like, shape (d_model, d_v)

    Returns
    -------
    list of ShapeStep
        X, W_Q, W_K, W_V, Q, K, V, S, S', A, output: eleven steps, with shapes
        (T, d_model), (d_model, d_k), (d_model, d_k), (d_model, d_v), (T, d_k),
        (T, d_k), (T, d_v), (T, T), (T, T), (T, T), (T, d_v).

    Raises
    ------
    ValueError
        If X is not 2-D (one sequence), or the weights do not fit X (see
        :func:`helpers.project_qkv`).
    """
    X = as_real_array("X", X, ndim=2, expected="(T, d_model)")
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    out, A = scaled_dot_product_attention(Q, K, V)
    S = dot_product_scores(Q, K)                 # the two intermediates the helper does not return
    S_scaled = S / math.sqrt(Q.shape[-1])
    W_Q, W_K, W_V = (np.asarray(w) for w in (W_Q, W_K, W_V))
    return [
        ShapeStep("X", tuple(X.shape), "(T, d_model)", "input"),
        ShapeStep("W_Q", tuple(W_Q.shape), "(d_model, d_k)", "parameter"),
        ShapeStep("W_K", tuple(W_K.shape), "(d_model, d_k)", "parameter"),
        ShapeStep("W_V", tuple(W_V.shape), "(d_model, d_v)", "parameter"),
        ShapeStep("Q = X W_Q", tuple(Q.shape), "(T, d_k)", "computed"),
        ShapeStep("K = X W_K", tuple(K.shape), "(T, d_k)", "computed"),
        ShapeStep("V = X W_V", tuple(V.shape), "(T, d_v)", "computed"),
        ShapeStep("S = Q K^T", tuple(S.shape), "(T, T)", "computed"),
        ShapeStep("S' = S/sqrt(d_k)", tuple(S_scaled.shape), "(T, T)", "computed"),
        ShapeStep("A = softmax(S')", tuple(A.shape), "(T, T)", "computed"),
        ShapeStep("output = A V", tuple(out.shape), "(T, d_v)", "computed"),
    ]


# Positions (x, y) of the eleven boxes, in the order shape_flow returns them, and
# the arrows between them (indices into that list).
_LAYOUT = [(0.0, 1.0), (1.0, 2.0), (1.0, 1.0), (1.0, 0.0), (2.0, 2.0), (2.0, 1.0), (2.0, 0.0),
           (3.0, 1.5), (4.0, 1.5), (5.0, 1.5), (6.0, 0.75)]
_EDGES = [(0, 1), (0, 2), (0, 3), (1, 4), (2, 5), (3, 6), (4, 7), (5, 7), (7, 8), (8, 9), (9, 10), (6, 10)]
_COLORS = {"input": "#cfe2f3", "parameter": "#fce5cd", "computed": "#d9ead3"}
#: The legend's words for the kinds of box (a figure's text is Chinese, drawn in the shipped subset font).
_KIND_NAMES = {"input": "输入（input）", "parameter": "参数（parameter）", "computed": "计算结果（computed）"}


def _math_label(step: ShapeStep) -> tuple[str, str]:
    """Short mathtext labels for a box: "S' = S/sqrt(d_k)" -> "$S'$", "(T, d_model)" -> "$(T, d_{\\mathrm{model}})$".

    Labels that are already mathtext (start with "$") are kept, so a notebook may pass its own.
    """
    name, symbolic = step.name, step.symbolic
    if not name.startswith("$"):
        short = name.split(" = ")[0]
        name = r"$\mathrm{output}$" if short == "output" else f"${short}$"
    if not symbolic.startswith("$"):
        symbolic = "$" + symbolic.replace("d_model", r"d_{\mathrm{model}}") + "$"
    return name, symbolic


def draw_shape_flow(steps, *, ax=None, title: str = "形状流转：softmax(QKᵀ/√dₖ) V"):
    """Draw the steps of :func:`shape_flow` as labelled boxes joined by arrows.

    Parameters
    ----------
    steps : list of ShapeStep
        Exactly the eleven steps :func:`shape_flow` returns (the layout is fixed).
    ax : matplotlib Axes, optional
        Drawn into a new (9.0, 4.2) figure with fixed margins if omitted.

    Returns
    -------
    list of matplotlib.text.Text
        The eleven box labels, in the order of ``steps``; each reads "name\\nshape\\nsymbolic"
        in short mathtext, e.g. "$Q$\\n(5, 3)\\n$(T, d_k)$" for the step "Q = X W_Q".
    """
    steps = list(steps)
    if len(steps) != len(_LAYOUT) or not all(isinstance(s, ShapeStep) for s in steps):
        raise ValueError(f"steps must be the {len(_LAYOUT)} ShapeStep items returned by shape_flow(); "
                         f"got {len(steps)} item(s).")
    if ax is None:
        fig, ax = plt.subplots(figsize=(9.0, 4.2))
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.92)  # the boxes fill the figure
    labels = []
    for step, (x, y) in zip(steps, _LAYOUT):
        shape = "(" + ", ".join(map(str, step.shape)) + ")"
        name, symbolic = _math_label(step)
        labels.append(ax.text(
            x, y, f"{name}\n{shape}\n{symbolic}", ha="center", va="center", fontsize=10,
            bbox=dict(boxstyle="round,pad=0.35", fc=_COLORS.get(step.kind, "white"), ec="gray"),
        ))
    for a, b in _EDGES:
        (x0, y0), (x1, y1) = _LAYOUT[a], _LAYOUT[b]
        ax.annotate("", xy=(x1 - 0.36, y1 + 0.05 * (y0 - y1)), xytext=(x0 + 0.36, y0),
                    arrowprops=dict(arrowstyle="->", color="gray", lw=1.0))
    ax.set_xlim(-0.5, 6.5)
    ax.set_ylim(-0.55, 2.55)
    ax.axis("off")
    ax.set_title(title, fontsize=12)
    handles = [plt.Rectangle((0, 0), 1, 1, fc=c, ec="gray") for c in _COLORS.values()]
    ax.legend(handles, [_KIND_NAMES[k] for k in _COLORS], loc="lower right", fontsize=10, frameon=False)
    return labels


def qkv_parameter_count(d_model: int, d_k: int, d_v: int | None = None, *, n_heads: int = 1, bias: bool = False) -> int:
    """Number of learned numbers in W_Q, W_K, W_V (optionally with biases).

    Parameters
    ----------
    d_model, d_k : int
        Model width and query/key width per head.
    d_v : int, optional
        Value width per head; default ``d_k``.
    n_heads : int
        Number of heads, each with its own three matrices.
    bias : bool
        Count a bias vector per projection too (d_k + d_k + d_v per head).

    Returns
    -------
    int
        ``n_heads * (d_model * (2 d_k + d_v) + [2 d_k + d_v if bias])``. It does not
        depend on the sequence length T: X is input, not a parameter.
    """
    d_model = check_int("d_model", d_model, 1)
    d_k = check_int("d_k", d_k, 1)
    d_v = d_k if d_v is None else check_int("d_v", d_v, 1)
    n_heads = check_int("n_heads", n_heads, 1)
    bias = check_flag("bias", bias)
    per_head = d_model * (2 * d_k + d_v) + ((2 * d_k + d_v) if bias else 0)
    return n_heads * per_head
