"""The notebook lane: each notebook executes ONCE (nbval's fresh kernel, cell by cell, as a learner's Run All),
and that one execution feeds every check that needs an executed notebook.

- nbval compares every cell's outputs with the committed ones (``--nbval``, the sanitizers of
  ``tests/nbval_sanitize.cfg``), as before.
- In the same kernel, hidden from the notebook (code run between cells, no output in any cell): a probe
  records the text sizes of every figure drawn (inline plots and the widgets' PNG frames), the kernel's
  peak memory is read at the end, each ``solution`` cell is fingerprinted before and after, and each
  ``exercise`` cell's output is kept.
- After a notebook's last cell, three check items of that notebook read the record:
  ``figures-legible`` (every text >= ``helpers.ui.plotting.MIN_FONT_PT`` as displayed),
  ``kernel-memory`` (peak <= 1.5 x a bare kernel that imports what the series imports, +5 % noise), and
  ``student-edition`` (the student edition is this notebook without its ``solution`` cells: no solution cell
  rebinds, deletes or mutates a name that existed before it, nor moves NumPy's error state or global
  random state, so every other cell runs as here; and every ``exercise`` cell's self-check says 尚未完成, no ✅).
- The terminal summary says how many times each notebook executed (once per run).

02-13 is committed executed WITH the all-MiniLM-L6-v2 weights. On a machine without them its cells print a
fetch hint instead, so it is skipped there, with the command that fetches them; under the strict switch
(``SELF_ATTENTION_CH02_STRICT=1``, set by .ci/run, which fetches them) it fails loudly instead.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from pathlib import Path

import pytest
from nbval.plugin import IPyNbCell

from publish.notebooks import EXERCISE, SOLUTION

REAL_MODEL_NOTEBOOK = "02-13-real-model-attention.ipynb"
MEMORY_NOISE = 1.05
HIDDEN_TIMEOUT = 300
MARK = "__CH02_LANE__"

#: Run hidden in each notebook's kernel before its first cell (names start with __ch02_: no notebook reads them).
PROBE = f"__ch02_MARK = {MARK!r}\n" + r"""
def __ch02_install():
    import hashlib
    from matplotlib.backend_bases import FigureCanvasBase
    from helpers.ui.plotting import displayed_text_sizes
    texts = []
    original = FigureCanvasBase.print_figure

    def recording(self, *args, **kwargs):
        texts.append([(t, s) for t, s in displayed_text_sizes(self.figure)])
        return original(self, *args, **kwargs)

    FigureCanvasBase.print_figure = recording

    def fingerprint():
        import numpy as np
        ns = get_ipython().user_ns
        out = {"np.geterr": repr(sorted(np.geterr().items())),
               "np.random (global)": hashlib.sha1(repr(np.random.get_state()).encode()).hexdigest()}
        for name, value in list(ns.items()):
            if name.startswith("_") or name in {"In", "Out", "exit", "quit", "get_ipython"}:
                continue
            fp = [id(value)]
            if isinstance(value, np.ndarray):  # a mapped file (2.13's weights) is not read: that would raise the peak
                small = value.nbytes <= 16 * 2**20 and value.dtype != object and not isinstance(value, np.memmap)
                fp.append(hashlib.sha1(np.ascontiguousarray(value).view(np.uint8).reshape(-1)).hexdigest()
                          if small else (value.shape, str(value.dtype)))
            elif isinstance(value, np.random.Generator):
                fp.append(repr(value.bit_generator.state))
            out[name] = repr(fp)
        return out

    def report():
        import json
        peak = None
        try:
            with open("/proc/self/status") as fh:
                peak = next(int(l.split()[1]) / 1024 for l in fh if l.startswith("VmHWM:"))
        except OSError:
            pass
        print(__ch02_MARK + json.dumps({"figure_texts": texts, "hwm_mib": peak}))

    return fingerprint, report

__ch02_fingerprint, __ch02_report = __ch02_install()
del __ch02_install
__ch02_before = None
"""
BEFORE_SOLUTION = "__ch02_before = __ch02_fingerprint()"
AFTER_SOLUTION = r"""
def __ch02_changed():
    import json
    after = __ch02_fingerprint()
    print(__ch02_MARK + json.dumps(sorted(k for k, v in __ch02_before.items() if after.get(k) != v)))
__ch02_changed()
del __ch02_changed
"""
REPORT = "__ch02_report()"


def strict() -> bool:
    """SELF_ATTENTION_CH02_STRICT=1 (see the repository root's conftest.py)."""
    return os.environ.get("SELF_ATTENTION_CH02_STRICT", "").strip().lower() in {"1", "true", "yes"}


class Record:
    """What one execution of one notebook showed."""

    def __init__(self):
        self.started = time.perf_counter()
        self.wall_s = None
        self.cells_run = 0
        self.figure_texts = None
        self.hwm_mib = None
        self.solution_changes: dict[int, list[str]] = {}
        self.exercise_outputs: dict[int, str] = {}


RECORDS: dict[str, Record] = {}
EXECUTIONS: Counter = Counter()


def _hidden(kernel, code: str) -> str:
    """Run ``code`` in nbval's kernel between two cells; return what it printed (after MARK) or raise."""
    msg_id = kernel.execute_cell_input(code, allow_stdin=False)
    kernel.await_reply(msg_id, timeout=HIDDEN_TIMEOUT)
    printed, error = [], None
    while True:
        msg = kernel.get_message(stream="iopub", timeout=HIDDEN_TIMEOUT)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind = msg["msg_type"]
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            break
        if kind == "stream":
            printed.append(msg["content"]["text"])
        elif kind == "error":
            error = f"{msg['content']['ename']}: {msg['content']['evalue']}"
    if error:
        raise RuntimeError(f"the notebook lane's hidden code failed in the kernel: {error}")
    text = "".join(printed)
    return text.split(MARK, 1)[1].strip() if MARK in text else ""


def _text(outputs) -> str:
    parts = []
    for o in outputs:
        parts.append(o.get("text", ""))
        parts.append(o.get("data", {}).get("text/plain", ""))
    return "".join(parts)


def _tags(item: IPyNbCell) -> set[str]:
    return set(item.cell.metadata.get("tags", []))


def _code_cells(item: IPyNbCell) -> int:
    return sum(1 for c in item.parent.nb.cells if c.cell_type == "code")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    if not isinstance(item, IPyNbCell):
        yield
        return
    path = str(item.path)
    kernel = item.parent.kernel
    if item.cell_num == 0:
        EXECUTIONS[path] += 1
        RECORDS[path] = Record()
        _hidden(kernel, PROBE)
    record = RECORDS.get(path)
    solution = SOLUTION in _tags(item)
    if solution and record is not None:
        _hidden(kernel, BEFORE_SOLUTION)
    yield
    if record is None or not kernel.is_alive():
        return
    record.cells_run += 1
    if solution:
        record.solution_changes[item.cell_num] = json.loads(_hidden(kernel, AFTER_SOLUTION) or "[]")
    if EXERCISE in _tags(item):
        record.exercise_outputs[item.cell_num] = _text(getattr(item, "test_outputs", []))
    if item.cell_num == _code_cells(item) - 1 and kernel.is_alive():
        report = json.loads(_hidden(kernel, REPORT))
        record.figure_texts, record.hwm_mib = report["figure_texts"], report["hwm_mib"]
        record.wall_s = time.perf_counter() - record.started


class NotebookCheck(pytest.Item):
    """One check that reads the record of its notebook's execution in this run."""

    def __init__(self, *, check, **kwargs):
        super().__init__(**kwargs)
        self.check = check

    def runtest(self):
        record = RECORDS.get(str(self.path))
        if record is not None:  # travels with the report (to the controller process under pytest-xdist)
            self.user_properties.append(("notebook_lane", {"executions": EXECUTIONS[str(self.path)],
                                                           "wall_s": record.wall_s, "hwm_mib": record.hwm_mib}))
        if record is None or record.wall_s is None:
            pytest.fail(f"{self.path.name} did not run to its last cell in this session, so it cannot be checked "
                        "(run the whole notebook: pytest notebooks/<name>.ipynb)", pytrace=False)
        self.check(self, record)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}::{self.name}"


def check_figures_legible(item, record):
    from helpers.ui.plotting import MIN_FONT_PT

    small = sorted({(t[:40], round(s, 1)) for fig in record.figure_texts for t, s in fig if s < MIN_FONT_PT - 1e-9})
    if small:
        pytest.fail(f"{item.path.name}: {len(small)} figure texts below {MIN_FONT_PT} pt as displayed: {small[:12]}",
                    pytrace=False)


_FLOOR: dict = {}


def floor_mib() -> float:
    """Peak memory of a bare kernel that imports what the series imports, measured once per session."""
    if "mib" not in _FLOOR:  # in a child process, as the benchmark does: its kernel's sockets stay out of pytest's
        from benchmarks.classroom import peaks_in_subprocesses

        _FLOOR["mib"] = peaks_in_subprocesses(["floor"])["floor"]["hwm_mib"]
    return _FLOOR["mib"]


def check_kernel_memory(item, record):
    from benchmarks.classroom import BUDGET_FACTOR

    if record.hwm_mib is None:  # a skip; under SELF_ATTENTION_CH02_STRICT=1 the root conftest makes it a failure
        pytest.skip("/proc/self/status is missing: a kernel's peak memory (VmHWM) is read there (Linux only)")
    floor = floor_mib()
    assert 30 < floor < 400, f"the bare kernel's peak {floor:.0f} MiB is implausible"
    limit = BUDGET_FACTOR * floor * MEMORY_NOISE
    if record.hwm_mib > limit:
        pytest.fail(f"{item.path.name}: kernel peak {record.hwm_mib:.0f} MiB > {BUDGET_FACTOR} x a bare kernel "
                    f"({floor:.0f} MiB) + 5 % = {limit:.0f} MiB. Free large temporaries (del), keep big arrays float32, "
                    "do not hold several copies of the weights.", pytrace=False)


def _read_later(path: Path, n: int) -> set[str]:
    """Every identifier that a code cell after code cell ``n`` (solution cells aside) reads, and "np.random
    (global)" when one of them calls NumPy's legacy global generator."""
    import nbformat

    code = [c for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
    later = "\n".join(c.source for c in code[n + 1:] if SOLUTION not in c.metadata.get("tags", []))
    names = set(re.findall(r"[A-Za-z_]\w*", later)) | {"np.geterr"}
    if re.search(r"np\.random\.(?!default_rng\b|Generator\b)\w+", later):
        names.add("np.random (global)")
    return names


def check_student_edition(item, record):
    problems = []
    for n, changed in sorted(record.solution_changes.items()):
        read = sorted(set(changed) & _read_later(item.path, n))
        if read:
            problems.append(f"the solution cell #{n} changes {read}, which a later cell reads: the student "
                            "edition (without the solution) would run differently")
    for n, text in sorted(record.exercise_outputs.items()):
        if "尚未完成" not in text:
            problems.append(f"exercise cell #{n}'s self-check did not say (in Chinese) it is not done: {text[:200]!r}")
        if "✅" in text:
            problems.append(f"exercise cell #{n}: a self-check passed an unfinished exercise: {text[:200]!r}")
    if problems:
        pytest.fail(f"{item.path.name}: " + "; ".join(problems), pytrace=False)


CHECKS = {"figures-legible": check_figures_legible, "kernel-memory": check_kernel_memory,
          "student-edition": check_student_edition}


class NotebookChecks(pytest.File):
    def collect(self):
        for name, check in CHECKS.items():
            yield NotebookCheck.from_parent(self, name=name, check=check)


@pytest.hookimpl(trylast=True)
def pytest_collect_file(file_path, parent):
    opt = parent.config.option
    nbval_on = getattr(opt, "nbval", False) or getattr(opt, "nbval_lax", False)
    if file_path.suffix == ".ipynb" and file_path.name.startswith("02-") and nbval_on:
        return NotebookChecks.from_parent(parent, path=file_path)
    return None


def pytest_collection_modifyitems(config, items):
    if strict():
        return
    from helpers import real_model

    if real_model.weights_present():
        return
    skip = pytest.mark.skip(reason=real_model.missing_message())
    for item in items:
        if item.path.name == REAL_MODEL_NOTEBOOK:
            item.add_marker(skip)


def pytest_runtest_setup(item):
    if item.path.name != REAL_MODEL_NOTEBOOK or not strict():
        return
    from helpers import real_model

    if not real_model.weights_present():
        pytest.fail("SELF_ATTENTION_CH02_STRICT=1 but the model weights are absent. " + real_model.missing_message(),
                    pytrace=False)


SUMMARY: dict[str, dict] = {}


def pytest_runtest_logreport(report):
    for key, value in getattr(report, "user_properties", ()):
        if key == "notebook_lane":
            SUMMARY[report.nodeid.split("::")[0]] = value


def pytest_terminal_summary(terminalreporter):
    """Each notebook's executions in this run (one line per notebook): the lane's promise, shown."""
    if not SUMMARY:
        return
    tr = terminalreporter
    counts = Counter(v["executions"] for v in SUMMARY.values())
    tr.write_sep("-", "notebook lane")
    tr.write_line(f"{len(SUMMARY)} notebooks executed; executions per notebook: "
                  + ", ".join(f"{n}x: {k}" for n, k in sorted(counts.items())))
    for nodeid, v in sorted(SUMMARY.items()):
        wall = f"{v['wall_s']:5.1f} s" if v["wall_s"] is not None else "  (did not finish)"
        peak = f"{v['hwm_mib']:4.0f} MiB" if v["hwm_mib"] is not None else "   ? MiB"
        tr.write_line(f"  {Path(nodeid).name:<42} executed {v['executions']}x  {wall}  kernel peak {peak}")
