"""The graded lab, tested as a teacher would use it (``publish/course.py``).

Quick tests read the course the tool writes. The ``grading`` tests (marker ``grading``; they need
the ``grading`` extra) build the course in a temporary folder, run ``nbgrader generate_assignment``,
hand in three submissions -- everything solved (the instructor's source), nothing solved (the
release as handed out) and a mix with three classic wrong answers made by editing the reference
code (wrong axis, mask after softmax, missing scale) -- then ``nbgrader autograde`` and
``nbgrader generate_feedback``, and check the scores part by part. Then five more students hand in
2.12's chapter self-test, whose numbers come from the ``SEED`` each student sets: two with the same
correct code under two different seeds, one who sets the second seed but copies the first seed's
numbers for question (d) and takes the softmax along the wrong axis in (a), one who types in the
second seed's own numbers for (d), and one who hands in right answers but leaves ``SEED`` as released
(``None``): 0 for the four parts, and the Chinese request to set it instead of a shared default's numbers.
The feedback pages embed the subset of the course's Chinese font that covers every Chinese character they show.
"""

from __future__ import annotations

import ast
import base64
import contextlib
import html
import io
import json
import os
import re
import shutil
import threading
import subprocess
import sys
import urllib.parse
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from publish import constraints as CONSTRAINTS, course as TOOL, student as STUDENT  # noqa: N812

ROOT = Path(__file__).resolve().parents[1]
CHECK_LINE = re.compile(r"^\s*check_\w+\(.*\);?\s*$")


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _nbg(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _stdout(cell) -> str:
    return "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"
                   and o.get("name") == "stdout")


# --------------------------------------------------------------------------- quick: what the tool writes


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    course = tmp_path_factory.mktemp("course")
    return course, TOOL.build(course)


def test_the_lab_plan_is_graded(built):
    """Each notebook of the lab gives graded parts with the manifest's points; the capstone parts get 3."""
    course, graded = built
    names = sorted(p.name for p in (course / "source" / TOOL.ASSIGNMENT).glob("*.ipynb"))
    assert names == sorted(p.name for p, _, _ in TOOL.lab_notebooks())
    assert (course / "nbgrader_config.py").exists()
    plan = (ROOT / "docs" / "teaching" / "README.md").read_text(encoding="utf-8").split("### 实验课", 1)[1]
    for prefix, select, points in TOOL.LAB:
        parts = [g for g in graded if g.notebook == prefix]
        assert parts and all(g.points == points for g in parts), (prefix, parts)
        section = f"{int(prefix[:2])}.{int(prefix[3:])}"
        assert section in plan.split("## ", 1)[0], f"the lab plan does not name {section}"
    assert {g.points for g in graded if g.notebook == "02-12"} == {3}
    capstone = [g for g in graded if g.notebook == "02-12"]     # the README's points line says what is graded
    assert f"2.12 的 {len(capstone)} 题各 {capstone[0].points} 分" in plan, "the README's points line for 2.12"


def test_graded_exercises_are_the_tagged_ones(built):
    """transfer / bug-hunt: every graded exercise follows a markdown cell with that tag, and every such exercise is graded."""
    _, graded = built
    for path, select, _ in TOOL.lab_notebooks():
        nb = nbformat.read(path, as_version=4)
        cells = nb.cells
        expected = set()
        for k, cell in enumerate(cells):
            if "exercise" not in _tags(cell):
                continue
            # An exercise with no introducing cell above it (2.5's faded derivation, a 选读 before the exercises)
            # is neither a transfer nor a bug hunt: graded only where a notebook's exercises are all graded.
            intro = next((c for c in reversed(cells[:k]) if c.cell_type == "markdown"
                          and (_tags(c) & {"transfer", "bug-hunt"} or TOOL._EXERCISE_HEADING.search(c.source))), None)
            if select == "all" or (intro is not None and select in _tags(intro)):
                expected |= {n.name for n in ast.parse(cell.source).body if isinstance(n, ast.FunctionDef)}
        got = {n for g in graded if g.notebook == path.name[:5] for n in g.names}
        assert got == expected, f"{path.name}: graded {sorted(got)}, tagged {sorted(expected)}"


def test_source_cells_keep_the_stub_and_wrap_the_reference(built):
    """Answer cell: the committed stub, then the reference code in a solution region; test cell: today's check call, then hidden tests."""
    course, graded = built
    for path, _, _ in TOOL.lab_notebooks():
        full = nbformat.read(path, as_version=4)
        src = nbformat.read(course / "source" / TOOL.ASSIGNMENT / path.name, as_version=4)
        assert not any("solution" in _tags(c) for c in src.cells), "solution cells must not stay in the course"
        by_id = {_nbg(c).get("grade_id"): c for c in src.cells if _nbg(c)}
        exercises = [c for c in full.cells if "exercise" in _tags(c)]
        for g in (g for g in graded if g.notebook == path.name[:5]):
            original = next(c for c in exercises if f"def {g.names[0]}(" in c.source)
            answer, test = by_id[g.answer_id], by_id[g.test_id]
            assert _nbg(answer)["solution"] and not _nbg(answer)["grade"]
            assert _nbg(test)["grade"] and _nbg(test)["locked"] and _nbg(test)["points"] == g.points
            stub = "\n".join(ln for ln in original.source.split("\n") if not CHECK_LINE.match(ln)).rstrip()
            before, region = answer.source.split(TOOL.BEGIN_SOLUTION + "\n")
            assert before.rstrip() == stub
            assert region.rstrip().endswith(TOOL.END_SOLUTION)
            for name in g.names:
                assert f"def {name}_solution(" in region and f"{name} = {name}_solution" in region
            visible, hidden = test.source.split(TOOL.BEGIN_HIDDEN + "\n")
            assert visible.rstrip() == "\n".join(ln for ln in original.source.split("\n") if CHECK_LINE.match(ln))
            assert hidden.rstrip().endswith(TOOL.END_HIDDEN) and "stderr" in hidden


def test_the_config_is_the_template_and_reads_its_parameters_from_beside_it(built):
    """nbgrader_config.py is publish/templates/course/nbgrader_config.py unchanged (plain Python, lintable); the
    parameters it reads are exactly those of the course.json written beside it, and they fit the course."""
    course, _ = built
    config = (course / "nbgrader_config.py").read_text(encoding="utf-8")
    assert config == (TOOL.TEMPLATES / "nbgrader_config.py").read_text(encoding="utf-8")
    read = {node.slice.value for node in ast.walk(ast.parse(config)) if isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name) and node.value.id == "COURSE" and isinstance(node.slice, ast.Constant)}
    parameters = json.loads((course / "course.json").read_text(encoding="utf-8"))
    assert read == set(parameters), f"the config reads {sorted(read)}; course.json holds {sorted(parameters)}"
    assert (course / "templates" / parameters["feedback_template"] / "conf.json").is_file()
    tests = [c.source for p in (course / "source" / TOOL.ASSIGNMENT).glob("*.ipynb")
             for c in nbformat.read(p, as_version=4).cells if _nbg(c).get("grade") and not _nbg(c).get("solution")]
    assert tests and all(parameters["begin_hidden"] in t and parameters["end_hidden"] in t for t in tests), \
        "the hidden-test delimiters the config strips are not the ones in the test cells"


def _run_cell(source: str) -> str:
    """Run a course cell's code (as a kernel would, in a fresh namespace); return what it prints."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(source, "<cell>", "exec"), {})  # noqa: S102 -- the course's own cell
    return buf.getvalue()


def _released(source: str) -> str:
    """A cell's source as generate_assignment releases it (ClearSolutions, code_stub '': the region becomes one empty line)."""
    return re.sub(rf"^{re.escape(TOOL.BEGIN_SOLUTION)}\n.*?^{re.escape(TOOL.END_SOLUTION)}$", "", source,
                  flags=re.M | re.S)


def test_the_seed_cell_asks_for_the_student_number_until_it_is_set(built):
    """2.12's SEED cell: unlocked and ungraded; released as SEED = None, it prints the Chinese request and computes
    nothing; the teacher's source (the committed seed in a solution region) and a set SEED draw the questions."""
    course, _ = built
    nb = nbformat.read(next((course / "source" / TOOL.ASSIGNMENT).glob("02-12-*.ipynb")), as_version=4)
    seeds = [c for c in nb.cells if c.cell_type == "code" and re.search(r"^SEED\s*=", c.source, re.M)]
    assert len(seeds) == 1, [c.source for c in seeds]
    cell = seeds[0]
    assert _nbg(cell)["solution"] and not _nbg(cell)["grade"] and not _nbg(cell)["locked"]
    release = _released(cell.source)
    assert re.search(r"^SEED = None\b.*学号", release, re.M) and not re.search(r"^SEED = \d", release, re.M)
    unset = _run_cell(release)
    assert unset.strip() == TOOL.SEED_ASK and "先把 SEED 改成你的学号（一个整数），再运行" in unset
    full = next(c for c in nbformat.read(next(TOOL.NOTEBOOKS.glob("02-12-*.ipynb")), as_version=4).cells
                if c.cell_type == "code" and re.search(r"^SEED\s*=\s*\d", c.source, re.M))
    assert _run_cell(cell.source) == _run_cell(full.source)       # the teacher's source: the committed seed's questions
    mine = _run_cell(release.replace("SEED = None", "SEED = 20230117", 1))
    assert TOOL.SEED_ASK not in mine and "(d) Q =" in mine and mine != _run_cell(full.source)


def test_the_release_starts_with_the_lab_instructions_and_the_environment_check(built):
    """The first notebook of the lab: after its title, how the graded lab works (SEED in 2.12, how to hand in) and
    2.0's environment check, which runs and says whether everything is there."""
    course, _ = built
    first = TOOL.lab_notebooks()[0][0]
    cells = nbformat.read(course / "source" / TOOL.ASSIGNMENT / first.name, as_version=4).cells
    committed = nbformat.read(first, as_version=4).cells
    assert cells[0].source == committed[0].source and cells[4].source == committed[1].source
    intro, env_md, env_code = cells[1:4]
    assert "SEED = None" in intro.source and "学号" in intro.source and "Submit" in intro.source
    assert f"{len(TOOL.LAB)} 个笔记本" in intro.source
    index = nbformat.read(next(TOOL.NOTEBOOKS.glob("02-00-*.ipynb")), as_version=4).cells
    k = next(k for k, c in enumerate(index) if c.source.startswith(TOOL.ENV_HEADING))
    assert (env_md.source, env_code.source) == (index[k].source, index[k + 1].source)
    assert not env_code.outputs and not _nbg(env_code)
    assert re.search(r"^(一切就绪|问题：)", _run_cell(env_code.source), re.M)
    others = [p for p, _, _ in TOOL.lab_notebooks()[1:]]
    assert not any(c.source == env_code.source for p in others
                   for c in nbformat.read(course / "source" / TOOL.ASSIGNMENT / p.name, as_version=4).cells)


def test_the_feedback_font_is_the_decks_and_covers_every_check_message(built):
    """The course carries the decks' Chinese font for its feedback pages; it has every Chinese character of the
    helpers' messages (what the feedback says) and of the lab's notebooks."""
    from fontTools.ttLib import TTFont

    course, _ = built
    parameters = json.loads((course / "course.json").read_text(encoding="utf-8"))
    font_path = course / parameters["feedback_font"]
    assert font_path.read_bytes() == TOOL.FEEDBACK_FONT.read_bytes()
    cmap = TTFont(font_path).getBestCmap()
    text = "".join(p.read_text(encoding="utf-8") for p in sorted((ROOT / "helpers").rglob("*.py")))
    text += "".join(p.read_text(encoding="utf-8") for p in (course / "source" / TOOL.ASSIGNMENT).glob("*.ipynb"))
    missing = sorted({ch for ch in text if _chinese(ch) and ord(ch) not in cmap})
    assert not missing, f"the feedback font lacks {''.join(missing)}: run python -m publish font"


def _chinese(ch: str) -> bool:
    """A character a PC without a CJK font draws as a box: CJK ideographs, CJK and full-width punctuation."""
    o = ord(ch)
    return 0x2E80 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F or 0xFF00 <= o <= 0xFFEF


def test_a_graded_exercise_without_a_solution_is_refused():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("### 练习 1（找 bug）", metadata={"tags": ["bug-hunt"]}),
                nbformat.v4.new_code_cell("def f(x):\n    raise NotImplementedError\n\ncheck_f(f);",
                                          metadata={"tags": ["exercise"]})]
    with pytest.raises(TOOL.CourseError, match=r"02-99 cell 1: .*missing: \['f'\]"):
        TOOL.course_notebook(nb, "02-99", "bug-hunt", 1)
    with pytest.raises(TOOL.CourseError, match="no exercise matches"):
        TOOL.course_notebook(nb, "02-99", "transfer", 1)


@pytest.mark.parametrize("target", ["notebooks", "."])
def test_the_tool_refuses_to_write_into_the_repository(target):
    with pytest.raises(SystemExit):
        TOOL.main([str(ROOT / target)])


# --------------------------------------------------------------------------- the teacher's run (nbgrader)

def _nbgrader(course: Path, *args: str) -> str:
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(course / ".jupyter-config"),
           "MPLCONFIGDIR": str(course / ".mpl")}
    r = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, capture_output=True, text=True,
                       timeout=1200, env=env)
    log = r.stdout + r.stderr
    assert r.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{log[-4000:]}"
    return log


def _assert_nothing_alarming(what: str, log: str) -> None:
    """Fail if ``log`` has a warning, an error or a traceback; the message shows each with the lines after it."""
    lines = log.splitlines()
    hits = [k for k, ln in enumerate(lines) if re.search(r"WARNING|ERROR|Warning|Traceback|Error:", ln)]
    shown = sorted({j for k in hits[:5] for j in range(k, min(k + 25, len(lines)))})
    assert not hits, f"{what} printed {len(hits)} alarming line(s):\n" + "\n".join(lines[j] for j in shown)


def _edit(code: str, old: str, new: str, what: str) -> str:
    assert code.count(old) == 1, (f"the reference code changed, so the classic wrong answer '{what}' cannot be "
                                  f"made from it any more; update this test. Expected once: {old!r}\n{code}")
    return code.replace(old, new)


# The three classic wrong answers, each made by editing the instructor's reference code. They use the
# bug hunts of 2.6 and 2.10 and part 1 of the capstone (2.12), which issue 20 does not re-type.
WRONG = {
    "attention_fixed": ("wrong axis", lambda c: _edit(c, "E.sum(axis=-1, keepdims=True)",
                                                      "E.sum(axis=0, keepdims=True)", "wrong axis")),
    "fixed_causal_attention": ("mask after softmax", lambda c: _edit(_edit(
        c, "    S = S + np.triu(np.full((T, T), -1e9), k=1)\n", "", "mask after softmax"),
        "H.softmax(S)", "np.where(np.triu(np.ones((T, T), dtype=bool), k=1), 0.0, H.softmax(S))",
        "mask after softmax")),
    "my_causal_mha": ("missing scale", lambda c: _edit(c, " / np.sqrt(Q.shape[-1])", "", "missing scale")),
}


def _learners_answer(reference: str, names: tuple[str, ...]) -> str:
    """The reference code as a learner would hand it in: under the exercise's own names."""
    for name in names:
        reference = re.sub(rf"\b{name}_solution\b", name, reference)
    return reference


def _put_answer(cell, code: str) -> None:
    """Replace the stub function(s) of a released answer cell by ``code`` (what a learner does)."""
    tree = ast.parse(cell.source)
    stubs = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
    lines = cell.source.split("\n")
    start, end = min(s.lineno for s in stubs) - 1, max(s.end_lineno for s in stubs)
    cell.source = "\n".join(lines[:start] + code.split("\n") + lines[end:])


def _mixed_plan(graded) -> dict[str, str]:
    """answer_id -> "solved" / "untouched" / a wrong answer's name, for the mixed submission."""
    plan, solved_in = {}, set()
    for g in graded:
        if g.names[0] in WRONG:
            plan[g.answer_id] = WRONG[g.names[0]][0]
        elif g.notebook in ("02-02", "02-05", "02-12") and g.notebook not in solved_in:
            plan[g.answer_id] = "solved"                       # one more part of these notebooks is right
            solved_in.add(g.notebook)
        else:
            plan[g.answer_id] = "untouched"
    assert sorted(v for v in plan.values() if v not in ("solved", "untouched")) == sorted(w for w, _ in WRONG.values())
    return plan


def _answer_code(g, how: str) -> str:
    code = _learners_answer(g.reference, g.names)
    return WRONG[g.names[0]][1](code) if how in {w for w, _ in WRONG.values()} else code


@pytest.fixture(scope="module")
def teacher(tmp_path_factory):
    """Build, release, collect three submissions, autograde, generate feedback; return what a teacher sees."""
    pytest.importorskip("nbgrader", reason="the graded lab needs the grading extra: pip install -e '.[grading]'")
    course = tmp_path_factory.mktemp("nbgrader-course")
    graded = TOOL.build(course)
    logs = {"generate_assignment": _nbgrader(course, "generate_assignment", TOOL.ASSIGNMENT)}
    release, source = course / "release" / TOOL.ASSIGNMENT, course / "source" / TOOL.ASSIGNMENT
    submitted = course / "submitted"
    shutil.copytree(source, submitted / "solved" / TOOL.ASSIGNMENT)
    shutil.copytree(release, submitted / "untouched" / TOOL.ASSIGNMENT)
    mixed = submitted / "mixed" / TOOL.ASSIGNMENT
    shutil.copytree(release, mixed)
    plan = _mixed_plan(graded)
    by_answer = {g.answer_id: g for g in graded}
    for path in mixed.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            g = by_answer.get(_nbg(cell).get("grade_id"))
            if g and plan[g.answer_id] != "untouched":
                _put_answer(cell, _answer_code(g, plan[g.answer_id]))
        nbformat.write(nb, path)
    logs["autograde"] = _nbgrader(course, "autograde", TOOL.ASSIGNMENT)
    logs["generate_feedback"] = _nbgrader(course, "generate_feedback", TOOL.ASSIGNMENT)
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in ("solved", "untouched", "mixed"):
            sub = gb.find_submission(TOOL.ASSIGNMENT, student)
            scores[student] = {"total": (sub.score, sub.max_score),
                               "parts": {gr.name: gr.score for nb in sub.notebooks for gr in nb.grades}}
    return {"course": course, "graded": graded, "logs": logs, "scores": scores, "plan": plan}


@pytest.mark.grading
@pytest.mark.parametrize("command", ["generate_assignment", "autograde", "generate_feedback"])
def test_nbgrader_runs_without_errors_or_warnings(teacher, command):
    _assert_nothing_alarming(f"nbgrader {command}", teacher["logs"][command])


@pytest.mark.grading
def test_the_three_submissions_score_full_zero_and_exactly_the_solved_parts(teacher):
    total = float(sum(g.points for g in teacher["graded"]))
    scores, plan = teacher["scores"], teacher["plan"]
    print({s: v["total"] for s, v in scores.items()})
    assert scores["solved"]["total"] == (total, total)
    assert scores["untouched"]["total"] == (0.0, total)
    expected = {g.test_id: float(g.points if plan[g.answer_id] == "solved" else 0) for g in teacher["graded"]}
    assert scores["mixed"]["parts"] == expected
    assert scores["mixed"]["total"] == (sum(expected.values()), total)
    assert 0 < scores["mixed"]["total"][0] < total


@pytest.mark.grading
def test_the_release_has_no_reference_solution_and_no_hidden_test(teacher):
    release = teacher["course"] / "release" / TOOL.ASSIGNMENT
    for path in release.glob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        for leak in ("BEGIN SOLUTION", "END SOLUTION", "HIDDEN TESTS", "_nbg_", "_solution"):
            assert leak not in text, f"{path.name}: the release contains {leak!r}"
    for g in teacher["graded"]:
        body = [ln.strip() for ln in g.reference.split("\n")[1:] if len(ln.strip()) > 12 and not ln.strip().startswith("#")]
        released = (release / next(p.name for p, _, _ in TOOL.lab_notebooks() if p.name.startswith(g.notebook)))
        nb = nbformat.read(released, as_version=4)
        answer = next(c for c in nb.cells if _nbg(c).get("grade_id") == g.answer_id)
        assert not [ln for ln in body if ln in answer.source], f"{g.answer_id}: reference code left in the release"


@pytest.mark.grading
def test_the_release_is_the_student_edition_with_graded_cells_split(teacher):
    """Every released cell is the student edition's; a graded exercise cell is split into stub + check call."""
    release = teacher["course"] / "release" / TOOL.ASSIGNMENT
    for path, _, _ in TOOL.lab_notebooks():
        student = STUDENT.student_notebook(nbformat.read(path, as_version=4))
        released = nbformat.read(release / path.name, as_version=4).cells
        # The lab's instructions and 2.0's environment check, added to the first notebook (tested above).
        released = [c for c in released if c.metadata.get("self_attention_ch02", {}).get("course") != "lab-intro"]
        merged, k = [], 0
        while k < len(released):
            cell = released[k]
            if _nbg(cell).get("grade_id", "").endswith("-SEED"):
                merged.append(("seed", cell.source, None))
                k += 1
            elif _nbg(cell).get("solution") and k + 1 < len(released) and _nbg(released[k + 1]).get("grade"):
                merged.append(("split", cell.source, released[k + 1].source))
                k += 2
            else:
                merged.append(("kept", cell.source, None))
                k += 1
        assert len(merged) == len(student.cells), path.name
        for (kind, a, b), cell in zip(merged, student.cells):
            if kind == "kept":
                assert a == cell.source, f"{path.name}: a released cell differs from the student edition:\n{a[:300]}"
            elif kind == "seed":
                # The student edition's SEED cell with SEED = None (what generate_assignment made of the course's).
                assert re.search(r"^SEED = \d+", cell.source, re.M) and not re.search(r"^SEED = \d+", a, re.M)
                # ... and, below it, the student edition's own lines once SEED is set (indented under the guard)
                assert "if SEED is None:" in a and TOOL.SEED_ASK in a, a
                rest = [ln.strip() for ln in cell.source.split("\n") if ln.strip() and not ln.startswith("SEED =")]
                assert all(ln in {x.strip() for x in a.split("\n")} for ln in rest), a
            else:
                lines = cell.source.split("\n")
                assert a.rstrip() == "\n".join(ln for ln in lines if not CHECK_LINE.match(ln)).rstrip()
                assert b == "\n".join(ln for ln in lines if CHECK_LINE.match(ln))


# --------------------------------------------------------------------------- 2.12's self-test, one SEED per student

# Two student numbers, as the notebook asks (SEED = your student number); neither is the committed 2026.
SEED_A, SEED_B = 20230117, 20230242
SELF_TEST = ("my_attention", "my_shapes", "my_stds", "my_row")
SEED_LINE = re.compile(r"^SEED = (?:None|\d+)(?=\s)", re.M)
PROBLEM_LINE = re.compile(r"\(d\) Q = (\[.*?\])\s+K = (\[.*?\])\s+V = (\[.*?\])\s+要算的行（从 1 数起）：\s*(\d+)")


def _row_by_hand(Q, K, V, row: int) -> list[float]:
    """Output row ``row`` (1-based) of softmax(Q Kᵀ/√2) V, computed here from the printed numbers (not by the checks)."""
    import numpy as np

    Q, K, V = (np.array(a, dtype=float) for a in (Q, K, V))
    s = Q[row - 1] @ K.T / np.sqrt(2.0)
    w = np.exp(s - s.max())
    return list(w / w.sum() @ V)


def _self_test_answers(graded, seed: int, *, copied_row: list[float] | None = None, wrong_axis: bool = False):
    """answer_id -> the code a student hands in for the four self-test parts (the seed only changes the SEED cell)."""
    answers = {}
    for g in graded:
        if g.notebook != "02-12" or g.names[0] not in SELF_TEST:
            continue
        code = _learners_answer(g.reference, g.names)       # seed-independent: reads the numbers from ST
        if g.names[0] == "my_attention" and wrong_axis:
            code = _edit(_edit(code, "S.max(axis=-1, keepdims=True)", "S.max(axis=0, keepdims=True)", "softmax axis 0"),
                         "E.sum(axis=-1, keepdims=True)", "E.sum(axis=0, keepdims=True)", "softmax axis 0")
        if g.names[0] == "my_row" and copied_row is not None:
            code = "def my_row():\n    return [" + ", ".join(f"{v:.4f}" for v in copied_row) + "]   # copied"
        answers[g.answer_id] = code
    assert len(answers) == len(SELF_TEST), answers
    return answers


@pytest.fixture(scope="module")
def seeded(teacher):
    """Four more students hand in 2.12 (the rest of the release untouched); autograde grades their 2.12 only."""
    from helpers.checks import self_test

    course, graded = teacher["course"], teacher["graded"]
    release = course / "release" / TOOL.ASSIGNMENT
    nb12 = next(p.name for p in release.glob("02-12-*.ipynb"))
    # Rows of (d) worked out here by hand from each seed's question (what student A and B see printed).
    by_hand = {}
    for seed in (SEED_A, SEED_B):
        ex = self_test(seed).example
        by_hand[seed] = _row_by_hand(ex.Q.tolist(), ex.K.tolist(), ex.V.tolist(), ex.row)
    students = {"self-test-a": (SEED_A, _self_test_answers(graded, SEED_A)),
                "self-test-b": (SEED_B, _self_test_answers(graded, SEED_B)),
                "self-test-copied": (SEED_B, _self_test_answers(graded, SEED_B, copied_row=by_hand[SEED_A], wrong_axis=True)),
                # B's own numbers typed in: right only if the grading uses B's seed (2026's numbers would fail it)
                "self-test-own": (SEED_B, _self_test_answers(graded, SEED_B, copied_row=by_hand[SEED_B])),
                # right code (and A's right row), SEED left as released: no shared default, 0 for the four parts
                "self-test-unset": (None, _self_test_answers(graded, SEED_A, copied_row=by_hand[SEED_A]))}
    for student, (seed, answers) in students.items():
        folder = course / "submitted" / student / TOOL.ASSIGNMENT
        shutil.copytree(release, folder)
        nb = nbformat.read(folder / nb12, as_version=4)
        seed_cells = [c for c in nb.cells if c.cell_type == "code" and SEED_LINE.search(c.source)]
        assert len(seed_cells) == 1 and not _nbg(seed_cells[0]).get("locked") and not _nbg(seed_cells[0]).get("grade"), \
            "2.12 must have one unlocked, ungraded cell that sets SEED"
        assert re.search(r"^SEED = None\b", seed_cells[0].source, re.M), "the release must leave SEED unset"
        if seed is not None:
            seed_cells[0].source = SEED_LINE.sub(f"SEED = {seed}", seed_cells[0].source)
        for cell in nb.cells:
            if _nbg(cell).get("grade_id") in answers:
                _put_answer(cell, answers[_nbg(cell)["grade_id"]])
        nbformat.write(nb, folder / nb12)
    log = _nbgrader(course, "autograde", TOOL.ASSIGNMENT, "--student=self-test-*", f"--notebook={nb12[:-6]}")
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for student in students:
            sub = gb.find_submission_notebook(nb12[:-6], TOOL.ASSIGNMENT, student)
            scores[student] = {gr.name: gr.score for gr in sub.grades}
    autograded = {s: nbformat.read(course / "autograded" / s / TOOL.ASSIGNMENT / nb12, as_version=4) for s in students}
    return {"log": log, "scores": scores, "autograded": autograded, "by_hand": by_hand, "graded": graded}


@pytest.mark.grading
def test_the_self_test_is_graded_on_each_students_own_seed(seeded):
    """Same correct code, seeds A and B: full points for both. Seed B with seed A's numbers for (d): 0 for (d); a
    column-wise softmax in (a): 0 for (a). Seed B with its own numbers typed in for (d): full points. Each
    feedback names the student's own seed, not the committed one."""
    parts = {g.names[0]: g for g in seeded["graded"] if g.notebook == "02-12" and g.names[0] in SELF_TEST}
    assert set(parts) == set(SELF_TEST) and {g.points for g in parts.values()} == {3}
    scores = seeded["scores"]
    full = {g.test_id: 3.0 for g in parts.values()}
    assert {k: scores["self-test-a"][k] for k in full} == full
    assert {k: scores["self-test-b"][k] for k in full} == full
    assert {k: scores["self-test-own"][k] for k in full} == full
    assert {k: scores["self-test-copied"][k] for k in full} == {
        **full, parts["my_attention"].test_id: 0.0, parts["my_row"].test_id: 0.0}
    assert {k: scores["self-test-unset"][k] for k in full} == dict.fromkeys(full, 0.0)

    # What each student was asked, as printed in their own graded notebook, and the feedback of each part.
    problems, shown = {}, {}
    for student, nb in seeded["autograded"].items():
        errors = [c.get("id") for c in nb.cells if any(o.get("output_type") == "error" for o in c.get("outputs", []))]
        assert not errors, f"{student}: a traceback in {errors}"
        out = "\n".join(_stdout(c) for c in nb.cells if c.cell_type == "code")
        m = PROBLEM_LINE.search(out)
        if student == "self-test-unset":
            assert not m and TOOL.SEED_ASK in out, f"{student}: the SEED cell computed with a default:\n{out[:2000]}"
        else:
            assert m and TOOL.SEED_ASK not in out, f"{student}: the SEED cell's question (d) is not in the graded notebook"
            problems[student] = [ast.literal_eval(x) for x in m.groups()[:3]] + [int(m.group(4))]
        for g in parts.values():
            test = next(c for c in nb.cells if _nbg(c).get("grade_id") == g.test_id)
            assert not any(o.get("output_type") == "error" for o in test.outputs), f"{student} {g.test_id}: a traceback"
            shown[student, g.names[0]] = _stdout(test)
    seeds = {"self-test-a": SEED_A, "self-test-b": SEED_B, "self-test-copied": SEED_B, "self-test-own": SEED_B,
             "self-test-unset": None}
    for (student, name), text in shown.items():
        assert f"(seed={seeds[student]})" in text and "(seed=2026)" not in text, f"{student} {name}: {text!r}"
        if student == "self-test-unset":
            assert TOOL.SEED_ASK in text and "✅" not in text, f"{student} {name}: {text!r}"
            continue
        right = not (student == "self-test-copied" and name in ("my_attention", "my_row"))
        assert (text.startswith("✅") and "❌" not in text) if right else text.startswith("❌"), f"{student} {name}: {text!r}"
    # The two seeds ask different things, and the copied numbers are seed A's right answer, not seed B's.
    assert problems["self-test-b"] == problems["self-test-copied"] == problems["self-test-own"] != problems["self-test-a"]
    row_a, row_b = _row_by_hand(*problems["self-test-a"]), _row_by_hand(*problems["self-test-b"])
    typed = seeded["by_hand"]
    assert max(abs(x - y) for x, y in zip(typed[SEED_A], row_a)) < 1e-3
    assert max(abs(x - y) for x, y in zip(typed[SEED_B], row_b)) < 1e-3
    assert max(abs(x - y) for x, y in zip(row_a, row_b)) > 1e-3, (row_a, row_b)
    _assert_nothing_alarming("nbgrader autograde", seeded["log"])


def _check_message(g, code: str) -> str:
    """What the notebook's own self-check prints for ``code`` (run here, in this process)."""
    import numpy as np

    import helpers as H
    import helpers.checks as checks

    ns = {"np": np, "H": H, **{n: getattr(checks, n) for n in dir(checks) if n.startswith("check_")}}
    exec(compile(code, f"<{g.answer_id}>", "exec"), ns)  # noqa: S102 -- the test's own reference code
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        for call in g.checks:
            eval(call, ns)  # noqa: S307
    return buf.getvalue().strip()


@pytest.mark.grading
def test_the_feedback_is_the_self_checks_chinese_message(teacher):
    course, plan = teacher["course"], teacher["plan"]
    for g in teacher["graded"]:
        name = next(p.stem for p, _, _ in TOOL.lab_notebooks() if p.name.startswith(g.notebook))
        for student in ("untouched", "mixed"):
            auto = nbformat.read(course / "autograded" / student / TOOL.ASSIGNMENT / f"{name}.ipynb", as_version=4)
            test = next(c for c in auto.cells if _nbg(c).get("grade_id") == g.test_id)
            assert not any(o.get("output_type") == "error" for o in test.outputs), f"{g.test_id}: a traceback"
            shown = _stdout(test)
            how = "untouched" if student == "untouched" else plan[g.answer_id]
            if how == "untouched" and "SEED" in " ".join(g.checks):
                # both hand in 2.12 with SEED as released (None): the check asks for it instead of grading on a default
                assert TOOL.SEED_ASK in shown and "(seed=None)" in shown, f"{student} {g.test_id}: {shown!r}"
            elif how == "untouched":
                assert "尚未完成" in shown, f"{student} {g.test_id}: {shown!r}"
            elif how == "solved":
                assert "✅" in shown and "❌" not in shown, f"{student} {g.test_id}: {shown!r}"
            else:
                expected = _check_message(g, _answer_code(g, how))
                assert expected.startswith("❌") and expected in shown, f"{g.test_id} ({how}):\n{shown}\n---\n{expected}"
            feedback = (course / "feedback" / student / TOOL.ASSIGNMENT / f"{name}.html").read_text(encoding="utf-8")
            first = shown.strip().split("\n")[0]
            assert html.escape(first, quote=False) in feedback, f"{student} {g.test_id}: feedback lacks {first!r}"


def test_ci_installs_the_grading_extra_where_the_grading_tests_run(request):
    """The newest-versions command installs nbgrader; the lowest-versions one, which does not, deselects its tests."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    newest = next(ln for ln in ci.splitlines() if ln.startswith("python3 -m venv .venv &&"))
    lowest = next(ln for ln in ci.splitlines() if ln.startswith("python3 -m venv .venv-lowest"))
    extras = re.search(r'-e "\.\[([^\]]*)\]"', newest)
    assert extras and {"test", "grading"} <= set(extras.group(1).split(",")) and newest in readme, newest
    assert "grading" not in CONSTRAINTS.EXTRAS and "-c constraints/lowest.txt" in lowest
    selected = re.search(r'-m "([^"]*)"', lowest)
    # The lowest run selects two lanes; a grading test is in neither (conftest.py marks fast only what no
    # other lane claims, and only notebooks/ items are the notebook lane).
    assert selected and {t.strip() for t in selected.group(1).split(" or ")} == {"fast", "notebooks"}, lowest
    root_conftest = next(m for m in request.config.pluginmanager.get_plugins()
                         if getattr(m, "__file__", None) and Path(m.__file__) == ROOT / "conftest.py")
    assert {"grading", "browser", "editions"} <= set(root_conftest.SLOW_LANES)
    assert lowest in readme
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^\s*"grading: ', pyproject, re.M), "the grading marker must be registered (--strict-markers)"


# --------------------------------------------------------------------------- the feedback pages, offline

# Elements and attributes through which a browser fetches something as it shows a page (links a reader
# follows, <a href>, fetch nothing by themselves).
_FETCHING = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"), ("source", "src"),
             ("video", "src"), ("audio", "src"), ("embed", "src"), ("object", "data"), ("input", "src")}
_FOREIGN = re.compile(r"^\s*(?:[a-z][a-z0-9+.-]*:)?//", re.I)       # http://, https://, //host, ...
_CSS_URL = re.compile(r"""url\(\s*['"]?([^'")]*)|@import\s+['"]([^'"]*)""", re.I)
_TEX_LEFT = re.compile(r"\$\$|\\\(|\\\[|\\begin\{|\\(?:frac|sqrt|sum|top|text|mathbb|operatorname)\b")


class _Page(HTMLParser):
    """What a feedback page fetches (tag, attribute, URL), its CSS, and its text outside code and scripts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.fetches, self.css, self.text, self.math, self._skip = [], [], [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for (t, a) in _FETCHING:
            if tag == t and attrs.get(a):
                self.fetches.append((tag, a, attrs[a]))
        if attrs.get("style"):
            self.css.append(attrs["style"])
        if tag == "math":
            self.math += 1
        if tag in ("script", "style", "pre", "code", "math"):
            self._skip.append(tag)

    def handle_endtag(self, tag):
        if self._skip and self._skip[-1] == tag:
            self._skip.pop()

    def handle_data(self, data):
        if self._skip and self._skip[-1] == "style":
            self.css.append(data)
        elif not self._skip:
            self.text.append(data)


def _formulas(path: Path) -> int:
    """How many formulas nbconvert's own markdown parser finds in a notebook's markdown cells."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    found = []

    class Counting(IPythonRenderer):
        def block_math(self, body):
            found.append(body)
            return ""

        inline_math = block_math

        def latex_environment(self, name, body):
            found.append(body)
            return ""

    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "markdown":
            MarkdownWithMath(renderer=Counting(escape=False)).render(cell.source)
    return len(found)


@pytest.mark.grading
def test_the_feedback_pages_fetch_nothing_from_another_host_and_carry_their_maths_typeset(teacher):
    """Each page stands alone: no URL of another host, every local resource beside it, every formula MathML."""
    course = teacher["course"]
    pages = sorted((course / "feedback").glob(f"*/{TOOL.ASSIGNMENT}/*.html"))
    assert len(pages) == 3 * len(TOOL.LAB), [p.relative_to(course) for p in pages]
    for page in pages:
        where = page.relative_to(course)
        parsed = _Page()
        parsed.feed(page.read_text(encoding="utf-8"))
        css = re.sub(r"/\*.*?\*/", "", "\n".join(parsed.css), flags=re.S)     # licence comments name hosts
        urls = [(t, a, u) for t, a, u in parsed.fetches] + [("css", "url", u or v) for u, v in _CSS_URL.findall(css)]
        foreign = [x for x in urls if _FOREIGN.match(x[2]) or x[2].lower().startswith(("http:", "https:"))]
        assert not foreign, f"{where} fetches from another host: {foreign}"
        for tag, attr, url in parsed.fetches:
            if not url.startswith("data:"):
                assert (page.parent / url.split("?")[0].split("#")[0]).is_file(), f"{where}: {tag} {attr}={url} is missing"
        assert not any("mathjax" in u.lower() for _, _, u in parsed.fetches), f"{where} still loads MathJax"
        source = course / "autograded" / page.parent.parent.name / TOOL.ASSIGNMENT / f"{page.stem}.ipynb"
        expected = _formulas(source)
        assert expected > 0 and parsed.math == expected, f"{where}: {parsed.math} MathML formulas, the notebook has {expected}"
        raw = [m.group(0) for m in _TEX_LEFT.finditer("".join(parsed.text))]
        assert not raw, f"{where} shows raw TeX: {raw[:5]}"


_FONT_FACE = re.compile(r'@font-face\s*\{[^}]*font-family:\s*"([^"]+)"[^}]*src:\s*url\(data:font/otf;base64,([A-Za-z0-9+/=]+)\)')


@pytest.mark.grading
def test_the_feedback_pages_embed_a_chinese_font_with_every_character_they_show(teacher):
    """A PC without a CJK font shows each page's Chinese (prose and the checks' messages): the page embeds a font,
    as a data: URL, that the page's text and code use, and that has a glyph for every Chinese character of the page."""
    from fontTools.ttLib import TTFont

    course = teacher["course"]
    pages = sorted((course / "feedback").glob(f"*/{TOOL.ASSIGNMENT}/*.html"))
    assert pages
    for page in pages:
        where = page.relative_to(course)
        text = page.read_text(encoding="utf-8")
        faces = _FONT_FACE.findall(text)
        assert len(faces) == 1, f"{where}: {len(faces)} embedded fonts"
        family, data = faces[0]
        css = "".join(re.findall(r"<style[^>]*>(.*?)</style>", text, flags=re.S))
        for selector in ("body", "pre"):
            rule = re.search(rf"(?:^|[}},\s]){selector}\b[^{{}}]*\{{[^}}]*font-family:[^;}}]*\"{re.escape(family)}\"", css)
            assert rule, f"{where}: no {selector} rule uses {family!r}"
        embedded = base64.b64decode(data)
        font = TTFont(io.BytesIO(embedded))
        cmap = font.getBestCmap()
        shown = html.unescape(re.sub(r"<style[^>]*>.*?</style>|<script[^>]*>.*?</script>|<[^>]+>", "", text, flags=re.S))
        chinese = {ch for ch in shown if _chinese(ch)}
        assert len(chinese) > 100, f"{where}: only {len(chinese)} Chinese characters?"
        missing = sorted(ch for ch in chinese if ord(ch) not in cmap)
        assert not missing, f"{where}: the embedded font lacks {''.join(missing)}"
        assert len(embedded) < TOOL.FEEDBACK_FONT.stat().st_size / 3, f"{where}: the whole font, not the page's subset"


@pytest.mark.grading
@pytest.mark.browser
def test_a_feedback_page_opened_from_disk_shows_typeset_maths_in_chromium(teacher):
    """file:// in headless Chromium, every other host blocked: the formulas are laid out as maths, nothing else is fetched."""
    sync_api = pytest.importorskip("playwright.sync_api", reason='needs playwright: pip install -e ".[test]"')
    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    page_path = next((teacher["course"] / "feedback" / "mixed" / TOOL.ASSIGNMENT).glob("02-05-*.html"))
    # Moved away from its course folder, as the exchange does (it copies the HTML file alone).
    moved = teacher["course"] / "moved-feedback" / "feedback.html"
    moved.parent.mkdir(exist_ok=True)
    shutil.copy(page_path, moved)
    blocked, seen, result, script_errors = [], [], {}, []

    def look():
        # In a thread of its own: the browser tests of the same session keep a sync Playwright (and so an
        # asyncio loop) running in the main thread, and a second sync_playwright() there refuses to start.
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, headless=True, args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"])
            try:
                ctx = browser.new_context(viewport={"width": 1280, "height": 900})

                def gate(route):
                    url = route.request.url
                    if url.startswith(("file:", "data:")) or urllib.parse.urlsplit(url).hostname == "127.0.0.1":
                        route.continue_()
                    else:
                        blocked.append(url)
                        route.abort()

                ctx.route("**/*", gate)
                pg = ctx.new_page()
                pg.on("request", lambda r: seen.append(r.url))
                pg.on("pageerror", lambda e: script_errors.append(str(e)))
                pg.goto(moved.as_uri(), wait_until="load")
                result["info"] = pg.evaluate("""() => {
                    const fracs = [...document.querySelectorAll('math mfrac')].filter(f => f.children.length === 2);
                    const stacked = fracs.filter(f => {
                        const [num, den] = [...f.children].map(c => c.getBoundingClientRect());
                        return num.height > 0 && den.height > 0 && num.bottom <= den.top + 1;
                    });
                    const clone = document.body.cloneNode(true);
                    clone.querySelectorAll('pre, code, script, style, math').forEach(n => n.remove());
                    return {math: document.querySelectorAll('math').length, fracs: fracs.length, stacked: stacked.length,
                            shown: [...document.querySelectorAll('math')].filter(m => m.getBoundingClientRect().width > 0).length,
                            text: clone.innerText};
                }""")
            finally:
                browser.close()

    errors = []
    worker = threading.Thread(target=lambda: _catching(look, errors))
    worker.start()
    worker.join(120)
    assert not worker.is_alive(), "Chromium did not finish within 120 s"
    if errors:
        raise errors[0]
    info = result["info"]
    assert not blocked, f"the page asked other hosts for: {blocked}"
    # 2.5 shows widgets: their views, written for a page with jQuery and a kernel, must not be script errors here.
    assert not script_errors, f"the page's scripts failed: {script_errors}"
    assert all(u.startswith(("file:", "data:")) for u in seen), seen
    assert info["math"] > 0 and info["shown"] == info["math"], info | {"text": "..."}
    # MathML laid out by the browser: each fraction's numerator sits above its denominator.
    assert info["fracs"] > 0 and info["stacked"] == info["fracs"], info | {"text": "..."}
    assert "$$" not in info["text"] and not _TEX_LEFT.search(info["text"]), "raw TeX left in the page"


def _catching(fn, errors):
    try:
        fn()
    except BaseException as exc:  # re-raised in the test's own thread
        errors.append(exc)
