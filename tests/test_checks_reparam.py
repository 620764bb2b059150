"""The 2.3 transfer check (check_matching_key_projection) accepts correct variants and rejects the classic wrong answers."""

import numpy as np

from helpers.checks import check_matching_key_projection
from check_verdicts import check_table


def test_stub_is_not_done(capsys):
    def stub(*args):
        raise NotImplementedError

    assert not check_matching_key_projection(stub).passed


# --- 2.3 matching key projection --------------------------------------------------------------

OK = [
    lambda W_K, R: W_K @ np.linalg.inv(R).T,
    lambda W_K, R: np.linalg.solve(R, W_K.T).T,
    lambda W_K, R: W_K @ np.linalg.inv(R.T),
    lambda W_K, R: W_K @ np.linalg.pinv(R).T,
    lambda W_K, R: (np.linalg.inv(R) @ W_K.T).T,
]
WRONG = [
    lambda W_K, R: W_K,                        # unchanged
    lambda W_K, R: W_K @ R,                    # multiply instead of undo
    lambda W_K, R: W_K @ R.T,                  # transpose only
    lambda W_K, R: W_K @ np.linalg.inv(R),     # missing transpose
    lambda W_K, R: (np.linalg.inv(R) @ W_K.T),  # wrong shape (transposed result)
    lambda W_K, R: W_K / np.linalg.det(R),     # scalar fudge
    lambda W_K, R: W_K / np.diag(R),           # right for a diagonal R only
    lambda W_K, R: W_K @ (1.0 / np.where(R == 0, 1.0, R)).T,   # element-wise reciprocal instead of the inverse
    lambda W_K, R: (np.linalg.inv(R).T @ W_K.T).T,             # = W_K R^{-1}: transposes in the wrong order
]
test_matching_key_projection_accepts, test_matching_key_projection_rejects = check_table(
    check_matching_key_projection, OK, WRONG)


def test_reference_keeps_scores():
    rng = np.random.default_rng(0)
    for _ in range(20):
        X, W_Q, W_K = rng.normal(size=(7, 5)), rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
        R = rng.normal(size=(3, 3)) + 3 * np.eye(3)
        W_K_new = W_K @ np.linalg.inv(R).T
        assert np.allclose((X @ W_Q @ R) @ (X @ W_K_new).T, (X @ W_Q) @ (X @ W_K).T)
