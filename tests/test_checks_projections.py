"""The self-checks of 2.3/2.4 pass correct answers, fail the typical mistakes with a hint,
and never print the expected values."""

import re

import numpy as np
import pytest

from check_verdicts import check_table, verdict_table
from helpers.checks import (
    check_additive_scores,
    check_cross_project,
    check_project,
    check_scores,
)


def _run(check, fn, capsys):
    result = check(fn)
    out = capsys.readouterr().out
    return result, out


# ---- correct answers pass (written independently of the helpers); typical mistakes fail with the case and a hint

PROJECT_OK = [lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wk, X @ Wv)]
PROJECT_WRONG = [
    (lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wq, X @ Wv), "W_K"),  # reused W_Q for K
    (lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wk, X @ Wk), "d_v"),  # V from W_K
    (lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wk), "元组"),
    (lambda X, Wq, Wk, Wv: (X @ Wk, X @ Wq, X @ Wv), "W_Q"),  # Q and K swapped
    lambda X, Wq, Wk, Wv: (X @ Wq, X @ Wk, X @ Wv * 1.04),
]
CROSS_OK = [lambda Xq, Xkv, Wq, Wk, Wv: (Xq @ Wq, Xkv @ Wk, Xkv @ Wv)]
CROSS_WRONG = [
    (lambda Xq, Xkv, Wq, Wk, Wv: (Xq @ Wq, Xq @ Wk, Xq @ Wv), "X_kv"),
    (lambda Xq, Xkv, Wq, Wk, Wv: (Xkv @ Wq, Xq @ Wk, Xq @ Wv), "X_q"),
]
SCORES_OK = [lambda Q, K: np.einsum("id,jd->ij", Q, K)]
SCORES_WRONG = [
    (lambda Q, K: K @ Q.T, "transpose"),  # square case catches it
    (lambda Q, K: (Q @ K.T).T, "transpose"),
    (lambda Q, K: Q @ K, "提示（hint）"),  # raises inside: shapes don't multiply
    (lambda Q, K: (Q @ K.T).sum(axis=1), "形状"),
    (lambda Q, K: Q @ K.T / np.sqrt(Q.shape[1]), "未缩放"),  # scaled too early
    lambda Q, K: 1.04 * Q @ K.T,
]
ADDITIVE_OK = [lambda Q, K, Wq, Wk, w: np.array([[w @ np.tanh(q @ Wq + k @ Wk) for k in K] for q in Q])]
ADDITIVE_WRONG = [
    (lambda Q, K, Wq, Wk, w: np.tanh(Q @ Wq @ w[:, None] + (K @ Wk @ w)[None, :]), "tanh"),
    (lambda Q, K, Wq, Wk, w: np.array([[w @ np.tanh(q @ Wq + k @ Wk) for q in Q] for k in K]), "pairs q_i with k_j"),
]
CHECKS = [check_project, check_cross_project, check_scores, check_additive_scores]

test_project_accepts, test_project_rejects = check_table(check_project, PROJECT_OK, PROJECT_WRONG,
                                                         wrong_says=["个用例"], min_cases=3)
test_cross_project_accepts, test_cross_project_rejects = check_table(check_cross_project, CROSS_OK, CROSS_WRONG,
                                                                     wrong_says=["个用例"], min_cases=3)
test_scores_accepts, test_scores_rejects = check_table(check_scores, SCORES_OK, SCORES_WRONG,
                                                       wrong_says=["个用例"], min_cases=3)
test_additive_scores_accepts, test_additive_scores_rejects = check_table(
    check_additive_scores, ADDITIVE_OK, ADDITIVE_WRONG, wrong_says=["个用例"], min_cases=3)


@pytest.mark.parametrize("check", CHECKS)
def test_stub_reports_not_done_yet(check, capsys):
    def stub(*args):
        raise NotImplementedError

    result, out = _run(check, stub, capsys)
    assert not result and result.n_passed == 0
    assert out.startswith("\u23f3") and "尚未完成" in out


def test_messages_never_show_expected_numbers(capsys):
    # A wrong answer of the right shape: the message gives how many entries are off, never a value.
    result, out = _run(check_scores, lambda Q, K: np.zeros((Q.shape[0], K.shape[0])), capsys)
    assert not result
    assert re.findall(r"-?\d+\.\d+", out) == []
    assert "[[" not in out and "array(" not in out


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

def _add(Q, K, W_q, W_k, w):
    return np.tanh((Q @ W_q)[:, None, :] + (K @ W_k)[None, :, :]) @ w


REVIEW_PROJECTIONS = [
    (check_project, lambda X, a, b, c: [X @ a, X @ b, X @ c], True),                         # a list is fine
    (check_project, lambda X, a, b, c: ((a.T @ X.T).T, (b.T @ X.T).T, (c.T @ X.T).T), True),
    (check_project, lambda X, a, b, c: np.stack([X @ a, X @ b, X @ c]), False),               # one array, not (Q, K, V)
    (check_project, lambda X, a, b, c: {"Q": X @ a, "K": X @ b, "V": X @ c}, False),
    (check_cross_project, lambda Xq, Xkv, a, b, c: (Xkv @ a, Xq @ b, Xq @ c), False),          # roles swapped
    (check_scores, lambda Q, K: (K @ Q.T) if Q.shape == K.shape else Q @ K.T, False),         # transposed on square input only
    (check_scores, lambda Q, K: (Q / np.linalg.norm(Q, axis=1, keepdims=True))
     @ (K / np.linalg.norm(K, axis=1, keepdims=True)).T, False),                               # cosine, not dot product
    (check_scores, lambda Q, K: np.einsum("id,jd->ij", Q, K).tolist(), True),
    (check_additive_scores, lambda Q, K, Wq, Wk, w: np.tanh(((Q @ Wq)[:, None, :] + (K @ Wk)[None]) @ w), False),
    (check_additive_scores, lambda Q, K, Wq, Wk, w: (np.tanh(Q @ Wq)[:, None, :] + np.tanh(K @ Wk)[None]) @ w, False),
    (check_additive_scores, lambda Q, K, Wq, Wk, w: _add(Q, K, Wk, Wq, w) if Wq.shape == Wk.shape else _add(Q, K, Wq, Wk, w), False),
]


test_review_projection_variants = verdict_table(REVIEW_PROJECTIONS)
