"""Softmax as normalisation (chapter 2.6): row checks and convex hulls.

Non-negative weights that sum to 1 along each row make every attention output
``o_i = sum_j A_ij v_j`` a convex combination of the value vectors, so it lies
inside their convex hull. This module gives the two small tools the notebook
needs to *check* that: a row-stochastic test and a 2-D convex hull with a
point-in-hull test.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_real_array, describe

__all__ = ["convex_hull_2d", "in_convex_hull_2d"]


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull_2d(points) -> np.ndarray:
    """Vertices of the convex hull of 2-D points, counter-clockwise (monotone chain).

    Parameters
    ----------
    points : array_like, shape (n, 2)
        At least one point.

    Returns
    -------
    numpy.ndarray, shape (h, 2)
        Hull vertices in counter-clockwise order, without repeating the first
        one; collinear points on an edge are dropped. ``h`` is 1 or 2 for
        degenerate inputs (all points equal, or all on a line).
    """
    pts = as_real_array("points", points, shape=(None, 2), expected="(n, 2)")
    if pts.shape[0] == 0:
        raise ValueError(f"points must have shape (n, 2) with n >= 1; got {describe(pts)}.")
    p = sorted(set(map(tuple, pts.tolist())))
    if len(p) <= 2:
        return np.array(p, dtype=float)
    lower: list = []
    for pt in p:
        while len(lower) >= 2 and _cross(lower[-2], lower[-1], pt) <= 0:
            lower.pop()
        lower.append(pt)
    upper: list = []
    for pt in reversed(p):
        while len(upper) >= 2 and _cross(upper[-2], upper[-1], pt) <= 0:
            upper.pop()
        upper.append(pt)
    return np.array(lower[:-1] + upper[:-1], dtype=float)


def in_convex_hull_2d(hull, x, tol: float = 1e-9) -> np.ndarray:
    """Whether each point of ``x`` lies inside (or on) a counter-clockwise hull.

    Parameters
    ----------
    hull : array_like, shape (h, 2)
        Output of :func:`convex_hull_2d` with ``h >= 3``.
    x : array_like, shape (m, 2) or (2,)
        Points to test.
    tol : float
        Slack for points on an edge (in units of squared length).

    Returns
    -------
    numpy.ndarray of bool, shape (m,) (or a 0-d array for a single point)
        True where the point is on the left of (or on) every edge.
    """
    H = as_real_array("hull", hull, shape=(None, 2), expected="(h, 2)")
    if H.shape[0] < 3:
        raise ValueError(f"hull must have shape (h, 2) with h >= 3 vertices; got {describe(H)}.")
    X = as_real_array("x", x, ndim=(2, 1), expected="(m, 2) or (2,)")
    single = X.ndim == 1
    X = np.atleast_2d(X)
    if X.shape[-1] != 2:
        raise ValueError(f"x must have shape (m, 2) or (2,); got {describe(X)}.")
    a, b = H, np.roll(H, -1, axis=0)  # edges a_k -> b_k, shape (h, 2) each
    edge = b - a  # (h, 2)
    rel = X[:, None, :] - a[None, :, :]  # (m, h, 2)
    cross = edge[None, :, 0] * rel[..., 1] - edge[None, :, 1] * rel[..., 0]  # (m, h)
    inside = np.all(cross >= -tol, axis=1)
    return inside[0] if single else inside
