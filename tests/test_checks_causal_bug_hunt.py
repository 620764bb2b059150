"""The 2.10 bug hunt: the buggy exhibit is rejected (with a diagnosis), every correct fix passes."""

import numpy as np

import helpers as H
from helpers.checks import buggy_causal_attention, check_fixed_causal_attention
from check_verdicts import check_table


def _softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def fixed_k1(Q, K, V):
    T = Q.shape[0]
    return _softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + np.triu(np.full((T, T), -1e9), k=1)) @ V


def fixed_inf(Q, K, V):
    T = Q.shape[0]
    return H.softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + H.causal_mask(T)) @ V


def fixed_tril(Q, K, V):
    T = Q.shape[0]
    S = np.where(np.tril(np.ones((T, T), bool)), Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
    return _softmax(S) @ V


def off_by_one_inf(Q, K, V):
    T = Q.shape[0]
    with np.errstate(invalid="ignore"):
        return _softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + np.triu(np.full((T, T), -np.inf), k=0)) @ V


def after_softmax(Q, K, V):
    T = Q.shape[0]
    return np.tril(_softmax(Q @ K.T / np.sqrt(Q.shape[-1]))) @ V


def no_mask(Q, K, V):
    return _softmax(Q @ K.T / np.sqrt(Q.shape[-1])) @ V


def no_scale(Q, K, V):
    T = Q.shape[0]
    return _softmax(Q @ K.T + np.triu(np.full((T, T), -1e9), k=1)) @ V


def leaky_k2(Q, K, V):
    T = Q.shape[0]
    return _softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + np.triu(np.full((T, T), -1e9), k=2)) @ V


OK = [fixed_k1, fixed_inf, fixed_tril]
WRONG = {
    "the exhibit": (buggy_causal_attention, ["原来", "对角线"]),
    "off by one (-inf)": off_by_one_inf,
    "mask after softmax": (after_softmax, ["softmax 之后"]),
    "no mask": (no_mask, ["没有掩码"]),
    "no scale": (no_scale, ["缩放"]),
    "one future key visible": leaky_k2,
}
test_correct_fixes_pass, test_the_bug_and_other_classic_mistakes_are_rejected = check_table(
    check_fixed_causal_attention, OK, WRONG)


def test_the_exhibit_really_has_the_bug():
    g = np.random.default_rng(0)
    Q, K, V = (g.normal(size=(5, 3)) for _ in range(3))
    out = buggy_causal_attention(Q, K, V)
    assert np.isfinite(out).all()                                   # silent: no NaN
    assert np.allclose(out[0], no_mask(Q, K, V)[0])                 # row 1 = the UNMASKED weights: it sees the future
    assert not np.allclose(out, fixed_k1(Q, K, V))


def test_stub_is_not_done(capsys):
    def stub(Q, K, V):
        raise NotImplementedError

    r = check_fixed_causal_attention(stub)
    assert not r and "诊断" not in capsys.readouterr().out


def after_softmax_renormalised(Q, K, V):
    T = Q.shape[0]
    future = np.triu(np.ones((T, T), bool), k=1)
    A = np.where(future, 0.0, _softmax(Q @ K.T / np.sqrt(Q.shape[-1])))
    with np.errstate(invalid="ignore"):
        A = A / A.sum(-1, keepdims=True)
    return A @ V


def global_max_after_correct_mask(Q, K, V):
    T = Q.shape[0]
    S = np.where(np.tril(np.ones((T, T), bool)), Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)
    with np.errstate(invalid="ignore", under="ignore"):
        e = np.exp(S - S.max())
        return e / e.sum(-1, keepdims=True) @ V


# review (issue 12): both were accepted when every hidden case had rows of similar size
_, test_renormalised_after_softmax_and_global_max_are_rejected = check_table(
    check_fixed_causal_attention, (), [after_softmax_renormalised, global_max_after_correct_mask])


def test_verdict_survives_seterr_raise(capsys):
    old = np.seterr(all="raise")
    try:
        assert check_fixed_causal_attention(fixed_k1)
        assert not check_fixed_causal_attention(buggy_causal_attention)
    finally:
        np.seterr(**old)


# ---- fresh-eyes review: two more fixes a novice tries, now named (they got the case's hint about row 1) -------

def softmax_down_columns(Q, K, V):
    T = Q.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[-1]) + np.triu(np.full((T, T), -1e9), k=1)
    e = np.exp(S - S.max(axis=0, keepdims=True))
    return (e / e.sum(axis=0, keepdims=True)) @ V


def past_masked(Q, K, V):
    T = Q.shape[0]
    return _softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + np.tril(np.full((T, T), -1e9), k=-1)) @ V


_, test_more_novice_fixes_are_named = check_table(check_fixed_causal_attention, (), {
    "softmax down the columns": (softmax_down_columns, ["沿列", "诊断"]),
    "tril for triu: the past masked": (past_masked, ["挡住了过去", "诊断"]),
})
