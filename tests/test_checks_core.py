"""The self-check machinery: verdicts, hints, and never revealing the answer."""

import numpy as np

from helpers.checks import Case, check_array, check_softmax, run_check
from helpers.softmax import softmax


def test_pass_fail_and_not_done(capsys):
    assert check_softmax(lambda x: softmax(x))
    assert "all 5 hidden cases pass" in capsys.readouterr().out

    def stub(x):
        raise NotImplementedError

    res = check_softmax(stub)
    assert not res and res.n_passed == 0
    assert "not done yet" in capsys.readouterr().out


def test_naive_softmax_fails_on_huge_scores_with_the_overflow_hint(capsys):
    def naive(x):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(x)
            return e / e.sum(axis=-1, keepdims=True)

    res = check_softmax(naive)
    out = capsys.readouterr().out
    assert not res and res.n_passed == 3
    assert "huge scores" in out and "subtract each row's maximum" in out


def test_wrong_axis_fails_with_rowwise_hint(capsys):
    res = check_softmax(lambda x: softmax(x, axis=0) if np.ndim(x) > 1 else softmax(x))
    assert not res
    assert "axis=-1" in capsys.readouterr().out


def test_message_never_contains_expected_values(capsys):
    expected = np.array([[0.123456, 7.654321], [2.5, 9.75]])
    res = check_array("check_value", np.zeros((2, 2)), expected)
    out = capsys.readouterr().out
    assert not res
    assert "wrong values in 4 of 4 entries" in out
    for v in expected.ravel():
        assert f"{v:g}" not in out and f"{v:.3g}" not in out


def test_exceptions_and_shape_mismatch_are_reported_not_raised(capsys):
    res = run_check("c", lambda x: 1 / 0, [Case("boom", (1,), 1.0, hint="look here")])
    out = capsys.readouterr().out
    assert not res and "ZeroDivisionError" in out and "Hint: look here" in out
    res = run_check("c", lambda: np.zeros(3), [Case("shape", (), np.zeros(4))])
    assert not res and "shape (3,), expected shape (4,)" in capsys.readouterr().out
    res = run_check("c", lambda: None, [Case("none", (), 1.0)])
    assert not res and "returned None" in capsys.readouterr().out
    res = run_check("c", 42, [Case("x", (), 1.0)])
    assert not res and "expected a function" in capsys.readouterr().out
