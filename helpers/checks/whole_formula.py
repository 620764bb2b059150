"""Self-checks for the 2.7 exercises: the five steps, and counting parameters."""

from __future__ import annotations

import numpy as np

from ..attention import self_attention
from ..book import example_inputs
from ..shapes import qkv_parameter_count
from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_five_steps", "check_qkv_parameter_count"]


@float_safe
def check_five_steps(fn) -> CheckResult:
    """Check a learner's ``fn(X, W_Q, W_K, W_V) -> output`` built from the five steps.

    ``X`` has shape (T, d_model), ``W_Q``/``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v);
    the result must have shape (T, d_v).
    """
    rng = np.random.default_rng(20260207)
    book = example_inputs()
    X1 = rng.normal(size=(5, 6))
    W1 = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    X2 = rng.normal(size=(1, 4))
    W2 = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    X3 = rng.normal(size=(6, 8))
    W3 = rng.normal(size=(8, 16)), rng.normal(size=(8, 16)), rng.normal(size=(8, 2))
    # large scores: rows whose scores lie far below the largest score of the whole matrix
    X4 = rng.normal(size=(5, 4)) * np.array([[1.0], [40.0], [1.0], [-40.0], [3.0]])
    W4 = rng.normal(size=(4, 3)) * 8.0, rng.normal(size=(4, 3)) * 8.0, rng.normal(size=(4, 6))
    cases = [
        Case("书中 4 个 token 的例子", (book["X"], book["W_Q"], book["W_K"], book["W_V"]),
             self_attention(book["X"], book["W_Q"], book["W_K"], book["W_V"]).output,
             "五步依次是：投影得到查询、键、值 → 点积分数 → 除以 √d_k → 每一行做 softmax → 用权重对值加权求和。"),
        Case("d_v != d_k（T=5，d_model=6，d_k=3，d_v=4）", (X1, *W1), self_attention(X1, *W1).output,
             "d_k 是查询和键的宽度，不是值的宽度，也不是 d_model 或 T；输出的宽度是值的宽度 d_v。"),
        Case("只有一个 token（T=1）", (X2, *W2), self_attention(X2, *W2).output,
             "只有一个 token 时它的唯一权重是 1，输出就是它自己的值向量。"),
        Case("更大的 d_k = 16", (X3, *W3), self_attention(X3, *W3).output,
             "除以 √d_k（这里 d_k = 16，是键的宽度），而不是 d_k；并且对每一行（而不是每一列）归一化。"),
        Case("分数很大、各行相差很远", (X4, *W4), self_attention(X4, *W4).output,
             "取指数之前减去每一行自己的最大值：减整个矩阵的最大值会让远低于它的行下溢成 0/0，不减则会溢出。"),
    ]
    return run_check("check_five_steps", fn, cases, atol=1e-8, rtol=1e-6)


@float_safe
def check_qkv_parameter_count(fn) -> CheckResult:
    """Check a learner's ``fn(d_model, d_k, d_v) -> int``: entries of W_Q, W_K, W_V (one head, no bias)."""
    cases = [
        Case("d_model=4，d_k=d_v=2（书中的例子）", (4, 2, 2), qkv_parameter_count(4, 2, 2),
             "三个矩阵的形状分别是 (d_model, d_k)、(d_model, d_k)、(d_model, d_v)：把它们的元素个数加起来。"),
        Case("d_model=8，d_k=3，d_v=4", (8, 3, 4), qkv_parameter_count(8, 3, 4),
             "W_V 有 d_v 列，它不一定等于 d_k。"),
        Case("768 宽模型的一个头，d_k=d_v=64", (768, 64, 64), qkv_parameter_count(768, 64, 64),
             "每个矩阵的元素个数是行数乘列数；这里没有偏置（bias）。"),
        Case("d_model=4096，d_k=d_v=128", (4096, 128, 128), qkv_parameter_count(4096, 128, 128),
             "参数个数与 token 个数 T 无关。"),
    ]
    return run_check("check_qkv_parameter_count", fn, cases, atol=0.0, rtol=0.0)
