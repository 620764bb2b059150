"""Self-checks for the exercises of 2.3 (Q/K/V projections) and 2.4 (dot-product scores).

    from helpers.checks.projections import check_project, check_scores

Every check runs the learner's function on hidden cases built from a fixed
seed and prints one verdict line (see :func:`helpers.checks.core.run_check`).
The expected values come from the reference helpers and are never printed.
"""

from __future__ import annotations

import numpy as np

from ..projections import project_qkv
from ..scores import additive_attention_scores, dot_product_scores
from .core import Case, CheckResult, run_check

__all__ = [
    "check_project",
    "check_cross_project",
    "check_scores",
    "check_additive_scores",
]


def _weights(rng, d_model: int, d_k: int, d_v: int):
    return rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_v))


def check_project(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V) -> (Q, K, V)`` with X of shape (T, d_model).

    Expected: ``Q = X W_Q`` (T, d_k), ``K = X W_K`` (T, d_k), ``V = X W_V`` (T, d_v).
    """
    rng = np.random.default_rng(20260203)
    cases = []
    for label, (T, d_model, d_k, d_v), hint in [
        ("a single token: T=1, d_model=4, d_k=d_v=2", (1, 4, 2, 2),
         "each role has its own matrix: q = x @ W_Q, k = x @ W_K, v = x @ W_V."),
        ("T=3 tokens, d_model=6, d_k=2, d_v=4", (3, 6, 2, 4),
         "Q uses W_Q, K uses W_K and V uses W_V; V may be wider or narrower than Q and K (d_v != d_k)."),
        ("T=7 tokens, more tokens than features (d_model=3)", (7, 3, 3, 5),
         "X has one row per token, so Q = X @ W_Q keeps one row per token (shape (T, d_k))."),
    ]:
        X = rng.normal(size=(T, d_model))
        W = _weights(rng, d_model, d_k, d_v)
        cases.append(Case(label, (X, *W), tuple(project_qkv(X, *W)), hint))
    return run_check("check_project", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="return the tuple (Q, K, V).")


def check_cross_project(fn) -> CheckResult:
    """Check ``fn(X_q, X_kv, W_Q, W_K, W_V) -> (Q, K, V)`` for cross-attention.

    Expected: ``Q = X_q W_Q`` (T_q, d_k) from the asking sequence, and
    ``K = X_kv W_K`` (T_kv, d_k), ``V = X_kv W_V`` (T_kv, d_v) from the other one.
    """
    rng = np.random.default_rng(20260204)
    cases = []
    for label, (T_q, T_kv, d_model, d_k, d_v), hint in [
        ("2 queries, 5 keys/values", (2, 5, 4, 3, 3),
         "Q comes from X_q (the sequence that asks); K and V both come from X_kv."),
        ("3 queries, 3 keys/values with different content", (3, 3, 4, 2, 2),
         "the shapes match here, so only the values tell: K and V must be computed from X_kv, not X_q."),
        ("4 queries, 6 keys/values, d_v=5 != d_k=2", (4, 6, 3, 2, 5),
         "V = X_kv @ W_V has one row per key and d_v columns."),
    ]:
        X_q = rng.normal(size=(T_q, d_model))
        X_kv = rng.normal(size=(T_kv, d_model))
        W_Q, W_K, W_V = _weights(rng, d_model, d_k, d_v)
        expected = (X_q @ W_Q, X_kv @ W_K, X_kv @ W_V)
        cases.append(Case(label, (X_q, X_kv, W_Q, W_K, W_V), expected, hint))
    return run_check("check_cross_project", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="return the tuple (Q, K, V).")


def check_scores(fn) -> CheckResult:
    """Check ``fn(Q, K) -> S`` with Q (T_q, d_k), K (T_k, d_k) and S (T_q, T_k), ``S[i, j] = q_i . k_j``."""
    rng = np.random.default_rng(20260205)
    shapes = [
        ("2 queries, 3 keys, d_k=4", (2, 3, 4),
         "S has one row per query and one column per key: shape (T_q, T_k). Multiply Q by K transposed."),
        ("4 queries, 4 keys, d_k=3", (4, 4, 3),
         "row i must belong to query i: S[i, j] = q_i . k_j. K @ Q.T gives the transpose of S."),
        ("5 queries, 2 keys, d_k=1", (5, 2, 1),
         "with d_k=1 every score is a product of two numbers; the shape is still (T_q, T_k)."),
    ]
    cases = []
    for label, (T_q, T_k, d_k), hint in shapes:
        Q = rng.normal(size=(T_q, d_k))
        K = rng.normal(size=(T_k, d_k))
        cases.append(Case(label, (Q, K), dot_product_scores(Q, K), hint))
    return run_check("check_scores", fn, cases, atol=1e-9, rtol=1e-9)


def check_additive_scores(fn) -> CheckResult:
    """Check ``fn(Q, K, W_q, W_k, w) -> S`` with ``S[i, j] = w . tanh(q_i W_q + k_j W_k)``.

    Shapes: Q (T_q, d_q), K (T_k, d_kk), W_q (d_q, d_h), W_k (d_kk, d_h), w (d_h,), S (T_q, T_k).
    """
    rng = np.random.default_rng(20260207)
    shapes = [
        ("1 query, 1 key", (1, 1, 3, 3, 4),
         "one score: project q and k into d_h dimensions, add, tanh, then dot with w."),
        ("2 queries, 3 keys, d_q=4, d_kk=2, d_h=5", (2, 3, 4, 2, 5),
         "score[i, j] pairs q_i with k_j: broadcast (T_q, 1, d_h) + (1, T_k, d_h), then reduce the last axis with w."),
        ("4 queries, 4 keys", (4, 4, 3, 3, 2),
         "row i must belong to query i; check you did not swap the roles of Q and K."),
    ]
    cases = []
    for label, (T_q, T_k, d_q, d_kk, d_h), hint in shapes:
        Q = rng.normal(size=(T_q, d_q))
        K = rng.normal(size=(T_k, d_kk))
        W_q = rng.normal(size=(d_q, d_h))
        W_k = rng.normal(size=(d_kk, d_h))
        w = rng.normal(size=d_h)
        cases.append(Case(label, (Q, K, W_q, W_k, w), additive_attention_scores(Q, K, W_q, W_k, w), hint))
    return run_check("check_additive_scores", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="the tanh goes between the sum and the dot product with w.")
