"""Self-checks for 2.4 (dot-product scores): the score matrix, additive scores, and what adding one
vector to every key does to the scores."""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_scores", "check_additive_scores", "check_key_shift"]


@float_safe
def check_scores(fn) -> CheckResult:
    """Check ``fn(Q, K) -> S`` with Q (T_q, d_k), K (T_k, d_k) and S (T_q, T_k), ``S[i, j] = q_i . k_j``."""
    rng = np.random.default_rng(20260205)
    shapes = [
        ("2 个查询，3 个键，d_k=4", (2, 3, 4),
         "S 每个查询一行、每个键一列：形状 (T_q, T_kv)，不是它的转置（transpose）；"
         "每个元素是一个查询与一个键的点积，这一节还不缩放（未缩放）。"),
        ("4 个查询，4 个键，d_k=3", (4, 4, 3),
         "第 i 行必须属于查询 i：S[i, j] 是查询 i 与键 j 的点积；把两者的角色对调会得到 S 的转置（transpose）。"),
        ("5 个查询，2 个键，d_k=1", (5, 2, 1),
         "d_k=1 时每个分数就是两个数的乘积；形状仍是 (T_q, T_kv)。"),
        ("3 个查询，6 个键，d_k=8", (3, 6, 8),
         "这一节的分数是未缩放的点积（还不除以 √d_k）。"),
    ]
    cases = []
    for label, (T_q, T_k, d_k), hint in shapes:
        Q = rng.normal(size=(T_q, d_k))
        K = rng.normal(size=(T_k, d_k))
        cases.append(Case(label, (Q, K), H.dot_product_scores(Q, K), hint))
    return run_check("check_scores", fn, cases, atol=1e-9, rtol=1e-9)


@float_safe
def check_additive_scores(fn) -> CheckResult:
    """Check ``fn(Q, K, W_q, W_k, w) -> S`` with ``S[i, j] = w . tanh(q_i W_q + k_j W_k)``.

    Shapes: Q (T_q, d_q), K (T_k, d_kk), W_q (d_q, d_h), W_k (d_kk, d_h), w (d_h,), S (T_q, T_k).
    """
    rng = np.random.default_rng(20260207)
    shapes = [
        ("1 个查询，1 个键", (1, 1, 3, 3, 4),
         "一个分数：把查询和键分别投影到 d_h 维，相加，过 tanh，再与 w 做点积。"),
        ("2 个查询，3 个键，d_q=4，d_kk=2，d_h=5", (2, 3, 4, 2, 5),
         "分数 [i, j] 把查询 i 与键 j 配对（pairs q_i with k_j）：每一对都要先相加再过 tanh，最后沿 d_h 轴与 w 求和。"),
        ("4 个查询，4 个键", (4, 4, 3, 3, 2),
         "第 i 行必须属于查询 i；检查是否把查询和键的角色对调了。"),
    ]
    cases = []
    for label, (T_q, T_k, d_q, d_kk, d_h), hint in shapes:
        Q = rng.normal(size=(T_q, d_q))
        K = rng.normal(size=(T_k, d_kk))
        W_q = rng.normal(size=(d_q, d_h))
        W_k = rng.normal(size=(d_kk, d_h))
        w = rng.normal(size=d_h)
        cases.append(Case(label, (Q, K, W_q, W_k, w), H.additive_attention_scores(Q, K, W_q, W_k, w), hint))
    return run_check("check_additive_scores", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="tanh 作用在两个投影之和上，之后才与 w 做点积。")


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
    return run_check("check_key_shift", fn, cases, atol=1e-8, rtol=1e-8,
                     general_hint="把同一个 c 加到每个键上，看一行里的分数各变了多少。")
