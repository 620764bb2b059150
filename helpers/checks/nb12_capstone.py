"""Self-checks for the chapter's capstone (2.12).

``from helpers.checks import check_capstone`` (part 2, the learner's own test, is
:mod:`helpers.checks.nb12_capstone_test`)

Part 1, :func:`check_capstone`: the learner writes batched, multi-head self-attention with a
prefix-LM mask from scratch, numpy only (the first ``n_prefix`` tokens see one another, as in the
bidirectional encoder of 2.13; every later token sees the tokens up to itself, as in 2.10)::

    my_causal_mha(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix) -> output
    X (B, T, d_model); W_Q, W_K (d_model, h*d_k); W_V (d_model, h*d_v); W_O (h*d_v, d_out)
    output (B, T, d_out); query i may attend to key j iff j <= i or j < n_prefix (from 0)

The check first refuses a function that reaches into ``helpers`` (a static scan of the
names its code loads, its closure, its defaults and, recursively, the learner's own
functions it calls; then a run with every ``helpers`` function replaced by a tripwire
that records the call). Then it compares with an independent reference on hidden cases
(one token, no prefix, one head, d_v != d_k, huge scores, batches, d_out != d_model, the whole
sequence as the prefix) and, on
failure, names the classic mistake the output matches. No expected value is printed.
"""

from __future__ import annotations

import copy
import io
import math
from contextlib import redirect_stdout

import numpy as np

import helpers as H

from .core import FAIL, Case, CheckResult, float_safe, lenient_softmax, run_check
from .numpy_only import helpers_references, helpers_tripwire

__all__ = ["check_capstone"]


# ---- reference (independent of helpers.attention and helpers.heads: loops over batch and heads) ---

def _visible(T, n_prefix):
    """(T, T) bool: query i may attend to key j iff j <= i or j < n_prefix."""
    i, j = np.indices((T, T))
    return (j <= i) | (j < n_prefix)


def _reference(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    B, T, _ = X.shape
    d_k, d_v = W_Q.shape[1] // n_heads, W_V.shape[1] // n_heads
    out = np.zeros((B, T, n_heads * d_v))
    for b in range(B):
        for h in range(n_heads):
            q = X[b] @ W_Q[:, h * d_k:(h + 1) * d_k]
            k = X[b] @ W_K[:, h * d_k:(h + 1) * d_k]
            v = X[b] @ W_V[:, h * d_v:(h + 1) * d_v]
            for i in range(T):
                keys = [j for j in range(T) if j <= i or j < n_prefix]        # the past, and the whole prefix
                s = np.array([q[i] @ k[j] / math.sqrt(d_k) for j in keys])
                out[b, i, h * d_v:(h + 1) * d_v] = H.softmax(s) @ v[keys]
    return out @ W_O


def _inputs(rng, B, T, d_model, h, d_k, d_v, d_out, n_prefix, scale=1.0):
    X = rng.normal(size=(B, T, d_model)) * scale
    W_Q, W_K = (rng.normal(size=(d_model, h * d_k)) / math.sqrt(d_model) for _ in range(2))
    W_V = rng.normal(size=(d_model, h * d_v)) / math.sqrt(d_model)
    W_O = rng.normal(size=(h * d_v, d_out)) / math.sqrt(h * d_v)
    return (X, W_Q, W_K, W_V, W_O, h, n_prefix)


_ORDER = ("按这个顺序检查：先用三个权重矩阵分别投影出查询、键、值；把最后一维切成 n_heads 段，头这一维放到 T 前面；"
          "每个头内，查询与键的点积除以每头宽度 d_k 的平方根；softmax 之前挡住看不见的键（在查询之后、又不在前缀里的键）；"
          "对每个查询的那一行（各个键）做 softmax；用权重对值加权求和；把各头按顺序拼回去；最后乘输出矩阵。")


def _cases() -> list[Case]:
    rng = np.random.default_rng(20260212)
    one = _inputs(rng, 1, 1, 4, 2, 2, 2, 4, 0)
    causal = _inputs(rng, 2, 5, 6, 2, 3, 3, 6, 0)
    basic = _inputs(rng, 2, 5, 6, 2, 3, 3, 6, 2)
    single = _inputs(rng, 2, 5, 4, 1, 4, 4, 4, 3)
    dv = _inputs(rng, 2, 5, 6, 3, 2, 4, 6, 2)
    huge = _inputs(rng, 2, 5, 6, 2, 3, 3, 6, 2, scale=60.0)
    big = _inputs(rng, 3, 7, 8, 4, 2, 3, 5, 3)
    whole = _inputs(rng, 2, 4, 6, 2, 3, 3, 6, 4)
    return [
        Case("一个序列、一个词 (B = 1, T = 1)", one, _reference(*one),
             "每个词都能看见自己：掩码保留对角线（键不在查询之后就允许），所以只有一个词时它的权重是 1，每个头的输出就是它自己的值向量；"
             "如果这一点没问题，再检查各头拼回去的顺序（第 1 个头在最前面）。"),
        Case("没有前缀 (n_prefix = 0)：就是因果注意力", causal, _reference(*causal),
             "没有前缀时就是 2.10 的因果注意力：每个词看见它自己和它前面的词。" + _ORDER),
        Case("B = 2, T = 5, 2 个头，前缀 2 个词", basic, _reference(*basic),
             "前缀里的词互相都看得见（前缀里靠前的词也看得见前缀里靠后的词）；前缀之后的词照常只看自己和前面的词。"),
        Case("只有 1 个头 (n_heads = 1)，前缀 3 个词", single, _reference(*single),
             "一个头时，结果就是带前缀掩码的单头注意力再乘 W_O。"),
        Case("3 个头，每头 d_v = 4 不等于 d_k = 2", dv, _reference(*dv),
             "查询/键的每头宽度由它们的投影矩阵的列数和头数决定，值的每头宽度由值的投影矩阵决定，两者可以不同；"
             "缩放用查询/键的每头宽度 d_k。"),
        Case("分数很大（直接取指数会上溢）", huge, _reference(*huge), _HUGE_HINT),
        Case("B = 3, T = 7, 4 个头, d_out = 5 不等于 d_model", big, _reference(*big),
             "输出宽度由输出矩阵的列数决定；转置键时只交换最后两个轴（二维时的那种转置会把所有轴都倒过来，"
             "批量和头的轴也被打乱）。"),
        Case("前缀就是整个序列 (n_prefix = T)", whole, _reference(*whole),
             "整个序列都是前缀时，每个词都看得见所有的词：这就是 2.13 那种双向编码器的注意力，没有任何键被挡住。"),
    ]


# ---- diagnosis: what a failing function looks like ---------------------------------------------

def _variant(X, W_Q, W_K, W_V, W_O, h, n_prefix, *, scale="head", axis=-1, mask="causal", after=False, fill=-np.inf,
             split="right", project=True, prefix="right"):
    B, T, _ = X.shape
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V

    def heads(Y):
        d = Y.shape[-1] // h
        if split in ("right", "merge"):
            return Y.reshape(B, T, h, d).transpose(0, 2, 1, 3)
        if split == "strided":                             # head i takes every h-th column
            return Y.reshape(B, T, d, h).transpose(0, 3, 1, 2)
        return Y.reshape(B, h, T, d)                       # reshape without moving the head axis

    Qh, Kh, Vh = heads(Q), heads(K), heads(V)
    div = {"head": math.sqrt(Qh.shape[-1]), "total": math.sqrt(Q.shape[-1]), "none": 1.0, "d_k": Qh.shape[-1]}[scale]
    S = Qh @ np.swapaxes(Kh, -1, -2) / div
    i, j = np.indices((T, T))
    P = {"right": n_prefix, "ignored": 0, "one more": n_prefix + 1}.get(prefix, n_prefix)
    seen = (j < P) | ((i < P) if prefix == "sees all" else False)     # what the prefix adds to the causal mask
    blocked = {"causal": (j > i) & ~seen, "diagonal too": (j >= i) & ~seen,
               "anti": (j < i) & ~seen, "none": np.zeros((T, T), bool)}[mask]
    if after == "renormalise":                              # softmax over every key, zero the future, divide by the new sum
        A = np.where(blocked, 0.0, lenient_softmax(S, axis))
        with np.errstate(invalid="ignore", divide="ignore"):
            A = A / A.sum(axis=axis, keepdims=True)
    elif after:
        A = np.where(blocked, 0.0, lenient_softmax(S, axis))
    else:
        A = lenient_softmax(np.where(blocked, fill, S), axis)
    with np.errstate(invalid="ignore"):
        out = A @ Vh
    if split in ("right", "strided", "split only"):        # "merge": (B, h, T, d) read as (B, T, h*d), heads not moved back
        out = out.transpose(0, 2, 1, 3)
    return out.reshape(B, T, -1) @ W_O if project else out.reshape(B, T, -1)


_OFF_BY_ONE = "像一个连对角线也挡住的掩码（错了一位）：每个词必须能看见自己，只有对角线以上（键在查询之后）才是未来。"

_DIAGNOSES = [
    (dict(prefix="ignored"), "像普通的因果注意力、没有前缀：前缀里的词要互相看得见，靠前的词也看得见前缀里靠后的词。"),
    (dict(prefix="sees all"), "像让前缀里的词看见了整个序列：前缀里的词只互相看得见，前缀之后的词对它们仍是未来。"),
    (dict(prefix="one more"), "像前缀多算了一个词：前缀是前 n_prefix 个词（代码里下标 0 到 n_prefix − 1）。"),
    (dict(scale="none"), "像没有缩放的注意力：分数要除以每个头的宽度 d_k 的平方根。"),
    (dict(scale="total"), "像用所有头的总宽度做缩放：每个头只看自己的 d_k 维，缩放也只用每头宽度 d_k 的平方根。"),
    (dict(scale="d_k"), "像除以了每头宽度 d_k 本身：要除以的是它的平方根（分数的标准差是 √d_k，2.5 节）。"),
    (dict(project=False), "像漏了最后的输出投影：各头拼接之后还要乘输出矩阵 W_O。"),
    (dict(axis=-2), "像沿列（倒数第二个轴）做的 softmax：每个查询那一行（对键）要和为 1，应沿最后一个轴归一化。"),
    (dict(after=True), "像在 softmax 之后才掩码（把未来的权重清零）：那样每行不再和为 1。要在 softmax 之前把掩码加到分数上。"),
    (dict(mask="diagonal too"), _OFF_BY_ONE),
    (dict(mask="diagonal too", fill=-1e9), _OFF_BY_ONE),
    (dict(mask="none"), "像完全没有掩码的注意力：前缀之后的词仍然看得见未来。"),
    (dict(mask="anti"), "像方向反了的掩码（看见未来、看不见过去）：要屏蔽的是对角线以上（键在查询之后）的部分。"),
    (dict(split="wrong"), "像直接把 (B, T, h*d) 重排成 (B, h, T, d) 的切头方式：要先切成 (B, T, h, d)，再把头这一维挪到 T 前面。"),
    (dict(split="split only"), "像切头时直接把 (B, T, h*d) 重排成 (B, h, T, d)（拼回时倒是把头这一维挪回了 T 后面）："
                               "要先切成 (B, T, h, d)，再把头这一维挪到 T 前面。"),
    (dict(split="strided"), "像每隔 n_heads 列取一列的切头方式：第 i 个头是第 i 段连续的列。"),
    (dict(split="merge"), "像拼回各头时没有把头这一维挪回 T 后面：(B, h, T, d) 要先变回 (B, T, h, d)，每个词一行地拼起来，再乘输出矩阵。"),
]


_HUGE_HINT = ("分数上百时指数函数会上溢成 inf：取指数之前先减去每一行自己的最大值（对一行加同一个常数，softmax 不变）。")
_RENORMALISED = ("你先对每一行的全部键（包括未来的键）做 softmax，再把未来的权重清零、重新归一化。分数小时这和正确答案相等；"
                 "分数很大时，一行的最大值常常落在未来的键上，减去它之后，看得见的键的指数全部下溢成 0，重新归一化就成了 0/0。"
                 "未来的键根本不该参加 softmax：在取指数之前就把它们挡住，这样减去的也是看得见的键里的最大值。")


def _huge_diagnosis(fn, case: Case) -> str | None:
    """The real mistake behind a failure on the huge-scores case, when it is not the missing row max: a softmax over
    every key (future ones too, row max subtracted), then the future zeroed and the rows renormalised."""
    try:
        with np.errstate(all="ignore"), redirect_stdout(io.StringIO()):
            got = np.asarray(fn(*copy.deepcopy(case.args)), dtype=float)
    except Exception:
        return None
    wrong = _variant(*case.args, after="renormalise")
    if got.shape == wrong.shape and np.allclose(got, wrong, rtol=1e-6, atol=1e-8, equal_nan=True):
        return _RENORMALISED
    return None


def _diagnose(fn) -> str | None:
    args = _inputs(np.random.default_rng(12), 2, 5, 6, 2, 3, 2, 6, 2)
    try:
        with np.errstate(all="ignore"):
            got = np.asarray(fn(*args), dtype=float)
    except Exception:  # the case message already reported the exception
        return None
    for kwargs, text in _DIAGNOSES:
        wrong = _variant(*args, **kwargs)
        if got.shape == wrong.shape and np.allclose(got, wrong, rtol=1e-6, atol=1e-8, equal_nan=True):
            return text
    return None


def _refuse(name: str, what: str) -> CheckResult:
    msg = (f"{FAIL} {name}：你的函数用到了 helpers（{what}）。综合练习要求只用 numpy 从零实现："
           f"把 helpers 的调用换成你自己写的 numpy 代码（需要 softmax 就自己写一个）。")
    print(msg)
    return CheckResult(name, False, 0, 0, msg)


@float_safe
def check_capstone(fn) -> CheckResult:
    """Check ``fn(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix) -> output``: batched multi-head self-attention with a
    prefix-LM mask (query i sees key j iff j <= i or j < n_prefix; n_prefix = 0 is causal, n_prefix = T bidirectional).

    Parameters of ``fn``
    --------------------
    X : numpy.ndarray, shape (B, T, d_model)
    W_Q, W_K : numpy.ndarray, shape (d_model, h * d_k)
    W_V : numpy.ndarray, shape (d_model, h * d_v)
    W_O : numpy.ndarray, shape (h * d_v, d_out)
    n_heads : int, h
    n_prefix : int, 0 <= n_prefix <= T
    returns : array, shape (B, T, d_out)

    Refuses (falsy result, Chinese message) a function that uses ``helpers``. Otherwise prints
    one verdict line (on failure a hint, and possibly a diagnosis of the classic mistake).
    """
    name = "check_capstone"
    if callable(fn):
        refs = helpers_references(fn)
        if refs:
            return _refuse(name, "通过 " + ", ".join(refs))
    cases = _cases()
    calls: list = []
    buf = io.StringIO()
    with helpers_tripwire(calls), redirect_stdout(buf):
        result = run_check(name, fn, cases, atol=1e-8, rtol=1e-6)
    if calls:
        return _refuse(name, "运行时调用了 " + ", ".join(sorted(set(calls))))
    printed = buf.getvalue()
    k = result.n_passed
    if not result and k < len(cases) and cases[k].hint == _HUGE_HINT and _HUGE_HINT in result.message:
        real = _huge_diagnosis(fn, cases[k])
        if real is not None:    # the learner did subtract the row max: name what they did instead
            msg = result.message.replace(_HUGE_HINT, real)
            printed = printed.replace(result.message, msg)
            result = CheckResult(result.name, False, result.n_cases, result.n_passed, msg)
    print(printed, end="")
    if result or not callable(fn) or (result.n_passed == 0 and "NotImplementedError" in result.message) \
            or "raise NotImplementedError" in result.message:
        return result
    if any(w in result.message for w in ("matmul", "broadcast", "reshape", "shape")):
        line = ("   形状提示：输入是批量的 (B, T, d_model)，切头后是 (B, h, T, d)。转置键时只交换最后两个轴；"
                "二维矩阵的那种转置会把所有轴倒过来。")
        print(line)
        return CheckResult(result.name, False, result.n_cases, result.n_passed, result.message + "\n" + line)
    diagnosis = _diagnose(fn)
    if diagnosis is None or diagnosis in result.message:
        return result
    line = f"   诊断：在一个额外的小输入上，你的输出{diagnosis}"
    print(line)
    return CheckResult(result.name, False, result.n_cases, result.n_passed, result.message + "\n" + line)
