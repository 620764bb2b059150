"""2.8's faded worked example: new numbers per seed, four steps, each checked and each classic mistake named.

The right answers here are computed in this file from Q, K, V (loops, einsum, float32, values typed to 4
decimals); the wrong ones are the classic slips of each step. The tables run on the notebook's default
seed, the sweep on 60 seeds: a check grades right for any seed the learner picks. Last, 2.8 itself: the
example comes after the book's, its blanks grow step by step, each with a "why is this step allowed?" prompt.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import numpy as np
import pytest
from check_verdicts import CJK, check_table
from nbcells import cells as _cells, src as _src, tags as _tags

import helpers as H
from helpers.checks import (check_faded_output, check_faded_scaled, check_faded_scores, check_faded_weights,
                            faded_example)

EX = faded_example()
SEEDS = range(60)


def _parts(ex):
    """Every quantity of the example, computed here with loops (not with the module under test)."""
    Q, K, V, i = ex.Q, ex.K, ex.V, ex.row - 1
    S = np.array([[sum(Q[a, m] * K[b, m] for m in range(2)) for b in range(4)] for a in range(4)])
    Sp = S / math.sqrt(2)
    e = [math.exp(x) for x in Sp[i]]
    w = np.array(e) / sum(e)
    out = sum(w[j] * V[j] for j in range(4))
    return S, Sp, w, out


S, SP, W, OUT = _parts(EX)
I = EX.row - 1


def _col_softmax_row(M, i):
    E = np.exp(M)
    return (E / E.sum(axis=0))[i]


def _row_softmax(v):
    e = np.exp(v - v.max())
    return e / e.sum()


test_scores_accepts, test_scores_rejects = check_table(
    check_faded_scores,
    {"loops": lambda: S, "matmul": lambda: EX.Q @ EX.K.T, "einsum": lambda: np.einsum("id,jd->ij", EX.Q, EX.K),
     "float32": lambda: EX.Q.astype(np.float32) @ EX.K.T.astype(np.float32), "typed ints": lambda: S.astype(int).tolist()},
    {"K instead of K^T (S^T)": (lambda: EX.K @ EX.Q.T, "Kᵀ"), "scaled already": (lambda: SP, "还不除以"),
     "Q Q^T": (lambda: EX.Q @ EX.Q.T, "查询和查询"), "off by one entry": lambda: S + np.eye(4)[0]})

test_scaled_accepts, test_scaled_rejects = check_table(
    check_faded_scaled,
    {"exact": lambda: SP, "4 decimals": lambda: np.round(SP, 4), "times 1/sqrt 2": lambda: S * (1 / np.sqrt(2)),
     "float32": lambda: S.astype(np.float32) / np.float32(np.sqrt(2))},
    {"forgot sqrt(d_k)": (lambda: S, "忘了除以 √d_k"), "divided by d_k": (lambda: S / 2, "d_k 本身"),
     "rounded to 2 decimals": (lambda: np.round(SP, 2), "舍入太早"), "transposed": (lambda: SP.T, "Kᵀ"),
     "sqrt 2 as 1.41": (lambda: S / 1.41, "1.41")})

test_weights_accepts, test_weights_rejects = check_table(
    check_faded_weights,
    {"exact": lambda: W, "4 decimals": lambda: np.round(W, 4), "max shifted": lambda: _row_softmax(SP[I] - 7.0),
     "float32": lambda: _row_softmax(SP[I].astype(np.float32))},
    {"forgot sqrt(d_k)": (lambda: _row_softmax(S[I]), "忘了除以 √d_k"),
     "column-wise softmax": (lambda: _col_softmax_row(SP, I), "沿列"),
     "column r (K instead of K^T)": (lambda: _row_softmax(SP[:, I]), "第 %d 列" % EX.row),
     "S' rounded to 2 decimals first": (lambda: _row_softmax(np.round(SP[I], 2)), "舍入太早"),
     "weights rounded to 3 decimals": (lambda: np.round(W, 3), "3 位小数"),
     "not normalised": (lambda: np.exp(SP[I]), "行和"),
     "the next row": (lambda: _row_softmax(SP[(I + 1) % 4]), "你算的是第"),
     "H.softmax": (lambda: H.softmax(SP)[I], "不调用"),
     "H.soft_lookup weights": (lambda: H.soft_lookup.soft_lookup(EX.Q[I] / np.sqrt(2), EX.K, np.eye(4)).output, "不调用")})

test_output_accepts, test_output_rejects = check_table(
    check_faded_output,
    {"exact": lambda: OUT, "4 decimals": lambda: np.round(OUT, 4), "matmul": lambda: W @ EX.V,
     "einsum": lambda: np.einsum("j,jd->d", W, EX.V)},
    {"forgot sqrt(d_k)": (lambda: _row_softmax(S[I]) @ EX.V, "忘了除以 √d_k"),
     "column-wise softmax": (lambda: _col_softmax_row(SP, I) @ EX.V, "沿列"),
     "weights rounded to 3 decimals first": (lambda: np.round(W, 3) @ EX.V, "舍入太早"),
     "K instead of V": (lambda: W @ EX.K, "不是 V"), "v_r itself": (lambda: EX.V[I], "加权平均"),
     "H.self_attention": (lambda: H.self_attention(np.eye(4), EX.Q, EX.K, EX.V).output[I], "不调用"),
     "H.blockwise.blockwise_attention": (lambda: H.blockwise.blockwise_attention(EX.Q, EX.K, EX.V)[I], "不调用"),
     "H.soft_lookup.soft_lookup": (lambda: H.soft_lookup.soft_lookup(EX.Q[I] / np.sqrt(2), EX.K, EX.V).output, "不调用")})


def _run(check, fn, seed):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = check(fn, seed=seed)
    return bool(result), buf.getvalue()


@pytest.mark.parametrize("seed", SEEDS)
def test_every_seed_grades_right_and_names_the_classic_mistakes(seed):
    ex = faded_example(seed)
    s, sp, w, out = _parts(ex)
    i = ex.row - 1
    right = {check_faded_scores: s, check_faded_scaled: sp, check_faded_weights: w, check_faded_output: out}
    for check, value in right.items():
        for shown in (value, np.round(value, 4)):
            ok, said = _run(check, lambda v=shown: v, seed)
            assert ok and said.startswith("\u2705") and "为什么可以这样做" in said, (check.__name__, seed, said)
    wrong = [
        (check_faded_scores, ex.K @ ex.Q.T, "Kᵀ"),
        (check_faded_scaled, s, "忘了除以 √d_k"),
        (check_faded_scaled, np.round(sp, 2), "舍入太早"),
        (check_faded_weights, _row_softmax(s[i]), "忘了除以 √d_k"),
        (check_faded_weights, _col_softmax_row(sp, i), "沿列"),
        (check_faded_weights, _row_softmax(sp[:, i]), "列"),
        (check_faded_weights, _row_softmax(np.round(sp[i], 2)), "舍入太早"),
        (check_faded_output, _row_softmax(s[i]) @ ex.V, "忘了除以 √d_k"),
        (check_faded_output, _col_softmax_row(sp, i) @ ex.V, "沿列"),
        (check_faded_output, np.round(w, 3) @ ex.V, "舍入太早"),
    ]
    for check, value, words in wrong:
        ok, said = _run(check, lambda v=value: v, seed)
        assert not ok and said.startswith("\u274c") and words in said and CJK.search(said), (check.__name__, seed, words, said)
        assert "Traceback" not in said


def test_the_seed_draws_small_integers_and_is_reproducible():
    rows = set()
    for seed in SEEDS:
        ex = faded_example(seed)
        assert ex.Q.shape == ex.K.shape == ex.V.shape == (4, 2)
        assert set(np.unique(np.r_[ex.Q.ravel(), ex.K.ravel()])) <= {0, 1, 2} and set(np.unique(ex.V)) <= {0, 1, 2, 3}
        assert 1 <= ex.row <= 4
        rows.add(ex.row)
        again = faded_example(seed)
        assert all(np.array_equal(a, b) for a, b in zip(ex[1:4], again[1:4])) and ex.row == again.row
    assert rows == {1, 2, 3, 4}
    assert len({faded_example(s).Q.tobytes() + faded_example(s).K.tobytes() for s in SEEDS}) > 50   # per learner


def test_a_seed_from_another_learner_fails_this_learners_check():
    mine, theirs = faded_example(1), faded_example(2)
    assert not np.array_equal(mine.Q @ mine.K.T, theirs.Q @ theirs.K.T)
    assert not _run(check_faded_scores, lambda: theirs.Q @ theirs.K.T, 1)[0]


@pytest.mark.parametrize("seed, err", [(-1, ValueError), (1.5, TypeError), (True, TypeError), ("7", TypeError)])
def test_faded_example_names_a_bad_seed(seed, err):
    with pytest.raises(err, match="seed"):
        faded_example(seed)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "7", None])
def test_a_check_given_a_bad_seed_gives_a_verdict(seed):
    ok, said = _run(check_faded_scores, lambda: S, seed)
    assert not ok and said.startswith("\u274c") and "seed" in said and "Traceback" not in said


# --------------------------------------------------------------------------- the notebook: 2.8 fades the example

def test_2_8_fades_the_example_step_by_step():
    cells = _cells(next((Path(__file__).resolve().parents[1] / "notebooks").glob("02-08-*.ipynb")))
    heads = [k for k, c in enumerate(cells) if c["cell_type"] == "markdown" and _src(c).startswith("## ")]
    start = next(k for k in heads if "换一组数" in _src(cells[k]))
    section_6 = next(k for k in heads if _src(cells[k]).startswith("## 6."))
    end = next(k for k in heads if k > start)
    assert section_6 < start < end and _src(cells[end]).startswith("## 7."), "after the full computation, before section 7"
    assert _src(cells[start]).startswith("## 选读") and cells[start]["metadata"].get("jp-MarkdownHeadingCollapsed") is True
    part = cells[start:end]
    assert any("faded_example(seed)" in _src(c) for c in part if c["cell_type"] == "code")
    steps = [k for k, c in enumerate(part) if "exercise" in _tags(c)]
    order = ["check_faded_scores", "check_faded_scaled", "check_faded_weights", "check_faded_output"]
    assert [next(n for n in order if n in _src(part[k])) for k in steps] == order
    given = []
    for k in steps:
        src = _src(part[k])
        above = next(_src(c) for c in reversed(part[:k]) if c["cell_type"] == "markdown")
        assert "为什么可以这样做" in above, f"no self-explanation prompt above {src.splitlines()[0]}"
        assert "raise NotImplementedError" in src and "seed=seed" in src
        solution = part[k + 1]
        assert "solution" in _tags(solution) and solution["metadata"]["jupyter"]["source_hidden"]
        body = src.split("raise NotImplementedError")[0]
        given.append(len([ln for ln in body.splitlines()[1:] if ln.strip() and not ln.strip().startswith("#")]))
    assert given[0] > 0 and given == sorted(given, reverse=True) and given[-1] == 0, f"lines given per step: {given}"
