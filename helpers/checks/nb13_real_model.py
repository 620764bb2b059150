"""Self-checks for 2.13 (attention of a real pretrained encoder).

The hidden cases use random, row-normalised attention tensors, so the checks work
whether or not the model weights have been fetched.
"""

from __future__ import annotations

import math

import numpy as np

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_head_entropy", "check_attention_distance"]


def _random_attention(rng: np.random.Generator, L: int, H: int, T: int) -> np.ndarray:
    a = rng.gamma(0.5, size=(L, H, T, T))
    return a / a.sum(axis=-1, keepdims=True)


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
