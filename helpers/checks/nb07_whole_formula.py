"""Self-checks for 2.7 (the whole formula): the five steps, counting parameters, and attention with a
key-padding mask (transfer)."""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, run_check

__all__ = ["check_five_steps", "check_qkv_parameter_count", "check_key_padding_attention"]


@float_safe
def check_five_steps(fn) -> CheckResult:
    """Check a learner's ``fn(X, W_Q, W_K, W_V) -> output`` built from the five steps.

    ``X`` has shape (T, d_model), ``W_Q``/``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v);
    the result must have shape (T, d_v).
    """
    rng = np.random.default_rng(20260207)
    book = H.book.example_inputs()
    X1 = rng.normal(size=(5, 6))
    W1 = rng.normal(size=(6, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 4))
    X2 = rng.normal(size=(1, 4))
    W2 = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    X3 = rng.normal(size=(6, 8))
    W3 = rng.normal(size=(8, 16)), rng.normal(size=(8, 16)), rng.normal(size=(8, 2))
    # large scores: rows whose scores lie far below the largest score of the whole matrix
    X4 = rng.normal(size=(5, 4)) * np.array([[1.0], [40.0], [1.0], [-40.0], [3.0]])
    W4 = rng.normal(size=(4, 3)) * 8.0, rng.normal(size=(4, 3)) * 8.0, rng.normal(size=(4, 6))
    cases = [
        Case("书中 4 个 token 的例子", (book["X"], book["W_Q"], book["W_K"], book["W_V"]),
             H.self_attention(book["X"], book["W_Q"], book["W_K"], book["W_V"]).output,
             "五步依次是：投影得到查询、键、值 → 点积分数 → 除以 √d_k → 每一行做 softmax → 用权重对值加权求和。"),
        Case("d_v != d_k（T=5，d_model=6，d_k=3，d_v=4）", (X1, *W1), H.self_attention(X1, *W1).output,
             "d_k 是查询和键的宽度，不是值的宽度，也不是 d_model 或 T；输出的宽度是值的宽度 d_v。"),
        Case("只有一个 token（T=1）", (X2, *W2), H.self_attention(X2, *W2).output,
             "只有一个 token 时它的唯一权重是 1，输出就是它自己的值向量。"),
        Case("更大的 d_k = 16", (X3, *W3), H.self_attention(X3, *W3).output,
             "除以 √d_k（这里 d_k = 16，是键的宽度），而不是 d_k；并且对每一行（而不是每一列）归一化。"),
        Case("分数很大、各行相差很远", (X4, *W4), H.self_attention(X4, *W4).output,
             "取指数之前减去每一行自己的最大值：减整个矩阵的最大值会让远低于它的行下溢成 0/0，不减则会溢出。"),
    ]
    return run_check("check_five_steps", fn, cases, atol=1e-8, rtol=1e-6)


@float_safe
def check_qkv_parameter_count(fn) -> CheckResult:
    """Check a learner's ``fn(d_model, d_k, d_v) -> int``: entries of W_Q, W_K, W_V (one head, no bias)."""
    cases = [
        Case("d_model=4，d_k=d_v=2（书中的例子）", (4, 2, 2), H.shapes.qkv_parameter_count(4, 2, 2),
             "三个矩阵的形状分别是 (d_model, d_k)、(d_model, d_k)、(d_model, d_v)：把它们的元素个数加起来。"),
        Case("d_model=8，d_k=3，d_v=4", (8, 3, 4), H.shapes.qkv_parameter_count(8, 3, 4),
             "W_V 有 d_v 列，它不一定等于 d_k。"),
        Case("768 宽模型的一个头，d_k=d_v=64", (768, 64, 64), H.shapes.qkv_parameter_count(768, 64, 64),
             "每个矩阵的元素个数是行数乘列数；这里没有偏置（bias）。"),
        Case("d_model=4096，d_k=d_v=128", (4096, 128, 128), H.shapes.qkv_parameter_count(4096, 128, 128),
             "参数个数与 token 个数 T 无关。"),
    ]
    return run_check("check_qkv_parameter_count", fn, cases, atol=0.0, rtol=0.0)


def _padded_ref(Q, K, V, key_valid):
    keep = np.asarray(key_valid, dtype=bool)
    K, V = np.asarray(K)[keep], np.asarray(V)[keep]
    return H.softmax(np.asarray(Q) @ K.T / np.sqrt(K.shape[1]), axis=-1) @ V


def check_key_padding_attention(fn) -> CheckResult:
    """Check ``fn(Q, K, V, key_valid) -> output`` of shape (T_q, d_v).

    ``key_valid`` has shape (T_kv,), boolean, True for a real token and False for padding.
    Every query must give exactly the output it would give if the padded keys and values were
    not there at all, whatever numbers the padding holds.
    """
    rng = np.random.default_rng(20260208)
    T, d_k, d_v = 5, 3, 4
    Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    end_pad = np.array([True, True, True, False, False])
    Kg, Vg = K.copy(), V.copy()
    # Padding that holds large garbage: for some queries a padded key outscores every real key by
    # hundreds, so "softmax over all keys, then zero the padding (and renormalise)" underflows the real
    # keys to 0 and fails, while a mask applied before the softmax is unaffected.
    Kg[~end_pad] = 1e3 * rng.normal(size=(2, d_k))
    Vg[~end_pad] = 1e3
    mid = np.array([True, False, True, True, False])
    Q6 = rng.normal(size=(2, d_k))                      # T_q != T_kv
    cases = [
        Case("末尾 2 个位置是填充", (Q, K, V, end_pad), _padded_ref(Q, K, V, end_pad),
             "填充位置的权重应当恰好为 0，其余权重仍然和为 1。"),
        Case("填充位置里装着很大的垃圾数", (Q, Kg, Vg, end_pad), _padded_ref(Q, Kg, Vg, end_pad),
             "结果不应依赖填充位置里的数：它们必须在 softmax 之前就被排除。"),
        Case("没有填充", (Q, K, V, np.ones(T, dtype=bool)), _padded_ref(Q, K, V, np.ones(T, dtype=bool)),
             "没有填充时应与普通的缩放点积注意力完全一致（别忘了除以 sqrt(d_k)）。"),
        Case("填充不在末尾、T_q=2 不等于 T_kv=5", (Q6, K, V, mid), _padded_ref(Q6, K, V, mid),
             "掩码作用在键（列）上，不是查询（行）上；形状应为 (T_q, d_v)。"),
    ]
    return run_check("check_key_padding_attention", fn, cases, atol=1e-8, rtol=1e-6,
                     general_hint="key_valid 为 False 的键：它的分数在 softmax 之前该变成什么？")
