"""helpers.geometry: cosine, angle and the polar construction, against hand-derived values."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from helpers.lessons.geometry import angle_between, cosine_similarity, vector_at_angle


def test_hand_derived_angles():
    assert np.isclose(angle_between([1.0, 0.0], [0.0, 3.0]), np.pi / 2)
    assert np.isclose(angle_between([1.0, 1.0], [2.0, 0.0]), np.pi / 4)
    assert np.isclose(angle_between([1.0, 2.0], [-2.0, -4.0]), np.pi)
    assert angle_between([1.0, 2.0, 3.0], [2.0, 4.0, 6.0]) == pytest.approx(0.0, abs=1e-15)
    assert np.isclose(cosine_similarity([3.0, 4.0], [4.0, 3.0]), 24 / 25)
    assert np.isclose(cosine_similarity([1.0, 0.0], [-5.0, 0.0]), -1.0)


def test_tiny_angles_stay_accurate():
    # arccos(cos) cannot resolve 1e-9 rad (cos = 1 - 5e-19 rounds to 1); Kahan's formula can.
    theta = 1e-9
    a, b = [1.0, 0.0], [np.cos(theta), np.sin(theta)]
    assert np.isclose(angle_between(a, b), theta, rtol=1e-6)
    assert np.arccos(np.clip(np.dot(a, b), -1, 1)) == 0.0  # the naive formula gives 0


def test_broadcasting_and_shapes():
    A = np.eye(3)
    b = np.array([1.0, 1.0, 0.0])
    assert cosine_similarity(A, b).shape == (3,)
    assert np.allclose(angle_between(A, b), [np.pi / 4, np.pi / 4, np.pi / 2])
    # two single vectors give a plain Python float (it prints and compares like a number)
    assert isinstance(cosine_similarity([1.0, 2.0], [2.0, 1.0]), float)
    batched = cosine_similarity(np.eye(2), [1.0, 0.0])
    assert batched.shape == (2,) and np.allclose(batched, [1.0, 0.0])


def test_cosine_ignores_length_and_keeps_sign():
    assert cosine_similarity([1.0, 2.0], [2.0, 4.0]) == pytest.approx(1.0)
    assert cosine_similarity([1.0, 0.0], [0.0, 2.0]) == 0.0
    assert cosine_similarity([1.0, 1.0], [-2.0, -2.0]) == pytest.approx(-1.0)


def test_vector_at_angle():
    v = vector_at_angle(2.0, np.pi / 3)
    assert np.allclose(v, [1.0, np.sqrt(3.0)])
    thetas = np.linspace(0, np.pi, 7)
    V = vector_at_angle(1.5, thetas)
    assert V.shape == (7, 2)
    # Dotted with (2, 0): 2 * 1.5 * cos(theta).
    assert np.allclose(V @ np.array([2.0, 0.0]), 3.0 * np.cos(thetas))
    assert np.allclose(angle_between(V, [1.0, 0.0]), thetas)


@given(
    arrays(np.float64, 5, elements=st.floats(-10, 10)),
    arrays(np.float64, 5, elements=st.floats(-10, 10)),
)
def test_law_of_cosines_identity(a, b):
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    assume(na >= 1e-3 and nb >= 1e-3)
    assert np.isclose(a @ b, na * nb * np.cos(angle_between(a, b)), atol=1e-9 * na * nb)
    assert -1.0 <= cosine_similarity(a, b) <= 1.0


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: cosine_similarity([1.0, 2.0], [1.0, 2.0, 3.0]), "same last dimension"),
        (lambda: cosine_similarity([0.0, 0.0], [1.0, 2.0]), "zero vector"),
        (lambda: angle_between([1.0, 2.0], [0.0, 0.0]), "b contains a zero vector"),
        (lambda: angle_between(np.ones((2, 3)), np.ones((4, 3))), "broadcast"),
        (lambda: vector_at_angle(-1.0, 0.3), "length must be >= 0"),
        (lambda: cosine_similarity([np.nan, 1.0], [1.0, 1.0]), "NaN"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()
