"""Self-checks for 2.1 (contextual representations): the cosine of every pair of rows, a weighted sum after
dropping words, and two rounds of mixing written as one (transfer).

The hidden cases of :func:`check_two_rounds` use weights that do not commute, so the order A1 A2 fails, and
rows with self-weight 0 (as the chapter's row for "it"), whose two rounds still give a non-zero diagonal.
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_cosine_matrix", "check_mix_without", "check_two_rounds"]


def _two_rounds_ref(A1, A2):
    return np.asarray(A2, dtype=float) @ np.asarray(A1, dtype=float)


_TR_WRONG = [
    Wrong("顺序反了：第二轮混合的是第一轮已经混好的向量，C2 = A2·(A1·X)，先作用的 A1 写在右边。",
          lambda A1, A2: np.asarray(A1) @ np.asarray(A2)),
    Wrong("逐元素相乘不是先后两轮：token i 从原来的词 k 借到的量，要把经过每一个中间词 j 的路径加起来（对 j 求和）。",
          lambda A1, A2: np.asarray(A1) * np.asarray(A2)),
    Wrong("只用了第二轮的权重：第二轮混合的是第一轮的结果，第一轮的权重也要算进去。", lambda A1, A2: np.asarray(A2) * 1.0),
    Wrong("只用了第一轮的权重：第二轮还要再把第一轮的结果混合一次。", lambda A1, A2: np.asarray(A1) * 1.0),
    Wrong("两轮的权重取平均不是先后两轮混合：第二轮的输入是第一轮的输出，要把两步复合起来。",
          lambda A1, A2: (np.asarray(A1) + np.asarray(A2)) / 2),
    Wrong("A1 被转置了：A1 的第 j 行是 token j 在第一轮里从各个词借的比例，它乘在中间词 j 的权重后面。",
          lambda A1, A2: np.asarray(A2) @ np.asarray(A1).T),
    Wrong("整个结果被转置了：B 的第 i 行（不是第 i 列）是词 i 从原来每个词借的量，所以 B 的每一行和为 1；"
          "你的结果是每一列和为 1。本系列用行向量：X 的每一行是一个词，B 写在 X 的左边（B·X）。",
          lambda A1, A2: (np.asarray(A2) @ np.asarray(A1)).T),
]


@float_safe
def check_two_rounds(fn) -> CheckResult:
    """Check ``fn(A1, A2) -> B`` of shape (T, T): mixing twice, C2 = A2 (A1 X), equals one mixing B X for every X.

    ``A1``, ``A2`` (T, T): each row a distribution (non-negative, summing to 1). The expected B is A2 A1.
    """
    rng = np.random.default_rng(20260213)
    A1, A2 = rng.dirichlet(np.ones(4), size=4), rng.dirichlet(np.ones(4), size=4)
    no_self = rng.dirichlet(np.ones(4), size=5)                      # 5 tokens, every self-weight 0
    Z1 = np.array([np.insert(r, i, 0.0) for i, r in enumerate(no_self)])
    Z2 = np.array([np.insert(r, i, 0.0) for i, r in enumerate(rng.dirichlet(np.ones(4), size=5))])
    copy_rows = np.eye(3)[[2, 0, 1]]                                 # token i copies token (i - 1) mod 3
    B1 = rng.dirichlet(np.ones(3), size=3)
    F1, F2 = (rng.dirichlet(np.ones(6), size=6).astype(np.float32) for _ in range(2))
    cases = [
        Case("4 个 token，两轮随机权重", (A1, A2), _two_rounds_ref(A1, A2),
             "第二轮的输入是第一轮的输出：把 C1 = A1·X 代入 C2 = A2·C1，看 X 前面乘的是什么。"),
        Case("第一轮什么也不做（A1 是单位矩阵）", (np.eye(4), A2), _two_rounds_ref(np.eye(4), A2),
             "第一轮让每个词保持原样时，两轮合起来就只剩第二轮。"),
        Case("每个 token 的自身权重都是 0（像 2.1 的 it 那一行）", (Z1, Z2), _two_rounds_ref(Z1, Z2),
             "自身权重为 0 的两轮合起来，对角线不一定是 0：token i 可以经由别的词，借回自己的一部分。"),
        Case("第二轮每个 token 只抄一个邻居", (B1, copy_rows), _two_rounds_ref(B1, copy_rows),
             "第二轮的一行是独热（one-hot）时，token i 得到的就是那个邻居在第一轮里的整行权重。"),
        Case("float32 输入，6 个 token", (F1, F2), _two_rounds_ref(F1, F2), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_two_rounds", fn, cases, wrong=_TR_WRONG, atol=1e-6, rtol=1e-6,
                         general_hint="返回形状 (T, T) 的矩阵 B：对任何 X，B·X 都等于先用 A1、再用 A2 混合的结果。")


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
