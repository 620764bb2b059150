"""2.5's faded derivation: Var(q·k) line by line for components with a mean, numbers per seed, each line checked.

The right values are derived here from the moments (and one line is confirmed by sampling); the wrong ones
are the classic slips of each line. The tables run on the default seed, the sweep on 60 seeds. Last, 2.5
itself: the faded derivation follows section 1's derivation, one blank per line, each with its prompt.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pytest
from check_verdicts import CJK, check_table
from nbcells import cells as _cells, src as _src, tags as _tags

from helpers.checks import check_faded_derivation, faded_moments

M = faded_moments()


def _values(m):
    """The four lines, from the definitions: E[XY] = E[X]E[Y] (independent), E[X^2] = Var + mean^2."""
    e1 = m.mean_q * m.mean_k
    e2q, e2k = m.var_q + m.mean_q ** 2, m.var_k + m.mean_k ** 2
    return {1: e1, 2: e2q, 3: e2q * e2k - e1 ** 2, 4: m.d_k * (e2q * e2k - e1 ** 2)}, e2k


V, E2K = _values(M)


def _line(k):
    return lambda fn: check_faded_derivation(fn, line=k)


test_line_1_accepts, test_line_1_rejects = check_table(
    _line(1), {"int": lambda: V[1], "float": lambda: float(V[1]), "numpy scalar": lambda: np.float64(V[1])},
    {"the mean-0 result": (lambda: 0, "均值为 0"), "a sum": (lambda: M.mean_q + M.mean_k, "不是和")})
test_line_2_accepts, test_line_2_rejects = check_table(
    _line(2), {"exact": lambda: V[2], "expression": lambda: M.var_q + M.mean_q * M.mean_q},
    {"the variance": (lambda: M.var_q, "把方差当成了二阶矩"), "the mean squared": (lambda: M.mean_q ** 2, "漏了方差"),
     "k's moment": (lambda: E2K, "问的是 q")})
test_line_3_accepts, test_line_3_rejects = check_table(
    _line(3), {"exact": lambda: V[3], "expanded": lambda: M.var_q * M.var_k + M.var_q * M.mean_k ** 2 + M.var_k * M.mean_q ** 2},
    {"the mean-0 result": (lambda: M.var_q * M.var_k, "均值为 0"), "mean not subtracted": (lambda: V[2] * E2K, "没有减去"),
     "mean added": (lambda: V[2] * E2K + V[1] ** 2, "不是加上")})
test_line_4_accepts, test_line_4_rejects = check_table(
    _line(4), {"exact": lambda: V[4], "sum of d_k terms": lambda: sum(V[3] for _ in range(M.d_k))},
    {"forgot d_k": (lambda: V[3], "忘了乘 d_k"), "d_k squared": (lambda: M.d_k ** 2 * V[3], "d_k²"),
     "sqrt d_k": (lambda: M.d_k ** 0.5 * V[3], "√d_k"), "rounded": lambda: V[4] * (1 + 1e-4)})


def _run(fn, seed, line):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = check_faded_derivation(fn, seed=seed, line=line)
    return bool(result), buf.getvalue()


@pytest.mark.parametrize("seed", range(60))
def test_every_seed_grades_each_line_and_names_the_slips(seed):
    m = faded_moments(seed)
    v, e2k = _values(m)
    for line, value in v.items():
        ok, said = _run(lambda x=value: x, seed, line)
        assert ok and "为什么可以这样做" in said, (seed, line, said)
    slips = _slips(m)
    for line, value, words in [(1, 0, "均值为 0"), (2, m.var_q, "把方差当成了二阶矩"), (3, m.var_q * m.var_k, "均值为 0"),
                               (3, v[2] * e2k, "没有减去"), (4, v[3], "忘了乘 d_k"), (4, m.d_k * m.var_q * m.var_k, "均值为 0")]:
        ok, said = _run(lambda x=value: x, seed, line)
        assert not ok and said.startswith("\u274c") and CJK.search(said), (seed, line, said)
        if sum(np.isclose(value, w, rtol=1e-9, atol=0) for w in slips[line]) == 1:   # no other slip gives it
            assert words in said, (seed, line, said)
        else:                                                                    # ambiguous: the line's own hint
            assert words not in said and _OWN_HINT[line] in said, (seed, line, said)


# Each line's hint of its own (said when a wrong value is ambiguous), a part of it.
_OWN_HINT = {1: "期望的乘积", 2: "反过来求二阶矩", 3: "它的二阶矩减去它的均值的平方", 4: "方差相加"}


def _slips(m):
    """Every slip's value on each line: the ones with a hint, and line 3 expanded with one term left out."""
    v, e2k = _values(m)
    mq, mk, vq, vk, d = m.mean_q, m.mean_k, m.var_q, m.var_k, m.d_k
    terms = (vq * vk, vq * mk ** 2, vk * mq ** 2)
    dropped = [sum(terms) - t for t in terms]
    assert np.isclose(sum(terms), v[3])
    return {1: [0, mq + mk, vq * vk], 2: [vq, mq ** 2, (vq ** 0.5 + mq) ** 2, e2k],
            3: [vq * vk, v[2] * e2k, v[2] * e2k + v[1] ** 2, vq * vk + v[1] ** 2, *dropped],
            4: [v[3], d * d * v[3], d ** 0.5 * v[3], d * vq * vk, d * v[2] * e2k, *(d * x for x in dropped)]}


def test_a_value_two_slips_give_gets_the_lines_own_hint():
    """Seed 2026, line 3: vq·vk left out of the expanded Var(q_i k_i) gives the number of the listed slip
    vq·vk + (mq·mk)² (40 both): the check must not name the slip the learner may not have made."""
    m = faded_moments(2026)
    left_out = m.var_q * m.mean_k ** 2 + m.var_k * m.mean_q ** 2
    assert left_out == m.var_q * m.var_k + (m.mean_q * m.mean_k) ** 2        # the coincidence of the default seed
    ok, said = _run(lambda: left_out, 2026, 3)
    assert not ok and "方差的乘积再加均值的乘积" not in said and _OWN_HINT[3] in said, said
    other = next(s for s in range(60) if (lambda n: n.var_q * n.mean_k ** 2 + n.var_k * n.mean_q ** 2
                                          != n.var_q * n.var_k + (n.mean_q * n.mean_k) ** 2)(faded_moments(s)))
    n = faded_moments(other)                                                   # where it is not ambiguous, it is named
    ok, said = _run(lambda: n.var_q * n.var_k + (n.mean_q * n.mean_k) ** 2, other, 3)
    assert not ok and "方差的乘积再加均值的乘积" in said, said


def test_the_derivation_matches_sampling():
    m = faded_moments(7)
    rng = np.random.default_rng(0)
    n = 200_000
    q = m.mean_q + np.sqrt(m.var_q) * rng.standard_normal((n, m.d_k))
    k = m.mean_k + np.sqrt(m.var_k) * rng.standard_normal((n, m.d_k))
    dots = np.einsum("nd,nd->n", q, k)
    assert abs(dots.var() / _values(m)[0][4] - 1) < 0.03          # about 10 standard errors of the estimate


def test_seeds_give_different_exercises_and_bad_arguments_get_verdicts():
    assert len({faded_moments(s)[1:] for s in range(60)}) > 30
    with pytest.raises(ValueError, match="seed"):
        faded_moments(-3)
    for kwargs in ({"line": 0}, {"line": 2.0}, {"seed": -1}, {"seed": "7"}):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert not check_faded_derivation(lambda: V[1], **kwargs)
        assert buf.getvalue().startswith("\u274c") and "Traceback" not in buf.getvalue()


def test_2_5_fades_the_derivation_line_by_line():
    cells = _cells(next((Path(__file__).resolve().parents[1] / "notebooks").glob("02-05-*.ipynb")))
    heads = [k for k, c in enumerate(cells) if c["cell_type"] == "markdown" and _src(c).startswith("## ")]
    start = next(k for k in heads if "自己推一遍" in _src(cells[k]))
    end = next(k for k in heads if k > start)
    assert _src(cells[start]).startswith("## 选读") and cells[start]["metadata"].get("jp-MarkdownHeadingCollapsed") is True
    section_1 = next(k for k in heads if _src(cells[k]).startswith("## 1."))
    assert section_1 < start and _src(cells[end]).startswith("## 2."), "right after the derivation of section 1"
    part = cells[start:end]
    assert any("faded_moments(seed)" in _src(c) for c in part)
    steps = [k for k, c in enumerate(part) if "exercise" in _tags(c)]
    assert [f"line={n}" in _src(part[k]) for n, k in zip((1, 2, 3, 4), steps)] == [True] * 4 and len(steps) == 4
    for k in steps:
        above = next(_src(c) for c in reversed(part[:k]) if c["cell_type"] == "markdown")
        assert "为什么可以这样做" in above and "raise NotImplementedError" in _src(part[k])
        assert "solution" in _tags(part[k + 1]) and part[k + 1]["metadata"]["jupyter"]["source_hidden"]
