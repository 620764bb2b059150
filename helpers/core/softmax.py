"""Softmax, its Jacobian and entropy (chapter 2.5–2.6).

softmax turns a row of real scores into non-negative weights that sum to 1:

    e = exp(s - max(s))      # alpha_i = exp(s_i) / sum_j exp(s_j); the shift changes nothing
    return e / sum(e)        # ... but keeps every exponent <= 0, so nothing overflows

and its Jacobian is d alpha_i / d s_j = alpha_i (delta_ij - alpha_j).
"""

from __future__ import annotations

import numpy as np

from .._validate import as_real_array, check_distribution_rows, check_softmax_input

__all__ = ["softmax", "softmax_jacobian", "entropy", "is_distribution", "softmax_of_checked"]


def softmax(x, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis``.

    The row maximum is subtracted before ``exp`` (softmax is unchanged by adding a
    constant to a row), so every exponent is <= 0 and nothing overflows, even for
    scores of +/-1e4 in float32.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Real scores. ``-inf`` entries are allowed and get weight exactly 0
        (that is how an additive mask works); NaN and ``+inf`` are rejected.
    axis : int
        The axis to normalise along (default: the last one, i.e. row-wise).

    Returns
    -------
    numpy.ndarray, same shape as ``x``
        Non-negative weights summing to 1 along ``axis``. float16/32/64 input keeps
        its dtype; integer input gives float64.

    Raises
    ------
    ValueError
        If ``x`` holds NaN or ``+inf``, is 0-d, ``axis`` is out of range, the axis
        has length 0, or a whole slice along ``axis`` is ``-inf`` (nothing to normalise).
    """
    return softmax_of_checked(check_softmax_input(x, axis), axis)


def softmax_of_checked(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """The softmax computation itself, for scores already checked (attention checks them once).

    Parameters
    ----------
    x : numpy.ndarray, shape (..., n)
        Real scores, ``-inf`` allowed; no NaN, no ``+inf``, no all ``-inf`` slice (not checked here).
    axis : int

    Returns
    -------
    numpy.ndarray, same shape and dtype as ``x``
    """
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))  # subtract each row's own max: exp(<= 0) <= 1
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_jacobian(p) -> np.ndarray:
    """Jacobian of softmax, given its output.

    Parameters
    ----------
    p : array_like, shape (..., n)
        A softmax output (probabilities along the last axis).

    Returns
    -------
    numpy.ndarray, shape (..., n, n)
        ``J[..., i, j] = p_i * (delta_ij - p_j) = d alpha_i / d s_j``.

    Raises
    ------
    ValueError
        If ``p`` is not a probability vector along its last axis (negative entries,
        or rows not summing to 1 within 1e-6 relative tolerance) — a common slip is
        to pass the scores instead of the weights.
    """
    arr = as_real_array("p", p, min_ndim=1, expected="(..., n)")
    check_distribution_rows("p", arr, tol=1e-3 if arr.dtype == np.float16 else 1e-6,
                            hint="Pass softmax(scores), not the scores.")
    n = arr.shape[-1]
    eye = np.eye(n, dtype=arr.dtype)
    return arr[..., :, None] * eye - arr[..., :, None] * arr[..., None, :]


def entropy(p, axis: int = -1) -> np.ndarray:
    """Shannon entropy (in nats) of probability vectors along ``axis``.

    0 for a one-hot row, ``log(n)`` for a uniform row of length n. Zero
    probabilities contribute 0 (the limit of ``p log p``), without warnings.

    Parameters
    ----------
    p : array_like, shape (..., n)
        Probabilities along ``axis``.

    Returns
    -------
    numpy.ndarray, shape (...)
        One entropy per row.
    """
    arr = as_real_array("p", p, min_ndim=1, expected="(..., n)", nonnegative=True, note=" (probabilities)")
    safe = np.where(arr > 0, arr, 1)
    return -np.sum(np.where(arr > 0, arr * np.log(safe), 0), axis=axis)


def is_distribution(weights, atol: float = 1e-6) -> bool:
    """True if every row (last axis) of ``weights`` is non-negative and sums to 1.

    The assert that every attention row must pass; it also catches softmax taken
    along the wrong axis, where shapes are identical and only the row sums differ.

    Parameters
    ----------
    weights : array_like, shape (..., T)
    atol : float
        Tolerance on each row sum and on negativity.

    Returns
    -------
    bool
        False for an empty last axis.
    """
    w = as_real_array("weights", weights, min_ndim=1, expected="(..., T)")
    if w.shape[-1] == 0:
        return False
    return bool(np.all(w >= -atol) and np.allclose(w.sum(axis=-1), 1.0, rtol=0.0, atol=atol))
