"""The edges a novice hits (issue 20): float32 answers, odd return values, "numpy only", return types,
stated tolerances, and failure messages that name the mistake actually made.

Every test here failed on the checks before issue 20 (see the commit message); they import only the
public names of ``helpers.checks``, so they run unchanged against any layout of the package.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import helpers as H
import helpers.checks as C
from check_verdicts import CJK, fails, passes

F32 = np.float32


# ---- float32 answers are accepted at float32 precision; a 1.04x constant factor is still rejected ----

def _sm32(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _attention32(Q, K, V, causal=False):
    S = Q @ np.swapaxes(K, -1, -2) / F32(math.sqrt(Q.shape[-1]))
    if causal:
        T = S.shape[-1]
        S = np.where(np.triu(np.ones((T, T), bool), 1), F32(-np.inf), S)
    return _sm32(S) @ V


def _mha32(X, W_Q, W_K, W_V, W_O, n_heads, causal=False):
    X, W_Q, W_K, W_V, W_O = (np.asarray(a, dtype=F32) for a in (X, W_Q, W_K, W_V, W_O))
    split = lambda Y: np.moveaxis(Y.reshape(*Y.shape[:-1], n_heads, -1), -2, -3)   # (..., h, T, d)
    O = np.moveaxis(_attention32(split(X @ W_Q), split(X @ W_K), split(X @ W_V), causal), -3, -2)
    return O.reshape(*O.shape[:-2], -1) @ W_O


def _prefix_mha32(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    # 2.12's capstone in float32: query i sees key j iff j <= i or j < n_prefix
    X, W_Q, W_K, W_V, W_O = (np.asarray(a, dtype=F32) for a in (X, W_Q, W_K, W_V, W_O))
    split = lambda Y: np.moveaxis(Y.reshape(*Y.shape[:-1], n_heads, -1), -2, -3)   # (..., h, T, d)
    Q, K, V = split(X @ W_Q), split(X @ W_K), split(X @ W_V)
    i, j = np.indices((X.shape[-2],) * 2)
    S = np.where((j <= i) | (j < n_prefix), Q @ np.swapaxes(K, -1, -2) / F32(math.sqrt(Q.shape[-1])), F32(-np.inf))
    O = np.moveaxis(_sm32(S) @ V, -3, -2)
    return O.reshape(*O.shape[:-2], -1) @ W_O


def _per_head32(Q, K, n_heads):
    Q, K = np.asarray(Q, F32), np.asarray(K, F32)
    split = lambda Y: np.moveaxis(Y.reshape(Y.shape[0], n_heads, -1), 1, 0)      # (h, T, d_head)
    return _attention_scores32(split(Q), split(K))


def _attention_scores32(Q, K):
    return Q @ np.swapaxes(K, -1, -2) / F32(math.sqrt(Q.shape[-1]))


FLOAT32 = {
    "check_per_head_scaled_scores": _per_head32,
    "check_batched_scores": lambda Q, K: np.asarray(Q, F32) @ np.swapaxes(np.asarray(K, F32), -1, -2),
    "check_batched_cross_attention": lambda X_q, X_kv, W_Q, W_K, W_V: _attention32(
        np.asarray(X_q, F32) @ np.asarray(W_Q, F32), np.asarray(X_kv, F32) @ np.asarray(W_K, F32),
        np.asarray(X_kv, F32) @ np.asarray(W_V, F32)),
    "check_grouped_query_attention": lambda X, W_Q, W_K, W_V, W_O, h, g: _mha32(
        X, W_Q, *(np.repeat(np.asarray(W).reshape(W.shape[0], g, -1), h // g, axis=1).reshape(W.shape[0], -1)
                  for W in (W_K, W_V)), W_O, h),
    "check_capstone": lambda *a: _prefix_mha32(*a),
}


@pytest.mark.parametrize("name", FLOAT32)
def test_a_float32_answer_is_accepted(name, capsys):
    passes(capsys, getattr(C, name)(FLOAT32[name]))


@pytest.mark.parametrize("name", FLOAT32)
def test_a_float32_answer_off_by_a_constant_factor_is_rejected(name, capsys):
    fn = FLOAT32[name]
    fails(capsys, getattr(C, name)(lambda *a: F32(1.04) * fn(*a)))
    fails(capsys, getattr(C, name)(lambda *a: F32(1.001) * fn(*a)))


def test_the_float32_tolerance_comes_from_the_returned_dtype(capsys):
    # float64 keeps the check's own tolerance: an error a float32 answer may have is too big for float64
    q = lambda Q, c: Q @ c * (1 + 3e-6)
    fails(capsys, C.check_key_shift(q))
    passes(capsys, C.check_key_shift(lambda Q, c: (q(Q, c)).astype(F32)))
    # float16 is capped at 1e-2: still no constant factor of 1.04
    fails(capsys, C.check_key_shift(lambda Q, c: (1.04 * Q @ c).astype(np.float16)))


def test_float32_inputs_set_the_precision_whatever_the_result_dtype(capsys):
    # A correct loop on float32 inputs that accumulates into np.zeros(n) (float64 by default) returns float64
    # at float32 precision: it is float32 work and passes. The same error on float64 inputs still fails.
    from helpers.checks.core import Case, run_check

    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 5))
    w = rng.normal(size=5)

    def loop(X, w):
        out = np.zeros(X.shape[0])                       # float64, whatever X is
        for i in range(X.shape[0]):
            for j in range(X.shape[1]):
                out[i] += X[i, j] * w[j]
        return out

    f32 = Case("float32", (X.astype(F32), w.astype(F32)), X.astype(F32).astype(float) @ w.astype(F32).astype(float))
    f64 = Case("float64", (X, w), X @ w)
    assert run_check("c", loop, [f32], atol=1e-12, rtol=1e-12)           # float64 result of float32 inputs
    # float32 work on float64 inputs, returned as float64: only float32-precise, still rejected and told why
    slip = lambda X, w: (X.astype(F32) @ w.astype(F32)).astype(float)
    assert not run_check("c", slip, [f64], atol=1e-12, rtol=1e-12)
    assert "float32 的精度量级" in capsys.readouterr().out
    # and float32 inputs do not excuse a constant factor
    assert not run_check("c", lambda X, w: 1.001 * loop(X, w), [f32], atol=1e-12, rtol=1e-12)


# ---- check_attention_test: whatever the learner's test returns, a verdict and no traceback --------

def _elementwise(attn_fn):
    X = np.random.default_rng(0).normal(size=(5, 3))
    Y = X.copy()
    Y[-1] += 1.0
    return np.isclose(attn_fn(X)[:-1], attn_fn(Y)[:-1])     # an array of bools, not one verdict


def _forgot_return(attn_fn):
    X = np.random.default_rng(0).normal(size=(5, 3))
    np.allclose(attn_fn(X)[:2], attn_fn(X[:2]))              # computed, never returned or asserted


@pytest.mark.parametrize("test, words", [
    (_elementwise, ["真假值", "数组"]),
    (_forgot_return, ["return"]),
    (lambda attn_fn: "True", ["str"]),
    (lambda attn_fn: {"ok": True}, ["dict"]),
    (lambda attn_fn: [True], ["list"]),
], ids=["elementwise array", "forgot return", "str", "dict", "list"])
def test_a_learner_test_that_returns_no_verdict_fails_with_a_message(test, words, capsys):
    out = fails(capsys, C.check_attention_test(test))
    assert "Traceback" not in out
    for w in words:
        assert w in out, (w, out)


def test_an_assert_style_learner_test_still_counts(capsys):
    def assert_style(attn_fn):
        X = np.random.default_rng(1).normal(size=(6, 4))
        Y = X.copy()
        Y[3:] = np.random.default_rng(2).normal(size=(3, 4))
        assert np.allclose(attn_fn(X)[:3], attn_fn(Y)[:3])    # returns None when it passes

    out = fails(capsys, C.check_attention_test(assert_style))
    assert "接受了正确的实现" in out                             # judged as a test, not as "no verdict"


# ---- no check ever shows a traceback, whatever the learner's function returns or raises -------------

CHECKS = sorted(n for n in C.__all__ if n.startswith("check_") and n != "check_array")


class _Unprintable(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")


class _BadArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("cannot be an array")


def _exceptions():
    """One instance of every built-in exception type derived from Exception (and two odd ones)."""
    found = [_Unprintable(), ArithmeticError("x")]
    for obj in vars(builtins).values():
        if isinstance(obj, type) and issubclass(obj, Exception) and obj is not NotImplementedError:
            for args in [("boom",), ("boom", [ValueError("inner")]), ("utf-8", b"x", 0, 1, "boom"), ("utf-8", "x", 0, 1, "boom"), ("x", 0, 1, "boom")]:
                try:
                    found.append(obj(*args))
                    break
                except TypeError:
                    continue
            else:
                raise AssertionError(f"cannot build {obj.__name__}")
    return found


ODD_SCALARS = st.one_of(
    st.none(), st.text(max_size=5), st.binary(max_size=3), st.booleans(),
    st.integers(min_value=-(10 ** 400), max_value=10 ** 400), st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(allow_nan=True, allow_infinity=True),
    st.just(float("nan")), st.just(float("inf")), st.just(10 ** 400), st.just(Ellipsis), st.just(_BadArray()),
    st.builds(lambda: (k for k in range(3))), st.builds(set), st.builds(object), st.just(print),
)
ODD_ARRAYS = st.one_of(
    hnp.arrays(dtype=st.sampled_from([np.float64, np.float32, np.float16, np.int64, np.uint8, np.bool_, np.complex128]),
               shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4)),
    st.sampled_from([np.array(["a", "bc"]), np.array([None, 1.0], dtype=object), np.array(["2026-12-01"], "M8[D]"),
                     np.array([[1, 2], [3]], dtype=object), np.array([10 ** 400], dtype=object)]),
)
ODD = st.recursive(st.one_of(ODD_SCALARS, ODD_ARRAYS),
                   lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner),
                                           st.dictionaries(st.text(max_size=2), inner, max_size=2)),
                   max_leaves=6)

SHAPED = {   # odd values shaped like the first argument, so they pass the shape test and reach the rest
    "first argument": lambda a: a[0] if a else None,
    "object array": lambda a: np.asarray(a[0], dtype=object) if a else None,
    "complex": lambda a: np.asarray(a[0], dtype=float) * (1 + 1j) if a else 1j,
    "all NaN": lambda a: np.full(np.shape(a[0]), np.nan) if a else np.nan,
    "all -inf": lambda a: np.full(np.shape(a[0]), -np.inf) if a else -np.inf,
    "bool": lambda a: np.ones(np.shape(a[0]), bool) if a else True,
    "strings": lambda a: np.full(np.shape(a[0]), "x") if a else "x",
    "pair of odd things": lambda a: (None, "x"),
}


def _verdict(check, fn):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = check(fn)
    out = buf.getvalue()
    assert not result, (check.__name__, out)
    assert out.startswith(("\u274c", "\u23f3")) and CJK.search(out), (check.__name__, out)
    assert "Traceback" not in out


@pytest.mark.parametrize("name", CHECKS)
@settings(max_examples=15)
@given(value=ODD)
def test_no_odd_return_value_escapes_as_a_traceback(name, value):
    _verdict(getattr(C, name), lambda *a, **k: value)


@pytest.mark.parametrize("name", CHECKS)
def test_no_shaped_odd_value_or_raised_exception_escapes(name):
    check = getattr(C, name)
    for make in SHAPED.values():
        _verdict(check, lambda *a, **k: make(a))
    for exc in _exceptions():
        def raises(*a, __exc=exc, **k):
            raise __exc
        _verdict(check, raises)


@pytest.mark.parametrize("name", CHECKS)
@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
def test_keyboard_interrupt_and_system_exit_propagate(name, exc, capsys):
    def raises(*a, **k):
        raise exc()

    with pytest.raises(exc):
        getattr(C, name)(raises)
    capsys.readouterr()


def test_check_array_reads_any_value(capsys):
    for value in [None, "x", {"a": 1}, 10 ** 400, np.array([1j]), _BadArray(), (k for k in range(2))]:
        result = C.check_array("check_value", value, np.zeros(1))
        out = capsys.readouterr().out
        assert not result and out.startswith("\u274c") and CJK.search(out), out


# ---- "numpy only" / "without helper X" is enforced where the exercise says so ------------------------

USES_A_FORBIDDEN_HELPER = {
    # 2.1 all-pairs cosine, 2.2 high-temperature drift, 2.4 batched scores: 只用 numpy
    "check_cosine_matrix": lambda C_: np.array([[H.geometry.cosine_similarity(a, b) for b in C_] for a in C_]),
    "check_high_temperature_drift": lambda q, K, V: 1e6 * (H.soft_lookup.soft_lookup(q, K, V, 1e6).output - V.mean(axis=0)),
    "check_batched_scores": lambda Q, K: np.stack([H.dot_product_scores(q, k) for q, k in zip(Q, K)]),
    # 2.6 bug hunt, 2.7 batched cross-attention and padding: 只用 numpy
    "check_row_max_fix": lambda Q, K, V: H.scaled_dot_product_attention(Q, K, V).output,
    "check_batched_cross_attention": lambda Xq, Xkv, Wq, Wk, Wv: H.scaled_dot_product_attention(
        Xq @ Wq, Xkv @ Wk, Xkv @ Wv).output,
    "check_padded_attention_weights": lambda Q, K, lengths: H.scaled_dot_product_attention(
        Q, K, K, mask=np.arange(K.shape[1])[None, None, :] < np.asarray(lengths)[:, None, None]).weights,
}


def _drift_with_H_softmax_jacobian(q, K, V):
    n = len(K)
    return V.T @ H.softmax_jacobian(np.full(n, 1.0 / n)) @ (K @ q)


@pytest.mark.parametrize("name", USES_A_FORBIDDEN_HELPER)
def test_a_forbidden_helper_is_refused(name, capsys):
    out = fails(capsys, getattr(C, name)(USES_A_FORBIDDEN_HELPER[name]))
    assert "helpers" in out or "不要调用" in out, out
    assert "\u2705" not in out


def test_drift_refuses_H_softmax_jacobian_but_the_same_numpy_passes(capsys):
    out = fails(capsys, C.check_high_temperature_drift(_drift_with_H_softmax_jacobian))
    assert "只用 numpy" in out and "helpers 里的 H" in out, out

    def numpy_jacobian(q, K, V):
        a = np.full(len(K), 1.0 / len(K))
        return V.T @ (np.diag(a) - np.outer(a, a)) @ (K @ q)

    passes(capsys, C.check_high_temperature_drift(numpy_jacobian))


def test_batched_cross_attention_refuses_a_hidden_helper_call(capsys):
    import types
    box = types.SimpleNamespace(lib=H)                       # invisible to the static scan; the tripwire sees it
    out = fails(capsys, C.check_batched_cross_attention(lambda Xq, Xkv, Wq, Wk, Wv: box.lib.scaled_dot_product_attention(
        Xq @ Wq, Xkv @ Wk, Xkv @ Wv).output))
    assert "只用 numpy" in out and "运行时调用了" in out


# ---- a stated return type and a stated tolerance are enforced ------------------------------------

def _flops_pair(T_q, T_kv, d_q, d_kk):
    return 2 * T_q * d_kk * (d_q + T_kv), 2 * T_kv * d_q * (d_kk + T_q)


RETURN_TYPE = [
    # (check, fn, accepted)
    (C.check_bilinear_flops, _flops_pair, True),                                    # 2.4 asks for a tuple of two counts
    (C.check_bilinear_flops, lambda *a: np.array(_flops_pair(*a)), False),
    (C.check_left_padded_causal_mask,
     lambda T, n: np.where(np.arange(T)[:, None] < n, np.eye(T, dtype=bool),
                           (np.arange(T)[None, :] >= n) & (np.arange(T)[None, :] <= np.arange(T)[:, None])), True),
    (C.check_left_padded_causal_mask,
     lambda T, n: np.where(np.arange(T)[:, None] < n, np.eye(T, dtype=bool),
                           (np.arange(T)[None, :] >= n) & (np.arange(T)[None, :] <= np.arange(T)[:, None])).astype(int),
     False),
]


@pytest.mark.parametrize("check, fn, accepted", RETURN_TYPE,
                         ids=[f"{k}-{r[0].__name__}-{'ok' if r[2] else 'wrong'}" for k, r in enumerate(RETURN_TYPE)])
def test_the_stated_return_type_and_tolerance_are_enforced(check, fn, accepted, capsys):
    if accepted:
        passes(capsys, check(fn))
    else:
        out = fails(capsys, check(fn))
        assert re.search("整数|真假值|布尔|数值|True/False|形状", out), out


# ---- a failure message names the mistake actually made -------------------------------------------

def _permutation_equivariance_test(attn_fn):
    X = np.random.default_rng(3).normal(size=(6, 4))
    perm = np.random.default_rng(4).permutation(6)
    return bool(np.allclose(attn_fn(X[perm]), attn_fn(X)[perm]))


def test_a_capstone_test_demanding_full_permutation_equivariance_is_told_why(capsys):
    out = fails(capsys, C.check_attention_test(_permutation_equivariance_test))
    assert "没有掩码" in out and "排列" in out, out
    assert "浮点" not in out and "舍入" not in out
