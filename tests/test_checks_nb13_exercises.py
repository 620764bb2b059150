"""2.13's exercises that replaced re-typing ones (issue 20): the mean row entropy of every head and the mean
attention distance of every head, on (L, H, T, T) tensors. Correct variants (loops, einsum, float32) it must
accept, the classic wrong answers with the words of the hint that must name each mistake."""

import numpy as np
from check_verdicts import check_table

from helpers.checks import check_attention_distance, check_head_entropy


def entropy_where(attn):
    A = np.asarray(attn)
    plogp = np.where(A > 0, A * np.log(np.where(A > 0, A, 1.0)), 0.0)
    return -plogp.sum(axis=-1).mean(axis=-1)


def entropy_loops(attn):
    L, H, T, _ = attn.shape
    return [[float(np.mean([-sum(p * np.log(p) for p in row if p > 0) for row in attn[l, h]])) for h in range(H)]
            for l in range(L)]


def entropy_xlogy_like(attn):
    A = np.asarray(attn)
    safe = np.clip(A, np.finfo(A.dtype).tiny, None)
    return -np.einsum("lhqk,lhqk->lhq", A, np.log(safe)).mean(axis=-1)


def entropy_float32(attn):
    return entropy_where(np.asarray(attn, dtype=np.float32))


def _nan_entropy(attn):
    with np.errstate(all="ignore"):
        return -(attn * np.log(attn)).sum(-1).mean(-1)


test_head_entropy_accepts, test_head_entropy_rejects = check_table(
    check_head_entropy,
    [entropy_where, entropy_loops, entropy_xlogy_like, entropy_float32],
    {"log2": (lambda A: entropy_where(A) / np.log(2), "以 2 为底"),
     "0 log 0": (_nan_entropy, "0 × log 0"),
     "no minus": (lambda A: -entropy_where(A), "负号"),
     "sum over rows": (lambda A: entropy_where(A) * A.shape[-1], "不是它们的和"),
     "entropy of the mean row": (lambda A: entropy_where(np.asarray(A).mean(axis=-2, keepdims=True)), "先把各行的权重平均"),
     "1.04x": lambda A: 1.04 * entropy_where(A),
     "a string": (lambda A: "entropy", "字符串")})


def distance_indices(attn):
    A = np.asarray(attn)
    T = A.shape[-1]
    d = np.abs(np.arange(T)[:, None] - np.arange(T)[None, :])
    return (A * d).sum(axis=-1).mean(axis=-1)


def distance_einsum(attn):
    T = attn.shape[-1]
    d = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    return np.einsum("lhij,ij->lh", attn, d) / T


def distance_loops(attn):
    L, H, T, _ = attn.shape
    return [[sum(attn[l, h, i, j] * abs(i - j) for i in range(T) for j in range(T)) / T for h in range(H)]
            for l in range(L)]


def distance_float32(attn):
    return distance_indices(np.asarray(attn, dtype=np.float32)).astype(np.float32)


def _signed(A):
    T = A.shape[-1]
    return (A * (np.arange(T)[:, None] - np.arange(T)[None, :])).sum(-1).mean(-1)


test_attention_distance_accepts, test_attention_distance_rejects = check_table(
    check_attention_distance,
    [distance_indices, distance_einsum, distance_loops, distance_float32],
    {"signed": (_signed, "绝对值"),
     "unweighted": (lambda A: np.broadcast_to(np.abs(np.subtract.outer(np.arange(A.shape[-1]), np.arange(A.shape[-1]))).mean(),
                                              A.shape[:2]).copy(), "按权重加权"),
     "sum over rows": (lambda A: distance_indices(A) * A.shape[-1], "不是它们的和"),
     "divided by T": (lambda A: distance_indices(A) / A.shape[-1], "除以序列长度"),
     "squared": (lambda A: (A * np.subtract.outer(np.arange(A.shape[-1]), np.arange(A.shape[-1])) ** 2).sum(-1).mean(-1), "平方"),
     "1.04x": lambda A: 1.04 * distance_indices(A),
     "None": (lambda A: None, "return")})
