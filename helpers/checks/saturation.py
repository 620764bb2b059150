"""Self-checks for the exercises of 2.5 (scaling by sqrt(d_k)) and 2.6 (softmax as normalisation).

    from helpers.checks.saturation import check_dot_variance, check_scaled_scores
    from helpers.checks.saturation import check_softmax_jacobian, check_is_attention_matrix

Each check runs the learner's function on hidden cases and prints one verdict
line (plus a hint on failure). The expected values are never printed.
"""

from __future__ import annotations

import math

import numpy as np

from ..softmax import softmax, softmax_jacobian
from .core import Case, CheckResult, run_check

__all__ = ["check_dot_variance", "check_scaled_scores", "check_softmax_jacobian", "check_is_attention_matrix"]


def check_dot_variance(fn) -> CheckResult:
    """Check ``fn(d_k, var_q, var_k) -> float``: Var(q . k) for independent zero-mean components.

    The reference is the derivation of 2.5 generalised to component variances
    ``var_q`` and ``var_k``; a numeric Monte Carlo case keeps it honest.
    """
    rng = np.random.default_rng(20260205)
    q = rng.normal(scale=math.sqrt(2.0), size=(20000, 8))
    k = rng.normal(scale=math.sqrt(0.5), size=(20000, 8))
    mc = float(np.var(np.sum(q * k, axis=1)))  # close to 8 * 2 * 0.5 = 8
    cases = [
        Case("unit variances, d_k = 64", (64, 1.0, 1.0), 64.0,
             "each term q_i k_i has variance E[q_i^2] E[k_i^2]; the d_k terms are independent, so variances add."),
        Case("unit variances, d_k = 1", (1, 1.0, 1.0), 1.0, "one term only: Var(q_1 k_1)."),
        Case("var_q = 4, var_k = 1, d_k = 16", (16, 4.0, 1.0), 64.0,
             "E[(q_i k_i)^2] = E[q_i^2] E[k_i^2] = var_q * var_k, not their sum."),
        Case("var_q = 0.25, var_k = 0.5, d_k = 1024", (1024, 0.25, 0.5), 128.0,
             "Var(q . k) = sum over i of var_q * var_k."),
        Case("against a Monte Carlo estimate (d_k = 8, var_q = 2, var_k = 0.5)", (8, 2.0, 0.5), mc,
             "your formula disagrees with a simulation of 20000 dot products."),
    ]
    # the Monte Carlo case has sampling error ~ 1 %; the exact cases pass at any tolerance below that
    return run_check("check_dot_variance", fn, cases, atol=0.0, rtol=0.05)


def check_scaled_scores(fn) -> CheckResult:
    """Check ``fn(Q, K) -> (T_q, T_k)``: the scores Q K^T / sqrt(d_k) for Q (T_q, d_k), K (T_k, d_k)."""
    rng = np.random.default_rng(20260215)
    cases = []
    for label, (tq, tk, d) in {"T_q = T_k = 4, d_k = 16": (4, 4, 16), "T_q = 2, T_k = 5, d_k = 64": (2, 5, 64),
                               "d_k = 1": (3, 3, 1), "T_q = 3, T_k = 6, d_k = 1024": (3, 6, 1024)}.items():
        Q, K = rng.normal(size=(tq, d)), rng.normal(size=(tk, d))
        hint = ("divide by the square root of d_k = K.shape[-1], not by d_k itself" if d > 1
                else "the result must have shape (T_q, T_k): Q @ K.T")
        cases.append(Case(label, (Q, K), Q @ K.T / math.sqrt(d), hint))
    return run_check("check_scaled_scores", fn, cases, atol=1e-9, rtol=1e-9,
                     general_hint="scores = Q @ K.T / np.sqrt(d_k)")


def check_softmax_jacobian(fn) -> CheckResult:
    """Check ``fn(a) -> (T, T)``: J[i, j] = a_i (delta_ij - a_j) for softmax weights a of shape (T,)."""
    rng = np.random.default_rng(20260225)
    a5 = softmax(rng.normal(size=5))
    cases = [
        Case("two equal weights", (np.array([0.5, 0.5]),), softmax_jacobian(np.array([0.5, 0.5])),
             "the diagonal is a_i (1 - a_i), the off-diagonal -a_i a_j."),
        Case("a one-hot row", (np.array([0.0, 1.0, 0.0]),), np.zeros((3, 3)),
             "for a one-hot weight vector every entry of J is 0."),
        Case("5 random weights", (a5,), softmax_jacobian(a5),
             "np.diag(a) - np.outer(a, a) builds the whole matrix at once."),
        Case("a nearly saturated row", (softmax(np.array([50.0, 40.0, 0.0])),),
             softmax_jacobian(softmax(np.array([50.0, 40.0, 0.0]))),
             "take the weights as given; do not apply softmax again."),
    ]
    return run_check("check_softmax_jacobian", fn, cases, atol=1e-12, rtol=1e-9)


def check_is_attention_matrix(fn) -> CheckResult:
    """Check ``fn(A) -> bool``: True iff every ROW of A is non-negative and sums to 1 (within 1e-6)."""
    rng = np.random.default_rng(20260206)
    S = rng.normal(size=(4, 4)) * 3
    good = softmax(S, axis=-1)
    wrong_axis = softmax(S, axis=0)
    negative = good.copy()
    negative[0] = [1.2, -0.2, 0.0, 0.0]
    rect = softmax(rng.normal(size=(2, 5)))
    cases = [
        Case("softmax along the rows", (good,), True, "each row should sum to 1: A.sum(axis=-1)."),
        Case("softmax along the columns (the bug)", (wrong_axis,), False,
             "the columns of this matrix sum to 1, its rows do not: check axis=-1 (rows), not axis=0."),
        Case("rows sum to 1 but one weight is negative", (negative,), False,
             "weights must also be non-negative: (A >= 0).all()."),
        Case("a rectangular (T_q = 2, T_k = 5) matrix", (rect,), True,
             "A has one row per query; it need not be square."),
        Case("the identity", (np.eye(3),), True, "one-hot rows are valid attention rows."),
    ]
    return run_check("check_is_attention_matrix", fn, cases, atol=0.0, rtol=0.0)
