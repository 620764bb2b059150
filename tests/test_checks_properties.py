"""The self-checks of 2.9 pass right answers and fail the classic wrong ones."""

import numpy as np

import helpers as H

from helpers.checks import check_permutation_matrix
from check_verdicts import verdict_table


def test_permutation_matrix_check(capsys):
    def right(perm):
        P = np.zeros((len(perm), len(perm)))
        for i, p in enumerate(perm):
            P[i, p] = 1
        return P

    assert check_permutation_matrix(right)
    assert not check_permutation_matrix(lambda perm: right(perm).T)  # the inverse permutation
    assert not check_permutation_matrix(lambda perm: np.eye(len(perm)))
    out = capsys.readouterr().out
    assert "全部 6 个隐藏用例通过" in out and "逆置换（inverse）" in out
    assert check_permutation_matrix(lambda perm: np.eye(len(perm))[perm])
    assert not check_permutation_matrix(lambda perm: np.eye(len(perm))[::-1][perm])


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

REVIEW_PROPERTIES = [
    (check_permutation_matrix, lambda p: np.eye(len(p), dtype=bool)[list(p)], True),
    (check_permutation_matrix, lambda p: [[int(j == p[i]) for j in range(len(p))] for i in range(len(p))], True),
    (check_permutation_matrix, lambda p: np.eye(len(p))[np.argsort(p)], False),              # inverse permutation
    (check_permutation_matrix, lambda p: H.attention_properties.permutation_matrix(p), False),   # the helper 2.9 uses above
]
test_review_property_variants = verdict_table(REVIEW_PROPERTIES)
