"""Input checking shared by every helper.

Every public helper turns its array arguments into numpy arrays through these
functions, so a learner who passes the wrong thing gets one kind of message:
it names the argument, the shape it expected and the shape it got.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "as_real_array",
    "check_finite",
    "describe",
    "check_same_leading",
    "check_real",
    "check_positive_int",
    "check_flag",
    "check_softmax_input",
    "check_distribution_rows",
    "check_bool_array",
    "check_int_in_range",
    "check_float_dtype",
    "check_qk",
    "check_qkv",
    "check_scale",
    "check_mask",
    "check_attention_inputs",
    "check_scores_finite",
    "check_rows_alive",
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


# --- attention inputs: shared by helpers.core.scores, helpers.core.attention and helpers.core.blockwise -----------


def check_qk(Q, K) -> tuple[np.ndarray, np.ndarray]:
    """Validate queries and keys: at least 2-D, the same d_k >= 1, identical leading dimensions."""
    Q = as_real_array("Q", Q, min_ndim=2, expected="(..., T_q, d_k)")
    K = as_real_array("K", K, min_ndim=2, expected="(..., T_k, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(
            f"d_k mismatch: every query must be dotted with every key, so Q and K need the same last "
            f"dimension; got Q {tuple(Q.shape)} (d_k={Q.shape[-1]}) and K {tuple(K.shape)} (d_k={K.shape[-1]})."
        )
    if Q.shape[-1] == 0:
        raise ValueError(f"d_k must be at least 1; got Q {tuple(Q.shape)} and K {tuple(K.shape)}.")
    check_same_leading(("Q", "K"), (Q, K), keep=2)
    return Q, K


def check_qkv(Q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate Q, K, V for attention: :func:`check_qk`, plus one value row per key (T_k >= 1)."""
    Q, K = check_qk(Q, K)
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


def check_scale(scale, d_k: int) -> float:
    """``1/sqrt(d_k)`` if ``scale`` is None, else ``scale`` as a Python float (>= 0, finite).

    A plain Python float is a "weak" scalar in numpy 2: float32 scores stay float32.
    """
    if scale is None:
        return 1.0 / math.sqrt(d_k)
    return check_real("scale", scale, note=f" (default 1/sqrt(d_k) = {1 / math.sqrt(d_k):.6g})")


def check_mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    """Validate a boolean or additive mask for scores of ``shape`` (..., T_q, T_k); return it as an array.

    Boolean: True = may attend. Additive (float): 0 keeps, negative numbers damp, -inf removes.
    Integer masks are ambiguous (is 1 "keep" or "add 1"?) and rejected; so is a float mask with
    a positive entry: ``np.tril(np.ones((T, T)))`` *added* to the scores gives near-uniform weights.
    """
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
    if m.dtype != np.bool_:
        if np.isnan(m).any() or np.isposinf(m).any():
            raise ValueError(f"an additive mask must hold 0, negative numbers or -inf; got NaN or +inf ({describe(m)}).")
        if (m > 0).any():
            raise ValueError(
                f"mask is a float (additive) mask with {int((m > 0).sum())} positive entries ({describe(m)}): it is "
                "ADDED to the scores, so a 0/1 mask such as np.tril(np.ones((T, T))) gives near-uniform weights "
                "instead of hiding keys. Pass a boolean mask (True = may attend), e.g. "
                "np.tril(np.ones((T, T), dtype=bool)) or causal_mask(T, boolean=True), or an additive one (0 / -inf)."
            )
    return m


def check_attention_inputs(Q, K, V, mask=None, scale=None, *, causal=False):
    """Everything attention validates, in one call; returns ``(Q, K, V, mask, scale, causal)``.

    Q, K, V are checked by :func:`check_qkv`; float16 arrays come back as float32 (float16
    cannot hold the -1e9 of a mask, nor exp of a score of 12), so both attention paths
    compute and return float32 for float16 input. ``mask`` by :func:`check_mask` (None stays
    None), ``scale`` by :func:`check_scale` (None becomes 1/sqrt(d_k)), ``causal`` by
    :func:`check_flag`.
    """
    Q, K, V = check_qkv(Q, K, V)
    if np.result_type(Q, K, V) == np.float16:
        Q, K, V = (x.astype(np.float32) for x in (Q, K, V))
    scale = check_scale(scale, Q.shape[-1])
    causal = check_flag("causal", causal)
    if mask is not None:
        mask = check_mask(mask, Q.shape[:-2] + (Q.shape[-2], K.shape[-2]))
    return Q, K, V, mask, scale, causal


def check_scores_finite(S: np.ndarray, Q: np.ndarray, K: np.ndarray, scale: float) -> None:
    """Raise ``ValueError`` if the scores ``Q K^T * scale`` overflowed (hold inf or NaN).

    Called on the scores *before* any mask, so every non-finite entry is an overflow of
    the product, never a masked key. The message names Q, K and the scale.
    """
    if np.isfinite(S).all():
        return
    with np.errstate(over="ignore"):
        q_max, k_max = float(np.abs(Q).max()), float(np.abs(K).max())
    raise ValueError(
        f"the attention scores Q K^T * scale overflow {S.dtype} (largest finite value "
        f"{float(np.finfo(S.dtype).max):.3g}): scale = {scale:.6g}, largest |Q| entry = {q_max:.3g}, "
        f"largest |K| entry = {k_max:.3g}. Rescale Q and K (e.g. normalise their rows)"
        + (" or compute in float64." if S.dtype != np.float64 else ".")
    )


def check_rows_alive(dead: np.ndarray) -> None:
    """Raise the 'every key masked' error if any entry of the boolean ``dead`` (..., T_q) is True."""
    if not dead.any():
        return
    rows = [tuple(int(i) for i in idx) for idx in np.argwhere(dead)[:5]]
    raise ValueError(
        f"the mask removes every key for {int(dead.sum())} query row(s) (first at index {rows}); softmax "
        "of an all -inf row is 0/0 = NaN. Let each query attend to at least one key (for padding, "
        "let padded queries attend to themselves and ignore their outputs)."
    )


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


def check_softmax_input(x, axis: int) -> np.ndarray:
    """Validate the scores ``x`` of a softmax along ``axis``; return them as a float array.

    ``-inf`` is allowed (weight exactly 0: that is how an additive mask works); NaN, ``+inf``,
    a 0-d array, an out-of-range or empty axis, and a slice that is all ``-inf`` (nothing
    to normalise) are rejected with a ``ValueError`` naming ``x``.
    """
    arr = as_real_array("x", x, allow_nonfinite=True)
    if arr.ndim == 0:
        raise ValueError(f"softmax needs at least a 1-D array of scores; got a scalar ({describe(arr)}).")
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral) or not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis={axis!r} is out of range for x with {describe(arr)}.")
    if arr.shape[axis] == 0:
        raise ValueError(f"softmax over an empty axis is undefined; x has {describe(arr)}, axis={axis}.")
    if np.isnan(arr).any():
        raise ValueError(f"x contains NaN ({describe(arr)}); softmax of NaN is undefined.")
    if np.isposinf(arr).any():
        raise ValueError(f"x contains +inf ({describe(arr)}); softmax of +inf is undefined.")
    if np.isneginf(arr).all(axis=axis).any():
        raise ValueError(
            f"every entry of some slice along axis {axis} is -inf (x has {describe(arr)}): "
            "all keys are masked, so there is nothing to normalise."
        )
    return arr
