"""Property-based tests: what must hold for *every* input, not just hand-picked ones."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from helpers import causal_mask, scaled_dot_product_attention, softmax, softmax_jacobian

finite = st.floats(-50, 50, allow_nan=False, allow_infinity=False, width=64)
dims = st.integers(1, 6)


def matrices(rows, cols, elements=finite):
    return arrays(np.float64, (rows, cols), elements=elements)


@st.composite
def qkv(draw, max_t=6):
    tq, tk, dk, dv = draw(st.integers(1, max_t)), draw(st.integers(1, max_t)), draw(dims), draw(dims)
    small = st.floats(-3, 3, allow_nan=False, width=64)
    return draw(matrices(tq, dk, small)), draw(matrices(tk, dk, small)), draw(matrices(tk, dv, small))


@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 7)), elements=finite))
def test_softmax_rows_are_distributions(x):
    p = softmax(x)
    assert np.all(p >= 0)
    assert np.allclose(p.sum(axis=-1), 1.0)


@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 7)), elements=finite),
       arrays(np.float64, st.tuples(st.just(1), st.just(1)), elements=finite))
def test_softmax_invariant_to_adding_a_constant_per_row(x, c):
    shift = np.linspace(-1, 1, x.shape[0])[:, None] * 1e3 + c
    assert np.allclose(softmax(x + shift), softmax(x), atol=1e-12)


@given(arrays(np.float32, st.integers(1, 8), elements=st.floats(-1e4, 1e4, width=32)))
def test_softmax_stable_at_huge_magnitudes_float32(x):
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        p = softmax(x)
    assert p.dtype == np.float32
    assert np.all(np.isfinite(p)) and np.isclose(p.sum(), 1.0, atol=1e-5)


@given(arrays(np.float64, st.integers(1, 6), elements=st.floats(-5, 5, width=64)))
def test_jacobian_equals_finite_differences(s):
    h = 1e-6
    J = softmax_jacobian(softmax(s))
    numeric = np.empty_like(J)
    for j in range(s.size):
        e = np.zeros_like(s)
        e[j] = h
        numeric[:, j] = (softmax(s + e) - softmax(s - e)) / (2 * h)
    assert np.allclose(J, numeric, atol=1e-7)


@given(qkv(), st.data())
def test_permutation_equivariance(qkv_, data):
    # Self-attention: Q, K, V come from the same tokens, so permute all rows together.
    Q, K, V = qkv_
    T = min(Q.shape[0], K.shape[0])
    Q, K, V = Q[:T], K[:T], V[:T]
    perm = data.draw(st.permutations(range(T)))
    P = np.eye(T)[list(perm)]
    out, w = scaled_dot_product_attention(Q, K, V)
    out_p, w_p = scaled_dot_product_attention(P @ Q, P @ K, P @ V)
    assert np.allclose(out_p, P @ out)
    assert np.allclose(w_p, P @ w @ P.T)


@given(qkv(), st.data())
def test_causality_later_tokens_never_change_earlier_rows(qkv_, data):
    Q, K, V = qkv_
    T = min(Q.shape[0], K.shape[0])
    Q, K, V = Q[:T], K[:T], V[:T]
    i = data.draw(st.integers(0, T - 1))
    out = scaled_dot_product_attention(Q, K, V, mask=causal_mask(T)).output
    noise = data.draw(arrays(np.float64, (T - i - 1, 3), elements=st.floats(-3, 3, width=64)))
    Q2, K2, V2 = Q.copy(), K.copy(), V.copy()
    Q2[i + 1:] += noise[:, :1]
    K2[i + 1:] += noise[:, 1:2]
    V2[i + 1:] += noise[:, 2:3]
    out2 = scaled_dot_product_attention(Q2, K2, V2, mask=causal_mask(T)).output
    assert np.array_equal(out[: i + 1], out2[: i + 1])


@given(qkv(), st.data())
def test_boolean_and_additive_masks_agree(qkv_, data):
    Q, K, V = qkv_
    allowed = data.draw(arrays(np.bool_, (Q.shape[0], K.shape[0])))
    allowed[np.arange(Q.shape[0]), data.draw(st.integers(0, K.shape[0] - 1))] = True  # every row keeps a key
    additive = np.where(allowed, 0.0, -np.inf)
    a = scaled_dot_product_attention(Q, K, V, mask=allowed)
    b = scaled_dot_product_attention(Q, K, V, mask=additive)
    assert np.array_equal(a.weights, b.weights) and np.array_equal(a.output, b.output)
    assert np.all(a.weights[~allowed] == 0.0)


@given(st.integers(1, 3), st.integers(1, 3), qkv(max_t=4), st.data())
def test_batch_dims_agree_with_a_loop(b, h, base, data):
    Q0, K0, V0 = base
    el = st.floats(-3, 3, width=64)
    Q = data.draw(arrays(np.float64, (b, h) + Q0.shape, elements=el))
    K = data.draw(arrays(np.float64, (b, h) + K0.shape, elements=el))
    V = data.draw(arrays(np.float64, (b, h) + V0.shape, elements=el))
    out, w = scaled_dot_product_attention(Q, K, V)
    for i in range(b):
        for j in range(h):
            o, a = scaled_dot_product_attention(Q[i, j], K[i, j], V[i, j])
            assert np.allclose(out[i, j], o) and np.allclose(w[i, j], a)


@given(qkv())
def test_outputs_are_convex_combinations_of_values(qkv_):
    Q, K, V = qkv_
    out, w = scaled_dot_product_attention(Q, K, V)
    assert np.all(w >= 0) and np.allclose(w.sum(-1), 1)
    assert np.all(out <= V.max(axis=0) + 1e-9) and np.all(out >= V.min(axis=0) - 1e-9)
