"""Operation and memory counts for attention scores (chapter 2.4, reused for the T^2 cost in 2.9).

Everything here is *counted*, never timed: the functions return exact Python
integers, so notebooks can print and assert them without any run-to-run
variation.

Counting conventions
--------------------
A floating-point operation (flop) is one scalar addition, subtraction or
multiplication. Two conventions for a length-``d`` dot product are offered:

``"gemm"`` (default)
    ``2 * d`` flops: ``d`` multiplies and ``d`` adds, as if each product is
    accumulated into a running sum that starts at 0. This is the convention
    behind the usual "a matrix product of (m, k) by (k, n) costs 2*m*n*k"
    and behind hardware FLOP/s ratings (one fused multiply-add = 2 flops).
``"exact"``
    ``2 * d - 1`` flops: ``d`` multiplies and ``d - 1`` adds, the minimum a
    straightforward sum needs (start from the first product).

An elementwise ``tanh`` is not a flop in either convention; it is counted
separately and weighted by ``tanh_flops`` (default 1, i.e. "one operation").
A real ``tanh`` costs several to tens of flops, so the default makes additive
attention look *cheaper* than it is: the comparison errs in its favour.
"""

from __future__ import annotations

from typing import NamedTuple

from .._validate import check_choice, check_float_dtype, check_int, check_real

__all__ = [
    "CONVENTIONS",
    "AdditiveCost",
    "ScoreMatrixCost",
    "dot_flops",
    "matmul_flops",
    "dot_product_score_flops",
    "additive_score_cost",
    "additive_score_flops",
    "dtype_bytes",
    "score_matrix_bytes",
    "additive_hidden_bytes",
    "score_matrix_cost",
]

CONVENTIONS = ("gemm", "exact")


def dot_flops(d: int, *, convention: str = "gemm") -> int:
    """Flops of one dot product of two length-``d`` vectors.

    Parameters
    ----------
    d : int
        Vector length, at least 1.
    convention : {"gemm", "exact"}
        ``"gemm"``: ``2*d``; ``"exact"``: ``2*d - 1`` (see the module docstring).

    Returns
    -------
    int
    """
    d = check_int("d", d, 1)
    return _dot(d, check_choice("convention", convention, CONVENTIONS))


def _dot(d: int, convention: str) -> int:
    """:func:`dot_flops` of an already-checked length and convention."""
    return 2 * d if convention == "gemm" else 2 * d - 1


def matmul_flops(m: int, k: int, n: int, *, convention: str = "gemm") -> int:
    """Flops of a matrix product of shape (m, k) @ (k, n): ``m * n`` dot products of length ``k``.

    Returns
    -------
    int
        ``2*m*n*k`` (``"gemm"``) or ``m*n*(2*k - 1)`` (``"exact"``).
    """
    m = check_int("m", m, 1)
    k = check_int("k", k, 1)
    n = check_int("n", n, 1)
    return m * n * _dot(k, check_choice("convention", convention, CONVENTIONS))


def dot_product_score_flops(T_q: int, d_k: int, T_k: int | None = None, *, convention: str = "gemm") -> int:
    """Flops to compute all dot-product scores S = Q K^T.

    Parameters
    ----------
    T_q : int
        Number of queries (rows of Q, shape (T_q, d_k)).
    d_k : int
        Query/key width.
    T_k : int, optional
        Number of keys (rows of K, shape (T_k, d_k)); defaults to ``T_q``
        (self-attention).
    convention : {"gemm", "exact"}

    Returns
    -------
    int
        ``T_q * T_k * 2 * d_k`` (``"gemm"``) or ``T_q * T_k * (2*d_k - 1)`` (``"exact"``).
        The projections Q = X W_Q, K = X W_K are not included: they are the
        same work whichever score function follows.
    """
    T_k = T_q if T_k is None else T_k
    T_q = check_int("T_q", T_q, 1)
    d_k = check_int("d_k", d_k, 1)
    T_k = check_int("T_k", T_k, 1)
    return T_q * T_k * _dot(d_k, check_choice("convention", convention, CONVENTIONS))


class AdditiveCost(NamedTuple):
    """Operation counts of additive (Bahdanau) scores ``w . tanh(q_i W_q + k_j W_k)``.

    Attributes
    ----------
    projections : int
        Flops of ``Q W_q`` (T_q, d_h) and ``K W_k`` (T_k, d_h); done once, not per pair.
    pair_adds : int
        ``T_q * T_k * d_h``: adding the two projected vectors for every pair.
    tanh : int
        ``T_q * T_k * d_h`` tanh evaluations, already multiplied by ``tanh_flops``.
    reduce : int
        Flops of the length-``d_h`` dot product with ``w`` for every pair.
    """

    projections: int
    pair_adds: int
    tanh: int
    reduce: int

    @property
    def pairwise(self) -> int:
        """Everything that is paid once per (query, key) pair."""
        return self.pair_adds + self.tanh + self.reduce

    @property
    def total(self) -> int:
        """All operations: projections plus pairwise work."""
        return self.projections + self.pairwise


def additive_score_cost(
    T_q: int,
    d_q: int,
    d_h: int,
    T_k: int | None = None,
    d_kk: int | None = None,
    *,
    convention: str = "gemm",
    tanh_flops: float = 1,
) -> AdditiveCost:
    """Break down the cost of additive scores for ``T_q`` queries against ``T_k`` keys.

    Parameters
    ----------
    T_q, d_q : int
        Queries Q have shape (T_q, d_q).
    d_h : int
        Hidden width of the scoring network: W_q (d_q, d_h), W_k (d_kk, d_h), w (d_h,).
    T_k, d_kk : int, optional
        Keys K have shape (T_k, d_kk); default ``T_k = T_q``, ``d_kk = d_q``.
    convention : {"gemm", "exact"}
        How a dot product is counted (module docstring).
    tanh_flops : float
        Weight of one tanh evaluation (default 1). The ``tanh`` field is
        ``T_q * T_k * d_h * tanh_flops`` rounded to the nearest integer.

    Returns
    -------
    AdditiveCost
        ``.total = projections + T_q*T_k*(d_h + d_h*tanh_flops + dot(d_h))``,
        where ``dot(d_h)`` is ``2*d_h`` (gemm) or ``2*d_h - 1`` (exact).
    """
    T_k = T_q if T_k is None else T_k
    d_kk = d_q if d_kk is None else d_kk
    T_q = check_int("T_q", T_q, 1)
    T_k = check_int("T_k", T_k, 1)
    d_q = check_int("d_q", d_q, 1)
    d_kk = check_int("d_kk", d_kk, 1)
    d_h = check_int("d_h", d_h, 1)
    tanh_flops = check_real("tanh_flops", tanh_flops, 0.0)
    convention = check_choice("convention", convention, CONVENTIONS)
    pairs = T_q * T_k
    projections = T_q * d_h * _dot(d_q, convention) + T_k * d_h * _dot(d_kk, convention)  # Q W_q and K W_k
    return AdditiveCost(
        projections=projections,
        pair_adds=pairs * d_h,
        tanh=int(round(pairs * d_h * tanh_flops)),
        reduce=pairs * _dot(d_h, convention),
    )


def additive_score_flops(T_q: int, d_q: int, d_h: int, T_k: int | None = None, d_kk: int | None = None, *,
                         convention: str = "gemm", tanh_flops: float = 1) -> int:
    """Total operations of additive scores; ``additive_score_cost(...).total``."""
    return additive_score_cost(T_q, d_q, d_h, T_k, d_kk, convention=convention, tanh_flops=tanh_flops).total


def dtype_bytes(dtype) -> int:
    """Bytes per element of a floating dtype.

    Parameters
    ----------
    dtype : numpy dtype-like or "bfloat16"
        ``np.float16``/``"float32"``/``np.float64`` ..., or the string
        ``"bfloat16"`` (2 bytes; numpy has no bfloat16 type, but models use it).

    Returns
    -------
    int
    """
    if isinstance(dtype, str) and dtype.lower() in ("bfloat16", "bf16"):
        return 2
    return check_float_dtype("dtype", dtype, why="scores are real numbers; or 'bfloat16'").itemsize


def score_matrix_bytes(T_q: int, T_k: int | None = None, *, dtype="float32", batch: int = 1, heads: int = 1) -> int:
    """Bytes to store the score (or weight) matrix: ``batch * heads * T_q * T_k`` elements.

    Parameters
    ----------
    T_q : int
    T_k : int, optional
        Defaults to ``T_q`` (self-attention: a T x T matrix).
    dtype : numpy floating dtype-like or "bfloat16"
    batch, heads : int
        One (T_q, T_k) matrix per sequence in the batch and per head.

    Returns
    -------
    int
    """
    T_k = T_q if T_k is None else T_k
    n = 1
    for name, v in (("T_q", T_q), ("T_k", T_k), ("batch", batch), ("heads", heads)):
        n *= check_int(name, v, 1)
    return n * dtype_bytes(dtype)


def additive_hidden_bytes(T_q: int, d_h: int, T_k: int | None = None, *, dtype="float32") -> int:
    """Bytes of the (T_q, T_k, d_h) hidden tensor ``tanh(q_i W_q + k_j W_k)`` when it is materialised.

    A straightforward (unfused) implementation such as
    :func:`helpers.core.scores.additive_attention_scores` builds this tensor before
    reducing it with ``w``: ``d_h`` times the size of the score matrix itself.
    """
    return score_matrix_bytes(T_q, T_k, dtype=dtype) * check_int("d_h", d_h, 1)


class ScoreMatrixCost(NamedTuple):
    """Cost of one batch of dot-product score matrices.

    Attributes
    ----------
    elements : int
        ``batch * heads * T_q * T_k`` scores.
    flops : int
        ``batch * heads * dot_product_score_flops(T_q, d_k, T_k)``.
    bytes : int
        Memory to hold all the scores in ``dtype``.
    """

    elements: int
    flops: int
    bytes: int


def score_matrix_cost(T_q: int, d_k: int, T_k: int | None = None, *, dtype="float32", batch: int = 1,
                      heads: int = 1, convention: str = "gemm") -> ScoreMatrixCost:
    """Elements, flops and bytes of S = Q K^T for ``batch`` sequences and ``heads`` heads.

    Parameters
    ----------
    T_q, d_k : int
        Q has shape (batch, heads, T_q, d_k).
    T_k : int, optional
        K has shape (batch, heads, T_k, d_k); defaults to ``T_q``.
    dtype : numpy floating dtype-like or "bfloat16"
    batch, heads : int
    convention : {"gemm", "exact"}

    Returns
    -------
    ScoreMatrixCost
        Both ``elements`` and ``bytes`` grow as T^2 for self-attention; ``flops`` as T^2 * d_k.
    """
    T_k = T_q if T_k is None else T_k
    n = 1
    for name, v in (("T_q", T_q), ("T_k", T_k), ("batch", batch), ("heads", heads)):
        n *= check_int(name, v, 1)
    itemsize = dtype_bytes(dtype)
    d_k = check_int("d_k", d_k, 1)
    return ScoreMatrixCost(elements=n, flops=n * _dot(d_k, check_choice("convention", convention, CONVENTIONS)), bytes=n * itemsize)
