"""Self-checks for 2.1 (contextual representations): cosine, the contextual mix, reading a vector back as a word.

The hidden cases of :func:`check_nearest_word` are built so that the classic substitutes (plain dot
product, Euclidean distance, absolute cosine, argmin) each pick a different row.
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_cosine", "check_contextual_mix", "check_nearest_word", "check_cosine_matrix", "check_mix_without"]


def _cos(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(all="ignore"):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


_COS_WRONG = [
    Wrong("你返回的是夹角本身（弧度）：要的是夹角的余弦，不要再取反余弦。",
          lambda a, b: float(np.arccos(np.clip(_cos(a, b), -1.0, 1.0)))),
    Wrong("你返回的是 1 − 余弦（余弦距离，cosine distance）：要的是余弦本身，方向相同时是 1。", lambda a, b: 1.0 - _cos(a, b)),
    Wrong("只除了一个向量的长度的平方：余弦要除以两个向量各自的长度之积。",
          lambda a, b: float(np.asarray(a, dtype=float) @ np.asarray(b, dtype=float) / (np.asarray(a, dtype=float) @ np.asarray(a, dtype=float)))),
    Wrong("除以的是长度的平方之积：要除以两个长度（范数）本身的乘积。",
          lambda a, b: float(np.asarray(a, dtype=float) @ np.asarray(b, dtype=float)
                             / (np.linalg.norm(a) ** 2 * np.linalg.norm(b) ** 2))),
    Wrong("没有除以长度：这是点积，不是余弦。", lambda a, b: float(np.asarray(a, dtype=float) @ np.asarray(b, dtype=float))),
    Wrong("不要取绝对值：方向相反时余弦是负数（negative cosine）。", lambda a, b: abs(_cos(a, b))),
] + [Wrong("你的结果被四舍五入了：返回完整精度的余弦，不要截断小数位。", (lambda k: lambda a, b: round(_cos(a, b), k))(k))
     for k in (1, 2, 3, 4)]


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
    return run_diagnosed("check_cosine", fn, cases, wrong=_COS_WRONG, forbid={"cosine_similarity"}, ask="自己写出余弦",
                         atol=1e-9, rtol=1e-9)


_MIX_WRONG = [
    Wrong("求的是平均而不是和：加权和把每个加权后的向量加起来，不再除以 token 的个数 T。",
          lambda w, V: np.mean(np.asarray(w, dtype=float)[:, None] * np.asarray(V, dtype=float), axis=0)),
    Wrong("求和沿错了轴：要沿 token 的轴（vectors 的第一个轴）求和，结果每个维度一个数。",
          lambda w, V: np.sum(np.asarray(w, dtype=float)[:, None] * np.asarray(V, dtype=float), axis=1)),
    Wrong("权重没有和各自的向量配对：第 j 个权重只乘 vectors 的第 j 行（ROW j，即 token j 的向量），而不是把权重之和乘在平均向量上。",
          lambda w, V: np.sum(w) * np.asarray(V, dtype=float).mean(axis=0)),
]


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
    return run_diagnosed("check_contextual_mix", fn, cases, wrong=_MIX_WRONG, forbid={"contextual_mix"}, ask="自己写出加权求和",
                         atol=1e-9, rtol=1e-9)


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
