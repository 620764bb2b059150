"""Self-checks for the exercises of 2.3 (Q/K/V projections) and 2.4 (dot-product scores).

    from helpers.checks.projections import check_project, check_scores

Every check runs the learner's function on hidden cases built from a fixed
seed and prints one verdict line (see :func:`helpers.checks.core.run_check`).
The expected values come from the reference helpers and are never printed.
"""

from __future__ import annotations

import numpy as np

from ..projections import project_qkv
from ..scores import additive_attention_scores, dot_product_scores
from .core import Case, CheckResult, float_safe, run_check

__all__ = [
    "check_project",
    "check_cross_project",
    "check_scores",
    "check_additive_scores",
]


def _weights(rng, d_model: int, d_k: int, d_v: int):
    return rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))


@float_safe
def check_project(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V) -> (Q, K, V)`` with X of shape (T, d_model).

    Expected: ``Q = X W_Q`` (T, d_k), ``K = X W_K`` (T, d_k), ``V = X W_V`` (T, d_v).
    """
    rng = np.random.default_rng(20260203)
    cases = []
    for label, (T, d_model, d_k, d_v), hint in [
        ("一个 token：T=1，d_model=4，d_k=d_v=2", (1, 4, 2, 2),
         "三个角色各有自己的矩阵：查询用 W_Q，键用 W_K，值用 W_V。"),
        ("T=3 个 token，d_model=6，d_k=2，d_v=4", (3, 6, 2, 4),
         "查询用 W_Q、键用 W_K、值用 W_V；值（V）可以比查询和键更宽或更窄（d_v != d_k）。"),
        ("T=7 个 token，token 比特征多（d_model=3）", (7, 3, 3, 5),
         "X 每个 token 一行，所以投影之后仍是每个 token 一行（形状 (T, d_k)），不要转置。"),
    ]:
        X = rng.normal(size=(T, d_model))
        W = _weights(rng, d_model, d_k, d_v)
        cases.append(Case(label, (X, *W), tuple(project_qkv(X, *W)), hint))
    return run_check("check_project", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="返回元组（tuple）(Q, K, V)。")


@float_safe
def check_cross_project(fn) -> CheckResult:
    """Check ``fn(X_q, X_kv, W_Q, W_K, W_V) -> (Q, K, V)`` for cross-attention.

    Expected: ``Q = X_q W_Q`` (T_q, d_k) from the asking sequence, and
    ``K = X_kv W_K`` (T_kv, d_k), ``V = X_kv W_V`` (T_kv, d_v) from the other one.
    """
    rng = np.random.default_rng(20260204)
    cases = []
    for label, (T_q, T_kv, d_model, d_k, d_v), hint in [
        ("2 个查询，5 个键/值", (2, 5, 4, 3, 3),
         "查询来自 X_q（提问的序列）；键和值都来自另一个序列 X_kv。"),
        ("3 个查询，3 个内容不同的键/值", (3, 3, 4, 2, 2),
         "这里形状相同，只有数值能区分：键和值必须由 X_kv 算出，而不是 X_q。"),
        ("4 个查询，6 个键/值，d_v=5 != d_k=2", (4, 6, 3, 2, 5),
         "值（V）每个键一行、共 d_v 列，由 X_kv 和 W_V 得到。"),
    ]:
        X_q = rng.normal(size=(T_q, d_model))
        X_kv = rng.normal(size=(T_kv, d_model))
        W_Q, W_K, W_V = _weights(rng, d_model, d_k, d_v)
        expected = (X_q @ W_Q, X_kv @ W_K, X_kv @ W_V)
        cases.append(Case(label, (X_q, X_kv, W_Q, W_K, W_V), expected, hint))
    return run_check("check_cross_project", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="返回元组（tuple）(Q, K, V)。")


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
        cases.append(Case(label, (Q, K), dot_product_scores(Q, K), hint))
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
        cases.append(Case(label, (Q, K, W_q, W_k, w), additive_attention_scores(Q, K, W_q, W_k, w), hint))
    return run_check("check_additive_scores", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="tanh 作用在两个投影之和上，之后才与 w 做点积。")
