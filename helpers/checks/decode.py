"""Self-check for the transfer exercise of 2.1: read a contextual vector back as a word.

    from helpers.checks import check_nearest_word

The learner writes ``fn(c, E) -> int``: the index of the row of ``E`` (one word vector per
row) whose direction is closest to ``c``, i.e. the largest cosine similarity. The hidden
cases are built so that the classic substitutes (plain dot product, Euclidean distance,
absolute cosine, argmin) each pick a different row.
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_nearest_word"]


def _nearest_by_cosine(c, E):
    c = np.asarray(c, dtype=float)
    E = np.asarray(E, dtype=float)
    cos = (E @ c) / (np.linalg.norm(E, axis=1) * np.linalg.norm(c))
    return int(np.argmax(cos))


def check_nearest_word(fn) -> CheckResult:
    """Check ``fn(c, E) -> int``: index of the row of ``E`` (shape (V, d)) with the largest cosine to ``c`` (shape (d,))."""
    rng = np.random.default_rng(20260213)
    # a long vector wins the dot product, a short well-aligned one wins the cosine
    c_len = np.array([1.0, 0.2, 0.0])
    E_len = np.array([[0.0, 0.0, 1.0], [1.0, 0.25, 0.0], [6.0, 6.0, 0.0]])
    # Euclidean distance prefers the short vector near the origin; the cosine ignores length
    c_euc = np.array([4.0, 4.0, 0.0])
    E_euc = np.array([[1.0, 0.0, 0.0], [0.3, 0.3, 0.0], [6.0, 0.5, 0.0], [0.0, 0.0, 3.0]])
    # the exact opposite direction has |cos| = 1 but cos = -1
    c_neg = np.array([0.0, 1.0, 1.0, 0.0])
    E_neg = np.array([[0.0, -2.0, -2.0, 0.0], [0.0, 1.0, 0.3, 0.2], [1.0, 0.0, 0.0, 0.0]])
    c_rand = rng.normal(size=7)
    E_rand = rng.normal(size=(12, 7)) * rng.uniform(0.2, 5.0, size=(12, 1))
    cases = [
        Case("一个很长的词向量", (c_len, E_len), _nearest_by_cosine(c_len, E_len),
             "点积会偏向长向量；余弦相似度（cosine similarity）要除以两个向量的长度。"),
        Case("离原点很近的短词向量", (c_euc, E_euc), _nearest_by_cosine(c_euc, E_euc),
             "欧氏距离（Euclidean distance）最近不等于方向最近：比较的是夹角，不是距离。"),
        Case("方向正好相反的词向量", (c_neg, E_neg), _nearest_by_cosine(c_neg, E_neg),
             "不要取绝对值：方向相反的余弦是 -1，是最不像的。"),
        Case("12 个随机长度的 7 维词向量", (c_rand, E_rand), _nearest_by_cosine(c_rand, E_rand),
             "对每一行算余弦，返回最大值所在的行号（从 0 开始的整数）。"),
    ]
    return run_check("check_nearest_word", fn, cases, atol=0.0, rtol=0.0,
                     general_hint="返回一个整数：E 里与 c 夹角最小（余弦最大）的那一行的下标。")
