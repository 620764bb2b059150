"""Row checks and 2-D convex hulls used by notebook 2.6."""

import numpy as np
import pytest

from helpers import is_distribution, softmax
from helpers.lessons.normalization import convex_hull_2d, in_convex_hull_2d


def test_the_row_check_catches_the_wrong_axis():
    S = np.array([[2.0, 0.0, -1.0], [0.5, 0.5, 3.0], [1.0, -2.0, 0.0]])
    assert is_distribution(softmax(S, axis=-1))
    assert not is_distribution(softmax(S, axis=0))
    assert is_distribution(np.eye(4)) and is_distribution([[0.25, 0.75]])
    assert not is_distribution([[1.5, -0.5]])  # sums to 1 but negative
    batch = softmax(np.random.default_rng(0).normal(size=(2, 3, 4)))
    assert is_distribution(batch)
    assert is_distribution([0.5, 0.5])  # one row is a distribution too (2.1 checks single rows)
    with pytest.raises(ValueError):
        is_distribution(0.5)  # 0-D: no row at all


def test_hull_of_a_square_with_inner_points():
    pts = np.array([[0, 0], [2, 0], [2, 2], [0, 2], [1, 1], [1, 0], [0.5, 1.5]], dtype=float)
    hull = convex_hull_2d(pts)
    assert {tuple(p) for p in hull} == {(0, 0), (2, 0), (2, 2), (0, 2)}  # (1, 0) is on an edge: dropped
    # counter-clockwise: positive signed area (shoelace) = 4
    x, y = hull[:, 0], hull[:, 1]
    assert 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) == pytest.approx(4.0)
    assert in_convex_hull_2d(hull, [1.0, 1.0])
    assert in_convex_hull_2d(hull, [2.0, 1.0])  # on an edge
    assert not in_convex_hull_2d(hull, [2.1, 1.0])
    np.testing.assert_array_equal(in_convex_hull_2d(hull, [[0.1, 0.1], [-0.1, 0.0], [1.0, 2.5]]), [True, False, False])


def test_degenerate_hulls_and_bad_input():
    assert convex_hull_2d([[1.0, 1.0], [1.0, 1.0]]).shape == (1, 2)
    assert convex_hull_2d([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]]).shape == (2, 2)
    with pytest.raises(ValueError):
        convex_hull_2d(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        in_convex_hull_2d([[0.0, 0.0], [1.0, 0.0]], [0.5, 0.0])


def test_attention_outputs_are_inside_the_hull_of_values():
    rng = np.random.default_rng(3)
    V = rng.normal(size=(6, 2))
    A = softmax(3 * rng.normal(size=(50, 6)))
    assert np.all(in_convex_hull_2d(convex_hull_2d(V), A @ V))
    # weights that sum to 1 but go negative leave the hull: 2 v_1 - v_2 = (-1, 0) for this triangle
    tri = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    out = np.array([2.0, -1.0, 0.0]) @ tri
    np.testing.assert_allclose(out, [-1.0, 0.0])
    assert not in_convex_hull_2d(convex_hull_2d(tri), out)
