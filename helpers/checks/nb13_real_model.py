"""Self-checks for 2.13 (attention of a real pretrained encoder).

The hidden cases use random, row-normalised attention tensors, so the checks work
whether or not the model weights have been fetched.
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_referent_margin", "check_special_share"]


def _random_attention(rng: np.random.Generator, L: int, H: int, T: int) -> np.ndarray:
    a = rng.gamma(0.5, size=(L, H, T, T))
    return a / a.sum(axis=-1, keepdims=True)


def _margin_reference(A, i, a, b):
    L, H = A.shape[:2]
    out = np.empty((L, H))
    for layer in range(L):
        for head in range(H):
            out[layer, head] = A[layer, head, i, a] - A[layer, head, i, b]
    return out


def _share_reference(A, positions):
    L, H, T, _ = A.shape
    total = 0.0
    for layer in range(L):
        for head in range(H):
            for q in range(T):
                total += sum(A[layer, head, q, p] for p in positions)
    return total / (L * H * T)


@float_safe
def check_referent_margin(fn) -> CheckResult:
    """Check ``fn(attn, i, a, b) -> (L, H)`` array of attn[l, h, i, a] - attn[l, h, i, b]."""
    rng = np.random.default_rng(20260213)
    A1, A2 = _random_attention(rng, 6, 12, 9), _random_attention(rng, 2, 3, 5)
    cases = [
        Case("6 层 × 12 个头，9 个 token", (A1, 6, 2, 4), _margin_reference(A1, 6, 2, 4),
             "在所有层、所有头上同时取查询行 i 与两个键列 a、b；结果每层每头一个数，形状 (L, H)。"),
        Case("2 层 × 3 个头，a 在 b 之后", (A2, 1, 4, 0), _margin_reference(A2, 1, 4, 0),
             "结果是 i 对 a 的权重减去 i 对 b 的权重，顺序不能反；行是查询、列是键，不要取成列 i。"),
        Case("查询关注它自己", (A2, 3, 3, 2), _margin_reference(A2, 3, 3, 2),
             "a == i 时没有任何特殊之处：仍然是对 a 的权重减去对 b 的权重。"),
    ]
    return run_check("check_referent_margin", fn, cases, atol=1e-12, rtol=1e-9)


@float_safe
def check_special_share(fn) -> CheckResult:
    """Check ``fn(attn, positions) -> float``: mean over layers, heads and query rows of the weight on ``positions``."""
    rng = np.random.default_rng(20260214)
    A1, A2 = _random_attention(rng, 6, 12, 8), _random_attention(rng, 3, 2, 4)
    cases = [
        Case("8 个 token 中的 [CLS] 与 [SEP]", (A1, [0, 7]), _share_reference(A1, [0, 7]),
             "每一行先把给定键列上的权重加起来，再对层、头和查询行取平均。"),
        Case("只有一个位置", (A2, [0]), _share_reference(A2, [0]),
             "只有一个位置时，答案就是这一键列上的权重对其余所有轴的平均。"),
        Case("所有位置", (A2, [0, 1, 2, 3]), 1.0,
             "注意力矩阵的每一行和为 1，所以所有位置的份额必须是 1（是求和后平均，不是对位置取平均）。"),
    ]
    return run_check("check_special_share", fn, cases, atol=1e-12, rtol=1e-9)
