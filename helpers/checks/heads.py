"""Self-checks for the 2.11 exercises: splitting into heads, and multi-head attention.

``from helpers.checks.heads import check_split_heads, check_multi_head``
"""

from __future__ import annotations

import numpy as np

from ..heads import multi_head_self_attention, split_heads
from .core import Case, CheckResult, run_check

__all__ = ["check_split_heads", "check_multi_head"]


def check_split_heads(fn) -> CheckResult:
    """Check ``fn(Y, n_heads) -> Z``: (T, h*d_head) -> (h, T, d_head), head i = columns i*d_head:(i+1)*d_head."""
    rng = np.random.default_rng(20260211)
    Y1 = np.arange(12.0).reshape(2, 6)
    Y2 = rng.normal(size=(5, 8))
    Y3 = rng.normal(size=(3, 6))
    cases = [
        Case("T = 2, width 6, 2 heads", (Y1, 2), split_heads(Y1, 2),
             "the result has shape (n_heads, T, d_head) and head i is Y[:, i*d_head:(i+1)*d_head]. Reshape to "
             "(T, n_heads, d_head) first (each row cut into slices), THEN move the head axis to the front; "
             "reshaping straight to (n_heads, T, d_head) mixes tokens."),
        Case("T = 5, width 8, 4 heads", (Y2, 4), split_heads(Y2, 4),
             "d_head = width // n_heads; head i takes a contiguous block of columns, not every n_heads-th one."),
        Case("one head", (Y3, 1), split_heads(Y3, 1), "with one head the only head is all of Y: shape (1, T, width)."),
        Case("one column per head", (Y3, 6), split_heads(Y3, 6), "d_head = width // n_heads."),
    ]
    return run_check("check_split_heads", fn, cases, atol=0.0, rtol=0.0)


def check_multi_head(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V, W_O, n_heads) -> output`` of shape (T, d_out)."""
    rng = np.random.default_rng(20260311)

    def inputs(T, d_model, h, d_k, d_v, d_out):
        return (rng.normal(size=(T, d_model)), rng.normal(size=(d_model, h * d_k)) / np.sqrt(d_model),
                rng.normal(size=(d_model, h * d_k)) / np.sqrt(d_model), rng.normal(size=(d_model, h * d_v)),
                rng.normal(size=(h * d_v, d_out)), h)

    one = inputs(4, 6, 1, 6, 6, 6)
    two = inputs(5, 8, 2, 4, 4, 8)
    four = inputs(6, 8, 4, 2, 3, 5)
    cases = [
        Case("one head (the chapter's formula, then W_O)", one,
             multi_head_self_attention(*one[:5], n_heads=1).output,
             "with one head: softmax(Q K^T / sqrt(d_k)) V, then multiply by W_O."),
        Case("2 heads of width 4", two, multi_head_self_attention(*two[:5], n_heads=2).output,
             "scale each head by sqrt(d_head) (its own width), not sqrt of the full width; concatenate "
             "the heads in order before W_O."),
        Case("4 heads, d_k = 2, d_v = 3, d_out = 5", four, multi_head_self_attention(*four[:5], n_heads=4).output,
             "split V by its own width (W_V.shape[1] // n_heads), which may differ from Q's."),
    ]
    return run_check("check_multi_head", fn, cases, atol=1e-8, rtol=1e-6)
