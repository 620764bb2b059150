"""helpers.attention_properties: permutation matrices, finite-difference sensitivity, the toy RNN."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import causal_mask, scaled_dot_product_attention
from helpers.lessons.attention_properties import permutation_matrix, sensitivity_matrix, toy_rnn


@given(st.permutations(list(range(6))))
def test_permutation_matrix_reorders_rows_and_is_orthogonal(perm):
    X = np.arange(6 * 2, dtype=float).reshape(6, 2)
    P = permutation_matrix(perm)
    assert np.array_equal(P @ X, X[perm])
    assert np.array_equal(P @ P.T, np.eye(6))


def test_permutation_matrix_hand_example():
    assert permutation_matrix([2, 0, 1]).tolist() == [[0, 0, 1], [1, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize("bad, err", [([0, 0, 1], ValueError), ([1, 2, 3], ValueError), ([[0, 1]], ValueError),
                                      (np.array([], dtype=int), ValueError), ([0.0, 1.0], TypeError), ([True, False], TypeError)])
def test_permutation_matrix_rejects_non_permutations(bad, err):
    with pytest.raises(err, match="perm"):
        permutation_matrix(np.array(bad))


def test_sensitivity_of_a_linear_map_is_the_exact_block_norm():
    # f(X) = A X B: d f[i, a] / d X[j, b] = A[i, j] B[b, a], so S[i, j] = |A[i, j]| * ||B||_F.
    rng = np.random.default_rng(1)
    A, B = rng.normal(size=(3, 4)), rng.normal(size=(2, 5))
    X = rng.normal(size=(4, 2))
    S = sensitivity_matrix(lambda Z: A @ Z @ B, X)
    assert S.shape == (3, 4)
    assert np.allclose(S, np.abs(A) * np.linalg.norm(B), rtol=1e-6)


def test_sensitivity_sees_exact_independence():
    # Row i of the output depends only on rows <= i (a cumulative sum): zeros above the diagonal.
    X = np.random.default_rng(2).normal(size=(5, 3))
    S = sensitivity_matrix(lambda Z: np.cumsum(Z, axis=0), X)
    assert np.all(S[np.triu_indices(5, k=1)] == 0.0)
    assert np.allclose(S[np.tril_indices(5)], np.sqrt(3))


def test_attention_sensitivity_is_dense_and_causal_sensitivity_is_lower_triangular():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(5, 4))
    W = [rng.normal(size=(4, 4)) for _ in range(3)]

    def attend(Z, mask=None):
        return scaled_dot_product_attention(Z @ W[0], Z @ W[1], Z @ W[2], mask=mask).output

    assert np.all(sensitivity_matrix(attend, X) > 1e-6)
    Sc = sensitivity_matrix(lambda Z: attend(Z, causal_mask(5)), X)
    assert np.all(Sc[np.triu_indices(5, k=1)] == 0.0) and np.all(Sc[np.tril_indices(5)] > 1e-6)


def test_sensitivity_validation():
    with pytest.raises(TypeError, match="f must be a function"):
        sensitivity_matrix(3, np.ones((2, 2)))
    with pytest.raises(ValueError, match="eps"):
        sensitivity_matrix(lambda Z: Z, np.ones((2, 2)), eps=0)
    with pytest.raises(ValueError, match="X must be 2-D"):
        sensitivity_matrix(lambda Z: Z, np.ones(3))
    with pytest.raises(ValueError, match=r"f\(X\) must be 2-D"):
        sensitivity_matrix(lambda Z: Z.sum(), np.ones((2, 2)))
    with pytest.raises(ValueError, match="non-finite"):  # finite at X, infinite one step away
        sensitivity_matrix(lambda Z: np.where(Z > 0.5, np.inf, Z), np.full((2, 2), 0.5))


def test_toy_rnn_matches_a_hand_unrolled_recurrence():
    rng = np.random.default_rng(4)
    X, W_x, W_h = rng.normal(size=(3, 2)), rng.normal(size=(2, 3)), rng.normal(size=(3, 3))
    h1 = np.tanh(X[0] @ W_x)
    h2 = np.tanh(X[1] @ W_x + h1 @ W_h)
    h3 = np.tanh(X[2] @ W_x + h2 @ W_h)
    assert np.allclose(toy_rnn(X, W_x, W_h), np.stack([h1, h2, h3]))


def test_toy_rnn_state_never_depends_on_later_tokens():
    rng = np.random.default_rng(5)
    X, W_x, W_h = rng.normal(size=(6, 2)), rng.normal(size=(2, 3)), 0.5 * rng.normal(size=(3, 3))
    S = sensitivity_matrix(lambda Z: toy_rnn(Z, W_x, W_h), X)
    assert np.all(S[np.triu_indices(6, k=1)] == 0.0)
    assert S[5, 0] > 0


def test_toy_rnn_validation():
    with pytest.raises(ValueError, match="W_x must have d_in = 2"):
        toy_rnn(np.ones((3, 2)), np.ones((4, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="W_h must have shape"):
        toy_rnn(np.ones((3, 2)), np.ones((2, 3)), np.ones((2, 2)))
    with pytest.raises(ValueError, match="h0 must have shape"):
        toy_rnn(np.ones((3, 2)), np.ones((2, 3)), np.ones((3, 3)), h0=np.ones(2))
