"""2.7's exercises 1 and 2 (issue 30): cross-attention over any leading batch axes without a Python loop, and
which shapes of a cross-attention head fit together. Correct variants pass; each classic wrong answer fails with
the words that name it."""

import numpy as np
import pytest
from check_verdicts import check_table, fails

import helpers as H
from helpers.checks import check_batched_cross_attention, check_cross_attention_shape


def _sm(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def cross_float32(X_q, X_kv, W_Q, W_K, W_V):
    """The same answer computed in float32 throughout (no comprehension: the task allows no Python loop)."""
    f = np.float32
    return cross_swap(X_q.astype(f), X_kv.astype(f), W_Q.astype(f), W_K.astype(f), W_V.astype(f))


# ---- exercise 1: cross-attention, any number of leading batch axes, no Python loop -------------------------

def cross_swap(X_q, X_kv, W_Q, W_K, W_V):
    Q, K, V = X_q @ W_Q, X_kv @ W_K, X_kv @ W_V
    return _sm(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])) @ V


def cross_einsum(X_q, X_kv, W_Q, W_K, W_V):
    S = np.einsum("...qm,mk,...tn,nk->...qt", X_q, W_Q, X_kv, W_K) / np.sqrt(W_Q.shape[1])
    return np.einsum("...qt,...tv->...qv", _sm(S), X_kv @ W_V)


def cross_moveaxis(X_q, X_kv, W_Q, W_K, W_V):
    K = X_kv @ W_K
    S = np.matmul(X_q @ W_Q, np.moveaxis(K, -1, -2)) / np.sqrt(W_K.shape[-1])
    E = np.exp(S - np.max(S, axis=-1, keepdims=True))
    return (E / np.sum(E, axis=-1, keepdims=True)) @ (X_kv @ W_V)


def cross_axes_from_ndim(X_q, X_kv, W_Q, W_K, W_V):
    K = X_kv @ W_K
    n = K.ndim
    S = (X_q @ W_Q) @ K.transpose(*range(n - 2), n - 1, n - 2) / np.sqrt(K.shape[n - 1])
    return _sm(S, axis=n - 1) @ (X_kv @ W_V)


def cross_loop(X_q, X_kv, W_Q, W_K, W_V):
    out = []
    for xq, xkv in zip(X_q, X_kv):
        out.append(cross_swap(xq, xkv, W_Q, W_K, W_V))
    return np.array(out)


def cross_comprehension(X_q, X_kv, W_Q, W_K, W_V):
    return np.stack([cross_swap(a, b, W_Q, W_K, W_V) for a, b in zip(X_q, X_kv)])


def cross_map(X_q, X_kv, W_Q, W_K, W_V):
    return np.stack(list(map(lambda a, b: cross_swap(a, b, W_Q, W_K, W_V), X_q, X_kv)))


def _cross(X_q, X_kv, W_Q, W_K, W_V, *, src=None, axis=-1, scale=None, scores=None):
    src = X_kv if src is None else src
    Q, K, V = X_q @ W_Q, src @ W_K, src @ W_V
    S = Q @ np.swapaxes(K, -1, -2) if scores is None else scores(Q, K)
    return _sm(S / (np.sqrt(K.shape[-1]) if scale is None else scale), axis=axis) @ V


def cross_max_flat(X_q, X_kv, W_Q, W_K, W_V):
    S = (X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2) / np.sqrt(W_K.shape[1])
    E = np.exp(S - S.max(axis=-1))
    return E / E.sum(axis=-1, keepdims=True) @ (X_kv @ W_V)


def cross_sum_flat(X_q, X_kv, W_Q, W_K, W_V):
    S = (X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2) / np.sqrt(W_K.shape[1])
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1) @ (X_kv @ W_V)


def cross_global_max(X_q, X_kv, W_Q, W_K, W_V):
    S = (X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2) / np.sqrt(W_K.shape[1])
    E = np.exp(S - S.max())
    return E / E.sum(axis=-1, keepdims=True) @ (X_kv @ W_V)


def cross_no_max(X_q, X_kv, W_Q, W_K, W_V):       # section 1's five steps with a plain exp: overflows on loud scores
    E = np.exp((X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2) / np.sqrt(W_K.shape[1]))
    return E / E.sum(axis=-1, keepdims=True) @ (X_kv @ W_V)


def cross_axis_2(X_q, X_kv, W_Q, W_K, W_V):       # written for (B, T, d): the keys' axis numbered from the front
    S = (X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2) / np.sqrt(W_K.shape[1])
    E = np.exp(S - S.max(axis=2, keepdims=True))
    return E / E.sum(axis=2, keepdims=True) @ (X_kv @ W_V)


test_batched_cross_attention_accepts, test_batched_cross_attention_rejects = check_table(
    check_batched_cross_attention, [cross_swap, cross_einsum, cross_moveaxis, cross_axes_from_ndim, cross_float32],
    {"loop over the batch": (cross_loop, ["不写 Python 循环", "for"]),
     "comprehension": (cross_comprehension, ["不写 Python 循环", "for"]),
     "map": (cross_map, ["不写 Python 循环", "map"]),
     ".T on 3-d": (lambda *a: _cross(*a, scores=lambda Q, K: Q @ K.T), "所有轴倒过来"),
     "transpose (0, 2, 1)": (lambda *a: _cross(*a, scores=lambda Q, K: Q @ K.transpose(0, 2, 1)), ["固定的轴顺序", "从后往前数"]),
     "swapaxes 1, 2": (lambda *a: _cross(*a, scores=lambda Q, K: Q @ np.swapaxes(K, 1, 2)), ["第 1、2 个轴", "从后往前数"]),
     "softmax axis 2": (cross_axis_2, ["第 2 个轴", "从后往前数"]),
     "batches mixed": (lambda *a: _cross(*a, scores=lambda Q, K: np.einsum("bqd,ckd->bqk", Q, K)), "混在了一起"),
     "keys from X_q": (lambda *a: _cross(*a, src=a[0]), "自注意力"),
     "softmax over queries": (lambda *a: _cross(*a, axis=-2), "查询轴"),
     "scale by d_v": (lambda *a: _cross(*a, scale=np.sqrt(a[4].shape[1])), "d_v"),
     "scale by d_model": (lambda *a: _cross(*a, scale=np.sqrt(a[0].shape[-1])), "d_model"),
     "no scale": (lambda *a: _cross(*a, scale=1.0), "没有缩放"),
     "global max": (cross_global_max, "整个批量的最大值"),
     "no max subtracted": (cross_no_max, "没有减去最大值"),
     "weights": (lambda X_q, X_kv, W_Q, W_K, W_V: _sm((X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2)
                                                      / np.sqrt(W_K.shape[1])), "注意力权重"),
     "1.04x": lambda *a: 1.04 * cross_swap(*a),
     "max without keepdims": (cross_max_flat, ["少了一个轴", "保持维度"]),
     "sum without keepdims": (cross_sum_flat, ["少了一个轴", "保持维度"]),
     "values from X_q": (lambda X_q, X_kv, W_Q, W_K, W_V: _sm((X_q @ W_Q) @ np.swapaxes(X_kv @ W_K, -1, -2)
                                                              / np.sqrt(W_K.shape[1])) @ (X_q @ W_V), "值应当和键一样"),
     "weights transposed": (lambda X_q, X_kv, W_Q, W_K, W_V: cross_swap(X_q, X_kv, W_Q.T, W_K.T, W_V.T), "不用转置"),
     "helpers": (lambda X_q, X_kv, W_Q, W_K, W_V: H.scaled_dot_product_attention(X_q @ W_Q, X_kv @ W_K, X_kv @ W_V).output,
                 "只用 numpy")})


def test_a_wrong_answer_that_is_right_on_the_failing_case_is_not_blamed(capsys):
    # Subtracting the global max is right on cases whose rows are close; a learner whose *scale* is wrong must
    # hear about the scale, not about the max, on such a case.
    out = fails(capsys, check_batched_cross_attention(lambda *a: _cross(*a, scale=np.sqrt(a[0].shape[-1]))))
    assert "d_model" in out and "最大值" not in out.split("提示")[1]


def test_a_loop_in_a_function_the_learner_calls_is_found(capsys):
    def one_pair(xq, xkv, W_Q, W_K, W_V):
        return cross_swap(xq, xkv, W_Q, W_K, W_V)

    def per_sentence(X_q, X_kv, W_Q, W_K, W_V):
        k, out = 0, []
        while k < len(X_q):
            out.append(one_pair(X_q[k], X_kv[k], W_Q, W_K, W_V))
            k += 1
        return np.array(out)

    def batched(*a):
        return per_sentence(*a)

    out = fails(capsys, check_batched_cross_attention(batched))
    assert "不写 Python 循环" in out and "while" in out


def test_a_raising_function_gets_a_message_not_a_traceback(capsys):
    out = fails(capsys, check_batched_cross_attention(lambda *a: np.linalg.inv(np.zeros((2, 2)))))
    assert "LinAlgError" in out and "Traceback" not in out


# ---- exercise 2: which shapes fit; the output's shape or None ----------------------------------------------

def shape_by_rule(x_q, x_kv, w_q, w_k, w_v):
    if w_q[0] != x_q[1] or w_k[0] != x_kv[1] or w_v[0] != x_kv[1] or w_q[1] != w_k[1]:
        return None
    return (x_q[0], w_v[1])


def shape_by_trying(x_q, x_kv, w_q, w_k, w_v):
    """Let numpy say whether the products exist: zero arrays of these shapes, the five steps, catch the error."""
    try:
        Q, K, V = np.zeros(x_q) @ np.zeros(w_q), np.zeros(x_kv) @ np.zeros(w_k), np.zeros(x_kv) @ np.zeros(w_v)
        return (Q @ K.T @ V).shape
    except ValueError:
        return None


def shape_unpacked(x_q, x_kv, w_q, w_k, w_v):
    (T_q, d_dec), (T_kv, d_enc) = x_q, x_kv
    (a, d_k), (b, d_k2), (c, d_v) = w_q, w_k, w_v
    fits = a == d_dec and b == c == d_enc and d_k == d_k2
    return [T_q, d_v] if fits else None


test_cross_attention_shape_accepts, test_cross_attention_shape_rejects = check_table(
    check_cross_attention_shape,
    {"rule": shape_by_rule, "numpy tries": shape_by_trying, "list": shape_unpacked,
     "array of numpy ints": lambda *a: None if shape_by_rule(*a) is None else np.array(shape_by_rule(*a), dtype=np.int64)},
    {"output width d_k": (lambda xq, xkv, wq, wk, wv: shape_by_rule(xq, xkv, wq, wk, wv) and (xq[0], wq[1]), "不是 d_k"),
     "output rows T_kv": (lambda xq, xkv, wq, wk, wv: shape_by_rule(xq, xkv, wq, wk, wv) and (xkv[0], wv[1]), "是 T_q"),
     "the weights' shape": (lambda xq, xkv, wq, wk, wv: shape_by_rule(xq, xkv, wq, wk, wv) and (xq[0], xkv[0]), "还差乘 V"),
     "d_v must equal d_k": (lambda xq, xkv, wq, wk, wv: None if wv[1] != wq[1] else shape_by_rule(xq, xkv, wq, wk, wv),
                            ["d_v 不必等于 d_k", "拼得上，你却返回了 None"]),
     "T_q must equal T_kv": (lambda xq, xkv, wq, wk, wv: None if xq[0] != xkv[0] else shape_by_rule(xq, xkv, wq, wk, wv),
                             "T_q 和键的个数 T_kv 可以不同"),
     "same widths": (lambda xq, xkv, wq, wk, wv: None if xq[1] != xkv[1] else shape_by_rule(xq, xkv, wq, wk, wv),
                     "两个序列的宽度可以不同"),
     "W_K, W_V read X_q": (lambda xq, xkv, wq, wk, wv: shape_by_rule(xq, xq, wq, wk, wv), "你拿 X_q 的宽度去比了"),
     "W_Q reads X_kv": (lambda xq, xkv, wq, wk, wv: shape_by_rule((xq[0], xkv[1]), xkv, wq, wk, wv), "你拿 X_kv 的宽度去比了"),
     "d_k not compared": (lambda xq, xkv, wq, wk, wv: (xq[0], wv[1]) if wq[0] == xq[1] and wk[0] == wv[0] == xkv[1] else None,
                          ["列数必须相同", "拼不上"]),
     "W as (out, in)": (lambda xq, xkv, wq, wk, wv: shape_by_rule(xq, xkv, wq[::-1], wk[::-1], wv[::-1]), "（输入宽度, 输出宽度）"),
     "no check at all": (lambda xq, xkv, wq, wk, wv: (xq[0], wv[1]), ["没有检查任何维度", "拼不上"]),
     "always None": (lambda *a: None, "忘了写 `return`"),   # r2 review: a forgotten return, not a hard-coded answer
     "3 numbers": (lambda xq, xkv, wq, wk, wv: shape_by_rule(xq, xkv, wq, wk, wv) and (1, xq[0], wv[1]), "形状")})


def test_a_raising_shape_function_gets_a_message(capsys):
    out = fails(capsys, check_cross_attention_shape(lambda xq, xkv, wq, wk, wv: xq[2]))
    assert "IndexError" in out and "Traceback" not in out


@pytest.mark.parametrize("instead", [False, (), "None", 0], ids=["False", "empty tuple", "the string None", "0"])
def test_something_else_than_none_for_shapes_that_do_not_fit_is_named(instead, capsys):
    # None is compared as a hidden pair of numbers: the learner must not read "shape () should be (2,)"
    out = fails(capsys, check_cross_attention_shape(
        lambda *a: instead if shape_by_rule(*a) is None else shape_by_rule(*a)))
    assert "拼不上" in out and "要返回 None" in out and "(2,)" not in out, out


def test_a_function_that_always_returns_none_is_asked_about_return(capsys):
    # fresh-eyes review (r2): a forgotten `return` was told it ignored its arguments (a hard-coded answer)
    def forgot_return(x_q, x_kv, w_q, w_k, w_v):
        (x_q[0], w_v[1])

    out = fails(capsys, check_cross_attention_shape(forgot_return))
    assert "拼得上，你却返回了 None" in out and "忘了写 `return`" in out, out
    assert "写死" not in out, out


def test_none_for_some_shapes_that_fit_is_not_called_a_forgotten_return(capsys):
    # only a function that returns None for every case forgot `return`; this one wrongly rejects d_v != d_k
    out = fails(capsys, check_cross_attention_shape(
        lambda xq, xkv, wq, wk, wv: None if wv[1] != wq[1] else shape_by_rule(xq, xkv, wq, wk, wv)))
    assert "拼得上，你却返回了 None" in out and "忘了写 `return`" not in out, out
