"""Core paths fit their minutes (issue 30): one stated rule (publish/minutes.py), stated by 2.0, applied here.

- the rule counts what a learner sees with the 选读 headings collapsed, at the stated rates;
- every notebook states its core-path (and exercise) minutes as the rule gives them, and the core path
  is within the at most 20 minutes 2.0 promises;
- 2.0 states the rule's rates; ``python -m publish minutes`` prints the table.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from publish import minutes as M
from publish.notebooks import ROOT, series

NOTEBOOKS = series()


def _md(source, collapsed=False, **meta):
    cell = {"cell_type": "markdown", "source": source, "metadata": dict(meta)}
    if collapsed:
        cell["metadata"]["jp-MarkdownHeadingCollapsed"] = True
    return cell


def _code(source="x = 1", tags=(), hidden=False):
    meta = {"tags": list(tags)}
    if hidden:
        meta["jupyter"] = {"source_hidden": True}
    return {"cell_type": "code", "source": source, "metadata": meta, "outputs": []}


def test_reading_counts_chinese_characters_and_latin_words_not_link_targets():
    assert M.reading_units("注意力权重") == 5
    assert M.reading_units("softmax 的导数 $d_k$") == 1 + 3 + 2           # softmax; 的导数; d, k
    assert M.reading_units("[目录](02-00-index.ipynb)") == 2
    assert M.reading_units("# 2.5 标题\n\n正文 <b>in</b> English") == 2 + 2 + 2 + 2


def test_the_english_abstract_is_not_on_the_core_path():
    cells = [_md("# 2.5 标题"), _code(), _md("## 小结\n\n- 一条"), _md("## English abstract\n\nThree English words.")]
    assert M.core_cells(cells) == cells[:3]
    assert M._count("x", M.core_cells(cells)).units == 4 + 4      # 2, 5, 标, 题; 小, 结, 一, 条 (no English word)


def test_a_collapsed_optional_heading_hides_its_section_and_only_that():
    cells = [
        _md("## 1. 一"),
        _code(),
        _md("## 选读：二", collapsed=True),                  # shown (the heading cell is on screen)
        _code(), _md("### 更深的标题\n\n很长的正文"),        # hidden: a lower level heading does not end it
        _md("## 2. 三"),                                    # ends it
        _code("answer = 1", tags=["exercise"]),
        _code("# Solution", tags=["solution"], hidden=True),
        _md("## 选读：不折叠"),                              # not collapsed: hides nothing
        _code(),
    ]
    core = M.core_cells(cells)
    assert [c["source"] for c in core] == ["## 1. 一", "x = 1", "## 选读：二", "## 2. 三", "answer = 1",
                                           "## 选读：不折叠", "x = 1"]


def test_the_minutes_are_reading_plus_code_cells_plus_predictions_and_exercises_stand_apart():
    cells = [_md("一" * M.READING_PACE), _code(), _code("H.predict_choice(...)", tags=["predict"]),
             _code("reveal"), _code(), _code("stub", tags=["exercise"])]
    m = M._count("x", M.core_cells(cells))
    assert (m.units, m.code_cells, m.predictions, m.exercises) == (M.READING_PACE, 2, 1, 1)   # the reveal is the vote's
    assert m.core == pytest.approx(1 + 2 * M.CODE_CELL_MIN + M.VOTE_MIN)
    assert m.exercise_minutes == M.EXERCISE_MIN


def test_an_exercise_may_state_its_own_minutes_with_a_tag():
    cells = [_code("stub", tags=["exercise"]), _code("capstone", tags=["exercise", "minutes-30"]),
             _code("part two", tags=["minutes-10", "exercise"])]
    m = M._count("x", M.core_cells(cells))
    assert m.exercises == 3 and m.exercise_minutes == M.EXERCISE_MIN + 30 + 10
    with pytest.raises(ValueError, match="more than one minutes tag"):
        M.exercise_minutes_of(_code("x", tags=["exercise", "minutes-5", "minutes-9"]))


def test_the_lab_gives_each_timed_exercise_at_most_its_stated_minutes_and_the_guides_say_the_rest_is_homework():
    """2.12's capstone parts state an honest newcomer's minutes (``minutes-N``); the lab deck's in-class work block
    (its activity slide) for each is at most that, and the guides say so, with the rest finished after class."""
    from publish.deck.decks import LAB
    nb = json.loads((ROOT / "notebooks" / "02-12-summary.ipynb").read_text(encoding="utf-8"))
    timed = [M.exercise_minutes_of(c) for c in nb["cells"] if "exercise" in c["metadata"].get("tags", [])
             and any(M.MINUTES_TAG.fullmatch(t) for t in c["metadata"]["tags"])]
    blocks = [s.minutes for row in LAB.rows if row.label.startswith("综合练习") for s in row.slides if s.kind == "activity"]
    assert len(timed) == len(blocks) == 2, (timed, blocks)
    assert all(b <= t for b, t in zip(blocks, timed)), (blocks, timed)
    guide = (ROOT / "docs" / "teaching" / "02-12.md").read_text(encoding="utf-8")
    readme = (ROOT / "docs" / "teaching" / "README.md").read_text(encoding="utf-8")
    a, b = (f"{m:g}" for m in blocks)
    assert f"综合练习（一）{a} 分钟、（二）{b} 分钟" in guide
    assert all(f"`minutes-{t:g}`" in guide for t in timed)
    assert "课后接着做，算作业" in guide and "章末自测整体是课后作业" in guide
    assert f"综合练习 A 的动手时间是 {a} 分钟、B 是 {b} 分钟" in readme and "课后完成，算作业" in readme


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_notebook_states_its_minutes_by_the_rule(path):
    m, said = M.minutes(path), M.stated(path)
    assert said is not None, f"{path.name} does not state its core path's minutes (**核心路径**（约 N 分钟…）)"
    want = (M.rounded(m.core), M.rounded(m.exercise_minutes) if m.exercises else None)
    assert said == want, (f"{path.name} states {said} (core, exercises); the rule gives {m.core:.1f} and "
                          f"{m.exercise_minutes:g} min: `python -m publish minutes {path.name[:5]} --sections`")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_core_path_keeps_the_promise(path):
    m = M.minutes(path)
    over = M.rounded(m.core) > M.PROMISE
    assert not over, (f"{path.name}: its core path takes {m.core:.1f} min by the rule, over the {M.PROMISE} 2.0 promises "
                      f"(`python -m publish minutes {path.name[:5]} --sections`): move what a first reading does not need under 选读")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_a_collapsed_optional_heading_cell_holds_only_its_heading(path):
    """JupyterLab shows a collapsed heading's own cell whole: a body written under the heading in that cell is read."""
    for cell in M._load(path):
        if cell["cell_type"] == "markdown" and cell["metadata"].get("jp-MarkdownHeadingCollapsed"):
            lines = M._source(cell).strip().splitlines()
            assert len(lines) == 1, f"{path.name} {cell.get('id')}: the collapsed heading {lines[0]!r} has a body in its own cell"


def test_the_index_states_the_rule_it_applies():
    text = "".join(M._source(c) for c in M._load(series()[0]) if c["cell_type"] == "markdown")
    for said in (f"每分钟读 {M.READING_PACE} 个字", f"每个代码单元格 {M.CODE_CELL_MIN:g} 分钟",
                 f"每道预测题 {M.VOTE_MIN:g} 分钟", f"每道热身题 {M.RECALL_MIN:g} 分钟", f"每道练习另计 {M.EXERCISE_MIN:g} 分钟",
                 f"不超过 {M.PROMISE} 分钟"):
        assert said in text, f"2.0 does not state {said!r} (publish/minutes.py)"


def test_the_command_lists_every_notebook_from_any_directory(tmp_path):
    out = subprocess.run([sys.executable, "-m", "publish", "minutes", "--sections"], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    for path in NOTEBOOKS:
        m = M.minutes(path)
        assert any(line.startswith(path.name[:5]) and f"{m.core:.1f}" in line for line in out.splitlines()), path.name
    assert str(ROOT) not in out
