"""Self-checks for the exercises of 2.13 (attention of a real pretrained encoder).

The hidden cases use random, row-normalised attention tensors, so the checks work
whether or not the model weights have been fetched.
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

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


def check_referent_margin(fn) -> CheckResult:
    """Check ``fn(attn, i, a, b) -> (L, H)`` array of attn[l, h, i, a] - attn[l, h, i, b]."""
    rng = np.random.default_rng(20260213)
    A1, A2 = _random_attention(rng, 6, 12, 9), _random_attention(rng, 2, 3, 5)
    cases = [
        Case("6 layers x 12 heads, 9 tokens", (A1, 6, 2, 4), _margin_reference(A1, 6, 2, 4),
             "index the query row i and the two key columns a and b in every layer and head at once: attn[:, :, i, a]."),
        Case("2 layers x 3 heads, a after b", (A2, 1, 4, 0), _margin_reference(A2, 1, 4, 0),
             "the result is weight(i -> a) minus weight(i -> b), in that order."),
        Case("a query attending to itself", (A2, 3, 3, 2), _margin_reference(A2, 3, 3, 2),
             "nothing special when a == i: still attn[:, :, i, a] - attn[:, :, i, b]."),
    ]
    return run_check("check_referent_margin", fn, cases, atol=1e-12, rtol=1e-9)


def check_special_share(fn) -> CheckResult:
    """Check ``fn(attn, positions) -> float``: mean over layers, heads and query rows of the weight on ``positions``."""
    rng = np.random.default_rng(20260214)
    A1, A2 = _random_attention(rng, 6, 12, 8), _random_attention(rng, 3, 2, 4)
    cases = [
        Case("[CLS] and [SEP] of 8 tokens", (A1, [0, 7]), _share_reference(A1, [0, 7]),
             "sum the weights on the given key columns for each row, then average over layers, heads and rows."),
        Case("a single position", (A2, [0]), _share_reference(A2, [0]),
             "with one position the answer is the mean of attn[..., p] over everything else."),
        Case("every position", (A2, [0, 1, 2, 3]), 1.0,
             "every row of an attention matrix sums to 1, so the share of all positions must be 1."),
    ]
    return run_check("check_special_share", fn, cases, atol=1e-12, rtol=1e-9)
