"""The 2.8 exercise self-check: one row of the worked example, by hand."""

import math

import helpers as H

import pytest

from helpers.checks import check_worked_example_row

R2 = math.sqrt(2.0)


def _row2():
    # S[2,:] = q2 . k_j = (0,1).(0,2), (0,1).(2,0), (0,1).(1,1), (0,1).(1,1) = (2, 0, 1, 1)
    e = [math.exp(2 / R2), 1.0, math.exp(1 / R2), math.exp(1 / R2)]
    a = [x / sum(e) for x in e]
    V = [(2, 1), (0, 2), (1, 2), (1, 1)]
    out = [sum(a[j] * V[j][c] for j in range(4)) for c in range(2)]
    return a, out


def test_hand_computed_row_passes(capsys):
    assert check_worked_example_row(_row2, row=2)
    assert "\u2705" in capsys.readouterr().out


def test_row_three_is_uniform():
    assert check_worked_example_row(lambda: ([0.25] * 4, [1.0, 1.5]), row=3)


def test_the_books_rounded_row_fails(capsys):
    assert not check_worked_example_row(lambda: ([0.448, 0.109, 0.222, 0.222], [1.337, 1.224]), row=2)
    out = capsys.readouterr().out
    assert "保持全精度" in out
    assert "0.4485" not in out  # never prints the answer


def test_wrong_output_with_right_weights_fails(capsys):
    a, _ = _row2()
    assert not check_worked_example_row(lambda: (a, [1.340, 1.332]), row=2)
    assert "output[2, :]" in capsys.readouterr().out


def test_row_one_values_do_not_pass_for_row_two():
    a, out = _row2()
    a1 = [a[1], a[0], a[2], a[3]]  # row 1 is row 2 with the first two weights swapped
    V = [(2, 1), (0, 2), (1, 2), (1, 1)]
    out1 = [sum(a1[j] * V[j][c] for j in range(4)) for c in range(2)]
    assert abs(out1[0] + out[0] - 2) < 1e-12 and abs(out1[1] + out[1] - 3) < 1e-12  # rows 1+2 = (2, 3)
    assert check_worked_example_row(lambda: (a1, out1), row=1)
    assert not check_worked_example_row(lambda: (a1, out), row=2)


def test_stub_and_bad_returns_do_not_raise(capsys):
    def stub():
        raise NotImplementedError

    assert not check_worked_example_row(stub)
    assert "尚未完成" in capsys.readouterr().out
    assert not check_worked_example_row(lambda: [0.1, 0.2, 0.3])
    assert "return a pair" in capsys.readouterr().out  # the Chinese message keeps the English term
    assert not check_worked_example_row(lambda: ([0.25] * 3, [1.0, 1.5]))
    assert "形状（shape）是 (3,)" in capsys.readouterr().out
    assert not check_worked_example_row(([0.25] * 4, [1.0, 1.5]))
    assert "需要传入一个函数" in capsys.readouterr().out


@pytest.mark.parametrize("row", [0, 5, 2.0, True, "2"])
def test_invalid_row(row):
    with pytest.raises(ValueError, match="row must be 1, 2, 3 or 4"):
        check_worked_example_row(_row2, row=row)


def test_classic_slips_fail(capsys):
    a, out = _row2()
    E = [math.exp(s) for s in (2, 0, 1, 1)]            # forgot the 1/sqrt(2) scale
    a_unscaled = [x / sum(E) for x in E]
    assert not check_worked_example_row(lambda: (a_unscaled, out), row=2)
    assert not check_worked_example_row(lambda: ([1.04 * x for x in a], out), row=2)
    assert not check_worked_example_row(lambda: (a, [1.04 * x for x in out]), row=2)
    assert not check_worked_example_row(lambda: ([0.25] * 4, [1.0, 1.5]), row=2)   # row 3's answer


# ---- reviewer's wrong answers: constants typed with 3-4 decimals used to pass (atol was 1e-4) ----

def _review_row2(sqrt2=math.sqrt(2), base=math.e):
    import numpy as np
    exact_values = H.book.exact_values

    ex = exact_values()
    s = ex["Q"][1] @ ex["K"].T / sqrt2
    e = base ** (s - s.max())
    w = e / e.sum()
    return w, w @ ex["V"]


@pytest.mark.parametrize("kwargs", [dict(sqrt2=1.414), dict(sqrt2=1.4142), dict(base=2.718)],
                         ids=["sqrt2=1.414", "sqrt2=1.4142", "e=2.718"])
def test_review_rounded_constants_fail(kwargs, capsys):
    assert not check_worked_example_row(lambda: _review_row2(**kwargs), row=2)
    assert "\u274c" in capsys.readouterr().out


def test_review_full_precision_variants_pass(capsys):
    import numpy as np

    assert check_worked_example_row(lambda: _review_row2(), row=2)
    assert check_worked_example_row(lambda: tuple(np.float32(x).tolist() for x in _review_row2()), row=2)
