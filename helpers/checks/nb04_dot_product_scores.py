"""Self-checks for 2.4 (dot-product scores): what adding one vector to every key does to the
scores, a batch of score matrices, and the flops of bilinear scores Q W K^T in either order (optional)."""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_key_shift", "check_batched_scores", "check_bilinear_flops"]


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


# ---- 2.4 exercises that ask for something new (issue 20): a batch of score matrices; (optional) bilinear flops


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


def _bilinear_flops_ref(T_q, T_kv, d_q, d_kk):
    return (2 * T_q * d_q * d_kk + 2 * T_q * d_kk * T_kv, 2 * d_q * d_kk * T_kv + 2 * T_q * d_q * T_kv)


def _bf_wrong(kind):
    def wrong(T_q, T_kv, d_q, d_kk):
        qw_first, wk_first = _bilinear_flops_ref(T_q, T_kv, d_q, d_kk)
        return {
            "multiply-adds": (qw_first // 2, wk_first // 2),
            "swapped": (wk_first, qw_first),
            "first product only": (2 * T_q * d_q * d_kk, 2 * d_q * d_kk * T_kv),
            "second product only": (2 * T_q * d_kk * T_kv, 2 * T_q * d_q * T_kv),
            "every pair": (2 * T_q * T_kv * (d_q * d_kk + d_kk),) * 2,
            "inner dimension": (2 * T_q * d_q * d_kk + 2 * T_q * d_q * T_kv, 2 * d_q * d_kk * T_kv + 2 * T_q * d_kk * T_kv),
        }[kind]
    return wrong


_BF_WRONG = [
    Wrong("你数的是乘加次数：本系列 1 次乘加记 2 flops（一次乘法、一次加法）。", _bf_wrong("multiply-adds")),
    Wrong("两个数的顺序反了：第一个是先算 QW 的顺序，第二个是先算 WKᵀ 的顺序。", _bf_wrong("swapped")),
    Wrong("只数了第一次矩阵乘法：两种顺序都是先乘出一个中间结果，再做第二次乘法得到 (T_q, T_kv) 的分数表，两次都要算。",
          _bf_wrong("first product only")),
    Wrong("只数了第二次矩阵乘法：中间结果（QW 或 WKᵀ）也要先乘出来，这一次也要算。", _bf_wrong("second product only")),
    Wrong("这是对每一对 (i, j) 分别算 q_i W k_jᵀ、什么也不复用的运算量：两种顺序都只把中间结果算一次，再被所有的对共用。",
          _bf_wrong("every pair")),
    Wrong("第二次乘法累加的维度不对：QW 的形状是 (T_q, d_kk)，它乘 Kᵀ 时每个分数累加 d_kk 个乘积；"
          "WKᵀ 的形状是 (d_q, T_kv)，Q 乘它时每个分数累加 d_q 个乘积。", _bf_wrong("inner dimension")),
]


def check_bilinear_flops(fn) -> CheckResult:
    """Check ``fn(T_q, T_kv, d_q, d_kk) -> (qw_first, wk_first)``: the flops of S = (Q W) K^T and of S = Q (W K^T),
    with ``Q`` (T_q, d_q), ``W`` (d_q, d_kk), ``K`` (T_kv, d_kk) and an (m, k) x (k, n) product counted 2 m k n.
    Integers or integer-valued floats pass (a count); the pair may be a tuple or a list."""
    cases = [
        Case("T_q = 2，T_kv = 5，d_q = 3，d_kk = 4（四个数都不同）", (2, 5, 3, 4), _bilinear_flops_ref(2, 5, 3, 4),
             "写出每一步的形状：(m, k) 乘 (k, n) 记 2mkn flops；每种顺序都有两次乘法。"),
        Case("只有一个查询：T_q = 1，T_kv = 1000，d_q = d_kk = 64", (1, 1000, 64, 64), _bilinear_flops_ref(1, 1000, 64, 64),
             "先算 QW 时，中间结果只有 T_q 行；先算 WKᵀ 时，中间结果有 T_kv 列。"),
        Case("键很少：T_q = 512，T_kv = 4，d_q = 32，d_kk = 16", (512, 4, 32, 16), _bilinear_flops_ref(512, 4, 32, 16),
             "两种顺序的第二次乘法累加的维度不同：一个是 d_kk，一个是 d_q。"),
        Case("方阵情形：T_q = T_kv = 8，d_q = d_kk = 8", (8, 8, 8, 8), _bilinear_flops_ref(8, 8, 8, 8),
             "形状都一样时，两种顺序的运算量相同。"),
    ]
    return run_diagnosed("check_bilinear_flops", fn, cases, wrong=_BF_WRONG, atol=0.0, rtol=0.0,
                         general_hint="返回两个数：先算 QW 的总 flops，和先算 WKᵀ 的总 flops。")
