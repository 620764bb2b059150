"""Write the student edition of every notebook: ``python -m publish student OUT_DIR``.

What changes, by cell tag (see CONTRIBUTING.md):

- ``solution``  cells are removed (the reference answers);
- ``full-edition-only`` cells are removed: prose that is true only of the full notebooks (where
  the solution cells are, the link to the teacher's guide), so 2.0's "how to use" stays true;
- ``exercise``  cells keep their code (the stub to fill in) but lose their outputs.

Everything else -- prose, figures, self-checks, predict-then-run widgets, sliders -- is kept
as committed; a prediction's reveal is committed as a placeholder that shows its result only once
the student has answered in their own kernel (``helpers.ui.reveal``), so it needs nothing here. The work is done by nbconvert's own ``TagRemovePreprocessor``; this script only
points it at the series' tags and writes the files. The teacher keeps the full notebooks;
``docs/teaching/`` (which has the answers) is not copied.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import nbformat
from nbconvert.preprocessors import TagRemovePreprocessor

from .notebooks import EXERCISE, FULL_ONLY, NOTEBOOKS, SOLUTION, series, tags


def student_notebook(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return a copy of ``nb`` without solution and full-edition-only cells, with exercise outputs cleared."""
    pre = TagRemovePreprocessor(remove_cell_tags={SOLUTION, FULL_ONLY}, remove_all_outputs_tags={EXERCISE})
    pre.enabled = True
    out, _ = pre.preprocess(nbformat.from_dict(nb), {})
    for cell in out.cells:
        if EXERCISE in tags(cell) and cell.cell_type == "code":
            cell.execution_count = None
    out.metadata.setdefault("self_attention_ch02", {})["edition"] = "student"
    return out


def build(out_dir: Path, notebooks: list[Path] | None = None) -> list[Path]:
    """Write the student edition of ``notebooks`` (default: all) into ``out_dir``; return the paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for path in notebooks or series():
        nb = nbformat.read(path, as_version=4)
        target = out_dir / path.name
        nbformat.write(student_notebook(nb), target)
        written.append(target)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish student", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", type=Path, help="folder to write the student notebooks into (created if needed)")
    args = parser.parse_args(argv)
    if args.out_dir.resolve() == NOTEBOOKS.resolve():
        parser.error("OUT_DIR must not be notebooks/ itself: the teacher keeps the full notebooks")
    written = build(args.out_dir)
    removed = sum(
        sum(SOLUTION in tags(c) for c in nbformat.read(p, as_version=4).cells)
        for p in series()
    )
    print(f"wrote {len(written)} student notebooks to {args.out_dir} ({removed} solution cells removed)")
    return 0

