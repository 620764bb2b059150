"""2.9's exercises that replaced re-typing ones (issue 20): the longest context a memory budget allows
(an int), and the dependencies of stacked local attention (a bool matrix). Correct variants it must accept,
the classic wrong answers with the words of the hint that must name each mistake."""

import math

import numpy as np
from check_verdicts import check_table

from helpers.checks import check_max_context, check_stacked_window_dependency


def max_context_isqrt(budget_bytes, itemsize, batch=1, heads=1):
    return math.isqrt(budget_bytes // (batch * heads * itemsize))


def max_context_float_sqrt(budget_bytes, itemsize, batch=1, heads=1):
    return int(np.sqrt(budget_bytes / (batch * heads * itemsize)))


def max_context_loop(budget_bytes, itemsize, batch=1, heads=1):
    T = 0
    while batch * heads * (T + 1) ** 2 * itemsize <= budget_bytes:
        T += 1
    return T


def max_context_numpy_int(budget_bytes, itemsize, batch=1, heads=1):
    return np.int64(np.floor(np.sqrt(budget_bytes / (batch * heads * itemsize))))


test_max_context_accepts, test_max_context_rejects = check_table(
    check_max_context,
    [max_context_isqrt, max_context_float_sqrt, max_context_loop, max_context_numpy_int],
    {"entries, not length": (lambda b, s, batch=1, heads=1: b // (s * batch * heads), "T²"),
     "bits": (lambda b, s, batch=1, heads=1: int(np.sqrt(b / (8 * s * batch * heads))), "比特"),
     "no batch, no heads": (lambda b, s, batch=1, heads=1: int(np.sqrt(b / s)), "batch 和 heads"),
     "no heads": (lambda b, s, batch=1, heads=1: int(np.sqrt(b / (s * batch))), "漏掉了 heads"),
     "no itemsize": (lambda b, s, batch=1, heads=1: int(np.sqrt(b / (batch * heads))), "漏掉了 itemsize"),
     "rounded": (lambda b, s, batch=1, heads=1: round(math.sqrt(b / (s * batch * heads))), "越过预算"),
     "ceil": (lambda b, s, batch=1, heads=1: math.ceil(math.sqrt(b / (s * batch * heads))), "越过预算"),
     "one too many": (lambda b, s, batch=1, heads=1: math.isqrt(b // (s * batch * heads)) + 1, "第一个放不下"),
     "a float": (lambda b, s, batch=1, heads=1: float(math.isqrt(b // (s * batch * heads))), "整数（int）"),
     "None": (lambda b, s, batch=1, heads=1: None, "return")},
)


def stacked_indices(T, radius, layers):
    i, j = np.indices((T, T))
    return np.abs(i - j) <= radius * layers


def stacked_by_matrix_powers(T, radius, layers):
    one = (np.abs(np.subtract.outer(np.arange(T), np.arange(T))) <= radius).astype(int)
    D = np.eye(T, dtype=int)
    for _ in range(layers):
        D = D @ one
    return D > 0


def stacked_loops(T, radius, layers):
    return np.array([[abs(i - j) <= radius * layers for j in range(T)] for i in range(T)])


test_stacked_accepts, test_stacked_rejects = check_table(
    check_stacked_window_dependency,
    [stacked_indices, stacked_by_matrix_powers, stacked_loops],
    {"one layer": (lambda T, r, L: np.abs(np.subtract.outer(np.arange(T), np.arange(T))) <= r, "只算了一层"),
     "multiplied": (lambda T, r, L: np.abs(np.subtract.outer(np.arange(T), np.arange(T))) <= r**L, "不是相乘"),
     "causal only": (lambda T, r, L: np.tril(stacked_indices(T, r, L)), "双向"),
     "strict": (lambda T, r, L: np.abs(np.subtract.outer(np.arange(T), np.arange(T))) < r * L, "边界差了一"),
     "one further": (lambda T, r, L: np.abs(np.subtract.outer(np.arange(T), np.arange(T))) <= r * L + 1, "边界差了一"),
     "an int matrix": (lambda T, r, L: stacked_indices(T, r, L).astype(int), "布尔"),
     "all connected": (lambda T, r, L: np.ones((T, T), dtype=bool), "提示（hint）")})
