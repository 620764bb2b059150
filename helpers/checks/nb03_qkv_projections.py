"""Self-checks for 2.3 (Q/K/V projections): the key projection that undoes ``W_Q -> W_Q R``
(R invertible: W_Q and W_K are only determined up to it), a packed W_qkv split, and recovering W_Q from
X and Q = X W_Q.

The cases of :func:`check_matching_key_projection` use a non-symmetric, non-orthogonal R (so R, R^T,
R^{-1} and R^{-T} are four different matrices) and d_model != d_k (so transposes have the wrong shape).
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_matching_key_projection", "check_split_packed_qkv", "check_recover_projection"]


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


# ---- 2.3 exercises that ask for something new (issue 20): a packed Q/K/V matrix, recovering W_Q from data


def _packed_ref(X, W_qkv, d_k):
    P = np.asarray(X) @ np.asarray(W_qkv)
    return P[:, :d_k], P[:, d_k:2 * d_k], P[:, 2 * d_k:]


_PK_WRONG = [
    Wrong("你把打包的矩阵平均切成了三份：只有 d_v = d_k 时才对。三段的宽度依次是 d_k、d_k 和剩下的 d_v 列。",
          lambda X, W, d_k: tuple(X @ w for w in np.split(W, 3, axis=1))),
    Wrong("值的那一段按 d_k 列截取了：它从第 2·d_k 列起一直到最后，宽度 d_v 可以不等于 d_k。",
          lambda X, W, d_k: (X @ W[:, :d_k], X @ W[:, d_k:2 * d_k], X @ W[:, 2 * d_k:3 * d_k])),
    Wrong("三段的顺序是查询、键、值：第一段是 W_Q，第二段是 W_K。",
          lambda X, W, d_k: (X @ W[:, d_k:2 * d_k], X @ W[:, :d_k], X @ W[:, 2 * d_k:])),
    Wrong("打包是沿列（输出分量）拼接的，不是沿行：每一段都保留全部 d_model 行。",
          lambda X, W, d_k: tuple(X[:, s] @ W[s] for s in (slice(0, d_k), slice(d_k, 2 * d_k), slice(2 * d_k, None)))),
]


@float_safe
def check_split_packed_qkv(fn) -> CheckResult:
    """Check ``fn(X, W_qkv, d_k) -> (Q, K, V)``: ``W_qkv`` (d_model, 2 d_k + d_v) holds W_Q, W_K, W_V side
    by side in that order; Q, K have d_k columns, V has d_v = W_qkv columns - 2 d_k."""
    rng = np.random.default_rng(20260231)
    c1 = (rng.normal(size=(4, 6)), rng.normal(size=(6, 9)), 3)
    c2 = (rng.normal(size=(5, 4)), rng.normal(size=(4, 9)), 2)       # d_v = 5
    c3 = (rng.normal(size=(3, 6)), rng.normal(size=(6, 9)), 4)       # d_v = 1
    c4 = (rng.normal(size=(1, 3)), rng.normal(size=(3, 7)), 3)       # T = 1, d_v = 1
    c5 = (rng.normal(size=(3, 8)).astype(np.float32), rng.normal(size=(8, 10)).astype(np.float32), 3)
    cases = [
        Case("d_k = d_v = 3", c1, _packed_ref(*c1), "三段依次是查询、键、值的投影，每一段都要与 X 相乘。"),
        Case("d_k=2，d_v=5", c2, _packed_ref(*c2), "d_v 可以不等于 d_k：三段的宽度分别是 d_k、d_k 和剩下的列。"),
        Case("d_k=4，d_v=1", c3, _packed_ref(*c3), "值那一段的宽度是总列数减去 2·d_k。"),
        Case("只有一个 token（T=1）", c4, _packed_ref(*c4), "T=1 时 Q、K、V 各有 1 行，仍是二维数组。"),
        Case("float32 输入", c5, _packed_ref(*c5), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_split_packed_qkv", fn, cases, wrong=_PK_WRONG, atol=1e-5, rtol=1e-4)


def _recover_ref(X, Q):
    return np.linalg.lstsq(np.asarray(X, dtype=float), np.asarray(Q, dtype=float), rcond=None)[0]


_RP_WRONG = [
    Wrong("Xᵀ Q 不是 W_Q：X 的各列既不正交也不是单位长度，要解方程组 X W = Q（最小二乘，least squares），而不是乘一个转置。",
          lambda X, Q: X.T @ Q),
    Wrong("结果转置了：W_Q 的形状是 (d_model, d_k)。", lambda X, Q: np.linalg.lstsq(X, Q, rcond=None)[0].T),
    Wrong("方程的两边对调了：已知的是 X（左边）和 Q（右边），未知的是中间的 W_Q。",
          lambda X, Q: np.linalg.lstsq(Q, X, rcond=None)[0]),
    Wrong("X 不是方阵（T 个 token 多于 d_model），没有普通的逆矩阵：用最小二乘或伪逆（pseudo-inverse）。",
          lambda X, Q: np.linalg.inv(X) @ Q),
    Wrong("X 不是方阵（T 个 token 多于 d_model），不能直接求解方阵方程：用最小二乘或伪逆（pseudo-inverse）。",
          lambda X, Q: np.linalg.solve(X, Q)),
]


@float_safe
def check_recover_projection(fn) -> CheckResult:
    """Check ``fn(X, Q) -> W_Q`` of shape (d_model, d_k), given ``X`` (T, d_model) of full column rank with
    T >= d_model and ``Q = X W_Q`` (T, d_k)."""
    rng = np.random.default_rng(20260232)

    def pair(T, d_model, d_k, scale=None, dtype=float):
        X = rng.normal(size=(T, d_model)) * (1.0 if scale is None else scale)
        W = rng.normal(size=(d_model, d_k))
        return (X.astype(dtype), (X @ W).astype(dtype)), W

    (c1, W1), (c2, W2), (c3, W3) = pair(4, 4, 2), pair(9, 4, 3), pair(7, 3, 1)
    c4, W4 = pair(8, 3, 2, scale=np.array([1.0, 100.0, 0.01]))
    c5, W5 = pair(10, 4, 2, dtype=np.float32)
    cases = [
        Case("T = d_model = 4（方阵 X）", c1, W1, "每个 token 给出 d_k 个方程 x_i W_Q = q_i；所有 token 共用同一个 W_Q。"),
        Case("T=9 个 token，d_model=4", c2, W2,
             "token 比 d_model 多时，方程比未知数多（但都相容）：求最小二乘解，不要求逆。"),
        Case("d_k = 1", c3, W3, "结果仍是二维数组，形状 (d_model, d_k)。"),
        Case("X 的三列尺度相差 10⁴ 倍", c4, W4, "不要用 X 的转置去“近似”逆：各列尺度不同时差得很远。"),
        Case("float32 输入", c5, W5, "float32 输入按 float32 的精度比较。", atol=1e-3, rtol=1e-3),
    ]
    return run_diagnosed("check_recover_projection", fn, cases, wrong=_RP_WRONG, atol=1e-5, rtol=1e-4)
