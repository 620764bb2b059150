"""Retrieval warm-ups: each lesson notebook 2.2 ... 2.12 opens by recalling earlier notebooks.

- the warm-up is the first code cell after the setup cell, 2-3 questions asked with
  ``H.recall_choice`` / ``H.recall_number``, ids ``2.N-w1, 2.N-w2, ...`` in order, every key asked once;
- its questions point only to earlier notebooks: each names the section it recalls, "（2.M）", that
  is its key's section, M < N; one recalls the notebook just before, one (from 2.3 on) one further back;
- it is blind: no markdown above it (title, goals) holds a clause of an explanation;
- the graders: the key's option (or number) is right, every other option and a far number is wrong,
  and a wrong answer names the section to re-read;
- the keys are true: the computable ones are recomputed here with the helpers;
- the teacher's guide answers every warm-up under 热身题答案, its bold answer the key.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest
from nbcells import cells as _cells, src as _src

import helpers as H
from helpers.ui.prediction_keys import WARMUP_KEYS, ChoiceKey, NumberKey
from helpers.ui.warmup import grade_recall, show_recall
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
LESSONS = [p for p in series() if 2 <= int(p.name[3:5]) <= 12]
CALLS = {"recall_choice", "recall_number"}
CITED = re.compile(r"^（2\.(\d+)）")
NOISE = re.compile(r"[\s$\\{}*`'\"“”‘’「」()（）\[\],，.。:：;；!！?？、_^~|=<>-]+")
CLAUSE = re.compile(r"[^。；;！!？?\n]+")


def _section(path: Path) -> int:
    return int(path.name[3:5])


def warm_up(path: Path) -> tuple[int, list[tuple[str, str, list[str] | None]]]:
    """(index of the warm-up cell, [(qid, question, options or None)]) of a notebook."""
    cells = _cells(path)
    found = []
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "code" or "recall_" not in _src(cell):
            continue
        for node in ast.walk(ast.parse(_src(cell))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in CALLS:
                args = [ast.literal_eval(a) for a in node.args]
                assert (node.func.attr == "recall_choice") == (len(args) == 3), f"{path.name}: {args[0]} has the wrong call"
                found.append((k, (args[0], args[1], args[2] if len(args) > 2 else None)))
    if not found:
        return -1, []
    assert len({k for k, _ in found}) == 1, f"{path.name}: the warm-up questions are spread over several cells"
    return found[0][0], [q for _, q in found]


ALL = {p.name[:5]: warm_up(p) for p in LESSONS}
QUESTIONS = {qid: (question, options) for _, qs in ALL.values() for qid, question, options in qs}


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:5])
def test_the_lesson_opens_with_a_warm_up_of_two_or_three_questions(path):
    k, questions = ALL[path.name[:5]]
    assert questions, f"{path.name}: no warm-up (H.recall_choice / H.recall_number)"
    cells = _cells(path)
    code = [i for i, c in enumerate(cells) if c["cell_type"] == "code"]
    assert "import helpers as H" in _src(cells[code[0]]), f"{path.name}: the first code cell is the setup cell"
    assert k == code[1], f"{path.name}: the warm-up is the first code cell after the setup cell (cell {code[1]}), not cell {k}"
    assert "nbval-ignore-output" in cells[k].get("metadata", {}).get("tags", []), f"{path.name}: a widget cell"
    assert 2 <= len(questions) <= 3
    n = _section(path)
    assert [q[0] for q in questions] == [f"2.{n}-w{i}" for i in range(1, len(questions) + 1)]
    assert len(_src(cells[k]).splitlines()) <= 20, f"{path.name}: a warm-up is a short cell"


def test_every_key_is_asked_once():
    asked = [qid for _, qs in ALL.values() for qid, _, _ in qs]
    assert sorted(asked) == sorted(WARMUP_KEYS), f"unasked keys: {sorted(set(WARMUP_KEYS) - set(asked))}"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:5])
def test_questions_point_only_to_earlier_notebooks(path):
    n = _section(path)
    _, questions = ALL[path.name[:5]]
    recalled = []
    for qid, question, _ in questions:
        cited = CITED.match(question)
        assert cited, f"{qid}: the question opens with the section it recalls, （2.M）"
        assert f"2.{cited.group(1)}" == WARMUP_KEYS[qid].recalls, f"{qid}: cites 2.{cited.group(1)}, its key recalls {WARMUP_KEYS[qid].recalls}"
        for m in re.findall(r"2\.(\d+)", question):
            assert 1 <= int(m) < n, f"{qid}: names 2.{m}, which is not an earlier notebook than 2.{n}"
        recalled.append(int(WARMUP_KEYS[qid].recalls.split(".")[1]))
    assert n - 1 in recalled, f"2.{n}: no question recalls the notebook just before (2.{n - 1})"
    if n >= 3:
        assert min(recalled) <= n - 2, f"2.{n}: no question recalls a notebook further back than 2.{n - 1}"


def _norm(text: str) -> str:
    return NOISE.sub("", text).lower()


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:5])
def test_nothing_above_the_warm_up_gives_an_answer(path):
    k, questions = ALL[path.name[:5]]
    above = _norm("".join(_src(c) for c in _cells(path)[:k] if c["cell_type"] == "markdown"))
    for qid, _, options in questions:
        key = WARMUP_KEYS[qid].key
        for clause in CLAUSE.findall(key.explanation):
            c = _norm(clause)
            assert len(c) < 8 or c not in above, f"{qid}: the text above the warm-up says {clause!r}"
        if options is not None and len(_norm(options[key.answer])) >= 4:
            assert _norm(options[key.answer]) not in above, f"{qid}: the text above shows the right option"


@pytest.mark.parametrize("qid", sorted(WARMUP_KEYS))
def test_the_grader_takes_the_key_and_refuses_the_rest(qid):
    assert qid in QUESTIONS, f"{qid} is asked by no notebook"
    question, options = QUESTIONS[qid]
    rec = WARMUP_KEYS[qid]
    if isinstance(rec.key, ChoiceKey):
        assert grade_recall(qid, rec.key.answer, options).correct
        for wrong in set(range(len(options))) - {rec.key.answer}:
            fb = grade_recall(qid, wrong, options)
            assert not fb.correct and f"{rec.recalls} 节" in fb.message and options[rec.key.answer] in fb.message
    else:
        assert grade_recall(qid, rec.key.answer).correct
        one_off = (rec.key.answer - 1, rec.key.answer + 1) if float(rec.key.answer).is_integer() else ()
        for wrong in (2 * rec.key.answer + 1, -rec.key.answer - 1, 0.5 * rec.key.answer - 0.1, *one_off):
            # a whole-number answer is a count recalled exactly: 109 parameters is not "记对了：110"
            fb = grade_recall(qid, wrong)
            assert not fb.correct and f"{rec.recalls} 节" in fb.message
    peek = show_recall(qid, options)
    assert not peek.correct and rec.key.explanation in peek.message
    assert not grade_recall(qid, None, options).correct


def test_bad_calls_name_the_argument():
    with pytest.raises(ValueError, match="warm-up id"):
        grade_recall("2.5-q1", 0)
    with pytest.raises(ValueError, match="no key"):
        grade_recall("2.5-w9", 0)
    with pytest.raises(TypeError, match="qid"):
        grade_recall(5, 0)
    with pytest.raises(TypeError, match="options"):
        grade_recall("2.4-w1", 0)                        # a choice question without its options
    with pytest.raises(ValueError, match="answer"):
        grade_recall("2.4-w1", 0, ["a", "b"])            # the key (index 3) is not among 2 options
    with pytest.raises(ValueError, match="answer"):
        grade_recall("2.4-w1", 7, QUESTIONS["2.4-w1"][1])
    with pytest.raises(TypeError, match="answer"):
        grade_recall("2.4-w1", 1.0, QUESTIONS["2.4-w1"][1])
    with pytest.raises(TypeError, match="answer"):
        grade_recall("2.5-w1", "200")
    with pytest.raises(ValueError, match="answer"):
        grade_recall("2.5-w1", float("nan"))
    with pytest.raises(TypeError, match="recall_number"):
        H.recall_choice("2.5-w1", "问题？", ["a", "b"])
    H.recall_choice("2.4-w1", "问题？", QUESTIONS["2.4-w1"][1])      # the widgets build
    H.recall_number("2.5-w1", "问题？")


# --------------------------------------------------------------------------- the keys are true

def _option(qid: str) -> str:
    rec = WARMUP_KEYS[qid]
    return QUESTIONS[qid][1][rec.key.answer]


def _number(qid: str) -> float:
    key = WARMUP_KEYS[qid].key
    assert isinstance(key, NumberKey)
    return key.answer


def test_the_keys_are_true():
    rng = np.random.default_rng(0)
    it = H.contextual.static_embeddings(["it", "it"])
    assert _number("2.2-w1") == pytest.approx(H.geometry.cosine_similarity(it[:1], it[1:]).item())
    X, W = rng.normal(size=(6, 5)), rng.normal(size=(5, 3))
    S = (X @ W) @ (X @ W).T
    assert np.allclose(S, S.T) and "对称" in _option("2.4-w1")
    assert _number("2.5-w1") == H.cost.dot_product_score_flops(2, 10, 5)
    out = H.self_attention(rng.normal(size=(5, 6)), *rng.normal(size=(2, 6, 3)), rng.normal(size=(6, 4))).output
    assert _number("2.5-w2") == out.shape[1]
    q, k = rng.standard_normal((2, 20000, 64))
    assert abs(np.std(np.sum(q * k, axis=1)) - _number("2.6-w1")) < 0.05 * _number("2.6-w1")
    book = H.book.example_inputs()
    Qb, Kb = book["X"] @ book["W_Q"], book["X"] @ book["W_K"]
    Sb = Qb @ Kb.T
    assert np.ptp(Sb[2]) == 0 and np.ptp(Sb[3]) == 0 and "分数都相等" in _option("2.9-w1")
    Ab = H.softmax(Sb / np.sqrt(2))
    assert np.allclose(Ab[1], Ab[0][[1, 0, 2, 3]]) and _option("2.10-w2") == "(b, a, c, c)"
    assert H.cost.score_matrix_cost(30, 4).elements / H.cost.score_matrix_cost(10, 4).elements == _number("2.11-w2")
    A = H.self_attention(rng.normal(size=(5, 6)), *rng.normal(size=(3, 6, 3)), causal=True).weights
    assert np.array_equal(A[0], [1, 0, 0, 0, 0]) and _option("2.12-w2") == "(1, 0, 0, 0, 0)"


# --------------------------------------------------------------------------- the teacher's guide

@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:5])
def test_the_guide_answers_every_warm_up_with_its_key(path):
    text = (ROOT / "docs" / "teaching" / f"{path.name[:5]}.md").read_text(encoding="utf-8")
    assert "\n## 热身题答案\n" in text, f"{path.name[:5]}.md: no 热身题答案 section"
    answers = text.split("\n## 热身题答案\n", 1)[1].split("\n## ", 1)[0]
    _, questions = ALL[path.name[:5]]
    for qid, question, options in questions:
        assert f"「{question}」" in answers, f"{path.name[:5]}.md does not quote {qid}"
        bold = re.search(r"\*\*(.+?)\*\*", answers.split(f"「{question}」", 1)[1])
        assert bold, f"{path.name[:5]}.md: no bold answer after {qid}"
        key = WARMUP_KEYS[qid].key
        if isinstance(key, ChoiceKey):
            assert bold.group(1).strip() == options[key.answer], f"{qid}: the guide says {bold.group(1)!r}"
        else:
            assert float(key.answer) in [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", bold.group(1))]
    assert len(re.findall(r"「", answers)) == len(questions), f"{path.name[:5]}.md quotes a warm-up the notebook no longer asks"
