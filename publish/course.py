"""Write the graded lab as an nbgrader course: ``python -m publish course COURSE_DIR``.

The course is built from the notebooks, never from a second copy of them::

    COURSE_DIR/nbgrader_config.py                     (publish/templates/course/nbgrader_config.py, as it is)
    COURSE_DIR/course.json                            (its parameters: course id, hidden-test delimiters, ...)
    COURSE_DIR/source/lab-1/02-02-soft-lookup.ipynb  ... (the notebooks of the lab plan)
    COURSE_DIR/templates/offline-feedback/            (the feedback pages' template: no MathJax, no CDN)

Then, in COURSE_DIR: ``nbgrader generate_assignment lab-1`` (the release), collect the
submissions into ``submitted/<student>/lab-1/``, ``nbgrader autograde lab-1``,
``nbgrader generate_feedback lab-1``.

What changes in each notebook, driven by the cell tags of CONTRIBUTING.md and by the
self-check calls the notebooks already make (no cell index and no exercise text is named here):

- A graded exercise (the lab's selection, see ``LAB``) becomes two cells. The exercise cell's
  code without its ``check_*(...)`` calls is an nbgrader *answer* cell: the learner's stub as
  today, followed by ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` around the reference code
  of its solution cell (up to the ``*_solution`` definition, then ``name = name_solution``).
  ``generate_assignment`` drops that region, so the released stub is the one the learner sees
  today. The ``check_*(...)`` calls become a locked, autograded *test* cell with the
  exercise's points: visible, exactly the call of today (it prints ✅, ❌ with a Chinese hint,
  or 尚未完成); hidden (``### BEGIN HIDDEN TESTS``), the same self-check run again silently,
  which on failure writes one line to stderr -- what nbgrader scores as 0, with no traceback.
  So the self-check that tells a learner 尚未完成 also gives the grade, and its Chinese
  message is the feedback.
- Any other exercise of these notebooks stays ungraded practice: an answer cell with the
  reference code in a solution region (the teacher's source stays solved), the check call
  kept in place. Every ``solution`` cell itself is removed.
- A cell that sets a seed each student must choose (``SEED = <number>``, 2.12's chapter self-test) starts
  the release with ``SEED = None`` (the committed number stays in a solution region, so the teacher's
  source still runs); until the student sets it, the cell prints 先把 SEED 改成你的学号（一个整数），再运行
  instead of computing with a shared default, and the checks that take the seed give 0 (``SEED_LINE``).
- The first notebook of the lab starts with what a student needs before the first exercise: the graded lab's
  instructions (set SEED in 2.12, how to hand in) and 2.0's environment check (``lab_intro_cells``).
- Everything else (prose, figures, predictions, sliders) is kept as committed.

The feedback pages work offline wherever the HTML file goes (the exchange hands a student the file
alone): ``generate_feedback`` typesets each formula as MathML (latex2mathml) and the page loads no
MathJax and nothing from another host (``OfflineFeedbackExporter`` in the config, the ``offline-feedback`` template).
Their Chinese (the prose and the self-checks' messages, which are the feedback) is drawn with the decks' font
(``publish/deck/font.py``), copied into the template folder; each page embeds the subset of the characters it
shows, so it reads on a PC without a Chinese font.
"""

from __future__ import annotations

import argparse
import ast
import copy
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .notebooks import EXERCISE as EXERCISE_TAG, NOTEBOOKS, ROOT, SHARE, SOLUTION as SOLUTION_TAG, tags as _tags
ASSIGNMENT = "lab-1"
COURSE_ID = "self-attention-ch02"
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"

# The lab plan of docs/teaching/README.md (实验课): which exercises of which notebook are graded,
# and the points of each. "transfer" / "bug-hunt": the exercises introduced by a markdown cell
# with that tag; "all": every exercise of the notebook.
LAB: tuple[tuple[str, str, int], ...] = (
    ("02-02", "transfer", 1),
    ("02-05", "transfer", 1),
    ("02-06", "bug-hunt", 1),
    ("02-10", "bug-hunt", 1),
    ("02-12", "all", 3),
)
SELECTIONS = ("transfer", "bug-hunt", "all")

# An exercise's own markdown: the nearest cell above it that is tagged like an exercise or has a
# heading (or bold run-in heading) with 练习 in it.
_EXERCISE_HEADING = re.compile(r"^\s*(#+\s.*练习|\*\*[^*\n]*练习)", re.M)

# The course's files that are not notebooks are real files, copied as they are (each can be linted and read):
# TEMPLATES/nbgrader_config.py, which reads its parameters from the course.json written beside it, and
# TEMPLATES/offline-feedback/, the feedback pages' template: nbgrader's "feedback" template, whose page head
# calls nbconvert's mathjax() macro (a CDN script); that folder's mathjax.html.j2 is found before nbconvert's
# own and gives the page a MathML style instead; its base.html.j2 leaves out widget views (no kernel, no jQuery
# there). The formulas themselves are MathML, typeset by OfflineFeedbackExporter (in the config) when the feedback
# is generated.
TEMPLATES = Path(__file__).resolve().parent / "templates" / "course"
FEEDBACK_TEMPLATE = "offline-feedback"
# The feedback pages' Chinese font: the decks' subset of Noto Sans CJK SC (every character of the notebooks, the
# helpers' messages and GB 2312 level 1), copied into the template folder; the config embeds in each page the
# subset of the characters that page shows.
FEEDBACK_FONT = SHARE / "jupyter" / "voila" / "templates" / "ch02-deck" / "static" / "NotoSansSC-ch02.otf"

# A seed the student sets: a top-level ``SEED = <int>`` line in a code cell that is neither an exercise nor a
# solution. In the release it reads ``SEED = None`` with the comment below; the rest of the cell runs only
# once SEED is set, and says so before.
SEED_LINE = re.compile(r"^SEED\s*=\s*\d+\b.*$", re.M)
SEED_UNSET = "SEED = None   # 改成你的学号（一个整数），再运行这一格"
SEED_ASK = "先把 SEED 改成你的学号（一个整数），再运行"
# Where the release's first notebook gets the environment check (2.0's section with this heading).
ENV_HEADING = "## 环境检查"
LAB_INTRO = """## 计分实验课：开始之前

这次实验课计分（nbgrader）。这个文件夹里是实验课的 {count} 个笔记本，按编号顺序做。

1. 先运行下面 2.0 的环境检查：最后一行是「一切就绪」就可以开始；出现以「问题：」开头的行，请举手。
2. 每个计分练习下面锁着一个评分格，就是那道题的自检：它现在对你说的（✅、❌ 加提示，或「尚未完成」），
   就是评分时的评语；每道题要么满分，要么 0 分。
3. **2.12 的章末自测：先把 `SEED = None` 改成你的学号（一个整数），再运行。** 每人的题目由自己的学号抽出；
   不改，自测的四道题都是 0 分。
4. 做完保存（Ctrl+S），再提交：用 JupyterHub 的，在 *Assignments* 页面点 *Submit*（可以多次提交，以最后一次为准）；
   在机房的，把整个 `lab-1` 文件夹按老师说的方式交上去。
5. 章末自测和课上没做完的练习课后接着做，在老师定的截止时间之前提交（机房的，按老师说的方式再交一次）。"""


class CourseError(ValueError):
    """The notebooks do not give what the lab needs (a graded exercise without a solution, ...)."""


@dataclass
class Graded:
    """One autograded part: the answer cell's and the test cell's grade ids and the points."""

    notebook: str
    answer_id: str
    test_id: str
    points: int
    names: tuple[str, ...]
    checks: tuple[str, ...]
    reference: str = field(repr=False, default="")


def _lines(src: str) -> list[str]:
    return src.split("\n")


def _kind(cells, k: int) -> set[str]:
    """The tags (transfer / bug-hunt) of the markdown cell that introduces the exercise in cell ``k``."""
    for j in range(k - 1, -1, -1):
        cell = cells[j]
        if cell.cell_type != "markdown":
            continue
        tags = _tags(cell) & {"transfer", "bug-hunt"}
        if tags or _EXERCISE_HEADING.search(cell.source):
            return tags
    return set()


def _raises_not_implemented(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id == "NotImplementedError":
                return True
    return False


def _is_check_call(stmt: ast.stmt) -> bool:
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    return name.startswith("check_")


def _reference_code(solution_cells, name: str) -> str | None:
    """The solution code defining ``name + '_solution'``: its cell from the top to the end of that definition."""
    target = f"{name}_solution"
    for cell in solution_cells:
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for stmt in tree.body:
            defined = ({stmt.name} if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) else
                       {t.id for t in getattr(stmt, "targets", []) if isinstance(t, ast.Name)})
            if target in defined:
                return "\n".join(_lines(cell.source)[: stmt.end_lineno]).rstrip()
    return None


def _region(references: list[str], names: list[str]) -> list[str]:
    body = "\n\n\n".join(references) + "\n\n\n" + "\n".join(f"{n} = {n}_solution" for n in names)
    return [BEGIN_SOLUTION, *_lines(body), END_SOLUTION]


def _nbgrader(grade_id: str, *, solution: bool, grade: bool, locked: bool, points: int | None = None) -> dict:
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _hidden_test(calls: list[str], points: int) -> list[str]:
    checks = ", ".join(f"bool({c})" for c in calls)
    return [
        BEGIN_HIDDEN,
        "# Grading: the same self-check again, silently; a failure writes one line to stderr (nbgrader: 0 points).",
        "import contextlib as _nbg_contextlib, io as _nbg_io, sys as _nbg_sys",
        "with _nbg_contextlib.redirect_stdout(_nbg_io.StringIO()):",
        f"    _nbg_passed = all([{checks}])",
        "if not _nbg_passed:",
        f'    print("（评分）上面的自检还没有通过：本题 0/{points} 分。", file=_nbg_sys.stderr)',
        END_HIDDEN,
    ]


def _fresh(cell, source: str, cell_id: str | None = None):
    out = copy.deepcopy(cell)
    out.source = source
    if out.cell_type == "code":
        out.outputs, out.execution_count = [], None
    out.metadata.pop("jupyter", None)
    if cell_id is not None:
        out.id = cell_id
    return out


def seed_cell(cell, grade_id: str):
    """The course version of a cell that sets ``SEED = <number>``: an ungraded, unlocked answer cell whose release
    reads ``SEED = None`` (the committed line in a solution region, for the teacher's source) and runs the rest
    of the cell only once SEED is set, printing ``SEED_ASK`` until then; None if the cell sets no seed."""
    if cell.cell_type != "code" or _tags(cell) & {EXERCISE_TAG, SOLUTION_TAG}:
        return None
    m = SEED_LINE.search(cell.source)
    if m is None:
        return None
    before, rest = cell.source[: m.start()].rstrip("\n"), cell.source[m.end():].strip("\n")
    guarded = ["if SEED is None:", f'    print("{SEED_ASK}")']
    if rest.strip():
        guarded += ["else:", *("    " + ln if ln.strip() else "" for ln in _lines(rest))]
    body = ([before, ""] if before else []) + [SEED_UNSET, BEGIN_SOLUTION, m.group(0), END_SOLUTION, *guarded]
    source = "\n".join(body)
    try:
        ast.parse(source)
    except SyntaxError as exc:
        raise CourseError(f"{grade_id}: the cell that sets SEED cannot be guarded ({exc})") from exc
    out = _fresh(cell, source, grade_id)
    out.metadata["nbgrader"] = _nbgrader(grade_id, solution=True, grade=False, locked=False)
    return out


def lab_intro_cells(notebooks_dir: Path = NOTEBOOKS) -> list:
    """The cells the release's first notebook starts with (after its title): ``LAB_INTRO``, then 2.0's environment
    check (its ``ENV_HEADING`` markdown cell and the code cell after it, as committed, outputs cleared)."""
    matches = sorted(notebooks_dir.glob("02-00-*.ipynb"))
    if len(matches) != 1:
        raise CourseError(f"expected one notebook 02-00-*.ipynb in {notebooks_dir}, found {len(matches)}")
    cells = nbformat.read(matches[0], as_version=4).cells
    k = next((k for k, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith(ENV_HEADING)), None)
    if k is None or k + 1 >= len(cells) or cells[k + 1].cell_type != "code":
        raise CourseError(f"{matches[0].name}: no '{ENV_HEADING}' section followed by a code cell")
    intro = nbformat.v4.new_markdown_cell(LAB_INTRO.format(count=len(LAB)))
    intro.id = "lab-intro"
    env_md, env_code = _fresh(cells[k], cells[k].source, "lab-intro-env"), _fresh(cells[k + 1], cells[k + 1].source,
                                                                                 "lab-intro-env-check")
    out = [intro, env_md, env_code]
    for cell in out:
        cell.metadata.setdefault("self_attention_ch02", {})["course"] = "lab-intro"
    return out


def course_notebook(nb: nbformat.NotebookNode, prefix: str, select: str, points: int
                    ) -> tuple[nbformat.NotebookNode, list[Graded]]:
    """The nbgrader source version of ``nb``; and its graded parts (``select`` as in ``LAB``)."""
    if select not in SELECTIONS:
        raise CourseError(f"select must be one of {SELECTIONS}; got {select!r}")
    cells = nb.cells
    exercises = [k for k, c in enumerate(cells) if EXERCISE_TAG in _tags(c) and c.cell_type == "code"]
    replaced: dict[int, list] = {}
    graded: list[Graded] = []
    for n, k in enumerate(exercises):
        end = exercises[n + 1] if n + 1 < len(exercises) else len(cells)
        solutions = [cells[j] for j in range(k + 1, end) if SOLUTION_TAG in _tags(cells[j])]
        wanted = select == "all" or select in _kind(cells, k)
        where = f"{prefix} cell {k}"
        src = cells[k].source
        try:
            tree = ast.parse(src)
        except SyntaxError as exc:
            raise CourseError(f"{where}: the exercise cell is not valid Python ({exc})") from exc
        stubs = [s for s in tree.body if isinstance(s, ast.FunctionDef) and _raises_not_implemented(s)]
        names = [s.name for s in stubs]
        refs = [_reference_code(solutions, name) for name in names]
        calls = [s for s in tree.body if _is_check_call(s)]
        complete = bool(stubs) and all(refs) and bool(calls)
        if not complete:
            if wanted:
                raise CourseError(
                    f"{where}: a graded exercise needs a stub function that raises NotImplementedError "
                    f"(found {names or 'none'}), a solution cell defining <name>_solution for each "
                    f"(missing: {[nm for nm, r in zip(names, refs) if not r] or 'none'}) and a check_* call "
                    f"(found {len(calls)})")
            continue                               # ungraded and unusual: treated as in the student edition
        lines = _lines(src)
        last_stub = max(s.end_lineno for s in stubs)
        grade_base = f"{prefix}-{'-'.join(names)}"
        if wanted:
            call_rows = {r for s in calls for r in range(s.lineno - 1, s.end_lineno)}
            if any(r < last_stub for r in call_rows):
                raise CourseError(f"{where}: a check_* call comes before the stub it checks")
            answer_lines = [ln for r, ln in enumerate(lines) if r not in call_rows]
            while answer_lines and not answer_lines[-1].strip():
                answer_lines.pop()
            answer = _fresh(cells[k], "\n".join(answer_lines + _region(refs, names)), grade_base)
            answer.metadata["nbgrader"] = _nbgrader(grade_base, solution=True, grade=False, locked=False)
            visible = [lines[r] for r in sorted(call_rows)]
            call_src = [ast.get_source_segment(src, s.value) for s in calls]
            test = _fresh(cells[k], "\n".join(visible + _hidden_test(call_src, points)), f"{grade_base}-test")
            test.metadata["tags"] = [t for t in test.metadata.get("tags", []) if t != EXERCISE_TAG]
            test.metadata["nbgrader"] = _nbgrader(f"{grade_base}-test", solution=False, grade=True, locked=True,
                                                  points=points)
            replaced[k] = [answer, test]
            graded.append(Graded(prefix, grade_base, f"{grade_base}-test", points, tuple(names),
                                 tuple(call_src), "\n\n\n".join(refs)))
        else:
            # The region takes the place of the first blank line after the stub, so the release
            # (the region dropped, no stub line added) is the exercise cell exactly as committed.
            at = last_stub
            blank = at < len(lines) and not lines[at].strip()
            new = lines[:at] + _region(refs, names) + lines[at + (1 if blank else 0):]
            answer = _fresh(cells[k], "\n".join(new), grade_base)
            answer.metadata["nbgrader"] = _nbgrader(grade_base, solution=True, grade=False, locked=False)
            replaced[k] = [answer]
    if not graded:
        raise CourseError(f"{prefix}: no exercise matches the selection {select!r}")
    out = copy.deepcopy(nb)
    out.cells = []
    for k, cell in enumerate(cells):
        seeded = seed_cell(cell, f"{prefix}-SEED") if k not in replaced else None
        if k in replaced:
            out.cells.extend(replaced[k])
        elif seeded is not None:
            out.cells.append(seeded)
        elif SOLUTION_TAG not in _tags(cell):
            out.cells.append(copy.deepcopy(cell))
    if sum(1 for c in out.cells if c.get("id") == f"{prefix}-SEED") > 1:
        raise CourseError(f"{prefix}: more than one cell sets SEED")
    out.metadata.setdefault("self_attention_ch02", {})["edition"] = "nbgrader-source"
    return out, graded


def lab_notebooks(notebooks_dir: Path = NOTEBOOKS) -> list[tuple[Path, str, int]]:
    """The notebooks of the lab with their selection and points, in order (``LAB``)."""
    found = []
    for prefix, select, points in LAB:
        matches = sorted(notebooks_dir.glob(f"{prefix}-*.ipynb"))
        if len(matches) != 1:
            raise CourseError(f"expected one notebook {prefix}-*.ipynb in {notebooks_dir}, found {len(matches)}")
        found.append((matches[0], select, points))
    return found


def build(course_dir: Path, notebooks_dir: Path = NOTEBOOKS) -> list[Graded]:
    """Write ``nbgrader_config.py`` (with ``course.json``), ``templates/`` and ``source/lab-1/`` into ``course_dir``;
    return the graded parts."""
    source = course_dir / "source" / ASSIGNMENT
    source.mkdir(parents=True, exist_ok=True)
    graded: list[Graded] = []
    written = []
    for n, (path, select, points) in enumerate(lab_notebooks(notebooks_dir)):
        nb = nbformat.read(path, as_version=4)
        out, parts = course_notebook(nb, path.name[:5], select, points)
        if n == 0:
            out.cells[1:1] = lab_intro_cells(notebooks_dir)
        nbformat.validate(out)
        nbformat.write(out, source / path.name)
        written.append(path.name)
        graded += parts
    for stale in source.glob("*.ipynb"):           # a notebook that left the lab must not stay in the course
        if stale.name not in written:
            stale.unlink()
    shutil.copytree(TEMPLATES / FEEDBACK_TEMPLATE, course_dir / "templates" / FEEDBACK_TEMPLATE, dirs_exist_ok=True)
    font = Path("templates") / FEEDBACK_TEMPLATE / FEEDBACK_FONT.name
    shutil.copyfile(FEEDBACK_FONT, course_dir / font)
    shutil.copyfile(TEMPLATES / "nbgrader_config.py", course_dir / "nbgrader_config.py")
    parameters = {"course_id": COURSE_ID, "begin_hidden": BEGIN_HIDDEN, "end_hidden": END_HIDDEN,
                  "feedback_template": FEEDBACK_TEMPLATE, "feedback_font": font.as_posix()}
    (course_dir / "course.json").write_text(json.dumps(parameters, indent=2) + "\n", encoding="utf-8")
    return graded


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish course", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("course_dir", type=Path, help="the nbgrader course folder to write (created if needed)")
    args = parser.parse_args(argv)
    if args.course_dir.resolve() == ROOT.resolve() or NOTEBOOKS.resolve() in (args.course_dir.resolve(),
                                                                               *args.course_dir.resolve().parents):
        parser.error("COURSE_DIR must be a folder of its own, not the repository or notebooks/")
    try:
        graded = build(args.course_dir)
    except CourseError as exc:
        parser.error(str(exc))
    total = sum(g.points for g in graded)
    print(f"wrote {args.course_dir / 'nbgrader_config.py'} and {args.course_dir / 'source' / ASSIGNMENT}/: "
          f"{len({g.notebook for g in graded})} notebooks, {len(graded)} graded parts, {total} points")
    for g in graded:
        print(f"  {g.notebook}  {', '.join(g.names):<28} {g.points} point{'s' if g.points != 1 else ''}")
    print(f"next, in {args.course_dir}: nbgrader generate_assignment {ASSIGNMENT}")
    return 0

