"""Blockwise (online-softmax) attention: the same formula without the T x T matrix.

``scaled_dot_product_attention`` (the readable path the notebooks teach) builds the
whole score matrix S = Q K^T / sqrt(d_k) of shape (T_q, T_k). At T = 16384 that is
1 GiB in float32, plus the temporaries of softmax. This module computes exactly the
same output one *tile* at a time: a block of queries against a block of keys.

For each query row it keeps three running quantities while it walks over the key
blocks (the "online softmax" of Milakov & Gimelshein 2018, used by FlashAttention):

* ``c``   a shift (the running maximum, or a value close to it),
* ``l``   the running sum  sum_j exp(s_j - c),
* ``acc`` the running numerator  sum_j exp(s_j - c) v_j.

When a new key block raises the shift from ``c`` to ``c'``, the old ``l`` and ``acc``
are multiplied by ``exp(c - c')`` so every term is again relative to ``c'``. At the
end ``output = acc / l``.

Because softmax does not change when a constant is subtracted from a row, the shift
need not be the exact maximum: it only has to keep ``exp`` away from overflow and
the largest term away from underflow. The shift is therefore moved only when a
block's maximum exceeds it by more than ``_HEADROOM`` (e^20 ~ 5e8, far from the
float32 limit 3.4e38); most blocks then need no rescaling and no subtraction
("lazy rescaling"). The result is the same to rounding: terms that differ by a
factor e^20 are both represented with full float precision.

What this path cannot do is return the T_q x T_k weights: never materialising them
is the whole point. Use :func:`helpers.scaled_dot_product_attention` to look at them.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import check_attention_inputs, check_int, check_rows_alive, check_scores_finite

__all__ = ["blockwise_attention"]

# How far (in units of the scaled score) the shift may lag the running maximum.
_HEADROOM = 20.0

def blockwise_attention(
    Q,
    K,
    V,
    mask=None,
    scale=None,
    block_size: int = 1024,
    *,
    query_block: int = 256,
    causal: bool = False,
) -> np.ndarray:
    """softmax(Q K^T * scale + mask) V, one (query block x key block) tile at a time.

    Exactly the output of :func:`helpers.scaled_dot_product_attention` (to rounding),
    with the same validation and error messages, but peak extra memory
    O(T_q * d + query_block * block_size) instead of O(T_q * T_k).

    Parameters
    ----------
    Q : array_like, shape (..., T_q, d_k)
    K : array_like, shape (..., T_k, d_k)
    V : array_like, shape (..., T_k, d_v)
        Leading (batch/head) dimensions of Q, K and V must be identical.
    mask : array_like, optional, shape (T_q, T_k) or (..., T_q, T_k)
        Boolean (True = may attend) or additive (0 / -inf), as for
        :func:`helpers.apply_mask`. Note that a dense mask is itself T_q x T_k;
        for the causal mask pass ``causal=True`` instead, which costs no memory.
    scale : float, optional
        Multiplier on the scores; default ``1/sqrt(d_k)`` (as a Python float, so
        float32 inputs stay float32).
    block_size : int
        Keys per block (default 1024).
    query_block : int
        Queries per block (default 256). One float32 tile of 256 x 1024 is 1 MiB,
        which fits the L2 cache of most current CPUs.
    causal : bool
        Let query i attend to keys j <= i only (top-left aligned, like
        ``causal_mask(T, boolean=True)`` for T_q == T_k and like PyTorch's
        ``is_causal``). Key blocks entirely above the diagonal are skipped, so the
        causal case does about half the work. May be combined with ``mask``
        (a key must be allowed by both).

    Returns
    -------
    output : numpy.ndarray, shape (..., T_q, d_v)
        float32 in gives float32 out, float64 gives float64, integers give float64;
        float16 is computed and returned in float32 (as the plain path does).

    Raises
    ------
    TypeError, ValueError
        As :func:`helpers.scaled_dot_product_attention` (shared checks), plus for
        a non-positive ``block_size``/``query_block``. A query whose every key is
        masked raises ``ValueError`` rather than returning NaN.

    Notes
    -----
    The weights matrix (..., T_q, T_k) is never formed, so it cannot be returned.
    Query blocks are processed one after another. Their products are small tiles: on a busy
    machine, run large problems with BLAS limited to one thread (``H.timing.single_blas_thread()``),
    as ``python -m benchmarks`` does.
    Memory: a copy of ``Q * scale`` and of ``V`` with a column of ones appended
    (the ones column makes the second matrix product also produce the row sums
    ``l``), the output, and one tile of ``query_block x block_size``
    scores (plus its boolean causal mask on diagonal tiles). At T = 16384, d_k = 64
    that is about 15 MiB, where the plain path peaks at 3 GiB (three T x T float32
    arrays alive at once inside the score and softmax steps).
    """
    Q, K, V, m, s, causal = check_attention_inputs(Q, K, V, mask, scale, causal=causal)
    bk = check_int("block_size", block_size, 1)
    bq = check_int("query_block", query_block, 1)
    tq, tk, dv = Q.shape[-2], K.shape[-2], V.shape[-1]
    lead = Q.shape[:-2]

    work = out_dtype = np.result_type(Q, K, V)  # float16 was already promoted to float32
    # |q_i . k_j| * scale <= max ||q_i|| * max ||k_j|| * scale: if that bound cannot overflow,
    # no tile needs to be checked for inf/NaN (the common case); otherwise every tile is.
    with np.errstate(over="ignore"):
        bound = s * _max_row_norm(Q) * _max_row_norm(K)
    check_tiles = not bound < float(np.finfo(work).max) / 4

    def overflow(tile):  # the same error, naming Q, K and the scale, as the plain path
        check_scores_finite(tile, Q, K, s)

    headroom = _HEADROOM
    vmax = float(np.abs(V).max()) if V.size else 0.0
    # acc <= T_k * e^headroom * max|v|: if that could overflow, keep the shift exact.
    if tk * math.exp(headroom) * max(vmax, 1.0) > float(np.finfo(work).max) / 16:
        headroom = 0.0

    out = np.empty(lead + (tq, dv), dtype=work)
    dead = np.zeros(lead + (tq,), dtype=bool)
    m_full = None if m is None else np.broadcast_to(m, lead + (tq, tk))
    for idx in np.ndindex(*lead):
        with np.errstate(over="ignore"):  # an overflow shows up in the tiles, reported by ``overflow``
            q = Q[idx].astype(work, copy=False) * s  # scale folded into Q once: a Python float keeps float32
        k = K[idx].astype(work, copy=False)
        vx = np.empty((tk, dv + 1), dtype=work)  # V with a column of ones: the same product sums l
        vx[:, :dv] = V[idx]
        vx[:, dv] = 1.0
        mk = None if m_full is None else m_full[idx]
        for q0 in range(0, tq, bq):
            q1 = min(q0 + bq, tq)
            out[idx][q0:q1], alive = _query_block(q[q0:q1], k, vx, mk, q0, bk, causal, headroom,
                                                  overflow if check_tiles else None)
            dead[idx][q0:q1] = ~alive
    check_rows_alive(dead)
    return out.astype(out_dtype, copy=False)


def _max_row_norm(X: np.ndarray) -> float:
    """Largest Euclidean norm of a row of X (in float64), inf if it overflows."""
    x = X.astype(np.float64, copy=False)
    return float(np.sqrt(np.max(np.einsum("...i,...i->...", x, x)))) if x.size else 0.0


def _query_block(q, k, vx, mk, q0, bk, causal, headroom, overflow=None):
    """One block of queries against all (allowed) key blocks; returns (output, alive).

    ``overflow(tile)``, if given, is called on every tile of raw scores and raises if
    one of them is inf or NaN (the scores overflowed).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is detected by ``overflow``
        return _query_block_tiles(q, k, vx, mk, q0, bk, causal, headroom, overflow)


def _query_block_tiles(q, k, vx, mk, q0, bk, causal, headroom, overflow):
    nq, tk = q.shape[0], k.shape[0]
    tile = np.empty((nq, min(bk, tk)), dtype=q.dtype)
    dv1 = vx.shape[1]
    acc = np.zeros((nq, dv1), dtype=q.dtype)  # [:, :-1] numerator, [:, -1] the row sum l
    part = np.empty_like(acc)
    c = np.zeros(nq, dtype=q.dtype)  # the shift of each row
    alive = np.zeros(nq, dtype=bool)  # has the row seen a finite score yet?
    # Causal: query i sees keys 0..i, so key blocks starting after the last query are skipped.
    k_end = min(tk, q0 + nq) if causal else tk
    for k0 in range(0, k_end, bk):
        k1 = min(k0 + bk, k_end)
        sc = tile[:, : k1 - k0]
        np.matmul(q, k[k0:k1].T, out=sc)
        if overflow is not None:
            overflow(sc)
        if mk is not None:
            mt = mk[q0 : q0 + nq, k0:k1]
            if mt.dtype == np.bool_:
                np.copyto(sc, -np.inf, where=~mt)
            else:
                sc += mt.astype(sc.dtype, copy=False)  # check_mask: no positive entries, no NaN
        if causal and k1 - 1 > q0:  # the tile crosses the diagonal: hide keys j = k0 + col > i = q0 + row
            above = np.arange(k1 - k0)[None, :] > np.arange(q0 - k0, q0 - k0 + nq)[:, None]
            np.copyto(sc, -np.inf, where=above)
        b = sc.max(axis=1)
        finite = b > -np.inf
        # Keep c - headroom <= (running max) <= c + headroom. Move the shift where this block
        # would overflow exp (b - c > headroom), or where it is the row's first finite block
        # and lies far below the shift (its largest term would underflow).
        d = b - c
        move = finite & ((d > headroom) | (~alive & (d < -headroom)))
        if move.any():
            new_c = np.where(move, b, c)
            # Rescale the old terms by exp(c - c') < 1; rows not moved, and rows with no terms
            # yet (acc = 0; their c' may lie far below c), get exp(0) = 1.
            acc *= np.exp(np.where(alive, c - new_c, 0))[:, None]
            c = new_c
        alive |= finite
        if c.any():
            sc -= c[:, None]
        np.exp(sc, out=sc)
        np.matmul(sc, vx[k0:k1], out=part)
        acc += part
    l = acc[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):  # dead rows (l = 0) are reported by the caller
        out = acc[:, :-1] / l[:, None]
    return out, alive
