"""Self-checks for 2.1 (contextual representations): cosine, the contextual mix, reading a vector back as a word.

The hidden cases of :func:`check_nearest_word` are built so that the classic substitutes (plain dot
product, Euclidean distance, absolute cosine, argmin) each pick a different row.
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_cosine", "check_contextual_mix", "check_nearest_word"]


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
        Case("两个 7 维向量", (a, b), H.geometry.cosine_similarity(a, b),
             "逐元素乘积之和，除以两个欧几里得范数的乘积（不是范数的平方）。"),
        Case("很长的向量（长度约 1000）", (1000.0 * a, 500.0 * b), H.geometry.cosine_similarity(a, b),
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
        Case("4 个 token，d = 3", (w, X), H.contextual.contextual_mix(w, X),
             "结果每个维度（长度 d）一个数，而不是每个 token 一个数。"),
        Case("3 个 token，d = 5", (w3, X_wide), H.contextual.contextual_mix(w3, X_wide),
             "vectors 的形状是 (T, d)：权重要和它的第一个轴（token 轴）配对求和。"),
    ]
    return run_check("check_contextual_mix", fn, cases, atol=1e-9, rtol=1e-9)


def _nearest_by_cosine(c, E):
    c = np.asarray(c, dtype=float)
    E = np.asarray(E, dtype=float)
    cos = (E @ c) / (np.linalg.norm(E, axis=1) * np.linalg.norm(c))
    return int(np.argmax(cos))


def check_nearest_word(fn) -> CheckResult:
    """Check ``fn(c, E) -> int``: index of the row of ``E`` (shape (V, d)) with the largest cosine to ``c`` (shape (d,))."""
    rng = np.random.default_rng(20260213)
    # a long vector wins the dot product, a short well-aligned one wins the cosine
    c_len = np.array([1.0, 0.2, 0.0])
    E_len = np.array([[0.0, 0.0, 1.0], [1.0, 0.25, 0.0], [6.0, 6.0, 0.0]])
    # Euclidean distance prefers the short vector near the origin; the cosine ignores length
    c_euc = np.array([4.0, 4.0, 0.0])
    E_euc = np.array([[1.0, 0.0, 0.0], [0.3, 0.3, 0.0], [6.0, 0.5, 0.0], [0.0, 0.0, 3.0]])
    # the exact opposite direction has |cos| = 1 but cos = -1
    c_neg = np.array([0.0, 1.0, 1.0, 0.0])
    E_neg = np.array([[0.0, -2.0, -2.0, 0.0], [0.0, 1.0, 0.3, 0.2], [1.0, 0.0, 0.0, 0.0]])
    c_rand = rng.normal(size=7)
    E_rand = rng.normal(size=(12, 7)) * rng.uniform(0.2, 5.0, size=(12, 1))
    cases = [
        Case("一个很长的词向量", (c_len, E_len), _nearest_by_cosine(c_len, E_len),
             "点积会偏向长向量；余弦相似度（cosine similarity）要除以两个向量的长度。"),
        Case("离原点很近的短词向量", (c_euc, E_euc), _nearest_by_cosine(c_euc, E_euc),
             "欧氏距离（Euclidean distance）最近不等于方向最近：比较的是夹角，不是距离。"),
        Case("方向正好相反的词向量", (c_neg, E_neg), _nearest_by_cosine(c_neg, E_neg),
             "不要取绝对值：方向相反的余弦是 -1，是最不像的。"),
        Case("12 个随机长度的 7 维词向量", (c_rand, E_rand), _nearest_by_cosine(c_rand, E_rand),
             "对每一行算余弦，返回最大值所在的行号（从 0 开始的整数）。"),
    ]
    return run_check("check_nearest_word", fn, cases, atol=0.0, rtol=0.0,
                     general_hint="返回一个整数：E 里与 c 夹角最小（余弦最大）的那一行的下标。")
