"""Hard and soft lookup (helpers.soft_lookup), with hand-derived expectations."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import softmax
from helpers.lessons.gradcheck import numerical_gradient
from helpers.lessons.soft_lookup import hard_lookup, ratio_weights, soft_lookup, soft_lookup_jacobian

# d = {"apple": 5, "banana": 3, "orange": 7} with one-hot keys
KEYS = np.eye(3)
VALUES = np.array([5.0, 3.0, 7.0])


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_dict_lookup_as_one_hot_weights():
    for i, expected in enumerate([5.0, 3.0, 7.0]):
        out, w = hard_lookup(KEYS[i], KEYS, VALUES)
        assert out == expected
        assert np.array_equal(w, np.eye(3)[i])


def test_two_keys_weights_are_a_sigmoid_of_the_score_gap():
    # s = (2, 1): alpha_1 = sigmoid((2 - 1) / t)
    q = np.array([1.0, 0.0])
    K = np.array([[2.0, 0.0], [1.0, 0.0]])
    V = np.array([[10.0], [0.0]])
    for t in (0.25, 1.0, 4.0):
        out, w = soft_lookup(q, K, V, t)
        a = sigmoid(1.0 / t)
        assert np.allclose(w, [a, 1 - a])
        assert np.allclose(out, [10 * a])


def test_temperature_limits():
    rng = np.random.default_rng(1)
    q, K, V = rng.normal(size=4), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    hard = hard_lookup(q, K, V)
    assert np.allclose(soft_lookup(q, K, V, 1e-4).weights, hard.weights, atol=1e-12)
    assert np.allclose(soft_lookup(q, K, V, 1e-4).output, hard.output, atol=1e-10)
    # Huge temperature: uniform weights, output = mean of the values.
    out, w = soft_lookup(q, K, V, 1e8)
    assert np.allclose(w, 1 / 6) and np.allclose(out, V.mean(axis=0))


def test_tie_soft_averages_hard_picks_the_first():
    q = np.array([1.0, 1.0])
    K = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    V = np.array([0.0, 1.0, 100.0])
    assert hard_lookup(q, K, V).output == 0.0
    for t in (1e-3, 0.1):
        out, w = soft_lookup(q, K, V, t)
        assert np.isclose(w[0], w[1])
        assert np.isclose(out, 0.5 * (0.0 + 1.0), atol=1e-9)


def test_jacobian_two_keys_by_hand():
    # o = a1 v1 + a2 v2, a1 = sigmoid((k1 - k2).q / t)  =>  do/dq = (v1 - v2) a1 a2 (k1 - k2) / t
    q = np.array([0.3, -0.2])
    K = np.array([[1.0, 2.0], [-1.0, 0.5]])
    V = np.array([4.0, -1.0])
    t = 0.7
    a1 = sigmoid((K[0] - K[1]) @ q / t)
    expected = (V[0] - V[1]) * a1 * (1 - a1) * (K[0] - K[1]) / t
    assert np.allclose(soft_lookup_jacobian(q, K, V, t), expected)


@pytest.mark.parametrize("seed", range(5))
def test_jacobian_matches_finite_differences(seed):
    rng = np.random.default_rng(seed)
    n, d_k, d_v = 5, 3, 4
    q, K, V = rng.normal(size=d_k), rng.normal(size=(n, d_k)), rng.normal(size=(n, d_v))
    t = float(rng.uniform(0.3, 2.0))
    J = soft_lookup_jacobian(q, K, V, t)
    num = numerical_gradient(lambda x: soft_lookup(x, K, V, t).output, q)
    assert J.shape == (d_v, d_k)
    assert np.allclose(J, num, atol=1e-7)


def test_hard_lookup_gradient_is_zero_off_ties():
    q = np.array([0.9, 0.1])
    num = numerical_gradient(lambda x: hard_lookup(x, KEYS[:2, :2], VALUES[:2]).output, q, eps=1e-4)
    assert np.array_equal(num, [0.0, 0.0])


@given(st.integers(min_value=0, max_value=10_000))
def test_content_addressing_order_does_not_matter(seed):
    rng = np.random.default_rng(seed)
    q, K, V = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    perm = rng.permutation(5)
    out, w = soft_lookup(q, K, V, 0.8)
    out_p, w_p = soft_lookup(q, K[perm], V[perm], 0.8)
    assert np.allclose(out, out_p)
    assert np.allclose(w[perm], w_p)


def test_ratio_weights():
    assert np.allclose(ratio_weights([1.0, 1.0, 2.0]), [0.25, 0.25, 0.5])
    s = np.array([2.0, -1.0, 0.5])
    assert np.allclose(ratio_weights(np.exp(s)), softmax(s))
    with pytest.raises(ValueError, match="non-negative"):
        ratio_weights(s)
    with pytest.raises(ValueError, match="sum to 0"):
        ratio_weights([0.0, 0.0])


@pytest.mark.parametrize(
    "args, exc, match",
    [
        ((np.zeros((1, 2)), np.eye(2), VALUES[:2]), ValueError, r"q must be 1-D"),
        ((np.zeros(3), np.eye(2), VALUES[:2]), ValueError, r"d_k mismatch.*q \(3,\) and K \(2, 2\)"),
        ((np.zeros(2), np.eye(2), VALUES), ValueError, r"K \(2, 2\) and V \(3,\)"),
        ((np.zeros(2), np.zeros((0, 2)), np.zeros(0)), ValueError, r"at least one key"),
        ((np.zeros(2), np.eye(2), np.zeros((2, 2, 2))), ValueError, r"V must be \(n, d_v\) or \(n,\)"),
    ],
)
def test_shape_errors(args, exc, match):
    with pytest.raises(exc, match=match):
        soft_lookup(*args)
    with pytest.raises(exc, match=match):
        hard_lookup(*args)


@pytest.mark.parametrize("t, exc", [(0.0, ValueError), (-1.0, ValueError), (np.inf, ValueError), (True, TypeError), ("1", TypeError)])
def test_bad_temperature(t, exc):
    with pytest.raises(exc, match="temperature"):
        soft_lookup(np.zeros(2), np.eye(2), VALUES[:2], t)
    with pytest.raises(exc, match="temperature"):
        soft_lookup_jacobian(np.zeros(2), np.eye(2), VALUES[:2], t)
