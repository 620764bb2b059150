"""check_causal_worked_example (2.8 transfer) accepts correct variants and rejects the classic wrong answers."""

import numpy as np

from helpers.checks import check_causal_worked_example
from check_verdicts import check_table

# The example's Q, K, V, written out by hand (see tests/test_book.py for the derivation).
Q = np.array([[2, 1], [0, 1], [1, 1], [1, 1]], dtype=float)
K = np.array([[0, 2], [2, 0], [1, 1], [1, 1]], dtype=float)
V = np.array([[2, 1], [0, 2], [1, 2], [1, 1]], dtype=float)
ALLOWED = np.tril(np.ones((4, 4), dtype=bool))


def _softmax_rows(S):
    E = np.exp(S - np.nanmax(np.where(np.isfinite(S), S, np.nan), axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def correct_where():
    S = np.where(ALLOWED, Q @ K.T / np.sqrt(2), -np.inf)
    A = _softmax_rows(S)
    return A, A @ V


def correct_loop():           # row by row, only the visible keys: a different but correct route
    A = np.zeros((4, 4))
    for i in range(4):
        s = np.array([Q[i] @ K[j] for j in range(i + 1)]) / np.sqrt(2)
        e = np.exp(s)
        A[i, : i + 1] = e / e.sum()
    return A, A @ V


def correct_large_negative():  # -1e9 instead of -inf
    S = np.where(ALLOWED, Q @ K.T / np.sqrt(2), -1e9)
    A = _softmax_rows(S)
    return A, A @ V


def correct_renormalised_after():  # zero the future and renormalise: the same distribution
    A = _softmax_rows(Q @ K.T / np.sqrt(2)) * ALLOWED
    A = A / A.sum(axis=1, keepdims=True)
    return A, A @ V


def wrong_mask_after_softmax():    # zero the future without renormalising
    A = _softmax_rows(Q @ K.T / np.sqrt(2)) * ALLOWED
    return A, A @ V


def wrong_off_by_one():            # strictly lower: a token cannot see itself
    S = np.where(np.tril(np.ones((4, 4), dtype=bool), k=-1), Q @ K.T / np.sqrt(2), -1e9)
    A = _softmax_rows(S)
    return A, A @ V


def wrong_one_future_token():
    S = np.where(np.tril(np.ones((4, 4), dtype=bool), k=1), Q @ K.T / np.sqrt(2), -np.inf)
    A = _softmax_rows(S)
    return A, A @ V


def wrong_anti_causal():           # upper triangle: the future instead of the past
    S = np.where(ALLOWED.T, Q @ K.T / np.sqrt(2), -np.inf)
    A = _softmax_rows(S)
    return A, A @ V


def wrong_no_scale():
    S = np.where(ALLOWED, Q @ K.T, -np.inf)
    A = _softmax_rows(S)
    return A, A @ V


def wrong_unmasked():
    A = _softmax_rows(Q @ K.T / np.sqrt(2))
    return A, A @ V


def wrong_rounded_like_the_book():
    A, _ = correct_where()
    A = np.round(A, 3)
    return A, A @ V


def wrong_transposed_weights():
    A, _ = correct_where()
    return A.T, A.T @ V


test_accepts_correct_variants, test_rejects_classic_wrong_answers = check_table(
    check_causal_worked_example, [correct_where, correct_loop, correct_large_negative, correct_renormalised_after],
    [wrong_mask_after_softmax, wrong_off_by_one, wrong_one_future_token, wrong_anti_causal, wrong_no_scale,
     wrong_unmasked, wrong_rounded_like_the_book, wrong_transposed_weights], ok_says=["通过"], wrong_says=["提示"])


def test_not_done_yet_and_bad_return(capsys):
    def stub():
        raise NotImplementedError

    assert not check_causal_worked_example(stub)
    assert "尚未完成" in capsys.readouterr().out
    assert not check_causal_worked_example(lambda: correct_where()[0])


# ---- the transfer exercise is numpy only: the attention helpers are refused (review) -------------------------

import helpers as H  # noqa: E402

X_nb, W_Q_nb, W_K_nb, W_V_nb = (H.book.example_inputs()[k] for k in ("X", "W_Q", "W_K", "W_V"))


def uses_self_attention():
    r = H.self_attention(X_nb, W_Q_nb, W_K_nb, W_V_nb, causal=True)
    return r.weights, r.output


def uses_softmax():
    S = np.where(ALLOWED, Q @ K.T / np.sqrt(2), -np.inf)
    A = H.softmax(S)
    return A, A @ V


def calls_through_own_wrapper():        # the learner's own function, which delegates to helpers
    return uses_self_attention()


def test_helpers_results_are_right():    # the refused functions do compute the right answer: refusal is the rule
    A, out = correct_where()
    assert all(np.allclose(x, y) for x, y in zip(uses_self_attention(), (A, out)))


def test_attention_helpers_are_refused(capsys):
    for fn in (uses_self_attention, uses_softmax, calls_through_own_wrapper):
        assert not check_causal_worked_example(fn)
        out = capsys.readouterr().out
        assert out.startswith("\u274c") and "只用 numpy" in out and "helpers" in out, out
        assert "Traceback" not in out


def test_not_a_function_gets_a_verdict(capsys):
    assert not check_causal_worked_example(correct_where())
    assert "需要传入一个函数" in capsys.readouterr().out


# ---- fresh-eyes review (r2): the slip actually made is named; a bad return is not called an exception -------

def test_classic_slips_are_named(capsys):
    from check_verdicts import fails
    for fn, words in [(wrong_mask_after_softmax, "先对整行做 softmax"), (wrong_anti_causal, "方向反了"),
                      (wrong_no_scale, "√d_k = √2")]:
        out = fails(capsys, check_causal_worked_example(fn))
        assert words in out, (fn.__name__, out)

    def diagonal_hidden():          # j < i instead of j <= i; row 1 has no key left (-1e9: uniform)
        S = np.where(np.tril(np.ones((4, 4), dtype=bool), -1), Q @ K.T / np.sqrt(2), -1e9)
        A = _softmax_rows(S)
        return A, A @ V

    out = fails(capsys, check_causal_worked_example(diagonal_hidden))
    assert "连对角线也挡住了" in out, out


def test_a_forgotten_return_or_a_bare_array_is_not_called_an_exception(capsys):
    from check_verdicts import fails

    def forgot_return():
        correct_where()

    out = fails(capsys, check_causal_worked_example(forgot_return))
    assert "返回了 None" in out and "抛出了异常" not in out, out
    out = fails(capsys, check_causal_worked_example(lambda: correct_where()[0]))
    assert "要返回一对 (weights, output)" in out and "抛出了异常" not in out, out


def wrong_scaled_by_sqrt_d_model():   # sqrt of X's width (d_model = 4) instead of sqrt(d_k) = sqrt(2)
    S = np.where(ALLOWED, Q @ K.T / 2.0, -np.inf)
    A = _softmax_rows(S)
    return A, A @ V


def wrong_rounded_to_2():
    A, _ = correct_where()
    A = np.round(A, 2)
    return A, A @ V


# Review: these got the mask hint ending "别忘了除以 √d_k" though their mask is right: each is named now.
test_named_accepts, test_named_rejects = check_table(
    check_causal_worked_example, {"correct": correct_where},
    {"weights rounded to 3 decimals": (wrong_rounded_like_the_book, ["3 位小数", "1e-4"]),
     "weights rounded to 2 decimals": (wrong_rounded_to_2, ["2 位小数", "1e-4"]),
     "scaled by sqrt(d_model)": (wrong_scaled_by_sqrt_d_model, ["√d_model", "√d_k = √2"])})


def test_a_named_mistake_is_not_given_the_mask_hint(capsys):
    for fn in (wrong_rounded_like_the_book, wrong_scaled_by_sqrt_d_model):
        assert not check_causal_worked_example(fn)
        out = capsys.readouterr().out
        assert "被挡住的键" not in out, out
