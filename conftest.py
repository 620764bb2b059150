"""Project-wide pytest hooks: the lanes and the strictness switch.

Lanes (markers): ``notebooks`` (each notebook executed once, notebooks/conftest.py), ``browser``
(headless Chromium), ``editions`` (web and browser editions), ``grading`` (the nbgrader course); every other
test is marked ``fast`` here (unit, property, bad-input and house tests: ``python -m pytest -m fast``).
Under pytest-xdist (``-n auto``, in pyproject.toml's addopts; ``-n 0`` runs serially) the lanes run side by
side, and ``pytest_xdist_make_scheduler`` decides what shares a worker (:func:`lane_unit`): a notebook's cells and
checks (one kernel, in order), the nbgrader course's file, and three fixed groups of browser and editions files, each on one
worker at a time, so a session fixture (a site built in minutes) is built once. The CPU-bound browser edition
starts first, beside the fast and notebook lanes, not beside the timing-sensitive Voila pages (docs/testing.md).

``SELF_ATTENTION_CH02_STRICT=1`` (set by ``.ci/run``) turns every skip into a failure, with
the skip's own reason, so a CI run can never pass with a test that did not run. Without it,
a test that cannot run here (no Chromium, no model weights, no /proc) is skipped and says why.
The generic ``CI=true`` that hosted CI services set does not switch this on: a maintainer's
fork on such a service may lack Chromium and still wants the rest of the suite.
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from pathlib import PurePosixPath

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
    items.sort(key=_rank)  # the units' order under pytest-xdist (stable: a notebook's cells stay in order)


# --------------------------------------------------------------------------- lanes side by side (pytest-xdist)

#: Files that share one worker, in this order: (group, files). The first group starts at once on one worker; the
#: files of no group (the fast lane, grading, the notebooks) follow on the others; then the other groups, in order,
#: each on the first worker that is free.
GROUPS = (
    ("browser-edition-and-lab", ("tests/browser/test_browser_edition.py", "tests/browser/test_browser_notebooks.py")),
    ("voila-and-decks", ("tests/browser/test_presentation_view.py", "tests/browser/test_lecture_deck.py")),
    ("web-edition", ("tests/test_web_edition_build.py", "tests/browser/test_web_edition.py")),
)
#: Files whose tests stay together on one worker: their module fixtures take minutes (a course built and graded).
WHOLE_FILES = frozenset({"tests/test_nbgrader_course.py"})
_GROUP_OF = {path: group for group, paths in GROUPS for path in paths}


def lane_unit(nodeid: str) -> str:
    """The unit of work a test belongs to under pytest-xdist: its group; else a notebook's cells and checks, or a
    module whose fixtures are worth building once (grading), together; else the test alone."""
    path = nodeid.split("::", 1)[0]
    if path in _GROUP_OF:
        return _GROUP_OF[path]
    return path if path.endswith(".ipynb") or path in WHOLE_FILES else nodeid


_RANK = {group: (0 if i == 0 else 1 + i) for i, (group, _) in enumerate(GROUPS)}


def _rank(item) -> int:
    """0: the first group; 1: the tests of no group; 2, 3, ...: the other groups."""
    return _RANK.get(lane_unit(item.nodeid), 1)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    from xdist.scheduler import LoadScopeScheduling

    class LaneScheduling(LoadScopeScheduling):
        """xdist's load-scope scheduling with :func:`lane_unit` as the scope, handed out in the collection's order
        (see ``_rank``), not in xdist's (the most tests first: always in xdist 3.6, by default in 3.8)."""

        def _split_scope(self, nodeid: str) -> str:
            return lane_unit(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not getattr(self, "_in_collection_order", False):  # the queue is complete at the first assignment
                first = {nodeid: i for i, nodeid in enumerate(self.collection)}
                units = sorted(self.workqueue.items(), key=lambda unit: first[next(iter(unit[1]))])
                self.workqueue.clear()
                self.workqueue.update(units)
                self._in_collection_order = True
            super()._assign_work_unit(node)

        def remove_node(self, node):
            # A crashed worker's finished units would go back to the queue as empty batches, which no report
            # follows, so the run would wait for ever: only its unfinished units are handed out again.
            workload = self.assigned_work.get(node, {})
            for unit in [u for u, tests in workload.items() if all(tests.values())]:
                del workload[unit]
            return super().remove_node(node)

    return LaneScheduling(config, log)


# --------------------------------------------------------------------------- executions per lane

#: {lane: Counter(notebook -> executions)} in this run, read from the tests' reports: a test that executes a notebook
#: says so with ``request.node.user_properties.append(("executed", (lane, notebook)))`` (it travels to the
#: controller under pytest-xdist); the notebook lane's checks report theirs (notebooks/conftest.py).
EXECUTED: defaultdict[str, Counter] = defaultdict(Counter)


def pytest_runtest_logreport(report):
    if report.when != "call":  # the properties ride on every phase's report: count one
        return
    for key, value in getattr(report, "user_properties", ()):
        if key == "executed":
            lane, notebook = value
            EXECUTED[lane][notebook] += 1
        elif key == "notebook_lane" and report.nodeid.endswith("::kernel-memory"):  # one of its three checks
            EXECUTED["notebooks (nbval)"][PurePosixPath(report.nodeid.split("::")[0]).name] = value["executions"]


def pytest_terminal_summary(terminalreporter):
    """How many times each lane executed each notebook in this run (the promise: once per lane)."""
    if not EXECUTED:
        return
    tr = terminalreporter
    tr.write_sep("-", "notebooks executed per lane")
    for lane, counts in sorted(EXECUTED.items()):
        times = Counter(counts.values())
        more = sorted(n for n, k in counts.items() if k > 1)
        tr.write_line(f"  {lane:<34} {len(counts):2d} notebooks: " + ", ".join(f"{k} executed {n}x" for n, k in sorted(times.items()))
                      + (f"  (more than once: {', '.join(more)})" if more else ""))
