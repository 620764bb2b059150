"""Self-checks for 2.13 (attention of a real pretrained encoder).

The hidden cases use random, row-normalised attention tensors, so the checks work
whether or not the model weights have been fetched.
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_previous_token_share", "check_uniform_distance"]


def _random_attention(rng: np.random.Generator, L: int, H: int, T: int) -> np.ndarray:
    a = rng.gamma(0.5, size=(L, H, T, T))
    return a / a.sum(axis=-1, keepdims=True)


# ---- 2.13's exercises (issue 30): questions whose formula the page does not give --------------------------------


def _previous_reference(A):
    L, H, T, _ = A.shape
    out = np.zeros((L, H))
    for layer in range(L):
        for head in range(H):
            out[layer, head] = sum(float(A[layer, head, i, i - 1]) for i in range(1, T)) / (T - 1)
    return out


def _previous_cases(rng):
    """Random attention tensors (L, H, T, T): plain, causal (exact zeros), a perfect previous-token head, T = 2, float32."""
    A1 = _random_attention(rng, 6, 12, 9)
    causal = np.tril(rng.gamma(0.5, size=(3, 2, 6, 6)))
    causal /= causal.sum(axis=-1, keepdims=True)                  # exact zeros above the diagonal
    sharp = np.zeros((1, 2, 5, 5))
    sharp[0, 0, np.arange(5), [0, 0, 1, 2, 3]] = 1.0              # head 1: every token looks at the one before it
    sharp[0, 1, np.arange(5), [1, 2, 3, 4, 4]] = 1.0              # head 2: at the one after it
    two = _random_attention(rng, 2, 3, 2)
    A5 = _random_attention(rng, 2, 2, 7).astype(np.float32)
    return [("6 层 × 12 个头，9 个 token", A1), ("因果注意力（上三角恰好是 0）", causal),
            ("一个头只看前一个 token，另一个头只看后一个", sharp), ("只有 2 个 token", two), ("float32 的注意力", A5)]


def _offdiag(A, offset):
    """The (L, H, T - |offset|) diagonal A[..., i, i + offset] of every head."""
    return np.diagonal(np.asarray(A, dtype=float), offset=offset, axis1=-2, axis2=-1)


_PT_WRONG = [
    Wrong("你取的是每个词分给后一个 token 的权重：前一个 token 在它左边，是比查询小 1 的那个键。",
          lambda A: _offdiag(A, 1).mean(axis=-1)),
    Wrong("你取的是每个词分给自己的权重（对角线）：要的是它分给紧挨在前面的那个 token 的权重。",
          lambda A: _offdiag(A, 0).mean(axis=-1)),
    Wrong("第 1 个 token 前面没有 token：只对有前一个 token 的 T − 1 个查询取平均，不要把第 1 行算进来。",
          lambda A: _offdiag(A, -1).sum(axis=-1) / np.asarray(A).shape[-1]),
    Wrong("第 1 个 token 前面没有 token：你像是让它绕回去看最后一个 token。只对有前一个 token 的查询取平均。",
          lambda A: np.asarray(A, dtype=float)[..., np.arange(np.asarray(A).shape[-1]),
                                              np.arange(np.asarray(A).shape[-1]) - 1].mean(axis=-1)),
    Wrong("每个头的结果是各个查询的平均，不是它们的和。", lambda A: _offdiag(A, -1).sum(axis=-1)),
]


@float_safe
def check_previous_token_share(fn) -> CheckResult:
    """Check ``fn(attn) -> (L, H)``: for each layer and head, the mean over queries i = 2..T (from 1) of the weight
    query i gives to key i - 1. ``attn`` has shape (L, H, T, T), T >= 2, rows summing to 1."""
    rng = np.random.default_rng(20261301)
    hint = "行是查询，列是键：每个查询分给紧挨在它前面的那个 token 多少权重？对有前一个 token 的查询取平均。"
    cases = [Case(label, (A,), _previous_reference(A), hint) for label, A in _previous_cases(rng)]
    return run_diagnosed("check_previous_token_share", fn, cases, wrong=_PT_WRONG, atol=1e-9, rtol=1e-7)


def _uniform_reference(T):
    return sum(abs(i - j) for i in range(T) for j in range(T)) / (T * T)


_UD_WRONG = [
    Wrong("你算的是第 1 个（或最后一个）查询的平均距离：中间的查询离各个键更近，要对所有查询再取平均。",
          lambda T: (T - 1) / 2),
    Wrong("均匀的头也把 1/T 的权重分给了自己（距离 0），这一项要算进平均里：你像是只对另外 T − 1 个键平均。",
          lambda T: (T + 1) / 3),
    Wrong("T/3 只是 T 很大时的近似：短句上差得不少。按定义把每个查询的平均距离算出来，再对查询平均。",
          lambda T: T / 3),
    Wrong("对查询要取平均，不是求和。", lambda T: (T * T - 1) / 3),
    Wrong("整数除法把小数部分丢了：用普通的除法。", lambda T: (T * T - 1) // (3 * T)),
    Wrong("均匀的头不是\"平均看向一半远\"：离查询近的键和远的键一样多地被看，而中间的查询最远也只隔半句。",
          lambda T: T / 2),
]


def check_uniform_distance(fn) -> CheckResult:
    """Check ``fn(T) -> float``: the mean attention distance (mean over queries i of sum_j A_ij |i - j|) of a head
    whose every row is uniform over the T tokens, i.e. (T**2 - 1) / (3 T). The learner computes it: a function that
    reaches ``helpers`` (e.g. ``H.real_model.attention_distance`` of a uniform matrix) is refused."""
    hint = ("均匀的头：每个查询把 1/T 的权重分给每个 token（包括它自己）。先算一个查询的平均距离，"
            "再对所有查询平均；可以先在 T = 2、3 上手算对照。")
    cases = [Case(f"T = {T}", (T,), _uniform_reference(T), hint) for T in (2, 3, 5, 12, 50)]
    cases.insert(0, Case("T = 1", (1,), 0.0, "只有一个 token 时，它只能看自己，距离是 0。"))
    return run_diagnosed("check_uniform_distance", fn, cases, wrong=_UD_WRONG, atol=1e-9, rtol=1e-9,
                         numpy_only=True, ask="你自己按定义算出这个距离（或推出公式）")
