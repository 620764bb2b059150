"""The 2.13 self-checks: correct variants pass, the classic indexing slips are rejected."""

import numpy as np

from helpers.checks import check_referent_margin, check_special_share
from check_verdicts import check_table, verdict_table


MARGIN_OK = [lambda A, i, a, b: A[:, :, i, a] - A[:, :, i, b],
             lambda A, i, a, b: [[A[l, h, i, a] - A[l, h, i, b] for h in range(A.shape[1])] for l in range(A.shape[0])],
             lambda A, i, a, b: np.subtract(A[..., i, a], A[..., i, b])]
MARGIN_WRONG = {
    "reversed sign": lambda A, i, a, b: A[:, :, i, b] - A[:, :, i, a],
    "columns instead of rows": lambda A, i, a, b: A[:, :, a, i] - A[:, :, b, i],
    "first layer only": lambda A, i, a, b: A[0, :, i, a] - A[0, :, i, b],
    "mean over heads": lambda A, i, a, b: (A[:, :, i, a] - A[:, :, i, b]).mean(axis=1),
    "absolute value": lambda A, i, a, b: np.abs(A[:, :, i, a] - A[:, :, i, b]),
    "ratio": lambda A, i, a, b: A[:, :, i, a] / A[:, :, i, b],
    "1.04 x": lambda A, i, a, b: 1.04 * (A[:, :, i, a] - A[:, :, i, b]),
}


test_margin_correct_variants_pass, test_margin_rejects = check_table(
    check_referent_margin, MARGIN_OK, MARGIN_WRONG, wrong_says=["提示（hint）"])


SHARE_OK = [lambda A, pos: float(A[..., list(pos)].sum(axis=-1).mean()),
            lambda A, pos: sum(float(A[..., p].mean()) for p in pos),
            lambda A, pos: np.mean(np.sum(np.take(A, pos, axis=-1), axis=-1))]
SHARE_WRONG = {
    "mean over positions too": lambda A, pos: float(A[..., list(pos)].mean()),
    "sum, not mean": lambda A, pos: float(A[..., list(pos)].sum()),
    "query rows instead of key columns": lambda A, pos: float(A[..., list(pos), :].sum(axis=-2).mean()),
    "last layer only": lambda A, pos: float(A[-1][..., list(pos)].sum(axis=-1).mean()),
    "first position only": lambda A, pos: float(A[..., pos[0]].mean()),
    "1.04 x": lambda A, pos: 1.04 * float(A[..., list(pos)].sum(axis=-1).mean()),
}


test_share_correct_variants_pass, test_share_rejects = check_table(
    check_special_share, SHARE_OK, SHARE_WRONG, wrong_says=["提示（hint）"])


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

REVIEW_REAL = [
    (check_referent_margin, lambda A, i, a, b: A[:, :, i - 1, a - 1] - A[:, :, i - 1, b - 1], False),   # 1-based
    (check_referent_margin, lambda A, i, a, b: np.log(A[:, :, i, a]) - np.log(A[:, :, i, b]), False),
    (check_referent_margin, lambda A, i, a, b: (A[..., i, a] - A[..., i, b]).tolist(), True),
    (check_special_share, lambda A, p: float(A[-1][..., p].sum(-1).mean()), False),                     # last layer only
    (check_special_share, lambda A, p: float(np.median(A[..., p].sum(-1))), False),
    (check_special_share, lambda A, p: A[..., p].sum(-1).mean(axis=(1, 2)), False),                     # per layer
    (check_special_share, lambda A, p: A[..., sorted(set(p))].sum() / (A.size / A.shape[-1]), True),
]


test_review_real_model_variants = verdict_table(REVIEW_REAL)
