"""Self-checks of the exercises that replaced the re-typing ones in 2.1-2.7 (issue 20).

For each check: correct variants it must accept (loops, einsum, float32 at float32 precision) and the
classic wrong answers of its task, each written the way a learner would, with the words of the hint
that must name that mistake. Then the edges every check must survive without a traceback.
"""

import math
import re

import numpy as np
import pytest
from check_verdicts import CJK, check_table, review_verdict

import helpers as H
import helpers.checks.diagnose as diagnose
from helpers.checks import (check_batched_cross_attention, check_batched_scores, check_bilinear_flops,
                            check_centered_scores, check_cosine_matrix, check_cross_attention_shape, check_log_softmax,
                            check_max_temperature, check_mix_without, check_output_key_jacobian,
                            check_padded_attention_weights, check_per_head_scaled_scores, check_recover_projection,
                            check_row_max_fix, check_softmax_backward, check_split_packed_qkv, check_two_rounds)


def _sm(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _f32(fn):
    """The same answer computed in float32 throughout."""
    def wrapped(*args):
        return fn(*[a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args])
    return wrapped


# ---- 2.1: all-pairs cosine ---------------------------------------------------------------------------

def cosine_normalise_first(C):
    U = C / np.linalg.norm(C, axis=1, keepdims=True)
    return U @ U.T


def cosine_loops(C):
    T = len(C)
    return [[float(C[i] @ C[j] / (np.linalg.norm(C[i]) * np.linalg.norm(C[j]))) for j in range(T)] for i in range(T)]


def cosine_einsum(C):
    n = np.sqrt(np.einsum("td,td->t", C, C))
    return np.einsum("id,jd->ij", C, C) / np.outer(n, n)


test_cosine_matrix_accepts, test_cosine_matrix_rejects = check_table(
    check_cosine_matrix,
    [cosine_normalise_first, cosine_loops, cosine_einsum, _f32(cosine_normalise_first)],
    {"corrcoef": (lambda C: np.corrcoef(C), "皮尔逊相关系数"),
     "column norms": (lambda C: (C / np.sqrt((C**2).sum(0))) @ (C / np.sqrt((C**2).sum(0))).T, "按列求的"),
     "dot products": (lambda C: C @ C.T, "这是点积"),
     "one side only": (lambda C: (C @ C.T) / np.linalg.norm(C, axis=1)[:, None], "只除了一边"),
     "frobenius": (lambda C: C @ C.T / (C**2).sum(), "整个矩阵的长度"),
     "1.04x": lambda C: 1.04 * cosine_normalise_first(C),
     "helpers": (lambda C: np.array([[H.geometry.cosine_similarity(a, b) for b in C] for a in C]), "只用 numpy")})


# ---- 2.1: a weighted sum without some words ----------------------------------------------------------

def mix_without_where(alpha, X, drop):
    w = np.where(drop, 0.0, alpha)
    return (w / w.sum()) @ X


def mix_without_loop(alpha, X, drop):
    kept = [j for j in range(len(alpha)) if not drop[j]]
    total = sum(alpha[j] for j in kept)
    return sum(alpha[j] / total * X[j] for j in kept)


def mix_without_index(alpha, X, drop):
    keep = ~np.asarray(drop)
    return alpha[keep] @ X[keep] / alpha[keep].sum()


test_mix_without_accepts, test_mix_without_rejects = check_table(
    check_mix_without, [mix_without_where, mix_without_loop, mix_without_index, _f32(mix_without_where)],
    {"no renormalisation": (lambda a, X, d: (a * ~d) @ X, "重新归一化"),
     "divide by count": (lambda a, X, d: (a * ~d) @ X / (~d).sum(), "词的个数"),
     "drop inverted": (lambda a, X, d: a[d] @ X[d] / a[d].sum() if d.any() else a @ X, "理解反了"),
     "uniform over kept": (lambda a, X, d: X[~d].mean(axis=0), "平均对待"),
     "weights returned": (lambda a, X, d: a * ~d / (a * ~d).sum(), "新的权重"),
     "in place": lambda a, X, d: (a.__setitem__(d, 0.0), a / a.sum() @ X)[1]})


# ---- 2.1 (transfer): two rounds of mixing written as one weight matrix -------------------------------
# Independent derivation: C1 = A1 X, C2 = A2 C1 = (A2 A1) X, so row i of B sums A2[i, j] * A1[j] over the middle word j.

def two_rounds_loop(A1, A2):
    T = len(A1)
    B = np.zeros((T, T), dtype=np.result_type(A1, A2))
    for i in range(T):
        for j in range(T):
            B[i] += A2[i, j] * A1[j]
    return B


test_two_rounds_accepts, test_two_rounds_names_the_mistake = check_table(
    check_two_rounds,
    {"matmul": lambda A1, A2: A2 @ A1, "loop over the middle word": two_rounds_loop,
     "einsum": lambda A1, A2: np.einsum("ij,jk->ik", A2, A1), "nested lists": lambda A1, A2: (A2 @ A1).tolist(),
     "rows renormalised (already sum to 1)": lambda A1, A2: (A2 @ A1) / (A2 @ A1).sum(axis=1, keepdims=True),
     "the lesson's mixing helper": lambda A1, A2: H.contextual.contextual_mix(A2, A1),
     "float32": _f32(lambda A1, A2: A2 @ A1)},
    {"order swapped": (lambda A1, A2: A1 @ A2, "顺序反了"),
     "elementwise": (lambda A1, A2: A1 * A2, "逐元素相乘"),
     "second round only": (lambda A1, A2: A2.copy(), "只用了第二轮"),
     "first round only": (lambda A1, A2: A1.copy(), "只用了第一轮"),
     "average of the rounds": (lambda A1, A2: (A1 + A2) / 2, "取平均"),
     "A1 transposed": (lambda A1, A2: A2 @ A1.T, "A1 被转置了"),
     "B transposed (column-vector habit: A1^T A2^T)": (lambda A1, A2: A1.T @ A2.T, "整个结果被转置了"),
     "1.04x": lambda A1, A2: 1.04 * (A2 @ A1)})


def test_two_rounds_of_zero_self_weight_can_give_a_token_some_of_itself():
    """What the self-weight-0 case and its hint claim: the diagonal of A2 A1 need not be 0 when both diagonals are."""
    A = np.array([[0.0, 1.0], [1.0, 0.0]])
    B = two_rounds_loop(A, A)
    assert np.all(np.diag(A) == 0) and np.allclose(np.diag(B), 1.0)


# ---- 2.2 exercise 1: the temperature at which the best of n keys gets the share p ----------------------
# Independent check of the closed form: the best key's weight at the returned tau, by a direct softmax.

def _best_share(gap, n, tau):
    return float(_sm(np.array([gap] + [0.0] * (n - 1)) / tau)[0])


def max_temperature_bisection(gap, p, n):
    lo, hi = 1e-6, 1e6
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        lo, hi = (mid, hi) if _best_share(gap, n, mid) > p else (lo, mid)
    return mid


def test_the_closed_form_gives_the_share(capsys):
    for gap, p, n in [(2.0, 0.9, 2), (1.0, 0.5, 4), (3.0, 0.75, 10), (0.5, 0.3, 5)]:
        tau = gap / np.log(p * (n - 1) / (1 - p))
        assert np.isclose(_best_share(gap, n, tau), p, rtol=1e-12)
        assert _best_share(gap, n, 0.9 * tau) > p > _best_share(gap, n, 1.1 * tau)


test_max_temperature_accepts, test_max_temperature_names_the_mistake = check_table(
    check_max_temperature,
    {"closed form": lambda g, p, n: g / np.log(p * (n - 1) / (1 - p)),
     "logs taken apart": lambda g, p, n: g / (np.log(p) + np.log(n - 1) - np.log1p(-p)),
     "bisection on the weight": max_temperature_bisection,
     "numpy float": lambda g, p, n: np.float64(g) / np.log(p * (n - 1) / (1 - p))},
    {"two keys only": (lambda g, p, n: g / np.log(p / (1 - p)), "两个键"),
     # the same mistake with math.log: a case where p / (1 - p) = 1 made it raise ZeroDivisionError, not be named
     "two keys only, math.log": (lambda g, p, n: g / math.log(p / (1 - p)), "两个键"),
     "n instead of n - 1": (lambda g, p, n: g / np.log(p * n / (1 - p)), "n−1"),
     "low-temperature approximation": (lambda g, p, n: g / np.log((n - 1) / (1 - p)), "近似"),
     "tau inverted": (lambda g, p, n: np.log(p * (n - 1) / (1 - p)) / g, "τ 放反了"),
     "gap times the log": (lambda g, p, n: g * np.log(p * (n - 1) / (1 - p)), "不是乘以温度"),
     "log base 10": (lambda g, p, n: g / np.log10(p * (n - 1) / (1 - p)), "自然对数"),
     "coarse bisection": lambda g, p, n: round(max_temperature_bisection(g, p, n), 2)})


# ---- 2.2: derivative of the output with respect to one key ---------------------------------------------

def key_jac(q, K, V, temperature, j):
    a = _sm(K @ q / temperature)
    return a[j] * np.outer(V[j] - a @ V, q) / temperature


def key_jac_loops(q, K, V, temperature, j):
    a = _sm(K @ q / temperature)
    out = a @ V
    J = np.zeros((V.shape[1], K.shape[1]))
    for r in range(V.shape[1]):
        for c in range(K.shape[1]):
            J[r, c] = sum(V[i, r] * a[i] * ((i == j) - a[j]) for i in range(len(a))) * q[c] / temperature
    assert np.allclose(J, a[j] * np.outer(V[j] - out, q) / temperature)
    return J


def key_jac_chain(q, K, V, temperature, j):
    a = _sm(K @ q / temperature)
    J_soft = np.diag(a) - np.outer(a, a)                  # d alpha / d s
    return np.outer(V.T @ J_soft[:, j], q / temperature)  # d out / d s_j  times  d s_j / d k_j


test_output_key_jacobian_accepts, test_output_key_jacobian_rejects = check_table(
    check_output_key_jacobian, [key_jac, key_jac_loops, key_jac_chain, _f32(key_jac)],
    {"no alpha_j": (lambda q, K, V, t, j: np.outer(V[j] - _sm(K @ q / t) @ V, q) / t, "少了因子 α_j"),
     "sign": (lambda q, K, V, t, j: -key_jac(q, K, V, t, j), "符号反了"),
     "no 1/tau": (lambda q, K, V, t, j: key_jac(q, K, V, t, j) * t, "少了 1/τ"),
     "1/tau^2": (lambda q, K, V, t, j: key_jac(q, K, V, t, j) / t, "多除了一次"),
     "no normaliser term": (lambda q, K, V, t, j: _sm(K @ q / t)[j] * np.outer(V[j], q) / t, "归一化的那一项"),
     "transposed": (lambda q, K, V, t, j: key_jac(q, K, V, t, j).T, "形状转置了"),
     "d out / d q": (lambda q, K, V, t, j: V.T @ (np.diag(_sm(K @ q / t)) - np.outer(_sm(K @ q / t), _sm(K @ q / t))) @ K / t,
                     "对查询 q 的导数")})


# ---- 2.3: a packed Q/K/V matrix ----------------------------------------------------------------------

def packed_slices(X, W_qkv, d_k):
    P = X @ W_qkv
    return P[:, :d_k], P[:, d_k:2 * d_k], P[:, 2 * d_k:]


def packed_split_weights(X, W_qkv, d_k):
    W_Q, W_K, W_V = np.split(W_qkv, [d_k, 2 * d_k], axis=1)
    return [X @ W_Q, X @ W_K, X @ W_V]


test_split_packed_qkv_accepts, test_split_packed_qkv_rejects = check_table(
    check_split_packed_qkv, [packed_slices, packed_split_weights, _f32(packed_slices)],
    {"equal thirds": (lambda X, W, d_k: tuple(X @ w for w in np.array_split(W, 3, axis=1)), "平均切成了三份"),
     "V of width d_k": (lambda X, W, d_k: ((X @ W)[:, :d_k], (X @ W)[:, d_k:2 * d_k], (X @ W)[:, 2 * d_k:3 * d_k]),
                        "值的那一段"),
     "K, Q, V order": (lambda X, W, d_k: ((X @ W)[:, d_k:2 * d_k], (X @ W)[:, :d_k], (X @ W)[:, 2 * d_k:]), "顺序"),
     "only Q": (lambda X, W, d_k: (X @ W)[:, :d_k], "元组")})


# ---- 2.3: recover W_Q from X and Q -------------------------------------------------------------------

test_recover_projection_accepts, test_recover_projection_rejects = check_table(
    check_recover_projection,
    {"lstsq": lambda X, Q: np.linalg.lstsq(X, Q, rcond=None)[0],
     "pinv": lambda X, Q: np.linalg.pinv(X) @ Q,
     "normal equations": lambda X, Q: np.linalg.solve(X.T @ X, X.T @ Q),
     "float32 lstsq": _f32(lambda X, Q: np.linalg.lstsq(X, Q, rcond=None)[0])},
    {"transpose instead of inverse": (lambda X, Q: X.T @ Q, "乘一个转置"),
     "transposed result": (lambda X, Q: (np.linalg.pinv(X) @ Q).T, "结果转置了"),
     "sides swapped": (lambda X, Q: np.linalg.pinv(Q) @ X, "两边对调了"),
     "inverse of a non-square X": (lambda X, Q: np.linalg.inv(X) @ Q, "没有普通的逆矩阵"),
     "1.04x": lambda X, Q: 1.04 * np.linalg.pinv(X) @ Q})


# ---- 2.4: a batch of score matrices ----------------------------------------------------------------

test_batched_scores_accepts, test_batched_scores_rejects = check_table(
    check_batched_scores,
    {"swapaxes": lambda Q, K: Q @ np.swapaxes(K, 1, 2),
     "transpose": lambda Q, K: np.matmul(Q, K.transpose(0, 2, 1)),
     "einsum": lambda Q, K: np.einsum("bqd,bkd->bqk", Q, K),
     "loop": lambda Q, K: np.stack([q @ k.T for q, k in zip(Q, K)]),
     "float32": _f32(lambda Q, K: Q @ np.swapaxes(K, 1, 2))},
    {".T on 3-d": (lambda Q, K: Q @ K.T, "所有轴倒过来"),
     "transposed": (lambda Q, K: np.swapaxes(K @ np.swapaxes(Q, 1, 2), 0, 0), "结果转置了"),
     "batches mixed": (lambda Q, K: np.einsum("bqd,ckd->bqk", Q, K), "混在了一起"),
     "every pair of batches": (lambda Q, K: np.tensordot(Q, K, axes=([2], [2])), "多了一个轴"),
     "1.04x": lambda Q, K: 1.04 * np.einsum("bqd,bkd->bqk", Q, K),
     "scaled by sqrt(d_k)": (lambda Q, K: Q @ np.swapaxes(K, 1, 2) / np.sqrt(Q.shape[-1]), "除以了 √d_k"),
     "helpers": (lambda Q, K: np.stack([H.dot_product_scores(q, k) for q, k in zip(Q, K)]), "只用 numpy")})


# ---- 2.4 (optional): the flops of Q W K^T in either order ------------------------------------------
# Expected counts written from the shapes: an (m, k) x (k, n) product costs 2 m k n flops.

def bilinear_by_shapes(T_q, T_kv, d_q, d_kk):
    def matmul(a, b):
        (m, k), (k2, n) = a, b
        assert k == k2
        return 2 * m * k * n
    return (matmul((T_q, d_q), (d_q, d_kk)) + matmul((T_q, d_kk), (d_kk, T_kv)),
            matmul((d_q, d_kk), (d_kk, T_kv)) + matmul((T_q, d_q), (d_q, T_kv)))


def test_bilinear_orders_give_the_same_scores_and_the_counted_costs():
    rng = np.random.default_rng(0)
    Q, W, K = rng.normal(size=(1, 4)), rng.normal(size=(4, 3)), rng.normal(size=(50, 3))
    assert np.allclose((Q @ W) @ K.T, Q @ (W @ K.T))
    qw_first, wk_first = bilinear_by_shapes(1, 50, 4, 3)
    assert qw_first == 2 * 4 * 3 + 2 * 3 * 50 and qw_first < wk_first   # one query: project it, not every key


test_bilinear_flops_accepts, test_bilinear_flops_names_the_mistake = check_table(
    check_bilinear_flops,
    {"from the shapes": bilinear_by_shapes,
     "the cost helper": lambda a, b, c, d: (H.cost.matmul_flops(a, c, d) + H.cost.matmul_flops(a, d, b),
                                            H.cost.matmul_flops(c, d, b) + H.cost.matmul_flops(a, c, b)),
     "list of floats": lambda a, b, c, d: [float(x) for x in bilinear_by_shapes(a, b, c, d)],
     "numpy ints": lambda a, b, c, d: tuple(np.int64(x) for x in bilinear_by_shapes(a, b, c, d))},
    {"multiply-adds": (lambda a, b, c, d: tuple(x // 2 for x in bilinear_by_shapes(a, b, c, d)), "乘加次数"),
     "pair swapped": (lambda a, b, c, d: bilinear_by_shapes(a, b, c, d)[::-1], "顺序反了"),
     "first product only": (lambda a, b, c, d: (2 * a * c * d, 2 * c * d * b), "只数了第一次"),
     "second product only": (lambda a, b, c, d: (2 * a * d * b, 2 * a * c * b), "只数了第二次"),
     "every pair recomputed": (lambda a, b, c, d: (2 * a * b * (c * d + d),) * 2, "什么也不复用"),
     "inner dimension of the second product": (lambda a, b, c, d: (2 * a * c * d + 2 * a * c * b, 2 * c * d * b + 2 * a * d * b),
                                               "累加的维度不对"),
     "one number": (lambda a, b, c, d: sum(bilinear_by_shapes(a, b, c, d)), "元组")})


# ---- 2.5: per-head scaled scores ------------------------------------------------------------------

def heads_reshape(Q, K, n_heads):
    d_head = Q.shape[1] // n_heads
    Qh = Q.reshape(len(Q), n_heads, d_head).transpose(1, 0, 2)
    Kh = K.reshape(len(K), n_heads, d_head).transpose(1, 0, 2)
    return Qh @ Kh.transpose(0, 2, 1) / np.sqrt(d_head)


def heads_loop(Q, K, n_heads):
    d_head = Q.shape[1] // n_heads
    return np.stack([Q[:, h * d_head:(h + 1) * d_head] @ K[:, h * d_head:(h + 1) * d_head].T / d_head**0.5
                     for h in range(n_heads)])


def heads_einsum(Q, K, n_heads):
    d_head = Q.shape[1] // n_heads
    return np.einsum("qhd,khd->hqk", Q.reshape(len(Q), n_heads, d_head), K.reshape(len(K), n_heads, d_head)) / np.sqrt(d_head)


test_per_head_scaled_scores_accepts, test_per_head_scaled_scores_rejects = check_table(
    check_per_head_scaled_scores, [heads_reshape, heads_loop, heads_einsum, _f32(heads_reshape)],
    {"sqrt(d_model)": (lambda Q, K, h: heads_reshape(Q, K, h) * np.sqrt(Q.shape[1] // h) / np.sqrt(Q.shape[1]), "√d_model"),
     "d_head": (lambda Q, K, h: heads_reshape(Q, K, h) / np.sqrt(Q.shape[1] // h), "d_head 本身"),
     "strided heads": (lambda Q, K, h: np.stack([Q[:, i::h] @ K[:, i::h].T / np.sqrt(Q.shape[1] // h) for i in range(h)]),
                       "每隔 n_heads 列"),
     "axis order": (lambda Q, K, h: heads_reshape(Q, K, h).transpose(1, 0, 2), "轴的顺序不对"),
     "no scale": (lambda Q, K, h: heads_reshape(Q, K, h) * np.sqrt(Q.shape[1] // h), "没有缩放"),
     "1.04x": lambda Q, K, h: 1.04 * heads_loop(Q, K, h),
     "helpers": (lambda Q, K, h: np.stack([H.dot_product_scores(Q[:, i * (Q.shape[1] // h):(i + 1) * (Q.shape[1] // h)],
                                                                K[:, i * (Q.shape[1] // h):(i + 1) * (Q.shape[1] // h)])
                                           for i in range(h)]) / np.sqrt(Q.shape[1] // h), "只用 numpy")})


# ---- 2.5: the softmax backward pass for many rows, numpy only, no T x T matrix ---------------------------

def backward_closed_form(A, G):
    return A * (G - np.sum(A * G, axis=-1, keepdims=True))


def backward_row_loop(A, G):
    return np.array([a * (g - a @ g) for a, g in zip(A, G)])


def backward_element_loop(A, G):
    out = np.zeros_like(A)
    for n in range(A.shape[0]):
        inner = float(np.dot(A[n], G[n]))
        for i in range(A.shape[1]):
            out[n, i] = A[n, i] * (G[n, i] - inner)
    return out


def backward_python_lists(A, G):
    out = []
    for a, g in zip(A.tolist(), G.tolist()):
        m = sum(x * y for x, y in zip(a, g))
        out.append([x * (y - m) for x, y in zip(a, g)])
    return out


def backward_einsum(A, G):
    return A * (G - np.einsum("nt,nt->n", A, G)[:, None])


def backward_jacobian_loop(A, G):            # what copying 2.5's g @ J row by row gives: right values, T x T each
    return np.array([g @ (np.diag(a) - np.outer(a, a)) for a, g in zip(A, G)])


def backward_jacobian_einsum(A, G):
    J = np.einsum("ni,ij->nij", A, np.eye(A.shape[1])) - np.einsum("ni,nj->nij", A, A)
    return np.einsum("nij,nj->ni", J, G)


def backward_identity_mask(A, G):            # no Jacobian, but a T x T identity (bool: 1 byte per entry)
    I = np.eye(A.shape[1], dtype=bool)
    return A * G - A * np.sum(A * G * I[0].any(), axis=-1, keepdims=True)


TT = "不构造 T×T 的矩阵"
test_softmax_backward_accepts, test_softmax_backward_rejects = check_table(
    check_softmax_backward,
    [backward_closed_form, backward_row_loop, backward_element_loop, backward_python_lists, backward_einsum,
     _f32(backward_closed_form), _f32(backward_row_loop)],
    {"jacobian per row": (backward_jacobian_loop, [TT, "数值都对了"]),
     "jacobian einsum": (backward_jacobian_einsum, TT),
     "T x T identity": (backward_identity_mask, TT),
     "helpers": (lambda A, G: np.stack([g @ H.softmax_jacobian(a) for a, g in zip(A, G)]), "只用 numpy"),
     "g * alpha, nothing subtracted": (lambda A, G: A * G, "少了减去的那一项"),
     "a(1-a) only": (lambda A, G: A * (1 - A) * G, "a_i(1 − a_i)"),
     "missing a": (lambda A, G: G - (A * G).sum(-1, keepdims=True), "少乘了一个 a"),
     "a and g swapped": (lambda A, G: G * (A - (A * G).sum(-1, keepdims=True)), "位置对调了"),
     "plain mean": (lambda A, G: A * (G - G.mean(-1, keepdims=True)), "普通平均"),
     "sign": (lambda A, G: -backward_closed_form(A, G), "符号反了"),
     "transposed outer product (a a^T is a number)": (
         lambda A, G: np.array([g @ (np.diag(a) - a.T @ a) for a, g in zip(A, G)]), "外积和内积弄反了"),
     "axis 0": (lambda A, G: A * (G - (A * G).sum(0, keepdims=True)), "行与行之间"),
     "one sum for all rows": (lambda A, G: A * (G - (A * G).sum()), "加成了一个数"),
     "keepdims forgotten": (lambda A, G: A * (G - np.sum(A * G, axis=-1)), ["ValueError", "保持一列"]),
     "keepdims forgotten, square batch": (
         lambda A, G: A * (G - np.sum(A * G, axis=-1)) if A.shape[0] == A.shape[1] else backward_closed_form(A, G),
         "沿键的方向广播"),
     "returns J itself": (lambda A, G: np.stack([np.diag(a) - np.outer(a, a) for a in A]), "雅可比矩阵本身"),
     "1.04x": lambda A, G: 1.04 * backward_closed_form(A, G)},
    min_cases=7)


def test_softmax_backward_memory_rule_keeps_the_learners_prints_and_drops_the_pass_line(capsys):
    def noisy_jacobian(A, G):
        print("debug: T =", A.shape[1])
        return backward_jacobian_loop(A, G)

    result = check_softmax_backward(noisy_jacobian)
    out = capsys.readouterr().out
    assert not result and result.n_passed == result.n_cases - 1
    assert out.startswith("debug: T =") and "debug: T = 1024" in out and "\u2705" not in out
    assert out.count("\u274c") == 1 and TT in out and "Traceback" not in out


def test_softmax_backward_memory_rule_survives_an_outer_tracemalloc(capsys):
    import tracemalloc

    tracemalloc.start()
    try:
        assert check_softmax_backward(backward_closed_form)
        assert not check_softmax_backward(backward_jacobian_loop)
        assert tracemalloc.is_tracing()           # the learner's own tracing is left on
    finally:
        tracemalloc.stop()
    assert not tracemalloc.is_tracing()
    assert TT in capsys.readouterr().out


# ---- 2.6: scores recovered from the weights, each row centred ---------------------------------------

def centered_centring_matrix(A):
    L = np.log(A)
    n = L.shape[-1]
    return L @ (np.eye(n) - np.full((n, n), 1 / n))


def centered_geometric_mean(A):
    return np.log(A / np.exp(np.log(A).mean(axis=-1, keepdims=True)))


def centered_loop(A):
    return [[float(np.log(a) - np.mean(np.log(row))) for a in row] for row in A]


def test_centred_scores_give_the_weights_back_and_sum_to_zero():
    """What the task asks, checked on an accepted answer without the check's reference: softmax gives A back, rows sum 0."""
    A = _sm(np.random.default_rng(3).normal(size=(3, 5)))
    S = np.array(centered_loop(A))
    assert np.allclose(_sm(S), A) and np.allclose(S.sum(axis=-1), 0.0)


test_centered_scores_accepts, test_centered_scores_rejects = check_table(
    check_centered_scores, [centered_centring_matrix, centered_geometric_mean, centered_loop,
                            _f32(centered_geometric_mean)],
    {"log only": (lambda A: np.log(A), "log A 只是许多答案中的一个"),
     "column means": (lambda A: np.log(A) - np.log(A).mean(axis=0, keepdims=True), "每一列的平均"),
     "global mean": (lambda A: np.log(A) - np.log(A).mean(), "整个矩阵的平均"),
     "row max": (lambda A: np.log(A) - np.log(A).max(axis=-1, keepdims=True), "每一行的最大值"),
     "no log": (lambda A: A - A.mean(axis=-1, keepdims=True), "没有取对数"),
     "row sum, not mean": (lambda A: np.log(A) - np.log(A).sum(axis=-1, keepdims=True), "每一行的和"),
     "keepdims forgotten": (lambda A: np.log(A) - np.log(A).mean(axis=-1), "没有保持维度"),
     "1.04x": lambda A: 1.04 * centered_geometric_mean(A)},
    min_cases=5)


# ---- 2.6: a stable log-softmax ---------------------------------------------------------------------

def log_softmax_lse(x):
    m = np.max(x, axis=-1, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))


def log_softmax_loop(x):
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(x.shape[:-1]):
        row = x[idx]
        m = row.max()
        out[idx] = row - (m + np.log(np.exp(row - m).sum()))
    return out


test_log_softmax_accepts, test_log_softmax_rejects = check_table(
    check_log_softmax, [log_softmax_lse, log_softmax_loop, _f32(log_softmax_lse)],
    {"log of softmax": (lambda x: np.log(_sm(x)), "先算 softmax 再取 log"),
     "no shift": (lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True)), "没有先减去最大值"),
     "global max": (lambda x: x - x.max() - np.log(np.exp(x - x.max()).sum(-1, keepdims=True)), "整个数组的最大值"),
     "forgot log-sum-exp": (lambda x: x - x.max(-1, keepdims=True), "漏了 log Σ exp"),
     "no keepdims": (lambda x: x - x.max(-1) - np.log(np.exp(x - x.max(-1, keepdims=True)).sum(-1)), "保持维度"),
     "1.04x": lambda x: 1.04 * log_softmax_lse(x)})


# ---- every new check: the edges a novice hits ---------------------------------------------------------

NEW_CHECKS = [check_cosine_matrix, check_mix_without, check_two_rounds, check_max_temperature, check_output_key_jacobian,
              check_split_packed_qkv, check_recover_projection, check_batched_scores, check_bilinear_flops,
              check_centered_scores,
              check_per_head_scaled_scores, check_softmax_backward, check_log_softmax, check_batched_cross_attention,
              check_cross_attention_shape,
              # fresh-eyes review: 2.7's transfer (padded batch, full-shaped weights) and 2.6's two-slip bug hunt
              check_padded_attention_weights, check_row_max_fix]
ODD_RETURNS = {"None": lambda *a: None, "string": lambda *a: "答案", "dict": lambda *a: {"x": 1},
               "NaN": lambda *a: float("nan"), "ragged list": lambda *a: [[1.0], [1.0, 2.0]], "object": lambda *a: object(),
               "raises": lambda *a: 1 / 0, "huge array": lambda *a: np.ones((50, 50, 50)), "generator": lambda *a: (x for x in a)}
CODE = re.compile(r"@|\bnp\.|numpy|\.T\b|axis\s*=|keepdims|\.shape|reshape|swapaxes|einsum|outer\(|diag\(|"
                  r"tril|triu|\.sum\(|\.max\(|linalg|transpose\(|return ")


@pytest.mark.parametrize("check", NEW_CHECKS, ids=[c.__name__ for c in NEW_CHECKS])
def test_stub_says_not_done(check, capsys):
    def stub(*args):
        raise NotImplementedError

    assert not check(stub)
    out = capsys.readouterr().out
    assert out.startswith("\u23f3") and "尚未完成" in out


@pytest.mark.parametrize("odd", ODD_RETURNS, ids=list(ODD_RETURNS))
@pytest.mark.parametrize("check", NEW_CHECKS, ids=[c.__name__ for c in NEW_CHECKS])
def test_odd_returns_fail_in_chinese_without_traceback(check, odd, capsys):
    with np.errstate(all="raise"):            # even a learner who turned numpy warnings into errors
        result = check(ODD_RETURNS[odd])
    out = capsys.readouterr().out
    assert not result and out.startswith("\u274c") and CJK.search(out)
    assert "Traceback" not in out and "[[" not in out and "array(" not in out


@pytest.mark.parametrize("check", NEW_CHECKS, ids=[c.__name__ for c in NEW_CHECKS])
def test_wrong_number_of_arguments_is_named(check, capsys):
    def takes_only_a_keyword(*, nothing):
        return nothing

    assert not check(takes_only_a_keyword)
    out = capsys.readouterr().out
    assert "参数个数不对" in out and "提示" not in out


@pytest.mark.parametrize("check", NEW_CHECKS, ids=[c.__name__ for c in NEW_CHECKS])
def test_every_hint_is_chinese_and_shows_no_answer_code(check, monkeypatch):
    seen = {}

    def spy(name, fn, cases, **kwargs):
        seen["cases"] = list(cases)
        raise NotImplementedError   # stop here: only the hidden cases are wanted

    monkeypatch.setattr(diagnose, "run_check", spy)
    with pytest.raises(NotImplementedError):
        check(lambda *a: None)
    cases = seen["cases"]
    assert len(cases) >= 4
    wrongs = [w for mod_name in ("nb01_contextual", "nb02_soft_lookup", "nb03_qkv_projections", "nb04_dot_product_scores",
                                 "nb05_scaling", "nb06_softmax", "nb07_whole_formula",
                                 "nb07_cross_attention")
              for w in vars(__import__(f"helpers.checks.{mod_name}", fromlist=["x"])).values()
              if isinstance(w, list) and w and isinstance(w[0], diagnose.Wrong)]
    hints = [c.hint for c in cases] + [w.hint for ws in wrongs for w in ws]
    for hint in hints:
        assert hint and CJK.search(hint), hint
        assert not CODE.search(hint), hint
    for case in cases:
        assert CJK.search(case.label) or re.fullmatch(r"[\w\s=,.:\[\]()!\-，（）]*", case.label), case.label


def test_numpy_only_refuses_a_helper_hidden_behind_a_learner_function(capsys):
    def my_scores(q, k):
        return H.dot_product_scores(q, k)

    def batched(Q, K):
        return np.stack([my_scores(q, k) for q, k in zip(Q, K)])

    assert not check_batched_scores(batched)
    assert "只用 numpy" in capsys.readouterr().out


def test_what_the_learners_code_prints_still_shows(capsys):
    def noisy(C):
        print("debug: C has", len(C), "rows")
        return C @ C.T

    assert not check_cosine_matrix(noisy)
    out = capsys.readouterr().out
    assert out.startswith("debug: C has") and "这是点积" in out


# ---- fresh-eyes review of 2.6: log(A + eps) is named as the eps, not answered with the uniform row's hint -------
# (A's entries are all > 0; the eps moves the log of the ~1e-15 weight of the hidden case, so the check refuses it
# rightly, but it used to explain the uniform row, which the eps does not touch)

def _centered_plus(eps):
    def centered(A):
        L = np.log(A + eps)
        return L - L.mean(axis=-1, keepdims=True)
    centered.__name__ = f"centered_plus_{eps:g}"
    return centered


@pytest.mark.parametrize("eps", [1e-12, 1e-9, 1e-6])
def test_centered_scores_names_an_added_eps(eps, capsys):
    passed, out = review_verdict(check_centered_scores, _centered_plus(eps), capsys)
    assert not passed and "不必加 eps" in out and "行和为 0 就只能全是 0" not in out, out
