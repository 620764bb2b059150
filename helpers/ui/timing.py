"""Small, honest measurement tools for the notebooks' timing and memory cells.

Timings vary from machine to machine and run to run, so every cell that prints one
is tagged ``nbval-ignore-output``; the deterministic claim sits in another cell.
On a busy multi-core machine a multi-threaded BLAS can make a small matrix product
hundreds of times slower than usual, so the timings run inside
:func:`single_blas_thread`.
"""

from __future__ import annotations

import contextlib
import time
import tracemalloc
from collections.abc import Callable, Iterator

import numpy as np

from .._validate import check_callable, check_int

__all__ = ["single_blas_thread", "best_time", "median_time", "peak_traced_mib"]


@contextlib.contextmanager
def single_blas_thread() -> Iterator[bool]:
    """Limit BLAS to one thread inside the ``with`` block; restore it afterwards.

    Yields
    ------
    bool
        True if the limit is in force (threadpoolctl is installed), False otherwise
        (the block then runs with whatever threads BLAS has).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # a declared dependency, but the notebooks must not break without it
        yield False
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield True


def best_time(fn: Callable[[], object], repeat: int = 5, number: int = 1) -> float:
    """Fastest of ``repeat`` runs of ``number`` calls of ``fn``, in seconds per call.

    The minimum is the run least disturbed by everything else on the machine.
    """
    check_callable("fn", fn, "a function of no arguments (wrap a call in a lambda)")
    repeat, number = check_int("repeat", repeat, 1), check_int("number", number, 1)
    return float(min(_seconds_per_call(fn, number) for _ in range(repeat)))


def median_time(fn: Callable[[], object], repeat: int = 10) -> float:
    """Median of ``repeat`` single calls of ``fn``, in seconds (what a user typically waits)."""
    check_callable("fn", fn, "a function of no arguments (wrap a call in a lambda)")
    repeat = check_int("repeat", repeat, 1)
    return float(np.median([_seconds_per_call(fn, 1) for _ in range(repeat)]))


def _seconds_per_call(fn: Callable[[], object], number: int) -> float:
    """Seconds per call over ``number`` calls; never 0: a run shorter than one tick of the clock (a browser's
    clock is coarse: Pyodide's ``perf_counter`` advances in steps of ~0.1 ms) is repeated with twice the calls."""
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        elapsed = time.perf_counter() - t0
        if elapsed > 0 or number >= 1 << 20:
            return max(elapsed, 1e-12) / number
        number *= 2


def peak_traced_mib(fn: Callable[[], object]) -> float:
    """Peak memory newly allocated by Python and numpy during one call of ``fn``, in MiB.

    Uses :mod:`tracemalloc`, which sees numpy's array buffers but not memory that a
    BLAS library or an extension allocates on its own. Deterministic for a given
    computation, unlike a timing.
    """
    check_callable("fn", fn, "a function of no arguments (wrap a call in a lambda)")
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    try:
        fn()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        if not was_tracing:
            tracemalloc.stop()
    return (peak - base) / 2**20
