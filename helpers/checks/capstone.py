"""Self-check for the chapter's capstone (2.12): causal self-attention from scratch.

``from helpers.checks.capstone import check_capstone``

The learner writes ``my_causal_self_attention(X, W_Q, W_K, W_V)`` with numpy only;
it is compared with :func:`helpers.self_attention` (``causal=True``) on hidden cases:
one token, d_v != d_k, scores large enough to overflow a naive softmax, a batch of
sequences. When a case fails, the check also runs the learner's function on one small
diagnostic input and compares it with the classic mistakes (no scaling, softmax
down the columns, mask after softmax, mask hiding the diagonal, no mask, mask the
wrong way round); a match names the mistake. No expected value is ever printed.
"""

from __future__ import annotations

import math

import numpy as np

from ..attention import self_attention
from .core import Case, CheckResult, run_check

__all__ = ["check_capstone"]

_ORDER = ("the order is: Q, K, V = X @ W_Q, X @ W_K, X @ W_V; S = Q K^T / sqrt(d_k); add the causal mask "
          "(-inf where key j > query i); softmax along the last axis; A @ V.")


def _inputs(rng, shape_x, d_k, d_v, scale=1.0):
    d_model = shape_x[-1]
    X = rng.normal(size=shape_x) * scale
    return (X, rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v)))


def _reference(X, W_Q, W_K, W_V) -> np.ndarray:
    return self_attention(X, W_Q, W_K, W_V, causal=True).output


def _cases() -> list[Case]:
    rng = np.random.default_rng(20260212)
    one = _inputs(rng, (1, 4), 3, 2)
    basic = _inputs(rng, (4, 5), 3, 3, scale=0.7)
    dv = _inputs(rng, (5, 6), 4, 2, scale=0.7)
    wide = _inputs(rng, (7, 8), 16, 5, scale=0.5)
    huge = _inputs(rng, (5, 6), 4, 3, scale=40.0)
    batch = _inputs(rng, (3, 4, 5), 3, 2, scale=0.7)
    return [
        Case("a single token (T = 1)", one, _reference(*one),
             "a token always sees itself: the mask keeps the diagonal (j <= i is allowed), so with one token "
             "the only weight is 1 and the output is that token's value row."),
        Case("T = 4, d_model = 5, d_k = d_v = 3", basic, _reference(*basic), _ORDER),
        Case("d_v != d_k (T = 5, d_k = 4, d_v = 2)", dv, _reference(*dv),
             "d_k is the width of Q and K (Q.shape[-1]), not of V; the output has V's width d_v."),
        Case("T = 7, d_k = 16", wide, _reference(*wide),
             "divide the scores by sqrt(d_k) with d_k = Q.shape[-1], and build the mask for this T."),
        Case("large-magnitude scores (a naive softmax overflows)", huge, _reference(*huge),
             "np.exp of a score in the hundreds overflows to inf (and of a very negative one underflows to 0): "
             "subtract each row's maximum before exp; the result does not change, because softmax ignores a "
             "constant added to a row."),
        Case("a batch of 3 sequences, X of shape (3, T, d_model)", batch, _reference(*batch),
             "work on the last two axes only: X @ W already broadcasts; use np.swapaxes(K, -1, -2) instead of "
             "K.T (which reverses every axis), and normalise with axis=-1, keepdims=True."),
    ]


# ---- diagnosis: what a failing function looks like -------------------------------------------

def _stable_softmax(S, axis=-1):
    with np.errstate(invalid="ignore", over="ignore"):
        e = np.exp(S - S.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


def _variant(X, W_Q, W_K, W_V, *, scale=True, axis=-1, mask="causal", after=False, fill=-np.inf):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    T = Q.shape[-2]
    S = Q @ np.swapaxes(K, -1, -2) / (math.sqrt(Q.shape[-1]) if scale else 1.0)
    blocked = {"causal": np.triu(np.ones((T, T), bool), k=1), "diagonal too": np.triu(np.ones((T, T), bool), k=0),
               "anti": np.tril(np.ones((T, T), bool), k=-1), "none": np.zeros((T, T), bool)}[mask]
    if after:
        A = np.where(blocked, 0.0, _stable_softmax(S, axis))
    else:
        A = _stable_softmax(np.where(blocked, fill, S), axis)
    with np.errstate(invalid="ignore"):
        return A @ V


_OFF_BY_ONE = ("matches a mask that also hides the diagonal (off by one): a token must see itself; only keys "
               "j > i are in the future (np.triu(..., k=1)).")

_DIAGNOSES = [
    (dict(scale=False), "matches attention WITHOUT the 1/sqrt(d_k) scaling: divide the scores by sqrt(d_k), "
                        "d_k = Q.shape[-1]."),
    (dict(axis=-2), "matches a softmax taken down the columns (axis=0/-2): each query's row must sum to 1, "
                    "so normalise along the last axis (over the keys)."),
    (dict(after=True), "matches masking AFTER softmax (zeroing the future weights): then the rows no longer "
                       "sum to 1. Add the mask to the scores BEFORE softmax, so the remaining weights renormalise."),
    (dict(mask="diagonal too"), _OFF_BY_ONE),              # with -inf: the first row is NaN
    (dict(mask="diagonal too", fill=-1e9), _OFF_BY_ONE),   # with -1e9: the first row is uniform
    (dict(mask="none"), "matches attention with NO mask: every token still sees the future."),
    (dict(mask="anti"), "matches a mask the wrong way round (tokens see the future, not the past): block "
                        "j > i, the part above the diagonal."),
]


def _diagnose(fn) -> str | None:
    rng = np.random.default_rng(12)
    args = _inputs(rng, (4, 5), 3, 2)
    try:
        with np.errstate(all="ignore"):
            got = np.asarray(fn(*args), dtype=float)
    except Exception:  # the case message already reported the exception
        return None
    for kwargs, text in _DIAGNOSES:
        wrong = _variant(*args, **kwargs)
        if got.shape == wrong.shape and np.allclose(got, wrong, rtol=1e-6, atol=1e-8, equal_nan=True):
            return text
    return None


def check_capstone(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V) -> output``: causal scaled dot-product self-attention.

    Parameters of ``fn``
    --------------------
    X : numpy.ndarray, shape (..., T, d_model)
    W_Q, W_K : numpy.ndarray, shape (d_model, d_k)
    W_V : numpy.ndarray, shape (d_model, d_v)
    returns : array, shape (..., T, d_v)

    Prints one verdict line (and, on failure, a hint and possibly a diagnosis); returns
    a :class:`CheckResult` that is truthy when all hidden cases pass.
    """
    result = run_check("check_capstone", fn, _cases(), atol=1e-8, rtol=1e-6)
    if result or "not done yet" in result.message or not callable(fn):
        return result
    diagnosis = _diagnose(fn)
    if diagnosis is None or diagnosis in result.message:
        return result
    line = f"   Diagnosis: on a small extra input, your output {diagnosis}"
    print(line)
    return CheckResult(result.name, False, result.n_cases, result.n_passed, result.message + "\n" + line)
