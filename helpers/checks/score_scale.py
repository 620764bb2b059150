"""Self-check for the 2.5 transfer exercise: the score scale when q and k have other variances.

    from helpers.checks import check_score_scale

The learner writes ``score_scale(d_k, var_q, var_k)``: the factor c that makes
``Var(c * q . k) = 1`` when q and k have independent, zero-mean components with
variances ``var_q`` and ``var_k``. The cases reject the classic wrong answers:
dividing by d_k instead of its square root, ignoring the variances, summing
them instead of multiplying, forgetting the square root on the variances.
"""

from __future__ import annotations

import math

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_score_scale"]


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
