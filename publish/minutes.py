"""How long a notebook's core path takes, by one stated rule (the one 2.0 states to the learner).

    python -m publish minutes [NN ...] [--sections]

The core path is what a notebook shows with every 选读 heading collapsed (CONTRIBUTING.md, 核心路径与选读):
a markdown cell whose first line is a heading starting with ``选读``, committed collapsed, hides every
cell after it up to the next cell whose heading is of the same or a higher level (JupyterLab's rule: a
cell's level is that of its highest heading). Solutions (``source_hidden``) are not on the path either.

The rule, per notebook:

- reading: :data:`READING_PACE` characters of its visible Markdown per minute, where a character is one
  Chinese character, and one Latin word or number (a run of letters and digits, in prose or in a formula)
  also counts as one. Link targets and HTML tags are not read, nor is the English abstract (the last
  cell, for readers without Chinese: it is not on the core path);
- a code cell: :data:`CODE_CELL_MIN` minutes to run it and read what it prints or draws;
- a prediction: :data:`~publish.deck.slides.VOTE_MIN` minutes -- the question, the answer, the reveal
  (the decks' vote; its reveal cell is not counted again as a code cell);
- a retrieval question of a warm-up (an ``H.recall_*`` call in a cell tagged ``warm-up``): :data:`RECALL_MIN`
  minutes -- answered from memory, then its explanation read (the cell is not counted again as a code cell);
- an exercise (a cell tagged ``exercise``): :data:`EXERCISE_MIN` minutes, stated beside the core path and
  not in it: exercises are the lab's and the homework's time (its statement is read on the path). A larger
  exercise says its own minutes with a tag ``minutes-N`` (2.12's two capstone parts: the lab plan's blocks);

The core path's minutes are reading + code cells + predictions + retrieval questions. A notebook states them in the form
:data:`STATED` (``**核心路径**（约 N 分钟，练习另需约 M 分钟）``), rounded to the nearest minute;
``tests/test_core_minutes.py`` checks that every notebook states what this rule gives and that it is
within the at most 20 minutes 2.0 promises.
"""

from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass
from pathlib import Path

from .deck.slides import VOTE_MIN
from .notebooks import EXERCISE, is_abstract, series, tags

__all__ = ["READING_PACE", "CODE_CELL_MIN", "VOTE_MIN", "RECALL_MIN", "EXERCISE_MIN", "PROMISE", "STATED", "Minutes",
           "core_cells", "reading_units", "exercise_minutes_of", "minutes", "stated", "main"]

READING_PACE = 250
CODE_CELL_MIN = 0.5
RECALL_MIN = 1.0
EXERCISE_MIN = 5
#: What 2.0 promises: every notebook's core path takes at most this many minutes (rounded as stated).
PROMISE = 20
#: How a notebook states its minutes (the exercises' part may be absent when it has none).
STATED = re.compile(r"\*\*核心路径\*\*（约 (\d+) 分钟(?:，练习另需约 (\d+) 分钟)?）")

PREDICT = "predict"
MINUTES_TAG = re.compile(r"minutes-([1-9]\d?)")
WARM_UP = "warm-up"
RECALL = re.compile(r"\brecall_(?:choice|number)\(")
HEADING = re.compile(r"^(#{1,6})\s+(.*)$", re.M)
UNIT = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[A-Za-z0-9]+")


def _source(cell) -> str:
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def _level(cell) -> int:
    """The level of a markdown cell's highest heading (0: no heading, or not markdown)."""
    if cell["cell_type"] != "markdown":
        return 0
    return min((len(h) for h, _ in HEADING.findall(_source(cell))), default=0)


def core_cells(cells) -> list:
    """The cells on the core path: not under a collapsed 选读 heading, not a hidden solution, not the English abstract."""
    core, hidden = [], 0
    for cell in cells:
        level = _level(cell)
        if hidden and level and level <= hidden:
            hidden = 0
        if hidden:
            continue
        first = HEADING.match(_source(cell).lstrip("\n")) if level else None
        if first and first.group(2).strip().startswith("选读") and cell.get("metadata", {}).get("jp-MarkdownHeadingCollapsed"):
            hidden = len(first.group(1))
        if not cell.get("metadata", {}).get("jupyter", {}).get("source_hidden") and not is_abstract(cell):
            core.append(cell)
    return core


def reading_units(markdown: str) -> int:
    """Characters read, by the rule: Chinese characters, plus one per Latin word or number."""
    text = re.sub(r"\]\([^)]*\)", "]", markdown)  # a link's target is not read
    text = re.sub(r"<[^>]*>", " ", text)
    return len(UNIT.findall(text))


@dataclass(frozen=True)
class Minutes:
    """One notebook (or one section) by the rule: what was counted, and the minutes it gives."""

    name: str
    units: int
    code_cells: int
    predictions: int
    exercises: int
    recalls: int = 0
    #: minutes of the exercises (EXERCISE_MIN each, or the N of a ``minutes-N`` tag)
    exercise_total: float = 0.0

    @property
    def reading(self) -> float:
        return self.units / READING_PACE

    @property
    def core(self) -> float:
        return (self.reading + CODE_CELL_MIN * self.code_cells + VOTE_MIN * self.predictions
                + RECALL_MIN * self.recalls)

    @property
    def exercise_minutes(self) -> float:
        return self.exercise_total


def exercise_minutes_of(cell) -> float:
    """An exercise cell's minutes: the N of its ``minutes-N`` tag, else :data:`EXERCISE_MIN`."""
    said = [t for t in tags(cell) if MINUTES_TAG.fullmatch(t)]
    if len(said) > 1:
        raise ValueError(f"an exercise cell has more than one minutes tag: {said}")
    return float(MINUTES_TAG.fullmatch(said[0]).group(1)) if said else float(EXERCISE_MIN)


def _count(name: str, cells) -> Minutes:
    units = code = predictions = exercises = recalls = 0
    exercise_total = 0.0
    reveal = False
    for cell in cells:
        if cell["cell_type"] == "markdown":
            units += reading_units(_source(cell))
        elif cell["cell_type"] == "code":
            if reveal:                           # the reveal after a prediction is the vote's
                reveal = False
            elif PREDICT in tags(cell):
                predictions, reveal = predictions + 1, True
            elif EXERCISE in tags(cell):
                exercises += 1
                exercise_total += exercise_minutes_of(cell)
            elif WARM_UP in tags(cell):
                recalls += len(RECALL.findall(_source(cell)))
            else:
                code += 1
    return Minutes(name, units, code, predictions, exercises, recalls, exercise_total)


def _load(path: Path) -> list:
    return json.loads(Path(path).read_text(encoding="utf-8"))["cells"]


def minutes(path: str | Path) -> Minutes:
    """The rule applied to a notebook's core path."""
    return _count(Path(path).name[:5], core_cells(_load(path)))


def sections(path: str | Path) -> list[Minutes]:
    """The rule per ``## `` section of the core path (the part before the first one is named by the title)."""
    out: list[tuple[str, list]] = [("（开头）", [])]
    for cell in core_cells(_load(path)):
        first = HEADING.match(_source(cell).lstrip("\n")) if _level(cell) == 2 else None
        if first:
            out.append((first.group(2).strip(), []))
        out[-1][1].append(cell)
    return [_count(name, cells) for name, cells in out if cells]


def stated(path: str | Path) -> tuple[int, int | None] | None:
    """(core minutes, exercise minutes or None) as the notebook states them, or None if it does not."""
    for cell in _load(path):
        if cell["cell_type"] == "markdown":
            m = STATED.search(_source(cell))
            if m:
                return int(m.group(1)), (int(m.group(2)) if m.group(2) else None)
    return None


def rounded(x: float) -> int:
    """To the nearest minute, halves up."""
    return int(x + 0.5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish minutes", description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="NN of the notebooks (02-05 or 05); all if none")
    parser.add_argument("--sections", action="store_true", help="one line per ## section of the core path")
    args = parser.parse_args(argv)
    paths = series()
    if args.notebooks:
        wanted = {n if n.startswith("02-") else f"02-{int(n):02d}" for n in args.notebooks}
        paths = [p for p in paths if p.name[:5] in wanted]
        if not paths:
            parser.error(f"no notebook {', '.join(sorted(wanted))}")
    print(f"rule: {READING_PACE} characters a minute (a Latin word or number is one) + {CODE_CELL_MIN:g} min a code "
          f"cell + {VOTE_MIN:g} min a prediction + {RECALL_MIN:g} min a warm-up question; exercises {EXERCISE_MIN:g} min "
          "each (a minutes-N tag: N), beside the core path")
    print(f"{'notebook':<10} {'chars':>6} {'read':>5} {'code':>4} {'pred':>4} {'warm':>4} {'core':>5} {'states':>6}  exercises")
    for path in paths:
        m, says = minutes(path), stated(path)
        said = "-" if says is None else str(says[0])
        print(f"{m.name:<10} {m.units:>6} {m.reading:>5.1f} {m.code_cells:>4} {m.predictions:>4} {m.recalls:>4} "
              f"{m.core:>5.1f} {said:>6}  {m.exercises} exercises = {m.exercise_minutes:g} min")
        if args.sections:
            for s in sections(path):
                print(f"  {s.name[:40]:<40} {s.units:>6} {s.reading:>5.1f} {s.code_cells:>4} {s.predictions:>4} "
                      f"{s.recalls:>4} {s.core:>5.1f}")
    return 0
