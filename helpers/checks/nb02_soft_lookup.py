"""Self-checks for 2.2 (soft lookup): the lookup itself, its Jacobian, and the temperature derivative.

:func:`check_temperature_gradient` compares with the closed form
``-(1/tau^2) * sum_i alpha_i (v_i - vbar) (s_i - sbar)`` with ``s = K q``; its cases use temperatures
other than 1 so that a wrong power of tau or a missing sign cannot pass.
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_soft_lookup", "check_soft_lookup_jacobian", "check_temperature_gradient"]


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
        Case("4 个键，温度 1", (q, K, V, 1.0), H.soft_lookup.soft_lookup(q, K, V, 1.0).output,
             "分数是查询与每个键的点积；权重是分数的 softmax；输出是用权重对值向量加权求和。"),
        Case("同样的键，温度 2", (q, K, V, 2.0), H.soft_lookup.soft_lookup(q, K, V, 2.0).output,
             "温度（temperature）在 softmax 之前除分数（temperature divides）；温度越高，权重越平。"),
        Case("有负的相似度", (q_neg, K_neg, V_neg, 1.0), H.soft_lookup.soft_lookup(q_neg, K_neg, V_neg, 1.0).output,
             "分数直接除以分数之和，遇到负分数就不成立；先取指数（softmax），每个权重才都为正。"),
        Case("很小的温度 1e-3（分数可达 1e4）", (q_big, K_big, V_big, 1e-3),
             H.soft_lookup.soft_lookup(q_big, K_big, V_big, 1e-3).output,
             "分数约 1e4 时 exp 会溢出：取指数之前先减去最大的分数（subtract the largest score）。"),
        Case("5 个键，d_k = 2，d_v = 3", (q5, K5, V5, 0.5), H.soft_lookup.soft_lookup(q5, K5, V5, 0.5).output,
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
        Case("4 个键，温度 1", (q, K, V, 1.0), H.soft_lookup.soft_lookup_jacobian(q, K, V, 1.0),
             "链式法则（chain rule）分三段：输出对权重、权重对分数（softmax 的雅可比）、分数对查询；三段依次相乘。"),
        Case("同样的键，温度 0.5", (q, K, V, 0.5), H.soft_lookup.soft_lookup_jacobian(q, K, V, 0.5),
             "分数是点积除以温度，所以链式法则会带出一个因子 1 / temperature。"),
        Case("d_k = 2，d_v = 4", (q2, K2, V2, 1.0), H.soft_lookup.soft_lookup_jacobian(q2, K2, V2, 1.0),
             "J[a, b] 是输出第 a 个分量对查询第 b 个分量的导数：行对应值的维度（d_v），列对应查询的维度（d_k）。"),
        Case("只有一个键", (q2, K2[:1], V2[:1], 1.0), np.zeros((4, 2)),
             "只有一个键时权重恒为 1，输出不随查询变化。"),
    ]
    return run_check("check_soft_lookup_jacobian", fn, cases, atol=1e-8, rtol=1e-6)


def _reference(q, K, V, temperature):
    s = np.asarray(K, dtype=float) @ np.asarray(q, dtype=float)
    z = s / temperature
    a = H.softmax(z)
    V = np.asarray(V, dtype=float)
    vbar = a @ V
    sbar = a @ s
    return -((a * (s - sbar)) @ (V - vbar)) / temperature**2


def check_temperature_gradient(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature) -> (d_v,)``: the derivative of the soft-lookup output with respect to the temperature."""
    rng = np.random.default_rng(20260224)
    q, K, V = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    q2, K2, V2 = rng.normal(size=2), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    K_big = np.array([[10.0, 0.0], [9.5, 0.0], [0.0, 10.0]])
    q_big = np.array([1.0, 0.5])
    V_big = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    cases = [
        Case("5 个键，温度 0.5", (q, K, V, 0.5), _reference(q, K, V, 0.5),
             "先写出缩放后的分数 qK^T/tau 对 tau 的导数，再乘 softmax 的 Jacobian 和 V 的转置；注意 tau 出现的次数。"),
        Case("同样的键，温度 2", (q, K, V, 2.0), _reference(q, K, V, 2.0),
             "d(1/tau)/d tau = -1/tau^2：检查符号和 tau 的幂。"),
        Case("4 个键，d_v = 3，温度 0.8", (q2, K2, V2, 0.8), _reference(q2, K2, V2, 0.8),
             "结果的形状是 (d_v,)：每个输出分量对温度求一次导。"),
        Case("很小的温度 0.01（分数/温度约 1000）", (q_big, K_big, V_big, 0.01),
             _reference(q_big, K_big, V_big, 0.01),
             "先减去最大分数再取 exp，否则会溢出。"),
        Case("只有一个键", (q2, K2[:1], V2[:1], 0.7), np.zeros(3),
             "只有一个键时权重恒为 1，输出不随温度变化。"),
    ]
    return run_check("check_temperature_gradient", fn, cases, atol=1e-9, rtol=1e-5,
                     general_hint="链式法则：输出 = alpha V，alpha = softmax(s/tau)；softmax 的 Jacobian 在本节推导过。")
