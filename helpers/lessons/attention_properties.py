"""Tools for the properties of self-attention (chapter 2.9).

- :func:`permutation_matrix`  the matrix P with ``P @ X == X[perm]``
- :func:`sensitivity_matrix`  finite-difference dependency of each output row on each input row
- :func:`toy_rnn`             a minimal tanh recurrence, the contrast for "global connectivity"

All functions are pure: arrays in, arrays out.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._validate import as_int_array, as_real_array, check_callable, check_real
from .gradcheck import numerical_gradient_of_checked

__all__ = ["permutation_matrix", "sensitivity_matrix", "toy_rnn"]


def permutation_matrix(perm) -> np.ndarray:
    """The permutation matrix that reorders rows as ``X[perm]``.

    Parameters
    ----------
    perm : array_like of int, shape (T,)
        A permutation of ``0..T-1``; new row ``i`` is old row ``perm[i]``.

    Returns
    -------
    numpy.ndarray, shape (T, T), float64
        ``P[i, perm[i]] = 1``, so ``P @ X == X[perm]`` and ``P @ P.T == I``.

    Raises
    ------
    TypeError
        If ``perm`` is not integer-valued.
    ValueError
        If ``perm`` is not 1-D or is not a permutation of ``0..T-1``.
    """
    p = as_int_array("perm", perm, ndim=1, expected="(T,)", note=" (a permutation of 0..T-1)")
    T = p.size
    if T == 0 or not np.array_equal(np.sort(p), np.arange(T)):
        raise ValueError(f"perm must hold each of 0..T-1 exactly once (T >= 1); got {p.tolist()}.")
    P = np.zeros((T, T))
    P[np.arange(T), p] = 1.0
    return P


def sensitivity_matrix(f: Callable[[np.ndarray], np.ndarray], X, eps: float = 1e-6) -> np.ndarray:
    """How strongly each output row of ``f`` depends on each input row of ``X``.

    Central finite differences (:func:`helpers.lessons.gradcheck.numerical_gradient`) give
    the Jacobian block of output row ``i`` with respect to input row ``j``; its
    Frobenius norm is entry ``[i, j]``:

        S[i, j] = || d f(X)[i, :] / d X[j, :] ||_F

    ``S[i, j] == 0`` means that (to first order) nudging token ``j`` does not move
    output ``i`` at all: output ``i`` does not depend on token ``j``.

    Parameters
    ----------
    f : callable
        Maps an array of shape (T, d_in) to an array of shape (T_out, d_out).
    X : array_like, shape (T, d_in)
        The point at which the dependency is measured.
    eps : float
        Finite-difference step (positive).

    Returns
    -------
    numpy.ndarray, shape (T_out, T), float64
        Non-negative sensitivities.

    Raises
    ------
    TypeError, ValueError
        If ``f`` is not callable, ``X`` is not a finite 2-D array, ``eps`` is not
        a positive finite number, or ``f`` does not return a finite 2-D array.
    """
    check_callable("f", f, "a function of X")
    X = as_real_array("X", X, ndim=2, expected="(T, d_in)").astype(np.float64)
    as_real_array("f(X)", f(X.copy()), ndim=2, expected="(T_out, d_out)")
    eps = check_real("eps", eps, 0.0, strict=True, note=" (a finite positive step)")
    # J[i, a, j, b] = d f(X)[i, a] / d X[j, b], by central differences (f, X and eps are checked above)
    J = numerical_gradient_of_checked(f, X, eps)
    return np.sqrt(np.sum(J**2, axis=(1, 3)))


def toy_rnn(X, W_x, W_h, h0=None) -> np.ndarray:
    """A minimal recurrent network: ``h_t = tanh(x_t W_x + h_{t-1} W_h)``.

    Information from token ``j`` reaches state ``t >= j`` only through the
    ``t - j`` applications of the recurrence in between; states before ``j``
    cannot see it at all.

    Parameters
    ----------
    X : array_like, shape (T, d_in)
    W_x : array_like, shape (d_in, d_h)
    W_h : array_like, shape (d_h, d_h)
    h0 : array_like, shape (d_h,), optional
        Initial state (default zeros).

    Returns
    -------
    numpy.ndarray, shape (T, d_h)
        Row ``t`` is the state after reading tokens ``0..t``.
    """
    X = as_real_array("X", X, ndim=2, expected="(T, d_in)")
    W_x = as_real_array("W_x", W_x, ndim=2, expected="(d_in, d_h)")
    if W_x.shape[0] != X.shape[1]:
        raise ValueError(f"W_x must have d_in = {X.shape[1]} rows to match X {tuple(X.shape)}; got W_x {tuple(W_x.shape)}.")
    d_h = W_x.shape[1]
    W_h = as_real_array("W_h", W_h, shape=(d_h, d_h), expected="(d_h, d_h)")
    h = np.zeros(d_h) if h0 is None else as_real_array("h0", h0, shape=(d_h,), expected="(d_h,)")
    states = np.empty((X.shape[0], d_h), dtype=np.result_type(X, W_x, W_h, h))
    for t in range(X.shape[0]):
        h = np.tanh(X[t] @ W_x + h @ W_h)
        states[t] = h
    return states
