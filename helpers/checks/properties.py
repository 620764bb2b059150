"""Self-checks for the exercises about the properties of self-attention (chapter 2.9).

``from helpers.checks.properties import check_permutation_matrix, check_score_matrix_bytes,
check_dependency_pattern``
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_permutation_matrix", "check_score_matrix_bytes", "check_dependency_pattern"]


@float_safe
def check_permutation_matrix(fn) -> CheckResult:
    """Check a learner's ``fn(perm) -> P`` with ``P @ X == X[perm]`` (P of shape (T, T))."""
    hint = ("P 的第 i 行要挑出 X 的第 perm[i] 行，所以第 i 行唯一的 1 在第 perm[i] 列"
            "（如果你得到的是转置，那是逆置换（inverse））。")
    perms = [[0, 1, 2], [1, 0], [2, 0, 3, 1], [0], [4, 2, 0, 1, 3]]
    cases = [Case(f"perm = {p}", (np.array(p),), np.eye(len(p))[p], hint) for p in perms]
    cases.append(Case("perm 以列表（list）给出：[1, 2, 0]", ([1, 2, 0],), np.eye(3)[[1, 2, 0]], hint))
    return run_check("check_permutation_matrix", fn, cases, atol=0.0, rtol=0.0)


@float_safe
def check_score_matrix_bytes(fn) -> CheckResult:
    """Check a learner's ``fn(T, itemsize, batch=1, heads=1) -> int``: bytes of all score matrices."""
    hint = "一个分数矩阵有 T × T 个数，每个数占 itemsize 个字节（不是比特）；每个序列、每个头各有一个分数矩阵。"
    cases = [
        Case("T = 4, float64", (4, 8), 4 * 4 * 8, hint),
        Case("T = 10,000, float32", (10_000, 4), 10_000 * 10_000 * 4, hint),
        Case("T = 16, float32, batch 3, 1 个头", (16, 4), 3 * 16 * 16 * 4, hint, {"batch": 3}),
        Case("T = 10,000, float64", (10_000, 8), 10_000 * 10_000 * 8, hint),
        Case("T = 4096, float16, batch 8, 32 heads", (4096, 2), 8 * 32 * 4096 * 4096 * 2, hint,
             {"batch": 8, "heads": 32}),
    ]
    return run_check("check_score_matrix_bytes", fn, cases, atol=0.0, rtol=0.0)


@float_safe
def check_dependency_pattern(fn) -> CheckResult:
    """Check a learner's ``fn(T, causal) -> D``: boolean (T, T), ``D[i, j]`` = output i depends on token j."""
    hint = ("没有掩码时，每个输出都混合了所有 token；有因果掩码时，输出 i 只混合第 1 到第 i 个 token"
            "（包括它自己，不包括未来）。")
    cases = []
    for T, causal in [(1, False), (4, False), (1, True), (4, True), (6, True)]:
        D = np.array([[(j <= i) or not causal for j in range(T)] for i in range(T)])
        cases.append(Case(f"T = {T}, causal = {causal}", (T, causal), D, hint))
    return run_check("check_dependency_pattern", fn, cases, atol=0.0, rtol=0.0)
