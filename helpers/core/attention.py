"""Scaled dot-product attention (chapter 2.7): the formula of the chapter, in code.

    S = Q @ K.T / sqrt(d_k)        # scores: how well each query matches each key
    S = where(mask, S, -inf)       # optional: hide the keys a query may not see
    A = softmax(S)                 # weights: every row non-negative, summing to 1
    return A @ V                   # output: row i is sum_j A[i, j] v_j

:func:`scaled_dot_product_attention` below is these four lines, plus one call that checks
the inputs once (:func:`helpers._validate.check_attention_inputs`). ``block_size=...`` computes
the same formula one tile at a time (:mod:`helpers.core.blockwise`, the FlashAttention idea),
which never forms the T x T weights.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import as_real_array, check_attention_inputs, check_mask, check_rows_alive, check_scores_finite
from .blockwise import blockwise_attention
from .projections import project_qkv
from .softmax import softmax_of_checked

__all__ = ["AttentionResult", "scaled_dot_product_attention", "self_attention", "apply_mask"]


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None, *, causal=False, block_size=None):
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V, returned with the weights A.

    Parameters
    ----------
    Q : array_like, shape (..., T_q, d_k)
    K : array_like, shape (..., T_k, d_k)
    V : array_like, shape (..., T_k, d_v)
        Leading (batch/head) dimensions of Q, K and V must be identical.
    mask : array_like, optional, shape (T_q, T_k) or (..., T_q, T_k)
        Boolean (True = may attend) or additive float (0 keeps, -inf removes, negative
        numbers damp); a float mask with a positive entry is rejected. See :func:`apply_mask`.
    scale : float, optional
        Multiplier on the scores; default ``1/sqrt(d_k)``. Pass ``1.0`` for the
        unscaled variant the chapter warns about.
    causal : bool
        Query i attends to keys j <= i only (the causal mask of 2.10, top-left aligned);
        may be combined with ``mask``.
    block_size : int, optional
        If given, compute the same output one block of ``block_size`` keys at a time
        (:func:`helpers.core.blockwise.blockwise_attention`: same checks, same errors); the
        weights are then never formed and ``weights`` is None.

    Returns
    -------
    AttentionResult
        ``output`` of shape (..., T_q, d_v) and ``weights`` of shape (..., T_q, T_k).
        float32 inputs give float32 results, float64 and integers give float64, float16 is
        computed and returned in float32 (float16 cannot hold the -1e9 of a mask).

    Raises
    ------
    TypeError, ValueError
        Naming the argument and the shapes received: wrong ndim, d_k or T_k mismatch,
        NaN/inf, a bad mask, a non-bool flag, scores that overflow (naming Q, K and the
        scale), or a query whose every key is masked (instead of returning NaN).
    """
    if block_size is not None:  # the same formula, one tile at a time (it checks the inputs the same way)
        return AttentionResult(blockwise_attention(Q, K, V, mask, scale, block_size, causal=causal), None)
    Q, K, V, mask, scale, causal = check_attention_inputs(Q, K, V, mask, scale, causal=causal)

    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is reported by name just below
        S = Q @ np.swapaxes(K, -1, -2) * scale  # Q K^T / sqrt(d_k): shape (..., T_q, T_k)
    check_scores_finite(S, Q, K, scale)
    if causal:
        S = _mask_scores(S, np.tri(S.shape[-2], S.shape[-1], dtype=bool))  # query i sees keys 0..i
    if mask is not None:
        S = _mask_scores(S, mask)
    if causal or mask is not None:
        check_rows_alive(np.isneginf(S).all(axis=-1))  # once, after every mask: no row may be all -inf
    A = softmax_of_checked(S, axis=-1)  # the scores are checked: softmax need not check them again
    return AttentionResult(A @ V, A)


def self_attention(X, W_Q, W_K, W_V, *, causal: bool = False, scale=None) -> AttentionResult:
    """Project X to Q, K, V and attend: the whole chapter in one call.

    Parameters
    ----------
    X : array_like, shape (..., T, d_model)
    W_Q, W_K : array_like, shape (d_model, d_k)
    W_V : array_like, shape (d_model, d_v)
    causal : bool
        Apply the causal mask (token i sees tokens 0..i only). Must be a bool.
    scale : float, optional
        As for :func:`scaled_dot_product_attention`.

    Returns
    -------
    AttentionResult
        ``output`` (..., T, d_v), ``weights`` (..., T, T).
    """
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    return scaled_dot_product_attention(Q, K, V, scale=scale, causal=causal)


class AttentionResult(NamedTuple):
    """What attention returns; unpacks as ``output, weights = ...``.

    Attributes
    ----------
    output : numpy.ndarray, shape (..., T_q, d_v)
        Row i is the weighted sum of the value rows, sum_j A[i, j] v_j.
    weights : numpy.ndarray, shape (..., T_q, T_k), or None
        The attention matrix A; every row is non-negative and sums to 1.
        None from the blockwise path (``block_size=...``), which never forms it.
    """

    output: np.ndarray
    weights: np.ndarray | None


def apply_mask(scores: np.ndarray, mask) -> np.ndarray:
    """Apply a boolean or additive mask to a score tensor.

    Parameters
    ----------
    scores : numpy.ndarray, shape (..., T_q, T_k)
        Scaled scores.
    mask : array_like, shape (T_q, T_k) or (..., T_q, T_k)
        Boolean (True = may attend) or additive float (0 keeps, -inf removes; a
        large negative number such as -1e9 damps). The last two dimensions must
        be exactly (T_q, T_k); leading dimensions may broadcast against the batch.

    Returns
    -------
    numpy.ndarray, shape of ``scores``, dtype of ``scores``

    Raises
    ------
    TypeError
        For an integer mask (ambiguous: is 1 "keep" or "add 1"?) or a non-numeric one.
    ValueError
        For a mask of the wrong shape, one holding NaN, +inf or a positive number (a 0/1
        float mask would be *added*), or one that masks every key of some query (the
        weights of that row would be 0/0 = NaN).
    """
    scores = as_real_array("scores", scores, min_ndim=2, expected="(..., T_q, T_k)", allow_nonfinite=True)
    masked = _mask_scores(scores, check_mask(mask, scores.shape))
    check_rows_alive(np.isneginf(masked).all(axis=-1))
    return masked


def _mask_scores(scores: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``scores`` with a checked boolean (True = keep) or additive mask ``m`` applied."""
    if m.dtype == np.bool_:
        return np.where(m, scores, -np.inf).astype(scores.dtype, copy=False)
    with np.errstate(over="ignore"):  # -1e300 in float32 is -inf: still "removed"
        return scores + m.astype(scores.dtype, copy=False)
