"""Softmax saturation and the sqrt(d_k) scaling (chapter 2.5).

With unit-variance, independent components, ``Var(q . k) = d_k``: the raw dot
products of a query with T keys spread out like ``sqrt(d_k) * N(0, 1)``. Fed to
softmax unscaled, large ``d_k`` pushes the weights towards one-hot, and the
softmax Jacobian ``J_ij = a_i (delta_ij - a_j)`` (the gradient that survives)
collapses towards 0. Dividing by ``sqrt(d_k)`` brings the spread back to 1.

This module has three layers, kept apart on purpose:

- :func:`compute` — pure numbers: every value the explorer draws
  (tests call it directly);
- :class:`SaturationFigure` — one matplotlib figure, built once, redrawn by
  updating artists and blitting, returning PNG bytes;
- :class:`SaturationExplorer` / :func:`saturation_explorer` — the ipywidgets
  control panel that wires sliders to ``compute`` and the figure (it only draws).

Plus the static :func:`small_multiples` figure, the measured :func:`saturation_table`,
and :func:`train_query`, a tiny learning problem that shows the gradient vanish.
The Jacobian norm reported everywhere is the **Frobenius** norm.
"""

from __future__ import annotations

import io
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._validate import as_real_array, check_positive_int
from .softmax import entropy, softmax, softmax_jacobian

__all__ = [
    "D_K_OPTIONS",
    "MAGNITUDE_RANGE",
    "SaturationView",
    "compute",
    "jacobian_norm",
    "saturation_table",
    "train_query",
    "query_loss_and_grad",
    "learning_trials",
    "TrainingRun",
    "SaturationFigure",
    "SaturationExplorer",
    "saturation_explorer",
    "small_multiples",
    "naive_figure_png",
]

#: The d_k values the slider offers: 1, 2, 4, ..., 1024.
D_K_OPTIONS = tuple(2**i for i in range(11))
#: Smallest and largest score-magnitude multiplier the slider offers.
MAGNITUDE_RANGE = (0.1, 10.0)
#: Default number of keys.
DEFAULT_T = 16


def _check_d_k(d_k) -> int:
    d_k = check_positive_int("d_k", d_k)
    if d_k > 1 << 16:
        raise ValueError(f"d_k={d_k} is too large for this explorer (at most 65536).")
    return d_k


def _check_magnitude(magnitude) -> float:
    if isinstance(magnitude, bool) or not isinstance(magnitude, numbers.Real):
        raise TypeError(f"magnitude must be a real number, got {magnitude!r} (type {type(magnitude).__name__}).")
    m = float(magnitude)
    if not math.isfinite(m) or m < 0 or m > 1e3:
        raise ValueError(f"magnitude must be a finite number in [0, 1000]; got {magnitude!r}.")
    return m


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be a non-negative integer, got {seed!r} (type {type(seed).__name__}).")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}.")
    return int(seed)


def jacobian_norm(weights) -> np.ndarray:
    """Frobenius norm of the softmax Jacobian, computed from the weights.

    Parameters
    ----------
    weights : array_like, shape (..., T)
        Softmax outputs (each row non-negative, summing to 1).

    Returns
    -------
    numpy.ndarray, shape (...)
        ``||J||_F`` with ``J = diag(a) - a a^T``; 0 for a one-hot row, largest
        (0.5) for two keys sharing the weight equally.
    """
    J = softmax_jacobian(weights)
    return np.sqrt(np.sum(J * J, axis=(-2, -1)))


@dataclass(frozen=True)
class SaturationView:
    """Every number the saturation explorer draws (result of :func:`compute`).

    Attributes
    ----------
    d_k, magnitude, scaled, seed, T
        The settings that produced it.
    query : numpy.ndarray, shape (d_k,)
        One query, components i.i.d. N(0, 1).
    keys : numpy.ndarray, shape (T, d_k)
        T keys, components i.i.d. N(0, 1).
    raw_scores : numpy.ndarray, shape (T,)
        ``keys @ query`` — the unscaled dot products (std ~ sqrt(d_k)).
    scores : numpy.ndarray, shape (T,)
        What is fed to softmax: ``magnitude * raw_scores / sqrt(d_k)`` if
        ``scaled`` else ``magnitude * raw_scores``.
    weights : numpy.ndarray, shape (T,)
        ``softmax(scores)``.
    jacobian : numpy.ndarray, shape (T, T)
        ``J_ij = weights_i (delta_ij - weights_j)``.
    max_weight : float
        Largest weight (1/T = uniform, 1 = one-hot).
    entropy : float
        Entropy of the weights in nats (log T = uniform, 0 = one-hot).
    jacobian_norm : float
        Frobenius norm of ``jacobian``.
    score_std : float
        Theoretical standard deviation of ``scores``:
        ``magnitude * (1 if scaled else sqrt(d_k))``.
    argmax : int
        Index of the largest weight.
    """

    d_k: int
    magnitude: float
    scaled: bool
    seed: int
    T: int
    query: np.ndarray
    keys: np.ndarray
    raw_scores: np.ndarray
    scores: np.ndarray
    weights: np.ndarray
    jacobian: np.ndarray
    max_weight: float
    entropy: float
    jacobian_norm: float
    score_std: float
    argmax: int


def compute(d_k: int, magnitude: float = 1.0, scaled: bool = True, seed: int = 0, T: int = DEFAULT_T) -> SaturationView:
    """Sample one query and T keys and compute everything the explorer shows.

    The sample depends only on ``(seed, d_k, T)``: moving the magnitude slider or
    ticking "divide by sqrt(d_k)" rescales the *same* scores, so the learner sees
    the effect of the knob and nothing else.

    Parameters
    ----------
    d_k : int
        Dimension of queries and keys (1 ... 65536; the slider offers 1 ... 1024).
    magnitude : float
        Multiplier on the scores (0 ... 1000; the slider offers 0.1 ... 10).
    scaled : bool
        Divide the dot products by ``sqrt(d_k)`` before softmax.
    seed : int
        Seed for ``np.random.default_rng``.
    T : int
        Number of keys (2 ... 4096).

    Returns
    -------
    SaturationView
        See its attributes for shapes. Never contains NaN or inf, and computing
        it raises no floating-point warning (other than harmless underflow of
        tiny weights to 0, which numpy does not report by default).
    """
    d_k = _check_d_k(d_k)
    magnitude = _check_magnitude(magnitude)
    seed = _check_seed(seed)
    T = check_positive_int("T", T)
    if not 2 <= T <= 4096:
        raise ValueError(f"T (number of keys) must be between 2 and 4096; got {T}.")
    if not isinstance(scaled, (bool, np.bool_)):
        raise TypeError(f"scaled must be True or False, got {scaled!r}.")
    scaled = bool(scaled)

    rng = np.random.default_rng(seed)
    query = rng.standard_normal(d_k)
    keys = rng.standard_normal((T, d_k))
    raw = keys @ query
    factor = magnitude / math.sqrt(d_k) if scaled else magnitude
    scores = factor * raw
    weights = softmax(scores)
    J = softmax_jacobian(weights)
    return SaturationView(
        d_k=d_k, magnitude=magnitude, scaled=scaled, seed=seed, T=T,
        query=query, keys=keys, raw_scores=raw, scores=scores, weights=weights, jacobian=J,
        max_weight=float(weights.max()),
        entropy=float(entropy(weights)),
        jacobian_norm=float(jacobian_norm(weights)),
        score_std=magnitude * (1.0 if scaled else math.sqrt(d_k)),
        argmax=int(np.argmax(weights)),
    )


# --------------------------------------------------------------------------------------
# Measured version of the chapter's d_k table
# --------------------------------------------------------------------------------------


def saturation_table(d_ks=(16, 64, 256, 1024), T: int = DEFAULT_T, n_trials: int = 200, seed: int = 0) -> list[dict]:
    """Measure how saturated softmax is, unscaled vs scaled, for several d_k.

    For each ``d_k``, draw ``n_trials`` independent (query, T keys) samples with
    i.i.d. N(0, 1) components and average, over the trials, the largest weight,
    the entropy and the Frobenius norm of the softmax Jacobian — once for the raw
    scores and once for the scores divided by ``sqrt(d_k)`` (same samples).

    Parameters
    ----------
    d_ks : sequence of int
        Dimensions to measure.
    T : int
        Keys per query.
    n_trials : int
        Samples per d_k (the cost is ``n_trials * T * d_k`` multiply-adds).
    seed : int
        Seed for ``np.random.default_rng`` (one generator for the whole table).

    Returns
    -------
    list of dict
        One dict per d_k with keys ``d_k``, ``std_theory`` (sqrt(d_k)),
        ``std_raw`` (measured std of the raw scores), and, for ``tag`` in
        ``("raw", "scaled")``: ``max_weight_<tag>``, ``entropy_<tag>``,
        ``jac_norm_<tag>`` (means over trials), ``jac_norm_median_<tag>``
        (median over trials) and ``frac_saturated_<tag>`` (fraction of trials
        whose largest weight exceeds 0.99); all floats.
    """
    T = check_positive_int("T", T)
    n_trials = check_positive_int("n_trials", n_trials)
    rng = np.random.default_rng(_check_seed(seed))
    rows = []
    for d_k in d_ks:
        d_k = _check_d_k(d_k)
        q = rng.standard_normal((n_trials, 1, d_k))
        K = rng.standard_normal((n_trials, T, d_k))
        raw = np.sum(K * q, axis=-1)  # (n_trials, T)
        row = {"d_k": d_k, "std_theory": math.sqrt(d_k), "std_raw": float(raw.std())}
        for tag, s in (("raw", raw), ("scaled", raw / math.sqrt(d_k))):
            a = softmax(s)
            row[f"max_weight_{tag}"] = float(a.max(axis=-1).mean())
            row[f"entropy_{tag}"] = float(entropy(a).mean())
            jn = jacobian_norm(a)
            row[f"jac_norm_{tag}"] = float(jn.mean())
            row[f"jac_norm_median_{tag}"] = float(np.median(jn))
            row[f"frac_saturated_{tag}"] = float(np.mean(a.max(axis=-1) > 0.99))
        rows.append(row)
    return rows


# --------------------------------------------------------------------------------------
# A tiny learning problem: does the gradient survive?
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingRun:
    """Result of :func:`train_query`.

    ``...`` below is the batch shape of the problems (empty for one problem).

    Attributes
    ----------
    losses : numpy.ndarray, shape (..., steps + 1)
        Loss before each step and after the last one.
    grad_norms : numpy.ndarray, shape (..., steps)
        ``||dL/dq||`` at each step.
    target_weight : numpy.ndarray, shape (..., steps + 1)
        Attention weight on the target key along the way.
    query : numpy.ndarray, shape (..., d_k)
        The final query.
    """

    losses: np.ndarray
    grad_norms: np.ndarray
    target_weight: np.ndarray
    query: np.ndarray


def _check_problem(q, K, V, target):
    """Validate (q, K, V, target) of one problem or a batch; return arrays and the batch shape."""
    q = as_real_array("q", q, min_ndim=1, expected="(..., d_k)")
    K = as_real_array("K", K, min_ndim=2, expected="(..., T, d_k)")
    V = as_real_array("V", V, min_ndim=2, expected="(..., T, d_v) or (T, d_v)")
    batch = K.shape[:-2]
    if q.shape != batch + K.shape[-1:] or V.shape[-2] != K.shape[-2] or V.shape[:-2] not in ((), batch):
        raise ValueError(f"shapes do not fit: q {q.shape} (..., d_k), K {K.shape} (..., T, d_k), "
                         f"V {V.shape} (..., T, d_v) or (T, d_v).")
    t = np.asarray(target)
    if not np.issubdtype(t.dtype, np.integer) or t.shape not in ((), batch):
        raise ValueError(f"target must be an integer (or integer array of shape {batch}); got {target!r}.")
    if np.any((t < 0) | (t >= K.shape[-2])):
        raise ValueError(f"target must index a key (0 ... {K.shape[-2] - 1}); got {target!r}.")
    return q, K, V, np.broadcast_to(t, batch), batch


def query_loss_and_grad(q, K, V, target, scaled: bool):
    """Loss ``0.5 * ||softmax(c K q) V - V[target]||^2`` and its gradient in q.

    ``c = 1/sqrt(d_k)`` if ``scaled`` else 1. The gradient is analytic:
    with ``a = softmax(s)``, ``s = c K q``, ``o = a V``, ``g = o - V[target]``,

        dL/da = V g,   dL/ds = J (V g) = a * (V g - a . V g),   dL/dq = c K^T dL/ds.

    (``J u = a * (u - a . u)`` is the product of the softmax Jacobian
    ``diag(a) - a a^T`` with a vector, in O(T) instead of building J.)
    Leading batch dimensions ``...`` run many independent problems at once.

    Parameters
    ----------
    q : array_like, shape (..., d_k)
    K : array_like, shape (..., T, d_k)
    V : array_like, shape (..., T, d_v) or (T, d_v) (shared by the batch)
    target : int or array_like of int, shape (...)
        Index of the key whose value the query should retrieve.
    scaled : bool

    Returns
    -------
    loss : float (one problem) or numpy.ndarray, shape (...)
    grad : numpy.ndarray, shape (..., d_k)
    weights : numpy.ndarray, shape (..., T)
    """
    q, K, V, t, batch = _check_problem(q, K, V, target)
    c = 1.0 / math.sqrt(K.shape[-1]) if scaled else 1.0
    a = softmax(c * np.einsum("...td,...d->...t", K, q))
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    v_t = np.take_along_axis(Vb, t[..., None, None], axis=-2)[..., 0, :]  # V[target], shape (..., d_v)
    g = np.einsum("...t,...tv->...v", a, Vb) - v_t
    loss = 0.5 * np.sum(g * g, axis=-1)
    u = np.einsum("...tv,...v->...t", Vb, g)  # dL/da, shape (..., T)
    ds = a * (u - np.sum(a * u, axis=-1, keepdims=True))  # J u  (J is symmetric)
    grad = c * np.einsum("...td,...t->...d", K, ds)
    return (float(loss) if not batch else loss), grad, a


def train_query(K, V, target, scaled: bool, *, lr: float = 0.5, steps: int = 200, q0=None) -> TrainingRun:
    """Learn a query that retrieves ``V[target]`` by plain gradient descent.

    Leading batch dimensions ``...`` train many independent problems at once
    (each one exactly as if it were trained alone).

    Parameters
    ----------
    K : array_like, shape (..., T, d_k)
        Fixed keys.
    V : array_like, shape (..., T, d_v) or (T, d_v)
        Fixed values.
    target : int or array_like of int, shape (...)
        Which value the output should equal.
    scaled : bool
        Divide the scores by ``sqrt(d_k)``.
    lr : float
        Learning rate (step size on q).
    steps : int
        Number of gradient steps.
    q0 : array_like, shape (..., d_k), optional
        Starting query (default: zeros, i.e. uniform attention).

    Returns
    -------
    TrainingRun
    """
    K = as_real_array("K", K, min_ndim=2, expected="(..., T, d_k)")
    steps = check_positive_int("steps", steps)
    shape = K.shape[:-2] + K.shape[-1:]
    q = np.zeros(shape) if q0 is None else as_real_array("q0", q0, min_ndim=1, expected="(..., d_k)").astype(float)
    t = np.broadcast_to(np.asarray(target), K.shape[:-2])
    losses, norms, tw = [], [], []
    for _ in range(steps):
        loss, grad, a = query_loss_and_grad(q, K, V, target, scaled)
        losses.append(loss)
        tw.append(np.take_along_axis(a, t[..., None], axis=-1)[..., 0])
        norms.append(np.linalg.norm(grad, axis=-1))
        q = q - lr * grad
    loss, _, a = query_loss_and_grad(q, K, V, target, scaled)
    losses.append(loss)
    tw.append(np.take_along_axis(a, t[..., None], axis=-1)[..., 0])
    return TrainingRun(*(np.moveaxis(np.array(x, dtype=float), 0, -1) for x in (losses, norms, tw)), q)


def learning_trials(d_k: int, n_trials: int = 20, T: int = DEFAULT_T, *, lr: float = 1.0, steps: int = 200,
                    seed: int = 0) -> dict:
    """Run :func:`train_query` unscaled and scaled on ``n_trials`` random problems.

    Each trial draws keys ``K`` (T, d_k) and a starting query ``q0`` (d_k,) with
    i.i.d. N(0, 1) components and a random target key; values are one-hot
    (``V = I_T``), so the output *is* the weight vector and the loss is
    ``0.5 * ||a - e_target||^2``. Both runs start from the same ``q0``. All
    trials are trained together as one batch (same numbers as one by one).

    Parameters
    ----------
    d_k, T : int
        Key dimension and number of keys.
    n_trials : int
        Number of independent problems.
    lr, steps
        Passed to :func:`train_query`.
    seed : int
        Seed of the generator that draws all problems.

    Returns
    -------
    dict
        ``final_raw``, ``final_scaled`` : numpy.ndarray, shape (n_trials,) — final losses;
        ``grad0_raw``, ``grad0_scaled`` : numpy.ndarray, shape (n_trials,) — ``||dL/dq||``
        at the start; ``gradlast_raw``, ``gradlast_scaled`` — the same at the last
        step; ``curves_raw``, ``curves_scaled`` : numpy.ndarray,
        shape (n_trials, steps + 1) — loss curves.
    """
    d_k = _check_d_k(d_k)
    n_trials = check_positive_int("n_trials", n_trials)
    T = check_positive_int("T", T)
    rng = np.random.default_rng(_check_seed(seed))
    Ks, q0s, targets = [], [], []
    for _ in range(n_trials):  # the same draws, in the same order, as training one problem at a time
        Ks.append(rng.standard_normal((T, d_k)))
        q0s.append(rng.standard_normal(d_k))
        targets.append(int(rng.integers(T)))
    K, q0, target = np.stack(Ks), np.stack(q0s), np.array(targets)
    out = {}
    for tag, scaled in (("raw", False), ("scaled", True)):
        run = train_query(K, np.eye(T), target, scaled, lr=lr, steps=steps, q0=q0)
        out[f"final_{tag}"] = run.losses[:, -1]
        out[f"grad0_{tag}"] = run.grad_norms[:, 0]
        out[f"gradlast_{tag}"] = run.grad_norms[:, -1]
        out[f"curves_{tag}"] = run.losses
    return out


# --------------------------------------------------------------------------------------
# Drawing: one figure, updated in place (the widget only draws)
# --------------------------------------------------------------------------------------

_BAR = "#4c72b0"
_TOP = "#dd8452"
_FIGSIZE = (8.0, 3.0)
_DPI = 80
_HALF_WIDTH = 0.4


def _score_limit(max_abs: float) -> float:
    """A 'nice' symmetric y-limit >= max_abs from the ladder 1, 2, 5, 10, 20, 50, ...

    The limit changes only when the scores cross a rung, so most slider moves
    keep the axes (and the cached background) as they are.
    """
    decade = 1.0
    while True:
        for step in (1.0, 2.0, 5.0):
            if step * decade >= max_abs * 1.05:
                return step * decade
        decade *= 10.0


def _style_panels(fig, ax_s, ax_w, T: int) -> None:
    """The static part of the two panels, shared by the fast and the naive figure."""
    x = np.arange(1, T + 1)
    ax_s.axhline(0, color="0.3", lw=0.8)
    ax_w.axhline(1.0 / T, color="0.5", lw=0.8, ls="--")
    ax_w.set_ylim(0, 1.05)
    ax_s.set_title("scores fed to softmax", fontsize=10)
    ax_w.set_title("softmax weights (dashed: uniform 1/T)", fontsize=10)
    for ax in (ax_s, ax_w):
        ax.set_xlim(1 - 2 * _HALF_WIDTH, T + 2 * _HALF_WIDTH)
        ax.set_xlabel("key j", fontsize=9)
        ax.set_xticks(x[:: max(1, T // 8)])
        ax.tick_params(labelsize=8)
    ax_s.set_ylabel("score", fontsize=9)
    ax_w.set_ylabel("weight", fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.9, bottom=0.16, wspace=0.28)


def _bar_verts(heights: np.ndarray) -> np.ndarray:
    """Rectangles of width 0.8 centred on 1..T from 0 to each height, shape (T, 4, 2)."""
    T = heights.shape[0]
    x = np.arange(1, T + 1, dtype=float)
    verts = np.empty((T, 4, 2))
    verts[:, (0, 1), 0] = (x - _HALF_WIDTH)[:, None]
    verts[:, (2, 3), 0] = (x + _HALF_WIDTH)[:, None]
    verts[:, (0, 3), 1] = 0.0
    verts[:, (1, 2), 1] = heights[:, None]
    return verts


class SaturationFigure:
    """The explorer's picture: scores (left) and softmax weights (right).

    Built once with an Agg canvas (not through pyplot, so nothing is displayed
    by itself). Each panel's bars are one ``PolyCollection`` marked ``animated``,
    so a full draw paints only the static parts (axes, ticks, labels); that
    background is cached per score-axis limit. :meth:`render` restores the
    cached background, updates the bar vertices and colours, draws just those
    two artists (blitting) and returns PNG bytes. The numeric readouts are not
    drawn into the image (text rendering would triple the cost of an update);
    the explorer shows them in an HTML widget under it.

    Parameters
    ----------
    T : int
        Number of bars per panel.
    """

    def __init__(self, T: int = DEFAULT_T):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import PolyCollection
        from matplotlib.figure import Figure

        self.T = check_positive_int("T", T)
        self.fig = Figure(figsize=_FIGSIZE, dpi=_DPI)
        self.canvas = FigureCanvasAgg(self.fig)
        self.ax_s, self.ax_w = self.fig.subplots(1, 2)
        zeros = np.zeros(self.T)
        self.score_bars = PolyCollection(_bar_verts(zeros), facecolors=_BAR, edgecolors="none", animated=True)
        self.weight_bars = PolyCollection(_bar_verts(zeros), facecolors=_BAR, edgecolors="none", animated=True)
        self.ax_s.add_collection(self.score_bars, autolim=False)
        self.ax_w.add_collection(self.weight_bars, autolim=False)
        _style_panels(self.fig, self.ax_s, self.ax_w, self.T)
        self._ylim = None
        self._backgrounds: dict[float, object] = {}
        self.n_full_draws = 0

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

    def render(self, view: SaturationView) -> bytes:
        """Draw ``view`` and return the figure as PNG bytes."""
        if view.T != self.T:
            raise ValueError(f"this figure has {self.T} bars; the view has T={view.T}.")
        bg = self._background_for(_score_limit(float(np.max(np.abs(view.scores)))))
        self.canvas.restore_region(bg)
        colors = np.full(self.T, _BAR, dtype=object)
        colors[view.argmax] = _TOP
        self.score_bars.set_verts(_bar_verts(view.scores))
        self.weight_bars.set_verts(_bar_verts(view.weights))
        self.weight_bars.set_facecolors(list(colors))
        renderer = self.canvas.get_renderer()
        self.score_bars.draw(renderer)
        self.weight_bars.draw(renderer)
        return _png(self.canvas)


def _png(canvas) -> bytes:
    """Encode the canvas's current RGBA buffer as PNG (fast zlib level)."""
    from PIL import Image

    buf = np.asarray(canvas.buffer_rgba())
    h, w = buf.shape[:2]
    out = io.BytesIO()
    Image.frombuffer("RGBA", (w, h), buf, "raw", "RGBA", 0, 1).save(out, format="png", compress_level=1)
    return out.getvalue()


def naive_figure_png(view: SaturationView) -> bytes:
    """The slow pattern, for the benchmark: a brand-new figure per slider move.

    What ``ipywidgets.interact`` with a plotting function does: build the same two
    panels from scratch with pyplot, encode them the way the inline backend does
    (``savefig(..., format="png", bbox_inches="tight")``), close the figure.
    """
    import matplotlib.pyplot as plt

    fig, (ax_s, ax_w) = plt.subplots(1, 2, figsize=_FIGSIZE, dpi=_DPI)
    x = np.arange(1, view.T + 1)
    ax_s.bar(x, view.scores, color=_BAR, width=2 * _HALF_WIDTH)
    colors = [_TOP if k == view.argmax else _BAR for k in range(view.T)]
    ax_w.bar(x, view.weights, color=colors, width=2 * _HALF_WIDTH)
    lim = _score_limit(float(np.max(np.abs(view.scores))))
    ax_s.set_ylim(-lim, lim)
    _style_panels(fig, ax_s, ax_w, view.T)
    out = io.BytesIO()
    fig.savefig(out, format="png", bbox_inches="tight")
    plt.close(fig)
    return out.getvalue()


class SaturationExplorer:
    """The live control panel: sliders -> :func:`compute` -> :class:`SaturationFigure`.

    Attributes
    ----------
    d_k_slider : ipywidgets.SelectionSlider
        d_k in 1, 2, 4, ..., 1024.
    magnitude_slider : ipywidgets.FloatLogSlider
        Multiplier on the scores, 0.1 ... 10.
    scaled_checkbox : ipywidgets.Checkbox
        "divide by √d_k".
    seed_input : ipywidgets.BoundedIntText
        Seed of the sample.
    image : ipywidgets.Image
        The PNG the learner sees.
    readout : ipywidgets.HTML
        Largest weight, entropy and ||J||_F as text.
    widget : ipywidgets.VBox
        Everything above, ready to display.
    view : SaturationView
        The numbers currently shown.
    """

    def __init__(self, d_k: int = 64, magnitude: float = 1.0, scaled: bool = False, seed: int = 0, T: int = DEFAULT_T):
        import ipywidgets as W

        d_k = _check_d_k(d_k)
        if d_k not in D_K_OPTIONS:
            raise ValueError(f"d_k must be one of {D_K_OPTIONS} for the explorer; got {d_k}.")
        magnitude = _check_magnitude(magnitude)
        if not MAGNITUDE_RANGE[0] <= magnitude <= MAGNITUDE_RANGE[1]:
            raise ValueError(f"magnitude must lie in the slider's range {MAGNITUDE_RANGE}; got {magnitude}.")
        self.T = check_positive_int("T", T)
        self.figure = SaturationFigure(self.T)
        style = {"description_width": "110px"}
        self.d_k_slider = W.SelectionSlider(options=list(D_K_OPTIONS), value=d_k, description="d_k",
                                            style=style, continuous_update=True)
        self.magnitude_slider = W.FloatLogSlider(value=magnitude, base=10, min=-1, max=1, step=0.05,
                                                 description="score magnitude", style=style, readout_format=".2f")
        self.scaled_checkbox = W.Checkbox(value=bool(scaled), description="divide by √d_k", indent=False)
        self.seed_input = W.BoundedIntText(value=_check_seed(seed), min=0, max=10**6, description="seed",
                                           style={"description_width": "40px"}, layout=W.Layout(width="140px"))
        self.image = W.Image(format="png")
        self.readout = W.HTML()
        controls = W.HBox([W.VBox([self.d_k_slider, self.magnitude_slider]),
                           W.VBox([self.scaled_checkbox, self.seed_input])])
        self.widget = W.VBox([controls, self.image, self.readout])
        for w in (self.d_k_slider, self.magnitude_slider, self.scaled_checkbox, self.seed_input):
            w.observe(self._on_change, names="value")
        self.update()

    def _on_change(self, _change) -> None:
        self.update()

    def update(self) -> SaturationView:
        """Recompute from the current control values and redraw; return the view."""
        self.view = compute(int(self.d_k_slider.value), float(self.magnitude_slider.value),
                            bool(self.scaled_checkbox.value), int(self.seed_input.value), self.T)
        self.image.value = self.figure.render(self.view)
        v = self.view
        self.readout.value = (
            f"<tt>softmax input: {'q·k / √d_k' if v.scaled else 'raw q·k'} &times; {v.magnitude:.2f}"
            f" (theoretical std {v.score_std:.2f}) &nbsp;|&nbsp; largest weight <b>{v.max_weight:.4f}</b>"
            f" &nbsp;|&nbsp; entropy <b>{v.entropy:.3f}</b> nats (uniform: {math.log(v.T):.3f})"
            f" &nbsp;|&nbsp; Jacobian Frobenius norm <b>{v.jacobian_norm:.2e}</b></tt>"
        )
        return self.view

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def saturation_explorer(d_k: int = 64, magnitude: float = 1.0, scaled: bool = False, seed: int = 0,
                        T: int = DEFAULT_T) -> SaturationExplorer:
    """Build the live softmax-saturation explorer (display the returned object).

    Parameters are the initial control values; see :class:`SaturationExplorer`.
    """
    return SaturationExplorer(d_k=d_k, magnitude=magnitude, scaled=scaled, seed=seed, T=T)


def small_multiples(d_ks=(16, 64, 256, 1024), T: int = DEFAULT_T, seed: int = 0, magnitude: float = 1.0):
    """Static grid of the explorer's weight panel: rows unscaled/scaled, one column per d_k.

    Each panel shows the softmax weights of the same sample :func:`compute`
    would draw; its title gives the spread (standard deviation) of the 16
    scores fed to softmax, the largest weight and ``||J||_F``.

    Parameters
    ----------
    d_ks : sequence of int
        One column per value.
    T, seed, magnitude
        As in :func:`compute`.

    Returns
    -------
    matplotlib.figure.Figure
        A pyplot figure (2 x len(d_ks) axes); call ``plt.show()`` to display it.
    """
    import matplotlib.pyplot as plt

    d_ks = [int(d) for d in d_ks]
    if not d_ks:
        raise ValueError("d_ks must list at least one d_k.")
    fig, axes = plt.subplots(2, len(d_ks), figsize=(2.3 * len(d_ks), 4.8), sharex=True, sharey=True, squeeze=False)
    x = np.arange(1, T + 1)
    for col, d_k in enumerate(d_ks):
        for row, scaled in enumerate((False, True)):
            v = compute(d_k, magnitude, scaled, seed, T)
            ax = axes[row, col]
            colors = [_TOP if k == v.argmax else _BAR for k in range(T)]
            ax.bar(x, v.weights, color=colors)
            ax.axhline(1.0 / T, color="0.5", lw=0.8, ls="--")
            ax.set_ylim(0, 1.05)
            # readouts in the title, so they never hide a bar
            head = f"d_k = {d_k}\n" if row == 0 else ""
            ax.set_title(f"{head}score std {np.std(v.scores):.1f}\nmax {v.max_weight:.3f}, ||J|| {v.jacobian_norm:.1e}",
                         fontsize=8)
            if col == 0:
                ax.set_ylabel("unscaled\nweight" if row == 0 else "scaled by 1/sqrt(d_k)\nweight", fontsize=9)
            if row == 1:
                ax.set_xlabel("key j", fontsize=9)
            ax.tick_params(labelsize=7)
    fig.suptitle(f"softmax weights of one query over {T} keys (seed {seed}); orange = largest", fontsize=10)
    fig.tight_layout()
    return fig
