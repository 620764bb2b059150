"""Every argument check of helpers: a few composable checks, then the formula's own compound checks.

Each public helper checks each of its inputs once, on entry. One exception type per kind of mistake:
``TypeError`` for the wrong type (a string for a number, a float for a count, an integer mask), ``ValueError``
for the right type with a wrong value or shape. Every message names the argument, what was expected and what
was received (an array's shape and dtype; anything else by what it is: None, a str). The formula's checks (Q, K,
V, mask, scale, causal in one call: :func:`check_attention_inputs`; the scores after the product and after every
mask) close the module.
"""

from __future__ import annotations

import math
import numbers
import reprlib

import numpy as np

__all__ = [
    "describe", "as_real_array", "as_int_array", "check_bool_array", "check_int", "check_real", "check_flag",
    "check_choice", "check_text", "check_labels", "check_callable", "check_float_dtype", "check_same_leading",
    "check_distribution_rows", "check_qk", "check_mask", "check_attention_inputs", "check_scores_finite", "check_rows_alive",
    "check_softmax_input", "check_projections", "check_additive_inputs", "check_head_split", "check_head_widths",
]


def describe(x: np.ndarray) -> str:
    """Return a short ``shape (..), dtype ..`` description of an array."""
    return f"shape {tuple(x.shape)}, dtype {x.dtype}"


def _received(x, arr: np.ndarray) -> str:
    """What was passed, as a novice knows it: "a str ('x')", "None", "a list holding str"; an array by shape and dtype."""
    if isinstance(x, np.ndarray) or x is None:
        return "None" if x is None else f"an array with {describe(arr)}"
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} holding {' and '.join(sorted({type(e).__name__ for e in np.ravel(np.array(x, object))}))}"
    return f"a {type(x).__name__} ({reprlib.repr(x)})"


# ---- arrays --------------------------------------------------------------------------------------------

def _check_dims(name, arr, ndim, min_ndim, shape, expected, note) -> None:
    """``ndim`` (an int or a tuple of allowed ints), ``min_ndim`` and the ``shape`` pattern: each entry an
    int (that length), None (any) or a str (a symbol: equal lengths wherever it repeats, e.g. ("T", "T"))."""
    want = f" of shape {expected}" if expected else ""
    if shape is not None and ndim is None:
        ndim = len(shape)
    if ndim is not None and arr.ndim not in np.atleast_1d(ndim):
        words = " or ".join(f"{n}-D" for n in np.atleast_1d(ndim))
        raise ValueError(f"{name} must be {words}{want}{note}; got {arr.ndim}-D ({describe(arr)}).")
    if min_ndim is not None and arr.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions{want}; got {arr.ndim}-D ({describe(arr)}).")
    if shape is None:
        return
    seen = {}
    ok = all(n == s if isinstance(s, int) else s is None or seen.setdefault(s, n) == n for n, s in zip(arr.shape, shape))
    if not ok:
        words = expected.strip("()").rstrip(",").split(", ") if expected else []
        words = words if len(words) == len(shape) else ["*"] * len(shape)
        parts = [str(s) if isinstance(s, (int, str)) else w for s, w in zip(shape, words)]
        pattern = f"({parts[0]},)" if len(parts) == 1 else f"({', '.join(parts)})"
        same = f"{expected} = " if expected and expected != pattern else ""
        raise ValueError(f"{name} must have shape {same}{pattern}{note}; got {describe(arr)}.")


def as_real_array(name: str, x, *, ndim=None, min_ndim: int | None = None, shape: tuple | None = None,
                  expected: str = "", note: str = "", nonnegative: bool = False, allow_nonfinite: bool = False):
    """``x`` as a real floating numpy array: ``TypeError`` if it is not real numbers (strings, objects, booleans,
    complex), ``ValueError`` for wrong dimensions (:func:`_check_dims`), NaN or inf (unless ``allow_nonfinite``),
    negative entries (if ``nonnegative``). ``expected`` is the shape in words (``"(..., T_q, d_k)"``), ``note``
    a reason; both go into messages. float16/32/64 keep their dtype; integers become float64."""
    want = f" of shape {expected}" if expected else ""
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists, for example
        raise TypeError(f"{name} must be a numeric array{want}; could not convert it ({exc}).") from None
    if arr.dtype == np.bool_:
        raise TypeError(f"{name} must be a real-valued numeric array{want}, got a boolean array ({describe(arr)}). "
                        "Did you pass a mask where a matrix belongs?")
    if np.issubdtype(arr.dtype, np.integer):
        arr = arr.astype(np.float64)
    elif np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"{name} must be real-valued{want}, got a complex array ({describe(arr)}).")
    elif not np.issubdtype(arr.dtype, np.floating):
        raise TypeError(f"{name} must be a numeric array{want}; got {_received(x, arr)}.")
    _check_dims(name, arr, ndim, min_ndim, shape, expected, note)
    if not allow_nonfinite and arr.size and not np.all(np.isfinite(arr)):
        first = tuple(int(i) for i in np.argwhere(~np.isfinite(arr))[0])
        raise ValueError(f"{name} contains {int(np.isnan(arr).sum())} NaN and {int(np.isinf(arr).sum())} inf value(s) "
                         f"({describe(arr)}); the first is at index {first}. Attention needs finite inputs.")
    if nonnegative and (arr < 0).any():
        raise ValueError(f"{name} must be >= 0{note}; got a minimum of {float(arr.min()):.4g} ({describe(arr)}).")
    return arr


def as_int_array(name: str, x, *, ndim=None, shape: tuple | None = None, low: int | None = None,
                 high: int | None = None, expected: str = "", note: str = "") -> np.ndarray:
    """``x`` as an integer numpy array (``TypeError`` otherwise) with entries in ``[low, high)`` and the
    dimensions asked for (``ValueError`` otherwise); booleans are not integers here."""
    arr = np.asarray(x)
    if arr.dtype == np.bool_ or not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must be an integer array{f' of shape {expected}' if expected else ''}{note}; "
                        f"got {_received(x, arr)}.")
    _check_dims(name, arr, ndim, None, shape, expected, note)
    if arr.size and ((low is not None and arr.min() < low) or (high is not None and arr.max() >= high)):
        raise ValueError(f"{name} must hold integers in [{low}, {high}){note}; got min {arr.min()}, max {arr.max()}.")
    return arr


def check_bool_array(name: str, x) -> np.ndarray:
    """Return ``x`` as a numpy array if its dtype is bool (a boolean mask), else raise ``TypeError``."""
    arr = np.asarray(x)
    if arr.dtype != np.bool_:
        raise TypeError(f"{name} must be a boolean array (True = may attend); got {_received(x, arr)}.")
    return arr


# ---- numbers, flags, choices, text, functions ----------------------------------------------------------

def check_int(name: str, value, low: int | None = None, high: int | None = None, *, note: str = "") -> int:
    """``value`` as int if it is an integer (not a bool: ``TypeError``) with ``low <= value <= high``."""
    words = f"an integer {low}..{high}" if high is not None else {
        0: "a non-negative integer", 1: "a positive integer", None: "an integer"}.get(low, f"an integer >= {low}")
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {words}{note}; got {value!r} (type {type(value).__name__}).")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be {words}{note}; got {value}.")
    return int(value)


def check_real(name: str, value, low: float | None = None, high: float | None = None, *, strict: bool = False,
               note: str = "") -> float:
    """``value`` as a Python float (a "weak" scalar in numpy 2: float32 arrays times it stay float32) if it is a
    finite real number (not a bool: ``TypeError``) with ``low <= value <= high`` (``low < value`` if ``strict``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {value!r} (type {type(value).__name__}).")
    v = float(value)
    words = (f" and in [{low:g}, {high:g}]" if high is not None else
             "" if low is None else f" and {'>' if strict else '>='} {low:g}")
    if (not math.isfinite(v) or (low is not None and (v <= low if strict else v < low))
            or (high is not None and v > high)):
        raise ValueError(f"{name} must be finite{words}{note}; got {v}.")
    return v


def check_flag(name: str, value) -> bool:
    """``value`` as a bool if it is True/False (or a numpy bool): ``causal="yes"`` or ``1`` would silently mean True."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {value!r} (type {type(value).__name__}).")
    return bool(value)


def check_choice(name: str, value, choices: tuple, *, note: str = ""):
    """``value`` if it is one of ``choices``; a non-string where the choices are strings is a ``TypeError``."""
    if value in choices and not isinstance(value, bool):
        return value
    wrong_type = all(isinstance(c, str) for c in choices) and not isinstance(value, str)
    raise (TypeError if wrong_type else ValueError)(f"{name} must be one of {choices}{note}; got {value!r}.")


def check_text(name: str, value, *, nonempty: bool = False) -> str:
    """``value`` if it is a ``str`` (``TypeError`` otherwise) and, if ``nonempty``, holds more than spaces."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str; got {type(value).__name__} {value!r}.")
    if nonempty and not value.strip():
        raise ValueError(f"{name} must be a non-empty string; got {value!r}.")
    return value


def check_labels(name: str, labels, n: int, each: str) -> list[str]:
    """``labels`` (an iterable, not one str) as a list of ``n`` strings; ``each`` names them: "one label per row"."""
    if isinstance(labels, str) or not np.iterable(labels):
        raise TypeError(f"{name} must be a list of {n} labels, {each}; got {type(labels).__name__}.")
    labels = [str(s) for s in labels]
    if len(labels) != n:
        raise ValueError(f"{name} must have {each} ({n}); got {len(labels)}.")
    return labels


def check_callable(name: str, value, what: str):
    """Return ``value`` if it is callable, else raise ``TypeError`` "<name> must be <what>; got <type>."."""
    if not callable(value):
        raise TypeError(f"{name} must be {what}; got {type(value).__name__}.")
    return value


def check_float_dtype(name: str, dtype, *, why: str = "an additive mask holds -inf") -> np.dtype:
    """Return ``np.dtype(dtype)`` if it is a floating dtype, else raise ``TypeError`` (``why`` in the message)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{name} must be a numpy floating dtype; got {dtype!r}.") from None
    if not np.issubdtype(dt, np.floating):
        raise TypeError(f"{name} must be a floating dtype ({why}); got {dt}.")
    return dt


# ---- relations between arrays --------------------------------------------------------------------------

def check_same_leading(names: tuple[str, ...], arrays: tuple[np.ndarray, ...], keep: int) -> tuple[int, ...]:
    """The leading (batch) shape all ``arrays`` share (all but their last ``keep`` axes); nothing is broadcast."""
    leads = [a.shape[:-keep] for a in arrays]
    if any(lead != leads[0] for lead in leads[1:]):
        got = ", ".join(f"{n} {tuple(a.shape)}" for n, a in zip(names, arrays))
        raise ValueError(f"leading (batch) dimensions must match exactly and are never broadcast; got {got}.")
    return leads[0]


def check_distribution_rows(name: str, arr: np.ndarray, *, tol: float = 1e-6, hint: str = "") -> np.ndarray:
    """Raise ``ValueError`` unless every row (last axis) of ``arr`` is non-negative and sums to 1 within ``tol``
    (a softmax output, an attention matrix); ``hint`` ends the message ("Pass softmax(scores), ...")."""
    if arr.shape[-1:] == (0,) or (arr < 0).any() or not np.allclose(arr.sum(axis=-1), 1.0, rtol=tol, atol=tol):
        sums = np.round(arr.sum(axis=-1), 6).ravel()[:4].tolist()
        raise ValueError(
            f"{name} must be weights (non-negative, each row summing to 1); got {describe(arr)} "
            f"with row sums {sums}{'...' if arr[..., 0].size > 4 else ''}. {hint}".rstrip()
        )
    return arr


# ---- the formula's inputs (helpers.core) ---------------------------------------------------------------

def check_qk(Q, K) -> tuple[np.ndarray, np.ndarray]:
    """Validate queries and keys: at least 2-D, the same d_k >= 1, identical leading dimensions."""
    Q = as_real_array("Q", Q, min_ndim=2, expected="(..., T_q, d_k)")
    K = as_real_array("K", K, min_ndim=2, expected="(..., T_k, d_k)")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"d_k mismatch: every query must be dotted with every key, so Q and K need the same last "
                         f"dimension; got Q {tuple(Q.shape)} (d_k={Q.shape[-1]}) and K {tuple(K.shape)} (d_k={K.shape[-1]}).")
    if Q.shape[-1] == 0:
        raise ValueError(f"d_k must be at least 1; got Q {tuple(Q.shape)} and K {tuple(K.shape)}.")
    check_same_leading(("Q", "K"), (Q, K), keep=2)
    return Q, K


def check_mask(mask, shape: tuple[int, ...]) -> np.ndarray:
    """A boolean (True = may attend) or additive mask (float: 0 keeps, negative damps, -inf removes) for scores of
    ``shape`` (..., T_q, T_k), as an array. Integer masks are ambiguous ("keep" or "add 1"?); a float mask with a
    positive entry is rejected: ``np.tril(np.ones((T, T)))`` *added* to the scores gives near-uniform weights."""
    m = np.asarray(mask)
    tq, tk = shape[-2:]
    if m.dtype != np.bool_:
        if np.issubdtype(m.dtype, np.integer):
            raise TypeError(f"mask has integer dtype {m.dtype} ({describe(m)}), which is ambiguous. Use a boolean mask "
                            "(True = may attend) or a float additive mask (0 keeps, -inf removes).")
        if not np.issubdtype(m.dtype, np.floating):
            raise TypeError(f"mask must be boolean or float (additive); got {describe(m)}.")
    if m.ndim < 2 or m.shape[-2:] != (tq, tk):
        raise ValueError(f"mask must have shape (T_q, T_k) = ({tq}, {tk}) or (..., {tq}, {tk}) for scores of shape "
                         f"{tuple(shape)}; got mask with {describe(m)}.")
    try:
        full = np.broadcast_shapes(m.shape, tuple(shape))
    except ValueError:
        full = None
    if full != tuple(shape):
        raise ValueError(f"mask's leading dimensions {tuple(m.shape[:-2])} do not fit the batch dimensions "
                         f"{tuple(shape[:-2])} of the scores {tuple(shape)}; nothing is broadcast beyond that.")
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

    Q and K by :func:`check_qk`, V (..., T_k, d_v) with one value row per key (T_k >= 1); float16 arrays
    come back as float32 (float16 cannot hold the -1e9 of a mask, nor exp of a score of 12), so both
    attention paths compute and return float32 for float16 input. ``mask`` by :func:`check_mask` (None
    stays None), ``scale`` a finite real >= 0 (None becomes 1/sqrt(d_k)), ``causal`` a flag.
    """
    Q, K = check_qk(Q, K)
    V = as_real_array("V", V, min_ndim=2, expected="(..., T_k, d_v)")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(f"T_k mismatch: every key needs a value, so K and V need the same number of rows; "
                         f"got K {tuple(K.shape)} (T_k={K.shape[-2]}) and V {tuple(V.shape)} (T_k={V.shape[-2]}).")
    check_same_leading(("Q", "K", "V"), (Q, K, V), keep=2)
    if K.shape[-2] == 0:
        raise ValueError(f"attention needs at least one key; got K {tuple(K.shape)}.")
    if np.result_type(Q, K, V) == np.float16:
        Q, K, V = (x.astype(np.float32) for x in (Q, K, V))
    d_k = Q.shape[-1]
    scale = 1.0 / math.sqrt(d_k) if scale is None else check_real(
        "scale", scale, 0.0, note=f" (default 1/sqrt(d_k) = {1 / math.sqrt(d_k):.6g})")
    causal = check_flag("causal", causal)
    if mask is not None:
        mask = check_mask(mask, Q.shape[:-2] + (Q.shape[-2], K.shape[-2]))
    return Q, K, V, mask, scale, causal


def check_scores_finite(S: np.ndarray, Q: np.ndarray, K: np.ndarray, scale: float) -> None:
    """Raise ``ValueError`` naming Q, K and the scale if the scores ``Q K^T * scale`` overflowed (hold inf or NaN);
    called *before* any mask, so a non-finite entry is an overflow of the product, never a masked key."""
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
    n, found = int(dead.sum()), np.argwhere(dead)[:5]
    at = ", ".join(str(int(i[0]) if dead.ndim == 1 else tuple(int(j) for j in i)) for i in found) + (", ..." if n > 5 else "")
    raise ValueError(f"the mask removes every key for {n} query row{'s' * (n > 1)} ("    # leading indices, then the row
                     + (f"row{'s' * (n > 1)} {at}" if dead.ndim == 1 else f"at (batch..., row) {at}") + "); softmax "
                     "of an all -inf row is 0/0 = NaN. Let each query attend to at least one key (for padding, "
                     "let padded queries attend to themselves and ignore their outputs).")


def check_softmax_input(x, axis: int) -> np.ndarray:
    """The scores ``x`` of a softmax along ``axis`` as a float array. ``-inf`` is allowed (weight 0: an additive
    mask); NaN, ``+inf``, a 0-d array, an out-of-range or empty axis and an all ``-inf`` slice are not."""
    arr = as_real_array("x", x, allow_nonfinite=True)
    if arr.ndim == 0:
        raise ValueError(f"softmax needs at least a 1-D array of scores; got a scalar ({describe(arr)}).")
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f"axis must be an integer; got {axis!r} (type {type(axis).__name__}).")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"axis={axis!r} is out of range for x with {describe(arr)}.")
    if arr.shape[axis] == 0:
        raise ValueError(f"softmax over an empty axis is undefined; x has {describe(arr)}, axis={axis}.")
    if np.isnan(arr).any() or np.isposinf(arr).any():
        what = "NaN" if np.isnan(arr).any() else "+inf"
        raise ValueError(f"x contains {what} ({describe(arr)}); softmax of {what} is undefined.")
    if np.isneginf(arr).all(axis=axis).any():
        raise ValueError(f"every entry of some slice along axis {axis} is -inf (x has {describe(arr)}): "
                         "all keys are masked, so there is nothing to normalise.")
    return arr


def check_projections(X, W_Q, W_K, W_V):
    """Validate X (..., T, d_model) and W_Q, W_K (d_model, d_k), W_V (d_model, d_v); return them as arrays."""
    X = as_real_array("X", X, min_ndim=2, expected="(..., T, d_model)")
    W = {}
    for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        W[name] = as_real_array(name, w, ndim=2, expected="(d_model, d_out)")
        if W[name].shape[0] != X.shape[-1]:
            raise ValueError(f"{name} must have d_model={X.shape[-1]} rows to multiply X ({describe(X)}); "
                             f"got {name} with {describe(W[name])}.")
    if W["W_Q"].shape[1] != W["W_K"].shape[1]:
        raise ValueError(f"W_Q and W_K must have the same number of columns d_k (scores are q . k); "
                         f"got W_Q {tuple(W['W_Q'].shape)} and W_K {tuple(W['W_K'].shape)}.")
    return X, W["W_Q"], W["W_K"], W["W_V"]


def check_additive_inputs(Q, K, W_q, W_k, w):
    """Validate the inputs of additive (Bahdanau) scores; return them as arrays."""
    Q = as_real_array("Q", Q, min_ndim=2, expected="(..., T_q, d_q)")
    K = as_real_array("K", K, min_ndim=2, expected="(..., T_k, d_k)")
    check_same_leading(("Q", "K"), (Q, K), keep=2)
    W_q = as_real_array("W_q", W_q, ndim=2, expected="(d_q, d_h)")
    W_k = as_real_array("W_k", W_k, ndim=2, expected="(d_k, d_h)")
    w = as_real_array("w", w, ndim=1, expected="(d_h,)")
    if W_q.shape[0] != Q.shape[-1]:
        raise ValueError(f"W_q must have d_q={Q.shape[-1]} rows to match Q ({describe(Q)}); got W_q {tuple(W_q.shape)}.")
    if W_k.shape[0] != K.shape[-1]:
        raise ValueError(f"W_k must have d_k={K.shape[-1]} rows to match K ({describe(K)}); got W_k {tuple(W_k.shape)}.")
    if not W_q.shape[1] == W_k.shape[1] == w.shape[0]:
        raise ValueError(f"W_q, W_k and w must share the hidden width d_h; got W_q {tuple(W_q.shape)}, "
                         f"W_k {tuple(W_k.shape)}, w {tuple(w.shape)}.")
    return Q, K, W_q, W_k, w


def check_head_split(Y, n_heads) -> tuple[np.ndarray, int]:
    """Validate ``Y`` (..., T, h*d_head) and ``n_heads`` (which must divide the last axis)."""
    h = check_int("n_heads", n_heads, 1)
    Y = as_real_array("Y", Y, min_ndim=2, expected="(..., T, h*d_head)")
    if Y.shape[-1] % h:
        raise ValueError(f"the last axis of Y ({Y.shape[-1]}) must be divisible by n_heads={h} so every head gets "
                         f"d_head = width / n_heads columns; got Y with {describe(Y)}.")
    return Y, h


def check_head_widths(Q: np.ndarray, V: np.ndarray, W_O, h: int) -> np.ndarray:
    """Check that ``h`` heads divide the projected widths of Q and V and that W_O fits; return W_O."""
    for name, width in (("W_Q/W_K", Q.shape[-1]), ("W_V", V.shape[-1])):
        if width % h:
            raise ValueError(f"{name} has {width} columns, which n_heads={h} does not divide; each head needs an "
                             f"equal slice (d_head = columns / n_heads).")
    W_O = as_real_array("W_O", W_O, ndim=2, expected="(h*d_v, d_out)")
    if W_O.shape[0] != V.shape[-1]:
        raise ValueError(f"W_O must have h*d_v = {V.shape[-1]} rows (the width of the concatenated heads, from W_V); "
                         f"got W_O with {describe(W_O)}.")
    return W_O
