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

Beside the wall-clock figure (the target), the kernel's own CPU time (user + system, read from ``/proc``
once its last cell has run; Linux only) is printed for both sides: it counts what the kernel computed, not
the time it waited for a core another process held, so it moves much less with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
FLOOR_SOURCE = ("import numpy as np\nimport matplotlib.pyplot as plt\nimport ipywidgets\nimport helpers as H\n"
                "from helpers.checks import check_log_softmax\nH.use_style()")


def _cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (None where /proc is not there)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _run(nb, cwd: Path) -> tuple[float, float | None]:
    """(wall seconds of the whole Run All, kernel CPU seconds when its last cell has run)."""
    client = NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    cpu: list[float | None] = [None]

    def cell_done(**_):  # the kernel is alive here; after execute() returns it is gone
        proc = getattr(getattr(client.km, "provisioner", None), "process", None)
        cpu[0] = None if proc is None else _cpu_s(proc.pid)

    client.on_cell_executed = cell_done
    t = time.perf_counter()
    client.execute()
    return time.perf_counter() - t, cpu[0]


def measure(paths: list[Path], rounds: int = 3) -> dict:
    """{path: [(run_all_s, floor_s, run_all_cpu_s, floor_cpu_s), ...]} over ``rounds`` interleaved rounds."""
    out = {p: [] for p in paths}
    for _ in range(rounds):
        for p in paths:
            floor, floor_cpu = _run(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOOR_SOURCE)]), p.parent)
            run_all, cpu = _run(nbformat.read(p, as_version=4), p.parent)
            out[p].append((run_all, floor, cpu, floor_cpu))
    return out


def report(results: dict) -> str:
    lines = [f"{'notebook':<40} {'Run All s':>9} {'floor s':>8} {'ratio':>6}   (each run / its own floor)"
             "   | kernel CPU s: Run All / floor = ratio"]
    for p, runs in results.items():
        ratios = [r[0] / r[1] for r in runs]
        read = [r for r in runs if r[2] and r[3]]   # runs whose kernel CPU was read on both sides
        cpu_text = (f"   | {statistics.median(r[2] for r in read):.2f} / {statistics.median(r[3] for r in read):.2f} = "
                    f"{statistics.median(r[2] / r[3] for r in read):.2f}x" if read else "   | kernel CPU: not read (no /proc)")
        lines.append(f"{p.name:<40} {statistics.median(r[0] for r in runs):9.2f} {statistics.median(r[1] for r in runs):8.2f} "
                     f"{statistics.median(ratios):5.2f}x   " + ", ".join(f"{r:.2f}" for r in ratios)
                     + ("" if statistics.median(ratios) <= 2.0 else "   target <= 2x: not met") + cpu_text)
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
    from benchmarks.results import measured

    measured("run_all", main)
