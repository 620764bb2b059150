"""Self-check for the 2.8 transfer exercise: the book's 4-token example with a causal mask."""

from __future__ import annotations

import numpy as np

from ..book import exact_values
from .core import Case, CheckResult, run_check

__all__ = ["check_causal_worked_example"]


def _reference() -> tuple[np.ndarray, np.ndarray]:
    ex = exact_values()
    Q, K, V = ex["Q"], ex["K"], ex["V"]
    S = Q @ K.T / np.sqrt(Q.shape[1])
    S = np.where(np.tril(np.ones((4, 4), dtype=bool)), S, -np.inf)
    E = np.exp(S - S.max(axis=1, keepdims=True))
    A = E / E.sum(axis=1, keepdims=True)
    return A, A @ V


def check_causal_worked_example(fn) -> CheckResult:
    """Check ``fn() -> (weights, output)`` for the book's example with a causal mask.

    ``weights`` has shape (4, 4): row i is query i's weights over keys 1..4, where query i
    may only look at keys j <= i (itself and the tokens before it). ``output`` has shape (4, 2).
    Both must match the exact values to 1e-4, so weights rounded to 3 decimals do not pass.
    """
    A, out = _reference()

    def part(k):
        result = fn()
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"请返回一对 (weights, output)；你返回的是 {type(result).__name__}")
        return result[k]

    cases = [
        Case("因果掩码下的权重矩阵 A（4×4）", (0,), A,
             "第 i 行只能把权重分给第 1…i 个键（含自己）；被挡住的键在 softmax 之前就要排除，"
             "这样剩下的权重加起来才是 1。第 1 个 token 只看得见自己。别忘了除以 √d_k。"),
        Case("因果掩码下的输出（4×2）", (1,), out,
             "输出的第 i 行是第 i 行权重对 V 的各行加权求和；用不舍入的权重。"),
    ]
    return run_check("check_causal_worked_example", part, cases, atol=1e-4, rtol=0.0)
