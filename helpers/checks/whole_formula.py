"""Self-checks for the 2.7 exercises: the five steps, and counting parameters."""

from __future__ import annotations

import numpy as np

from ..attention import self_attention
from ..book import example_inputs
from ..shapes import qkv_parameter_count
from .core import Case, CheckResult, run_check

__all__ = ["check_five_steps", "check_qkv_parameter_count"]


def check_five_steps(fn) -> CheckResult:
    """Check a learner's ``fn(X, W_Q, W_K, W_V) -> output`` built from the five steps.

    ``X`` has shape (T, d_model), ``W_Q``/``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v);
    the result must have shape (T, d_v).
    """
    rng = np.random.default_rng(20260207)
    book = example_inputs()
    X1 = rng.normal(size=(5, 6))
    W1 = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    X2 = rng.normal(size=(1, 4))
    W2 = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    X3 = rng.normal(size=(6, 8))
    W3 = rng.normal(size=(8, 16)), rng.normal(size=(8, 16)), rng.normal(size=(8, 2))
    cases = [
        Case("the book's 4-token example", (book["X"], book["W_Q"], book["W_K"], book["W_V"]),
             self_attention(book["X"], book["W_Q"], book["W_K"], book["W_V"]).output,
             "step by step: Q, K, V = X @ W; S = Q @ K.T; S / sqrt(d_k); softmax along each row (axis=-1); A @ V."),
        Case("d_v != d_k (T=5, d_model=6, d_k=3, d_v=4)", (X1, *W1), self_attention(X1, *W1).output,
             "d_k is Q.shape[-1] (= K.shape[-1]), not V's width; the output has V's width d_v."),
        Case("a single token (T=1)", (X2, *W2), self_attention(X2, *W2).output,
             "with one token its only weight is 1, so the output is its own value row."),
        Case("larger d_k = 16", (X3, *W3), self_attention(X3, *W3).output,
             "divide by sqrt(d_k) with d_k = 16 (the key width), and normalise each row, not each column."),
    ]
    return run_check("check_five_steps", fn, cases, atol=1e-8, rtol=1e-6)


def check_qkv_parameter_count(fn) -> CheckResult:
    """Check a learner's ``fn(d_model, d_k, d_v) -> int``: entries of W_Q, W_K, W_V (one head, no bias)."""
    cases = [
        Case("d_model=4, d_k=d_v=2 (the book's example)", (4, 2, 2), qkv_parameter_count(4, 2, 2),
             "three matrices of shape (d_model, d_k), (d_model, d_k), (d_model, d_v): add their sizes."),
        Case("d_model=8, d_k=3, d_v=4", (8, 3, 4), qkv_parameter_count(8, 3, 4),
             "W_V has d_v columns, which need not equal d_k."),
        Case("one head of a 768-wide model, d_k=d_v=64", (768, 64, 64), qkv_parameter_count(768, 64, 64),
             "d_model * d_k + d_model * d_k + d_model * d_v."),
        Case("d_model=4096, d_k=d_v=128", (4096, 128, 128), qkv_parameter_count(4096, 128, 128),
             "the count never involves T, the number of tokens."),
    ]
    return run_check("check_qkv_parameter_count", fn, cases, atol=0.0, rtol=0.0)
