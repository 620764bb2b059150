"""The Run All figure's report: wall-clock ratio per run against its own floor, and the kernel CPU beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from benchmarks.run_all import _cpu_s, report


def test_report_gives_the_median_ratio_and_the_cpu_of_runs_that_have_it():
    results = {Path("02-99-x.ipynb"): [(3.0, 1.5, 2.4, 1.2), (2.2, 1.0, None, 1.0), (5.0, 2.0, 3.0, 1.0)]}
    text = report(results)
    line = text.splitlines()[1]
    assert "2.20x" in line                       # ratios 2.0, 2.2, 2.5: median 2.2
    assert "target <= 2x: not met" in line
    assert "2.70 / 1.10 = 2.50x" in line         # CPU only from the two runs that read it: ratios 2.0 and 3.0


def test_report_says_when_no_cpu_was_read():
    line = report({Path("02-98-y.ipynb"): [(1.5, 1.0, None, None)]}).splitlines()[1]
    assert "1.50x" in line and "not met" not in line and "not read" in line


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="kernel CPU is read from /proc (Linux)")
def test_cpu_seconds_of_this_process_are_read():
    before = _cpu_s(os.getpid())
    sum(i * i for i in range(300_000))
    after = _cpu_s(os.getpid())
    assert before is not None and after >= before > 0
    assert _cpu_s(2**22 + 12345) is None            # no such process: None, not an exception
