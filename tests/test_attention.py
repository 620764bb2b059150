import numpy as np
import pytest

from helpers import (
    AttentionResult,
    additive_attention_scores,
    additive_from_boolean,
    causal_mask,
    dot_product_scores,
    project_qkv,
    scaled_dot_product_attention,
    self_attention,
)


def test_result_unpacks_and_has_named_fields():
    Q = np.eye(3)
    res = scaled_dot_product_attention(Q, Q, Q)
    assert isinstance(res, AttentionResult)
    out, w = res
    assert out is res.output and w is res.weights
    assert out.shape == (3, 3) and w.shape == (3, 3)


def test_two_keys_hand_derived():
    # One query q = (2, 0), keys (1, 0) and (0, 1): scores 2 and 0, scaled by 1/sqrt(2).
    q = np.array([[2.0, 0.0]])
    K = np.array([[1.0, 0.0], [0.0, 1.0]])
    V = np.array([[10.0], [20.0]])
    a = 1 / (1 + np.exp(-np.sqrt(2.0)))  # softmax([sqrt2, 0])[0]
    out, w = scaled_dot_product_attention(q, K, V)
    assert np.allclose(w, [[a, 1 - a]])
    assert np.allclose(out, [[10 * a + 20 * (1 - a)]])


def test_scale_argument():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(3, 4, 8))
    unscaled = scaled_dot_product_attention(Q, K, V, scale=1.0).weights
    assert np.allclose(unscaled.sum(-1), 1)
    manual = np.exp(Q @ K.T) / np.exp(Q @ K.T).sum(-1, keepdims=True)
    assert np.allclose(unscaled, manual)
    zero = scaled_dot_product_attention(Q, K, V, scale=0.0).weights
    assert np.allclose(zero, 0.25)  # no score information: uniform attention


def test_d_v_may_differ_from_d_k_and_batch_dims():
    rng = np.random.default_rng(2)
    Q = rng.normal(size=(2, 3, 5, 4))
    K = rng.normal(size=(2, 3, 6, 4))
    V = rng.normal(size=(2, 3, 6, 7))
    out, w = scaled_dot_product_attention(Q, K, V)
    assert out.shape == (2, 3, 5, 7) and w.shape == (2, 3, 5, 6)
    for b in range(2):
        for h in range(3):
            o1, w1 = scaled_dot_product_attention(Q[b, h], K[b, h], V[b, h])
            assert np.allclose(out[b, h], o1) and np.allclose(w[b, h], w1)


def test_float32_stays_float32_without_promotion():
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(3, 16, 64)).astype(np.float32)
    out, w = scaled_dot_product_attention(Q, K, V, mask=causal_mask(16, dtype=np.float32))
    assert out.dtype == np.float32 and w.dtype == np.float32


def test_causal_mask_values():
    M = causal_mask(3)
    assert np.array_equal(M, [[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]])
    assert np.array_equal(causal_mask(3, boolean=True), np.tril(np.ones((3, 3), bool)))
    assert np.array_equal(additive_from_boolean(causal_mask(3, boolean=True)), M)
    with pytest.raises(ValueError, match="positive"):
        causal_mask(0)
    with pytest.raises(TypeError, match="positive integer"):
        causal_mask(2.5)
    with pytest.raises(TypeError, match="floating"):
        causal_mask(3, dtype=np.int64)


def test_causal_first_token_attends_only_to_itself():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(5, 6))
    W = rng.normal(size=(3, 6, 4))
    out, w = self_attention(X, *W, causal=True)
    assert w[0, 0] == 1.0
    assert np.all(np.triu(w, k=1) == 0.0)
    V = X @ W[2]
    assert np.allclose(out[0], V[0])


def test_large_negative_mask_matches_minus_inf_on_ordinary_rows():
    rng = np.random.default_rng(5)
    Q, K, V = rng.normal(size=(3, 4, 3))
    hard = scaled_dot_product_attention(Q, K, V, mask=causal_mask(4))
    soft = scaled_dot_product_attention(Q, K, V, mask=np.where(causal_mask(4, boolean=True), 0.0, -1e9))
    assert np.allclose(hard.output, soft.output) and np.allclose(hard.weights, soft.weights)


def test_fully_masked_row_raises_instead_of_nan():
    Q = np.ones((2, 2))
    mask = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match=r"removes every key for 1 query row \(row 1\)"):
        scaled_dot_product_attention(Q, Q, Q, mask=mask)
    with pytest.raises(ValueError, match="every key"):
        scaled_dot_product_attention(Q, Q, Q, mask=np.array([[0.0, 0.0], [-np.inf, -np.inf]]))


def test_project_qkv_matches_per_token_loop():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(5, 8))
    WQ, WK, WV = rng.normal(size=(8, 3)), rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    Q, K, V = project_qkv(X, WQ, WK, WV)
    for i in range(5):
        assert np.allclose(Q[i], X[i] @ WQ) and np.allclose(K[i], X[i] @ WK) and np.allclose(V[i], X[i] @ WV)
    assert V.shape == (5, 2)


def test_dot_product_scores_is_double_loop():
    rng = np.random.default_rng(7)
    Q, K = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    S = dot_product_scores(Q, K)
    assert S.shape == (3, 5)
    assert np.allclose(S, [[sum(Q[i, k] * K[j, k] for k in range(4)) for j in range(5)] for i in range(3)])


def test_additive_scores_hand_derived():
    # d_h = 1: score = w * tanh(q W_q + k W_k)
    Q = np.array([[1.0], [0.0]])
    K = np.array([[2.0], [-1.0], [0.5]])
    S = additive_attention_scores(Q, K, np.array([[0.5]]), np.array([[1.0]]), np.array([3.0]))
    expected = 3.0 * np.tanh(0.5 * Q + K.T)
    assert S.shape == (2, 3)
    assert np.allclose(S, expected)


def test_additive_scores_loop_and_shape_errors():
    rng = np.random.default_rng(8)
    Q, K = rng.normal(size=(3, 4)), rng.normal(size=(5, 6))
    W_q, W_k, w = rng.normal(size=(4, 7)), rng.normal(size=(6, 7)), rng.normal(size=7)
    S = additive_attention_scores(Q, K, W_q, W_k, w)
    for i in range(3):
        for j in range(5):
            assert np.isclose(S[i, j], w @ np.tanh(Q[i] @ W_q + K[j] @ W_k))
    with pytest.raises(ValueError, match="hidden width d_h"):
        additive_attention_scores(Q, K, W_q, W_k, rng.normal(size=6))
    with pytest.raises(ValueError, match="W_k must have d_k=6 rows"):
        additive_attention_scores(Q, K, W_q, W_q, w)
