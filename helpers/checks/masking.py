"""Self-checks for the exercises about the causal mask (chapter 2.10).

``from helpers.checks.masking import check_make_causal_mask, check_causal_attention,
check_left_padded_causal_mask``
"""

from __future__ import annotations

import numpy as np

from ..attention import scaled_dot_product_attention
from .core import Case, CheckResult, run_check

__all__ = ["check_make_causal_mask", "check_causal_attention", "check_left_padded_causal_mask"]

_MASK_HINT = (
    "M[i, j] is 0 where key j is at or before query i (j <= i) and -inf where it is in the future "
    "(j > i). Use -np.inf itself, not a large negative number; np.triu(..., k=1) picks j > i."
)


def _reference_mask(T: int) -> np.ndarray:
    # Independent of helpers.masking: written from the definition, entry by entry.
    M = np.zeros((T, T))
    for i in range(T):
        for j in range(T):
            if j > i:
                M[i, j] = -np.inf
    return M


def check_make_causal_mask(fn) -> CheckResult:
    """Check a learner's ``fn(T) -> M``, the additive causal mask of shape (T, T) (0 / -inf)."""
    cases = [
        Case("T = 1 (one token sees itself)", (1,), _reference_mask(1), "a single token must see itself: M = [[0.]]."),
        Case("T = 4", (4,), _reference_mask(4), _MASK_HINT),
        Case("T = 7", (7,), _reference_mask(7), _MASK_HINT),
    ]
    return run_check("check_make_causal_mask", fn, cases, atol=0.0, rtol=0.0, general_hint=_MASK_HINT)


def _reference_causal(Q, K, V) -> np.ndarray:
    T = Q.shape[0]
    allowed = np.tril(np.ones((T, K.shape[0]), dtype=bool))
    return scaled_dot_product_attention(Q, K, V, mask=allowed).output


def check_causal_attention(fn) -> CheckResult:
    """Check a learner's ``fn(Q, K, V) -> output``: causal scaled dot-product self-attention.

    Q, K have shape (T, d_k), V has shape (T, d_v); the output has shape (T, d_v).
    """
    rng = np.random.default_rng(20260210)
    one = tuple(rng.normal(size=(1, d)) for d in (3, 3, 2))
    small = tuple(rng.normal(size=(4, d)) for d in (3, 3, 2))
    wide = tuple(rng.normal(size=(6, d)) for d in (16, 16, 5))
    huge = (small[0] * 300.0, small[1] * 300.0, small[2])
    cases = [
        Case("T = 1", one, _reference_causal(*one), "with one token the only key is the token itself: output = V."),
        Case("T = 4, d_k = 3, d_v = 2", small, _reference_causal(*small),
             "order: S = Q K^T / sqrt(d_k), add the mask (0 / -inf, -inf above the diagonal), softmax each row, then A V."),
        Case("T = 6, d_k = 16, d_v = 5", wide, _reference_causal(*wide),
             "did you divide the scores by sqrt(d_k) (d_k = Q.shape[-1])?"),
        Case("huge scores (|s| up to about 1e5)", huge, _reference_causal(*huge),
             "np.exp overflows to inf for scores above about 709: subtract each row's maximum first (helpers.softmax does)."),
    ]
    return run_check("check_causal_attention", fn, cases, atol=1e-8, rtol=1e-6)


def _reference_left_padded(T: int, n_pad: int) -> np.ndarray:
    allowed = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(T):
            if i < n_pad:
                allowed[i, j] = i == j          # a padding query sees only itself
            else:
                allowed[i, j] = n_pad <= j <= i  # a real token: the real past and itself
    return allowed


def check_left_padded_causal_mask(fn) -> CheckResult:
    """Check a learner's ``fn(T, n_pad) -> allowed``: boolean (T, T) causal mask for a left-padded sequence.

    The first ``n_pad`` positions are padding. A real query i (i >= n_pad) may see the real keys
    n_pad..i; a padding query sees only itself, so that no row is fully masked.
    """
    hint = ("a real token i may see keys j with n_pad <= j <= i (causal AND not padding); a padding query "
            "sees only itself - with no allowed key its row would be 0/0 = NaN.")
    cases = [
        Case("no padding (T = 4, n_pad = 0)", (4, 0), _reference_left_padded(4, 0), hint),
        Case("T = 5, n_pad = 2", (5, 2), _reference_left_padded(5, 2), hint),
        Case("T = 7, n_pad = 3", (7, 3), _reference_left_padded(7, 3), hint),
        Case("all padding (T = 3, n_pad = 3)", (3, 3), _reference_left_padded(3, 3), hint),
    ]
    return run_check("check_left_padded_causal_mask", fn, cases, atol=0.0, rtol=0.0)
