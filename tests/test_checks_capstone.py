"""The capstone self-check (2.12): a correct solution passes, the classic mistakes fail with the right hint."""

import numpy as np
import pytest

from helpers.checks.capstone import _cases, _diagnose, check_capstone


def good(X, W_Q, W_K, W_V):
    """An independent solution: numpy only, no helpers."""
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    T, d_k = Q.shape[-2], Q.shape[-1]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    S = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), -np.inf, S)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


def _softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _future(T, k=1):
    return np.triu(np.ones((T, T), dtype=bool), k=k)


def no_scaling(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = np.where(_future(Q.shape[-2]), -np.inf, Q @ np.swapaxes(K, -1, -2))
    return _softmax(S) @ V


def column_softmax(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = np.where(_future(Q.shape[-2]), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    return _softmax(S, axis=-2) @ V


def mask_after_softmax(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    A = _softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    return np.where(_future(Q.shape[-2]), 0.0, A) @ V


def off_by_one_inf(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = np.where(_future(Q.shape[-2], k=0), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    with np.errstate(invalid="ignore"):
        return _softmax(S) @ V


def off_by_one_big_negative(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = np.where(_future(Q.shape[-2], k=0), -1e9, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    return _softmax(S) @ V


def naive_exp(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = np.where(_future(Q.shape[-2]), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(S)
        return (e / e.sum(axis=-1, keepdims=True)) @ V


def two_d_only(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = np.where(_future(Q.shape[-2]), -np.inf, Q @ K.T / np.sqrt(Q.shape[-1]))   # K.T: wrong for a batch
    return _softmax(S) @ V


def no_mask(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])) @ V


def test_a_correct_independent_solution_passes(capsys):
    result = check_capstone(good)
    assert result and result.n_passed == result.n_cases == 6
    assert "all 6 hidden cases pass" in capsys.readouterr().out


def test_the_hidden_cases_cover_the_promised_situations():
    cases = _cases()
    labels = " | ".join(c.label for c in cases)
    X1, _, _, _ = cases[0].args
    assert X1.shape[-2] == 1, "first case is T = 1"
    assert any(c.args[1].shape[1] != c.args[3].shape[1] for c in cases), "some case has d_v != d_k"
    assert any(c.args[0].ndim == 3 for c in cases), "some case is a batch"
    assert "large-magnitude" in labels
    huge = next(c for c in cases if "large-magnitude" in c.label)
    X, W_Q, W_K, _ = huge.args
    S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(W_Q.shape[1])
    with np.errstate(over="ignore"):
        assert np.isinf(np.exp(S)).any(), "the large case must really overflow np.exp"
    assert np.abs(S).max() > 710  # exp(710) > float64 max


@pytest.mark.parametrize("fn, fails_at, hint_words", [
    (no_scaling, "T = 4", ["WITHOUT the 1/sqrt(d_k)"]),
    (column_softmax, "T = 4", ["down the columns", "last axis"]),
    (mask_after_softmax, "T = 4", ["AFTER softmax", "BEFORE softmax"]),
    (off_by_one_inf, "T = 1", ["a token always sees itself", "diagonal"]),
    (off_by_one_big_negative, "T = 4", ["hides the diagonal", "must see itself"]),
    (naive_exp, "large-magnitude", ["subtract each row's maximum"]),
    (two_d_only, "batch", ["np.swapaxes(K, -1, -2)"]),
    (no_mask, "T = 4", ["NO mask"]),
])
def test_classic_mistakes_fail_with_the_right_hint(capsys, fn, fails_at, hint_words):
    result = check_capstone(fn)
    out = capsys.readouterr().out
    assert not result
    first_line = out.splitlines()[0]
    assert fails_at in first_line, out
    for words in hint_words:
        assert words in out, (fn.__name__, out)
    assert "all 6 hidden cases pass" not in out


def test_diagnosis_variants_are_distinguishable():
    # Each wrong solution is recognised as its own mistake, and the right one as none.
    assert _diagnose(good) is None
    names = {_diagnose(f) for f in (no_scaling, column_softmax, mask_after_softmax, off_by_one_inf, no_mask)}
    assert None not in names and len(names) == 5


def test_not_done_yet_and_not_a_function(capsys):
    def stub(X, W_Q, W_K, W_V):
        raise NotImplementedError

    assert not check_capstone(stub)
    assert "not done yet" in capsys.readouterr().out
    assert not check_capstone(good(*_cases()[1].args))
    assert "expected a function" in capsys.readouterr().out


def test_never_prints_expected_values(capsys):
    check_capstone(lambda X, W_Q, W_K, W_V: np.zeros((*X.shape[:-1], W_V.shape[1])))
    check_capstone(no_scaling)
    out = capsys.readouterr().out
    assert "[[" not in out and "array(" not in out
    for case in _cases():
        for v in np.ravel(case.expected)[:5]:
            assert f"{v:.3f}" not in out
