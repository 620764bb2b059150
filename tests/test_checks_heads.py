"""The 2.11 self-checks pass independent solutions and reject the usual head-splitting mistakes."""

import numpy as np

from helpers.checks import check_multi_head, check_split_heads
from check_verdicts import verdict_table


def good_split(Y, n_heads):
    T, width = Y.shape
    d = width // n_heads
    return np.stack([Y[:, i * d:(i + 1) * d] for i in range(n_heads)])


def wrong_reshape(Y, n_heads):          # reshape straight to (h, T, d): mixes tokens
    T, width = Y.shape
    return Y.reshape(n_heads, T, width // n_heads)


def wrong_interleave(Y, n_heads):       # head i takes every h-th column
    return np.stack([Y[:, i::n_heads] for i in range(n_heads)])


def test_split_check(capsys):
    assert check_split_heads(good_split)
    assert "全部 4 个隐藏用例通过" in capsys.readouterr().out
    assert check_split_heads(lambda Y, h: np.asarray(Y).reshape(Y.shape[0], h, -1).transpose(1, 0, 2))
    assert check_split_heads(lambda Y, h: [Y[:, i * (Y.shape[1] // h):(i + 1) * (Y.shape[1] // h)] for i in range(h)])
    capsys.readouterr()
    assert not check_split_heads(wrong_reshape)
    out = capsys.readouterr().out
    assert "然后（THEN）" in out
    assert not check_split_heads(wrong_interleave)
    assert not check_split_heads(lambda Y, h: Y)
    assert "形状（shape）" in capsys.readouterr().out
    assert not check_split_heads(lambda Y, h: Y.reshape(Y.shape[0], h, -1))  # head axis not moved to the front
    assert not check_split_heads(lambda Y, h: Y.reshape(Y.shape[0], h, -1).transpose(1, 2, 0))


def _softmax(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def good_mha(X, W_Q, W_K, W_V, W_O, n_heads, full_width_scale=False):
    dk, dv = W_Q.shape[1] // n_heads, W_V.shape[1] // n_heads
    heads = []
    for i in range(n_heads):
        q, k, v = X @ W_Q[:, i * dk:(i + 1) * dk], X @ W_K[:, i * dk:(i + 1) * dk], X @ W_V[:, i * dv:(i + 1) * dv]
        scale = np.sqrt(W_Q.shape[1]) if full_width_scale else np.sqrt(dk)
        heads.append(_softmax(q @ k.T / scale) @ v)
    return np.concatenate(heads, axis=1) @ W_O


def test_multi_head_check(capsys):
    assert check_multi_head(good_mha)
    assert "全部 4 个隐藏用例通过" in capsys.readouterr().out
    assert not check_multi_head(lambda *a: good_mha(*a, full_width_scale=True))
    assert "sqrt(d_head)" in capsys.readouterr().out
    assert not check_multi_head(lambda *a: 1.04 * good_mha(*a))
    assert not check_multi_head(lambda X, W_Q, W_K, W_V, W_O, n: good_mha(X, W_Q, W_K, W_V, np.eye(W_O.shape[0]), n))

    def no_scale(X, W_Q, W_K, W_V, W_O, n_heads):
        return good_mha(X, W_Q * np.sqrt(W_Q.shape[1] // n_heads), W_K, W_V, W_O, n_heads)

    assert not check_multi_head(no_scale)

    def heads_reversed(X, W_Q, W_K, W_V, W_O, n_heads):
        dk, dv = W_Q.shape[1] // n_heads, W_V.shape[1] // n_heads
        out = [_softmax((X @ W_Q[:, i * dk:(i + 1) * dk]) @ (X @ W_K[:, i * dk:(i + 1) * dk]).T / np.sqrt(dk))
               @ (X @ W_V[:, i * dv:(i + 1) * dv]) for i in reversed(range(n_heads))]
        return np.concatenate(out, axis=1) @ W_O

    assert not check_multi_head(heads_reversed)
    assert "第 2/4 个用例" in capsys.readouterr().out


def test_checks_never_print_expected_values(capsys):
    check_split_heads(lambda Y, h: np.zeros((h, Y.shape[0], Y.shape[1] // h)))
    check_multi_head(lambda X, W_Q, W_K, W_V, W_O, n_heads: np.zeros((X.shape[0], W_O.shape[1])))
    out = capsys.readouterr().out
    assert out.count("❌") == 2
    assert "[[" not in out and "array(" not in out
    assert "3.0" not in out and "7.0" not in out        # entries of the arange case's expected split


def _mha_with(softmax_fn, X, W_Q, W_K, W_V, W_O, n_heads, reshape_split=False):
    T = X.shape[0]
    dk, dv = W_Q.shape[1] // n_heads, W_V.shape[1] // n_heads
    if reshape_split:  # reshape straight to (h, T, d): mixes tokens
        Q, K, V = ((X @ W).reshape(n_heads, T, -1) for W in (W_Q, W_K, W_V))
    else:
        Q, K, V = ((X @ W).reshape(T, n_heads, -1).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    heads = softmax_fn(Q @ K.transpose(0, 2, 1) / np.sqrt(dk)) @ V
    return heads.transpose(1, 0, 2).reshape(T, n_heads * dv) @ W_O


def _global_max_softmax(S):
    e = np.exp(S - S.max())
    return e / e.sum(axis=-1, keepdims=True)


def test_multi_head_batched_variant_passes_and_classic_slips_fail(capsys):
    assert check_multi_head(lambda *a: _mha_with(_softmax, *a))
    assert not check_multi_head(lambda *a: _mha_with(_softmax, *a, reshape_split=True))
    assert not check_multi_head(lambda *a: _mha_with(lambda S: _softmax(S.swapaxes(-1, -2)).swapaxes(-1, -2), *a))
    assert not check_multi_head(lambda *a: _mha_with(_global_max_softmax, *a))
    out = capsys.readouterr().out
    assert "每一行自己的最大值" in out


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

def _review_sm(S):
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _review_mh(X, W_Q, W_K, W_V, W_O, h, concat="heads-major", per_head_proj=False, mean=False):
    T = X.shape[0]
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    dk, dv = Q.shape[1] // h, V.shape[1] // h
    Qh, Kh, Vh = (Y.reshape(T, h, d).transpose(1, 0, 2) for Y, d in ((Q, dk), (K, dk), (V, dv)))
    O = _review_sm(Qh @ Kh.transpose(0, 2, 1) / np.sqrt(dk)) @ Vh            # (h, T, dv)
    if per_head_proj:                                                          # sum_i O_i W_O[rows of head i]
        out = sum(O[i] @ W_O[i * dv:(i + 1) * dv] for i in range(h))
        return out / h if mean else out
    if concat == "heads-major":
        return O.transpose(1, 0, 2).reshape(T, -1) @ W_O
    return O.transpose(1, 2, 0).reshape(T, -1) @ W_O                         # interleaved columns


REVIEW_HEADS = [
    (check_split_heads, lambda Y, h: Y.T.reshape(h, -1, Y.shape[0]), False),                   # (h, d_head, T)
    (check_split_heads, lambda Y, h: Y.T.reshape(h, -1, Y.shape[0]).transpose(0, 2, 1), True),
    (check_split_heads, lambda Y, h: [Y[:, i * (Y.shape[1] // h):(i + 1) * (Y.shape[1] // h)] for i in range(h)], True),
    (check_multi_head, lambda *a: _review_mh(*a, concat="interleaved"), False),
    (check_multi_head, lambda *a: _review_mh(*a, per_head_proj=True), True),          # same maths, summed per head
    (check_multi_head, lambda *a: _review_mh(*a, per_head_proj=True, mean=True), False),  # averaged heads
]
test_review_head_variants = verdict_table(REVIEW_HEADS)

# The prompts of 2.11 say "without the helpers used just above" (section 1 calls them): calling them is refused.
import helpers as _H  # noqa: E402

REVIEW_HEADS_FORBIDDEN = [
    (check_split_heads, lambda Y, n: _H.heads.split_heads(Y, n), False),
    (check_multi_head, lambda X, q, k, v, o, n: _H.multi_head_self_attention(X, q, k, v, o, n_heads=n).output, False),
    (check_multi_head, lambda X, q, k, v, o, n: _H.heads.merge_heads(_H.scaled_dot_product_attention(
        *(_H.heads.split_heads(X @ W, n) for W in (q, k, v))).output) @ o, False),
    (check_multi_head, lambda X, q, k, v, o, n: np.concatenate([_H.scaled_dot_product_attention(
        X @ np.split(q, n, 1)[i], X @ np.split(k, n, 1)[i], X @ np.split(v, n, 1)[i]).output
        for i in range(n)], axis=1) @ o, True),   # per-head loop with scaled_dot_product_attention: allowed
]
test_review_heads_forbidden = verdict_table(REVIEW_HEADS_FORBIDDEN)


# ---- checks review (issue 20, a novice's own answers): the mistake actually made is named ----------------

from check_verdicts import check_table  # noqa: E402


def _concat_without_moving_heads(X, W_Q, W_K, W_V, W_O, n_heads):
    T = X.shape[0]
    Q, K, V = ((X @ W).reshape(T, n_heads, -1).transpose(1, 0, 2) for W in (W_Q, W_K, W_V))
    heads = _softmax(Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])) @ V
    return heads.reshape(T, -1) @ W_O                   # (h, T, d_v) read row by row: tokens mixed


test_multi_head_review_accepts, test_multi_head_review_names_the_mistake = check_table(
    check_multi_head, [lambda *a: good_mha(*a).astype(np.float32)], {
        "concat without moving the head axis (was: the scale hint)": (_concat_without_moving_heads, "拼接的顺序不对"),
        "no W_O": (lambda X, W_Q, W_K, W_V, W_O, h: good_mha(X, W_Q, W_K, W_V, np.eye(W_O.shape[0]), h), "漏了输出投影"),
        "reshape straight to (h, T, d)": (lambda *a: _mha_with(_softmax, *a, reshape_split=True), "切头时直接变形"),
        "full-width scale": (lambda *a: good_mha(*a, full_width_scale=True), "所有头的总宽度"),
        "global max": (lambda *a: _mha_with(_global_max_softmax, *a), "整个分数张量的最大值"),
    })
