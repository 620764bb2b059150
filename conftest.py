"""Project-wide pytest hooks: the lanes and the strictness switch.

Lanes (markers): ``notebooks`` (each notebook executed once, notebooks/conftest.py), ``browser``
(headless Chromium), ``editions`` (web and browser editions), ``grading`` (the nbgrader course); every other
test is marked ``fast`` here (unit, property, bad-input and house tests: ``python -m pytest -m fast``).

``SELF_ATTENTION_CH02_STRICT=1`` (set by ``.ci/run``) turns every skip into a failure, with
the skip's own reason, so a CI run can never pass with a test that did not run. Without it,
a test that cannot run here (no Chromium, no model weights, no /proc) is skipped and says why.
The generic ``CI=true`` that hosted CI services set does not switch this on: a maintainer's
fork on such a service may lack Chromium and still wants the rest of the suite.
"""

from __future__ import annotations

import os

import pytest

STRICT_VAR = "SELF_ATTENTION_CH02_STRICT"


def strict() -> bool:
    """True when skips must be failures (``SELF_ATTENTION_CH02_STRICT=1``)."""
    return os.environ.get(STRICT_VAR, "").strip().lower() in {"1", "true", "yes"}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if strict() and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"{STRICT_VAR}=1 turns this skip into a failure: {reason}"


SLOW_LANES = ("notebooks", "browser", "editions", "grading")


def xdist_group(item) -> str:
    """Under ``-n 2 --dist loadgroup`` (pytest-xdist), what must run in one worker: a file's tests (its module
    fixtures once; a notebook's cells in order, then its checks), each half of the JupyterLite notebooks (their
    workers share one site build), the other browser tests (one JupyterLab server)."""
    if item.get_closest_marker("browser"):
        if item.path.name == "test_browser_edition.py":  # ~30 s a notebook in Pyodide: two halves, one site build
            name = getattr(getattr(item, "callspec", None), "params", {}).get("name", "")
            return f"browser-lite-{int(name[3:5]) % 2 if name[3:5].isdigit() else 0}"
        return "browser-lab"
    return item.path.as_posix()


@pytest.hookimpl(tryfirst=True)  # before -m deselects: the lane markers must be there
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebooks)
        if not any(item.get_closest_marker(lane) for lane in SLOW_LANES):
            item.add_marker(pytest.mark.fast)
        item.add_marker(pytest.mark.xdist_group(xdist_group(item)))
