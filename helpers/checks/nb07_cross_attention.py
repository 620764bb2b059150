"""Self-checks for 2.7's exercises 1 and 2 (cross-attention, issue 30): the five steps over any leading batch
axes without a Python loop, and which shapes of a cross-attention head fit together."""

from __future__ import annotations

import contextlib
import functools
import io

import numpy as np

import helpers as H

from .core import FAIL, Case, CheckResult, float_safe, lenient_softmax
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_batched_cross_attention", "check_cross_attention_shape"]


# ---- 2.7 exercise 1: cross-attention over any leading batch axes, without a Python loop (issue 30) ----------


def _batched_cross_ref(X_q, X_kv, W_Q, W_K, W_V):
    Q, K, V = np.asarray(X_q) @ W_Q, np.asarray(X_kv) @ W_K, np.asarray(X_kv) @ W_V
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])
    return H.softmax(S, axis=-1) @ V


def _bx_wrong(scores=None, keys_from_queries=False, values_from_queries=False, transposed_weights=False, axis=-1,
              scale=None, weights=False, global_max=False, flat=None, no_max=False):
    """A classic wrong batched cross-attention (a simulated learner's code, hence core.lenient_softmax).

    ``flat`` names the reduction whose axis was dropped ("max" or "sum": no keepdims), which raises on a batch.
    ``axis`` may be a function of the scores' number of axes (an axis counted from the front, written for 3-d).
    """
    def wrong(X_q, X_kv, W_Q, W_K, W_V):
        src = X_q if keys_from_queries else X_kv
        W_Q, W_K, W_V = (W.T for W in (W_Q, W_K, W_V)) if transposed_weights else (W_Q, W_K, W_V)
        Q, K, V = X_q @ W_Q, src @ W_K, (X_q if values_from_queries else src) @ W_V
        S = (Q @ np.swapaxes(K, -1, -2)) if scores is None else scores(Q, K)
        S = S / (np.sqrt(K.shape[-1]) if scale is None else scale(Q, K, V, X_q))
        if flat is not None:
            E = np.exp(S - S.max(axis=-1, keepdims=flat != "max"))
            A = E / E.sum(axis=-1, keepdims=flat != "sum")
        elif global_max or no_max:
            E = np.exp(S - (S.max() if global_max else 0.0))
            A = E / E.sum(axis=-1, keepdims=True)
        elif callable(axis):
            E = np.exp(S - S.max(axis=axis(S.ndim), keepdims=True))
            A = E / E.sum(axis=axis(S.ndim), keepdims=True)
        else:
            A = lenient_softmax(S, axis=axis)
        return A if weights else A @ V
    return wrong


_FLAT = ("每一行的最大值（或和）求出来之后少了一个轴：形状 (B, T_q) 的结果和形状 (B, T_q, T_kv) 的分数放在一起时，"
         "广播从最后一个轴往前对齐，对不上。求最大值和求和时保持维度，让每一行的那个数仍占着一个长度为 1 的轴。")
_FROM_FRONT = ("轴号是按三维数组从前往后数的：没有批量轴或有两个批量轴时，它就指错了轴（或根本不存在）。"
               "批量轴有几个不一定，从后往前数才不会变：键的最后两个轴、分数的最后一个轴。")
_BX_WRONG = [
    Wrong("不带参数的转置会把三维数组的所有轴倒过来（批量轴也被换到了最后）：打分时只交换键的最后两个轴。",
          _bx_wrong(scores=lambda Q, K: Q @ K.T)),
    Wrong("转置写成了固定的轴顺序（0, 2, 1）：它只适用于恰好三维的数组。" + _FROM_FRONT,
          _bx_wrong(scores=lambda Q, K: Q @ np.transpose(K, (0, 2, 1)))),
    Wrong("交换的是第 1、2 个轴（从前往后数）。" + _FROM_FRONT,
          _bx_wrong(scores=lambda Q, K: Q @ np.swapaxes(K, 1, 2))),
    Wrong("softmax 的轴写成了第 2 个轴（从前往后数）。" + _FROM_FRONT, _bx_wrong(axis=lambda ndim: 2)),
    Wrong("不同句子被混在了一起：第 b 个句子的查询只能和第 b 个句子的键打分，批量轴不能被求和或交叉组合。",
          _bx_wrong(scores=lambda Q, K: np.einsum("bqd,ckd->bqk", Q, K))),
    Wrong("键和值应当来自被查询的序列 X_kv，你用的是提问的序列 X_q（那是自注意力）。",
          _bx_wrong(keys_from_queries=True)),
    Wrong("值应当和键一样来自被查询的序列 X_kv：你用提问的序列 X_q 算了值，于是权重有 T_kv 列，值却有 T_q 行。",
          _bx_wrong(values_from_queries=True)),
    Wrong("投影矩阵不用转置：W_Q、W_K 的形状是 (d_model, d_k)，W_V 是 (d_model, d_v)，"
          "形状 (…, d_model) 的输入直接右乘它们，就得到宽 d_k（或 d_v）的查询、键和值。",
          _bx_wrong(transposed_weights=True)),
    Wrong("softmax 沿的是查询轴：每个查询对它的所有键归一化，应沿最后一个轴（键）。",
          _bx_wrong(axis=-2)),
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
    Wrong("取指数之前没有减去最大值：分数上千的那对句子让 exp 溢出成 inf，inf/inf 得到 NaN。"
          "每个查询先减去它自己那一行分数的最大值（2.6 节的稳定 softmax），结果不变。", _bx_wrong(no_max=True)),
    Wrong("你返回的是注意力权重：还差最后一步，用权重对值加权求和。",
          _bx_wrong(weights=True)),
    Wrong(_FLAT, _bx_wrong(flat="max")),
    Wrong(_FLAT, _bx_wrong(flat="sum")),
]


@float_safe
def check_batched_cross_attention(fn) -> CheckResult:
    """Check ``fn(X_q, X_kv, W_Q, W_K, W_V) -> output`` of shape (..., T_q, d_v): numpy only, no Python loop.

    ``X_q`` has shape (..., T_q, d_model), ``X_kv`` (..., T_kv, d_model) with the same leading batch axes (none,
    one or two of them), ``W_Q``/``W_K`` (d_model, d_k), ``W_V`` (d_model, d_v): cross-attention for every pair
    of sequences at once. A loop over the batch (``for``, a comprehension, ``map``) is refused: the task is the
    batched transpose and the softmax along the last axis, counted from the end.
    """
    rng = np.random.default_rng(20260271)

    def draw(lead, T_q, T_kv, d_model, d_k, d_v, dtype=float):
        return tuple(a.astype(dtype) for a in (rng.normal(size=(*lead, T_q, d_model)),
                                                rng.normal(size=(*lead, T_kv, d_model)),
                                                rng.normal(size=(d_model, d_k)), rng.normal(size=(d_model, d_k)),
                                                rng.normal(size=(d_model, d_v))))

    a1 = draw((2,), 3, 5, 4, 2, 3)
    a2 = draw((), 3, 5, 4, 2, 3)                          # no batch axis: a bare transpose is right here
    a3 = draw((2, 3), 2, 4, 5, 3, 2)                      # two batch axes, e.g. (groups, B, T, d)
    a4 = draw((3,), 4, 3, 6, 3, 5)                        # B = d_k = T_kv: some wrong transposes run silently
    loud = list(draw((2,), 2, 4, 4, 3, 2))
    loud[3] = loud[2]                                     # W_K = W_Q: a query parallel to a key scores high
    loud[0][0] = 1000.0 * loud[1][0, :2]                  # sentence 0: scores in the thousands; sentence 1: a few units
    a6 = draw((2,), 3, 6, 8, 16, 2)
    a7 = draw((1,), 1, 4, 3, 3, 2)
    a8 = draw((2, 2), 3, 4, 5, 4, 3, dtype=np.float32)
    cases = [
        Case("B=2 对句子，T_q=3，T_kv=5，d_k=2，d_v=3", a1, _batched_cross_ref(*a1),
             "每个句子对各算各的：查询来自 X_q，键和值来自 X_kv；分数的形状是 (B, T_q, T_kv)，输出是 (B, T_q, d_v)。"),
        Case("没有批量轴：一对二维的序列", a2, _batched_cross_ref(*a2),
             "没有批量轴时，同一个函数也要能算：每一步都只作用在最后两个轴（或最后一个轴）上，就与前面有几个轴无关。"),
        Case("两个批量轴：形状 (2, 3, T, d_model)", a3, _batched_cross_ref(*a3),
             "前面有两个批量轴时，矩阵乘法照样对它们逐个配对；交换键的最后两个轴，softmax 沿最后一个轴。"),
        Case("B = d_k = T_kv = 3", a4, _batched_cross_ref(*a4),
             "形状凑巧相同时，错的转置或错的轴也能运行：只交换键的最后两个轴，softmax 沿最后一个轴。"),
        Case("一对句子的分数很大、另一对很小", tuple(loud), _batched_cross_ref(*loud),
             "取指数之前，每个查询减去它自己那一行分数的最大值，而不是整个批量的最大值。"),
        Case("d_k = 16，d_v = 2", a6, _batched_cross_ref(*a6), "缩放用键的宽度 d_k 的平方根。"),
        Case("只有 1 对句子、1 个查询", a7, _batched_cross_ref(*a7),
             "B=1、T_q=1 时输出形状是 (1, 1, d_v)：不要去掉长度为 1 的轴。"),
        Case("float32 输入，两个批量轴", a8, _batched_cross_ref(*a8), "float32 输入按 float32 的精度比较；先检查形状和轴。"),
    ]
    return run_diagnosed("check_batched_cross_attention", fn, cases, wrong=_BX_WRONG, numpy_only=True, no_loops=True,
                         atol=1e-5, rtol=1e-4)


# ---- 2.7 exercise 2: which shapes of a cross-attention head fit together (issue 30) ------------------------

_NO_FIT = np.array([-1.0, -1.0])     # what "None" (the shapes do not fit) is compared as


def _shape_ref(x_q, x_kv, w_q, w_k, w_v):
    """The output shape (T_q, d_v) of cross-attention with these shapes, or None when a product cannot be formed."""
    (T_q, d_q), (_, d_kv) = x_q, x_kv
    if w_q[0] != d_q or w_k[0] != d_kv or w_v[0] != d_kv or w_q[1] != w_k[1]:
        return None
    return (T_q, w_v[1])


def _as_compared(fn):
    """The learner's answer as the check compares it: None becomes ``_NO_FIT``, anything else is left as it is."""
    @functools.wraps(fn)
    def compared(*args):
        got = fn(*args)
        return _NO_FIT if got is None else got
    return compared


def _fits_except(broken):
    """A learner's rule that gets the fit right except for ``broken(x_q, x_kv, w_q, w_k, w_v) -> answer or ...``."""
    def fn(x_q, x_kv, w_q, w_k, w_v):
        got = broken(x_q, x_kv, w_q, w_k, w_v)
        return _shape_ref(x_q, x_kv, w_q, w_k, w_v) if got is Ellipsis else got
    return _as_compared(fn)


def _out_as(shape_of):
    """The right fit test, but the output shape ``shape_of(...)`` returned when the shapes fit."""
    return _fits_except(lambda *a: None if _shape_ref(*a) is None else shape_of(*a))


_SH_WRONG = [
    Wrong("输出的宽度来自 V：W_V 有几列，输出就有几列（d_v），不是 d_k。", _out_as(lambda xq, xkv, wq, wk, wv: (xq[0], wq[1]))),
    Wrong("输出的行数跟着查询走：每个查询得到一行，所以是 T_q，不是键和值的个数 T_kv。",
          _out_as(lambda xq, xkv, wq, wk, wv: (xkv[0], wv[1]))),
    Wrong("你返回的是分数（权重）矩阵的形状 (T_q, T_kv)：还差乘 V 这一步，输出的宽度是 d_v。",
          _out_as(lambda xq, xkv, wq, wk, wv: (xq[0], xkv[0]))),
    Wrong("d_v 不必等于 d_k：W_V 的列数只决定输出的宽度，它不参与打分。",
          _fits_except(lambda xq, xkv, wq, wk, wv: None if wv[1] != wk[1] else ...)),
    Wrong("交叉注意力里查询的个数 T_q 和键的个数 T_kv 可以不同：分数矩阵本来就是 T_q × T_kv。",
          _fits_except(lambda xq, xkv, wq, wk, wv: None if xq[0] != xkv[0] else ...)),
    Wrong("两个序列的宽度可以不同：W_Q 只读 X_q，W_K、W_V 只读 X_kv，各自的行数对上自己读的序列即可。",
          _fits_except(lambda xq, xkv, wq, wk, wv: None if xq[1] != xkv[1] else ...)),
    Wrong("W_K、W_V 作用在被查询的序列 X_kv 上，它们的行数要等于 X_kv 的宽度：你拿 X_q 的宽度去比了（或把两个序列的角色对调了）。",
          _as_compared(lambda xq, xkv, wq, wk, wv: _shape_ref(xq, xq, wq, wk, wv))),
    Wrong("W_Q 作用在提问的序列 X_q 上，它的行数要等于 X_q 的宽度：你拿 X_kv 的宽度去比了。",
          _as_compared(lambda xq, xkv, wq, wk, wv: _shape_ref((xq[0], xkv[1]), xkv, wq, wk, wv))),
    Wrong("W_Q 和 W_K 的列数必须相同（都是 d_k）：分数是查询与键的点积，两个向量得一样长。",
          _fits_except(lambda xq, xkv, wq, wk, wv: (xq[0], wv[1]) if wq[0] == xq[1] and wk[0] == wv[0] == xkv[1] else ...)),
    Wrong("投影矩阵的形状是（输入宽度, 输出宽度）：它的行数要对上它读的序列的宽度，列数才是 d_k 或 d_v。",
          _as_compared(lambda xq, xkv, wq, wk, wv: _shape_ref(xq, xkv, wq[::-1], wk[::-1], wv[::-1]))),
    Wrong("你没有检查任何维度：有几组形状根本乘不起来（内侧的维度不相等），这时要返回 None。",
          _as_compared(lambda xq, xkv, wq, wk, wv: (xq[0], wv[1]))),
]


def _none_for_every_case(fn, cases) -> bool:
    """True if ``fn`` returns None for every case (a function that forgets ``return``). Never raises."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
        return all(fn(*case.args) is None for case in cases)
    return False


@float_safe
def check_cross_attention_shape(fn) -> CheckResult:
    """Check ``fn(x_q, x_kv, w_q, w_k, w_v) -> (T_q, d_v) or None``: shapes in, the output's shape out.

    The arguments are the shapes (pairs of ints) of X_q (T_q, d_q), X_kv (T_kv, d_kv), W_Q, W_K and W_V of one
    cross-attention head. softmax(Q K^T / sqrt(d_k)) V with Q = X_q W_Q, K = X_kv W_K, V = X_kv W_V can be
    computed iff W_Q has d_q rows, W_K and W_V have d_kv rows and W_Q, W_K have the same number of columns;
    then the output has shape (T_q, d_v), else the answer is None. A tuple, a list or an array of the two
    numbers is accepted.
    """
    rows = [
        ("自注意力：X (5, 8)，W_Q (8, 3)，W_K (8, 3)，W_V (8, 4)", ((5, 8), (5, 8), (8, 3), (8, 3), (8, 4))),
        ("X_q (3, 6)，X_kv (7, 10)，W_Q (6, 2)，W_K (10, 2)，W_V (10, 5)", ((3, 6), (7, 10), (6, 2), (10, 2), (10, 5))),
        ("X_q (3, 6)，X_kv (7, 10)，W_Q (6, 2)，W_K (6, 2)，W_V (10, 5)", ((3, 6), (7, 10), (6, 2), (6, 2), (10, 5))),
        ("X_q (4, 6)，X_kv (2, 6)，W_Q (6, 3)，W_K (6, 2)，W_V (6, 3)", ((4, 6), (2, 6), (6, 3), (6, 2), (6, 3))),
        ("X_q (1, 4)，X_kv (9, 4)，W_Q (4, 6)，W_K (4, 6)，W_V (4, 1)", ((1, 4), (9, 4), (4, 6), (4, 6), (4, 1))),
        ("X_q (3, 6)，X_kv (7, 10)，W_Q (6, 2)，W_K (10, 2)，W_V (6, 5)", ((3, 6), (7, 10), (6, 2), (10, 2), (6, 5))),
        ("X_q (3, 6)，X_kv (7, 10)，W_Q (10, 2)，W_K (10, 2)，W_V (10, 5)", ((3, 6), (7, 10), (10, 2), (10, 2), (10, 5))),
        ("X_q (3, 6)，X_kv (7, 10)，W_Q (6, 2)，W_K (6, 2)，W_V (6, 5)", ((3, 6), (7, 10), (6, 2), (6, 2), (6, 5))),
        ("X_q (2, 3)，X_kv (6, 5)，W_Q (3, 4)，W_K (5, 4)，W_V (5, 4)", ((2, 3), (6, 5), (3, 4), (5, 4), (5, 4))),
        ("X (5, 8)，W_Q (3, 8)，W_K (3, 8)，W_V (4, 8)", ((5, 8), (5, 8), (3, 8), (3, 8), (4, 8))),
    ]
    hint = ("照第 1 节的表一步一步写形状：Q = X_q W_Q、K = X_kv W_K、V = X_kv W_V、S = QKᵀ、输出 = AV。"
            "每一次矩阵乘法，左边的列数都必须等于右边的行数；全部对得上才返回输出的形状，否则返回 None。")
    cases = [Case(label, args, _NO_FIT if _shape_ref(*args) is None else np.array(_shape_ref(*args), dtype=float), hint)
             for label, args in rows]
    name = "check_cross_attention_shape"
    if not callable(fn):
        return run_diagnosed(name, fn, cases)
    results: list = []

    @functools.wraps(fn)
    def recorded(*args):
        got = fn(*args)
        results.append(got)
        return _NO_FIT if got is None else got

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed(name, recorded, cases, wrong=_SH_WRONG, learner=fn, atol=0.0, rtol=0.0,
                               dtype_aware=False)
    out, k = buf.getvalue(), result.n_passed
    # None is compared as a pair of -1: where it is the mistake, say so in words instead of "2 numbers are wrong"
    said, fits = None, k < len(cases) and _shape_ref(*cases[k].args) is not None
    if not result.passed and k < len(results) and k < len(cases) and "数值不对" in result.message:
        said = ("这组形状拼得上，你却返回了 None" if fits and results[k] is None else
                "这组形状拼不上（有一次矩阵乘法的内侧维度不相等），你却返回了一个形状" if not fits else None)
    elif not result.passed and k < len(results) and k < len(cases) and _shape_ref(*cases[k].args) is None:
        # not a pair where None was due (False, (), "None", 0): the comparison would speak of a hidden pair of -1
        with contextlib.suppress(Exception):
            if results[k] is not None and np.shape(results[k]) != (2,):
                said = ("这组形状拼不上（有一次矩阵乘法的内侧维度不相等），这时要返回 None（Python 的空值），"
                        f"你返回的是 {repr(results[k])[:40]}")
    if said is None:
        print(out, end="")
        return result
    hint = result.message.partition("\n")[2]
    if results[k] is None and fits and _none_for_every_case(fn, cases):
        # None for every pair of shapes: a forgotten return, not a hard-coded answer
        hint = ("   提示（hint）：你的函数对每一组形状都返回 None：是不是忘了写 `return`？"
                "只有形状拼不上时才返回 None，拼得上时要把输出的形状 return 回来。")
    msg = f"{FAIL} {name}：第 {k + 1}/{len(cases)} 个用例（{cases[k].label}）：{said}。" + (f"\n{hint}" if hint else "")
    print(out.replace(result.message, msg), end="" if out.endswith("\n") else "\n")
    return CheckResult(name, False, len(cases), k, msg)
