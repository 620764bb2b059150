"""Several heads on split subspaces: a shape-level preview of multi-head attention (chapter 2.11).

The single-head formula of chapter 2 is run ``h`` times in parallel, each time on
its own slice of the projected width, and the results are concatenated:

    Q = X W_Q                      (T, h*d_k)  --split_heads-->  (h, T, d_k)
    K = X W_K                      (T, h*d_k)  --split_heads-->  (h, T, d_k)
    V = X W_V                      (T, h*d_v)  --split_heads-->  (h, T, d_v)
    head_i = softmax(Q_i K_i^T / sqrt(d_k)) V_i                  (h, T, d_v)   one batched call
    concat = merge_heads(heads)                                  (T, h*d_v)
    output = concat W_O                                          (T, d_out)

Head ``i`` owns columns ``i*d_head : (i+1)*d_head`` of the projected width. Every
head is exactly :func:`helpers.scaled_dot_product_attention`; nothing here changes
the chapter's formula. Chapter 3 of the book explains *why* one uses several heads.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_real_array, check_head_split, check_head_widths, check_int
from .attention import AttentionResult, scaled_dot_product_attention
from .projections import project_qkv

__all__ = ["split_heads", "merge_heads", "multi_head_self_attention"]


def split_heads(Y, n_heads: int) -> np.ndarray:
    """Cut the last axis into ``n_heads`` equal slices and move the head axis in front of T.

    Parameters
    ----------
    Y : array_like, shape (..., T, h * d_head)
        Projected queries, keys or values; the last axis is the concatenation of
        the heads' slices (head i owns columns ``i*d_head : (i+1)*d_head``).
    n_heads : int
        h, the number of heads; must divide ``Y.shape[-1]``.

    Returns
    -------
    numpy.ndarray, shape (..., h, T, d_head)
        ``out[..., i, t, :] == Y[..., t, i*d_head:(i+1)*d_head]``.

    Raises
    ------
    TypeError
        If ``n_heads`` is not an integer or ``Y`` is not a real array.
    ValueError
        If ``Y`` is not at least 2-D, or its last axis is not divisible by ``n_heads``.
    """
    Y, h = check_head_split(Y, n_heads)
    return _split(Y, h)


def merge_heads(Z) -> np.ndarray:
    """Inverse of :func:`split_heads`: concatenate the heads along the last axis.

    Parameters
    ----------
    Z : array_like, shape (..., h, T, d_head)

    Returns
    -------
    numpy.ndarray, shape (..., T, h * d_head)
        ``out[..., t, i*d_head:(i+1)*d_head] == Z[..., i, t, :]``.

    Raises
    ------
    ValueError
        If ``Z`` has fewer than 3 dimensions.
    """
    return _merge(as_real_array("Z", Z, min_ndim=3, expected="(..., h, T, d_head)"))


def multi_head_self_attention(X, W_Q, W_K, W_V, W_O, n_heads: int, *, causal: bool = False) -> AttentionResult:
    """Multi-head self-attention, each head being the chapter's formula on its own slice.

    Parameters
    ----------
    X : array_like, shape (..., T, d_model)
    W_Q, W_K : array_like, shape (d_model, h * d_k)
        All heads' query/key projections side by side (head i: columns i*d_k:(i+1)*d_k).
    W_V : array_like, shape (d_model, h * d_v)
    W_O : array_like, shape (h * d_v, d_out)
        Output projection applied to the concatenated heads (usually d_out = d_model).
    n_heads : int
        h; must divide the widths of W_Q/W_K and of W_V. The common choice
        d_k = d_v = d_model / h makes every weight matrix (d_model, d_model).
    causal : bool
        Apply the causal mask of 2.10 in every head.

    Returns
    -------
    AttentionResult
        ``output`` of shape (..., T, d_out) and ``weights`` of shape (..., h, T, T)
        (one attention matrix per head; every row sums to 1).

    Raises
    ------
    TypeError, ValueError
        Naming the argument and the shapes received: weights that do not fit X
        (see :func:`helpers.project_qkv`), widths not divisible by ``n_heads``, or a
        ``W_O`` whose row count is not h * d_v.
    """
    h = check_int("n_heads", n_heads, 1)
    Q, K, V = project_qkv(X, W_Q, W_K, W_V)  # checks X and the projections once
    W_O = check_head_widths(Q, V, W_O, h)
    res = scaled_dot_product_attention(_split(Q, h), _split(K, h), _split(V, h), causal=causal)
    return AttentionResult(_merge(res.output) @ W_O, res.weights)


def _split(Y: np.ndarray, h: int) -> np.ndarray:
    """(..., T, h*d_head) -> (..., h, T, d_head), for a checked Y and h."""
    return np.swapaxes(Y.reshape(*Y.shape[:-1], h, Y.shape[-1] // h), -3, -2)


def _merge(Z: np.ndarray) -> np.ndarray:
    """(..., h, T, d_head) -> (..., T, h*d_head)."""
    h, T, d_head = Z.shape[-3:]
    return np.swapaxes(Z, -3, -2).reshape(*Z.shape[:-3], T, h * d_head)
