"""The 2.13 self-checks: correct variants pass, the classic indexing slips are rejected."""

import numpy as np
import pytest

from helpers.checks import check_referent_margin, check_special_share
from check_verdicts import review_verdict as _review_verdict


def _rejected(result, capsys):
    out = capsys.readouterr().out
    return (not result) and out.startswith("\u274c") and "提示（hint）" in out


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


@pytest.mark.parametrize("fn", MARGIN_OK)
def test_margin_correct_variants_pass(fn, capsys):
    assert check_referent_margin(fn)


@pytest.mark.parametrize("name", MARGIN_WRONG)
def test_margin_rejects(name, capsys):
    assert _rejected(check_referent_margin(MARGIN_WRONG[name]), capsys), name


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


@pytest.mark.parametrize("fn", SHARE_OK)
def test_share_correct_variants_pass(fn, capsys):
    assert check_special_share(fn)


@pytest.mark.parametrize("name", SHARE_WRONG)
def test_share_rejects(name, capsys):
    assert _rejected(check_special_share(SHARE_WRONG[name]), capsys), name


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


@pytest.mark.parametrize("k", range(len(REVIEW_REAL)))
def test_review_real_model_variants(k, capsys):
    check, fn, should_pass = REVIEW_REAL[k]
    passed, out = _review_verdict(check, fn, capsys)
    assert passed == should_pass, out
