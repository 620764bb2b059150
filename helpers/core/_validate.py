"""The checks of the formula's inputs: every check of helpers.core, one call per public function.

Q, K, V (:func:`check_qkv`), the mask (:func:`check_mask`), the scale, the flags and the block
sizes are checked once, on entry, by :func:`check_attention_inputs`; after the product, the
scores once (:func:`check_scores_finite`) and, after masking, the rows once
(:func:`check_rows_alive`). Messages name the argument and the shapes received.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .._validate import as_real_array, check_distribution_rows, check_flag, check_positive_int, check_real, \
    check_same_leading, describe

__all__ = [
    "check_qk",
    "check_qkv",
    "check_scale",
    "check_mask",
    "check_attention_inputs",
    "check_scores_finite",
    "check_rows_alive",
    "check_softmax_input",
    "check_softmax_output",
    "check_probabilities",
    "check_projections",
    "check_additive_inputs",
    "check_head_split",
    "check_head_widths",
]


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


def check_softmax_output(p) -> np.ndarray:
    """Validate ``p`` (..., n), a softmax output: non-empty last axis, non-negative rows summing to 1."""
    arr = as_real_array("p", p, min_ndim=1, expected="(..., n)")
    if arr.shape[-1] == 0:
        raise ValueError(f"p must have at least one entry along its last axis; got {describe(arr)}.")
    return check_distribution_rows("p", arr, tol=1e-3 if arr.dtype == np.float16 else 1e-6,
                                   hint="Pass softmax(scores), not the scores.")


def check_probabilities(p) -> np.ndarray:
    """Validate ``p`` (..., n) as non-negative probabilities (for the entropy)."""
    arr = as_real_array("p", p, min_ndim=1, expected="(..., n)")
    if (arr < 0).any():
        raise ValueError(f"p must be non-negative probabilities; got a negative entry ({describe(arr)}).")
    return arr


def check_projections(X, W_Q, W_K, W_V):
    """Validate X (..., T, d_model) and W_Q, W_K (d_model, d_k), W_V (d_model, d_v); return them as arrays."""
    X = as_real_array("X", X, min_ndim=2, expected="(..., T, d_model)")
    W = {}
    for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        W[name] = as_real_array(name, w, ndim=2, expected="(d_model, d_out)")
        if W[name].shape[0] != X.shape[-1]:
            raise ValueError(
                f"{name} must have d_model={X.shape[-1]} rows to multiply X ({describe(X)}); "
                f"got {name} with {describe(W[name])}."
            )
    if W["W_Q"].shape[1] != W["W_K"].shape[1]:
        raise ValueError(
            f"W_Q and W_K must have the same number of columns d_k (scores are q . k); "
            f"got W_Q {tuple(W['W_Q'].shape)} and W_K {tuple(W['W_K'].shape)}."
        )
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
        raise ValueError(
            f"W_q, W_k and w must share the hidden width d_h; got W_q {tuple(W_q.shape)}, "
            f"W_k {tuple(W_k.shape)}, w {tuple(w.shape)}."
        )
    return Q, K, W_q, W_k, w


def check_head_split(Y, n_heads) -> tuple[np.ndarray, int]:
    """Validate ``Y`` (..., T, h*d_head) and ``n_heads`` (which must divide the last axis)."""
    h = check_positive_int("n_heads", n_heads)
    Y = as_real_array("Y", Y, min_ndim=2, expected="(..., T, h*d_head)")
    if Y.shape[-1] % h:
        raise ValueError(
            f"the last axis of Y ({Y.shape[-1]}) must be divisible by n_heads={h} so every head gets "
            f"d_head = width / n_heads columns; got Y with {describe(Y)}."
        )
    return Y, h


def check_head_widths(Q: np.ndarray, V: np.ndarray, W_O, h: int) -> np.ndarray:
    """Check that ``h`` heads divide the projected widths of Q and V and that W_O fits; return W_O."""
    for name, width in (("W_Q/W_K", Q.shape[-1]), ("W_V", V.shape[-1])):
        if width % h:
            raise ValueError(
                f"{name} has {width} columns, which n_heads={h} does not divide; each head needs an equal "
                f"slice (d_head = columns / n_heads)."
            )
    W_O = as_real_array("W_O", W_O, ndim=2, expected="(h*d_v, d_out)")
    if W_O.shape[0] != V.shape[-1]:
        raise ValueError(
            f"W_O must have h*d_v = {V.shape[-1]} rows (the width of the concatenated heads, from W_V); "
            f"got W_O with {describe(W_O)}."
        )
    return W_O
