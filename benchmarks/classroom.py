"""Figure ``classroom``: is one kernel per student affordable? Peak kernel memory and a crowded machine.

    python -m benchmarks.classroom            # floor + every notebook + N = 20 kernels at once (several minutes)
    python -m benchmarks.classroom --quick    # floor + every notebook + N = 4 kernels at once
    python -m benchmarks.classroom --one notebooks/02-13-real-model-attention.ipynb   # one notebook, JSON

A classroom (a lab room, a JupyterHub) runs one kernel per student, so what a kernel holds
at its peak decides how many students one server takes.

* **floor**: a fresh kernel (``python3`` kernelspec of this environment, started by
  nbclient as ``publish/run.py`` does) that only runs what every notebook of the
  series imports: numpy, matplotlib's pyplot with the inline backend, ipywidgets and
  ``helpers`` (with ``helpers.checks`` and ``helpers.ui.plotting``). Its peak resident memory is
  the least a student's kernel can cost.
* **each notebook**: the notebook runs top to bottom in its own fresh kernel; a probe cell
  appended in memory (the file is not changed) reads the kernel's own peak resident memory
  (``VmHWM`` in ``/proc/self/status``) at the end. Target: peak <= 1.5 x floor.
* **N kernels at once**: N fresh kernels, each running a notebook (round-robin over the
  series), all started together on this machine. Reported: the sum of their peaks (an upper
  bound: shared library pages are counted once per kernel), the machine-wide peak of used
  memory above the idle baseline (``MemTotal - MemAvailable`` sampled every 0.2 s, noisy on a
  shared machine), and the wall time against N x the single-kernel run time / cores (perfect
  sharing of the cores).

Linux only for the numbers (``/proc``); elsewhere the figure says so and returns. No test
asserts on these timings; the notebook lane's ``kernel-memory`` check (notebooks/conftest.py) guards the memory budget.

The time until the presentation view (Voila) of 02-05 shows live sliders (issue 16, target
<= 5 s) is measured by :func:`voila_time_to_live_sliders`, a hook left for the Voila setup.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
BUDGET_FACTOR = 1.5
MARKER = "__CLASSROOM_PEAK__"

__all__ = ["BUDGET_FACTOR", "FLOOR_SOURCE", "PROBE_SOURCE", "notebooks", "proc_available", "run_kernel",
           "floor", "notebook_peak", "peaks_in_subprocesses", "crowd", "voila_time_to_live_sliders", "main"]

#: What every notebook of the series imports, and nothing else: the floor of a student's kernel.
FLOOR_SOURCE = """\
import numpy as np
import matplotlib.pyplot as plt
%matplotlib inline
import ipywidgets
import helpers as H
import helpers.checks
import helpers.ui.plotting
"""

#: Appended to a notebook in memory: the kernel prints its own peak and current resident memory (KiB).
PROBE_SOURCE = f"""\
def _classroom_probe():
    import json
    try:
        with open("/proc/self/status") as fh:
            d = {{k: int(v.split()[0]) for k, v in (ln.split(":", 1) for ln in fh) if k in ("VmHWM", "VmRSS")}}
    except OSError:
        d = {{}}
    print("{MARKER}" + json.dumps(d))
_classroom_probe()
"""


def notebooks() -> list[Path]:
    """Every notebook of the series, in order."""
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def proc_available() -> bool:
    """True where a process can read its own peak resident memory from ``/proc/self/status`` (Linux)."""
    try:
        with open("/proc/self/status") as fh:
            return any(line.startswith("VmHWM:") for line in fh)
    except OSError:
        return False


def run_kernel(nb, cwd: Path, timeout: int = 600) -> dict:
    """Execute notebook node ``nb`` (modified in place) plus the probe in a fresh kernel.

    Returns ``{"hwm_mib", "rss_mib", "wall_s"}``; ``hwm_mib`` is None where ``/proc`` is missing.
    """
    import nbformat
    from nbclient import NotebookClient

    nb.cells.append(nbformat.v4.new_code_cell(PROBE_SOURCE))
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
    from jupyter_client import KernelManager

    # IPC sockets, not TCP ports: twenty kernels starting at once on TCP can race for the same
    # free port ("Kernel died before replying to kernel_info"); a socket file cannot collide.
    if os.name == "posix":  # the socket path must be absolute: the kernel runs in the notebook's folder
        import tempfile

        sockets = tempfile.mkdtemp(prefix="ch02-kernel-")
        km = KernelManager(kernel_name="python3", transport="ipc", ip=os.path.join(sockets, "kernel"))
    else:
        km = KernelManager(kernel_name="python3")
    client = NotebookClient(nb, km=km, timeout=timeout, kernel_name="python3", allow_errors=False,
                            record_timing=False, resources={"metadata": {"path": str(cwd)}})
    start = time.perf_counter()
    try:
        client.execute()
    finally:
        if os.name == "posix":
            import shutil

            shutil.rmtree(sockets, ignore_errors=True)
    wall = time.perf_counter() - start
    text = "".join(o.get("text", "") for o in nb.cells[-1].outputs if o.get("output_type") == "stream")
    line = next((ln for ln in text.splitlines() if ln.startswith(MARKER)), None)
    if line is None:
        raise RuntimeError(f"the probe cell printed no {MARKER} line; it printed {text!r}")
    d = json.loads(line[len(MARKER):])
    return {"hwm_mib": d["VmHWM"] / 1024 if "VmHWM" in d else None,
            "rss_mib": d["VmRSS"] / 1024 if "VmRSS" in d else None, "wall_s": wall}


def floor(timeout: int = 300) -> dict:
    """Peak memory of a fresh kernel that only imports what the series imports (:data:`FLOOR_SOURCE`)."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_code_cell(FLOOR_SOURCE))
    return run_kernel(nb, NOTEBOOKS, timeout)


def notebook_peak(path: str | os.PathLike, timeout: int = 600) -> dict:
    """Run one notebook (read from ``path``, never written back) in a fresh kernel; its peak memory."""
    import nbformat

    path = Path(path).resolve()
    return run_kernel(nbformat.read(path, as_version=4), path.parent, timeout)


def _one(target: str) -> dict:
    """Run :func:`notebook_peak` (or :func:`floor` for ``target == "floor"``) in a child process."""
    res = subprocess.run([sys.executable, "-m", "benchmarks.classroom", "--one", target], cwd=ROOT,
                         capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{target} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def peaks_in_subprocesses(targets: list[str], workers: int | None = None) -> dict[str, dict]:
    """Peak memory of each target (a notebook path, or ``"floor"``), ``workers`` fresh kernels at a time.

    Each target runs in its own child process and its own fresh kernel, so a kernel's peak is its
    own whatever runs beside it; ``workers`` (default: the number of cores) only bounds the load.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=workers or _cores()) as pool:
        return dict(zip(targets, pool.map(_one, targets)))


def _used_mib() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            info = {k: int(v.split()[0]) for k, v in (ln.split(":", 1) for ln in fh)}
        return (info["MemTotal"] - info["MemAvailable"]) / 1024
    except (OSError, KeyError, ValueError):
        return None


def crowd(paths: list[Path], n: int) -> dict:
    """Start ``n`` kernels at once, kernel k running ``paths[k % len(paths)]``; each in its own process.

    Returns ``{"n", "wall_s", "results" (one dict per kernel), "machine_peak_mib" (used memory
    above the baseline, or None)}``.
    """
    jobs = [paths[k % len(paths)] for k in range(n)]
    base = _used_mib()
    peak = [base]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            u = _used_mib()
            if u is not None and peak[0] is not None:
                peak[0] = max(peak[0], u)
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "benchmarks.classroom", "--one", str(p)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for p in jobs]
    results = []
    for p, proc in zip(jobs, procs):
        out, err = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"{p.name} failed in the crowd run:\n{err[-2000:]}")
        results.append(dict(json.loads(out.strip().splitlines()[-1]), notebook=p.name))
    wall = time.perf_counter() - start
    stop.set()
    sampler.join()
    return {"n": n, "wall_s": wall, "results": results,
            "machine_peak_mib": None if base is None else peak[0] - base}


def voila_time_to_live_sliders(notebook: str = "02-05-scaling-by-sqrt-dk.ipynb", timeout: float = 120.0,
                               warm_s: float = 0.0) -> float | None:
    """Seconds from requesting the Voila presentation view of ``notebook`` until its sliders are live.

    Starts the environment's own ``voila`` command (as a lecturer does, from a temporary copy of
    ``notebooks/``, ``voila.py`` and ``publish/share/``) on a free loopback port, opens the page in
    headless Chromium through Playwright, and stops the clock when a slider exists and moving it
    with the keyboard changes the image it drives. Target (issue 16): <= 5 s. Returns None where
    Voila, Playwright or Chromium are not installed.

    ``warm_s``: seconds to wait after Voila answers before opening the page (Voila renders a
    notebook only when it is requested, so this does not change the result much; Voila's
    pre-heated kernels were tried and break ipywidgets -- "model not found" -- in Voila 0.5).
    """
    import shutil
    import socket
    import subprocess
    import tempfile
    import urllib.request

    voila = Path(sys.executable).parent / "voila"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    if not voila.exists() or chromium is None:
        return None
    with tempfile.TemporaryDirectory() as tmp, socket.socket() as sock:
        base = Path(tmp)
        shutil.copytree(ROOT / "notebooks", base / "notebooks", ignore=shutil.ignore_patterns("conftest.py"))
        shutil.copytree(ROOT / "publish" / "share", base / "publish" / "share")  # where voila.py finds the template
        shutil.copy(ROOT / "voila.py", base / "voila.py")
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        env = {k: v for k, v in os.environ.items() if k != "JUPYTER_PATH"}
        proc = subprocess.Popen([str(voila), "notebooks/", "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1"],
                                cwd=base, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 60
            while True:
                try:
                    urllib.request.urlopen(url + "/", timeout=5).read()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        return None
                    time.sleep(0.3)
            time.sleep(warm_s)
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=chromium, headless=True, args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"])
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                start = time.perf_counter()
                page.goto(f"{url}/voila/render/{notebook}", wait_until="commit", timeout=timeout * 1000)
                handle = page.locator(".widget-slider .noUi-handle").first
                handle.wait_for(state="attached", timeout=timeout * 1000)
                area = "document.querySelector('.widget-slider').closest('.jp-Cell').querySelector('img')"
                page.wait_for_function(f"() => {area} && {area}.src.length > 0", timeout=timeout * 1000)
                before = page.evaluate(f"() => {area}.src")
                handle.focus()
                page.keyboard.press("ArrowRight")
                page.wait_for_function(f"b => {area}.src !== b", arg=before, timeout=timeout * 1000)
                seconds = time.perf_counter() - start
                browser.close()
                return seconds
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main(quick: bool = False, n: int | None = None, paths: list[Path] | None = None) -> dict | None:
    """Print the classroom figure; return its numbers (None where /proc is missing)."""
    if not proc_available():
        print("classroom figure: not measured, /proc/self/status is missing (peak kernel memory is read there; Linux only)")
        return None
    paths = paths or notebooks()
    n = n if n is not None else (4 if quick else 20)
    cores = _cores()
    fl = floor()
    budget = BUDGET_FACTOR * fl["hwm_mib"]
    print(f"floor: a fresh kernel importing numpy, matplotlib (inline), ipywidgets, helpers: "
          f"peak {fl['hwm_mib']:.0f} MiB  -> budget {BUDGET_FACTOR} x floor = {budget:.0f} MiB")
    print(f"\n{'notebook':<44} {'peak MiB':>9} {'x floor':>8} {'run s':>7}  within budget")
    rows = []
    for p in paths:
        r = notebook_peak(p)
        rows.append(dict(r, notebook=p.name))
        print(f"{p.name:<44} {r['hwm_mib']:9.0f} {r['hwm_mib'] / fl['hwm_mib']:8.2f} {r['wall_s']:7.1f}  "
              f"{'yes' if r['hwm_mib'] <= budget else 'NO'}", flush=True)
    over = [r["notebook"] for r in rows if r["hwm_mib"] > budget]
    print(f"largest: {max(r['hwm_mib'] for r in rows):.0f} MiB; over budget: {', '.join(over) or 'none'}")

    single = {r["notebook"]: r["wall_s"] for r in rows}
    print(f"\n{n} kernels at once on {cores} cores (kernel k runs notebook k mod {len(paths)}) ...", flush=True)
    cr = crowd(paths, n)
    total = sum(r["hwm_mib"] for r in cr["results"])
    ideal = sum(single[r["notebook"]] for r in cr["results"]) / cores
    print(f"sum of the {n} kernels' peaks: {total:.0f} MiB ({total / 1024:.2f} GiB; {total / n:.0f} MiB per kernel, "
          f"shared library pages counted in every kernel)")
    if cr["machine_peak_mib"] is not None:
        print(f"machine-wide used memory above the idle baseline, at its peak: {cr['machine_peak_mib']:.0f} MiB "
              f"(the {n} runner processes included; other users of the machine add noise)")
    print(f"wall time {cr['wall_s']:.0f} s vs {n} x single-kernel run / {cores} cores = {ideal:.0f} s "
          f"(ratio {cr['wall_s'] / ideal:.2f})")
    v = voila_time_to_live_sliders(warm_s=5.0)
    if v is None:
        print("presentation view of 02-05, time to live sliders: not measured (needs voila, playwright and chromium)")
    else:
        print(f"presentation view of 02-05, time to live sliders: {v:.1f} s from opening the page "
              f"(target <= 5 s -> {'met' if v <= 5 else 'NOT met'})")
    return {"floor": fl, "budget_mib": budget, "notebooks": rows, "crowd": cr, "crowd_sum_mib": total,
            "crowd_ideal_s": ideal, "cores": cores, "voila_s": v}


def _cli(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.classroom", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="N = 4 kernels at once instead of 20")
    parser.add_argument("-n", type=int, default=None, help="number of kernels at once (default 20, --quick 4)")
    parser.add_argument("--one", metavar="NOTEBOOK", help="run one notebook (or 'floor'), print its peak as JSON (used by the crowd run and the test)")
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(floor() if args.one == "floor" else notebook_peak(args.one)))
        return 0
    from benchmarks.results import measured

    # --quick and -n are smoke checks: their figures are not written to the results file
    measured("classroom", main, quick=args.quick, n=args.n, write=not args.quick and args.n is None)
    return 0


if __name__ == "__main__":
    sys.exit(_cli())
