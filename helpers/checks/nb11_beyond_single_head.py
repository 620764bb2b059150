"""Self-checks for 2.11 (beyond a single head): three transfers of the section's ideas to questions the page
does not answer.

- ``check_head_contributions``: Concat(head_1, ..., head_h) W_O split into one share per head (head i meets the
  i-th block of d_v *rows* of W_O), the shares summing to the multi-head output.
- ``check_grouped_query_attention``: grouped-query attention, h query heads and g key/value heads, query heads
  i*h/g ... (i+1)*h/g - 1 sharing key/value head i (contiguous groups, as Llama's ``repeat_kv``).
- ``check_receptive_field``: which input tokens can reach which output rows through a stack of blocks whose
  attention is a causal sliding window, i - window <= j <= i (FFN, LayerNorm and the residuals act row by row).
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_head_contributions", "check_grouped_query_attention", "check_receptive_field"]


# ---- exercise 1: each head's share of the output ----------------------------------------------------------

def _contributions(heads, W_O):
    heads, W_O = np.asarray(heads, dtype=float), np.asarray(W_O, dtype=float)
    h, _, d_v = heads.shape
    return np.stack([heads[i] @ W_O[i * d_v:(i + 1) * d_v] for i in range(h)])


def _hc_wrong(kind):
    def wrong(heads, W_O):
        heads, W_O = np.asarray(heads, dtype=float), np.asarray(W_O, dtype=float)
        h, T, d_v = heads.shape
        if kind == "columns":                      # head i times the i-th block of columns (square W_O only)
            return np.stack([heads[i] @ W_O[:, i * d_v:(i + 1) * d_v] for i in range(h)])
        if kind == "strided":                      # head i meets every h-th row
            return np.stack([heads[i] @ W_O[i::h] for i in range(h)])
        if kind == "equal shares":                 # the whole output, split evenly
            total = heads.transpose(1, 0, 2).reshape(T, h * d_v) @ W_O
            return np.broadcast_to(total / h, (h,) + total.shape).copy()
        if kind == "divided by h":
            return _contributions(heads, W_O) / h
        if kind == "reversed":                     # head i meets the block of head h - 1 - i
            return np.stack([heads[i] @ W_O[(h - 1 - i) * d_v:(h - i) * d_v] for i in range(h)])
        if kind == "whole W_O":                    # heads @ W_O: right only with one head, else a shape error
            return heads @ W_O
        raise ValueError(kind)
    return wrong


_HC_WRONG = [
    Wrong("你把每个头的输出都乘了整个 W_O：一个头的输出只有 d_v 列，而 W_O 有 h·d_v 行，形状对不上（只有一个头时才碰巧能乘）。"
          "拼接后第 i 个头占第 i 段列，只和 W_O 的第 i 段行（每段 d_v 行）相乘。", _hc_wrong("whole W_O")),
    Wrong("你用的是 W_O 的一段列：拼接后的第 i 个头占的是拼接结果的第 i 段列，乘 W_O 时和它相乘的是 W_O 的第 i 段行（每段 d_v 行）。",
          _hc_wrong("columns")),
    Wrong("第 i 个头对应 W_O 里连续的一段行，而不是每隔 h 行取一行：拼接时各头是一段一段排的。", _hc_wrong("strided")),
    Wrong("每个头分到的都一样：你像是把总输出平均分给了各头。每一份只能由这个头自己的输出算出来。", _hc_wrong("equal shares")),
    Wrong("多除了一个 h：各份直接相加（不是平均）就等于多头注意力的输出。", _hc_wrong("divided by h")),
    Wrong("头和 W_O 的各段行对错了位：第 1 个头对应最上面的一段行，第 2 个头对应下一段，依此类推。", _hc_wrong("reversed")),
]


@float_safe
def check_head_contributions(fn) -> CheckResult:
    """Check ``fn(heads, W_O) -> parts``: heads (h, T, d_v), W_O (h*d_v, d_out), parts (h, T, d_out),
    ``parts[i] = heads[i] @ W_O[i*d_v:(i+1)*d_v]`` (so ``parts.sum(0) == merge_heads(heads) @ W_O``)."""
    rng = np.random.default_rng(20261101)
    square = (rng.normal(size=(2, 3, 4)), rng.normal(size=(8, 8)))          # d_out = h*d_v: column blocks fit too
    wide = (rng.normal(size=(3, 5, 2)), rng.normal(size=(6, 4)))
    one = (rng.normal(size=(1, 4, 3)), rng.normal(size=(3, 5)))
    four = (rng.normal(size=(4, 6, 3)), rng.normal(size=(12, 12)))
    hint = ("把 Concat(head_1, …, head_h) W_O 按矩阵乘法展开：拼接结果的第 i 段列（第 i 个头）只和 W_O 的某一段行相乘；"
            "第 i 份就是这个头的输出乘上那一段。")
    cases = [
        Case("2 个头，d_v = 4，W_O 是 8 × 8", square, _contributions(*square), hint),
        Case("3 个头，d_v = 2，d_out = 4", wide, _contributions(*wide), hint),
        Case("只有一个头", one, _contributions(*one), "只有一个头时，它的那一份就是整个输出：这个头的输出乘 W_O。"),
        Case("4 个头，d_v = 3，W_O 是 12 × 12", four, _contributions(*four), hint),
    ]
    return run_diagnosed("check_head_contributions", fn, cases, wrong=_HC_WRONG, atol=1e-9, rtol=1e-7)


# ---- exercise 2: grouped-query attention --------------------------------------------------------------------

def _gqa_reference(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads):
    """One head at a time: query head i uses key/value head i // (n_heads // n_kv_heads)."""
    d_k, d_v = W_Q.shape[1] // n_heads, W_V.shape[1] // n_kv_heads
    per_group = n_heads // n_kv_heads
    outs = []
    for i in range(n_heads):
        g = i // per_group
        q = X @ W_Q[:, i * d_k:(i + 1) * d_k]
        k, v = X @ W_K[:, g * d_k:(g + 1) * d_k], X @ W_V[:, g * d_v:(g + 1) * d_v]
        outs.append(H.scaled_dot_product_attention(q, k, v).output)
    return np.concatenate(outs, axis=1) @ W_O


def _gqa_wrong(kind):
    def wrong(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads):
        X, W_Q, W_K, W_V, W_O = (np.asarray(a, dtype=float) for a in (X, W_Q, W_K, W_V, W_O))
        T, h, g = X.shape[0], n_heads, n_kv_heads
        split = lambda Y, n: Y.reshape(T, n, -1).transpose(1, 0, 2)
        Q, K, V = split(X @ W_Q, h), split(X @ W_K, g), split(X @ W_V, g)
        pick = np.arange(h) % g if kind == "tiled" else np.arange(h) // (h // g)
        K, V = K[pick], V[pick]
        width = {"all heads": W_Q.shape[1], "kv width": W_K.shape[1]}.get(kind, Q.shape[-1])
        S = Q @ K.transpose(0, 2, 1) / np.sqrt(width)
        with np.errstate(all="ignore"):
            E = np.exp(S - S.max(axis=-1, keepdims=True))
            O = E / E.sum(axis=-1, keepdims=True) @ V
        concat = O.transpose(1, 0, 2).reshape(T, -1)
        return concat if kind == "no W_O" else concat @ W_O
    return wrong


def _gqa_through_project_qkv(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads):
    """The right computation, projected with H.project_qkv: it refuses W_K narrower than W_Q (g < h)."""
    Q, K, V = H.project_qkv(np.asarray(X, dtype=float), np.asarray(W_Q, dtype=float), np.asarray(W_K, dtype=float),
                            np.asarray(W_V, dtype=float))
    return _gqa_reference(np.asarray(X, dtype=float), np.asarray(W_Q, dtype=float), np.asarray(W_K, dtype=float),
                          np.asarray(W_V, dtype=float), np.asarray(W_O, dtype=float), n_heads, n_kv_heads)


_GQA_WRONG = [
    Wrong("H.project_qkv 是为每个头都有自己的键、值写的：它要求 W_Q 和 W_K 一样宽，而这里 W_K、W_V 只有 g 组，比 W_Q 窄，"
          "所以它报了错。三个投影各自用一次矩阵乘法（X 乘各自的矩阵）算出来，再把查询切成 h 个头、键和值切成 g 个头。",
          _gqa_through_project_qkv),
    Wrong("查询头和键值组配错了：相邻的 h/g 个查询头共用同一组（第 1 组给查询头 1 到 h/g，第 2 组给接下来的 h/g 个……），"
          "你像是让查询头轮流使用各组（1, 2, …, g, 1, 2, …）。", _gqa_wrong("tiled")),
    Wrong("缩放用了所有查询头的总宽度：每个头只用自己的 d_head 个分量打分，除以每头宽度的平方根。", _gqa_wrong("all heads")),
    Wrong("缩放用了全部键值组的总宽度：每个头只用自己的 d_head 个分量打分，除以每头宽度的平方根。", _gqa_wrong("kv width")),
    Wrong("漏了输出投影：拼接各查询头的输出之后还要乘 W_O。", _gqa_wrong("no W_O")),
]


def _gqa_inputs(rng, T, d_model, h, g, d_k, d_v, d_out):
    return (rng.normal(size=(T, d_model)), rng.normal(size=(d_model, h * d_k)) / np.sqrt(d_model),
            rng.normal(size=(d_model, g * d_k)) / np.sqrt(d_model), rng.normal(size=(d_model, g * d_v)),
            rng.normal(size=(h * d_v, d_out)), h, g)


@float_safe
def check_grouped_query_attention(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V, W_O, n_heads, n_kv_heads) -> (T, d_out)``.

    X (T, d_model); W_Q (d_model, h*d_k); W_K (d_model, g*d_k); W_V (d_model, g*d_v); W_O (h*d_v, d_out);
    query head i (from 0) uses key/value head i // (h // g).
    """
    rng = np.random.default_rng(20261102)
    same = _gqa_inputs(rng, 5, 8, 2, 2, 4, 4, 8)
    mqa = _gqa_inputs(rng, 4, 6, 3, 1, 2, 2, 6)
    four_two = _gqa_inputs(rng, 6, 8, 4, 2, 3, 3, 8)
    six_three = _gqa_inputs(rng, 5, 8, 6, 3, 2, 3, 5)
    cases = [
        Case("g = h = 2（每组只给一个查询头：就是普通多头）", same, _gqa_reference(*same),
             "g = h 时每个查询头有自己的一组键和值，结果就是 2.11 第 1 节的多头注意力。"),
        Case("3 个查询头共用 1 组键值（g = 1）", mqa, _gqa_reference(*mqa),
             "只有一组键和值时，每个查询头都用它；每个头仍按自己的宽度缩放，最后拼接再乘 W_O。"),
        Case("h = 4，g = 2", four_two, _gqa_reference(*four_two),
             "每组键值给相邻的 h/g 个查询头用：想清楚第几个查询头该配第几组。"),
        Case("h = 6，g = 3，d_v = 3 不等于 d_k = 2，d_out = 5", six_three, _gqa_reference(*six_three),
             "值的每头宽度由它自己的投影矩阵决定，可以和查询、键不同；输出宽度由 W_O 的列数决定。"),
    ]
    return run_diagnosed("check_grouped_query_attention", fn, cases, wrong=_GQA_WRONG, atol=1e-8, rtol=1e-6)


# ---- exercise 3: how far information travels through a stack of causal sliding-window blocks ---------------

def _reach(T, window, n_blocks):
    """Boolean (T, T): can input token j reach output row i? One attention step at a time (path counting)."""
    step = np.array([[0 <= i - j <= window for j in range(T)] for i in range(T)])
    reach = np.eye(T, dtype=bool)
    for _ in range(n_blocks):                      # FFN, LayerNorm and the residual keep each row to itself
        reach = (step.astype(int) @ reach.astype(int)) > 0
    return reach


def _rf_wrong(kind):
    def wrong(T, window, n_blocks):
        i, j = np.indices((T, T))
        back = i - j                               # how far key j lies behind query i
        reach = {"one block": window, "ffn mixes": 2 * n_blocks * window, "one block less": (n_blocks - 1) * window,
                 "product": window ** n_blocks, "strict": n_blocks * window - 1}.get(kind, n_blocks * window)
        if kind == "symmetric":                    # 2.9's band: the window looks both ways
            return np.abs(back) <= reach
        if kind == "forward":                      # the window counted toward later tokens
            return (-back >= 0) & (-back <= reach)
        if kind == "all past":                     # the causal mask without the window
            return back >= 0
        return (back >= 0) & (back <= reach)
    return wrong


_RF_WRONG = [
    Wrong("你的范围向两边都扩了，像 2.9 那条对称的带：这里的窗口是因果的，只看自己和前面的词，"
          "所以后面的词影响不到前面的行。", _rf_wrong("symmetric")),
    Wrong("方向反了：第 i 行看的是它前面的词（j ≤ i），所以能影响第 i 行的是它前面的输入，不是后面的。",
          _rf_wrong("forward")),
    Wrong("你只算了一个 Block：第二个 Block 的注意力看见的，已经是上一层混合过的行，所以每多一层，范围再向前扩大 window。",
          _rf_wrong("one block")),
    Wrong("FFN、LayerNorm 和残差都逐行作用，不混合位置：每个 Block 里只有注意力那一步把范围扩大 window。", _rf_wrong("ffn mixes")),
    Wrong("少算了一个 Block：n_blocks 个 Block 就有 n_blocks 次注意力，每一次都把范围扩大 window。", _rf_wrong("one block less")),
    Wrong("范围是一层一层加上去的，不是乘上去的：每个 Block 向前多走 window 个位置。", _rf_wrong("product")),
    Wrong("边界差了一格：恰好在前面 window 个位置的词也看得见（包括边界），叠起来后的边界也算在内。", _rf_wrong("strict")),
    Wrong("因果掩码之外还有窗口：窗口外更早的词在这一层看不见，层数少时影响传不到很远。", _rf_wrong("all past")),
]


def check_receptive_field(fn) -> CheckResult:
    """Check ``fn(T, window, n_blocks) -> (T, T) bool array``: entry [i, j] (from 0) is True iff input token j can
    change output row i after ``n_blocks`` blocks whose attention is a causal sliding window (query i sees keys
    i - window <= j <= i), i.e. iff 0 <= i - j <= n_blocks * window."""
    hint = ("一个 Block 里只有注意力混合位置，而它只看自己和前面 window 个词；下一个 Block 看见的行已经混合过。"
            "想清楚影响每过一个 Block 能往哪个方向、走多远。")
    setups = [("T = 8，窗口 1，1 个 Block", (8, 1, 1)), ("T = 10，窗口 2，3 个 Block", (10, 2, 3)),
              ("T = 6，窗口 0，4 个 Block", (6, 0, 4)), ("T = 12，窗口 1，4 个 Block", (12, 1, 4)),
              ("T = 7，窗口 3，5 个 Block（早已覆盖整句）", (7, 3, 5))]
    cases = [Case(label, args, _reach(*args), hint) for label, args in setups]
    cases[2] = Case(cases[2].label, cases[2].args, cases[2].expected,
                    "窗口为 0 时每个词只看见自己：注意力不再混合位置，而 FFN、LayerNorm 和残差本来就逐行作用。")
    return run_diagnosed("check_receptive_field", fn, cases, wrong=_RF_WRONG, result_type="bool array")
