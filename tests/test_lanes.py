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
              if re.search(r"^pytestmark = pytest\.mark\.(browser|editions)$", p.read_text(encoding="utf-8"), re.MULTILINE)}
    assert "tests/browser/test_browser_edition.py" in marked and "tests/test_web_edition_build.py" in marked
    grouped = {path for _, paths in root.GROUPS for path in paths}
    assert marked <= grouped, f"not in a group of conftest.GROUPS: {sorted(marked - grouped)}"
    assert grouped <= {p.relative_to(ROOT).as_posix() for p in ROOT.glob("tests/**/test_*.py")}, "a group names a file that is gone"


def test_the_files_that_share_the_web_editions_build_share_a_group(root):
    users = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("tests/**/test_*.py")
                   if re.search(r"^def \w+\(web_edition\)", p.read_text(encoding="utf-8"), re.MULTILINE))
    assert len(users) == 2, users
    assert len({root.lane_unit(f"{u}::t") for u in users}) == 1, users


def test_units(root):
    assert root.lane_unit("notebooks/02-05-x.ipynb::Cell 3") == root.lane_unit("notebooks/02-05-x.ipynb::kernel-memory")
    assert root.lane_unit("notebooks/02-05-x.ipynb::Cell 3") != root.lane_unit("notebooks/02-06-y.ipynb::Cell 3")
    assert root.lane_unit("tests/test_nbgrader_course.py::a") == root.lane_unit("tests/test_nbgrader_course.py::b")
    assert root.lane_unit("tests/test_attention.py::a") != root.lane_unit("tests/test_attention.py::b")


def _suite(tmp_path: Path, root) -> Path:
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    record = textwrap.dedent("""
        import json, os, time
        import pytest

        @pytest.mark.parametrize("k", range(4))
        def test_it(k, request):
            with open(os.environ["LANES_LOG"], "a") as fh:
                fh.write(json.dumps([request.node.nodeid, os.environ["PYTEST_XDIST_WORKER"], time.monotonic()]) + "\\n")
            time.sleep(0.05)
    """)
    files = {f"{path[:-3]}.py" for _, paths in root.GROUPS for path in paths} | {"tests/test_plain.py", "tests/test_other.py"}
    for rel in files:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(record, encoding="utf-8")
    return tmp_path


def test_under_two_workers_each_group_runs_on_one_worker_and_the_first_group_starts_first(tmp_path, root):
    pytest.importorskip("xdist")
    suite = _suite(tmp_path, root)
    log = tmp_path / "ran.jsonl"
    env = {**os.environ, "LANES_LOG": str(log)}
    env.pop("SELF_ATTENTION_CH02_STRICT", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval", "-o", "addopts=",
                           "-n", "2", "tests"], check=False, cwd=suite, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(ran) == 4 * (sum(len(paths) for _, paths in root.GROUPS) + 2)
    for group, paths in root.GROUPS:
        workers = {w for nodeid, w, _ in ran if nodeid.split("::")[0] in paths}
        assert len(workers) == 1, f"{group} ran on {workers}"
    start = {unit: min(t for nodeid, _, t in ran if root.lane_unit(nodeid) == unit) for unit, _ in root.GROUPS}
    assert start[root.GROUPS[0][0]] - min(t for _, _, t in ran) < 1.0, "the first group did not start at once"
    plain = [t for nodeid, _, t in ran if nodeid.startswith(("tests/test_plain.py", "tests/test_other.py"))]
    assert start[root.GROUPS[-1][0]] > min(plain), "the last group started before the ungrouped tests"
