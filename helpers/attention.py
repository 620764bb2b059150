"""Scaled dot-product attention (chapter 2.7), the formula of the chapter:

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k) + M) V

This is the plain, readable path that every notebook is checked against.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ._validate import as_real_array, check_real, check_same_leading, describe
from .masking import causal_mask
from .projections import project_qkv
from .scores import _check_qk
from .softmax import softmax

__all__ = ["AttentionResult", "scaled_dot_product_attention", "self_attention", "apply_mask"]


class AttentionResult(NamedTuple):
    """What attention returns; unpacks as ``output, weights = ...``.

    Attributes
    ----------
    output : numpy.ndarray, shape (..., T_q, d_v)
        Row i is the weighted sum of the value rows, sum_j A[i, j] v_j.
    weights : numpy.ndarray, shape (..., T_q, T_k)
        The attention matrix A; every row is non-negative and sums to 1.
    """

    output: np.ndarray
    weights: np.ndarray


def _check_scale(scale, d_k: int) -> float:
    if scale is None:
        return 1.0 / math.sqrt(d_k)
    # A plain Python float is a "weak" scalar in numpy 2: float32 scores stay float32.
    return check_real("scale", scale, note=f" (default 1/sqrt(d_k) = {1 / math.sqrt(d_k):.6g})")


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
        For a mask of the wrong shape, one holding NaN or +inf, or one that masks
        every key of some query (the weights of that row would be 0/0 = NaN).
    """
    m = _check_mask(mask, scores.shape)
    if m.dtype == np.bool_:
        masked = np.where(m, scores, -np.inf).astype(scores.dtype, copy=False)
    else:
        masked = scores + m.astype(scores.dtype, copy=False)
    dead = np.isneginf(masked).all(axis=-1)
    if dead.any():
        _raise_dead_rows(dead)
    return masked


def _check_mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    """Validate a boolean/additive mask for scores of ``shape`` (..., T_q, T_k); return it as an array."""
    m = np.asarray(mask)
    tq, tk = shape[-2:]
    if m.dtype != np.bool_:
        if np.issubdtype(m.dtype, np.integer):
            raise TypeError(
                f"mask has integer dtype {m.dtype} ({describe(m)}), which is ambiguous. Use a boolean mask "
                "(True = may attend) or a float additive mask (0 keeps, -inf removes)."
            )
        if not np.issubdtype(m.dtype, np.floating):
            raise TypeError(f"mask must be boolean or float (additive); got {describe(m)}.")
    if m.ndim < 2 or m.shape[-2:] != (tq, tk):
        raise ValueError(
            f"mask must have shape (T_q, T_k) = ({tq}, {tk}) or (..., {tq}, {tk}) for scores of shape "
            f"{tuple(shape)}; got mask with {describe(m)}."
        )
    try:
        full = np.broadcast_shapes(m.shape, tuple(shape))
    except ValueError:
        full = None
    if full != tuple(shape):
        raise ValueError(
            f"mask's leading dimensions {tuple(m.shape[:-2])} do not fit the batch dimensions "
            f"{tuple(shape[:-2])} of the scores {tuple(shape)}; nothing is broadcast beyond that."
        )
    if m.dtype != np.bool_ and (np.isnan(m).any() or np.isposinf(m).any()):
        raise ValueError(f"an additive mask must hold 0, negative numbers or -inf; got NaN or +inf ({describe(m)}).")
    return m


def _raise_dead_rows(dead: np.ndarray) -> None:
    """Raise the 'every key masked' error for a boolean array ``dead`` of shape (..., T_q)."""
    rows = [tuple(int(i) for i in idx) for idx in np.argwhere(dead)[:5]]
    raise ValueError(
        f"the mask removes every key for {int(dead.sum())} query row(s) (first at index {rows}); softmax "
        "of an all -inf row is 0/0 = NaN. Let each query attend to at least one key (for padding, "
        "let padded queries attend to themselves and ignore their outputs)."
    )


def _check_qkv(Q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate Q, K, V for attention (shared with :mod:`helpers.blockwise`)."""
    Q, K = _check_qk(Q, K)
    V = as_real_array("V", V, min_ndim=2, expected="(..., T_k, d_v)")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(
            f"T_k mismatch: every key needs a value, so K and V need the same number of rows; "
            f"got K {tuple(K.shape)} (T_k={K.shape[-2]}) and V {tuple(V.shape)} (T_k={V.shape[-2]})."
        )
    check_same_leading(("Q", "K", "V"), (Q, K, V), keep=2)
    if K.shape[-2] == 0:
        raise ValueError(f"attention needs at least one key; got K {tuple(K.shape)}.")
    return Q, K, V


def scaled_dot_product_attention(Q, K, V, mask=None, scale=None) -> AttentionResult:
    """softmax(Q K^T * scale + mask) V, with the weights.

    Parameters
    ----------
    Q : array_like, shape (..., T_q, d_k)
    K : array_like, shape (..., T_k, d_k)
    V : array_like, shape (..., T_k, d_v)
        Leading (batch/head) dimensions of Q, K and V must be identical.
    mask : array_like, optional, shape (T_q, T_k) or (..., T_q, T_k)
        Boolean (True = may attend) or additive (0 / -inf), see :func:`apply_mask`.
    scale : float, optional
        Multiplier on the scores; default ``1/sqrt(d_k)``. Pass ``1.0`` for the
        unscaled variant the chapter warns about.

    Returns
    -------
    AttentionResult
        ``output`` of shape (..., T_q, d_v) and ``weights`` of shape (..., T_q, T_k).
        float32 inputs give float32 results; integer inputs give float64.

    Raises
    ------
    TypeError, ValueError
        With the argument name and the shapes received; see the module tests for
        the full list (ndim, d_k or T_k mismatch, bad mask, NaN, fully masked rows).

    Notes
    -----
    A query row whose every key is masked raises ``ValueError`` instead of
    silently returning NaN.
    """
    Q, K, V = _check_qkv(Q, K, V)
    s = _check_scale(scale, Q.shape[-1])
    scores = (Q @ np.swapaxes(K, -1, -2)) * s
    if mask is not None:
        scores = apply_mask(scores, mask)
    weights = softmax(scores, axis=-1)
    return AttentionResult(weights @ V, weights)


def self_attention(X, W_Q, W_K, W_V, *, causal: bool = False, scale=None) -> AttentionResult:
    """Project X to Q, K, V and attend: the whole chapter in one call.

    Parameters
    ----------
    X : array_like, shape (..., T, d_model)
    W_Q, W_K : array_like, shape (d_model, d_k)
    W_V : array_like, shape (d_model, d_v)
    causal : bool
        Apply the causal mask (token i sees tokens 0..i only).

    Returns
    -------
    AttentionResult
        ``output`` (..., T, d_v), ``weights`` (..., T, T).
    """
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)
    mask = causal_mask(Q.shape[-2], boolean=True) if causal else None
    return scaled_dot_product_attention(Q, K, V, mask=mask, scale=scale)
