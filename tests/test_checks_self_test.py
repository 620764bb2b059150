"""2.12's chapter self-test (helpers.checks.nb12_self_test): over many seeds the right answers pass, every
classic wrong answer fails with its own named mistake, and bad input gets a verdict, never a traceback."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

from helpers.checks import (check_self_test_formula, check_self_test_row, check_self_test_shapes,
                            check_self_test_terms, self_test)

SEEDS = range(50)


def quiet(check, *args):
    with contextlib.redirect_stdout(io.StringIO()):
        return check(*args)


def attention(Q, K, V, *, scale=True, axis=-1, transpose=True, stable=True):
    """The learner's formula, written here from the book (not from the checks), with switchable mistakes."""
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    S = Q @ (K.T if transpose else K)
    if scale:
        S = S / np.sqrt(Q.shape[1])
    if stable:
        S = S - S.max(axis=axis, keepdims=True)
    with np.errstate(all="ignore"):
        E = np.exp(S)
        return (E / E.sum(axis=axis, keepdims=True)) @ V


def shapes(T, d_model, d_k, d_v):
    return {"Q": (T, d_k), "K": (T, d_k), "V": (T, d_v), "S": (T, T), "A": (T, T), "out": (T, d_v)}


def stds(Q, K):
    S = Q @ K.T
    return np.std(S), np.std(S / np.sqrt(Q.shape[1]))


def the_row(seed, *, row_shift=0, digits=None, scale=True, axis=-1):
    ex = self_test(seed).example
    A = attention(ex.Q, ex.K, np.eye(4), scale=scale, axis=axis)          # the weights
    w = A[(ex.row - 1 + row_shift) % 4]
    if digits is not None:
        w = np.round(w, digits)
    return w @ ex.V


@pytest.mark.parametrize("seed", SEEDS)
def test_right_answers_pass_for_every_seed(seed):
    assert quiet(check_self_test_formula, attention, seed)
    assert quiet(check_self_test_formula, lambda Q, K, V: attention(*(np.float32(a) for a in (Q, K, V))).astype(np.float32), seed)
    assert quiet(check_self_test_shapes, shapes, seed)
    assert quiet(check_self_test_shapes, lambda *a: [list(s) for s in shapes(*a).values()], seed)
    assert quiet(check_self_test_terms, stds, seed)
    assert quiet(check_self_test_terms, lambda Q, K: [float(np.std(Q @ K.T, ddof=1)),
                                                      float(np.std(Q @ K.T / np.sqrt(Q.shape[1]), ddof=1))], seed)
    row = the_row(seed)
    assert quiet(check_self_test_row, lambda: row, seed)
    assert quiet(check_self_test_row, lambda: np.round(row, 3).tolist(), seed)   # 3 decimals is the stated precision


@pytest.mark.parametrize("seed", SEEDS)
def test_classic_wrong_answers_fail_with_their_named_mistake(seed):
    formula = {"忘了除以 √d_k": lambda Q, K, V: attention(Q, K, V, scale=False),
               "沿列做了 softmax": lambda Q, K, V: attention(Q, K, V, axis=0),
               "K 没有转置": lambda Q, K, V: attention(Q, K, V, transpose=False),
               "减去每一行的最大值": lambda Q, K, V: attention(Q, K, V, stable=False)}
    for named, fn in formula.items():
        r = quiet(check_self_test_formula, fn, seed)
        assert not r and named in r.message, (named, r.message)

    t = self_test(seed).sizes
    wrong_out = lambda T, m, k, v: {**shapes(T, m, k, v), "out": (T, k)}
    r = quiet(check_self_test_shapes, wrong_out, seed)
    assert not r and "out 的形状不对" in r.message and "d_v" in r.message
    wrong_s = lambda T, m, k, v: {**shapes(T, m, k, v), "S": (k, k)}
    r = quiet(check_self_test_shapes, wrong_s, seed)
    assert not r and "S 的形状不对" in r.message and "(T, T)" in r.message
    assert all(v > 1 for v in t.values()) and len(set(t.values())) == 4

    r = quiet(check_self_test_terms, lambda Q, K: np.square(stds(Q, K)), seed)
    assert not r and "方差" in r.message
    r = quiet(check_self_test_terms, lambda Q, K: stds(Q, K)[::-1], seed)
    assert not r and "顺序反了" in r.message

    rows = {"忘了除以 √d_k": the_row(seed, scale=False), "沿列做了 softmax": the_row(seed, axis=0),
            "舍入太早": the_row(seed, digits=2), "这一步要的是第": the_row(seed, row_shift=1)}
    for named, value in rows.items():
        r = quiet(check_self_test_row, lambda v=value: v, seed)
        assert not r and named in r.message, (named, r.message)


def test_each_seed_draws_its_own_numbers_and_the_same_seed_the_same():
    a, b = self_test(7), self_test(7)
    assert np.array_equal(a.example.Q, b.example.Q) and a.sizes == b.sizes
    examples = {self_test(s).example.Q.tobytes() + self_test(s).example.K.tobytes() for s in range(20)}
    assert len(examples) >= 15


@pytest.mark.parametrize("check,good", [(check_self_test_formula, attention), (check_self_test_shapes, shapes),
                                        (check_self_test_terms, stds), (check_self_test_row, lambda: [0.0, 0.0])])
def test_bad_input_gets_a_verdict(check, good):
    for seed in ("12", 1.5, -3, True):
        r = quiet(check, good, seed)
        assert not r and "SEED 要是一个非负整数" in r.message
    # SEED = None (the graded lab's release, before the student sets it): asked for, not graded on a default
    r = quiet(check, good, None)
    assert not r and "先把 SEED 改成你的学号（一个整数），再运行" in r.message and "2026" not in r.message
    r = quiet(check, 42, 3)                                   # not a function
    assert not r and "需要传入一个函数" in r.message

    def crashes(*args):
        raise RuntimeError("boom")

    def stub(*args):
        raise NotImplementedError

    r = quiet(check, crashes, 3)
    assert not r and "RuntimeError" in r.message and "Traceback" not in r.message
    r = quiet(check, stub, 3)
    assert not r and "尚未完成" in r.message
    r = quiet(check, lambda *args: None, 3)
    assert not r and "None" in r.message


def test_self_test_refuses_a_bad_seed_with_a_clear_error():
    with pytest.raises(TypeError, match="seed"):
        self_test("1")
    with pytest.raises(ValueError, match="seed"):
        self_test(-1)


# "Numpy only" (a) and "by hand" (d): every helper that computes attention or a softmax-weighted sum is refused,
# not only the six of the core formula (blockwise attention and the soft lookup compute the same numbers).
EX12 = self_test(2026).example
_R = EX12.row - 1
_Q_ROW = EX12.Q[_R]


def _bypass_formula():
    import helpers as H
    return {"H.blockwise.blockwise_attention": lambda Q, K, V: H.blockwise.blockwise_attention(Q, K, V),
            "H.scaled_dot_product_attention": lambda Q, K, V: H.scaled_dot_product_attention(Q, K, V).output,
            "H.softmax inside": lambda Q, K, V: H.softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V}


def _bypass_row():
    import helpers as H
    return {"H.blockwise.blockwise_attention": lambda: H.blockwise.blockwise_attention(EX12.Q, EX12.K, EX12.V)[_R],
            "H.soft_lookup.soft_lookup": lambda: H.soft_lookup.soft_lookup(_Q_ROW / np.sqrt(2), EX12.K, EX12.V).output,
            "H.self_attention": lambda: H.self_attention(np.eye(4), EX12.Q, EX12.K, EX12.V).output[_R]}


@pytest.mark.parametrize("label", list(_bypass_formula()))
def test_formula_refuses_every_helper(label):
    fn = _bypass_formula()[label]
    with np.errstate(all="ignore"):
        right = np.allclose(fn(EX12.Q, EX12.K, EX12.V), attention(EX12.Q, EX12.K, EX12.V))
    assert right                                   # the bypass gives the right numbers ...
    r = quiet(check_self_test_formula, fn, 2026)
    assert not r and "只用 numpy" in r.message and "helpers" in r.message, r.message   # ... and is refused


@pytest.mark.parametrize("label", list(_bypass_row()))
def test_row_refuses_every_attention_helper(label):
    fn = _bypass_row()[label]
    assert np.allclose(fn(), the_row(2026), atol=1e-9)
    r = quiet(check_self_test_row, fn, 2026)
    assert not r and "亲手算" in r.message and "helpers" in r.message, r.message


def test_row_still_allows_numpy_and_the_non_attention_helpers():
    import helpers as H
    row = the_row(2026)
    assert quiet(check_self_test_row, lambda: H.token_labels(2) and row, 2026)   # a harmless helper is fine


def test_the_forbidden_set_is_derived_from_the_package():
    from helpers.checks.numpy_only import attention_helpers
    names = attention_helpers()
    assert {"softmax", "scaled_dot_product_attention", "self_attention", "multi_head_self_attention",
            "blockwise_attention", "soft_lookup", "dot_product_scores", "project_qkv", "encoder_forward"} <= names
    assert not {"causal_mask", "token_labels", "is_distribution", "check_int"} & names   # harmless helpers stay allowed


def test_a_scale_by_the_wrong_width_is_named():
    # Review: √d_v was told "不要写死成 2" (nothing was hard-coded), √T got only the generic hint.
    by_d_v = lambda Q, K, V: attention(Q / np.sqrt(np.sqrt(V.shape[1] / Q.shape[1])), K / np.sqrt(np.sqrt(V.shape[1] / Q.shape[1])), V)
    by_T = lambda Q, K, V: attention(Q / np.sqrt(np.sqrt(Q.shape[0] / Q.shape[1])), K / np.sqrt(np.sqrt(Q.shape[0] / Q.shape[1])), V)
    for seed in (2026, 0, 7):
        r = quiet(check_self_test_formula, by_d_v, seed)
        assert not r and "√d_v" in r.message and "写死" not in r.message, r.message
        r = quiet(check_self_test_formula, by_T, seed)
        assert not r and "√T" in r.message, r.message


def test_row_indexed_from_1_is_told_the_index():
    # Review: SEED 2026 asks for row 4; Q[4] raised IndexError and got a generic hint.
    ex = self_test(2026).example
    assert ex.row == 4
    r = quiet(check_self_test_row, lambda: ex.Q[ex.row] @ ex.K.T, 2026)
    assert not r and "IndexError" in r.message and "下标是 3" in r.message, r.message
