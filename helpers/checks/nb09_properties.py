"""Self-checks for 2.9 (properties of self-attention): attention with a distance bias (transfer); the weights of a
sentence shuffled twice, predicted by equivariance (issue 30); the exercises that replaced re-typing ones (issue 20):
the longest context a memory budget allows, the dependencies of stacked local attention."""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_distance_bias_attention", "check_twice_shuffled_weights",
           "check_max_context", "check_stacked_window_dependency"]


def _reference(Q, K, V, slope):
    T_q, T_k = Q.shape[0], K.shape[0]
    dist = np.abs(np.arange(T_q)[:, None] - np.arange(T_k)[None, :])
    S = Q @ K.T / np.sqrt(Q.shape[1]) - slope * dist
    return H.softmax(S) @ V


def _db_wrong(kind):
    def wrong(Q, K, V, slope):
        Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
        i, j = np.arange(Q.shape[0])[:, None], np.arange(K.shape[0])[None, :]
        dot, dist = Q @ K.T, np.abs(i - j)
        S = {"plus": dot / np.sqrt(Q.shape[1]) + slope * dist,
             "signed": dot / np.sqrt(Q.shape[1]) - slope * (i - j),
             "scaled too": (dot - slope * dist) / np.sqrt(Q.shape[1]),
             "no scale": dot - slope * dist,
             "after": dot / np.sqrt(Q.shape[1]), "after minus": dot / np.sqrt(Q.shape[1])}[kind]
        with np.errstate(all="ignore"):
            A = np.exp(S - S.max(axis=-1, keepdims=True))
            A = A / A.sum(axis=-1, keepdims=True)
            if kind == "after":
                A = A * np.exp(-slope * dist)
            if kind == "after minus":
                A = A - slope * dist
        return A @ V
    return wrong


_DB_WRONG = [
    Wrong("惩罚的符号反了：离得越远分数应该越低，所以要减去 slope·|i−j|，而不是加上。", _db_wrong("plus")),
    Wrong("距离要取绝对值 |i−j|：带符号的 i−j 会奖励一边、惩罚另一边。", _db_wrong("signed")),
    Wrong("距离惩罚也被除以了 √d_k：缩放只作用在点积上，惩罚 slope·|i−j| 原样减去。", _db_wrong("scaled too")),
    Wrong("点积没有除以 √d_k：分数 = 点积/√d_k − slope·|i−j|。", _db_wrong("no scale")),
    Wrong("惩罚放在了 softmax 之后（作用在权重上）：它应减在 softmax 之前的分数上，每一行的权重仍然和为 1。",
          _db_wrong("after")),
    Wrong("惩罚放在了 softmax 之后（从权重里减）：它应减在 softmax 之前的分数上，每一行的权重仍然非负、和为 1。",
          _db_wrong("after minus")),
]


@float_safe
def check_distance_bias_attention(fn) -> CheckResult:
    """Check ``fn(Q, K, V, slope) -> output`` of shape (T, d_v).

    The scores are ``Q K^T / sqrt(d_k) - slope * |i - j|`` (a penalty that grows with the
    distance between query position i and key position j), then a row-wise softmax and the
    weighted sum of the rows of V. Q, K have shape (T, d_k), V (T, d_v), slope >= 0.
    """
    rng = np.random.default_rng(20260209)
    Q1, K1, V1 = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    Q2, K2, V2 = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)), rng.normal(size=(6, 3))
    Q3, K3, V3 = 4.0 * rng.normal(size=(4, 2)), 4.0 * rng.normal(size=(4, 2)), rng.normal(size=(4, 5))
    Q4, K4, V4 = rng.normal(size=(4, 2)), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    Q4[0] = 3000.0 * K4[1] / np.linalg.norm(K4[1])       # query 1 aims at key 2: its top score sits > 1000 above other rows'
    cases = [
        Case("slope = 0（没有位置偏置）", (Q1, K1, V1, 0.0), _reference(Q1, K1, V1, 0.0),
             "slope 为 0 时应当就是普通的缩放点积注意力：分数要除以 √d_k，softmax 沿每一行（对键）做。"),
        Case("slope = 0.5", (Q1, K1, V1, 0.5), _reference(Q1, K1, V1, 0.5),
             "偏置加在 softmax 之前的分数上，而且是减去：离得越远（|i−j| 越大）分数越低。"
             "偏置只看位置差，与 i、j 谁大谁小无关。"),
        Case("T = 6，d_v = 3，slope = 1.5", (Q2, K2, V2, 1.5), _reference(Q2, K2, V2, 1.5),
             "检查距离矩阵的形状是 (T, T)，第 i 行第 j 列是 |i−j|；缩放只作用在点积上，不作用在偏置上。"),
        Case("分数很大（数值稳定性）", (Q3, K3, V3, 0.3), _reference(Q3, K3, V3, 0.3),
             "先减去每一行自己的最大值再取指数，避免溢出。"),
        Case("一行的分数比其他行高出一千以上", (Q4, K4, V4, 0.5), _reference(Q4, K4, V4, 0.5),
             "每一行减去的应当是这一行自己的最大值：减去整个矩阵的最大值时，分数低得多的行取指数后全部下溢成 0，得到 0/0。"),
    ]
    return run_diagnosed("check_distance_bias_attention", fn, cases, wrong=_DB_WRONG, atol=1e-8, rtol=1e-8,
                         general_hint="分数 = 点积/√d_k − slope·|i−j|，然后逐行 softmax，再乘 V。")


def _shuffled_sentence_weights(seed, T, d_model=5, d_k=3):
    """A sentence's weights A and the weights of that sentence shuffled twice, each from a real attention run."""
    g = np.random.default_rng(seed)
    X = g.normal(size=(T, d_model))
    W_Q, W_K, W_V = (g.normal(size=(d_model, d_k)) for _ in range(3))
    weights = lambda Z: H.self_attention(Z, W_Q, W_K, W_V).weights
    return X, weights


def _tw(order="right", rows=True, cols=True, which="both"):
    """A classic wrong answer to "the weights of X[perm1][perm2]" (a simulated learner's indexing)."""
    def wrong(A, perm1, perm2):
        A, p1, p2 = np.asarray(A, dtype=float), np.asarray(perm1), np.asarray(perm2)
        c = {"right": p1[p2], "swapped": p2[p1], "inverse": np.argsort(p1[p2])}[order] if which == "both" else (
            p1 if which == "first" else p2)
        if rows == "diagonal":
            return A[c, c]
        return A[c][:, c] if rows and cols else A[c] if rows else A[:, c]
    return wrong


_TW_WRONG = [
    Wrong("两次打乱的合成顺序反了：新句子第 i 个位置上的 token，先由 perm2 找到它在第一次打乱后的句子里的位置，"
          "再由 perm1 找到它在原句里的位置。",
          _tw(order="swapped")),
    Wrong("你用的是逆排列：新句子的第 i 个位置放的是原句的哪个 token，就从 A 里取哪一行、哪一列。", _tw(order="inverse")),
    Wrong("只用了第二次打乱 perm2：perm2 打乱的是已经按 perm1 打乱过的句子，两次要合起来。", _tw(which="second")),
    Wrong("只用了第一次打乱 perm1：句子之后又按 perm2 打乱了一次。", _tw(which="first")),
    Wrong("只重排了行：打乱输入时，查询（行）和键（列）一起换位置，权重变成 P A Pᵀ，行和列都要按同一个排列重排。",
          _tw(cols=False)),
    Wrong("只重排了列：查询（行）也跟着 token 一起换了位置，行和列都要按同一个排列重排。", _tw(rows=False)),
    Wrong("用两个下标数组同时索引 A，得到的只是 T 个对角线上的数，不是 T × T 的矩阵：行和列要分两步重排。",
          _tw(rows="diagonal")),
]


@float_safe
def check_twice_shuffled_weights(fn) -> CheckResult:
    """Check ``fn(A, perm1, perm2) -> A2``: the (T, T) attention weights of the sentence ``X[perm1][perm2]``.

    ``A`` is the weights of the sentence X itself. By permutation equivariance the shuffled sentence's weights are
    ``A[c][:, c]`` with the composed permutation ``c = perm1[perm2]`` (``P2 P1 A P1^T P2^T``). The expected values are
    not computed that way: the check runs attention on the shuffled sentence itself.
    """
    hint = ("写出 X[perm1][perm2] 的第 i 行是原句的第几个 token；打乱输入时，A 的行（查询）和列（键）按同一个排列一起重排。")
    rows = [("T = 4，两次打乱不可交换", 1, [1, 2, 0, 3], [3, 0, 2, 1]),
            ("T = 5", 2, [4, 2, 0, 1, 3], [1, 3, 4, 0, 2]),
            ("T = 6，第二次打乱是一个轮换", 3, [5, 3, 1, 0, 2, 4], [1, 2, 3, 4, 5, 0]),
            ("T = 1", 4, [0], [0]),
            ("perm 以列表（list）给出，T = 3", 5, [2, 0, 1], [0, 2, 1])]
    cases = []
    for label, seed, p1, p2 in rows:
        X, weights = _shuffled_sentence_weights(seed, len(p1))
        args = (weights(X), np.array(p1), np.array(p2)) if "list" not in label else (weights(X), list(p1), list(p2))
        cases.append(Case(label, args, weights(X[np.array(p1)][np.array(p2)]), hint))
    return run_diagnosed("check_twice_shuffled_weights", fn, cases, wrong=_TW_WRONG, atol=1e-9, rtol=1e-9)


# ---- 2.9 exercises that ask for something new (issue 20): a memory budget, stacked local attention ---------


def _max_context_ref(budget_bytes, itemsize, batch=1, heads=1):
    per_entry = batch * heads * itemsize                 # bytes of one (i, j) entry across all score matrices
    T = 0
    while (T + 1) * (T + 1) * per_entry <= budget_bytes:  # exact integers, no float square root
        T += 1
    return T


def _isqrt_fn(value_of):
    """A learner's answer that computes the integer square root of ``value_of(args)`` in some way."""
    def fn(budget_bytes, itemsize, batch=1, heads=1):
        return value_of(budget_bytes, itemsize, batch, heads)
    return fn


_MC_WRONG = [
    Wrong("你返回的是能放下的元素个数 T²，题目要的是序列长度 T：还差开平方这一步。",
          _isqrt_fn(lambda b, s, n, h: b // (s * n * h))),
    Wrong("每个元素占 itemsize 个字节，不是 itemsize 个比特：不要再乘 8。",
          _isqrt_fn(lambda b, s, n, h: int(np.sqrt(b / (8 * s * n * h))))),
    Wrong("漏掉了 batch 和 heads：每个序列、每个头各有一个 T × T 的分数矩阵，它们要一起放进预算。",
          _isqrt_fn(lambda b, s, n, h: int(np.sqrt(b / s)))),
    Wrong("漏掉了 itemsize：预算是字节数，每个元素占 itemsize 个字节（float16 为 2、float32 为 4），不是 1 个。",
          _isqrt_fn(lambda b, s, n, h: int(np.sqrt(b / (n * h))))),
    Wrong("漏掉了 heads：每个头都有自己的 T × T 分数矩阵。",
          _isqrt_fn(lambda b, s, n, h: int(np.sqrt(b / (s * n))))),
    Wrong("漏掉了 batch：批量里的每个序列都有自己的分数矩阵。",
          _isqrt_fn(lambda b, s, n, h: int(np.sqrt(b / (s * h))))),
    Wrong("四舍五入（或向上取整）会越过预算：要的是「放得下」的最大 T，平方根只能向下取整。",
          _isqrt_fn(lambda b, s, n, h: int(round(np.sqrt(b / (s * n * h)))))),
    Wrong("向上取整会越过预算：要的是「放得下」的最大 T，平方根只能向下取整。",
          _isqrt_fn(lambda b, s, n, h: int(np.ceil(np.sqrt(b / (s * n * h)))))),
    Wrong("差了一：你给出的是第一个放不下的长度，要的是最后一个放得下的长度。",
          _isqrt_fn(lambda b, s, n, h: int(np.sqrt(b / (s * n * h))) + 1)),
]


@float_safe
def check_max_context(fn) -> CheckResult:
    """Check ``fn(budget_bytes, itemsize, batch=1, heads=1) -> int``: the largest T whose score matrices fit.

    ``batch * heads`` score matrices of T x T entries, ``itemsize`` bytes each, must fit in ``budget_bytes``:
    the answer is the largest integer T with ``batch * heads * T**2 * itemsize <= budget_bytes`` (0 if none).
    """
    hint = ("把「全部分数矩阵的字节数 ≤ 预算」写成关于 T 的不等式：字节数 = batch × heads × T² × itemsize，"
            "然后找满足它的最大整数 T。")
    rows = [
        ("16 字节，每个元素 1 字节（恰好 4 × 4）", (16, 1), {}),
        ("15 字节，每个元素 1 字节（放不下 4 × 4）", (15, 1), {}),
        ("预算比一个元素还小", (3, 4), {}),
        ("1 GiB，float32", (2**30, 4), {}),
        ("1 GiB，float16，batch 4、8 个头", (2**30, 2), {"batch": 4, "heads": 8}),
        ("80 GiB，float16，32 个头", (80 * 2**30, 2), {"heads": 32}),
        ("1000 字节，float64，batch 2", (1000, 8), {"batch": 2}),
    ]
    cases = [Case(label, args, _max_context_ref(*args, **kw), hint, kw) for label, args, kw in rows]
    return run_diagnosed("check_max_context", fn, cases, wrong=_MC_WRONG, result_type=int, atol=0.0, rtol=0.0)


def _stacked_ref(T, radius, layers):
    return np.array([[abs(i - j) <= radius * layers for j in range(T)] for i in range(T)], dtype=bool)


def _band(fn_of_distance):
    def fn(T, radius, layers):
        i, j = np.indices((T, T))
        return fn_of_distance(i - j, radius, layers)
    return fn


_SD_WRONG = [
    Wrong("你只算了一层：第二层的输出 i 读的是第一层的输出 j，而那个 j 自己又读到了离它 radius 以内的输入，可达范围一层层累加。",
          _band(lambda d, r, L: np.abs(d) <= r)),
    Wrong("每多一层，可达范围增加 radius（相加，不是相乘）：两层的窗口一个接一个地拼起来。",
          _band(lambda d, r, L: np.abs(d) <= r**L)),
    Wrong("局部窗口是双向的：查询 i 看 |i − j| ≤ radius 的键，前后都看，不只看过去。",
          _band(lambda d, r, L: (d >= 0) & (d <= r * L))),
    Wrong("边界差了一：距离恰好等于 radius × layers 的输入也能到达（窗口包括它的边界）。",
          _band(lambda d, r, L: np.abs(d) < r * L)),
    Wrong("边界差了一：距离比 radius × layers 多一的输入还到不了。",
          _band(lambda d, r, L: np.abs(d) <= r * L + 1)),
]


@float_safe
def check_stacked_window_dependency(fn) -> CheckResult:
    """Check ``fn(T, radius, layers) -> D``, a boolean (T, T) matrix.

    Every layer is local self-attention: query i sees key j when ``|i - j| <= radius``. ``D[i, j]`` is True
    when output i of the last of ``layers`` stacked layers depends on input token j.
    """
    hint = ("先画一层的依赖带：每个输出依赖离它不超过 radius 的输入。第二层的输出依赖的是第一层的输出，"
            "想一想这两条带叠在一起能走多远。")
    rows = [("T = 1", (1, 1, 3)), ("T = 6，radius = 1，1 层", (6, 1, 1)), ("T = 8，radius = 1，3 层", (8, 1, 3)),
            ("T = 10，radius = 2，2 层", (10, 2, 2)), ("T = 9，radius = 2，3 层", (9, 2, 3)),
            ("T = 5，radius = 3，2 层（全部连通）", (5, 3, 2)), ("radius = 0（只看自己）", (4, 0, 5))]
    cases = [Case(label, args, _stacked_ref(*args), hint) for label, args in rows]
    return run_diagnosed("check_stacked_window_dependency", fn, cases, wrong=_SD_WRONG, result_type="bool array",
                         atol=0.0, rtol=0.0)
