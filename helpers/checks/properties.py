"""Self-checks for the exercises about the properties of self-attention (chapter 2.9).

``from helpers.checks.properties import check_permutation_matrix, check_score_matrix_bytes,
check_dependency_pattern``
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_permutation_matrix", "check_score_matrix_bytes", "check_dependency_pattern"]


def check_permutation_matrix(fn) -> CheckResult:
    """Check a learner's ``fn(perm) -> P`` with ``P @ X == X[perm]`` (P of shape (T, T))."""
    hint = "row i of P must pick row perm[i] of X, i.e. P[i, perm[i]] = 1 (if you got P.T, you built the inverse)."
    perms = [[0, 1, 2], [1, 0], [2, 0, 3, 1], [0], [4, 2, 0, 1, 3]]
    cases = [Case(f"perm = {p}", (np.array(p),), np.eye(len(p))[p], hint) for p in perms]
    return run_check("check_permutation_matrix", fn, cases, atol=0.0, rtol=0.0)


def check_score_matrix_bytes(fn) -> CheckResult:
    """Check a learner's ``fn(T, itemsize, batch=1, heads=1) -> int``: bytes of all score matrices."""
    hint = "one score matrix holds T * T numbers of `itemsize` bytes each; there is one per sequence and per head."
    cases = [
        Case("T = 4, float64", (4, 8), 4 * 4 * 8, hint),
        Case("T = 10,000, float32", (10_000, 4), 10_000 * 10_000 * 4, hint),
        Case("T = 10,000, float64", (10_000, 8), 10_000 * 10_000 * 8, hint),
        Case("T = 4096, float16, batch 8, 32 heads", (4096, 2), 8 * 32 * 4096 * 4096 * 2, hint,
             {"batch": 8, "heads": 32}),
    ]
    return run_check("check_score_matrix_bytes", fn, cases, atol=0.0, rtol=0.0)


def check_dependency_pattern(fn) -> CheckResult:
    """Check a learner's ``fn(T, causal) -> D``: boolean (T, T), ``D[i, j]`` = output i depends on token j."""
    hint = ("without a mask every output row mixes every token; with the causal mask output i mixes "
            "tokens 1..i only (itself included).")
    cases = []
    for T, causal in [(1, False), (4, False), (1, True), (4, True), (6, True)]:
        D = np.array([[(j <= i) or not causal for j in range(T)] for i in range(T)])
        cases.append(Case(f"T = {T}, causal = {causal}", (T, causal), D, hint))
    return run_check("check_dependency_pattern", fn, cases, atol=0.0, rtol=0.0)
