import time

import numpy as np
import pytest

from helpers.timing import best_time, median_time, peak_traced_mib, single_blas_thread


def test_peak_traced_mib_sees_a_known_allocation():
    # 2**20 float64 = exactly 8 MiB; the peak must include it (plus a little bookkeeping).
    mib = peak_traced_mib(lambda: np.ones(2**20))
    assert 8.0 <= mib < 8.5


def test_peak_is_relative_to_what_was_already_allocated():
    keep = np.ones(2**21)  # 16 MiB alive before the call must not count
    assert peak_traced_mib(lambda: np.ones(2**17)) < 1.5
    del keep


def test_times_are_seconds_per_call():
    t = best_time(lambda: time.sleep(0.002), repeat=3, number=2)
    assert 0.0015 < t < 0.5
    assert median_time(lambda: time.sleep(0.002), repeat=3) >= 0.0015


def test_bad_arguments():
    with pytest.raises(TypeError, match="fn must be a function"):
        best_time(3.0)
    with pytest.raises(ValueError, match="repeat must be a positive integer"):
        median_time(lambda: None, repeat=0)


def test_single_blas_thread_limits_and_restores():
    import threadpoolctl
    before = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    with single_blas_thread() as limited:
        assert limited is True
        inside = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
        assert all(n == 1 for n in inside)
    after = [p["num_threads"] for p in threadpoolctl.threadpool_info() if p["user_api"] == "blas"]
    assert after == before
