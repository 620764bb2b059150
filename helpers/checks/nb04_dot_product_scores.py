"""Self-checks for 2.4 (dot-product scores): what adding one vector to every key does to the
scores, a batch of score matrices, and bilinear scores q W k^T."""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_key_shift", "check_batched_scores", "check_bilinear_scores"]


def check_key_shift(fn) -> CheckResult:
    """Check ``fn(Q, c) -> delta`` of shape (T_q,).

    When the same vector ``c`` (shape (d_k,)) is added to every key, every score in row
    ``i`` of ``S = Q K^T`` changes by the same amount ``delta[i]``. ``Q`` has shape (T_q, d_k).
    The learner gets no ``K``: the change must not depend on it.
    """
    rng = np.random.default_rng(20260204)
    Q1, c1 = rng.normal(size=(4, 3)), rng.normal(size=3)
    Q2, c2 = rng.normal(size=(2, 5)), rng.normal(size=5)
    Q3 = rng.normal(size=(3, 2))
    Q4, c4 = 3.0 * rng.normal(size=(6, 4)), rng.normal(size=4)
    cases = [
        Case("4 个查询、d_k=3", (Q1, c1), Q1 @ c1,
             "写出 q_i·(k_j + c)，按点积的线性展开：多出来的那一项和 j 有关吗？"),
        Case("2 个查询、d_k=5（T_q 与 d_k 不同）", (Q2, c2), Q2 @ c2,
             "结果是每个查询一个数，形状 (T_q,)；检查你是否把 Q 的行和列弄反了。"),
        Case("c 是零向量", (Q3, np.zeros(2)), np.zeros(3),
             "c = 0 时键没有变，分数也不该变。"),
        Case("6 个查询、较大的 Q", (Q4, c4), Q4 @ c4,
             "变化量只由 q_i 和 c 决定，不需要除以 sqrt(d_k)（这里问的是未缩放的 S）。"),
    ]
    return run_diagnosed("check_key_shift", fn, cases, wrong=_KS_WRONG, atol=1e-8, rtol=1e-8,
                         general_hint="把同一个 c 加到每个键上，看一行里的分数各变了多少。")


_KS_WRONG = [
    Wrong("你返回了全 0：分数本身是变了的，不变的是 softmax 之后的权重（那是做完之后要想的第一个问题）。"
          "这里问的是每一行的分数增加了多少。", lambda Q, c: np.zeros(len(Q))),
    Wrong("乘积之和不等于和之积：点积是逐个分量相乘再相加，不是先把两边各自加起来再相乘。",
          lambda Q, c: np.asarray(Q).sum(axis=1) * np.sum(c)),
    Wrong("长度之积只是点积的上限：点积还要乘上两者夹角的余弦，只有同向时才相等。",
          lambda Q, c: np.linalg.norm(Q, axis=1) * np.linalg.norm(c)),
    Wrong("c 只加在了键上，查询没有变：展开 q_i·(k_j + c) 时，多出来的那一项里应该有 q_i。",
          lambda Q, c: np.full(len(Q), np.dot(c, c))),
    Wrong("c 只加在键上，查询没有变：q_i·(k_j + c) 展开后只多出一项，没有 c·c。",
          lambda Q, c: np.asarray(Q) @ np.asarray(c) + np.dot(c, c)),
]


# ---- 2.4 exercises that ask for something new (issue 20): a batch of score matrices, bilinear scores


def _batched_scores_ref(Q, K):
    return np.asarray(Q) @ np.swapaxes(np.asarray(K), -1, -2)


_BS_WRONG = [
    Wrong("不带参数的转置会把三维数组的所有轴倒过来（批量轴也被换到了最后）：只交换键的最后两个轴。",
          lambda Q, K: Q @ K.T),
    Wrong("结果转置了：第 b 张表的第 i 行是第 i 个查询，第 j 列是第 j 个键，形状 (B, T_q, T_kv)。",
          lambda Q, K: K @ np.swapaxes(Q, -1, -2)),
    Wrong("不同的批量元素被混在了一起：第 b 个查询集只和第 b 个键集打分，不同 b 之间不打分、也不求和。",
          lambda Q, K: np.einsum("bqd,ckd->bqk", Q, K)),
    Wrong("每一对批量元素都打了分，结果多了一个轴：只要同一个 b 里的查询和键。",
          lambda Q, K: np.tensordot(Q, K, axes=([2], [2]))),
    Wrong("这是逐元素相乘：分数是查询与键在 d_k 个分量上的点积（相乘再求和）。",
          lambda Q, K: Q * K),
    Wrong("分数除以了 √d_k：这里要的是未缩放的分数表 QKᵀ，缩放是 2.5 节的事。",
          lambda Q, K: np.asarray(Q) @ np.swapaxes(np.asarray(K), -1, -2) / np.sqrt(np.shape(Q)[-1])),
]


@float_safe
def check_batched_scores(fn) -> CheckResult:
    """Check ``fn(Q, K) -> S`` for ``Q`` (B, T_q, d_k), ``K`` (B, T_kv, d_k): S (B, T_q, T_kv), numpy only."""
    rng = np.random.default_rng(20260241)
    c1 = (rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 4, 5)))
    c2 = (rng.normal(size=(3, 2, 3)), rng.normal(size=(3, 3, 3)))      # B = d_k = T_kv: a wrong transpose runs
    c3 = (rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 4, 3)))      # T_q = T_kv
    c4 = (rng.normal(size=(1, 1, 4)), rng.normal(size=(1, 6, 4)))
    c5 = (rng.normal(size=(3, 2, 8)).astype(np.float32), rng.normal(size=(3, 5, 8)).astype(np.float32))
    cases = [
        Case("B=2，T_q=3，T_kv=4，d_k=5", c1, _batched_scores_ref(*c1),
             "批量里的每一对 (Q_b, K_b) 各给出一张 (T_q, T_kv) 的分数表，结果形状 (B, T_q, T_kv)。"),
        Case("B = d_k = T_kv = 3", c2, _batched_scores_ref(*c2),
             "形状凑巧相同时错误的转置也能运行：检查你交换的是哪两个轴。"),
        Case("T_q = T_kv = 4", c3, _batched_scores_ref(*c3), "第 i 行属于第 i 个查询，第 j 列属于第 j 个键。"),
        Case("B=1，只有 1 个查询", c4, _batched_scores_ref(*c4), "长度为 1 的轴也要保留：结果形状 (1, 1, T_kv)。"),
        Case("float32 输入", c5, _batched_scores_ref(*c5), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_batched_scores", fn, cases, wrong=_BS_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4)


def _bilinear_ref(Q, K, W):
    return np.asarray(Q) @ np.asarray(W) @ np.asarray(K).T


_BL_WRONG = [
    Wrong("W 被转置了：分数是 q_i W k_jᵀ，W 的行对应查询的分量、列对应键的分量。",
          lambda Q, K, W: Q @ W.T @ K.T),
    Wrong("结果转置了：行是查询、列是键，形状 (T_q, T_kv)。", lambda Q, K, W: K @ W.T @ Q.T),
    Wrong("W 没有用上：这是普通的点积分数；双线性分数在查询和键之间夹了一个矩阵 W。", lambda Q, K, W: Q @ K.T),
    Wrong("W 夹错了位置：它应在查询和键之间，先把查询变到键的空间，再与键做点积。", lambda Q, K, W: Q @ K.T @ W),
]


@float_safe
def check_bilinear_scores(fn) -> CheckResult:
    """Check ``fn(Q, K, W) -> S`` of shape (T_q, T_kv), S_ij = q_i W k_j^T, numpy only.

    ``Q`` (T_q, d_q), ``K`` (T_kv, d_kk), ``W`` (d_q, d_kk).
    """
    rng = np.random.default_rng(20260242)
    c1 = (rng.normal(size=(2, 3)), rng.normal(size=(5, 4)), rng.normal(size=(3, 4)))
    c2 = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(3, 3)))    # square W, T_q = T_kv
    c3 = (rng.normal(size=(3, 4)), rng.normal(size=(6, 4)), np.eye(4))
    c4 = tuple(a.astype(np.float32) for a in (rng.normal(size=(3, 5)), rng.normal(size=(2, 6)), rng.normal(size=(5, 6))))
    cases = [
        Case("d_q=3 不等于 d_kk=4，T_q=2，T_kv=5", c1, _bilinear_ref(*c1),
             "把形状写出来：(T_q, d_q) 乘 (d_q, d_kk) 再乘键的转置 (d_kk, T_kv)，得到 (T_q, T_kv)。"),
        Case("方阵 W，T_q = T_kv", c2, _bilinear_ref(*c2),
             "形状都相同时，转置错了也能运行：W 的行对应查询，列对应键；结果的行是查询。"),
        Case("W 是单位矩阵", c3, _bilinear_ref(*c3), "W 是单位矩阵时，双线性分数就是普通的点积分数。"),
        Case("float32 输入", c4, _bilinear_ref(*c4), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_bilinear_scores", fn, cases, wrong=_BL_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4)
