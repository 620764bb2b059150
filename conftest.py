"""Project-wide pytest hooks: the lanes and the strictness switch.

Lanes (markers): ``notebooks`` (each notebook executed once, notebooks/conftest.py), ``browser``
(headless Chromium), ``editions`` (web and browser editions), ``grading`` (the nbgrader course); every other
test is marked ``fast`` here (unit, property, bad-input and house tests: ``python -m pytest -m fast``).
Under ``-n auto --dist loadfile`` (pytest-xdist) a file is one unit of work: its module fixtures run once and a
notebook's cells run in order in one kernel, followed by its checks. (Not ``--dist loadgroup``: pytest-xdist
3.8 marks a group by rewriting ``item._nodeid``, which pytest 9 no longer reads, so every test became its own
group and a notebook's cells were spread over both workers.)

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


@pytest.hookimpl(tryfirst=True)  # before -m deselects: the lane markers must be there
def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.notebooks)
        if not any(item.get_closest_marker(lane) for lane in SLOW_LANES):
            item.add_marker(pytest.mark.fast)
