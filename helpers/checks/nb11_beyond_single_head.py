"""Self-checks for 2.11 (beyond a single head): splitting into heads, multi-head attention, and RMSNorm
from its one-line definition (transfer).

RMSNorm(x) = x / sqrt(mean(x**2) + eps) * g, over the last axis (no mean subtracted, no beta).
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_split_heads", "check_multi_head", "check_rms_norm"]


@float_safe
def check_split_heads(fn) -> CheckResult:
    """Check ``fn(Y, n_heads) -> Z``: (T, h*d_head) -> (h, T, d_head), head i = columns i*d_head:(i+1)*d_head."""
    rng = np.random.default_rng(20260211)
    Y1 = np.arange(12.0).reshape(2, 6)
    Y2 = rng.normal(size=(5, 8))
    Y3 = rng.normal(size=(3, 6))
    cases = [
        Case("T = 2，宽度 6，2 个头", (Y1, 2), H.heads.split_heads(Y1, 2),
             "结果形状是 (n_heads, T, d_head)，第 i 个头是 Y 的第 i 段连续的列。先把每一行切成 n_heads 段"
             "（形状 (T, n_heads, d_head)），然后（THEN）再把头这一轴移到最前面；直接变形成 (n_heads, T, d_head) 会把不同 token 混在一起。"),
        Case("T = 5，宽度 8，4 个头", (Y2, 4), H.heads.split_heads(Y2, 4),
             "d_head = 宽度 ÷ n_heads；第 i 个头取一段连续的列，而不是每隔 n_heads 列取一列。"),
        Case("只有一个头", (Y3, 1), H.heads.split_heads(Y3, 1), "只有一个头时，这个头就是整个 Y：形状 (1, T, 宽度)。"),
        Case("每个头一列", (Y3, 6), H.heads.split_heads(Y3, 6), "d_head = 宽度 ÷ n_heads。"),
    ]
    # "不调用 H.heads.split_heads" (2.11 uses it in section 1, just above the exercise)
    return run_diagnosed("check_split_heads", fn, cases, forbid={"split_heads"}, ask="自己用 reshape 和 transpose 切头",
                         atol=0.0, rtol=0.0)


def _mh_wrong(kind):
    def wrong(X, W_Q, W_K, W_V, W_O, n_heads):
        X, W_Q, W_K, W_V, W_O = (np.asarray(a, dtype=float) for a in (X, W_Q, W_K, W_V, W_O))
        T, h = X.shape[0], n_heads

        def split(Y, strided=False):
            if kind == "reshape split":
                return Y.reshape(h, T, -1)
            if strided:
                return Y.reshape(T, -1, h).transpose(2, 0, 1)
            return Y.reshape(T, h, -1).transpose(1, 0, 2)

        Q, K, V = split(X @ W_Q, kind == "strided"), split(X @ W_K, kind == "strided"), split(X @ W_V, kind == "strided")
        d = W_Q.shape[1] if kind == "full width" else Q.shape[-1]
        S = Q @ K.transpose(0, 2, 1) / np.sqrt(d)
        with np.errstate(all="ignore"):
            E = np.exp(S - (S.max() if kind == "global max" else S.max(axis=-1, keepdims=True)))
            O = E / E.sum(axis=-1, keepdims=True) @ V
        concat = O.reshape(T, -1) if kind == "concat" else O.transpose(1, 0, 2).reshape(T, -1)
        return concat if kind == "no W_O" else concat @ W_O
    return wrong


_MH_WRONG = [
    Wrong("缩放用了所有头的总宽度：每个头只用自己的 d_head 个分量打分，除以它自己宽度的平方根（√d_head，sqrt(d_head)）。", _mh_wrong("full width")),
    Wrong("拼接的顺序不对：各头的输出是 (头, T, d_v)，要先把头这一轴换到 T 后面，每个 token 一行地拼起来，再乘 W_O；"
          "直接变形会把不同 token 的输出混在一起。", _mh_wrong("concat")),
    Wrong("头的切法不对：第 i 个头是连续的一段列，而不是每隔 n_heads 列取一列。", _mh_wrong("strided")),
    Wrong("切头时直接变形成 (头, T, d_head) 会把不同 token 的分量混在一起：先把每一行切成 n_heads 段，再把头这一轴移到最前面。",
          _mh_wrong("reshape split")),
    Wrong("减去的是整个分数张量的最大值：远低于它的行会下溢成 0/0。每个头都要减去每一行自己的最大值。", _mh_wrong("global max")),
    Wrong("漏了输出投影：拼接各头的输出之后还要乘 W_O。", _mh_wrong("no W_O")),
]


@float_safe
def check_multi_head(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V, W_O, n_heads) -> output`` of shape (T, d_out)."""
    rng = np.random.default_rng(20260311)

    def inputs(T, d_model, h, d_k, d_v, d_out):
        return (rng.normal(size=(T, d_model)), rng.normal(size=(d_model, h * d_k)) / np.sqrt(d_model),
                rng.normal(size=(d_model, h * d_k)) / np.sqrt(d_model), rng.normal(size=(d_model, h * d_v)),
                rng.normal(size=(h * d_v, d_out)), h)

    one = inputs(4, 6, 1, 6, 6, 6)
    two = inputs(5, 8, 2, 4, 4, 8)
    four = inputs(6, 8, 4, 2, 3, 5)
    loud = inputs(5, 4, 2, 3, 2, 3)
    loud = (loud[0] * np.array([[1.0], [60.0], [1.0], [-60.0], [2.0]]), loud[1] * 6.0, loud[2] * 6.0, *loud[3:])
    cases = [
        Case("一个头（本章的公式，再乘 W_O）", one,
             H.multi_head_self_attention(*one[:5], n_heads=1).output,
             "一个头时就是本章的缩放点积注意力，最后再乘输出投影 W_O。"),
        Case("2 个宽度为 4 的头", two, H.multi_head_self_attention(*two[:5], n_heads=2).output,
             "每个头按它自己的宽度缩放（√d_head，sqrt(d_head)），而不是整个宽度的平方根；"
             "按顺序拼接各头的输出，再乘 W_O。"),
        Case("4 个头，d_k = 2，d_v = 3，d_out = 5", four, H.multi_head_self_attention(*four[:5], n_heads=4).output,
             "值（V）要按它自己的宽度切分（每头 d_v 列），它可以和查询、键的宽度不同。"),
        Case("2 个头，分数很大、各行相差很远", loud, H.multi_head_self_attention(*loud[:5], n_heads=2).output,
             "每个头的 softmax 都要减去每一行自己的最大值：减整个矩阵的最大值会让远低于它的行变成 0/0。"),
    ]
    # "不调用 H.multi_head_self_attention、H.heads.split_heads / merge_heads" (all used in section 1 above)
    return run_diagnosed("check_multi_head", fn, cases, wrong=_MH_WRONG, atol=1e-8, rtol=1e-6,
                         forbid={"multi_head_self_attention", "split_heads", "merge_heads"},
                         ask="自己写出切头、拼接和输出投影")


def _reference(x, g, eps):
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(x.shape[:-1]):
        row = x[idx]
        out[idx] = row / np.sqrt(np.mean(row * row) + eps) * g
    return out


def _rms_wrong(kind):
    def wrong(x, g, eps):
        x = np.asarray(x, dtype=float)
        if kind == "eps outside":
            return x / (np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) + eps) * g
        if kind == "no eps":
            return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True)) * g
        if kind == "layernorm":
            return (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * g
        if kind == "sum":
            return x / np.sqrt(np.sum(x * x, axis=-1, keepdims=True) + eps) * g
        if kind == "axis 0":
            return x / np.sqrt(np.mean(x * x, axis=0, keepdims=True) + eps) * g
        if kind == "no g":
            return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
        if kind == "no root":
            return x / (np.mean(x * x, axis=-1, keepdims=True) + eps) * g
        if kind == "axis dropped":                     # raises what the learner's code raises (no case is square)
            return x / np.sqrt(np.mean(x * x, axis=-1) + eps) * g
        raise ValueError(kind)
    return wrong


_RMS_WRONG = [
    Wrong("eps 加在了开平方之后：它应先加到均方值上，再开平方根。", _rms_wrong("eps outside")),
    Wrong("eps 没有用上：它要先加到均方值上，再开平方根。", _rms_wrong("no eps")),
    Wrong("你写的是 LayerNorm：RMSNorm 不减均值，只除以均方根。", _rms_wrong("layernorm")),
    Wrong("除以的是长度（平方和的平方根）：RMSNorm 用的是平方的平均值（均方），再开平方根。", _rms_wrong("sum")),
    Wrong("平均沿错了轴：每个词一行，对这一行自己的 d 个数（最后一个轴）求均方。", _rms_wrong("axis 0")),
    Wrong("漏了增益 g：归一化之后还要逐元素乘以 g。", _rms_wrong("no g")),
    Wrong("没有开平方根：要除以的是均方根（均方值加上 eps 之后再开平方），不是均方值本身。", _rms_wrong("no root")),
    Wrong("求完每一行的均方，那个轴就没了：结果的形状和 x 对不齐，没法逐行相除。求均方时保留最后一个轴（长度变成 1），"
          "每一行才会除以它自己的均方根。", _rms_wrong("axis dropped")),
]


def check_rms_norm(fn) -> CheckResult:
    """Check ``fn(x, g, eps) -> y``: RMSNorm over the last axis. x (..., d), g (d,), y (..., d)."""
    r = np.random.default_rng(20260211)
    shifted = (r.normal(size=(4, 6)) + 3.0, r.normal(size=6), 1e-6)
    wide = (r.normal(size=(3, 8)), np.ones(8), 1e-6)
    batch = (r.normal(size=(2, 3, 5)), r.uniform(0.5, 2.0, size=5), 1e-6)
    tiny = (np.full((2, 4), 1e-3), np.ones(4), 1e-2)
    hint = "RMSNorm 只除以每一行（最后一个轴）的均方根，不减均值，没有 beta。"
    cases = [
        # first: with eps = 1e-2 a misplaced eps is far off (with 1e-6 it is off by ~1e-6 only)
        Case("很小的输入，eps = 1e-2", tiny, _reference(*tiny), "eps 应该先加到均方值上，再开平方根——不是开完根再加，也不是加到别处。"),
        Case("均值不为 0 的行 (4, 6)", shifted, _reference(*shifted),
             hint + " 均值不为 0 时，减不减均值结果不同。"),
        Case("行数不等于宽度 (3, 8), g = 1", wide, _reference(*wide), "沿哪个轴求平均？每个词一行，对它自己的 d 个数求平均。"),
        Case("批量输入 (2, 3, 5)，g 不全为 1", batch, _reference(*batch), "输入可以有好几个批量维度：只沿最后一个轴求平均，并保留这个轴，好让每一行除以它自己的均方根；最后别忘了乘 g。"),
    ]
    return run_diagnosed("check_rms_norm", fn, cases, wrong=_RMS_WRONG, atol=1e-9, rtol=1e-7)
