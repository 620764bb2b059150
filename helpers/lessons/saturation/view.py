"""Softmax saturation and the sqrt(d_k) scaling (chapter 2.5): the pure numbers.

With unit-variance, independent components, ``Var(q . k) = d_k``: the raw dot
products of a query with T keys spread out like ``sqrt(d_k) * N(0, 1)``. Fed to
softmax unscaled, large ``d_k`` pushes the weights towards one-hot, and the
softmax Jacobian ``J_ij = a_i (delta_ij - a_j)`` collapses towards 0. Dividing by
``sqrt(d_k)`` brings the spread back to 1.

Everything here is arrays in, arrays out (no drawing, no widgets, no state), so
tests call it directly and the explorer (:mod:`helpers.lessons.saturation.widget`) only draws:

- :func:`fixed_draw` — one query and T keys with ``D_MAX`` components each; a
  smaller ``d_k`` uses the **first d_k components** of the same draw, so moving
  the d_k slider changes d_k and nothing else;
- :func:`saturation_state` — everything the explorer shows for one setting,
  unscaled and scaled side by side (:class:`SaturationView`);
- :func:`score_bank` / :func:`bank_summary` — the same draw for many seeds, and
  the medians and rates over them (the explorer's curves, the notebook's rates).

The Jacobian norm is the **Frobenius** norm everywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validate import as_real_array, check_flag, check_int, check_real
from ...core.softmax import entropy, softmax, softmax_jacobian

__all__ = [
    "D_K_OPTIONS", "D_MAX", "INV_TEMP_RANGE", "DEFAULT_T", "SATURATED",
    "ModeView", "SaturationView", "BankSummary",
    "jacobian_norm", "fixed_draw", "saturation_state", "score_bank", "bank_summary",
]

#: The d_k values the slider offers: 1, 2, 4, ..., 1024.
D_K_OPTIONS = tuple(2**i for i in range(11))
#: Components drawn per vector; every d_k uses a prefix of them.
D_MAX = D_K_OPTIONS[-1]
#: Smallest and largest inverse temperature 1/tau the slider offers (multiplier on the scores).
INV_TEMP_RANGE = (0.1, 10.0)
#: Default number of keys.
DEFAULT_T = 16
#: the numbers of keys a draw may have
T_RANGE = (2, 4096)
#: A row counts as saturated when its largest weight exceeds this.
SATURATED = 0.99
_MODES = ("unscaled", "scaled")


def jacobian_norm(weights) -> np.ndarray:
    """Frobenius norm of the softmax Jacobian ``J = diag(a) - a a^T``, from the weights.

    Computed in O(T) per row without building J, and accurately near one-hot
    (the largest weight is set apart, so ``1 - a_max`` is the sum of the others,
    not a difference of two numbers close to 1).

    Parameters
    ----------
    weights : array_like, shape (..., T)
        Softmax outputs (each row non-negative, summing to 1).

    Returns
    -------
    numpy.ndarray, shape (...)
        ``||J||_F``: 0 for a one-hot row, 0.5 for two keys sharing the weight equally.
    """
    a = as_real_array("weights", weights, min_ndim=1, expected="(..., T)")
    m = np.argmax(a, axis=-1)[..., None]
    a_max = np.take_along_axis(a, m, axis=-1)[..., 0]
    rest = a.copy()
    np.put_along_axis(rest, m, 0.0, axis=-1)
    r1 = rest.sum(axis=-1)                         # 1 - a_max, accurately
    r2 = (rest * rest).sum(axis=-1)
    r4 = (rest**4).sum(axis=-1)
    diag = (rest**2 * (1.0 - rest) ** 2).sum(axis=-1) + a_max**2 * r1**2
    off = 2.0 * a_max**2 * r2 + np.maximum(r2 * r2 - r4, 0.0)
    return np.sqrt(diag + off)


@dataclass(frozen=True)
class ModeView:
    """One way of feeding the scores to softmax (unscaled or divided by sqrt(d_k)).

    Attributes
    ----------
    scores : numpy.ndarray, shape (T,)
        What softmax sees: ``inv_temp * raw`` or ``inv_temp * raw / sqrt(d_k)``.
    weights : numpy.ndarray, shape (T,)
    jacobian : numpy.ndarray, shape (T, T)
        ``J_ij = a_i (delta_ij - a_j)``.
    max_weight, entropy, jacobian_norm : float
    std_theory : float
        Theoretical std of ``scores``: ``inv_temp * sqrt(d_k)`` unscaled, ``inv_temp`` scaled.
    """

    scores: np.ndarray
    weights: np.ndarray
    jacobian: np.ndarray
    max_weight: float
    entropy: float
    jacobian_norm: float
    std_theory: float


@dataclass(frozen=True)
class SaturationView:
    """Everything the explorer draws for one setting (result of :func:`saturation_state`).

    Attributes
    ----------
    d_k, inv_temp, divide, seed, T
        The settings (``divide``: the learner's choice, divide by sqrt(d_k) or not).
    raw_scores : numpy.ndarray, shape (T,)
        ``keys[:, :d_k] @ query[:d_k]``.
    unscaled, scaled : ModeView
        Both ways, always computed (the explorer shows the other one as ghost bars).
    """

    d_k: int
    inv_temp: float
    divide: bool
    seed: int
    T: int
    raw_scores: np.ndarray
    unscaled: ModeView
    scaled: ModeView

    @property
    def shown(self) -> ModeView:
        """The mode the learner chose."""
        return self.scaled if self.divide else self.unscaled

    @property
    def ghost(self) -> ModeView:
        """The other mode."""
        return self.unscaled if self.divide else self.scaled


def fixed_draw(seed: int = 0, T: int = DEFAULT_T) -> tuple[np.ndarray, np.ndarray]:
    """One query and T keys, i.i.d. N(0, 1), with ``D_MAX`` components each.

    Returns ``(query, keys)`` of shapes ``(D_MAX,)`` and ``(T, D_MAX)``; the
    sample for dimension ``d_k`` is ``query[:d_k]``, ``keys[:, :d_k]``.
    """
    return _draw(check_int("seed", seed, 0), check_int("T", T, *T_RANGE))


def _draw(seed: int, T: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fixed_draw` of an already-checked seed and T."""
    rng = np.random.default_rng(seed)
    query = rng.standard_normal(D_MAX)
    keys = rng.standard_normal((T, D_MAX))
    return query, keys


def _mode(raw: np.ndarray, factor: float, std_theory: float) -> ModeView:
    scores = factor * raw
    w = softmax(scores)
    return ModeView(scores=scores, weights=w, jacobian=softmax_jacobian(w), max_weight=float(w.max()),
                    entropy=float(entropy(w)), jacobian_norm=float(jacobian_norm(w)), std_theory=std_theory)


def saturation_state(d_k: int, inv_temp: float = 1.0, divide: bool = True, seed: int = 0, T: int = DEFAULT_T,
                     draw: tuple[np.ndarray, np.ndarray] | None = None) -> SaturationView:
    """Everything the explorer shows for one setting, unscaled and scaled.

    Parameters
    ----------
    d_k : int
        1 ... D_MAX; uses the first d_k components of :func:`fixed_draw`.
    inv_temp : float
        Inverse temperature 1/tau, a multiplier on the scores (0 ... 1000; the slider offers 0.1 ... 10).
    divide : bool
        Which mode the learner looks at (both are computed).
    seed, T
        Select the draw (ignored when ``draw`` is given).
    draw : (query, keys), optional
        A precomputed :func:`fixed_draw` (the explorer caches it per seed).

    Returns
    -------
    SaturationView
        Never contains NaN or inf; computing it raises no floating-point warning.
    """
    d_k = check_int("d_k", d_k, 1, D_MAX)
    inv_temp = check_real("inv_temp", inv_temp, 0.0, 1e3, note=" (1/tau)")
    divide = check_flag("divide", divide)
    seed = check_int("seed", seed, 0)
    query, keys = _draw(seed, check_int("T", T, *T_RANGE)) if draw is None else draw
    raw = keys[:, :d_k] @ query[:d_k]
    root = math.sqrt(d_k)
    return SaturationView(d_k=d_k, inv_temp=inv_temp, divide=divide, seed=seed, T=keys.shape[0],
                          raw_scores=raw,
                          unscaled=_mode(raw, inv_temp, inv_temp * root),
                          scaled=_mode(raw, inv_temp / root, inv_temp))


def score_bank(T: int = DEFAULT_T, n_seeds: int = 200, d_ks=D_K_OPTIONS, first_seed: int = 0) -> np.ndarray:
    """Raw scores of :func:`fixed_draw` for seeds ``first_seed ... first_seed + n_seeds - 1``.

    Returns
    -------
    numpy.ndarray, shape (n_seeds, len(d_ks), T)
        ``bank[s, i]`` is ``saturation_state(d_ks[i], seed=first_seed + s).raw_scores``.
        One seed at a time, so the temporaries stay at one draw (T * D_MAX floats).
    """
    n_seeds = check_int("n_seeds", n_seeds, 1)
    idx = np.array([check_int("d_k", d, 1, D_MAX) for d in d_ks]) - 1
    T, first_seed = check_int("T", T, *T_RANGE), check_int("first_seed", first_seed, 0)
    bank = np.empty((n_seeds, len(idx), T))
    for s in range(n_seeds):
        query, keys = _draw(first_seed + s, T)
        bank[s] = np.cumsum(keys * query, axis=-1)[:, idx].T  # prefix sums = dot products of the first d_k components
    return bank


@dataclass(frozen=True)
class BankSummary:
    """Medians and rates over the seeds of a :func:`score_bank`, per d_k and mode.

    Each attribute is a dict ``{"unscaled": array, "scaled": array}``, arrays of shape (len(d_ks),).

    Attributes
    ----------
    median_max_weight, median_jacobian_norm, frac_saturated
        Median largest weight, median ``||J||_F``, and the fraction of seeds whose
        largest weight exceeds :data:`SATURATED`.
    """

    d_ks: tuple
    inv_temp: float
    median_max_weight: dict
    median_jacobian_norm: dict
    frac_saturated: dict


def bank_summary(bank: np.ndarray, d_ks=D_K_OPTIONS, inv_temp: float = 1.0) -> BankSummary:
    """Median largest weight, median ``||J||_F`` and P(max weight > 0.99) per d_k, unscaled and scaled.

    Parameters
    ----------
    bank : numpy.ndarray, shape (n_seeds, len(d_ks), T)
        From :func:`score_bank` with the same ``d_ks``.
    inv_temp : float
        Inverse temperature 1/tau applied to both modes.
    """
    inv_temp = check_real("inv_temp", inv_temp, 0.0, 1e3, note=" (1/tau)")
    d_ks = tuple(check_int("d_k", d, 1, D_MAX) for d in d_ks)
    bank = as_real_array("bank", bank, shape=(None, len(d_ks), None), expected="(n_seeds, n_d_ks, T)")
    roots = np.sqrt(np.array(d_ks, dtype=float))[None, :, None]
    out = {"median_max_weight": {}, "median_jacobian_norm": {}, "frac_saturated": {}}
    for mode, scores in zip(_MODES, (inv_temp * bank, inv_temp * bank / roots)):
        w = softmax(scores)
        top = w.max(axis=-1)
        out["median_max_weight"][mode] = np.median(top, axis=0)
        out["median_jacobian_norm"][mode] = np.median(jacobian_norm(w), axis=0)
        out["frac_saturated"][mode] = np.mean(top > SATURATED, axis=0)
    return BankSummary(d_ks=d_ks, inv_temp=inv_temp, **out)
