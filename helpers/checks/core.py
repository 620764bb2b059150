"""The self-check machinery behind every exercise.

A check runs the learner's function on hidden cases and prints one clear line:
pass, or the first case that failed and a hint. It never prints the expected
answer, and it never raises because the learner's code did: the notebook must
keep running so the learner can fix the cell and try again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Case", "CheckResult", "run_check", "check_array"]

PASS = "\u2705"  # green check mark
FAIL = "\u274c"  # red cross


@dataclass(frozen=True)
class Case:
    """One hidden test case.

    Attributes
    ----------
    label : str
        Short description shown when the case fails ("huge scores").
    args : tuple
        Positional arguments for the learner's function.
    expected : Any
        The reference result (array, tuple of arrays or scalar). Never printed.
    hint : str
        What to look at if this case fails.
    kwargs : dict
        Keyword arguments for the learner's function.
    """

    label: str
    args: tuple
    expected: Any
    hint: str = ""
    kwargs: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a check; truthy when every case passed."""

    name: str
    passed: bool
    n_cases: int
    n_passed: int
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"CheckResult(name={self.name!r}, passed={self.passed}, cases={self.n_passed}/{self.n_cases})"

    def _ipython_display_(self) -> None:
        # The check already printed its verdict; showing the object again would repeat it.
        return None


def _compare(got, expected, atol: float, rtol: float) -> str | None:
    """Return None if ``got`` matches ``expected``, else a reason that does not reveal ``expected``."""
    if isinstance(expected, tuple):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return f"expected a tuple of {len(expected)} results, got {type(got).__name__}"
        for k, (g, e) in enumerate(zip(got, expected)):
            reason = _compare(g, e, atol, rtol)
            if reason:
                return f"result #{k + 1}: {reason}"
        return None
    if got is None:
        return "your function returned None (did you forget `return`?)"
    try:
        g = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return f"could not read your result as numbers (got {type(got).__name__})"
    e = np.asarray(expected, dtype=float)
    if g.shape != e.shape:
        return f"your result has shape {g.shape}, expected shape {e.shape}"
    if not np.all(np.isfinite(g)) and np.all(np.isfinite(e)):
        return "your result contains NaN or inf"
    close = np.isclose(g, e, atol=atol, rtol=rtol, equal_nan=True)
    if not np.all(close):
        # Say how many entries are off, not by how much: with an all-zero answer the
        # size of the error would give the expected values away.
        return f"wrong values in {int(close.size - close.sum())} of {close.size} entries"
    return None


def run_check(
    name: str,
    fn: Callable,
    cases: Sequence[Case],
    *,
    atol: float = 1e-6,
    rtol: float = 1e-6,
    general_hint: str = "",
) -> CheckResult:
    """Run ``fn`` on each case, print a verdict line, return a :class:`CheckResult`.

    Stops at the first failing case. A ``NotImplementedError`` from ``fn`` is
    reported as "not done yet"; any other exception is reported with its type
    and message (no traceback), followed by the case's hint.
    """
    if not callable(fn):
        msg = f"{FAIL} {name}: expected a function, got {type(fn).__name__}. Pass the function itself, without calling it."
        print(msg)
        return CheckResult(name, False, len(cases), 0, msg)
    for k, case in enumerate(cases):
        where = f"case {k + 1}/{len(cases)} ({case.label})"
        try:
            got = fn(*case.args, **case.kwargs)
        except NotImplementedError:
            msg = f"{FAIL} {name}: not done yet - replace `raise NotImplementedError` with your code."
            print(msg)
            return CheckResult(name, False, len(cases), k, msg)
        except Exception as exc:  # the learner's bug must not stop the notebook
            reason = f"your function raised {type(exc).__name__}: {exc}"
        else:
            reason = _compare(got, case.expected, atol, rtol)
        if reason:
            hint = case.hint or general_hint
            msg = f"{FAIL} {name}: {where}: {reason}." + (f"\n   Hint: {hint}" if hint else "")
            print(msg)
            return CheckResult(name, False, len(cases), k, msg)
    msg = f"{PASS} {name}: all {len(cases)} hidden cases pass."
    print(msg)
    return CheckResult(name, True, len(cases), len(cases), msg)


def check_array(name: str, got, expected, *, atol: float = 1e-3, rtol: float = 0.0, hint: str = "") -> CheckResult:
    """Check a value the learner computed (not a function) against a hidden reference."""
    return run_check(name, lambda: got, [Case("your value", (), expected, hint)], atol=atol, rtol=rtol)
