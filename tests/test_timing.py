import types

import numpy as np
import pytest

from helpers.ui.timing import best_time, median_time, peak_traced_mib, single_blas_thread


def test_peak_traced_mib_sees_a_known_allocation():
    # 2**20 float64 = exactly 8 MiB; the peak must include it (plus a little bookkeeping).
    mib = peak_traced_mib(lambda: np.ones(2**20))
    assert 8.0 <= mib < 8.5


def test_peak_is_relative_to_what_was_already_allocated():
    keep = np.ones(2**21)  # 16 MiB alive before the call must not count
    assert peak_traced_mib(lambda: np.ones(2**17)) < 1.5
    del keep


class FakeClock:
    """A perf_counter that only moves when the timed function says so: no test asserts on a real duration."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_times_are_seconds_per_call(monkeypatch):
    import helpers.ui.timing

    clock = FakeClock()
    monkeypatch.setattr(helpers.timing, "time", types.SimpleNamespace(perf_counter=clock))
    costs = iter([5.0, 3.0, 4.0, 4.0, 9.0, 1.0])  # seconds each call "takes"

    def call():
        clock.now += next(costs)

    # Runs of 2 calls: (5+3)/2 = 4, (4+4)/2 = 4, (9+1)/2 = 5 seconds per call; the best is 4.
    assert best_time(call, repeat=3, number=2) == 4.0
    costs = iter([0.3, 0.1, 0.2, 7.0, 0.4])
    assert median_time(call, repeat=5) == pytest.approx(0.3)  # median of single calls, robust to the 7 s one


def test_bad_arguments():
    with pytest.raises(TypeError, match="fn must be a function"):
        best_time(3.0)
    with pytest.raises(ValueError, match="repeat must be a positive integer"):
        median_time(lambda: None, repeat=0)


def test_single_blas_thread_limits_and_restores():
    import threadpoolctl
    before = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert before, "threadpoolctl finds no BLAS library: the checks below would pass vacuously"
    with single_blas_thread() as limited:
        assert limited is True
        inside = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
        assert all(n == 1 for n in inside)
    after = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert after == before


def test_a_clock_too_coarse_for_one_run_never_gives_zero(monkeypatch):
    """In the browser edition perf_counter moves in ticks: a run shorter than a tick measured 0 s, and a
    notebook cell dividing by it raised ZeroDivisionError (2.4's timing cell under Pyodide)."""
    import helpers.ui.timing

    calls = []
    ticks = iter(range(1000))
    monkeypatch.setattr(helpers.timing, "time", types.SimpleNamespace(perf_counter=lambda: 0.0 if len(calls) < 8 else float(next(ticks))))
    t = best_time(lambda: calls.append(1), repeat=1, number=2)
    assert t > 0 and len(calls) >= 8          # repeated with more calls until the clock moved
    calls.clear()
    assert median_time(lambda: calls.append(1), repeat=3) > 0
