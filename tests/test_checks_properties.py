"""2.9's exercise 1 (issue 30): the weights of a sentence shuffled twice, predicted from the original weights by
permutation equivariance. The check's expected values come from running attention on the shuffled sentence; the
accepted answers index (or multiply) the original weights."""

import numpy as np
from check_verdicts import check_table, fails

import helpers as H
from helpers.checks import check_twice_shuffled_weights


def composed_indexing(A, perm1, perm2):
    c = np.asarray(perm1)[np.asarray(perm2)]
    return np.asarray(A)[c][:, c]


def one_shuffle_at_a_time(A, perm1, perm2):
    p1, p2 = np.asarray(perm1), np.asarray(perm2)
    A1 = np.asarray(A)[p1][:, p1]
    return A1[p2][:, p2]


def permutation_matrices(A, perm1, perm2):
    T = len(perm1)
    P1, P2 = np.eye(T)[list(perm1)], np.eye(T)[list(perm2)]
    return P2 @ P1 @ A @ P1.T @ P2.T


def series_helper(A, perm1, perm2):
    P = H.attention_properties.permutation_matrix(np.asarray(perm1)[np.asarray(perm2)])
    return P @ A @ P.T


def open_mesh(A, perm1, perm2):
    c = np.take(perm1, perm2)
    return np.asarray(A)[np.ix_(c, c)]


def test_equivariance_holds_for_a_sentence_shuffled_twice():
    # the claim the exercise rests on, checked here on its own: attention of X[p1][p2] vs the indexed weights
    g = np.random.default_rng(7)
    X, (W_Q, W_K, W_V) = g.normal(size=(6, 4)), g.normal(size=(3, 4, 3))
    p1, p2 = g.permutation(6), g.permutation(6)
    A = H.self_attention(X, W_Q, W_K, W_V).weights
    A2 = H.self_attention(X[p1][p2], W_Q, W_K, W_V).weights
    assert np.allclose(A2, composed_indexing(A, p1, p2), atol=1e-12)
    assert not np.allclose(A2, composed_indexing(A, p2, p1))          # the order of composition matters here


test_twice_shuffled_accepts, test_twice_shuffled_rejects = check_table(
    check_twice_shuffled_weights,
    [composed_indexing, one_shuffle_at_a_time, permutation_matrices, series_helper, open_mesh],
    {"composed the other way": (lambda A, p1, p2: composed_indexing(A, p2, p1), "合成顺序反了"),
     "inverse": (lambda A, p1, p2: composed_indexing(A, *[np.argsort(np.asarray(p1)[np.asarray(p2)]), np.arange(len(p1))]),
                 "逆排列"),
     "second shuffle only": (lambda A, p1, p2: composed_indexing(A, np.arange(len(p1)), p2), "只用了第二次"),
     "first shuffle only": (lambda A, p1, p2: composed_indexing(A, p1, np.arange(len(p1))), "只用了第一次"),
     "rows only": (lambda A, p1, p2: np.asarray(A)[np.asarray(p1)[np.asarray(p2)]], "只重排了行"),
     "columns only": (lambda A, p1, p2: np.asarray(A)[:, np.asarray(p1)[np.asarray(p2)]], "只重排了列"),
     "A[c, c]": (lambda A, p1, p2: np.asarray(A)[np.asarray(p1)[np.asarray(p2)], np.asarray(p1)[np.asarray(p2)]],
                 ["对角线", "形状"]),
     "P^T A P": (lambda A, p1, p2: (lambda P: P.T @ A @ P)(np.eye(len(p1))[np.asarray(p1)[np.asarray(p2)]]), "逆排列"),
     "unchanged": (lambda A, p1, p2: np.asarray(A), "数值不对")})


def test_a_raising_function_gets_a_message_not_a_traceback(capsys):
    out = fails(capsys, check_twice_shuffled_weights(lambda A, p1, p2: A[p1 + 100]))
    assert "IndexError" in out and "Traceback" not in out
