"""Finite differences (helpers.gradcheck) against derivatives worked out by hand."""

import numpy as np
import pytest

from helpers.lessons.gradcheck import numerical_gradient, relative_error


def test_scalar_function_gradient_by_hand():
    # f(x) = x0^2 * x1 + sin(x2): grad = (2 x0 x1, x0^2, cos x2)
    x = np.array([1.5, -2.0, 0.3])
    g = numerical_gradient(lambda v: v[0] ** 2 * v[1] + np.sin(v[2]), x)
    assert g.shape == (3,)
    assert np.allclose(g, [2 * 1.5 * -2.0, 1.5**2, np.cos(0.3)], atol=1e-8)


def test_vector_function_jacobian_of_linear_map_is_the_matrix():
    A = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]])
    J = numerical_gradient(lambda v: A @ v, np.array([0.2, -0.7, 1.1]))
    assert J.shape == (2, 3) and np.allclose(J, A, atol=1e-9)


def test_matrix_input_shape():
    # f(M) = sum(M^2): gradient 2M, same shape as M
    M = np.arange(6.0).reshape(2, 3)
    assert np.allclose(numerical_gradient(lambda m: np.sum(m**2), M), 2 * M, atol=1e-6)


def test_does_not_modify_input():
    x = np.array([1.0, 2.0])
    numerical_gradient(lambda v: v.sum(), x)
    assert np.array_equal(x, [1.0, 2.0])


def test_errors():
    with pytest.raises(TypeError, match="f must be a function"):
        numerical_gradient(3.0, np.zeros(2))
    with pytest.raises(ValueError, match="eps must be finite and > 0 .a finite positive step."):
        numerical_gradient(np.sum, np.zeros(2), eps=0.0)
    with pytest.raises(ValueError, match="same shape at every point"):
        numerical_gradient(lambda v: np.zeros(2) if v[0] > 0 else np.zeros(3), np.zeros(1))


def test_relative_error():
    assert relative_error([1.0, 2.0], [1.0, 2.0]) == 0.0
    assert relative_error([1.0, 2.0], [1.0, 3.0]) == pytest.approx(1 / 3)
    assert relative_error([0.0], [1e-15]) < 1e-2  # both ~0 count as agreeing
    with pytest.raises(ValueError, match="same shape"):
        relative_error([1.0], [1.0, 2.0])
