"""Self-checks for 2.5 (scaling by sqrt(d_k)): Var(q . k), the score scale for other variances, the scaled
scores, and the softmax Jacobian.

The learner's ``score_scale(d_k, var_q, var_k)`` returns the factor c that makes ``Var(c * q . k) = 1`` when
q and k have independent, zero-mean components with variances ``var_q`` and ``var_k``.
"""

from __future__ import annotations

import math

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_dot_variance", "check_score_scale", "check_scaled_scores", "check_softmax_jacobian"]


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


def check_score_scale(fn) -> CheckResult:
    """Check ``fn(d_k, var_q, var_k) -> float``: c with Var(c q.k) = 1 for independent zero-mean components."""
    rng = np.random.default_rng(20260505)
    q = rng.normal(scale=math.sqrt(3.0), size=(20000, 8))
    k = rng.normal(scale=math.sqrt(0.5), size=(20000, 8))
    mc = 1.0 / float(np.std(np.sum(q * k, axis=1)))  # close to 1 / sqrt(8 * 3 * 0.5) = 1 / sqrt(12)
    cases = [
        Case("单位方差，d_k = 64", (64, 1.0, 1.0), 1 / 8.0,
             "单位方差时就是正文里的缩放因子。想一想：要让方差变成 1，乘的是标准差的倒数还是方差的倒数？"),
        Case("单位方差，d_k = 1", (1, 1.0, 1.0), 1.0, "只有一项、方差为 1 时，不需要任何缩放。"),
        Case("var_q = 4，var_k = 1，d_k = 16", (16, 4.0, 1.0), 1 / 8.0,
             "分量方差不再是 1：先写出 Var(q·k)（每一项的方差是两个方差的乘积，不是和），再决定除以什么。"),
        Case("var_q = 0.25，var_k = 4，d_k = 256", (256, 0.25, 4.0), 1 / 16.0,
             "方差 var_q·var_k 会进入 Var(q·k)；缩放因子要同时抵消 d_k 和它们。"),
        Case("var_q = 2，var_k = 0.5，d_k = 1", (1, 2.0, 0.5), 1.0,
             "两个方差的乘积是 1 时，结果应与单位方差相同——检查你是把它们相乘还是相加。"),
        Case("与蒙特卡洛模拟对照（d_k = 8，var_q = 3，var_k = 0.5）", (8, 3.0, 0.5), mc,
             "用 20000 个模拟点积的标准差核对：c·(q·k) 的标准差应为 1。", rtol=0.02),
    ]
    # exact cases: a tight tolerance (float32 arithmetic passes, a 1 % constant-factor error does not);
    # only the Monte Carlo case, with its ~0.5 % sampling error, gets 2 %
    return run_check("check_score_scale", fn, cases, atol=0.0, rtol=1e-5)


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
    a5 = H.softmax(rng.normal(size=5))
    a4 = H.softmax(rng.normal(size=4) * 2)
    sat = H.softmax(np.array([50.0, 40.0, 0.0]))
    cases = [
        Case("两个相等的权重", (np.array([0.5, 0.5]),), H.softmax_jacobian(np.array([0.5, 0.5])),
             "对角元是 a_i (1 - a_i)，非对角元是 -a_i a_j。"),
        Case("独热（one-hot）权重", (np.array([0.0, 1.0, 0.0]),), np.zeros((3, 3)),
             "权重是独热向量时，J 的每一个元素都是 0。"),
        Case("5 个随机权重", (a5,), H.softmax_jacobian(a5),
             "J 由两部分组成：以 a 为对角线的对角矩阵，减去 a 与自身的外积（outer product）；两部分缺一不可。"),
        Case("4 个权重，行和列要分清", (a4,), H.softmax_jacobian(a4),
             "把对角线上的 a_i 和外积 a_i a_j 都放进来；不要只保留对角线，也不要漏掉负号。"),
        Case("接近饱和的一行", (sat,), H.softmax_jacobian(sat),
             "输入已经是 softmax 权重：直接使用它，不要再做一次 softmax。"),
    ]
    return run_check("check_softmax_jacobian", fn, cases, atol=1e-12, rtol=1e-9)
