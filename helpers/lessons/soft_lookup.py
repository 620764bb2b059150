"""Attention as a soft, content-based lookup (chapter 2.2).

A hard lookup (a Python dict) returns the one value whose key matches. Written
with weights, it puts weight 1 on that value and 0 on every other. A *soft*
lookup gives every key a weight from its similarity to the query,

    alpha = softmax(K q / temperature),      output = sum_i alpha_i v_i,

so the output is a smooth (differentiable) function of q. As temperature -> 0
the weights become one-hot on the best-matching key: the hard lookup again.

Shapes: q (d_k,), K (n, d_k), V (n, d_v) or (n,) for scalar values.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import as_real_array, check_real, describe
from ..core.softmax import softmax, softmax_jacobian

__all__ = ["LookupResult", "hard_lookup", "soft_lookup", "soft_lookup_jacobian", "ratio_weights"]


class LookupResult(NamedTuple):
    """What a lookup returns; unpacks as ``output, weights = ...``.

    Attributes
    ----------
    output : numpy.ndarray, shape (d_v,) (or () for scalar values)
        ``sum_i weights[i] * V[i]``.
    weights : numpy.ndarray, shape (n,)
        Non-negative, summing to 1.
    """

    output: np.ndarray
    weights: np.ndarray


def _lookup_inputs(q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A query q (d_k,), keys K (n, d_k) and values V (n, d_v) or (n,), with n >= 1."""
    q = as_real_array("q", q, ndim=1, expected="(d_k,)")
    K = as_real_array("K", K, ndim=2, expected="(n, d_k)")
    V = as_real_array("V", V, min_ndim=1, expected="(n, d_v) or (n,)")
    if V.ndim > 2:
        raise ValueError(f"V must be (n, d_v) or (n,); got {describe(V)}.")
    if K.shape[1] != q.shape[0]:
        raise ValueError(f"d_k mismatch: the query is dotted with every key, so q and K need the same length; "
                         f"got q {tuple(q.shape)} and K {tuple(K.shape)}.")
    if K.shape[0] != V.shape[0]:
        raise ValueError(f"every key needs a value: K and V need the same number of rows; "
                         f"got K {tuple(K.shape)} and V {tuple(V.shape)}.")
    if K.shape[0] == 0:
        raise ValueError("a lookup needs at least one key/value pair; got n = 0.")
    return q, K, V


def _soft_weights(q, K, V, temperature) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Validate, then return ``K, V, t, softmax(K q / t)`` (weights of shape (n,))."""
    q, K, V = _lookup_inputs(q, K, V)
    t = check_real("temperature", temperature, 0.0, strict=True,
                   note=" (the hard lookup is the limit temperature -> 0, see hard_lookup)")
    return K, V, t, softmax((K @ q) / t)


def hard_lookup(q, K, V) -> LookupResult:
    """Return the value of the best-matching key: one-hot weights at argmax_i q . k_i.

    Parameters
    ----------
    q : array_like, shape (d_k,)
    K : array_like, shape (n, d_k)
    V : array_like, shape (n, d_v) or (n,)

    Returns
    -------
    LookupResult
        ``weights`` is one-hot (shape (n,)); ``output`` equals ``V[argmax]``.

    Notes
    -----
    On a tie the *first* best key wins (``np.argmax``). That choice is arbitrary,
    and it is why the hard lookup jumps (has no derivative) where two keys tie,
    while ``soft_lookup`` tends to the *average* of the tied values there.
    With one-hot keys and a one-hot query this is exactly a dict lookup.
    """
    q, K, V = _lookup_inputs(q, K, V)
    w = np.zeros(K.shape[0], dtype=np.float64)
    w[int(np.argmax(K @ q))] = 1.0
    return LookupResult(w @ V, w)


def soft_lookup(q, K, V, temperature: float = 1.0) -> LookupResult:
    """Similarity-weighted average of the values: softmax(K q / temperature) @ V.

    Parameters
    ----------
    q : array_like, shape (d_k,)
    K : array_like, shape (n, d_k)
    V : array_like, shape (n, d_v) or (n,)
    temperature : float, > 0
        Small -> weights concentrate on the best key (-> hard lookup);
        large -> weights tend to uniform (-> the mean of the values).

    Returns
    -------
    LookupResult
        ``output`` of shape (d_v,) (or ()), ``weights`` of shape (n,).

    Notes
    -----
    The result depends only on the set of (key, value) pairs, not their order:
    permuting the rows of K and V together permutes ``weights`` and leaves
    ``output`` unchanged (content addressing).
    """
    K, V, t, w = _soft_weights(q, K, V, temperature)
    return LookupResult(w @ V, w)


def soft_lookup_jacobian(q, K, V, temperature: float = 1.0) -> np.ndarray:
    """Analytic derivative of ``soft_lookup(q, K, V, temperature).output`` w.r.t. q.

    With s = K q / t, alpha = softmax(s) and o = V^T alpha, the chain rule gives

        d o / d q = V^T (diag(alpha) - alpha alpha^T) K / t
                  = sum_i alpha_i (v_i - o)(k_i - k_bar)^T / t,   k_bar = sum_i alpha_i k_i.

    Parameters
    ----------
    q : array_like, shape (d_k,)
    K : array_like, shape (n, d_k)
    V : array_like, shape (n, d_v) or (n,)
    temperature : float, > 0

    Returns
    -------
    numpy.ndarray, shape (d_v, d_k) (or (d_k,) for scalar values)
        ``J[a, b] = d output[a] / d q[b]``.
    """
    K, V, t, w = _soft_weights(q, K, V, temperature)
    return V.T @ softmax_jacobian(w) @ K / t


def ratio_weights(sim) -> np.ndarray:
    """The chapter's normalisation alpha_i = sim_i / sum_j sim_j.

    Parameters
    ----------
    sim : array_like, shape (n,)
        Similarities. They must be non-negative with a positive sum, otherwise
        the "weights" can be negative or the division is by zero.

    Returns
    -------
    numpy.ndarray, shape (n,)
        Non-negative weights summing to 1. ``ratio_weights(np.exp(s))`` is
        ``softmax(s)``: exponentiating first is what makes any real score usable.

    Raises
    ------
    ValueError
        If some ``sim`` is negative or they sum to 0.
    """
    s = as_real_array("sim", sim, ndim=1, expected="(n,)")
    if (s < 0).any():
        raise ValueError(f"sim_i / sum(sim) is only a distribution for non-negative sim; got min {s.min():.4g}. "
                         "Make scores positive first, e.g. exp(score) (that is softmax).")
    if s.sum() == 0:
        raise ValueError(f"sim is empty or its entries sum to 0, so sim / sum(sim) divides by zero; got {s.tolist()}.")
    return s / s.sum()
