"""Finite-difference gradients, to check an analytic derivative by brute force.

The central difference

    df/dx_j ~ (f(x + eps e_j) - f(x - eps e_j)) / (2 eps)

has an error of order eps^2 (plus rounding of order machine_eps / eps), so with
float64 and eps ~ 1e-6 it agrees with a correct analytic derivative to about
1e-9 relative error. A wrong derivative disagrees by O(1).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validate import as_real_array, check_callable, check_real, describe

__all__ = ["numerical_gradient", "numerical_gradient_of_checked", "relative_error"]


def numerical_gradient(f: Callable, x, eps: float = 1e-6) -> np.ndarray:
    """Central-difference Jacobian of ``f`` at ``x``.

    Parameters
    ----------
    f : callable
        ``f(x)`` takes an array of the shape of ``x`` and returns a scalar or an
        array of any fixed shape ``out_shape``. It must not modify its argument.
    x : array_like, shape in_shape
        The point at which to differentiate (converted to float64).
    eps : float
        Step size, > 0. Default 1e-6 suits float64 and smooth ``f``.

    Returns
    -------
    numpy.ndarray, shape out_shape + in_shape
        ``J[o..., i...] = d f(x)[o...] / d x[i...]``. For a scalar ``f`` this is
        the gradient, with the shape of ``x``.

    Raises
    ------
    TypeError
        If ``f`` is not callable or ``eps`` is not a real number.
    ValueError
        If ``eps`` is not a finite positive number, or ``f`` returns values of
        varying shape or non-finite values.
    """
    check_callable("f", f, "a function of x")
    eps = check_real("eps", eps, 0.0, strict=True, note=" (a finite positive step)")
    return numerical_gradient_of_checked(f, as_real_array("x", x).astype(np.float64), eps)


def numerical_gradient_of_checked(f: Callable, x: np.ndarray, eps: float) -> np.ndarray:
    """:func:`numerical_gradient` of an already-checked ``f``, float64 ``x`` and ``eps`` (a caller that has
    checked them, such as :func:`helpers.lessons.attention_properties.sensitivity_matrix`, checks nothing twice).
    """
    f0 = np.asarray(f(x.copy()), dtype=np.float64)
    jac = np.empty(f0.shape + x.shape, dtype=np.float64)
    flat_x = x.reshape(-1)
    for j in range(flat_x.size):
        idx = np.unravel_index(j, x.shape)
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        fp = np.asarray(f(xp), dtype=np.float64)
        fm = np.asarray(f(xm), dtype=np.float64)
        if fp.shape != f0.shape or fm.shape != f0.shape:
            raise ValueError(
                f"f must return the same shape at every point; got {describe(f0)} at x and "
                f"{describe(fp)} / {describe(fm)} after a step in x{list(idx)}."
            )
        jac[(...,) + tuple(idx)] = (fp - fm) / (2 * eps)
    if not np.all(np.isfinite(jac)):
        raise ValueError("f returned non-finite values near x; the finite difference is undefined there.")
    return jac


def relative_error(a, b, floor: float = 1e-12) -> float:
    """Largest elementwise ``|a - b| / max(|a|, |b|, floor)``.

    Parameters
    ----------
    a, b : array_like, same shape
        Typically an analytic and a numerical gradient.
    floor : float
        Denominator floor, so entries that are both ~0 count as agreeing.

    Returns
    -------
    float
        0 for identical arrays; about 1e-9 for a correct float64 gradient
        against a central difference; O(1) for a wrong one.
    """
    a = as_real_array("a", a)
    b = as_real_array("b", b, shape=a.shape, note=" (the same shape as a: nothing is broadcast)")
    if a.size == 0:
        return 0.0
    denom = np.maximum(np.maximum(np.abs(a), np.abs(b)), floor)
    return float(np.max(np.abs(a - b) / denom))
