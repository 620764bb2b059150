"""2.5's self-checks after the fresh-eyes review of the notebook (each test fails on the checks as they were).

- check_softmax_backward traced its T = 1024 case with tracemalloc, which slows a Python loop 10-15 x: a correct
  naive double loop took 9-16 s and the kernel looked hung; and the learner's printing under
  ``np.set_printoptions(threshold=sys.maxsize)`` counted in the peak, so a correct closed form was refused.
- check_dot_variance did not name the standard deviation; check_score_scale did not name 1/d_k; the hints of
  ex. 4 spelled the whole result a_i(g_i - a.g).
"""

from __future__ import annotations

import math
import sys
import tracemalloc

import numpy as np

from check_verdicts import fails, passes
from helpers.checks import check_dot_variance, check_score_scale, check_softmax_backward
from helpers.checks.nb05_scaling import _SB_WRONG

TT = "不构造 T×T 的矩阵"


def double_loop(A, G):
    """(gJ)_i = sum_j g_j a_j (delta_ji - a_i), term by term: correct, no matrix, O(T^2) Python steps per row."""
    N, T = A.shape
    out = np.zeros((N, T))
    for n in range(N):
        for i in range(T):
            tot = 0.0
            for j in range(T):
                tot += G[n, j] * A[n, j] * ((1.0 if i == j else 0.0) - A[n, i])
            out[n, i] = tot
    return out


def slow_jacobian(A, G):
    """As slow as the double loop, but it fills a T x T Jacobian per row first: the task's second rule."""
    N, T = A.shape
    out = np.zeros((N, T))
    for n in range(N):
        J = np.zeros((T, T))
        for i in range(T):
            for j in range(T):
                J[i, j] = A[n, i] * ((1.0 if i == j else 0.0) - A[n, j])
        out[n] = G[n] @ J
    return out


def closed_form(A, G):
    return A * (G - np.sum(A * G, axis=-1, keepdims=True))


def _recording(fn, calls):
    """``fn`` that records, for each call, the shape of its first argument and whether tracemalloc was on."""
    def rec(A, G):
        calls.append((np.shape(A), tracemalloc.is_tracing()))
        return fn(A, G)
    return rec


def test_a_double_loop_is_never_traced_on_the_large_case(capsys):
    calls = []
    out = passes(capsys, check_softmax_backward(_recording(double_loop, calls)))
    big = [traced for shape, traced in calls if shape == (2, 1024)]
    assert big == [False], calls                        # one untraced run of the large case, no traced one
    assert ((1, 256), True) in calls                    # its memory measured on one short row instead
    assert "O(T²)" in out and "双重循环" in out and "提示（速度）" in out


def test_a_fast_answer_is_still_traced_on_the_large_case(capsys):
    calls = []
    out = passes(capsys, check_softmax_backward(_recording(closed_form, calls)))
    assert [traced for shape, traced in calls if shape == (2, 1024)] == [False, True]
    assert "提示（速度）" not in out


def test_a_slow_function_that_fills_a_jacobian_is_still_refused(capsys):
    out = fails(capsys, check_softmax_backward(slow_jacobian))
    assert TT in out and "T = 256" in out and "Traceback" not in out


def test_printing_everything_does_not_count_as_memory(capsys):
    def debug_prints(A, G):
        print("A", A)
        s = np.sum(A * G, axis=-1, keepdims=True)
        out = A * (G - s)
        if A.shape[1] == 1024:
            print("big out", out)
        return out

    with np.printoptions(threshold=sys.maxsize):
        out = passes(capsys, check_softmax_backward(debug_prints))
        assert np.get_printoptions()["threshold"] == sys.maxsize      # the learner's setting is left alone
    assert out.count("big out [[") == 1              # the learner's print of the large case shown once, in full
    assert "..." not in out.split("big out [[")[1]


def test_a_measured_function_that_raises_the_second_time_gets_a_verdict(capsys):
    seen = []

    def flaky(A, G):
        seen.append(A.shape)
        if seen.count((2, 1024)) > 1:
            raise RuntimeError("second call")
        return closed_form(A, G)

    passes(capsys, check_softmax_backward(flaky))


# ---- hints of ex. 4 point at the mistake without writing out the result -------------------------------------

def test_no_hint_of_softmax_backward_spells_the_result():
    spelled = ("a_i(g_i − a·g)", "a_i(g_i - a·g)", "a_i(a·g − g_i)", "a_i 乘以（g_i 减去", "括号里是上游梯度 g_i 减去加权平均")
    found = [(w.hint, s) for w in _SB_WRONG for s in spelled if s in w.hint]
    assert not found, found


def test_the_softmax_backward_hints_still_name_the_mistake(capsys):
    for fn, words in [(lambda A, G: -closed_form(A, G), "符号"),
                      (lambda A, G: G - np.sum(A * G, axis=-1, keepdims=True), "少乘"),
                      (lambda A, G: G * (A - np.sum(A * G, axis=-1, keepdims=True)), "对调")]:
        out = fails(capsys, check_softmax_backward(fn))
        assert words in out, out


# ---- ex. 1 and 2: the standard deviation, and dividing by d_k ----------------------------------------------

def test_dot_variance_names_the_standard_deviation(capsys):
    out = fails(capsys, check_dot_variance(lambda d, a, b: math.sqrt(d * a * b)))
    assert "返回的是标准差" in out


def test_score_scale_names_dividing_by_d_k(capsys):
    out = fails(capsys, check_score_scale(lambda d, a, b: 1 / d))
    assert "除以 d_k 而不是 √d_k" in out
    out = fails(capsys, check_score_scale(lambda d, a, b: 1 / (d * a * b)))   # the variance's inverse keeps its name
    assert "方差的倒数" in out


# ---- re-review: the speed note is for a double loop, not for a per-row loop on a loaded machine ------------------

def _slowed(seconds):
    """The closed form, ``seconds`` slower on the large case only (a per-row loop on a busy JupyterHub, or worse)."""
    import time

    def fn(A, G):
        if np.shape(A) == (2, 1024):
            time.sleep(seconds)
        return closed_form(A, G)
    return fn


def test_a_slightly_slow_answer_gets_no_double_loop_note(capsys):
    calls = []
    out = passes(capsys, check_softmax_backward(_recording(_slowed(0.1), calls)))   # over 0.05 s, under 0.3 s
    assert ((1, 256), True) in calls                    # slower than the memory path's 0.05 s: measured on one row
    assert "提示（速度）" not in out and "双重循环" not in out, out


def test_an_answer_slower_than_the_note_threshold_gets_the_note(capsys):
    out = passes(capsys, check_softmax_backward(_slowed(0.4)))
    assert "提示（速度）" in out and "O(T²)" in out, out
