"""Self-checks for the exercises of 2.1 (contextual vectors) and 2.2 (soft lookup).

``check_cosine`` is the package's only cosine check (2.1's first exercise).

    from helpers.checks.lookup import check_cosine, check_contextual_mix
    from helpers.checks.lookup import check_soft_lookup, check_soft_lookup_jacobian

Each check runs the learner's function on hidden cases and prints one verdict
line (plus a hint on failure). The expected values are never printed.
"""

from __future__ import annotations

import numpy as np

from ..contextual import contextual_mix
from ..geometry import cosine_similarity
from ..soft_lookup import soft_lookup, soft_lookup_jacobian
from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_cosine", "check_contextual_mix", "check_soft_lookup", "check_soft_lookup_jacobian"]


@float_safe
def check_cosine(fn) -> CheckResult:
    """Check ``fn(a, b) -> float``: the cosine of the angle between two vectors of shape (d,)."""
    rng = np.random.default_rng(20260201)
    a, b = rng.normal(size=7), rng.normal(size=7)
    cases = [
        Case("方向相同、长度不同", (np.array([1.0, 2.0, 2.0]), np.array([3.0, 6.0, 6.0])), 1.0,
             "余弦与长度无关：点积要同时除以两个（BOTH）向量的长度（欧几里得范数）。"),
        Case("正交的向量", (np.array([1.0, 0.0, 0.0]), np.array([0.0, 5.0, 0.0])), 0.0,
             "从点积出发：正交向量的点积是 0，余弦也应是 0（不是角度，也不是 1 - 余弦）。"),
        Case("方向相反的向量", (np.array([0.0, 3.0, -4.0]), np.array([0.0, -1.5, 2.0])), -1.0,
             "不要取绝对值：方向相反时余弦是负数（negative cosine）。"),
        Case("两个 7 维向量", (a, b), cosine_similarity(a, b),
             "逐元素乘积之和，除以两个欧几里得范数的乘积（不是范数的平方）。"),
        Case("很长的向量（长度约 1000）", (1000.0 * a, 500.0 * b), cosine_similarity(a, b),
             "余弦完全不依赖长度：要同时除以两个（BOTH）向量的长度，也不要对点积做截断。"),
    ]
    return run_check("check_cosine", fn, cases, atol=1e-9, rtol=1e-9)


@float_safe
def check_contextual_mix(fn) -> CheckResult:
    """Check ``fn(weights, vectors) -> (d,)``: the weighted sum sum_j weights[j] * vectors[j]."""
    rng = np.random.default_rng(20260211)
    X = rng.normal(size=(4, 3))
    w = rng.dirichlet(np.ones(4))
    X_wide = rng.normal(size=(3, 5))
    w3 = rng.dirichlet(np.ones(3))
    cases = [
        Case("权重全在 token 2 上", (np.array([0.0, 0.0, 1.0, 0.0]), X), X[2],
             "权重 j 乘的是 vectors 的第 j 行（ROW j，即 token j 的向量）。"),
        Case("均匀权重", (np.full(4, 0.25), X), X.mean(axis=0),
             "权重相等时，结果应是各 token 向量的普通平均。"),
        Case("4 个 token，d = 3", (w, X), contextual_mix(w, X),
             "结果每个维度（长度 d）一个数，而不是每个 token 一个数。"),
        Case("3 个 token，d = 5", (w3, X_wide), contextual_mix(w3, X_wide),
             "vectors 的形状是 (T, d)：权重要和它的第一个轴（token 轴）配对求和。"),
    ]
    return run_check("check_contextual_mix", fn, cases, atol=1e-9, rtol=1e-9)


@float_safe
def check_soft_lookup(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature) -> output`` of shape (d_v,): softmax(K q / temperature) @ V."""
    rng = np.random.default_rng(20260202)
    q, K, V = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    q5, K5, V5 = rng.normal(size=2), rng.normal(size=(5, 2)), rng.normal(size=(5, 3))
    K_neg = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    q_neg = np.array([2.0, -1.0])
    V_neg = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    K_big = np.array([[10.0, 0.0], [9.0, 0.0], [0.0, 10.0]])
    q_big = np.array([1.0, 0.5])
    V_big = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    cases = [
        Case("4 个键，温度 1", (q, K, V, 1.0), soft_lookup(q, K, V, 1.0).output,
             "分数是查询与每个键的点积；权重是分数的 softmax；输出是用权重对值向量加权求和。"),
        Case("同样的键，温度 2", (q, K, V, 2.0), soft_lookup(q, K, V, 2.0).output,
             "温度（temperature）在 softmax 之前除分数（temperature divides）；温度越高，权重越平。"),
        Case("有负的相似度", (q_neg, K_neg, V_neg, 1.0), soft_lookup(q_neg, K_neg, V_neg, 1.0).output,
             "分数直接除以分数之和，遇到负分数就不成立；先取指数（softmax），每个权重才都为正。"),
        Case("很小的温度 1e-3（分数可达 1e4）", (q_big, K_big, V_big, 1e-3),
             soft_lookup(q_big, K_big, V_big, 1e-3).output,
             "分数约 1e4 时 exp 会溢出：取指数之前先减去最大的分数（subtract the largest score）。"),
        Case("5 个键，d_k = 2，d_v = 3", (q5, K5, V5, 0.5), soft_lookup(q5, K5, V5, 0.5).output,
             "返回值向量的加权和（形状 (d_v,)），而不是权重本身（形状 (n,)）。"),
    ]
    return run_check("check_soft_lookup", fn, cases, atol=1e-8, rtol=1e-6)


@float_safe
def check_soft_lookup_jacobian(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature) -> J`` of shape (d_v, d_k), J[a, b] = d output[a] / d q[b]."""
    rng = np.random.default_rng(20260222)
    q, K, V = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    q2, K2, V2 = rng.normal(size=2), rng.normal(size=(5, 2)), rng.normal(size=(5, 4))
    cases = [
        Case("4 个键，温度 1", (q, K, V, 1.0), soft_lookup_jacobian(q, K, V, 1.0),
             "链式法则（chain rule）分三段：输出对权重、权重对分数（softmax 的雅可比）、分数对查询；三段依次相乘。"),
        Case("同样的键，温度 0.5", (q, K, V, 0.5), soft_lookup_jacobian(q, K, V, 0.5),
             "分数是点积除以温度，所以链式法则会带出一个因子 1 / temperature。"),
        Case("d_k = 2，d_v = 4", (q2, K2, V2, 1.0), soft_lookup_jacobian(q2, K2, V2, 1.0),
             "J[a, b] 是输出第 a 个分量对查询第 b 个分量的导数：行对应值的维度（d_v），列对应查询的维度（d_k）。"),
        Case("只有一个键", (q2, K2[:1], V2[:1], 1.0), np.zeros((4, 2)),
             "只有一个键时权重恒为 1，输出不随查询变化。"),
    ]
    return run_check("check_soft_lookup_jacobian", fn, cases, atol=1e-8, rtol=1e-6)
