"""Self-checks for 2.1 (contextual representations): reading a vector back as a word, the cosine of every pair of
rows, and a weighted sum after dropping words.

The hidden cases of :func:`check_nearest_word` are built so that the classic substitutes (plain dot
product, Euclidean distance, absolute cosine, argmin) each pick a different row.
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_nearest_word", "check_cosine_matrix", "check_mix_without"]


def _nearest_by_cosine(c, E):
    c = np.asarray(c, dtype=float)
    E = np.asarray(E, dtype=float)
    cos = (E @ c) / (np.linalg.norm(E, axis=1) * np.linalg.norm(c))
    return int(np.argmax(cos))


def _cosines(c, E):
    c, E = np.asarray(c, dtype=float), np.asarray(E, dtype=float)
    return (E @ c) / (np.linalg.norm(E, axis=1) * np.linalg.norm(c))


_NW_WRONG = [
    Wrong("点积会偏向长向量：余弦相似度（cosine similarity）要除以两个向量的长度。",
          lambda c, E: int(np.argmax(np.asarray(E, dtype=float) @ np.asarray(c, dtype=float)))),
    Wrong("欧氏距离（Euclidean distance）最近不等于方向最近：比较的是夹角（余弦），不是距离。",
          lambda c, E: int(np.argmin(np.linalg.norm(np.asarray(E, dtype=float) - np.asarray(c, dtype=float), axis=1)))),
    Wrong("不要取绝对值：方向相反的余弦是 −1，是最不像的。", lambda c, E: int(np.argmax(np.abs(_cosines(c, E))))),
    Wrong("下标从 0 开始：第一行的下标是 0，你的结果多了 1。", lambda c, E: _nearest_by_cosine(c, E) + 1),
    Wrong("你返回的是最大的余弦值：要的是它所在的那一行的下标（一个整数）。", lambda c, E: float(np.max(_cosines(c, E)))),
    Wrong("你返回的是那个词向量本身：要的是它在 E 里的行号（一个整数）。", lambda c, E: np.asarray(E)[_nearest_by_cosine(c, E)]),
    Wrong("你找的是余弦最小（方向最不像）的那一行：要的是余弦最大的那一行。", lambda c, E: int(np.argmin(_cosines(c, E)))),
]


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
    return run_diagnosed("check_nearest_word", fn, cases, wrong=_NW_WRONG, atol=0.0, rtol=0.0, result_type=int,
                         general_hint="返回一个整数：E 里与 c 夹角最小（余弦最大）的那一行的下标。")


# ---- 2.1 exercises that ask for something new (issue 20): all-pairs cosine, a weighted sum without some words


def _cosine_matrix_ref(C):
    C = np.asarray(C, dtype=float)
    U = C / np.linalg.norm(C, axis=1, keepdims=True)
    return U @ U.T


_CM_WRONG = [
    Wrong("你算的是皮尔逊相关系数（correlation）：它先把每一行减去了自己的均值。余弦直接用原来的向量，不减均值。",
          lambda C: np.corrcoef(C)),
    Wrong("长度是按列求的：每个向量（每一行）有自己的长度，要沿着这一行的 d 个分量求。",
          lambda C: (C / np.linalg.norm(C, axis=0, keepdims=True)) @ (C / np.linalg.norm(C, axis=0, keepdims=True)).T),
    Wrong("没有除以长度：这是点积，不是余弦。余弦只看方向，对角线上应全是 1。", lambda C: C @ C.T),
    Wrong("只除了一边的长度：第 (i, j) 个元素要同时除以第 i 行和第 j 行的长度。",
          lambda C: C @ C.T / np.linalg.norm(C, axis=1, keepdims=True)),
    Wrong("除以的是整个矩阵的长度（所有元素一起算）：每一对向量要除以它们各自的长度之积。",
          lambda C: C @ C.T / np.linalg.norm(C) ** 2),
    Wrong("你算的是相邻行或对应行之间的余弦：要的是所有 T×T 对的余弦表。",
          lambda C: np.sum(C * C, axis=1) / np.linalg.norm(C, axis=1) ** 2),
]


@float_safe
def check_cosine_matrix(fn) -> CheckResult:
    """Check ``fn(C) -> M`` of shape (T, T): M[i, j] is the cosine of rows i and j of ``C`` (T, d), no zero row."""
    rng = np.random.default_rng(20260211)
    vocab = H.contextual.toy_vocabulary()
    words = np.array([vocab[w] for w in ("animal", "street", "tired", "wide", "it")], dtype=float)
    scaled = rng.normal(size=(4, 4)) * np.array([[1.0], [10.0], [0.1], [3.0]])
    tall = rng.normal(size=(6, 3))
    positive = rng.uniform(0.5, 2.0, size=(3, 5))
    f32 = rng.normal(size=(4, 6)).astype(np.float32)
    cases = [
        Case("玩具词表里的 5 个词", (words,), _cosine_matrix_ref(words),
             "第 (i, j) 个元素是第 i 行与第 j 行的余弦：点积除以两行各自的长度；对角线上是 1。"),
        Case("长度相差 100 倍的 4 个向量（方阵）", (scaled,), _cosine_matrix_ref(scaled),
             "余弦与长度无关：每个向量都要除以它自己的长度，结果都在 −1 到 1 之间。"),
        Case("6 个 3 维向量", (tall,), _cosine_matrix_ref(tall), "T 个向量有 T 个长度，结果形状是 (T, T)。"),
        Case("分量全为正的 3 个向量", (positive,), _cosine_matrix_ref(positive),
             "分量全为正时，任意两个向量的余弦都是正数：不要先减去均值。"),
        Case("float32 输入", (f32,), _cosine_matrix_ref(f32), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_cosine_matrix", fn, cases, wrong=_CM_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4)


def _mix_without_ref(alpha, X, drop):
    alpha, X = np.asarray(alpha, dtype=float), np.asarray(X, dtype=float)
    kept = np.where(np.asarray(drop, dtype=bool), 0.0, alpha)
    return kept / kept.sum() @ X


_MW_WRONG = [
    Wrong("去掉的词权重变成 0 之后，剩下的权重加起来不到 1：还要把它们重新归一化（renormalise），除以留下的权重之和。",
          lambda alpha, X, drop: np.where(drop, 0.0, alpha) @ X),
    Wrong("除以的是留下的词的个数：应除以留下的权重之和，这样它们仍是一个分布。",
          lambda alpha, X, drop: np.where(drop, 0.0, alpha) @ X / np.sum(~np.asarray(drop))),
    Wrong("把 drop 理解反了：drop 为 True 的词要去掉，留下的是 drop 为 False 的词。",
          lambda alpha, X, drop: np.where(drop, alpha, 0.0) / np.where(drop, alpha, 0.0).sum() @ X),
    Wrong("留下的词被平均对待了：权重要保留原来的比例（只是重新归一化），而不是变成均匀分布。",
          lambda alpha, X, drop: np.asarray(X)[~np.asarray(drop)].mean(axis=0)),
    Wrong("你返回的是新的权重：还要用它们对词向量加权求和，结果形状是 (d,)。",
          lambda alpha, X, drop: np.where(drop, 0.0, alpha) / np.where(drop, 0.0, alpha).sum()),
]


@float_safe
def check_mix_without(fn) -> CheckResult:
    """Check ``fn(alpha, X, drop) -> c`` of shape (d,): the weighted sum of the rows of ``X`` (T, d) after the
    words with ``drop`` True are removed and the remaining weights of ``alpha`` (T,) renormalised to sum 1."""
    rng = np.random.default_rng(20260212)
    a1 = rng.dirichlet(np.ones(5))
    X1 = rng.normal(size=(5, 3))
    d1 = np.array([False, False, True, False, False])
    a3 = np.array([0.5, 0.2, 0.2, 0.1])
    X3 = rng.normal(size=(4, 2))
    d3 = np.array([True, False, False, False])
    X4 = rng.normal(size=(4, 3))
    X4[1] = 1e6                                          # the dropped word's vector is huge
    d4 = np.array([False, True, False, False])
    a5 = rng.dirichlet(np.ones(6)).astype(np.float32)
    X5 = rng.normal(size=(6, 4)).astype(np.float32)
    d5 = np.array([True, False, True, False, False, False])
    cases = [
        Case("5 个词、去掉 1 个", (a1, X1, d1), _mix_without_ref(a1, X1, d1),
             "去掉的词权重变成 0，剩下的权重重新归一化（加起来为 1），再对词向量加权求和。"),
        Case("什么也不去掉", (a1, X1, np.zeros(5, dtype=bool)), _mix_without_ref(a1, X1, np.zeros(5, dtype=bool)),
             "什么也不去掉时，结果就是普通的加权和。"),
        Case("去掉的词拿着一半的权重", (a3, X3, d3), _mix_without_ref(a3, X3, d3),
             "留下的权重之和只有 0.5：除以它，而不是除以 1 或词的个数。"),
        Case("去掉的词向量极大", (a3, X4, d4), _mix_without_ref(a3, X4, d4), "去掉的词不应对结果有任何影响。"),
        Case("float32 输入", (a5, X5, d5), _mix_without_ref(a5, X5, d5), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_mix_without", fn, cases, wrong=_MW_WRONG, atol=1e-5, rtol=1e-4)
