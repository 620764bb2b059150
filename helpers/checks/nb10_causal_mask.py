"""Self-checks for 2.10 (the causal mask): the bug hunt (a mask off by
one), the left-padded causal mask (transfer) and the mask of one decoding step with a key cache (issue 20).

The bug-hunt exhibit ``buggy_causal_attention(Q, K, V)`` builds its mask with ``np.triu(..., k=0)`` and so
hides the diagonal too (a token cannot see itself; the first row is masked entirely, and adding -1e9 to
every entry of a float64 row changes nothing, so token 1 silently gets its unmasked weights).
"""

from __future__ import annotations

import math

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_fixed_causal_attention",
           "check_left_padded_causal_mask", "buggy_causal_attention", "far_apart_case", "check_decode_mask"]


def far_apart_case():
    """T = 3, d_k = 2, d_v = 4: query 0's own score is about -1060, its future key scores about +1060,
    and query 2 reaches about +2120. Masking after softmax (even with renormalising) gives 0/0 in row 0,
    and so does subtracting the global instead of the per-row maximum."""
    a = 1500.0
    Q = np.array([[-a, a], [0.3, -0.2], [a, a]])
    K = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    V = np.arange(12.0).reshape(3, 4) / 7.0
    return Q, K, V


def buggy_causal_attention(Q, K, V):
    """The bug-hunt exhibit (shape (T, d_k), (T, d_k), (T, d_v) -> (T, d_v)): its mask is off by one."""
    T = Q.shape[0]
    S = Q @ K.T / np.sqrt(Q.shape[-1])
    S = S + np.triu(np.full((T, T), -1e9), k=0)
    return lenient_softmax(S) @ V


def _reference_by_rows(Q, K, V):
    """Causal attention written row by row (query i sees keys 0..i), independent of the masking helpers."""
    T, d_k = Q.shape
    out = np.zeros((T, V.shape[1]))
    for i in range(T):
        out[i] = H.softmax(Q[i] @ K[: i + 1].T / math.sqrt(d_k)) @ V[: i + 1]
    return out


def _variant(Q, K, V, kind):
    T = Q.shape[0]
    S = Q @ K.T / (1.0 if kind == "no scale" else math.sqrt(Q.shape[-1]))
    future = np.triu(np.ones((T, T), bool), k=1)
    if kind == "original bug":
        return buggy_causal_attention(Q, K, V)
    if kind == "after softmax":
        return np.where(future, 0.0, lenient_softmax(S)) @ V
    if kind == "no mask":
        return lenient_softmax(S) @ V
    if kind == "columns":
        return lenient_softmax(np.where(future, -np.inf, S), axis=0) @ V
    if kind == "past":
        return lenient_softmax(np.where(future.T, -np.inf, S)) @ V
    return lenient_softmax(np.where(future, -np.inf, S)) @ V


_DIAGNOSES = [
    ("original bug", "和原来那个有 bug 的函数输出一样：掩码还是错了一位——对角线（每个词自己）必须留着，只挡 j > i。"),
    ("after softmax", "像在 softmax 之后才把未来清零：行和不再是 1。掩码要加在 softmax 之前。"),
    ("no mask", "像完全没有掩码：每个词又能看见未来了。"),
    ("no scale", "像漏掉了 1/sqrt(d_k) 的缩放。"),
    ("columns", "像沿列做了 softmax：每个查询那一行（对它能看见的键）要和为 1。"),
    ("past", "像挡住了过去、留下了未来：要挡的是对角线以上（j > i），对角线以下是每个词能看见的过去。"),
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
        Case("只有一个词 (T = 1)", one, _reference_by_rows(*one),
             "一个词只能看见它自己，所以输出就是它自己的值向量。它能看见自己吗？"),
        Case("T = 4, d_k = 3, d_v = 2", small, _reference_by_rows(*small),
             "看第 1 行：第 1 个词应该把全部权重给谁？再看掩码里对角线上的数。"),
        Case("T = 7, d_k = 16, d_v = 5", wide, _reference_by_rows(*wide),
             "每行的权重只能落在这个词和它之前的词上，并且和为 1。"),
        Case("一行远低于其他行，且未来的键分数很高", far, _reference_by_rows(*far),
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


def _reference_left_padded(T: int, n_pad: int) -> np.ndarray:
    allowed = np.zeros((T, T), dtype=bool)
    for i in range(T):
        for j in range(T):
            if i < n_pad:
                allowed[i, j] = i == j          # a padding query sees only itself
            else:
                allowed[i, j] = n_pad <= j <= i  # a real token: the real past and itself
    return allowed


def _lp_wrong(build):
    def fn(T, n_pad):
        i, j = np.indices((T, T))
        return build(i, j, n_pad, T)
    return fn


_LP_WRONG = [
    Wrong("填充位置的查询一个键都不许看：这一行整行被屏蔽，softmax 成了 0/0 = NaN。让填充位置的查询只看它自己，之后忽略它的输出。",
          _lp_wrong(lambda i, j, n, T: (i >= n) & (n <= j) & (j <= i))),
    Wrong("填充的键没有挡住：真实的词也看见了它前面的填充位置。真实的词 i 只能看 n_pad ≤ j ≤ i 的键。",
          _lp_wrong(lambda i, j, n, T: j <= i)),
    Wrong("填充位置的查询看见了它前面的填充：练习要它只看它自己（一个键就够，整行不被屏蔽）。",
          _lp_wrong(lambda i, j, n, T: np.where(i < n, j <= i, (n <= j) & (j <= i)))),
    Wrong("因果那一半漏了：真实的词还看见了它后面的词。真实的词 i 只能看 n_pad ≤ j ≤ i 的键。",
          _lp_wrong(lambda i, j, n, T: np.where(i < n, i == j, j >= n))),
    Wrong("行和列对调了：第 i 行是查询 i，第 j 列是键 j；真实的词 i 看的是不在它之后、又不是填充的键。",
          _lp_wrong(lambda i, j, n, T: np.where(j < n, i == j, (n <= i) & (i <= j)))),
    Wrong("填充在左边：是前 n_pad 个位置，不是最后 n_pad 个。",
          _lp_wrong(lambda i, j, n, T: np.where(i >= T - n, i == j, (j < T - n) & (j <= i)))),
    Wrong("这里要的是布尔矩阵（True = 可以看），不是加性掩码（0 / −∞）。",
          _lp_wrong(lambda i, j, n, T: np.where(np.where(i < n, i == j, (n <= j) & (j <= i)), 0.0, -np.inf))),
    Wrong("True 和 False 反了：True 表示可以看，False 表示挡住。",
          _lp_wrong(lambda i, j, n, T: ~np.where(i < n, i == j, (n <= j) & (j <= i)))),
]


@float_safe
def check_left_padded_causal_mask(fn) -> CheckResult:
    """Check a learner's ``fn(T, n_pad) -> allowed``: boolean (T, T) causal mask for a left-padded sequence.

    The first ``n_pad`` positions are padding. A real query i (i >= n_pad) may see the real keys
    n_pad..i; a padding query sees only itself, so that no row is fully masked.
    """
    hint = ("真实 token i 可以看的键 j 满足 n_pad ≤ j ≤ i（既满足因果、又不是填充）；填充位置的查询只看它自己——"
            "一个键都不许看的行会变成 0/0 = NaN。")
    cases = [
        Case("没有填充（T = 4，n_pad = 0）", (4, 0), _reference_left_padded(4, 0), hint),
        Case("T = 5，n_pad = 2", (5, 2), _reference_left_padded(5, 2), hint),
        Case("T = 7，n_pad = 3", (7, 3), _reference_left_padded(7, 3), hint),
        Case("全是填充（T = 3，n_pad = 3）", (3, 3), _reference_left_padded(3, 3), hint),
    ]
    return run_diagnosed("check_left_padded_causal_mask", fn, cases, wrong=_LP_WRONG, atol=0.0, rtol=0.0,
                         result_type="bool array")


# ---- 2.10 exercise that asks for something new (issue 20): the causal mask of a decoding step ---------------


def _reference_decode_mask(T_new: int, T_past: int) -> np.ndarray:
    allowed = np.zeros((T_new, T_past + T_new), dtype=bool)
    for i in range(T_new):                      # new query i sits at absolute position T_past + i
        for j in range(T_past + T_new):
            allowed[i, j] = j <= T_past + i
    return allowed


def _dm_wrong(build):
    def fn(T_new, T_past):
        return build(T_new, T_past, T_past + T_new)
    return fn


_DM_WRONG = [
    Wrong("三角形贴在了左上角：新的查询排在缓存之后，第 1 个新查询在绝对位置 T_past，它已经能看见缓存里的全部键。"
          "把三角形往右挪 T_past 列。",
          _dm_wrong(lambda n, p, t: np.tril(np.ones((n, t), dtype=bool)))),
    Wrong("对角线被挡住了：每个新 token 必须看得见它自己（它的键就在这一步加进缓存）。",
          _dm_wrong(lambda n, p, t: np.tril(np.ones((n, t), dtype=bool), k=p - 1))),
    Wrong("多看了一个未来的键：新查询 i 只能看到它自己的位置为止。",
          _dm_wrong(lambda n, p, t: np.tril(np.ones((n, t), dtype=bool), k=p + 1))),
    Wrong("新查询之间也要遵守因果：只有缓存是全部可见的，新的 token 彼此之间仍然不能看见未来。",
          _dm_wrong(lambda n, p, t: np.ones((n, t), dtype=bool))),
    Wrong("这里要的是布尔矩阵（True = 可以看），不是加性掩码（0 / −∞）。",
          _dm_wrong(lambda n, p, t: np.where(np.tril(np.ones((n, t), dtype=bool), k=p), 0.0, -np.inf))),
    Wrong("True 和 False 反了：True 表示可以看（过去和自己），False 表示挡住（未来）。",
          _dm_wrong(lambda n, p, t: ~np.tril(np.ones((n, t), dtype=bool), k=p))),
    Wrong("形状不对：行是这一步的新查询（T_new 行），列是全部的键，缓存里的加上新的（T_past + T_new 列）。",
          _dm_wrong(lambda n, p, t: np.tril(np.ones((t, n), dtype=bool), k=-p))),
    Wrong("缓存里的键被挡住了：缓存的 T_past 个键都在新查询之前，每个新查询都能看见它们。",
          _dm_wrong(lambda n, p, t: np.hstack([np.zeros((n, p), dtype=bool), np.tril(np.ones((n, n), dtype=bool))]))),
    Wrong("三角形朝向反了：能看的是对角线左下方（过去和自己），右上方（未来）要挡住。",
          _dm_wrong(lambda n, p, t: np.triu(np.ones((n, t), dtype=bool), k=p))),
    Wrong("列只算了新的键：缓存里的 T_past 个旧键也在注意力的键里，列数是 T_past + T_new。",
          _dm_wrong(lambda n, p, t: np.tril(np.ones((n, n), dtype=bool)))),
]


@float_safe
def check_decode_mask(fn) -> CheckResult:
    """Check ``fn(T_new, T_past) -> allowed``: the boolean (T_new, T_past + T_new) mask of one decoding step.

    ``T_past`` keys are already cached; ``T_new`` new tokens come next, so new query i sits at absolute
    position ``T_past + i`` and may see the keys 0 .. T_past + i (the whole cache, the new tokens before it,
    itself). ``T_past = 0`` is the ordinary causal mask.
    """
    hint = ("把键从 0 数到 T_past + T_new − 1：第 i 个新查询本身在位置 T_past + i，它能看见的键就是不在它之后的那些。")
    rows = [("没有缓存（T_past = 0）：普通的因果掩码", (4, 0)), ("一次只生成一个 token（T_new = 1）", (1, 5)),
            ("T_new = 3，T_past = 4", (3, 4)), ("T_new = 4，T_past = 2", (4, 2)), ("T_new = 2，T_past = 6", (2, 6))]
    cases = [Case(label, args, _reference_decode_mask(*args), hint) for label, args in rows]
    return run_diagnosed("check_decode_mask", fn, cases, wrong=_DM_WRONG, result_type="bool array", atol=0.0, rtol=0.0)
