"""Self-checks for 2.7 (the whole formula): attention with a key-padding mask (transfer), batched
cross-attention, and the parameters of a cross-attention head."""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_key_padding_attention", "check_batched_cross_attention", "check_cross_param_count"]


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
    return run_diagnosed("check_key_padding_attention", fn, cases, numpy_only=True, atol=1e-8, rtol=1e-6,
                     general_hint="key_valid 为 False 的键：它的分数在 softmax 之前该变成什么？")


# ---- 2.7 exercises that ask for something new (issue 20): batched cross-attention, cross-attention parameters


def _batched_cross_ref(X_q, X_kv, W_Q, W_K, W_V):
    Q, K, V = np.asarray(X_q) @ W_Q, np.asarray(X_kv) @ W_K, np.asarray(X_kv) @ W_V
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    return H.softmax(S, axis=-1) @ V


def _bx_wrong(scores=None, keys_from_queries=False, axis=-1, scale=None, weights=False, global_max=False):
    """A classic wrong batched cross-attention (a simulated learner's code, hence core.lenient_softmax)."""
    def wrong(X_q, X_kv, W_Q, W_K, W_V):
        src = X_q if keys_from_queries else X_kv
        Q, K, V = X_q @ W_Q, src @ W_K, src @ W_V
        S = (Q @ np.swapaxes(K, -1, -2)) if scores is None else scores(Q, K)
        S = S / (np.sqrt(K.shape[-1]) if scale is None else scale(Q, K, V, X_q))
        if global_max:
            E = np.exp(S - S.max())
            A = E / E.sum(axis=-1, keepdims=True)
        else:
            A = lenient_softmax(S, axis=axis)
        return A if weights else A @ V
    return wrong


_BX_WRONG = [
    Wrong("不带参数的转置会把三维数组的所有轴倒过来（批量轴也被换到了最后）：打分时只交换键的最后两个轴。",
          _bx_wrong(scores=lambda Q, K: Q @ K.T)),
    Wrong("不同句子被混在了一起：第 b 个句子的查询只能和第 b 个句子的键打分，批量轴不能被求和或交叉组合。",
          _bx_wrong(scores=lambda Q, K: np.einsum("bqd,ckd->bqk", Q, K))),
    Wrong("键和值应当来自被查询的序列 X_kv，你用的是提问的序列 X_q（那是自注意力）。",
          _bx_wrong(keys_from_queries=True)),
    Wrong("softmax 沿的是查询轴：每个查询对它的所有键归一化，应沿最后一个轴（键）。",
          _bx_wrong(axis=1)),
    Wrong("softmax 沿的是批量轴：每个查询对它的所有键归一化，应沿最后一个轴（键）。",
          _bx_wrong(axis=0)),
    Wrong("缩放用了值的宽度 d_v：除以的应是查询、键的宽度 d_k 的平方根。",
          _bx_wrong(scale=lambda Q, K, V, X: np.sqrt(V.shape[-1]))),
    Wrong("缩放用了 d_model：投影之后查询和键的宽度是 d_k，除以它的平方根。",
          _bx_wrong(scale=lambda Q, K, V, X: np.sqrt(X.shape[-1]))),
    Wrong("除以的是 d_k 本身：应除以 d_k 的平方根。",
          _bx_wrong(scale=lambda Q, K, V, X: K.shape[-1])),
    Wrong("分数没有缩放：打分之后要除以 √d_k。",
          _bx_wrong(scale=lambda Q, K, V, X: 1.0)),
    Wrong("减去的是整个批量的最大值：远低于它的句子会整行下溢成 0/0。每个查询减去自己那一行的最大值。",
          _bx_wrong(global_max=True)),
    Wrong("你返回的是注意力权重：还差最后一步，用权重对值加权求和。",
          _bx_wrong(weights=True)),
]


@float_safe
def check_batched_cross_attention(fn) -> CheckResult:
    """Check ``fn(X_q, X_kv, W_Q, W_K, W_V) -> output`` of shape (B, T_q, d_v), numpy only.

    ``X_q`` has shape (B, T_q, d_model), ``X_kv`` (B, T_kv, d_model), ``W_Q``/``W_K`` (d_model, d_k),
    ``W_V`` (d_model, d_v): cross-attention for each of B pairs of sequences at once.
    """
    rng = np.random.default_rng(20260271)

    def draw(B, T_q, T_kv, d_model, d_k, d_v, dtype=float):
        return tuple(a.astype(dtype) for a in (rng.normal(size=(B, T_q, d_model)), rng.normal(size=(B, T_kv, d_model)),
                                                rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)),
                                                rng.normal(size=(d_model, d_v))))

    a1 = draw(2, 3, 5, 4, 2, 3)
    a2 = draw(1, 1, 4, 3, 3, 2)
    a3 = draw(3, 4, 3, 6, 3, 5)                       # B = d_k = T_kv: some wrong transposes run silently
    loud = list(draw(2, 2, 4, 4, 3, 2))
    loud[3] = loud[2]                                    # W_K = W_Q: a query parallel to a key scores high
    loud[0][0] = 1000.0 * loud[1][0, :2]                 # sentence 0: scores in the thousands; sentence 1: a few units
    a5 = draw(2, 3, 6, 8, 16, 2)
    a6 = draw(2, 3, 4, 5, 4, 3, dtype=np.float32)
    cases = [
        Case("B=2 对句子，T_q=3，T_kv=5，d_k=2，d_v=3", a1, _batched_cross_ref(*a1),
             "每个句子对各算各的：查询来自 X_q，键和值来自 X_kv；分数的形状是 (B, T_q, T_kv)，输出是 (B, T_q, d_v)。"),
        Case("只有 1 对句子、1 个查询", a2, _batched_cross_ref(*a2),
             "B=1、T_q=1 时输出形状是 (1, 1, d_v)：不要去掉长度为 1 的轴。"),
        Case("B = d_k = T_kv = 3", a3, _batched_cross_ref(*a3),
             "形状凑巧相同时，错的转置或错的轴也能运行：只交换键的最后两个轴，softmax 沿最后一个轴。"),
        Case("一对句子的分数很大、另一对很小", tuple(loud), _batched_cross_ref(*loud),
             "取指数之前，每个查询减去它自己那一行分数的最大值，而不是整个批量的最大值。"),
        Case("d_k = 16，d_v = 2", a5, _batched_cross_ref(*a5), "缩放用键的宽度 d_k 的平方根。"),
        Case("float32 输入", a6, _batched_cross_ref(*a6), "float32 输入按 float32 的精度比较；先检查形状和轴。"),
    ]
    return run_diagnosed("check_batched_cross_attention", fn, cases, wrong=_BX_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4)


def _cross_params_ref(d_dec, d_enc, d_k, d_v, bias):
    return d_dec * d_k + d_enc * (d_k + d_v) + ((2 * d_k + d_v) if bias else 0)


_CP_WRONG = [
    Wrong("W_Q 作用在提问的一方（解码器，宽 d_dec）上，W_K 和 W_V 作用在被查询的一方（编码器，宽 d_enc）上：你把两边对调了。",
          lambda d_dec, d_enc, d_k, d_v, bias: d_enc * d_k + d_dec * (d_k + d_v) + ((2 * d_k + d_v) if bias else 0)),
    Wrong("三个矩阵不都是 d_dec 行：W_K、W_V 读的是编码器的向量，行数是 d_enc。",
          lambda d_dec, d_enc, d_k, d_v, bias: d_dec * (2 * d_k + d_v) + ((2 * d_k + d_v) if bias else 0)),
    Wrong("三个矩阵不都是 d_enc 行：W_Q 读的是解码器的向量，行数是 d_dec。",
          lambda d_dec, d_enc, d_k, d_v, bias: d_enc * (2 * d_k + d_v) + ((2 * d_k + d_v) if bias else 0)),
    Wrong("偏置（bias）漏掉了：bias 为 True 时，每个投影的每个输出分量还有一个偏置。",
          lambda d_dec, d_enc, d_k, d_v, bias: d_dec * d_k + d_enc * (d_k + d_v)),
    Wrong("偏置的个数等于各投影输出的宽度（查询 d_k、键 d_k、值 d_v），不是输入的宽度。",
          lambda d_dec, d_enc, d_k, d_v, bias: d_dec * d_k + d_enc * (d_k + d_v) + ((d_dec + 2 * d_enc) if bias else 0)),
    Wrong("W_V 有 d_v 列，不一定等于 d_k。",
          lambda d_dec, d_enc, d_k, d_v, bias: d_dec * d_k + d_enc * 2 * d_k + ((3 * d_k) if bias else 0)),
]


@float_safe
def check_cross_param_count(fn) -> CheckResult:
    """Check ``fn(d_dec, d_enc, d_k, d_v, bias) -> int``: entries of W_Q (d_dec, d_k), W_K (d_enc, d_k),
    W_V (d_enc, d_v) of one cross-attention head, plus 2 d_k + d_v biases when ``bias`` is True."""
    args = [(8, 8, 3, 4, False), (512, 768, 64, 64, False), (768, 512, 64, 32, False), (512, 768, 64, 32, True),
            (6, 10, 2, 5, True)]
    labels = ["两边同宽：d_dec = d_enc = 8，d_k=3，d_v=4", "解码器 512 宽、编码器 768 宽，d_k=d_v=64",
              "解码器 768 宽、编码器 512 宽，d_v=32", "带偏置：d_dec=512，d_enc=768，d_k=64，d_v=32",
              "带偏置：d_dec=6，d_enc=10，d_k=2，d_v=5"]
    hints = ["两边同宽时，结果应与自注意力的参数量相同。",
             "查询的投影读解码器的向量，键和值的投影读编码器的向量：各自的行数不同。",
             "把三个矩阵的形状一个个写出来：行数是它读的那个序列的宽度，列数是它产出的宽度。",
             "每个投影的每个输出分量有一个偏置。", "参数个数与两个序列的长度无关。"]
    cases = [Case(lab, a, _cross_params_ref(*a), h) for lab, a, h in zip(labels, args, hints)]
    return run_diagnosed("check_cross_param_count", fn, cases, wrong=_CP_WRONG, result_type=int, atol=0.0, rtol=0.0)
