"""The self-checks of 2.9 pass right answers and fail the classic wrong ones."""

import numpy as np

from helpers.checks import check_dependency_pattern, check_permutation_matrix, check_score_matrix_bytes
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


def test_score_matrix_bytes_check(capsys):
    def right(T, itemsize, batch=1, heads=1):
        return batch * heads * T * T * itemsize

    assert check_score_matrix_bytes(right)
    assert not check_score_matrix_bytes(lambda T, itemsize, batch=1, heads=1: T * itemsize)  # linear, not T^2
    assert not check_score_matrix_bytes(lambda T, itemsize, batch=1, heads=1: T * T * itemsize)  # forgets heads
    assert not check_score_matrix_bytes(lambda T, itemsize, batch=1, heads=1: T * T * itemsize * 8)  # bits
    assert not check_score_matrix_bytes(lambda T, itemsize, batch=1, heads=1: heads * T * T * itemsize)  # forgets batch
    assert check_score_matrix_bytes(lambda T, itemsize, batch=1, heads=1: int(batch * heads * T**2 * itemsize))
    assert "全部 5 个隐藏用例通过" in capsys.readouterr().out


def test_dependency_pattern_check(capsys):
    def right(T, causal):
        D = np.ones((T, T), dtype=bool)
        return np.tril(D) if causal else D

    assert check_dependency_pattern(right)
    assert not check_dependency_pattern(lambda T, causal: np.triu(np.ones((T, T), dtype=bool)) if causal else np.ones((T, T), dtype=bool))
    assert not check_dependency_pattern(lambda T, causal: np.eye(T, dtype=bool))
    assert not check_dependency_pattern(lambda T, causal: np.tril(np.ones((T, T)), k=-1) + np.eye(T) * (not causal))
    assert not check_dependency_pattern(lambda T, causal: np.tril(np.ones((T, T), dtype=bool), k=-1) if causal
                                        else np.ones((T, T), dtype=bool))   # off by one: not itself
    assert not check_dependency_pattern(lambda T, causal: np.tril(np.ones((T, T), dtype=bool), k=1) if causal
                                        else np.ones((T, T), dtype=bool))   # off by one: one future token
    assert check_dependency_pattern(lambda T, causal: [[j <= i or not causal for j in range(T)] for i in range(T)])
    assert "全部 5 个隐藏用例通过" in capsys.readouterr().out


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

REVIEW_PROPERTIES = [
    (check_permutation_matrix, lambda p: np.eye(len(p), dtype=bool)[list(p)], True),
    (check_permutation_matrix, lambda p: [[int(j == p[i]) for j in range(len(p))] for i in range(len(p))], True),
    (check_permutation_matrix, lambda p: np.eye(len(p))[np.argsort(p)], False),              # inverse permutation
    (check_score_matrix_bytes, lambda T, s, batch=1, heads=1: float(T) ** 2 * s * batch * heads, False),  # an int is asked (issue 20)
    (check_score_matrix_bytes, lambda T, s, batch=1, heads=1: T * (T + 1) // 2 * s * batch * heads, False),  # causal half
    (check_score_matrix_bytes, lambda T, s, batch=1, heads=1: T * T * s * (batch + heads - 1), False),
    (check_dependency_pattern, lambda T, c: np.tril(np.ones((T, T))) if c else np.ones((T, T)), False),  # 0/1 floats: a bool matrix is asked (issue 20)
    (check_dependency_pattern, lambda T, c: np.tril(np.ones((T, T), bool)) if c else np.eye(T, dtype=bool), False),
]
test_review_property_variants = verdict_table(REVIEW_PROPERTIES)
