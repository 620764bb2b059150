"""Similarity scores between queries and keys (chapter 2.4).

Dot-product scores S = Q K^T (what the Transformer uses) and the additive
(Bahdanau) score w^T tanh(W_q q_i + W_k k_j) that the chapter compares against.
"""

from __future__ import annotations

import numpy as np

from .._validate import check_additive_inputs, check_qk

__all__ = ["dot_product_scores", "additive_attention_scores"]


def dot_product_scores(Q, K) -> np.ndarray:
    """All query-key dot products at once: S = Q K^T.

    Parameters
    ----------
    Q : array_like, shape (..., T_q, d_k)
    K : array_like, shape (..., T_k, d_k)

    Returns
    -------
    numpy.ndarray, shape (..., T_q, T_k)
        ``S[..., i, j] = q_i . k_j``: row i is query i's view of every key,
        column j is how strongly every query matches key j.
    """
    Q, K = check_qk(Q, K)
    return Q @ np.swapaxes(K, -1, -2)


def additive_attention_scores(Q, K, W_q, W_k, w) -> np.ndarray:
    """Additive (Bahdanau) attention scores.

    ``score[i, j] = w . tanh(q_i W_q + k_j W_k)`` — the row-vector form of the
    chapter's ``w^T tanh(W_q q_i + W_k k_j)``.

    Parameters
    ----------
    Q : array_like, shape (..., T_q, d_q)
    K : array_like, shape (..., T_k, d_kk)
        Unlike dot-product scores, d_q and d_kk may differ.
    W_q : array_like, shape (d_q, d_h)
    W_k : array_like, shape (d_kk, d_h)
    w : array_like, shape (d_h,)
        ``d_h`` is the hidden width of the small scoring network.

    Returns
    -------
    numpy.ndarray, shape (..., T_q, T_k)

    Notes
    -----
    The intermediate tensor ``tanh(...)`` has shape (..., T_q, T_k, d_h): each
    score costs about 3*d_h extra operations plus a tanh, where a dot product
    costs 2*d_k. That, and the lack of a single matrix multiply, is why dot
    products won.
    """
    Q, K, W_q, W_k, w = check_additive_inputs(Q, K, W_q, W_k, w)
    hidden = np.tanh((Q @ W_q)[..., :, None, :] + (K @ W_k)[..., None, :, :])
    return hidden @ w
