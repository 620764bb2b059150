"""Self-checks for exercises about softmax (chapter 2.5-2.6)."""

from __future__ import annotations

import numpy as np

from ..softmax import softmax
from .core import Case, CheckResult, run_check

__all__ = ["check_softmax"]


def check_softmax(fn) -> CheckResult:
    """Check a learner's row-wise softmax ``fn(x) -> weights`` for x of shape (..., n)."""
    rng = np.random.default_rng(20260202)
    rows = rng.normal(size=(3, 5))
    big = np.array([[1e4, -1e4, 0.0, 9999.0]], dtype=np.float32)
    masked = np.array([[0.5, -np.inf, 1.5, -np.inf]])
    cases = [
        Case("a single row of 4 scores", (np.array([1.0, 2.0, 3.0, 4.0]),), softmax(np.array([1.0, 2.0, 3.0, 4.0])),
             "exponentiate, then divide by the sum of the exponentials."),
        Case("3 rows of 5 scores", (rows,), softmax(rows),
             "normalise each row on its own: sum over axis=-1 with keepdims=True."),
        Case("equal scores", (np.zeros((2, 6)),), np.full((2, 6), 1 / 6),
             "equal scores must give equal weights."),
        Case("huge scores (+-1e4, float32)", (big,), softmax(big),
             "np.exp(1e4) overflows to inf: subtract each row's maximum before exponentiating."),
        Case("masked scores (-inf)", (masked,), softmax(masked),
             "exp(-inf) is 0, so a -inf score should get weight exactly 0."),
    ]
    return run_check("check_softmax", fn, cases, atol=1e-6, rtol=1e-5)
