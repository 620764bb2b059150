"""Self-checks for exercises about softmax (chapter 2.5-2.6)."""

from __future__ import annotations

import numpy as np

from ..softmax import softmax
from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_softmax"]

_ROW_HINT = "每一行单独归一化：只在最后一个轴（各个键）上求和，并保持维度以便逐行相除。"
_ROW_MAX_HINT = ("减去的应是每一行自己的最大值（per-row max），而不是整个数组的最大值（global max）："
                 "一行若远低于全局最大值，它的 exp 会全部下溢成 0，得到 0/0。")


@float_safe
def check_softmax(fn) -> CheckResult:
    """Check a learner's softmax ``fn(x) -> weights`` along the last axis, for x of shape (..., n).

    Hidden cases reject: global instead of per-row max (rows far below the global max),
    no max subtraction (overflow), the wrong axis (square and 3-d inputs), a sum without
    kept dimensions (square input), -inf not giving weight 0, changing ``x`` in place.
    A float32 input is compared at float32 precision.
    """
    rng = np.random.default_rng(20260202)
    rows = rng.normal(size=(3, 5))
    square = rng.normal(size=(4, 4)) * 2.0
    batch = rng.normal(size=(2, 3, 4))
    far_apart = np.array([[0.0, 1.0, -0.5], [-1000.0, -1001.0, -1000.5], [3.0, 2.0, 1.0]])
    big = np.array([[1e4, -1e4, 0.0, 9999.0], [-9000.0, -9001.0, -9002.0, -9003.0]], dtype=np.float32)
    masked = np.array([[0.5, -np.inf, 1.5, -np.inf], [-np.inf, 2.0, 2.0, 0.0]])
    row = np.array([1.0, 2.0, 3.0, 4.0])
    cases = [
        Case("一行 4 个分数", (row,), softmax(row),
             "先对每个分数取指数，再除以这些指数之和，权重之和应为 1。"),
        Case("3 行、每行 5 个分数", (rows,), softmax(rows), _ROW_HINT),
        Case("方阵：4 行 4 列", (square,), softmax(square),
             "方阵最能暴露轴的错误：每一行（而不是每一列）的和应为 1；按行求和后要保持维度再相除。"),
        Case("分数全相等", (np.zeros((2, 6)),), np.full((2, 6), 1 / 6), "分数相同，权重也应该相同。"),
        Case("相差很远的行（一行约为 -1000，另一行约为 1）", (far_apart,), softmax(far_apart), _ROW_MAX_HINT),
        Case("很大的分数（±1e4，float32）", (big,), softmax(big),
             "exp(1e4) 会溢出成 inf：取指数之前先减去每一行的最大值（数学上结果不变）。", atol=1e-7, rtol=1e-5),
        Case("被掩码的分数（-inf）", (masked,), softmax(masked),
             "exp(-inf) = 0，所以分数为 -inf 的位置权重应恰好为 0，其余位置照常归一化。"),
        Case("三维输入：2 批 × 3 行 × 4 个分数", (batch,), softmax(batch),
             "输入形状是 (..., n)：始终沿最后一个轴归一化，不要写死第 1 轴或第 0 轴。"),
    ]
    return run_check("check_softmax", fn, cases, atol=1e-9, rtol=1e-6)
