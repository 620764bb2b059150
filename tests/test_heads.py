"""helpers.heads: split/merge by hand, and multi-head attention against an independent per-head loop."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers.core.attention import self_attention
from helpers.core.heads import merge_heads, multi_head_self_attention, split_heads


def _softmax_rows(S):
    # Written here, independent of helpers.softmax.
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def reference_mha(X, W_Q, W_K, W_V, W_O, h, causal=False):
    """One head at a time, slicing the weight matrices' columns: no reshape, no helpers."""
    T = X.shape[0]
    d_k, d_v = W_Q.shape[1] // h, W_V.shape[1] // h
    outs, weights = [], []
    for i in range(h):
        q = X @ W_Q[:, i * d_k:(i + 1) * d_k]
        k = X @ W_K[:, i * d_k:(i + 1) * d_k]
        v = X @ W_V[:, i * d_v:(i + 1) * d_v]
        S = q @ k.T / math.sqrt(d_k)
        if causal:
            S = S + np.triu(np.full((T, T), -np.inf), k=1)
        A = _softmax_rows(S)
        outs.append(A @ v)
        weights.append(A)
    return np.concatenate(outs, axis=1) @ W_O, np.stack(weights)


def _weights(rng, d_model, h, d_k, d_v, d_out):
    return (rng.normal(size=(d_model, h * d_k)), rng.normal(size=(d_model, h * d_k)),
            rng.normal(size=(d_model, h * d_v)), rng.normal(size=(h * d_v, d_out)))


def test_split_heads_by_hand():
    Y = np.arange(12.0).reshape(2, 6)              # T = 2 tokens, width 6
    Z = split_heads(Y, 2)                          # 2 heads of width 3
    assert Z.shape == (2, 2, 3)
    assert np.array_equal(Z[0], [[0, 1, 2], [6, 7, 8]])
    assert np.array_equal(Z[1], [[3, 4, 5], [9, 10, 11]])
    Z3 = split_heads(Y, 3)                         # 3 heads of width 2
    assert np.array_equal(Z3[2], [[4, 5], [10, 11]])


def test_merge_heads_by_hand():
    Z = np.array([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]])  # (h=2, T=2, d=2)
    assert np.array_equal(merge_heads(Z), [[1, 2, 5, 6], [3, 4, 7, 8]])


@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 4), st.integers(0, 2))
def test_split_merge_round_trip(h, T, d_head, n_batch):
    rng = np.random.default_rng(h * 100 + T * 10 + d_head)
    Y = rng.normal(size=(*([3] * n_batch), T, h * d_head))
    Z = split_heads(Y, h)
    assert Z.shape == (*Y.shape[:-2], h, T, d_head)
    assert np.array_equal(merge_heads(Z), Y)
    for i in range(h):
        assert np.array_equal(Z[..., i, :, :], Y[..., i * d_head:(i + 1) * d_head])


@pytest.mark.parametrize("h, d_k, d_v, d_out, causal", [
    (1, 4, 4, 4, False), (2, 4, 4, 8, False), (4, 2, 2, 8, True), (3, 2, 5, 6, False), (2, 3, 1, 2, True),
])
def test_multi_head_matches_per_head_loop(h, d_k, d_v, d_out, causal):
    rng = np.random.default_rng(h * 7 + d_v)
    T, d_model = 6, 8
    X = rng.normal(size=(T, d_model))
    W = _weights(rng, d_model, h, d_k, d_v, d_out)
    res = multi_head_self_attention(X, *W, n_heads=h, causal=causal)
    ref_out, ref_w = reference_mha(X, *W, h, causal=causal)
    assert res.output.shape == (T, d_out) and res.weights.shape == (h, T, T)
    assert np.allclose(res.output, ref_out, rtol=1e-10, atol=1e-12)
    assert np.allclose(res.weights, ref_w, rtol=1e-10, atol=1e-12)
    assert np.allclose(res.weights.sum(axis=-1), 1.0)
    if causal:
        assert np.all(res.weights[:, np.triu_indices(T, k=1)[0], np.triu_indices(T, k=1)[1]] == 0.0)


def test_one_head_is_the_chapter_formula_then_W_O():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(5, 6))
    W_Q, W_K, W_V, W_O = _weights(rng, 6, 1, 3, 4, 6)
    single = self_attention(X, W_Q, W_K, W_V)
    res = multi_head_self_attention(X, W_Q, W_K, W_V, W_O, n_heads=1)
    assert np.allclose(res.output, single.output @ W_O)
    assert np.allclose(res.weights[0], single.weights)


def test_batch_equals_each_sequence_alone():
    rng = np.random.default_rng(12)
    Xb = rng.normal(size=(3, 5, 8))
    W = _weights(rng, 8, 2, 4, 4, 8)
    res = multi_head_self_attention(Xb, *W, n_heads=2, causal=True)
    assert res.output.shape == (3, 5, 8) and res.weights.shape == (3, 2, 5, 5)
    for b in range(3):
        out_b, w_b = reference_mha(Xb[b], *W, 2, causal=True)
        assert np.allclose(res.output[b], out_b) and np.allclose(res.weights[b], w_b)


def test_reordering_the_heads_changes_nothing():
    # Swap head 0 and head 1 everywhere (columns of W_Q/W_K/W_V, rows of W_O): same output.
    rng = np.random.default_rng(13)
    X = rng.normal(size=(4, 6))
    W_Q, W_K, W_V, W_O = _weights(rng, 6, 2, 3, 3, 6)
    swap = np.r_[3:6, 0:3]
    a = multi_head_self_attention(X, W_Q, W_K, W_V, W_O, 2)
    b = multi_head_self_attention(X, W_Q[:, swap], W_K[:, swap], W_V[:, swap], W_O[swap], 2)
    assert np.allclose(a.output, b.output)
    assert np.allclose(a.weights, b.weights[::-1])


def test_heads_are_not_one_wide_head():
    # Splitting is not a no-op: 2 heads of width 2 differ from 1 head of width 4 (same weights).
    rng = np.random.default_rng(14)
    X = rng.normal(size=(5, 4))
    W = _weights(rng, 4, 2, 2, 2, 4)
    assert not np.allclose(multi_head_self_attention(X, *W, n_heads=2).output,
                           multi_head_self_attention(X, *W, n_heads=1).output)


def test_permutation_equivariance_survives_many_heads():
    rng = np.random.default_rng(15)
    X = rng.normal(size=(6, 8))
    W = _weights(rng, 8, 4, 2, 2, 8)
    perm = rng.permutation(6)
    out = multi_head_self_attention(X, *W, n_heads=4).output
    assert np.allclose(multi_head_self_attention(X[perm], *W, n_heads=4).output, out[perm])


def test_validation_messages():
    rng = np.random.default_rng(16)
    X = rng.normal(size=(4, 6))
    W_Q, W_K, W_V, W_O = _weights(rng, 6, 2, 3, 3, 6)
    with pytest.raises(ValueError, match="divisible by n_heads=4"):
        split_heads(X, 4)
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        split_heads(np.ones(6), 2)
    with pytest.raises(ValueError, match="at least 3 dimensions"):
        merge_heads(np.ones((4, 6)))
    with pytest.raises(TypeError, match="n_heads must be a positive integer"):
        split_heads(X, 2.0)
    with pytest.raises(TypeError, match="n_heads"):
        multi_head_self_attention(X, W_Q, W_K, W_V, W_O, True)
    with pytest.raises(ValueError, match="n_heads must be a positive integer"):
        multi_head_self_attention(X, W_Q, W_K, W_V, W_O, 0)
    with pytest.raises(ValueError, match="W_Q/W_K has 6 columns, which n_heads=4"):
        multi_head_self_attention(X, W_Q, W_K, W_V, W_O, 4)
    with pytest.raises(ValueError, match="W_V has 5 columns"):
        multi_head_self_attention(X, W_Q, W_K, W_V[:, :5], W_O[:5], 2)
    with pytest.raises(ValueError, match=r"W_O must have h\*d_v = 6 rows"):
        multi_head_self_attention(X, W_Q, W_K, W_V, W_O[:4], 2)
    with pytest.raises(ValueError, match="d_model=6 rows"):
        multi_head_self_attention(X, W_Q[:5], W_K, W_V, W_O, 2)
