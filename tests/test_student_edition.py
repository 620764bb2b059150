"""The student edition: no solution left, and every student notebook runs to the end.

``publish/student.py OUT_DIR`` removes the cells tagged ``solution`` or
``full-edition-only`` and clears the outputs of the cells tagged ``exercise``. What is left must
stay true: no student notebook points to a solution cell or to the teacher's guide it lacks. That each
student notebook runs as the full one does (no solution cell changes what a later cell reads) and that
each exercise's self-check says 尚未完成 is checked on the notebook lane's one execution of each full
notebook (``student-edition`` in notebooks/conftest.py), not by executing the series again.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = series()
CJK = re.compile(r"[\u4e00-\u9fff]")
SOLUTION_DEF = re.compile(r"^\s*(def|class)\s+\w+_solution\b|^\s*\w+_solution\s*=", re.M)


def _tool():
    from publish import student

    return student


def _tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _text(outputs) -> str:
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif "data" in out:
            parts.append(str(out["data"].get("text/plain", "")) + str(out["data"].get("text/html", "")))
        elif out.get("output_type") == "error":
            parts.append(out.get("ename", "") + ": " + out.get("evalue", ""))
    return "".join(parts)


@pytest.fixture(scope="module")
def edition(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("student")
    return {p.name: p for p in _tool().build(out)}


def test_one_student_notebook_per_notebook(edition):
    assert sorted(edition) == [p.name for p in NOTEBOOKS]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_no_solution_is_left(edition, path):
    full = nbformat.read(path, as_version=4)
    student = nbformat.read(edition[path.name], as_version=4)
    removed = {"solution", "full-edition-only"}
    n_removed = sum(bool(removed & _tags(c)) for c in full.cells)
    assert len(student.cells) == len(full.cells) - n_removed
    for cell in student.cells:
        assert "solution" not in _tags(cell)
        if cell.cell_type == "code":
            assert not SOLUTION_DEF.search(cell.source), f"solution code left in {path.name}:\n{cell.source[:300]}"
        if "exercise" in _tags(cell):
            assert cell.get("outputs") == [], f"an exercise cell of {path.name} kept its output"
    kept = [c.source for c in student.cells]
    assert kept == [c.source for c in full.cells if not removed & _tags(c)], "other cells must be kept as they are"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_the_english_abstract_stays_the_last_cell(edition, path):
    from publish.notebooks import abstract

    said = abstract(nbformat.read(edition[path.name], as_version=4).cells)
    assert said is not None and said == abstract(nbformat.read(path, as_version=4).cells), \
        f"student {path.name} does not end with the full notebook's English abstract"


# What the student edition lacks: solution cells, the teacher's guide (docs/ is not copied), the repository's files.
ABSENT = re.compile(r"_solution|参考答案|docs/teaching|教师指南|CONTRIBUTING\.md")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_student_prose_points_to_nothing_the_edition_lacks(edition, path):
    for k, cell in enumerate(nbformat.read(edition[path.name], as_version=4).cells):
        if cell.cell_type == "markdown":
            hit = ABSENT.search(cell.source)
            assert not hit, (f"student {path.name} cell {k} mentions {hit.group(0)!r}, which the student edition does not have; "
                             "tag the paragraph full-edition-only or phrase it so it is true in both editions")


def test_the_how_to_use_text_of_the_full_edition_still_explains_solutions_and_the_guide():
    full = " ".join(c.source for c in nbformat.read(NOTEBOOKS[0], as_version=4).cells if c.cell_type == "markdown")
    assert "_solution" in full and "docs/teaching" in full


def test_the_tool_refuses_to_overwrite_the_teachers_notebooks():
    with pytest.raises(SystemExit):
        _tool().main([str(ROOT / "notebooks")])
