"""Masks (chapter 2.10).

An *additive* mask M is added to the scaled scores before softmax: 0 keeps a
score, -inf removes it (exp(-inf) = 0). A *boolean* mask says the same with
True = "may attend". The causal mask lets token i see tokens 1..i only.
"""

from __future__ import annotations

import numpy as np

from ._validate import check_positive_int, describe

__all__ = ["causal_mask", "additive_from_boolean"]


def causal_mask(T: int, *, boolean: bool = False, dtype=np.float64) -> np.ndarray:
    """The causal mask of a length-T sequence.

    Parameters
    ----------
    T : int
        Sequence length (positive).
    boolean : bool
        If False (default) return the chapter's additive mask
        ``M[i, j] = 0 if j <= i else -inf``; if True return the boolean form
        ``True if j <= i`` (True = may attend).
    dtype : numpy dtype
        Floating dtype of the additive mask (ignored when ``boolean=True``).

    Returns
    -------
    numpy.ndarray, shape (T, T)
    """
    T = check_positive_int("T", T)
    allowed = np.tril(np.ones((T, T), dtype=bool))
    if boolean:
        return allowed
    if not np.issubdtype(np.dtype(dtype), np.floating):
        raise TypeError(f"dtype must be a floating dtype for an additive mask (it holds -inf); got {np.dtype(dtype)}.")
    return np.where(allowed, 0.0, -np.inf).astype(dtype)


def additive_from_boolean(allowed, dtype=np.float64) -> np.ndarray:
    """Turn a boolean mask (True = may attend) into an additive one (0 / -inf).

    Parameters
    ----------
    allowed : array_like of bool, shape (..., T_q, T_k)

    Returns
    -------
    numpy.ndarray, shape (..., T_q, T_k)
    """
    arr = np.asarray(allowed)
    if arr.dtype != np.bool_:
        raise TypeError(f"allowed must be a boolean array (True = may attend); got {describe(arr)}.")
    return np.where(arr, 0.0, -np.inf).astype(dtype)
