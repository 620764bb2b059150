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


@pytest.mark.parametrize("row, said", [(0, "传入的是 0"), (9, "传入的是 9"), (2.0, "一个小数 2.0"), (True, "True（bool"),
                                       ("2", "'2'（str"), ("a", "'a'（str")])
def test_invalid_row_is_a_verdict_not_a_traceback(row, said, capsys):
    # row is typed in the exercise cell: a wrong one gets a Chinese verdict line, never a ValueError (review)
    result = check_worked_example_row(_row2, row=row)
    out = capsys.readouterr().out
    assert not result and out.startswith("\u274c") and "row 只能是整数 1、2、3 或 4" in out and said in out, out
    assert "Traceback" not in out and "Error" not in out


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


# ---- checks review (issue 20, a novice's own answers): the slip actually made is named ---------------------

from check_verdicts import check_table  # noqa: E402


def _review_row(row0, scale=math.sqrt(2), digits=None):
    import numpy as np
    ex = H.book.exact_values()
    s = ex["Q"][row0] @ ex["K"].T / scale
    if digits is not None:
        s = np.round(s, digits)
    w = np.exp(s) / np.exp(s).sum()
    return w, w @ ex["V"]


test_review_row_accepts, test_review_row_names_the_slip = check_table(
    lambda fn: check_worked_example_row(fn, row=2), [lambda: tuple(a.tolist() for a in _review_row(1))], {
        "0-based row 2 (the third token)": (lambda: _review_row(2), "书中的行从 1 开始数"),
        "no scaling": (lambda: _review_row(1, scale=1.0), "没有除以 √2"),
        "scores rounded to 2 decimals": (lambda: _review_row(1, digits=2), "中间结果被舍入了"),
        "sqrt(2) typed as 1.414": (lambda: _review_row(1, scale=1.414), "√2 只写了几位小数"),
        "e typed as 2.718": (lambda: _review_row2(base=2.718), "e 只写了几位小数"),
    })


# ---- 2.8 prints the whole A and output above exercise 1: returning their rows is refused (fresh-eyes review) ----

import numpy as np  # noqa: E402

_EX = H.book.exact_values()
A, out = _EX["A"].copy(), _EX["output"].copy()          # the notebook's globals A, out, under the notebook's names
Q_nb, K_nb, V_nb = _EX["Q"], _EX["K"], _EX["V"]
A_mine = _EX["A"].copy()                                # the learner's own matrix from an earlier cell of theirs


def _by_hand_from_globals():
    s = K_nb @ Q_nb[1] / np.sqrt(2)
    w = np.exp(s) / np.exp(s).sum()
    return w, w @ V_nb


@pytest.mark.parametrize("fn, accepted", [
    (lambda: (A[1], out[1]), False),                              # copies both printed rows
    (lambda: (A[1], A[1] @ V_nb), False),                         # copies the weights, computes the output
    (_by_hand_from_globals, True),                                # reads the inputs Q, K, V: that is the task
    (lambda: (A_mine[1], A_mine[1] @ V_nb), True),                # the learner's own earlier work is not "read above"
], ids=["A[1], out[1]", "A[1] @ V", "by hand from Q, K, V", "own A_mine"])
def test_row_by_hand_refuses_the_printed_result(fn, accepted, capsys):
    assert bool(check_worked_example_row(fn, row=2)) is accepted
    out = capsys.readouterr().out
    assert ("已经算好的" in out) is (not accepted), out


# ---- rounded weights or outputs: the hint names the rounding actually done, not S' rounded to 2 (review) -------

_W2, _OUT2 = _EX["A"][1], _EX["output"][1]
_BOOK = {q.key: H.book.book_array(q) for q in H.book.BOOK_QUANTITIES}

test_rounding_accepts, test_rounding_names_the_slip = check_table(
    lambda fn: check_worked_example_row(fn, row=2), [lambda: (_W2.copy(), _OUT2.copy())], {
        "book's printed row (2.8's own demo cell)": (lambda: (_BOOK["A_row2"], _BOOK["output"][1]), "书里印出来的数字"),
        "weights rounded to 3 decimals": (lambda: (np.round(_W2, 3), np.round(_W2, 3) @ V_nb), "权重只保留了 3 位小数"),
        "weights copied at 4 decimals": (lambda: (np.round(_W2, 4), np.round(_W2, 4) @ V_nb), "权重只保留了 4 位小数"),
        "output rounded to 3 decimals": (lambda: (_W2, np.round(_OUT2, 3)), "输出被四舍五入"),
        "output rounded to 4 decimals": (lambda: (_W2, np.round(_OUT2, 4)), "输出被四舍五入"),
    })
