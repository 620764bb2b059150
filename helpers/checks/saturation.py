"""Self-checks for the exercises of 2.5 (scaling by sqrt(d_k)) and 2.6 (softmax as normalisation).

    from helpers.checks.saturation import check_dot_variance, check_scaled_scores
    from helpers.checks.saturation import check_softmax_jacobian, check_is_attention_matrix

Each check runs the learner's function on hidden cases and prints one verdict
line (plus a hint on failure, in Chinese). The expected values are never printed.
"""

from __future__ import annotations

import math

import numpy as np

from ..softmax import softmax, softmax_jacobian
from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_dot_variance", "check_scaled_scores", "check_softmax_jacobian", "check_is_attention_matrix"]


@float_safe
def check_dot_variance(fn) -> CheckResult:
    """Check ``fn(d_k, var_q, var_k) -> float``: Var(q . k) for independent zero-mean components.

    The answer is exact (the derivation of 2.5 generalised to component variances
    ``var_q`` and ``var_k``), so it is compared at relative error 1e-9: a constant-factor
    error (1.04 x) or a Monte Carlo estimate does not pass. The cases separate the classic
    slips: the sum of the variances instead of the product, forgetting d_k or var_k,
    sqrt(d_k) instead of d_k, standard deviations mixed up with variances.
    """
    cases = [
        Case("单位方差，d_k = 64", (64, 1.0, 1.0), 64.0,
             "每一项 q_i k_i 的方差等于 E[q_i²]·E[k_i²]；d_k 项彼此独立，独立项的方差相加。"),
        Case("单位方差，d_k = 1", (1, 1.0, 1.0), 1.0, "只有一项时，就是 Var(q_1 k_1) 本身。"),
        Case("var_q = 4，var_k = 1，d_k = 16", (16, 4.0, 1.0), 64.0,
             "一项的方差是两个分量方差的乘积，而不是它们的和；也不要把方差当成标准差再平方。"),
        Case("var_q = 0.25，var_k = 0.5，d_k = 1024", (1024, 0.25, 0.5), 128.0,
             "两个方差都要用上：Var(q·k) 是 d_k 个相同的项之和，每一项的方差由两个方差共同决定。"),
        Case("var_q = 2，var_k = 3，d_k = 3", (3, 2.0, 3.0), 18.0,
             "方差随项数 d_k 线性增长（不是随 √d_k）；这里要的是精确公式，不是模拟估计。"),
        Case("整数输入：var_q = 3，var_k = 5，d_k = 7", (7, 3, 5), 105.0,
             "这是一个精确的公式，与随机数无关：同样的输入应给出同样的、精确的结果。"),
        Case("结果不是整数：var_q = 0.3，var_k = 0.7，d_k = 5", (5, 0.3, 0.7), 5 * 0.3 * 0.7,
             "方差不一定是整数：不要取整或做整除，直接返回浮点数。", rtol=1e-6),
    ]
    return run_check("check_dot_variance", fn, cases, atol=0.0, rtol=1e-9)


@float_safe
def check_scaled_scores(fn) -> CheckResult:
    """Check ``fn(Q, K) -> (T_q, T_kv)``: the scores Q K^T / sqrt(d_k) for Q (T_q, d_k), K (T_kv, d_k).

    T_q, T_kv and d_k differ from each other in most cases, so scaling by the wrong
    dimension, by d_k instead of sqrt(d_k), or transposing the result is caught.
    """
    rng = np.random.default_rng(20260215)
    cases = []
    for label, (tq, tk, d), hint in [
        ("T_q = T_kv = 4，d_k = 16", (4, 4, 16),
         "第 i 行第 j 列是查询 i 与键 j 的点积再缩放；行对应查询（query），列对应键（key），别把结果转置。"),
        ("T_q = 2，T_kv = 5，d_k = 64", (2, 5, 64),
         "结果形状应为 (T_q, T_kv)；缩放因子是 d_k 的平方根，而不是 d_k 本身。"),
        ("d_k = 1", (3, 3, 1), "d_k = 1 时缩放因子为 1：只剩下查询与键的点积，形状仍为 (T_q, T_kv)。"),
        ("T_q = 3，T_kv = 6，d_k = 1024", (3, 6, 1024),
         "d_k 是查询和键的宽度（最后一个轴的长度），不是 token 的个数 T_q 或 T_kv。"),
        ("T_q = 5，T_kv = 2，d_k = 9", (5, 2, 9),
         "缩放要用 √d_k：除以 d_k 会把分数压得过小，不缩放则方差随 d_k 增大。"),
    ]:
        Q, K = rng.normal(size=(tq, d)), rng.normal(size=(tk, d))
        cases.append(Case(label, (Q, K), Q @ K.T / math.sqrt(d), hint))
    Q32, K32 = rng.normal(size=(3, 8)).astype(np.float32), rng.normal(size=(4, 8)).astype(np.float32)
    expected32 = Q32.astype(float) @ K32.astype(float).T / math.sqrt(8)
    cases.append(Case("float32 输入，T_q = 3，T_kv = 4，d_k = 8", (Q32, K32), expected32,
                      "float32 输入也应给出同样的分数（在 float32 精度内）。", atol=1e-5, rtol=1e-5))
    return run_check("check_scaled_scores", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="先算每个查询与每个键的点积，再除以键宽度的平方根。")


@float_safe
def check_softmax_jacobian(fn) -> CheckResult:
    """Check ``fn(a) -> (T, T)``: J[i, j] = a_i (delta_ij - a_j) for softmax weights a of shape (T,)."""
    rng = np.random.default_rng(20260225)
    a5 = softmax(rng.normal(size=5))
    a4 = softmax(rng.normal(size=4) * 2)
    sat = softmax(np.array([50.0, 40.0, 0.0]))
    cases = [
        Case("两个相等的权重", (np.array([0.5, 0.5]),), softmax_jacobian(np.array([0.5, 0.5])),
             "对角元是 a_i (1 - a_i)，非对角元是 -a_i a_j。"),
        Case("独热（one-hot）权重", (np.array([0.0, 1.0, 0.0]),), np.zeros((3, 3)),
             "权重是独热向量时，J 的每一个元素都是 0。"),
        Case("5 个随机权重", (a5,), softmax_jacobian(a5),
             "J 由两部分组成：以 a 为对角线的对角矩阵，减去 a 与自身的外积（outer product）；两部分缺一不可。"),
        Case("4 个权重，行和列要分清", (a4,), softmax_jacobian(a4),
             "把对角线上的 a_i 和外积 a_i a_j 都放进来；不要只保留对角线，也不要漏掉负号。"),
        Case("接近饱和的一行", (sat,), softmax_jacobian(sat),
             "输入已经是 softmax 权重：直接使用它，不要再做一次 softmax。"),
    ]
    return run_check("check_softmax_jacobian", fn, cases, atol=1e-12, rtol=1e-9)


@float_safe
def check_is_attention_matrix(fn) -> CheckResult:
    """Check ``fn(A) -> bool``: True iff every ROW of A is non-negative and sums to 1 (within 1e-6).

    The False cases have a defect far outside any reasonable tolerance (row sums off by
    0.3 or 1e-3, a column-normalised matrix, a negative weight, NaN), the True cases carry
    only float rounding (1e-12), so tolerances between 1e-9 and 1e-4 all pass.
    """
    rng = np.random.default_rng(20260206)
    S = rng.normal(size=(4, 4)) * 3
    good = softmax(S, axis=-1)
    wrong_axis = softmax(S, axis=0)
    negative = good.copy()
    negative[0] = [1.2, -0.2, 0.0, 0.0]
    negative_below_one = good.copy()
    negative_below_one[1] = [0.6, 0.6, -0.2, 0.0]  # every entry <= 1: an upper-bound test does not notice
    rect = softmax(rng.normal(size=(2, 5)))
    wrong_axis_rect = softmax(rng.normal(size=(5, 2)), axis=0)  # (5, 2): its columns sum to 1
    plus_03 = good.copy()
    plus_03[1] *= 1.3
    minus_03 = good.copy()
    minus_03[2] *= 0.7
    shuffled = good.copy()
    shuffled[0] *= 1.3
    shuffled[3] *= 0.7  # total mass still T: only a per-row test notices
    small_off = rect.copy()
    small_off[1] *= 1.001
    rounding = good.copy()
    rounding[:, 0] += 1e-12
    nan_row = good.copy()
    nan_row[2] = np.nan
    cases = [
        Case("按行做的 softmax", (good,), True, "注意力矩阵的每一行都非负且和为 1，应返回 True。"),
        Case("按列做的 softmax（错轴 bug）", (wrong_axis,), False,
             "这个矩阵每一列的和为 1，每一行却不是：要检查的是行和（最后一个轴），不是列和。"),
        Case("行和都为 1，但有一个权重为负", (negative,), False, "权重还必须非负：每一个元素都要 ≥ 0。"),
        Case("行和都为 1，每个元素都不超过 1，但有一个权重为负", (negative_below_one,), False,
             "检查的是“非负”（每个元素 ≥ 0），而不是“不超过 1”：和为 1 的一行里仍可能有负数。"),
        Case("长方形矩阵（T_q = 2，T_kv = 5）", (rect,), True, "矩阵每个查询一行，不必是方阵。"),
        Case("单位矩阵", (np.eye(3),), True, "独热（one-hot）的行是合法的注意力行：0 也是允许的非负数。"),
        Case("有一行的和是 1.3", (plus_03,), False, "逐行检查和是否为 1，而不是只看非负或只看形状。"),
        Case("有一行的和是 0.7", (minus_03,), False, "逐行检查和是否为 1（在容差 1e-6 之内）。"),
        Case("总和为 T，但有两行分别是 1.3 和 0.7", (shuffled,), False,
             "整个矩阵的总和或行和的平均值为 1 并不够：每一行都必须各自和为 1。"),
        Case("有一行的和是 1.001", (small_off,), False, "容差是 1e-6：差 0.001 已经远超容差。"),
        Case("只有 1e-12 的浮点舍入误差", (rounding,), True,
             "浮点数相加有舍入误差：比较行和时要留一点容差，不要要求严格相等。"),
        Case("有一行全是 NaN（0/0）", (nan_row,), False, "NaN 既不是非负数，也不会和为 1：应返回 False。"),
        Case("长方形矩阵（5 × 2），列和为 1", (wrong_axis_rect,), False,
             "长方形矩阵的行和与列和长度不同：沿最后一个轴（每个查询的一行）求和。"),
    ]
    return run_check("check_is_attention_matrix", fn, cases, atol=0.0, rtol=0.0)
