"""Self-checks for 2.9 (properties of self-attention): permutation matrices, the memory of the score
matrices, the dependency pattern, and attention with a distance bias (transfer)."""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_distance_bias_attention", "check_permutation_matrix", "check_score_matrix_bytes",
           "check_dependency_pattern"]


def _reference(Q, K, V, slope):
    T_q, T_k = Q.shape[0], K.shape[0]
    dist = np.abs(np.arange(T_q)[:, None] - np.arange(T_k)[None, :])
    S = Q @ K.T / np.sqrt(Q.shape[1]) - slope * dist
    return H.softmax(S) @ V


def check_distance_bias_attention(fn) -> CheckResult:
    """Check ``fn(Q, K, V, slope) -> output`` of shape (T, d_v).

    The scores are ``Q K^T / sqrt(d_k) - slope * |i - j|`` (a penalty that grows with the
    distance between query position i and key position j), then a row-wise softmax and the
    weighted sum of the rows of V. Q, K have shape (T, d_k), V (T, d_v), slope >= 0.
    """
    rng = np.random.default_rng(20260209)
    Q1, K1, V1 = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    Q2, K2, V2 = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    Q3, K3, V3 = 4.0 * rng.normal(size=(4, 2)), 4.0 * rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    Q4, K4, V4 = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    Q4[0] = 3000.0 * K4[1] / np.linalg.norm(K4[1])       # query 1 aims at key 2: its top score sits > 1000 above other rows'
    cases = [
        Case("slope = 0（没有位置偏置）", (Q1, K1, V1, 0.0), _reference(Q1, K1, V1, 0.0),
             "slope 为 0 时应当就是普通的缩放点积注意力：分数要除以 √d_k，softmax 沿每一行（对键）做。"),
        Case("slope = 0.5", (Q1, K1, V1, 0.5), _reference(Q1, K1, V1, 0.5),
             "偏置加在 softmax 之前的分数上，而且是减去：离得越远（|i−j| 越大）分数越低。"
             "偏置只看位置差，与 i、j 谁大谁小无关。"),
        Case("T = 6、d_v = 3、slope = 1.5", (Q2, K2, V2, 1.5), _reference(Q2, K2, V2, 1.5),
             "检查距离矩阵的形状是 (T, T)，第 i 行第 j 列是 |i−j|；缩放只作用在点积上，不作用在偏置上。"),
        Case("分数很大（数值稳定性）", (Q3, K3, V3, 0.3), _reference(Q3, K3, V3, 0.3),
             "先减去每一行自己的最大值再取指数，避免溢出。"),
        Case("一行的分数比其他行高出一千以上", (Q4, K4, V4, 0.5), _reference(Q4, K4, V4, 0.5),
             "每一行减去的应当是这一行自己的最大值：减去整个矩阵的最大值时，分数低得多的行取指数后全部下溢成 0，得到 0/0。"),
    ]
    return run_check("check_distance_bias_attention", fn, cases, atol=1e-8, rtol=1e-8,
                     general_hint="分数 = 点积/√d_k − slope·|i−j|，然后逐行 softmax，再乘 V。")


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
