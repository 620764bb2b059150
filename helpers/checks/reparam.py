"""Self-check for the transfer exercise of 2.3: W_Q and W_K are only determined up to an invertible matrix.

    from helpers.checks import check_matching_key_projection

If the query projection is replaced by ``W_Q @ R`` (R invertible, shape (d_k, d_k)), the learner
writes ``fn(W_K, R) -> W_K_new`` so that every score ``(X W_Q R)(X W_K_new)^T`` stays equal to
``(X W_Q)(X W_K)^T``. The cases use a non-symmetric, non-orthogonal R (so R, R^T, R^{-1} and
R^{-T} are four different matrices) and d_model != d_k (so transposes of W_K have the wrong shape).
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_matching_key_projection"]


def _reference(W_K, R):
    return np.asarray(W_K, dtype=float) @ np.linalg.inv(np.asarray(R, dtype=float)).T


def check_matching_key_projection(fn) -> CheckResult:
    """Check ``fn(W_K, R) -> (d_model, d_k)``: the key projection that undoes ``W_Q -> W_Q R`` in every score."""
    rng = np.random.default_rng(20260233)
    W_K = rng.normal(size=(6, 3))
    R_diag = np.diag([2.0, 0.5, 4.0])
    R_gen = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]])
    W_K4 = rng.normal(size=(5, 4))
    R4 = rng.normal(size=(4, 4)) + 2.0 * np.eye(4)
    cases = [
        Case("R = 2I（所有查询放大 2 倍）", (W_K, 2.0 * np.eye(3)), _reference(W_K, 2.0 * np.eye(3)),
             "查询放大 2 倍，分数也放大 2 倍；键要怎样变才能抵消？"),
        Case("对角的 R", (W_K, R_diag), _reference(W_K, R_diag),
             "每一维被 R 放大多少，键的这一维就要缩小多少。"),
        Case("一般的 3x3 R（不对称、不正交）", (W_K, R_gen), _reference(W_K, R_gen),
             "把新分数 x_i W_Q R (x_j W_K')^T 和原来的分数逐项比较；转置的次序是 (AB)^T = B^T A^T，R 不对称时 R、R^T、R 的逆各不相同。"),
        Case("d_model = 5, d_k = 4", (W_K4, R4), _reference(W_K4, R4),
             "结果的形状要和 W_K 一样：(d_model, d_k)。"),
    ]
    return run_check("check_matching_key_projection", fn, cases, atol=1e-9, rtol=1e-7,
                     general_hint="对任意 X，(X W_Q R)(X W_K')^T 必须等于 (X W_Q)(X W_K)^T。")
