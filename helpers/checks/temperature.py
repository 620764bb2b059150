"""Self-check for the transfer exercise of 2.2: how the soft-lookup output moves with the temperature.

    from helpers.checks import check_temperature_gradient

The learner writes ``fn(q, K, V, temperature) -> d output / d temperature`` (shape (d_v,)),
using the softmax Jacobian derived in the notebook. The reference is the closed form
``-(1/tau^2) * sum_i alpha_i (v_i - vbar) (s_i - sbar)`` with ``s = K q``; the cases use
temperatures other than 1 so that a wrong power of tau or a missing sign cannot pass.
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_temperature_gradient"]


def _reference(q, K, V, temperature):
    s = np.asarray(K, dtype=float) @ np.asarray(q, dtype=float)
    z = s / temperature
    a = np.exp(z - z.max())
    a /= a.sum()
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
