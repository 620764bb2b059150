"""Figure 2: validating every notebook vs the floor of just starting their kernels.

    python -m benchmarks.suite                 # this figure alone

* **suite**: ``python -m pytest notebooks/`` with the project's own options from
  pyproject.toml (``--nbval --nbval-current-env``, the sanitizer, strict warnings),
  no other tests: one fresh kernel per notebook, every cell re-run and compared.
* **floor**: for every notebook, start one kernel of the same environment the way
  nbval does (``nbval.kernel.RunningKernel`` on jupyter_client), run ``import numpy, matplotlib.pyplot, ipywidgets`` in it and shut it down. No
  notebook can be validated faster than that, so suite / floor measures how much
  the notebooks' own work costs.

Both run in the same invocation, one after the other, each in its own subprocess so
its peak memory (the largest process, kernels included) can be read from
``ru_maxrss`` of the waited-for children.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"

__all__ = ["notebooks", "run_suite", "run_floor", "main"]

# Runs in a child process: reports the wall time of a command and the peak RSS of the
# largest of its descendants (ru_maxrss of waited-for children, in KiB on Linux).
_WRAPPER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(json.dumps({"rc": rc, "wall": time.perf_counter() - t,
                  "maxrss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""

# The floor: one kernel per notebook, started and stopped exactly as nbval does it
# (nbval.kernel.RunningKernel on jupyter_client, the current environment's Python),
# running only the three imports every notebook pays for.
_FLOOR = """
import json, sys, time
from pathlib import Path
from nbval.kernel import CURRENT_ENV_KERNEL_NAME, RunningKernel
times = {}
for path in sys.argv[2:]:
    t = time.perf_counter()
    kernel = RunningKernel(CURRENT_ENV_KERNEL_NAME, cwd=str(Path(path).parent))
    msg_id = kernel.execute_cell_input("import numpy, matplotlib.pyplot, ipywidgets", allow_stdin=False)
    kernel.await_idle(msg_id, 300)
    kernel.stop()
    times[path] = time.perf_counter() - t
Path(sys.argv[1]).write_text(json.dumps(times))
"""


def notebooks() -> list[Path]:
    """Every notebook of the series, in order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def _wrapped(cmd: list[str]) -> dict:
    res = subprocess.run([sys.executable, "-c", _WRAPPER, *cmd], capture_output=True, text=True, cwd=ROOT)
    if res.returncode != 0:
        raise RuntimeError(res.stderr[-2000:])
    return json.loads(res.stdout.strip().splitlines()[-1])


def run_suite(paths: list[Path]) -> dict:
    """Validate ``paths`` with pytest + nbval (project options); per-notebook times from JUnit XML."""
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        cmd = [sys.executable, "-m", "pytest", *map(str, paths), "-q", "-p", "no:cacheprovider",
               f"--junitxml={xml}"]
        info = _wrapped(cmd)
        per = defaultdict(float)
        failed = defaultdict(int)
        if xml.exists():
            for case in ET.parse(xml).getroot().iter("testcase"):
                name = case.get("classname", "").removeprefix("notebooks.")
                per[name] += float(case.get("time", 0))
                if case.find("failure") is not None or case.find("error") is not None:
                    failed[name] += 1
    info["per_notebook"] = dict(per)
    info["failed_cells"] = dict(failed)
    return info


def run_floor(paths: list[Path]) -> dict:
    """Start one kernel per notebook and import numpy, matplotlib.pyplot, ipywidgets."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "floor.json"
        script = Path(tmp) / "floor.py"
        script.write_text(_FLOOR)
        info = _wrapped([sys.executable, str(script), str(out), *map(str, paths)])
        per = json.loads(out.read_text()) if out.exists() else {}
    info["per_notebook"] = {Path(k).name: v for k, v in per.items()}
    return info


def report(suite: dict, floor: dict) -> str:
    ratio = suite["wall"] / floor["wall"] if floor["wall"] else float("nan")
    per_floor = sorted(floor["per_notebook"].values())
    # Every floor run does the same thing; their median is a steadier per-notebook floor than
    # each single run on a loaded machine.
    f_med = per_floor[len(per_floor) // 2] if per_floor else float("nan")
    in_cells = sum(suite["per_notebook"].values())
    fail = "" if suite["rc"] == 0 else f"  [pytest exit code {suite['rc']}: not all notebooks pass]"
    lines = [
        f"suite (pytest notebooks/, project nbval options): {suite['wall']:6.1f} s, "
        f"peak RSS {suite['maxrss'] / 2**20:.0f} MiB{fail}",
        f"  of which in notebook cells {in_cells:.1f} s; pytest start-up + collection {suite['wall'] - in_cells:.1f} s",
        f"floor (kernel start + import numpy, matplotlib.pyplot, ipywidgets per notebook): "
        f"{floor['wall']:6.1f} s, peak RSS {floor['maxrss'] / 2**20:.0f} MiB; median {f_med:.2f} s per notebook",
        f"ratio suite / floor: {ratio:.2f}x (target <= 1.5x)",
        f"{'notebook':<42} {'suite s':>8} {'own work s':>10}  note",
    ]
    for name in sorted(suite["per_notebook"]):
        s = suite["per_notebook"][name]
        own = s - f_med
        note = []
        if own > max(2.0, f_med):
            note.append("HEAVY")
        if suite["failed_cells"].get(name):
            note.append(f"{suite['failed_cells'][name]} cell(s) failed")
        lines.append(f"{name:<42} {s:8.2f} {own:10.2f}  {' '.join(note)}")
    lines.append("(suite s = sum of the notebook's cells in pytest's JUnit report, kernel start included; "
                 "own work = suite s - median floor; HEAVY = own work > max(2 s, floor))")
    return "\n".join(lines)


def main(paths: list[Path] | None = None) -> dict:
    paths = notebooks() if paths is None else paths
    if not paths:
        print("no notebooks found under notebooks/")
        return {}
    t = time.perf_counter()
    floor = run_floor(paths)
    suite = run_suite(paths)
    print(report(suite, floor), flush=True)
    return {"suite": suite, "floor": floor, "seconds": time.perf_counter() - t}


if __name__ == "__main__":
    from benchmarks.results import measured

    # a subset of the notebooks is not the figure: only the whole series is written to the results file
    measured("suite", main, [Path(p) for p in sys.argv[1:]] or None, write=len(sys.argv) == 1)
