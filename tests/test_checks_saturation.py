"""The 2.5 self-check Var(q . k): correct variants pass, the classic wrong answers are rejected."""

import math

import numpy as np

from helpers.checks import check_dot_variance
from check_verdicts import check_table, verdict_table


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


# ---- reviewer's wrong answers (each passed the check before the review) ------------------------

REVIEW_WRONG = {
    # every hidden variance used to be a whole number, so rounding went unnoticed
    "dot_variance rounds to int": (check_dot_variance, lambda d, a, b: int(d * a * b)),
    "dot_variance floor division": (check_dot_variance, lambda d, a, b: d * a * b // 1),
    "dot_variance round()": (check_dot_variance, lambda d, a, b: round(d * a * b)),
}


test_review_wrong_answers_are_rejected = verdict_table([(check, fn, False) for check, fn in REVIEW_WRONG.values()],
                                                       fail_says=["提示（hint）"])


def test_non_integer_variance_still_accepts_float32(capsys):
    assert check_dot_variance(lambda d, a, b: np.float32(d) * np.float32(a) * np.float32(b))
