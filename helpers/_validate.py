"""Argument checks shared by every sub-package (arrays, integers, reals, flags, dtypes).

Every public helper turns its array arguments into numpy arrays through these
functions, so a learner who passes the wrong thing gets one kind of message:
it names the argument, the shape it expected and the shape it got. The checks of the
formula's own inputs (Q, K, V, mask, scale, scores) are in :mod:`helpers.core._validate`.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "describe",
    "as_real_array",
    "check_finite",
    "check_same_leading",
    "check_positive_int",
    "check_real",
    "check_flag",
    "check_bool_array",
    "check_int_in_range",
    "check_float_dtype",
    "check_distribution_rows",
    "check_callable",
    "check_str",
]


def describe(x: np.ndarray) -> str:
    """Return a short ``shape (..), dtype ..`` description of an array."""
    return f"shape {tuple(x.shape)}, dtype {x.dtype}"


def as_real_array(
    name: str,
    x,
    *,
    ndim: int | None = None,
    min_ndim: int | None = None,
    expected: str = "",
    allow_nonfinite: bool = False,
) -> np.ndarray:
    """Convert ``x`` to a real floating numpy array, or raise a clear error.

    Parameters
    ----------
    name : str
        The argument's name as the learner wrote it (``"Q"``, ``"W_K"``).
    x : array_like
        The value passed in.
    ndim, min_ndim : int, optional
        Exact or minimum number of dimensions required.
    expected : str
        The expected shape in words, e.g. ``"(..., T_q, d_k)"``; used in messages.
    allow_nonfinite : bool
        If False (default), NaN and +/-inf are rejected with a ``ValueError``.

    Returns
    -------
    numpy.ndarray
        float32/float64/float16 input keeps its dtype; integer input becomes float64.

    Raises
    ------
    TypeError
        If ``x`` is not numeric (strings, objects, booleans, complex numbers).
    ValueError
        If the number of dimensions is wrong or (by default) ``x`` holds NaN or inf.
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists, for example
        raise TypeError(f"{name} must be a numeric array {expected}; could not convert it ({exc}).") from None
    want = f" of shape {expected}" if expected else ""
    if arr.dtype == np.bool_:
        raise TypeError(
            f"{name} must be a real-valued numeric array{want}, got a boolean array ({describe(arr)}). "
            "Did you pass a mask where a matrix belongs?"
        )
    if np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
    elif np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real-valued{want}, got a complex array ({describe(arr)}).")
    elif not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(
            f"{name} must be a numeric array{want}, got dtype {arr.dtype!s} "
            f"(type {type(x).__name__}, {describe(arr)})."
        )
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D{want}; got {arr.ndim}-D ({describe(arr)}).")
    if min_ndim is not None and arr.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions{want}; got {arr.ndim}-D ({describe(arr)})."
        )
    if not allow_nonfinite:
        check_finite(name, arr)
    return arr


def check_finite(name: str, arr: np.ndarray) -> None:
    """Raise ``ValueError`` naming ``name`` if ``arr`` holds NaN or inf."""
    if arr.size and not np.all(np.isfinite(arr)):
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(np.isinf(arr).sum())
        first = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(
            f"{name} contains {n_nan} NaN and {n_inf} inf value(s) ({describe(arr)}); "
            f"the first is at index {first}. Attention needs finite inputs."
        )


def check_same_leading(names: tuple[str, ...], arrays: tuple[np.ndarray, ...], keep: int) -> tuple[int, ...]:
    """Check that arrays share their leading (batch) dimensions.

    The last ``keep`` dimensions of each array are its own; everything before
    them must be identical. Nothing is broadcast.

    Returns
    -------
    tuple of int
        The common leading shape.
    """
    leads = [a.shape[:-keep] for a in arrays]
    if any(lead != leads[0] for lead in leads[1:]):
        got = ", ".join(f"{n} {tuple(a.shape)}" for n, a in zip(names, arrays))
        raise ValueError(
            f"leading (batch) dimensions must match exactly and are never broadcast; got {got}."
        )
    return leads[0]


def check_positive_int(name: str, value) -> int:
    """Return ``value`` as int if it is a positive integer, else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {value!r} (type {type(value).__name__}).")
    if value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value}.")
    return int(value)


def check_real(name: str, value, *, low: float = 0.0, strict: bool = False, note: str = "") -> float:
    """Return ``value`` as a Python float if it is a finite real number above ``low``.

    Parameters
    ----------
    name : str
        The argument's name, used in the message.
    value : real number
        Booleans are rejected (``True`` is an int in Python, never a meaningful scale).
    low : float
        Lower bound; ``value >= low`` is required, or ``value > low`` if ``strict``.
    note : str
        Extra words appended to the ValueError message (e.g. what the default is).

    Returns
    -------
    float
        A plain Python float: a "weak" scalar in numpy 2, so multiplying a float32 array
        by it keeps float32.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r} (type {type(value).__name__}).")
    v = float(value)
    if not math.isfinite(v) or (v <= low if strict else v < low):
        raise ValueError(f"{name} must be finite and {'>' if strict else '>='} {low:g}{note}; got {v}.")
    return v


def check_flag(name: str, value) -> bool:
    """Return ``value`` as a Python bool if it is ``True``/``False`` (or a numpy bool), else raise.

    ``causal="yes"`` or ``causal=1`` would silently mean True; a flag must be a bool.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r} (type {type(value).__name__}).")
    return bool(value)


def check_bool_array(name: str, x) -> np.ndarray:
    """Return ``x`` as a numpy array if its dtype is bool (a boolean mask), else raise ``TypeError``."""
    arr = np.asarray(x)
    if arr.dtype != np.bool_:
        raise TypeError(f"{name} must be a boolean array (True = may attend); got {describe(arr)}.")
    return arr


def check_int_in_range(name: str, value, low: int, high: int, *, note: str = "") -> int:
    """Return ``value`` as int if it is an integer with ``low <= value <= high``, else raise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer {low}..{high}{note}; got {value!r} (type {type(value).__name__}).")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer {low}..{high}{note}; got {value}.")
    return int(value)


def check_float_dtype(name: str, dtype) -> np.dtype:
    """Return ``np.dtype(dtype)`` if it is a floating dtype (an additive mask holds -inf), else raise."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a numpy floating dtype; got {dtype!r}.") from None
    if not np.issubdtype(dt, np.floating):
        raise TypeError(f"{name} must be a floating dtype (an additive mask holds -inf); got {dt}.")
    return dt


def check_distribution_rows(name: str, arr: np.ndarray, *, tol: float = 1e-6, hint: str = "") -> np.ndarray:
    """Raise ``ValueError`` unless every row (last axis) of ``arr`` is non-negative and sums to 1 within ``tol``.

    The shape of a softmax output or an attention matrix; ``hint`` is appended to the message
    (e.g. "Pass softmax(scores), not the scores.").
    """
    if (arr < 0).any() or not np.allclose(arr.sum(axis=-1), 1.0, rtol=tol, atol=tol):
        sums = np.round(arr.sum(axis=-1), 6).ravel()[:4].tolist()
        raise ValueError(
            f"{name} must be weights (non-negative, each row summing to 1); got {describe(arr)} "
            f"with row sums {sums}{'...' if arr[..., 0].size > 4 else ''}. {hint}".rstrip()
        )
    return arr


def check_callable(name: str, value, what: str):
    """Return ``value`` if it is callable, else raise ``TypeError`` "<name> must be <what>; got <type>."."""
    if not callable(value):
        raise TypeError(f"{name} must be {what}; got {type(value).__name__}.")
    return value


def check_str(name: str, value) -> str:
    """Return ``value`` if it is a ``str``, else raise ``TypeError`` naming ``name`` and the type received."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str; got {type(value).__name__}.")
    return value
