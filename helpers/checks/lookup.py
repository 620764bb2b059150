"""Self-checks for the exercises of 2.1 (contextual vectors) and 2.2 (soft lookup).

``check_cosine`` is the package's only cosine check (2.1's first exercise).

    from helpers.checks.lookup import check_cosine, check_contextual_mix
    from helpers.checks.lookup import check_soft_lookup, check_soft_lookup_jacobian

Each check runs the learner's function on hidden cases and prints one verdict
line (plus a hint on failure). The expected values are never printed.
"""

from __future__ import annotations

import numpy as np

from ..contextual import contextual_mix
from ..geometry import cosine_similarity
from ..soft_lookup import soft_lookup, soft_lookup_jacobian
from .core import Case, CheckResult, run_check

__all__ = ["check_cosine", "check_contextual_mix", "check_soft_lookup", "check_soft_lookup_jacobian"]


def check_cosine(fn) -> CheckResult:
    """Check ``fn(a, b) -> float``: the cosine of the angle between two vectors of shape (d,)."""
    rng = np.random.default_rng(20260201)
    a, b = rng.normal(size=7), rng.normal(size=7)
    cases = [
        Case("same direction, different lengths", (np.array([1.0, 2.0, 2.0]), np.array([3.0, 6.0, 6.0])), 1.0,
             "cosine ignores length: divide the dot product by BOTH vector lengths (np.linalg.norm)."),
        Case("orthogonal vectors", (np.array([1.0, 0.0, 0.0]), np.array([0.0, 5.0, 0.0])), 0.0,
             "start from the dot product a . b; orthogonal vectors have dot product 0."),
        Case("opposite vectors", (np.array([0.0, 3.0, -4.0]), np.array([0.0, -1.5, 2.0])), -1.0,
             "do not take absolute values: opposite directions give a negative cosine."),
        Case("two 7-d vectors", (a, b), cosine_similarity(a, b),
             "sum of elementwise products, divided by the product of the two Euclidean norms."),
        Case("long vectors (lengths ~1000)", (1000.0 * a, 500.0 * b), cosine_similarity(a, b),
             "the cosine does not depend on the lengths at all: divide by BOTH vector lengths."),
    ]
    return run_check("check_cosine", fn, cases, atol=1e-9, rtol=1e-9)


def check_contextual_mix(fn) -> CheckResult:
    """Check ``fn(weights, vectors) -> (d,)``: the weighted sum sum_j weights[j] * vectors[j]."""
    rng = np.random.default_rng(20260211)
    X = rng.normal(size=(4, 3))
    w = rng.dirichlet(np.ones(4))
    X_wide = rng.normal(size=(3, 5))
    w3 = rng.dirichlet(np.ones(3))
    cases = [
        Case("all weight on token 2", (np.array([0.0, 0.0, 1.0, 0.0]), X), X[2],
             "weight j multiplies ROW j of vectors (the vector of token j)."),
        Case("uniform weights", (np.full(4, 0.25), X), X.mean(axis=0),
             "equal weights should give the plain average of the token vectors."),
        Case("4 tokens, d = 3", (w, X), contextual_mix(w, X),
             "the result has one entry per AXIS (length d), not one per token."),
        Case("3 tokens, d = 5", (w3, X_wide), contextual_mix(w3, X_wide),
             "vectors has shape (T, d): contract the weights with its first axis (weights @ vectors)."),
    ]
    return run_check("check_contextual_mix", fn, cases, atol=1e-9, rtol=1e-9)


def check_soft_lookup(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature) -> output`` of shape (d_v,): softmax(K q / temperature) @ V."""
    rng = np.random.default_rng(20260202)
    q, K, V = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    q5, K5, V5 = rng.normal(size=2), rng.normal(size=(5, 2)), rng.normal(size=(5, 3))
    K_neg = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    q_neg = np.array([2.0, -1.0])
    V_neg = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    K_big = np.array([[10.0, 0.0], [9.0, 0.0], [0.0, 10.0]])
    q_big = np.array([1.0, 0.5])
    V_big = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    cases = [
        Case("4 keys, temperature 1", (q, K, V, 1.0), soft_lookup(q, K, V, 1.0).output,
             "scores s_i = q . k_i (that is K @ q), weights = softmax(s), output = weights @ V."),
        Case("same keys, temperature 2", (q, K, V, 2.0), soft_lookup(q, K, V, 2.0).output,
             "temperature divides the scores before softmax; a larger temperature gives flatter weights."),
        Case("some negative similarities", (q_neg, K_neg, V_neg, 1.0), soft_lookup(q_neg, K_neg, V_neg, 1.0).output,
             "s / sum(s) fails for negative scores; exponentiate the scores (softmax) so every weight is positive."),
        Case("tiny temperature 1e-3 (scores up to 1e4)", (q_big, K_big, V_big, 1e-3),
             soft_lookup(q_big, K_big, V_big, 1e-3).output,
             "np.exp overflows for scores ~1e4: subtract the largest score before exponentiating."),
        Case("5 keys, d_k = 2, d_v = 3", (q5, K5, V5, 0.5), soft_lookup(q5, K5, V5, 0.5).output,
             "return the weighted sum of the values (shape (d_v,)), not the weights (shape (n,))."),
    ]
    return run_check("check_soft_lookup", fn, cases, atol=1e-8, rtol=1e-6)


def check_soft_lookup_jacobian(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature) -> J`` of shape (d_v, d_k), J[a, b] = d output[a] / d q[b]."""
    rng = np.random.default_rng(20260222)
    q, K, V = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    q2, K2, V2 = rng.normal(size=2), rng.normal(size=(5, 2)), rng.normal(size=(5, 4))
    cases = [
        Case("4 keys, temperature 1", (q, K, V, 1.0), soft_lookup_jacobian(q, K, V, 1.0),
             "chain rule: d output/d alpha = V^T, d alpha/d s = diag(alpha) - alpha alpha^T, d s/d q = K / temperature."),
        Case("same keys, temperature 0.5", (q, K, V, 0.5), soft_lookup_jacobian(q, K, V, 0.5),
             "the scores are K q / temperature, so the chain rule brings a factor 1 / temperature."),
        Case("d_k = 2, d_v = 4", (q2, K2, V2, 1.0), soft_lookup_jacobian(q2, K2, V2, 1.0),
             "J[a, b] = d output[a] / d q[b]: rows follow the values (d_v), columns the query (d_k)."),
        Case("a single key", (q2, K2[:1], V2[:1], 1.0), np.zeros((4, 2)),
             "with one key the weight is always 1, so the output cannot change with q."),
    ]
    return run_check("check_soft_lookup_jacobian", fn, cases, atol=1e-8, rtol=1e-6)
