"""Lengths, cosines and angles: the geometry behind q . k = |q| |k| cos(theta) (chapter 2.4)."""

from __future__ import annotations

import numpy as np

from .._validate import as_real_array, describe

__all__ = ["cosine_similarity", "angle_between", "vector_at_angle"]


def _vector_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    """Vectors ``a`` (..., d) and ``b`` (..., d): the same d >= 1, broadcastable, no zero vector."""
    a = as_real_array("a", a, min_ndim=1, expected="(..., d)")
    b = as_real_array("b", b, min_ndim=1, expected="(..., d)")
    if a.shape[-1] != b.shape[-1] or a.shape[-1] == 0:
        raise ValueError(f"a and b must have the same last dimension d >= 1; got a ({describe(a)}) and b ({describe(b)}).")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise ValueError(f"a and b must broadcast against each other; got a ({describe(a)}) and b ({describe(b)}).") from None
    for name, v in (("a", a), ("b", b)):
        if np.any(np.linalg.norm(v, axis=-1) == 0):
            raise ValueError(f"{name} contains a zero vector; its direction (and so the angle) is undefined.")
    return a, b


def cosine_similarity(a, b) -> float | np.ndarray:
    """Cosine of the angle between vectors, along the last axis.

    The one cosine of the package: 2.1 compares contextual vectors with it,
    2.4 checks ``q . k = |q| |k| cos(theta)`` with it.

    Parameters
    ----------
    a : array_like, shape (..., d)
    b : array_like, shape (..., d)
        Leading dimensions broadcast against ``a``'s.

    Returns
    -------
    float or numpy.ndarray of shape (...)
        ``(a . b) / (|a| |b|)``, clipped to [-1, 1]: 1 means the same direction
        (whatever the lengths), 0 orthogonal, -1 opposite. A Python float when
        both inputs are single vectors (shape (d,)).

    Raises
    ------
    ValueError
        If the last dimensions differ, or either input holds a zero vector
        (it has no direction).
    """
    a, b = _vector_pair(a, b)
    cos = np.clip(np.sum(a * b, axis=-1) / (np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)), -1.0, 1.0)
    return float(cos) if cos.ndim == 0 else cos


def angle_between(a, b) -> np.ndarray:
    """Angle between vectors in radians, in [0, pi], along the last axis.

    Computed as ``2 * arctan2(| |b| a - |a| b |, | |b| a + |a| b |)`` (Kahan's
    formula), which stays accurate for nearly parallel vectors where
    ``arccos`` of the cosine loses half its digits. Because it never uses the
    dot product, it is an independent check of ``a . b = |a||b| cos(theta)``.

    Parameters
    ----------
    a : array_like, shape (..., d)
    b : array_like, shape (..., d)

    Returns
    -------
    numpy.ndarray, shape (...)
    """
    a, b = _vector_pair(a, b)
    na = np.linalg.norm(a, axis=-1, keepdims=True)
    nb = np.linalg.norm(b, axis=-1, keepdims=True)
    u = nb * a
    v = na * b
    return 2.0 * np.arctan2(np.linalg.norm(u - v, axis=-1), np.linalg.norm(u + v, axis=-1))


def vector_at_angle(length, theta) -> np.ndarray:
    """2-D vectors of given length at angle ``theta`` (radians) from the x-axis (1, 0).

    Parameters
    ----------
    length : float or array_like, shape (...)
        Must be >= 0.
    theta : float or array_like, shape (...)
        Broadcasts against ``length``.

    Returns
    -------
    numpy.ndarray, shape (..., 2)
        ``length * (cos theta, sin theta)``. Dotted with ``(L, 0)`` it gives
        ``length * L * cos(theta)``: the score-versus-angle curve.
    """
    length = as_real_array("length", length, expected="scalar or (...)", nonnegative=True)
    theta = as_real_array("theta", theta, expected="scalar or (...)")
    length, theta = np.broadcast_arrays(length, theta)
    return np.stack([length * np.cos(theta), length * np.sin(theta)], axis=-1)
