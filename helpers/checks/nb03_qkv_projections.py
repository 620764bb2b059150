"""Self-checks for 2.3 (Q/K/V projections): self- and cross-attention projections, and the key projection
that undoes ``W_Q -> W_Q R`` (R invertible: W_Q and W_K are only determined up to it).

The cases of :func:`check_matching_key_projection` use a non-symmetric, non-orthogonal R (so R, R^T,
R^{-1} and R^{-T} are four different matrices) and d_model != d_k (so transposes have the wrong shape).
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_project", "check_cross_project", "check_matching_key_projection"]


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
        cases.append(Case(label, (X, *W), tuple(H.project_qkv(X, *W)), hint))
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


def _reference(W_K, R):
    return np.asarray(W_K, dtype=float) @ np.linalg.inv(np.asarray(R, dtype=float)).T


def check_matching_key_projection(fn) -> CheckResult:
    """Check ``fn(W_K, R) -> (d_model, d_k)``: the key projection that undoes ``W_Q -> W_Q R`` in every score."""
    rng = np.random.default_rng(20260233)
    W_K = rng.normal(size=(6, 3))
    R_diag = np.diag([2.0, 0.5, 4.0])
    R_gen = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
    W_K4 = rng.normal(size=(5, 4))
    R4 = rng.normal(size=(4, 4)) + 2.0 * np.eye(4)
    cases = [
        Case("R = 2I（所有查询放大 2 倍）", (W_K, 2.0 * np.eye(3)), _reference(W_K, 2.0 * np.eye(3)),
             "查询放大 2 倍，分数也放大 2 倍；键要怎样变才能抵消？"),
        Case("对角的 R", (W_K, R_diag), _reference(W_K, R_diag),
             "每一维被 R 放大多少，键的这一维就要缩小多少。"),
        Case("一般的 3x3 R（不对称、不正交）", (W_K, R_gen), _reference(W_K, R_gen),
             "把新分数 x_i W_Q R (x_j W_K')^T 和原来的分数逐项比较；转置的次序是 (AB)^T = B^T A^T，R 不对称时 R、R^T、R 的逆各不相同。"),
        Case("d_model = 5, d_k = 4", (W_K4, R4), _reference(W_K4, R4),
             "结果的形状要和 W_K 一样：(d_model, d_k)。"),
    ]
    return run_check("check_matching_key_projection", fn, cases, atol=1e-9, rtol=1e-7,
                     general_hint="对任意 X，(X W_Q R)(X W_K')^T 必须等于 (X W_Q)(X W_K)^T。")
