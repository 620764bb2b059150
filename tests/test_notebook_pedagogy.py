"""The series' teaching conventions, checked on the committed notebooks (see CONTRIBUTING.md).

- solutions carry the ``solution`` tag, use their own ``*_solution`` names and never rebind a
  name that an exercise cell defines (so "Run All" never replaces the learner's code);
- every 选读 (optional) heading is committed collapsed, so a notebook opens on its core path;
- every lesson notebook (2.1-2.11) has a transfer exercise and two predict-then-run questions,
  each followed by a reveal cell; the series has at least two bug hunts;
- self-checks talk to the learner in Chinese;
- figures use the shared style; a notebook imports from only a few helpers modules.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from nbcells import cells as _cells, src as _src, tags as _tags
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = series()
LESSONS = [p for p in NOTEBOOKS if 1 <= int(p.name[3:5]) <= 11]
CJK = re.compile(r"[\u4e00-\u9fff]")
HEADING = re.compile(r"^(#{1,6})\s+(.*)$", re.M)


def _defined_names(source: str) -> set[str]:
    """Top-level names a cell binds (def, class, assignment, import)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                names |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _text_outputs(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out["output_type"] == "stream":
            parts.append("".join(out["text"]))
        elif "data" in out:
            parts.append("".join(out["data"].get("text/plain", "")) + "".join(out["data"].get("text/html", "")))
    return "".join(parts)


# --------------------------------------------------------------------------- solutions


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_solutions_are_tagged_and_never_rebind_the_learners_names(path):
    cells = _cells(path)
    exercise_names: set[str] = set()
    for k, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        src, tags = _src(cell), _tags(cell)
        looks_like_solution = bool(re.search(r"\bdef \w+_solution\b", src)) or src.lstrip().lower().startswith("# solution")
        if looks_like_solution:
            assert "solution" in tags, f"{path.name} cell {k}: a solution cell without the 'solution' tag"
        if "solution" in tags:
            assert cell.get("metadata", {}).get("jupyter", {}).get("source_hidden"), \
                f"{path.name} cell {k}: a solution cell must be committed with its source hidden"
            rebound = _defined_names(src) & exercise_names
            assert not rebound, f"{path.name} cell {k}: the solution rebinds the learner's {sorted(rebound)}; use *_solution names"
        if "exercise" in tags:
            exercise_names |= {n for n in _defined_names(src) if not n.startswith("check_")}


def test_the_rebinding_rule_catches_a_rebinding_solution():
    learner = "def my_softmax(x):\n    raise NotImplementedError\n"
    solution = "# Solution\ndef my_softmax(x):\n    return x\n"
    assert _defined_names(solution) & _defined_names(learner) == {"my_softmax"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_exercise_cells_are_stubs_with_a_self_check(path):
    for k, cell in enumerate(_cells(path)):
        if "exercise" in _tags(cell):
            src = _src(cell)
            assert cell["cell_type"] == "code" and "check_" in src, f"{path.name} cell {k}: an exercise cell calls a self-check"


# --------------------------------------------------------------------------- core path


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_optional_headings_are_committed_collapsed(path):
    for k, cell in enumerate(_cells(path)):
        if cell["cell_type"] != "markdown":
            continue
        headings = HEADING.findall(_src(cell))
        optional = [h for _, h in headings if h.strip().startswith("选读")]
        if optional:
            first = HEADING.search(_src(cell))
            assert first.group(2).strip().startswith("选读"), \
                f"{path.name} cell {k}: a 选读 heading must be the first line of its own cell"
            assert cell.get("metadata", {}).get("jp-MarkdownHeadingCollapsed") is True, \
                f"{path.name} cell {k}: the 选读 heading {optional[0]!r} must be committed collapsed"


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name[:5])
def test_lesson_has_a_transfer_exercise_and_two_predictions(path):
    cells = _cells(path)
    transfer = [k for k, c in enumerate(cells) if "transfer" in _tags(c)]
    assert transfer, f"{path.name}: no transfer exercise (a markdown cell tagged 'transfer')"
    predict = [k for k, c in enumerate(cells) if "predict" in _tags(c)]
    assert len(predict) >= 2, f"{path.name}: {len(predict)} predict-then-run questions, need >= 2"
    for k in predict:
        cell = cells[k]
        assert re.search(r"predict_(choice|number)\(", _src(cell)), f"{path.name} cell {k}: a predict cell shows H.predict_*"
        assert "nbval-ignore-output" in _tags(cell), f"{path.name} cell {k}: widget cells are tagged nbval-ignore-output"
        later = [c for c in cells[k + 1:] if c["cell_type"] == "code"]
        assert later and "H.reveal(" in _src(later[0]), \
            f"{path.name} cell {k}: the reveal cell after a prediction runs blind (H.reveal checks the key; " \
            "tests/test_blind_predictions.py checks the rest)"


def test_series_has_two_bug_hunts():
    hunts = [(p.name, k) for p in NOTEBOOKS for k, c in enumerate(_cells(p)) if "bug-hunt" in _tags(c)]
    assert len(hunts) >= 2, f"bug hunts in the series: {hunts}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_self_checks_speak_chinese(path):
    for k, cell in enumerate(_cells(path)):
        if _tags(cell) & {"exercise", "solution"} and cell.get("outputs"):
            text = _text_outputs(cell)
            assert CJK.search(text), f"{path.name} cell {k}: the self-check output is not in Chinese: {text[:200]!r}"


# --------------------------------------------------------------------------- house


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_figures_use_the_shared_style(path):
    cells = [c for c in _cells(path) if c["cell_type"] == "code"]
    sources = "\n".join(_src(c) for c in cells)
    draws = any("image/png" in out.get("data", {}) for c in cells for out in c.get("outputs", []))
    if draws:
        assert "use_style()" in sources, f"{path.name} draws figures but never calls H.use_style()"
    small = re.findall(r"fontsize\s*=\s*([0-9.]+)", sources)
    assert all(float(s) >= 10 for s in small), f"{path.name}: fontsize below 10 pt: {small}"
    assert not re.search(r"fontsize\s*=\s*['\"](xx-small|x-small|small)", sources), f"{path.name}: a small named fontsize"
