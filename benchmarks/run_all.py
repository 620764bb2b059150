"""Run All of chosen notebooks vs the floor, interleaved: the figure issue 20 asks for (target <= 2x).

    python -m benchmarks.run_all notebooks/02-09-properties.ipynb notebooks/02-13-real-model-attention.ipynb
    python -m benchmarks.run_all --rounds 5 notebooks/02-1*.ipynb

* **floor**: a fresh kernel that imports what every notebook imports (numpy, matplotlib.pyplot, ipywidgets,
  ``helpers``, ``helpers.checks``) and calls ``H.use_style()``, then shuts down.
* **Run All**: the notebook executed top to bottom in a fresh kernel (nbclient, as JupyterLab's Run All does;
  solution cells included, as nbval runs them).

Each round runs, for every notebook, a floor and then the notebook, so both sides see the same load; the
ratio printed per run is that run over its own floor, and the summary is the median of those ratios. On a
shared machine the absolute seconds move with the load; the ratios move less. Nothing is cached.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
FLOOR_SOURCE = ("import numpy as np\nimport matplotlib.pyplot as plt\nimport ipywidgets\nimport helpers as H\n"
                "from helpers.checks import check_log_softmax\nH.use_style()")


def _run(nb, cwd: Path) -> float:
    t = time.perf_counter()
    NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}}).execute()
    return time.perf_counter() - t


def measure(paths: list[Path], rounds: int = 3) -> dict:
    """{path: [(run_all_s, floor_s), ...]} over ``rounds`` interleaved rounds."""
    out = {p: [] for p in paths}
    for _ in range(rounds):
        for p in paths:
            floor = _run(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOOR_SOURCE)]), p.parent)
            out[p].append((_run(nbformat.read(p, as_version=4), p.parent), floor))
    return out


def report(results: dict) -> str:
    lines = [f"{'notebook':<40} {'Run All s':>9} {'floor s':>8} {'ratio':>6}   (each run / its own floor)"]
    for p, runs in results.items():
        ratios = [a / b for a, b in runs]
        lines.append(f"{p.name:<40} {statistics.median(a for a, _ in runs):9.2f} {statistics.median(b for _, b in runs):8.2f} "
                     f"{statistics.median(ratios):5.2f}x   " + ", ".join(f"{r:.2f}" for r in ratios)
                     + ("" if statistics.median(ratios) <= 2.0 else "   target <= 2x: not met"))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    results = measure([p.resolve() for p in args.notebooks], args.rounds)
    print(report(results), flush=True)
    return results


if __name__ == "__main__":
    main()
