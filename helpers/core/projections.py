"""Q/K/V projections (chapter 2.3).

Each token x_i (a row of X) is projected three ways:

    q_i = x_i W_Q,   k_i = x_i W_K,   v_i = x_i W_V

and for all tokens at once Q = X W_Q, K = X W_K, V = X W_V.
"""

from __future__ import annotations

import numpy as np

from ._validate import as_real_array, describe

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
    X = as_real_array("X", X, min_ndim=2, expected="(..., T, d_model)")
    W = {}
    for name, w in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        W[name] = as_real_array(name, w, ndim=2, expected="(d_model, d_out)")
        if W[name].shape[0] != X.shape[-1]:
            raise ValueError(
                f"{name} must have d_model={X.shape[-1]} rows to multiply X ({describe(X)}); "
                f"got {name} with {describe(W[name])}."
            )
    if W["W_Q"].shape[1] != W["W_K"].shape[1]:
        raise ValueError(
            f"W_Q and W_K must have the same number of columns d_k (scores are q . k); "
            f"got W_Q {tuple(W['W_Q'].shape)} and W_K {tuple(W['W_K'].shape)}."
        )
    return X @ W["W_Q"], X @ W["W_K"], X @ W["W_V"]
