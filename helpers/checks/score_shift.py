"""Self-check for the 2.4 transfer exercise: what adding one vector to every key does to the scores."""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_key_shift"]


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
