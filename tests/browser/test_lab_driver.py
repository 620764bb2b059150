"""The browser harness's own decisions, checked without a browser (these always run).

What counts as a problem after Run All, and which notebooks count as having widgets,
decides whether the browser suite can fail at all -- so it is tested on hand-made cases.
"""

from __future__ import annotations

import nbformat
import pytest

import lab_driver as lab


def _cell(i, *, outputs=(), tags=(), count=1, empty=False, kind="code"):
    return {"index": i, "type": kind, "tags": list(tags), "empty": empty, "executionCount": count,
            "running": False, "outputs": list(outputs)}


def _out(output_type, name=None, text="", ename=None):
    return {"output_type": output_type, "name": name, "ename": ename, "evalue": "boom" if ename else None,
            "text": text, "mimes": []}


def _problems(*cells):
    run = lab.NotebookRun(name="x.ipynb", cells=list(cells))
    return lab.problems(run, {c["index"]: c["tags"] for c in cells})


def test_clean_run_has_no_problems():
    assert _problems(_cell(0, outputs=[_out("stream", "stdout", "ok")]),
                     _cell(1, kind="markdown", count=None)) == []


def test_any_error_is_a_problem():
    (msg,) = _problems(_cell(0, outputs=[_out("error", ename="ValueError")]))
    assert msg.startswith("cell 0: ValueError: boom")


def test_stderr_needs_shows_warning():
    warn = _out("stream", "stderr", "UserWarning: careful")
    assert "unexpected stderr" in _problems(_cell(0, outputs=[warn]))[0]
    assert _problems(_cell(0, tags=["shows-warning"], outputs=[warn])) == []


def test_unexecuted_code_cell_is_a_problem_but_empty_cells_are_not():
    assert "not executed" in _problems(_cell(3, count=None))[0]
    assert _problems(_cell(3, count=None, empty=True)) == []


def test_probe_notebooks(tmp_path):
    good = lab.make_probe_notebook(tmp_path / "good.ipynb")
    bad = lab.make_probe_notebook(tmp_path / "bad.ipynb", broken=True)
    assert lab.has_widget(good) and lab.has_widget(bad)
    assert "raise RuntimeError('broken callback')" in bad.read_text()
    assert "broken callback" not in good.read_text()


@pytest.mark.parametrize("source, expected", [
    ("import ipywidgets as widgets", True),
    ("from ipywidgets import IntSlider", True),
    ("explorer = H.saturation.saturation_explorer()", True),
    ("H.causal_view.causal_widget(A, words, t=T)", True),
    ("import numpy as np\nprint('no widgets here')", False),
    ("# import ipywidgets  (commented out)", False),
])
def test_widget_detection_from_sources(tmp_path, source, expected):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source)]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert lab.has_widget(path) is expected


def test_widget_detection_from_saved_widget_output(tmp_path):
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("explorer.widget")
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "text/plain": "VBox(...)", lab.WIDGET_MIME: {"model_id": "abc", "version_major": 2, "version_minor": 0}})]
    nb.cells = [cell]
    path = tmp_path / "n.ipynb"
    nbformat.write(nb, path)
    assert lab.has_widget(path)


_SESSION = """
from IPython.core.interactiveshell import InteractiveShell
FORGET, FORGOTTEN = {forget!r}, {forgotten!r}
shell = InteractiveShell.instance()
def run(code):
    result = shell.run_cell(code, store_history=True)   # as pyodide-kernel 0.6 runs every request
    return "RESULT " + (type(result.error_in_exec or result.error_before_exec).__name__ if not result.success else "ok")
print(run("import numpy as np\\nimport matplotlib.pyplot as plt\\nimport ipywidgets\\nimport helpers as H\\n"
          "first = H\\nslider = ipywidgets.IntSlider()\\nfig = plt.figure()"))
print(run(FORGOTTEN))              # before the reset: the check must fail
print(run(FORGET))
print(run(FORGOTTEN))
print(run("import helpers as H\\nassert 'first' not in dir() and 'slider' not in dir()"))
"""


def test_the_browser_editions_kernel_hand_over_forgets_the_last_notebook(tmp_path):
    """What ``lite_driver.open_after`` runs in the Pyodide kernel between two notebooks, run here in an IPython shell
    (CPython): the last notebook's names, helpers modules, widgets and figures are gone, and the check that says so
    fails before the reset (so the browser test's own check of every hand-over can fail)."""
    import os
    import subprocess
    import sys

    import lite_driver

    script = _SESSION.format(forget=lite_driver.FORGET, forgotten=lite_driver.FORGOTTEN)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg"}, check=False)
    results = [ln.split()[1] for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
    assert results == ["ok", "AssertionError", "ok", "ok", "ok"], done.stdout + done.stderr


def test_the_benchmarks_import_the_drivers_from_the_repository_root():
    """``python -m benchmarks`` imports the drivers as tests.browser.lab_driver / lite_driver (a namespace package seen
    from the root), the browser tests as top-level modules: both must work."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", "from benchmarks.browser_edition import _drivers\n"
                           "lab, lite = _drivers()\nassert lite.lab_settle is lab.settle\nprint('ok')"],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]
