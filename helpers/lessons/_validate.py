"""The argument checks of helpers.lessons (beyond the core formula): every check of a lesson's tools.

One validator per public call's inputs; messages name the argument and the shapes received. The
generic checks (arrays, integers, reals, flags, callables) are in :mod:`helpers._validate`, the
formula's own (Q, K, V, mask, scores) in :mod:`helpers.core._validate`, the checks of 2.5's
saturation tools in :mod:`helpers.lessons.saturation._validate`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validate import as_real_array, check_distribution_rows, check_int_in_range, check_real, check_str, describe

__all__ = [
    "check_same_shape",
    "check_vector_pair",
    "check_polar",
    "check_lookup_inputs",
    "check_temperature",
    "check_similarities",
    "check_permutation",
    "check_rnn_inputs",
    "check_convention",
    "check_score_dtype",
    "check_attention_weights",
    "check_label_count",
    "check_position",
    "check_tokens",
    "check_mix_inputs",
    "check_points",
    "check_hull_and_points",
    "check_shape_steps",
]


# ---- gradcheck (2.2, 2.5, 2.9), geometry (2.4) ------------------------------------------------------

def check_same_shape(names: tuple[str, str], arrays: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Two real arrays of one shape (nothing is broadcast), e.g. an analytic and a numerical gradient."""
    a, b = (as_real_array(n, x) for n, x in zip(names, arrays))
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have the same shape; got {names[0]} {describe(a)} and "
                         f"{names[1]} {describe(b)}.")
    return a, b


def check_vector_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Vectors ``a`` (..., d) and ``b`` (..., d): the same d >= 1, broadcastable, no zero vector."""
    a = as_real_array("a", a, min_ndim=1, expected="(..., d)")
    b = as_real_array("b", b, min_ndim=1, expected="(..., d)")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"a and b must have the same last dimension d; got a ({describe(a)}) and b ({describe(b)}).")
    if a.shape[-1] == 0:
        raise ValueError("a and b must have at least one component (d >= 1).")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"a and b must broadcast against each other; got a ({describe(a)}) and b ({describe(b)}).") from None
    na = np.linalg.norm(a, axis=-1)
    nb = np.linalg.norm(b, axis=-1)
    if np.any(na == 0) or np.any(nb == 0):
        which = "a" if np.any(na == 0) else "b"
        raise ValueError(f"{which} contains a zero vector; its direction (and so the angle) is undefined.")
    return a, b


def check_polar(length, theta) -> tuple[np.ndarray, np.ndarray]:
    """``length`` (>= 0) and ``theta`` as real arrays (they broadcast against each other)."""
    length = as_real_array("length", length, expected="scalar or (...)")
    theta = as_real_array("theta", theta, expected="scalar or (...)")
    if np.any(length < 0):
        raise ValueError(f"length must be >= 0; got a minimum of {float(length.min())}.")
    return length, theta


# ---- soft lookup (2.2) --------------------------------------------------------------------------------

def check_lookup_inputs(q, K, V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A query q (d_k,), keys K (n, d_k) and values V (n, d_v) or (n,), with n >= 1."""
    q = as_real_array("q", q, ndim=1, expected="(d_k,)")
    K = as_real_array("K", K, ndim=2, expected="(n, d_k)")
    V = as_real_array("V", V, min_ndim=1, expected="(n, d_v) or (n,)")
    if V.ndim > 2:
        raise ValueError(f"V must be (n, d_v) or (n,); got {describe(V)}.")
    if K.shape[1] != q.shape[0]:
        raise ValueError(
            f"d_k mismatch: the query is dotted with every key, so q and K need the same length; "
            f"got q {tuple(q.shape)} and K {tuple(K.shape)}."
        )
    if K.shape[0] != V.shape[0]:
        raise ValueError(
            f"every key needs a value: K and V need the same number of rows; got K {tuple(K.shape)} and V {tuple(V.shape)}."
        )
    if K.shape[0] == 0:
        raise ValueError("a lookup needs at least one key/value pair; got n = 0.")
    return q, K, V


def check_temperature(temperature) -> float:
    """The temperature of a soft lookup: a finite real > 0."""
    return check_real("temperature", temperature, strict=True,
                      note=" (the hard lookup is the limit temperature -> 0, see hard_lookup)")


def check_similarities(sim) -> np.ndarray:
    """Similarities (n,) that ``sim / sum(sim)`` turns into a distribution: n >= 1, >= 0, positive sum."""
    s = as_real_array("sim", sim, ndim=1, expected="(n,)")
    if s.size == 0:
        raise ValueError("sim is empty; need at least one similarity.")
    if (s < 0).any():
        raise ValueError(
            f"sim_i / sum(sim) is only a distribution for non-negative sim; got min {s.min():.4g}. "
            "Make scores positive first, e.g. exp(score) (that is softmax)."
        )
    if s.sum() == 0:
        raise ValueError("the similarities sum to 0, so sim / sum(sim) divides by zero.")
    return s


# ---- properties (2.9) ---------------------------------------------------------------------------------

def check_permutation(perm) -> np.ndarray:
    """``perm`` (T,) as an integer array holding each of 0..T-1 exactly once (T >= 1)."""
    p = np.asarray(perm)
    if p.dtype == np.bool_ or not np.issubdtype(p.dtype, np.integer):
        raise TypeError(f"perm must be an integer array (a permutation of 0..T-1); got {describe(p)}.")
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"perm must be a non-empty 1-D array of shape (T,); got {describe(p)}.")
    T = p.size
    if not np.array_equal(np.sort(p), np.arange(T)):
        raise ValueError(f"perm must contain each of 0..{T - 1} exactly once; got {p.tolist()}.")
    return p


def check_rnn_inputs(X, W_x, W_h, h0):
    """X (T, d_in), W_x (d_in, d_h), W_h (d_h, d_h), h0 (d_h,) or None (zeros); returns the four arrays."""
    X = as_real_array("X", X, ndim=2, expected="(T, d_in)")
    W_x = as_real_array("W_x", W_x, ndim=2, expected="(d_in, d_h)")
    W_h = as_real_array("W_h", W_h, ndim=2, expected="(d_h, d_h)")
    if W_x.shape[0] != X.shape[1]:
        raise ValueError(f"W_x must have d_in = {X.shape[1]} rows to match X {tuple(X.shape)}; got W_x {tuple(W_x.shape)}.")
    d_h = W_x.shape[1]
    if W_h.shape != (d_h, d_h):
        raise ValueError(f"W_h must have shape (d_h, d_h) = ({d_h}, {d_h}) to match W_x {tuple(W_x.shape)}; got {tuple(W_h.shape)}.")
    h = np.zeros(d_h) if h0 is None else as_real_array("h0", h0, ndim=1, expected=f"({d_h},)")
    if h.shape != (d_h,):
        raise ValueError(f"h0 must have shape ({d_h},); got {tuple(h.shape)}.")
    return X, W_x, W_h, h


# ---- cost (2.4, 2.7, 2.9) -----------------------------------------------------------------------------

def check_convention(convention, conventions: tuple[str, ...]) -> str:
    """``convention`` if it is one of ``conventions`` (the flop-counting conventions of helpers.lessons.cost)."""
    if convention not in conventions:
        raise ValueError(f"convention must be one of {conventions}; got {convention!r}.")
    return convention


def check_score_dtype(dtype) -> int:
    """Bytes per element of ``dtype`` if it is a floating dtype or ``"bfloat16"`` (2 bytes), else raise."""
    if isinstance(dtype, str) and dtype.lower() in ("bfloat16", "bf16"):
        return 2
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be a numpy floating dtype or 'bfloat16'; got {dtype!r}.") from None
    if not np.issubdtype(dt, np.floating):
        raise TypeError(f"dtype must be a floating dtype (scores are real numbers); got {dt}.")
    return dt.itemsize


# ---- causal view (2.10) -------------------------------------------------------------------------------

def check_attention_weights(weights) -> np.ndarray:
    """A non-empty square (T, T) attention matrix whose rows are distributions."""
    A = as_real_array("weights", weights, ndim=2, expected="(T, T)")
    if A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError(f"weights must be a non-empty square (T, T) attention matrix; got {describe(A)}.")
    return check_distribution_rows("weights", A)


def check_label_count(labels, T: int) -> list[str]:
    """``labels`` as a list of ``T`` strings, one per token."""
    labels = [str(s) for s in labels]
    if len(labels) != T:
        raise ValueError(f"labels must have one entry per token ({T}); got {len(labels)}.")
    return labels


def check_position(t, T: int) -> int:
    """``t`` as int if it is a position 1..T (1-based, as in the book)."""
    return check_int_in_range("t", t, 1, T, note=f" (a position 1..T = 1..{T}, 1-based as in the book)")


# ---- contextual (2.1) ---------------------------------------------------------------------------------

def check_tokens(tokens, vocab: Mapping) -> list[np.ndarray]:
    """The vectors ``vocab[token.lower()]`` of a sequence of word tokens, all of one length d.

    Each distinct word's vector is checked once, however often the word occurs.
    """
    if isinstance(tokens, str):
        raise TypeError("tokens must be a sequence of words, not one string; use tokenize(sentence) first.")
    rows, seen = [], {}
    for t, tok in enumerate(tokens):
        check_str(f"tokens[{t}]", tok)
        key = tok.lower()
        if key not in vocab:
            raise ValueError(f"token {tok!r} (position {t}) is not in the vocabulary; known words: {sorted(vocab)}.")
        if key not in seen:
            seen[key] = as_real_array(f"vocab[{key!r}]", vocab[key], ndim=1, expected="(d,)")
        rows.append(seen[key])
    if not rows:
        raise ValueError("tokens is empty; a sentence needs at least one token.")
    if len({r.shape for r in rows}) != 1:
        raise ValueError(f"the vocabulary's vectors differ in length: {sorted({r.shape for r in rows})}.")
    return rows


def check_mix_inputs(weights, vectors) -> tuple[np.ndarray, np.ndarray]:
    """weights (T,) or (T_q, T), each row a distribution (within 1e-6), and vectors (T, d)."""
    w = as_real_array("weights", weights, min_ndim=1, expected="(T,) or (T_q, T)")
    X = as_real_array("vectors", vectors, ndim=2, expected="(T, d)")
    if w.ndim > 2:
        raise ValueError(f"weights must be (T,) or (T_q, T); got {describe(w)}.")
    if w.shape[-1] != X.shape[0]:
        raise ValueError(
            f"one weight per token: weights has {w.shape[-1]} per row ({describe(w)}) but vectors has "
            f"{X.shape[0]} rows ({describe(X)})."
        )
    # the row test of helpers.is_distribution (atol 1e-6), on the array already checked here
    if w.shape[-1] == 0 or not (np.all(w >= -1e-6) and np.allclose(w.sum(axis=-1), 1.0, rtol=0.0, atol=1e-6)):
        sums = np.round(np.atleast_1d(w.sum(axis=-1)), 6)
        raise ValueError(
            f"each weight row must be a distribution (all >= 0, sum 1); got min weight {w.min():.4g} "
            f"and row sums {sums[:4].tolist()}."
        )
    return w, X


# ---- normalization (2.6), shapes (2.7) ----------------------------------------------------------------

def check_points(points) -> np.ndarray:
    """2-D points (n, 2) with n >= 1."""
    pts = as_real_array("points", points, ndim=2, expected="(n, 2)")
    if pts.shape[1] != 2 or pts.shape[0] == 0:
        raise ValueError(f"points must have shape (n, 2) with n >= 1; got {describe(pts)}.")
    return pts


def check_hull_and_points(hull, x) -> tuple[np.ndarray, np.ndarray, bool]:
    """A hull (h, 2) with h >= 3 and points x (m, 2) or (2,); returns ``hull, x as (m, 2), single``."""
    H = as_real_array("hull", hull, ndim=2, expected="(h, 2)")
    if H.shape[1] != 2 or H.shape[0] < 3:
        raise ValueError(f"hull must have shape (h, 2) with h >= 3 vertices; got {describe(H)}.")
    X = as_real_array("x", x, expected="(m, 2)")
    single = X.ndim == 1
    X = np.atleast_2d(X)
    if X.shape[-1] != 2 or X.ndim != 2:
        raise ValueError(f"x must have shape (m, 2) or (2,); got {describe(X)}.")
    return H, X, single


def check_shape_steps(steps, n: int, kind: type) -> list:
    """``steps`` as a list of exactly ``n`` items of type ``kind`` (the ShapeStep items of shape_flow())."""
    steps = list(steps)
    if len(steps) != n or not all(isinstance(s, kind) for s in steps):
        raise ValueError(f"steps must be the {n} ShapeStep items returned by shape_flow(); got {len(steps)} item(s).")
    return steps
