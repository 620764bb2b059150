"""The 2.5/2.6 self-checks Var(q . k) and "is this an attention matrix?": correct variants pass, the classic
wrong answers are rejected."""

import math

import numpy as np
import pytest

import helpers as H

from helpers.checks import (
    check_dot_variance,
    check_is_attention_matrix,
)
from check_verdicts import check_table, fails, verdict_table


# ---- check_dot_variance ---------------------------------------------------------------------

def _monte_carlo(d_k, var_q, var_k, n=20000):
    rng = np.random.default_rng(0)
    q = rng.normal(scale=math.sqrt(var_q), size=(n, int(d_k)))
    k = rng.normal(scale=math.sqrt(var_k), size=(n, int(d_k)))
    return float(np.var(np.sum(q * k, axis=1)))


VARIANCE_OK = [lambda d, a, b: d * a * b, lambda d, a, b: float(sum(a * b for _ in range(d))),
               lambda d, a, b: np.float32(d * a * b), lambda d, a, b: np.array(d * a * b)]
VARIANCE_WRONG = {
    "1.04 x": lambda d, a, b: 1.04 * d * a * b,
    "0.97 x": lambda d, a, b: 0.97 * d * a * b,
    "sum of the variances": lambda d, a, b: d * (a + b),
    "forgets d_k": lambda d, a, b: a * b,
    "sqrt(d_k)": lambda d, a, b: math.sqrt(d) * a * b,
    "ignores var_k": lambda d, a, b: d * a,
    "std instead of var": lambda d, a, b: d * math.sqrt(a * b),
    "variances squared": lambda d, a, b: d * (a * b) ** 2,
    "d_k squared": lambda d, a, b: d * d * a * b,
    "Monte Carlo estimate": _monte_carlo,
}


test_dot_variance_correct_variants_pass, test_dot_variance_rejects = check_table(
    check_dot_variance, VARIANCE_OK, VARIANCE_WRONG, wrong_says=["提示（hint）"])


# ---- check_is_attention_matrix --------------------------------------------------------------

def attn_ok(A):
    A = np.asarray(A, dtype=float)
    return bool(np.all(A >= 0) and np.allclose(A.sum(axis=-1), 1.0, rtol=0.0, atol=1e-6))


ATTN_OK = [attn_ok,
           lambda A: bool((np.asarray(A) >= 0).all() and np.allclose(np.sum(A, axis=1), 1)),   # numpy defaults
           lambda A: all(min(row) >= 0 and abs(sum(row) - 1) <= 1e-6 for row in np.asarray(A).tolist()),
           lambda A: np.all(A >= 0) & np.all(np.abs(A.sum(axis=-1) - 1) < 1e-6)]                # np.bool_
ATTN_WRONG = {
    "column sums (axis=0)": lambda A: bool(np.all(A >= 0) and np.allclose(A.sum(axis=0), 1)),
    "tolerance 0.3": lambda A: bool(np.all(A >= 0) and np.allclose(A.sum(axis=-1), 1, atol=0.31)),
    "tolerance 0.01": lambda A: bool(np.all(A >= 0) and np.allclose(A.sum(axis=-1), 1, atol=0.01)),
    "total sum == T": lambda A: bool(np.all(A >= 0) and np.isclose(A.sum(), A.shape[0])),
    "mean row sum": lambda A: bool(np.all(A >= 0) and np.isclose(A.sum(axis=-1).mean(), 1)),
    "ignores negatives": lambda A: bool(np.allclose(A.sum(axis=-1), 1)),
    "strictly positive": lambda A: bool(np.all(A > 0) and np.allclose(A.sum(axis=-1), 1)),
    "exact equality": lambda A: bool(np.all(A >= 0) and np.all(A.sum(axis=-1) == 1)),
    "only non-negative": lambda A: bool(np.all(A >= 0)),
    "square only": lambda A: bool(A.shape[0] == A.shape[1] and attn_ok(A)),
    "ignores NaN": lambda A: bool(np.all(np.nan_to_num(A) >= 0) and np.allclose(np.nansum(A, axis=-1)[~np.isnan(A).all(-1)], 1)),
    "always True": lambda A: True,
    # the task states the tolerance 1e-6 (issue 20: a stated tolerance is enforced)
    "tolerance 1e-9": lambda A: all(min(row) >= 0 and abs(sum(row) - 1) <= 1e-9 for row in np.asarray(A).tolist()),
    "tolerance 1e-4": lambda A: np.all(A >= 0) & np.all(np.abs(A.sum(axis=-1) - 1) < 1e-4),
    # fresh-eyes review: it passed every case (no negative row had absolute values summing to 1)
    "absolute values sum to 1": (lambda A: bool(np.allclose(np.abs(A).sum(axis=-1), 1.0, atol=1e-6, rtol=0)), "绝对值"),
}


test_is_attention_matrix_correct_variants_pass, test_is_attention_matrix_rejects = check_table(
    check_is_attention_matrix, ATTN_OK, ATTN_WRONG, wrong_says=["提示（hint）"])


@pytest.mark.parametrize("fn", [lambda A: H.is_distribution(A),
                                lambda A: bool(np.all(np.isfinite(A)) and H.is_distribution(A))],
                         ids=["copied", "behind a finite guard"])
def test_is_attention_matrix_refuses_the_helper_the_notebook_shows(fn, capsys):
    """Fresh-eyes review: H.is_distribution, shown a few cells above the exercise, did the whole exercise."""
    out = fails(capsys, check_is_attention_matrix(fn))
    assert "只用 numpy" in out and "H.is_distribution" in out, out


# ---- reviewer's wrong answers (each passed the check before the review) ------------------------

REVIEW_WRONG = {
    # every hidden variance used to be a whole number, so rounding went unnoticed
    "dot_variance rounds to int": (check_dot_variance, lambda d, a, b: int(d * a * b)),
    "dot_variance floor division": (check_dot_variance, lambda d, a, b: d * a * b // 1),
    "dot_variance round()": (check_dot_variance, lambda d, a, b: round(d * a * b)),
    # the only negative weight was 1.2/-0.2, so "every entry <= 1" caught it as well as ">= 0"
    "is_attention checks <= 1 instead of >= 0": (
        check_is_attention_matrix, lambda A: bool(np.all(A <= 1) and np.allclose(A.sum(axis=-1), 1, atol=1e-6))),
    "is_attention checks the diagonal only for negatives": (
        check_is_attention_matrix,
        lambda A: bool(np.all(A.max(axis=-1) <= 1) and np.all(A[:, 0] >= 0) and np.allclose(A.sum(axis=-1), 1))),
}


test_review_wrong_answers_are_rejected = verdict_table([(check, fn, False) for check, fn in REVIEW_WRONG.values()],
                                                       fail_says=["提示（hint）"])


def test_non_integer_variance_still_accepts_float32(capsys):
    assert check_dot_variance(lambda d, a, b: np.float32(d) * np.float32(a) * np.float32(b))


# ---- re-review: each classic slip is named, not given the first failing case's hint ------------------------

def _attn_row_loop_lets_nan_through(A):
    for row in np.asarray(A, dtype=float):
        if row.min() < 0:                      # NaN < 0 is False
            return False
        if abs(row.sum() - 1) > 1e-6:          # NaN > 1e-6 is False too
            return False
    return True


ATTN_NAMED = {
    "column sums (axis=0)": (lambda A: bool(np.all(A >= 0) and np.allclose(A.sum(axis=0), 1)), "列和"),
    "column sums, tolerance 1e-6": (
        lambda A: bool(np.all(A >= 0) and np.all(np.abs(np.sum(A, axis=0) - 1) <= 1e-6)), "列和"),
    "total sum == T": (lambda A: bool(np.all(A >= 0) and np.isclose(A.sum(), A.shape[0])), "总和等于行数 T"),
    "mean of the row sums": (lambda A: bool(np.all(A >= 0) and np.isclose(A.sum(axis=-1).mean(), 1)), "总和等于行数 T"),
    "exact equality": (lambda A: bool(np.all(A >= 0) and np.all(A.sum(axis=-1) == 1)), "严格相等"),
    "exact equality, np.array_equal": (
        lambda A: bool((A >= 0).all() and np.array_equal(A.sum(axis=1), np.ones(A.shape[0]))), "严格相等"),
    "row loop: False on a failing comparison, else True": (_attn_row_loop_lets_nan_through, "每一个条件都成立"),
    "vectorised: not (any negative or any row off)": (
        lambda A: not (np.any(A < 0) or np.any(np.abs(A.sum(axis=-1) - 1) > 1e-6)), "每一个条件都成立"),
}


test_is_attention_matrix_accepts_with_named_slips, test_is_attention_matrix_names_the_slip = check_table(
    check_is_attention_matrix, ATTN_OK, ATTN_NAMED, wrong_says=["提示（hint）"])


@pytest.mark.parametrize("label", ["column sums (axis=0)", "total sum == T", "exact equality",
                                   "row loop: False on a failing comparison, else True"])
def test_is_attention_matrix_slip_hints_do_not_show_code(label, capsys):
    """A hint names the mistake in words: no numpy call, no comparison written out as code."""
    out = fails(capsys, check_is_attention_matrix(ATTN_NAMED[label][0]))
    hint = out.split("提示（hint）：", 1)[1]
    for code in ("np.", "axis=", ".sum(", "allclose", "isclose", "== 1", "return"):
        assert code not in hint, (code, hint)
