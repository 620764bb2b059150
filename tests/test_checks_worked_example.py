"""2.8's exercise 1 (issue 30): the scaled score S'[1,2] that gives A[1,2] a chosen weight, the softmax of the
book's row 1 inverted for one entry. Expected values here come from bisection on the series' softmax, not from
the closed form the check uses."""

import math

import numpy as np
import pytest
from check_verdicts import check_table, fails

import helpers as H
from helpers.checks import check_score_for_weight

_EX = H.book.exact_values()
ROW_1 = _EX["Q"][0] @ _EX["K"].T / math.sqrt(2.0)            # sqrt 2, 2 sqrt 2, 3/sqrt 2, 3/sqrt 2
REST = float(np.exp(ROW_1[[0, 2, 3]]).sum())                # the three terms that stay


def _weight_12(x):
    s = ROW_1.copy()
    s[1] = x
    return float(H.softmax(s)[1])


def by_bisection(target):
    lo, hi = -50.0, 50.0                      # A[1,2] grows with x: halve the bracket until it is tiny
    while hi - lo > 1e-12:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _weight_12(mid) < target else (lo, mid)
    return (lo + hi) / 2


def closed_form(target):
    rest = math.exp(math.sqrt(2)) + 2 * math.exp(3 / math.sqrt(2))
    return math.log(target * rest / (1 - target))


def log_odds_plus_log_rest(target):
    return float(np.log(target) - np.log1p(-target) + np.log(REST))


@pytest.mark.parametrize("target, score", [(_EX["A"][0, 1], 2 * math.sqrt(2)), (0.25, None), (0.4495, None)])
def test_bisection_is_an_independent_reference(target, score):
    x = by_bisection(target)
    assert abs(_weight_12(x) - target) < 1e-9
    if score is not None:                     # the exact weight gives back the exact score 2 sqrt 2
        assert abs(x - score) < 1e-9


def test_the_books_0450_needs_more_than_its_printed_score():
    # the property exercise 1 asks the learner to verify: even S' = 2.83 (the book's) gives a weight below 0.4495
    assert by_bisection(0.4495) > 2.83 and _weight_12(2.83) < 0.4495


test_score_for_weight_accepts, test_score_for_weight_rejects = check_table(
    check_score_for_weight,
    {"bisection on the softmax": by_bisection, "closed form": closed_form, "log-odds": log_odds_plus_log_rest,
     "numpy float": lambda t: np.float64(closed_form(t))},
    {"log of target": (lambda t: math.log(t), "只取了 target 的对数"),
     "log-odds only": (lambda t: math.log(t / (1 - t)), "漏掉了另外三项之和"),
     "denominator held fixed": (lambda t: math.log(t * float(np.exp(ROW_1).sum())), "把分母当成了不变的数"),
     "no 1 - target": (lambda t: math.log(t * REST), "漏了 1 − target"),
     "old term kept": (lambda t: math.log(t * float(np.exp(ROW_1).sum()) / (1 - t)), "多算了原来的"),
     "3/sqrt 2 once": (lambda t: math.log(t * (math.exp(math.sqrt(2)) + math.exp(3 / math.sqrt(2))) / (1 - t)),
                       "出现了两次"),
     "book's rounded scores": (lambda t: math.log(t * (math.exp(1.41) + 2 * math.exp(2.12)) / (1 - t)), "舍入过的分数"),
     "unscaled scores": (lambda t: math.log(t * (math.exp(2) + 2 * math.exp(3)) / (1 - t)), "没有除以 √2"),
     "unscaled answer": (lambda t: math.sqrt(2) * closed_form(t), "缩放前的分数"),
     "log10": (lambda t: math.log10(t * (math.exp(math.sqrt(2)) + 2 * math.exp(3 / math.sqrt(2))) / (1 - t)), "以 10 为底"),
     "bisection stopped early": (lambda t: round(by_bisection(t), 3), "数值不对"),
     "array of one": (lambda t: np.array([closed_form(t)]), "形状")})


def test_a_raising_function_gets_a_message_not_a_traceback(capsys):
    out = fails(capsys, check_score_for_weight(lambda t: math.log(-t)))
    assert "ValueError" in out and "Traceback" not in out
