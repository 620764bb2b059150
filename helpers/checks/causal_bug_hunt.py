"""Self-check for the 2.10 bug hunt: a causal attention whose mask is off by one.

``from helpers.checks import check_fixed_causal_attention``

The notebook shows ``buggy_causal_attention(Q, K, V)``, which builds its mask with
``np.triu(..., k=0)`` and so hides the diagonal too (a token cannot see itself; the first
row is masked entirely, and adding -1e9 to every entry of a float64 row changes nothing, so
token 1 silently gets its unmasked weights: it sees the whole future).
The learner writes ``fixed_causal_attention(Q, K, V)``. The check compares it with an
independent reference on hidden cases and names the mistake when the output still matches
the original bug or another classic one (mask after softmax, no mask, no scaling). A case with
one row far below the others (shared with ``check_causal_attention``) rejects masking after
softmax even with renormalisation, and the global instead of the per-row maximum.
"""

from __future__ import annotations

import math

import numpy as np

from .core import Case, CheckResult, float_safe, run_check
from .masking import far_apart_case

__all__ = ["check_fixed_causal_attention", "buggy_causal_attention"]


def _softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def buggy_causal_attention(Q, K, V):
    """The bug-hunt exhibit (shape (T, d_k), (T, d_k), (T, d_v) -> (T, d_v)): its mask is off by one."""
    T = Q.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    S = S + np.triu(np.full((T, T), -1e9), k=0)
    return _softmax(S) @ V


def _reference(Q, K, V):
    T, d_k = Q.shape
    out = np.zeros((T, V.shape[1]))
    for i in range(T):                                   # query i sees keys 0..i, nothing else
        s = Q[i] @ K[: i + 1].T / math.sqrt(d_k)
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ V[: i + 1]
    return out


def _variant(Q, K, V, kind):
    T = Q.shape[0]
    S = Q @ K.T / (1.0 if kind == "no scale" else math.sqrt(Q.shape[-1]))
    future = np.triu(np.ones((T, T), bool), k=1)
    if kind == "original bug":
        return buggy_causal_attention(Q, K, V)
    if kind == "after softmax":
        return np.where(future, 0.0, _softmax(S)) @ V
    if kind == "no mask":
        return _softmax(S) @ V
    return _softmax(np.where(future, -np.inf, S)) @ V


_DIAGNOSES = [
    ("original bug", "和原来那个有 bug 的函数输出一样：掩码还是错了一位——对角线（每个词自己）必须留着，只挡 j > i。"),
    ("after softmax", "像在 softmax 之后才把未来清零：行和不再是 1。掩码要加在 softmax 之前。"),
    ("no mask", "像完全没有掩码：每个词又能看见未来了。"),
    ("no scale", "像漏掉了 1/sqrt(d_k) 的缩放。"),
]


def _diagnose(fn):
    g = np.random.default_rng(5)
    args = tuple(g.normal(size=(5, d)) for d in (3, 3, 2))
    try:
        with np.errstate(all="ignore"):
            got = np.asarray(fn(*args), dtype=float)
    except Exception:
        return None
    for kind, text in _DIAGNOSES:
        if got.shape == (5, 2) and np.allclose(got, _variant(*args, kind), rtol=1e-6, atol=1e-8):
            return text
    return None


@float_safe
def check_fixed_causal_attention(fn) -> CheckResult:
    """Check ``fn(Q, K, V) -> (T, d_v)``: causal scaled dot-product attention (the bug fixed).

    Q, K have shape (T, d_k), V has shape (T, d_v). Prints a verdict (in Chinese); truthy on success.
    """
    g = np.random.default_rng(20260210)
    one = tuple(g.normal(size=(1, d)) for d in (3, 3, 2))
    small = tuple(g.normal(size=(4, d)) for d in (3, 3, 2))
    wide = tuple(g.normal(size=(7, d)) for d in (16, 16, 5))
    far = far_apart_case()
    cases = [
        Case("只有一个词 (T = 1)", one, _reference(*one),
             "一个词只能看见它自己，所以输出就是它自己的值向量。它能看见自己吗？"),
        Case("T = 4, d_k = 3, d_v = 2", small, _reference(*small),
             "看第 1 行：第 1 个词应该把全部权重给谁？再看掩码里对角线上的数。"),
        Case("T = 7, d_k = 16, d_v = 5", wide, _reference(*wide),
             "每行的权重只能落在这个词和它之前的词上，并且和为 1。"),
        Case("一行远低于其他行，且未来的键分数很高", far, _reference(*far),
             "掩码要在 softmax 之前加到分数上：先 softmax 再清零（即使再重新归一化）会在这一行得到 0/0；"
             "另外 softmax 要减去每一行自己的最大值，而不是整个矩阵的最大值。"),
    ]
    result = run_check("check_fixed_causal_attention", fn, cases, atol=1e-8, rtol=1e-6)
    if result or not callable(fn) or "NotImplementedError" in result.message:
        return result
    diagnosis = _diagnose(fn)
    if diagnosis is None:
        return result
    line = f"   诊断：在一个额外的小输入上，你的输出{diagnosis}"
    print(line)
    return CheckResult(result.name, False, result.n_cases, result.n_passed, result.message + "\n" + line)
