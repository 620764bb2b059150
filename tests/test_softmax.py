import numpy as np
import pytest

from helpers import entropy, softmax, softmax_jacobian


def test_hand_derived_two_scores():
    # softmax(5, 4) = (e / (e + 1), 1 / (e + 1)): the difference of 1 is all that matters.
    e = np.e
    assert np.allclose(softmax(np.array([5.0, 4.0])), [e / (e + 1), 1 / (e + 1)])
    # Equal scores give the uniform distribution.
    assert np.allclose(softmax(np.zeros(4)), 0.25)


def test_rowwise_by_default_and_axis_argument():
    x = np.array([[0.0, np.log(3.0)], [np.log(4.0), 0.0]])
    assert np.allclose(softmax(x), [[0.25, 0.75], [0.8, 0.2]])
    # Along axis 0 each column is normalised instead.
    assert np.allclose(softmax(x, axis=0).sum(axis=0), 1.0)
    assert not np.allclose(softmax(x, axis=0), softmax(x))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_huge_magnitudes_do_not_overflow_and_keep_dtype(dtype):
    x = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]], dtype=dtype)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        p = softmax(x)
    assert p.dtype == dtype
    assert np.array_equal(p[0], np.array([1.0, 0.0, 0.0], dtype=dtype))
    assert np.allclose(p[1], 1 / 3)


def test_integer_input_gives_float64():
    assert softmax(np.array([1, 2, 3])).dtype == np.float64


def test_minus_inf_gets_exactly_zero_weight():
    p = softmax(np.array([0.0, -np.inf, 0.0]))
    assert p[1] == 0.0
    assert np.allclose(p, [0.5, 0.0, 0.5])


@pytest.mark.parametrize(
    "x, match",
    [
        (np.array([np.nan, 1.0]), "NaN"),
        (np.array([np.inf, 1.0]), r"\+inf"),
        (np.array([-np.inf, -np.inf]), "all keys are masked"),
        (np.array(3.0), "scalar"),
        (np.zeros((2, 0)), "empty axis"),
    ],
)
def test_bad_input_raises_value_error(x, match):
    with pytest.raises(ValueError, match=match):
        softmax(x)


def test_bad_axis_and_type():
    with pytest.raises(ValueError, match="axis=2"):
        softmax(np.zeros((2, 2)), axis=2)
    with pytest.raises(TypeError, match="numeric"):
        softmax(np.array(["a", "b"]))


def test_jacobian_hand_derived_two_classes():
    p = np.array([0.75, 0.25])
    # d p1/d s1 = p1 (1 - p1) = 0.1875, d p1 / d s2 = -p1 p2 = -0.1875
    assert np.allclose(softmax_jacobian(p), [[0.1875, -0.1875], [-0.1875, 0.1875]])


def test_jacobian_batched_shape_and_rejects_scores():
    p = softmax(np.random.default_rng(0).normal(size=(2, 3, 5)))
    assert softmax_jacobian(p).shape == (2, 3, 5, 5)
    with pytest.raises(ValueError, match="Pass softmax"):
        softmax_jacobian(np.array([2.0, 1.0]))


def test_entropy_limits():
    assert entropy(np.array([1.0, 0.0, 0.0])) == 0.0
    assert np.isclose(entropy(np.full(8, 1 / 8)), np.log(8))
    assert entropy(np.full((3, 4), 0.25)).shape == (3,)
