"""Masks (chapter 2.10).

    allowed = tril(ones((T, T), dtype=bool))     # token i may see tokens 0..i (itself included)
    M = where(allowed, 0, -inf)                  # the additive form, added to the scaled scores

An *additive* mask M is added to the scaled scores before softmax: 0 keeps a score,
-inf removes it (exp(-inf) = 0). A *boolean* mask says the same with True = "may attend".
"""

from __future__ import annotations

import numpy as np

from .._validate import check_bool_array, check_flag, check_float_dtype, check_int

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
    dtype : numpy floating dtype
        Dtype of the additive mask (ignored when ``boolean=True``).

    Returns
    -------
    numpy.ndarray, shape (T, T)
    """
    allowed = np.tril(np.ones((check_int("T", T, 1),) * 2, dtype=bool))
    return allowed if check_flag("boolean", boolean) else additive_from_boolean(allowed, dtype)


def additive_from_boolean(allowed, dtype=np.float64) -> np.ndarray:
    """Turn a boolean mask (True = may attend) into an additive one (0 / -inf).

    Parameters
    ----------
    allowed : array_like of bool, shape (..., T_q, T_k)
    dtype : numpy floating dtype
        Integer dtypes are rejected: they cannot hold -inf.

    Returns
    -------
    numpy.ndarray, shape (..., T_q, T_k)
    """
    allowed, dtype = check_bool_array("allowed", allowed), check_float_dtype("dtype", dtype)
    return np.where(allowed, 0.0, -np.inf).astype(dtype)
