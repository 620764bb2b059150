"""Self-checks for 2.13 (attention of a real pretrained encoder).

The hidden cases use random, row-normalised attention tensors, so the checks work
whether or not the model weights have been fetched.
"""

from __future__ import annotations

import math

import numpy as np

from .core import Case, CheckResult, float_safe, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_referent_margin", "check_special_share", "check_head_entropy", "check_attention_distance"]


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


# ---- 2.13 exercises that ask for something new (issue 20): how focused a head is, how far it looks ----------


def _entropy_reference(A):
    L, H, T, _ = A.shape
    out = np.zeros((L, H))
    for layer in range(L):
        for head in range(H):
            total = 0.0
            for q in range(T):
                total -= sum(float(p) * math.log(float(p)) for p in A[layer, head, q] if p > 0)   # 0 log 0 = 0
            out[layer, head] = total / T
    return out


def _distance_reference(A):
    L, H, T, _ = A.shape
    out = np.zeros((L, H))
    for layer in range(L):
        for head in range(H):
            out[layer, head] = sum(float(A[layer, head, i, j]) * abs(i - j) for i in range(T) for j in range(T)) / T
    return out


def _attention_cases(rng):
    """Random attention tensors (L, H, T, T): plain, with causal zeros, one-hot rows, uniform rows, float32."""
    A1 = _random_attention(rng, 6, 12, 9)
    A2 = _random_attention(rng, 2, 3, 5)
    causal = np.tril(rng.gamma(0.5, size=(3, 2, 6, 6)))
    causal /= causal.sum(axis=-1, keepdims=True)                  # exact zeros above the diagonal
    onehot = np.zeros((1, 2, 4, 4))
    onehot[0, 0, np.arange(4), [1, 0, 3, 2]] = 1.0                # every row on one key
    onehot[0, 1] = 0.25                                           # every row uniform
    A5 = _random_attention(rng, 2, 2, 7).astype(np.float32)
    return [("6 层 × 12 个头，9 个 token", A1), ("2 层 × 3 个头，5 个 token", A2),
            ("因果注意力（上三角恰好是 0）", causal), ("一个头每行只看一个键，另一个头每行均匀", onehot),
            ("float32 的注意力", A5)]


def _per_row(stat):
    """A simulated learner's (L, H) answer built from a per-row statistic ``stat(A) -> (L, H, T)``."""
    def fn(attn):
        with np.errstate(all="ignore"):
            return stat(np.asarray(attn, dtype=float)).mean(axis=-1)
    return fn


def _rows_entropy(A, log=np.log, axis=-1):
    with np.errstate(all="ignore"):
        return -np.sum(np.where(A > 0, A * log(np.where(A > 0, A, 1.0)), 0.0), axis=axis)


_HE_WRONG = [
    Wrong("熵要用自然对数（单位 nats）：你用的像是以 2 为底的对数（bits）。",
          _per_row(lambda A: _rows_entropy(A, log=np.log2))),
    Wrong("出现了 NaN：权重恰好为 0 时 0 × log 0 在浮点里是 NaN，但按定义这一项是 0——只对大于 0 的权重求和。",
          _per_row(lambda A: -np.sum(A * np.log(A), axis=-1))),
    Wrong("少了负号：p log p 对 0 < p < 1 是负数，熵是它们之和的相反数，所以熵 ≥ 0。",
          _per_row(lambda A: -_rows_entropy(A))),
    Wrong("每个头的结果是各个查询行的熵的平均，不是它们的和。",
          lambda attn: _rows_entropy(np.asarray(attn, dtype=float)).sum(axis=-1)),
    Wrong("先算每一行的熵，再对查询行取平均；你像是先把各行的权重平均了再算熵（平均分布的熵更大）。",
          lambda attn: _rows_entropy(np.asarray(attn, dtype=float).mean(axis=-2, keepdims=True))[..., 0]),
]


@float_safe
def check_head_entropy(fn) -> CheckResult:
    """Check ``fn(attn) -> (L, H)``: for each layer and head, the mean over query rows of the row's entropy.

    ``attn`` has shape (L, H, T, T), rows summing to 1, possibly with exact zeros; the entropy of a row
    ``p`` is ``-sum_j p_j ln p_j`` in nats with ``0 ln 0 = 0``.
    """
    rng = np.random.default_rng(20260215)
    hint = "每一行是一个概率分布：熵 = −Σ p log p（自然对数），p = 0 的项按 0 算；每个头对它的所有查询行取平均。"
    cases = [Case(label, (A,), _entropy_reference(A), hint) for label, A in _attention_cases(rng)]
    return run_diagnosed("check_head_entropy", fn, cases, wrong=_HE_WRONG, atol=1e-9, rtol=1e-7)


def _pos(A):
    T = A.shape[-1]
    i, j = np.indices((T, T))
    return i, j


_AD_WRONG = [
    Wrong("距离要取绝对值 |i − j|：带符号的 i − j 让看前面和看后面的权重互相抵消。",
          _per_row(lambda A: (A * (_pos(A)[0] - _pos(A)[1])).sum(axis=-1))),
    Wrong("距离要按权重加权：你像是把所有 |i − j| 直接平均了，那与注意力无关。",
          _per_row(lambda A: np.broadcast_to(np.abs(_pos(A)[0] - _pos(A)[1]).mean(axis=-1), A.shape[:-1]))),
    Wrong("每个头的结果是各个查询行的平均距离的平均，不是它们的和。",
          lambda attn: (np.asarray(attn, dtype=float) * np.abs(_pos(np.asarray(attn))[0] - _pos(np.asarray(attn))[1])).sum(axis=(-1, -2))),
    Wrong("距离以 token 为单位，不要再除以序列长度 T。",
          _per_row(lambda A: (A * np.abs(_pos(A)[0] - _pos(A)[1])).sum(axis=-1) / A.shape[-1])),
    Wrong("你返回的是距离的平方加权：要的是 |i − j| 本身的加权平均。",
          _per_row(lambda A: (A * (_pos(A)[0] - _pos(A)[1]) ** 2).sum(axis=-1))),
]


@float_safe
def check_attention_distance(fn) -> CheckResult:
    """Check ``fn(attn) -> (L, H)``: mean over query rows i of ``sum_j attn[l, h, i, j] * |i - j|``.

    ``attn`` has shape (L, H, T, T) (rows summing to 1): how far, in tokens, a head looks on average.
    """
    rng = np.random.default_rng(20260216)
    hint = "查询 i 看得多远：它分给每个键 j 的权重乘上距离 |i − j|，加起来；每个头再对所有查询行取平均。"
    cases = [Case(label, (A,), _distance_reference(A), hint) for label, A in _attention_cases(rng)]
    return run_diagnosed("check_attention_distance", fn, cases, wrong=_AD_WRONG, atol=1e-9, rtol=1e-7)
