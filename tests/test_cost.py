"""Operation and byte counts of helpers.cost, against hand-derived numbers and an
independent reference that *counts* the operations of naive Python loops."""

import math

import numpy as np
import pytest

from helpers.lessons.cost import (
    AdditiveCost,
    additive_hidden_bytes,
    additive_score_cost,
    additive_score_flops,
    dot_flops,
    dot_product_score_flops,
    dtype_bytes,
    matmul_flops,
    score_matrix_bytes,
    score_matrix_cost,
)


class Tally:
    """Counts every +, * and tanh performed by code written with plain Python numbers."""

    def __init__(self):
        self.adds = self.muls = self.tanhs = 0


class Num:
    """A float that reports each arithmetic operation to a Tally."""

    def __init__(self, value, tally):
        self.v, self.t = float(value), tally

    def __add__(self, other):
        self.t.adds += 1
        return Num(self.v + other.v, self.t)

    def __mul__(self, other):
        self.t.muls += 1
        return Num(self.v * other.v, self.t)

    def tanh(self):
        self.t.tanhs += 1
        return Num(math.tanh(self.v), self.t)


def naive_dot(a, b, *, from_zero):
    """Dot product; ``from_zero`` starts the sum at 0 (gemm convention), else at a[0]*b[0]."""
    if from_zero:
        acc = Num(0.0, a[0].t)
        for x, y in zip(a, b):
            acc = acc + x * y
        return acc
    acc = a[0] * b[0]
    for x, y in zip(a[1:], b[1:]):
        acc = acc + x * y
    return acc


def counted_matrix(shape, tally, seed):
    rng = np.random.default_rng(seed)
    return [[Num(v, tally) for v in row] for row in rng.normal(size=shape)]


def count_dot_scores(T_q, T_k, d_k, from_zero):
    t = Tally()
    Q, K = counted_matrix((T_q, d_k), t, 0), counted_matrix((T_k, d_k), t, 1)
    for q in Q:
        for k in K:
            naive_dot(q, k, from_zero=from_zero)
    return t


def count_additive_scores(T_q, T_k, d_q, d_kk, d_h, from_zero):
    t = Tally()
    Q, K = counted_matrix((T_q, d_q), t, 2), counted_matrix((T_k, d_kk), t, 3)
    Wq, Wk = counted_matrix((d_h, d_q), t, 4), counted_matrix((d_h, d_kk), t, 5)  # rows = hidden units
    w = counted_matrix((1, d_h), t, 6)[0]
    t.adds = t.muls = 0
    pq = [[naive_dot(q, col, from_zero=from_zero) for col in Wq] for q in Q]
    pk = [[naive_dot(k, col, from_zero=from_zero) for col in Wk] for k in K]
    projections = t.adds + t.muls
    for a in pq:
        for b in pk:
            hidden = [(x + y).tanh() for x, y in zip(a, b)]
            naive_dot(w, hidden, from_zero=from_zero)
    return t, projections


# ---- hand-derived numbers -------------------------------------------------

def test_dot_flops_by_hand():
    # (1,2,3).(4,5,6): 3 multiplies, 2 adds (exact) or 3 adds into a zero accumulator (gemm).
    assert dot_flops(3, convention="exact") == 5
    assert dot_flops(3) == 6
    assert dot_flops(1, convention="exact") == 1  # a single product, no add


def test_matmul_and_score_flops_by_hand():
    # (2, 3) @ (3, 4): 8 outputs, each 3 mul + 2 add = 5 -> 40; gemm 2*2*3*4 = 48.
    assert matmul_flops(2, 3, 4, convention="exact") == 40
    assert matmul_flops(2, 3, 4) == 48
    # S = Q K^T with T=4 tokens, d_k=64: 16 dot products of 128 (gemm) or 127 (exact) flops.
    assert dot_product_score_flops(4, 64) == 16 * 128 == 2048
    assert dot_product_score_flops(4, 64, convention="exact") == 16 * 127 == 2032
    # Cross-attention: 3 queries, 5 keys.
    assert dot_product_score_flops(3, 2, T_k=5) == 15 * 4


def test_additive_breakdown_by_hand():
    # T_q=2, T_k=3, d_q=4, d_kk=5, d_h=6, gemm convention:
    #   projections: Q W_q = 2*6 dots of length 4 -> 12*8 = 96; K W_k = 3*6 dots of length 5 -> 18*10 = 180
    #   per pair (6 pairs): 6 adds + 6 tanh + dot with w of length 6 (12) = 24 -> 144
    c = additive_score_cost(2, 4, 6, T_k=3, d_kk=5)
    assert c == AdditiveCost(projections=276, pair_adds=36, tanh=36, reduce=72)
    assert c.pairwise == 144 and c.total == 420
    assert additive_score_flops(2, 4, 6, T_k=3, d_kk=5) == 420
    # Exact convention: dots of length 4, 5, 6 cost 7, 9, 11.
    e = additive_score_cost(2, 4, 6, T_k=3, d_kk=5, convention="exact")
    assert e == AdditiveCost(projections=12 * 7 + 18 * 9, pair_adds=36, tanh=36, reduce=6 * 11)
    # A tanh that costs 10 flops multiplies only that field.
    assert additive_score_cost(2, 4, 6, T_k=3, d_kk=5, tanh_flops=10).tanh == 360


def test_additive_costs_more_than_dot_per_pair_for_equal_widths():
    # Pairwise: 4*d_h (gemm, tanh=1) versus 2*d_k; the ratio tends to 2 as T grows (projections amortise).
    d = 64
    for T in (16, 256, 4096):
        ratio = additive_score_flops(T, d, d) / dot_product_score_flops(T, d)
        assert 2.0 < ratio
    big = additive_score_flops(10**6, d, d) / dot_product_score_flops(10**6, d)
    assert abs(big - 2.0) < 1e-3


# ---- the independent counting reference -----------------------------------

@pytest.mark.parametrize("T_q, T_k, d_k", [(1, 1, 1), (2, 3, 4), (3, 2, 5)])
@pytest.mark.parametrize("convention", ["gemm", "exact"])
def test_dot_scores_match_counted_loops(T_q, T_k, d_k, convention):
    t = count_dot_scores(T_q, T_k, d_k, from_zero=(convention == "gemm"))
    assert t.adds + t.muls == dot_product_score_flops(T_q, d_k, T_k=T_k, convention=convention)


@pytest.mark.parametrize("T_q, T_k, d_q, d_kk, d_h", [(1, 1, 1, 1, 1), (2, 3, 4, 2, 3), (3, 2, 2, 3, 4)])
@pytest.mark.parametrize("convention", ["gemm", "exact"])
def test_additive_scores_match_counted_loops(T_q, T_k, d_q, d_kk, d_h, convention):
    t, projections = count_additive_scores(T_q, T_k, d_q, d_kk, d_h, from_zero=(convention == "gemm"))
    c = additive_score_cost(T_q, d_q, d_h, T_k=T_k, d_kk=d_kk, convention=convention)
    assert c.projections == projections
    assert c.tanh == t.tanhs == T_q * T_k * d_h
    assert c.total == t.adds + t.muls + t.tanhs


# ---- bytes ------------------------------------------------------------------

def test_bytes_by_hand():
    assert dtype_bytes(np.float32) == 4 and dtype_bytes("float64") == 8 and dtype_bytes(np.float16) == 2
    assert dtype_bytes("bfloat16") == 2
    # A 1024 x 1024 float32 score matrix is exactly 4 MiB.
    assert score_matrix_bytes(1024) == 4 * 2**20
    # 10,000 tokens: 10^8 scores (the chapter's number), 4*10^8 bytes in float32.
    assert score_matrix_bytes(10_000) == 400_000_000
    # batch 2, 8 heads, 3 x 5 cross-attention scores in float64: 2*8*15*8 bytes.
    assert score_matrix_bytes(3, 5, dtype=np.float64, batch=2, heads=8) == 1920
    # The additive hidden tensor is d_h times the score matrix.
    assert additive_hidden_bytes(16, 64, dtype="float32") == 16 * 16 * 64 * 4


def test_score_matrix_cost_bundles_the_three_numbers():
    c = score_matrix_cost(4, 64, dtype="bfloat16", batch=2, heads=3)
    assert c.elements == 2 * 3 * 16
    assert c.flops == 2 * 3 * 16 * 128
    assert c.bytes == 2 * 3 * 16 * 2
    # Doubling T quadruples elements, flops and bytes.
    a, b = score_matrix_cost(100, 32), score_matrix_cost(200, 32)
    assert (b.elements, b.flops, b.bytes) == (4 * a.elements, 4 * a.flops, 4 * a.bytes)


def test_counts_are_exact_python_ints_for_huge_sizes():
    n = score_matrix_cost(10**6, 128, heads=64, batch=64).flops
    assert isinstance(n, int) and n == 64 * 64 * 10**12 * 256


# ---- validation ---------------------------------------------------------------

@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: dot_flops(0), ValueError, "d must be a positive integer"),
        (lambda: dot_flops(2.5), TypeError, "d must be a positive integer"),
        (lambda: dot_flops(3, convention="fma"), ValueError, "convention must be one of"),
        (lambda: dot_product_score_flops(4, 0), ValueError, "d_k"),
        (lambda: dot_product_score_flops(4, 8, T_k=-1), ValueError, "T_k"),
        (lambda: additive_score_cost(4, 8, 0), ValueError, "d_h"),
        (lambda: additive_score_cost(4, 0, 8), ValueError, "d_q"),
        (lambda: additive_score_cost(4, 8, 8, tanh_flops=-1), ValueError, "tanh_flops"),
        (lambda: additive_score_cost(4, 8, 8, tanh_flops="10"), TypeError, "tanh_flops must be a real number"),
        (lambda: additive_score_cost(4, 8, 8, tanh_flops=float("nan")), ValueError, "tanh_flops"),
        (lambda: score_matrix_bytes(4, dtype=np.int32), TypeError, "floating"),
        (lambda: score_matrix_bytes(4, dtype="not-a-dtype"), TypeError, "dtype"),
        (lambda: score_matrix_bytes(4, heads=0), ValueError, "heads"),
        (lambda: score_matrix_cost(True, 8), TypeError, "T_q"),
    ],
)
def test_bad_arguments_are_named(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
