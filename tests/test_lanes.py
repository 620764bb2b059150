"""The lanes side by side under pytest-xdist (the root conftest.py): which tests share a worker.

A browser or editions file that is in no group would be split test by test over the workers, so its session
fixtures (a JupyterLab server, a site built in minutes) would be built once per worker and its pages would run
beside the other group's; a notebook's cells split over two workers would run in two kernels. These tests run a
small suite with the project's conftest under ``-n 2`` and read which worker ran what.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def root(request):
    """The root conftest.py, as pytest loaded it."""
    return next(m for m in request.config.pluginmanager.get_plugins()
                if getattr(m, "__file__", None) and Path(m.__file__) == ROOT / "conftest.py")


def test_every_browser_and_editions_file_is_in_a_group(root):
    marked = {p.relative_to(ROOT).as_posix() for p in [*ROOT.glob("tests/test_*.py"), *ROOT.glob("tests/browser/test_*.py")]
              if re.search(r"^pytestmark = .*pytest\.mark\.(browser|editions)\b", p.read_text(encoding="utf-8"), re.MULTILINE)}
    assert "tests/browser/test_browser_edition.py" in marked and "tests/test_web_edition_build.py" in marked
    grouped = {path for _, paths in root.GROUPS for path in paths}
    assert marked <= grouped, f"not in a group of conftest.GROUPS: {sorted(marked - grouped)}"
    assert grouped <= {p.relative_to(ROOT).as_posix() for p in ROOT.glob("tests/**/test_*.py")}, "a group names a file that is gone"


def test_the_files_that_share_the_web_editions_build_share_a_group(root):
    users = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("tests/**/test_*.py")
                   if re.search(r"^def \w+\([^)]*\bweb_edition\b", p.read_text(encoding="utf-8"), re.MULTILINE))
    assert len(users) == 2, users
    assert len({root.lane_unit(f"{u}::t") for u in users}) == 1, users


def test_units(root):
    assert root.lane_unit("notebooks/02-05-x.ipynb::Cell 3") == root.lane_unit("notebooks/02-05-x.ipynb::kernel-memory")
    assert root.lane_unit("notebooks/02-05-x.ipynb::Cell 3") != root.lane_unit("notebooks/02-06-y.ipynb::Cell 3")
    assert root.lane_unit("tests/test_nbgrader_course.py::a") == root.lane_unit("tests/test_nbgrader_course.py::b")
    assert root.lane_unit("tests/test_attention.py::a") != root.lane_unit("tests/test_attention.py::b")


EARLY = "tests/a_first/test_early.py"   # collected before every browser file: plain collection order would start it


def _suite(tmp_path: Path, root) -> Path:
    """A small suite with the project's conftest: every grouped file, an ungrouped file collected first and one
    collected later. The last group has the most tests, so xdist's own order (the most tests first) starts it."""
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    record = textwrap.dedent("""
        import json, os
        import pytest

        @pytest.mark.parametrize("k", range({n}))
        def test_it(k, request):
            log = os.path.join(os.environ["LANES_LOG"], os.environ["PYTEST_XDIST_WORKER"] + ".jsonl")
            with open(log, "a") as fh:       # one file per worker: its order is the order the worker ran them
                fh.write(json.dumps(request.node.nodeid) + "\\n")
    """)
    last = set(root.GROUPS[-1][1])
    files = {path: (8 if path in last else 4) for _, paths in root.GROUPS for path in paths}
    files |= {EARLY: 4, "tests/test_plain.py": 4}
    for rel, n in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(record.replace("{n}", str(n)), encoding="utf-8")
    return tmp_path


def test_under_two_workers_each_group_runs_on_one_worker_and_the_first_group_starts_first(tmp_path, root):
    suite = _suite(tmp_path, root)
    logs = tmp_path / "ran"
    logs.mkdir()
    env = {**os.environ, "LANES_LOG": str(logs)}
    env.pop("SELF_ATTENTION_CH02_STRICT", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval", "-o", "addopts=",
                           "-n", "2", "tests"], check=False, cwd=suite, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = {log.stem: [json.loads(line) for line in log.read_text().splitlines()] for log in logs.glob("*.jsonl")}
    units = {worker: [root.lane_unit(nodeid) for nodeid in ids] for worker, ids in ran.items()}
    assert sum(map(len, ran.values())) == 4 * sum(len(paths) for _, paths in root.GROUPS) + 4 * len(root.GROUPS[-1][1]) + 8
    groups = [group for group, _ in root.GROUPS]
    for group in groups:
        assert sum(group in u for u in units.values()) == 1, f"{group} ran on more than one worker: {ran}"
    assert any(u[0] == groups[0] for u in units.values()), f"no worker started with the first group: {ran}"
    for worker, u in units.items():   # a later group never runs before an ungrouped test on the same worker
        later = [i for i, unit in enumerate(u) if unit in groups[1:]]
        plain = [i for i, unit in enumerate(u) if unit not in groups]
        assert not later or not plain or max(plain) < min(later), f"{worker} ran a later group before an ungrouped test: {ran[worker]}"


class _Worker:
    """What the scheduler sees of a worker: the batches it is sent, and that it can be told to shut down."""

    def __init__(self, name: str):
        self.gateway = type("Gateway", (), {"id": name})()
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indices):
        self.sent.append(list(indices))

    def shutdown(self):
        self.shutting_down = True


class _Config:
    def __init__(self):
        self.option = type("Option", (), {"loadscopereorder": True})()

    def getvalue(self, name):
        return {"tx": ["2*popen"]}[name]


def test_after_a_worker_crash_only_its_unfinished_tests_are_handed_out_again(root):
    """A crashed worker's finished units must not go back to the queue: sent as empty batches, no report would follow
    them and the run would wait for ever (what xdist's load-scope scheduling does with them)."""
    sched = root.pytest_xdist_make_scheduler(config=_Config(), log=None)
    collection = [f"tests/test_a.py::t{i}" for i in range(6)]
    a, b = _Worker("gw0"), _Worker("gw1")
    for w in (a, b):
        sched.add_node(w)
        sched.add_node_collection(w, collection)
    sched.schedule()
    done = [i for batch in b.sent for i in batch][:2]      # b finishes two of its tests, then crashes on the next
    for i in done:
        sched.mark_test_complete(b, i)
    left = {collection[i] for batch in b.sent for i in batch} - {collection[i] for i in done}
    crashed = sched.remove_node(b)
    assert crashed in left
    for i in [i for batch in a.sent for i in batch]:
        sched.mark_test_complete(a, i)
    handed_again = [collection[i] for batch in a.sent for i in batch]
    assert all(a.sent), f"an empty batch was sent: {a.sent}"
    assert left <= set(handed_again), f"the crashed worker's unfinished tests were not handed out again: {a.sent}"
    assert sched.tests_finished, "the run would wait for ever"
