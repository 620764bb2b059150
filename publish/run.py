"""Re-execute notebooks in place, reproducibly.

    python -m publish run                 # every notebooks/*.ipynb
    python -m publish run notebooks/02-05-scaling-by-sqrt-dk.ipynb

Each notebook runs top to bottom in a fresh kernel of the *current* Python
environment, with the notebook's folder as working directory (as nbval does).
Timing metadata is not recorded and the kernelspec is normalised, so re-running
an unchanged notebook leaves only real output changes in the diff. Cells tagged
``solution`` run (their asserts must pass) but are written back unrun, without
outputs: a hidden solution's output would answer its exercise (nbval still runs
them and does not compare an unrun cell's output). A cell that
raises stops the run with a non-zero exit (no cell is meant to raise: CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from .notebooks import KERNELSPEC, SOLUTION, execute as run_notebook, series, tags


def execute(path: Path, timeout: int = 600) -> float:
    """Execute one notebook in place; return the wall time in seconds."""
    nb = nbformat.read(path, as_version=4)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata.pop("jupytext", None)  # authoring tool metadata (see CONTRIBUTING.md)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        cell.metadata.pop("lines_to_next_cell", None)
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    start = time.perf_counter()
    run_notebook(nb, path.parent, timeout=timeout)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code" and SOLUTION in tags(cell):
            cell.outputs = []
            cell.execution_count = None
    nb.metadata.pop("widgets", None)  # widget state is machine-specific and huge; the kernel rebuilds it
    nbformat.validate(nb)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish run", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", type=Path, help="notebooks to run (default: notebooks/*.ipynb)")
    parser.add_argument("--timeout", type=int, default=600, help="per-cell timeout in seconds")
    args = parser.parse_args(argv)
    paths = args.paths or series()
    os.environ.setdefault("PYTHONHASHSEED", "0")
    failed = 0
    for p in paths:
        try:
            secs = execute(p.resolve(), args.timeout)
        except CellExecutionError as exc:
            failed += 1
            print(f"FAILED  {p}\n{exc}", file=sys.stderr)
            continue
        print(f"ok {secs:6.1f}s  {p}")
    return 1 if failed else 0

