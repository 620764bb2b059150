"""Q/K/V projections (chapter 2.3).

Each token x_i (a row of X) is projected three ways:

    q_i = x_i W_Q,   k_i = x_i W_K,   v_i = x_i W_V

and for all tokens at once Q = X W_Q, K = X W_K, V = X W_V.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_projections

__all__ = ["project_qkv"]


def project_qkv(X, W_Q, W_K, W_V) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Project the token embeddings X into queries, keys and values.

    Parameters
    ----------
    X : array_like, shape (..., T, d_model)
        Token embeddings, one row per token (leading batch dimensions allowed).
    W_Q : array_like, shape (d_model, d_k)
    W_K : array_like, shape (d_model, d_k)
        Must have the same number of columns as ``W_Q``: scores are q . k.
    W_V : array_like, shape (d_model, d_v)
        ``d_v`` may differ from ``d_k``.

    Returns
    -------
    Q : numpy.ndarray, shape (..., T, d_k)
    K : numpy.ndarray, shape (..., T, d_k)
    V : numpy.ndarray, shape (..., T, d_v)

    Raises
    ------
    ValueError
        If X is not at least 2-D, a weight is not 2-D, a weight's row count is not
        d_model, or W_Q and W_K disagree on d_k.
    """
    X, W_Q, W_K, W_V = check_projections(X, W_Q, W_K, W_V)
    return X @ W_Q, X @ W_K, X @ W_V
