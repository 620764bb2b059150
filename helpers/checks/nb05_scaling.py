"""Self-checks for 2.5 (scaling by sqrt(d_k)): Var(q . k), the score scale for other variances, per-head scaled
scores, and the softmax backward pass for many rows (numpy only, without building a T x T Jacobian: the check
measures the peak memory on a long row with tracemalloc).

The learner's ``score_scale(d_k, var_q, var_k)`` returns the factor c that makes ``Var(c * q . k) = 1`` when
q and k have independent, zero-mean components with variances ``var_q`` and ``var_k``.
"""

from __future__ import annotations

import contextlib
import functools
import io
import math
import time
import tracemalloc

import numpy as np

import helpers as H

from .core import FAIL, Case, CheckResult, float_safe, lenient_softmax
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_dot_variance", "check_score_scale", "check_per_head_scaled_scores", "check_softmax_backward"]


_DV_WRONG = [
    Wrong("一项 q_i k_i 的方差是两个分量方差的乘积，不是它们的和。", lambda d, a, b: d * (a + b)),
    Wrong("漏了 d_k：点积是 d_k 项之和，独立项的方差相加，所以要乘以 d_k。", lambda d, a, b: a * b),
    Wrong("方差随 d_k 线性增长：d_k 个独立项的方差相加，是乘以 d_k，不是 d_k 的平方。", lambda d, a, b: d * d * a * b),
    Wrong("方差随 d_k 线性增长，不是随 √d_k（√d_k 是标准差的增长）。", lambda d, a, b: math.sqrt(d) * a * b),
    Wrong("把方差和标准差混在了一起：一项的方差就是 var_q·var_k，不要再开平方。", lambda d, a, b: d * math.sqrt(a * b)),
    Wrong("你返回的是标准差（方差的平方根）：这里要的是方差本身，最后不要开平方。", lambda d, a, b: math.sqrt(d * a * b)),
]


@float_safe
def check_dot_variance(fn) -> CheckResult:
    """Check ``fn(d_k, var_q, var_k) -> float``: Var(q . k) for independent zero-mean components.

    The answer is exact (the derivation of 2.5 generalised to component variances
    ``var_q`` and ``var_k``), so it is compared at relative error 1e-9: a constant-factor
    error (1.04 x) or a Monte Carlo estimate does not pass. The cases separate the classic
    slips: the sum of the variances instead of the product, forgetting d_k or var_k,
    sqrt(d_k) instead of d_k, standard deviations mixed up with variances.
    """
    cases = [
        Case("单位方差，d_k = 64", (64, 1.0, 1.0), 64.0,
             "每一项 q_i k_i 的方差等于 E[q_i²]·E[k_i²]；d_k 项彼此独立，独立项的方差相加。"),
        Case("单位方差，d_k = 1", (1, 1.0, 1.0), 1.0, "只有一项时，就是 Var(q_1 k_1) 本身。"),
        Case("var_q = 4，var_k = 1，d_k = 16", (16, 4.0, 1.0), 64.0,
             "一项的方差是两个分量方差的乘积，而不是它们的和；也不要把方差当成标准差再平方。"),
        Case("var_q = 0.25，var_k = 0.5，d_k = 1024", (1024, 0.25, 0.5), 128.0,
             "两个方差都要用上：Var(q·k) 是 d_k 个相同的项之和，每一项的方差由两个方差共同决定。"),
        Case("var_q = 2，var_k = 3，d_k = 3", (3, 2.0, 3.0), 18.0,
             "方差随项数 d_k 线性增长（不是随 √d_k）；这里要的是精确公式，不是模拟估计。"),
        Case("整数输入：var_q = 3，var_k = 5，d_k = 7", (7, 3, 5), 105.0,
             "这是一个精确的公式，与随机数无关：同样的输入应给出同样的、精确的结果。"),
        Case("结果不是整数：var_q = 0.3，var_k = 0.7，d_k = 5", (5, 0.3, 0.7), 5 * 0.3 * 0.7,
             "方差不一定是整数：不要取整或做整除，直接返回浮点数。", rtol=1e-6),
    ]
    return run_diagnosed("check_dot_variance", fn, cases, wrong=_DV_WRONG, atol=0.0, rtol=1e-9)


_SS_WRONG = [
    Wrong("这个因子只对单位方差成立：分量方差不是 1 时，Var(q·k) 里还有 var_q·var_k。", lambda d, a, b: 1 / math.sqrt(d)),
    Wrong("乘的是方差的倒数：c·(q·k) 的方差是 c² 乘 Var(q·k)，所以要乘标准差的倒数（方差的平方根的倒数）。",
          lambda d, a, b: 1 / (d * a * b)),
    Wrong("你返回的是标准差本身：要的是乘上去的因子 c，它是标准差的倒数。", lambda d, a, b: math.sqrt(d * a * b)),
    Wrong("只给 d_k 开了平方根，var_q·var_k 却没有开：c² 乘 Var(q·k) 要等于 1，所以 Var(q·k) 的每个因子在 c 里都要开平方，"
          "两个方差也不例外。", lambda d, a, b: 1 / (math.sqrt(d) * a * b)),
    Wrong("除以 d_k 而不是 √d_k：c·(q·k) 的方差是 c² 乘 Var(q·k)，除以 d_k 把方差压成了 1/d_k（d_k 越大，分数越接近相等），"
          "而不是 1；分量方差不是 1 时，var_q 和 var_k 也要考虑进去。", lambda d, a, b: 1 / d),
    Wrong("一项的方差是两个分量方差的乘积，不是它们的和。", lambda d, a, b: 1 / math.sqrt(d * (a + b))),
    Wrong("c² 对了，c 的符号反了：取正的那个。负号会把分数的大小顺序反过来，softmax 就把最多的权重给了原来分数最低的键。",
          lambda d, a, b: -1 / math.sqrt(d * a * b)),
]


def check_score_scale(fn) -> CheckResult:
    """Check ``fn(d_k, var_q, var_k) -> float``: c with Var(c q.k) = 1 for independent zero-mean components."""
    rng = np.random.default_rng(20260505)
    q = rng.normal(scale=math.sqrt(3.0), size=(20000, 8))
    k = rng.normal(scale=math.sqrt(0.5), size=(20000, 8))
    mc = 1.0 / float(np.std(np.sum(q * k, axis=1)))  # close to 1 / sqrt(8 * 3 * 0.5) = 1 / sqrt(12)
    cases = [
        Case("单位方差，d_k = 64", (64, 1.0, 1.0), 1 / 8.0,
             "单位方差时就是正文里的缩放因子。想一想：要让方差变成 1，乘的是标准差的倒数还是方差的倒数？"),
        Case("单位方差，d_k = 1", (1, 1.0, 1.0), 1.0, "只有一项、方差为 1 时，不需要任何缩放。"),
        Case("var_q = 4，var_k = 1，d_k = 16", (16, 4.0, 1.0), 1 / 8.0,
             "分量方差不再是 1：先写出 Var(q·k)（每一项的方差是两个方差的乘积，不是和），再决定除以什么。"),
        Case("var_q = 0.25，var_k = 4，d_k = 256", (256, 0.25, 4.0), 1 / 16.0,
             "方差 var_q·var_k 会进入 Var(q·k)；缩放因子要同时抵消 d_k 和它们。"),
        Case("var_q = 2，var_k = 0.5，d_k = 1", (1, 2.0, 0.5), 1.0,
             "两个方差的乘积是 1 时，结果应与单位方差相同——检查你是把它们相乘还是相加。"),
        Case("与蒙特卡洛模拟对照（d_k = 8，var_q = 3，var_k = 0.5）", (8, 3.0, 0.5), mc,
             "用 20000 个模拟点积的标准差核对：c·(q·k) 的标准差应为 1。", rtol=0.02),
    ]
    # exact cases: a tight tolerance (float32 arithmetic passes, a 1 % constant-factor error does not);
    # only the Monte Carlo case, with its ~0.5 % sampling error, gets 2 %
    return run_diagnosed("check_score_scale", fn, cases, wrong=_SS_WRONG, atol=0.0, rtol=1e-5)


# ---- 2.5 exercises that ask for something new (issue 20): per-head scaled scores, the softmax backward pass


def _per_head_ref(Q, K, n_heads):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    d_head = Q.shape[1] // n_heads
    Qh = Q.reshape(Q.shape[0], n_heads, d_head).transpose(1, 0, 2)
    Kh = K.reshape(K.shape[0], n_heads, d_head).transpose(1, 0, 2)
    return Qh @ Kh.transpose(0, 2, 1) / np.sqrt(d_head)


def _ph_wrong(scale=None, strided=False, order="hqk"):
    def wrong(Q, K, n_heads):
        d_model = Q.shape[1]
        d_head = d_model // n_heads
        if strided:   # head h takes every n_heads-th column
            Qh, Kh = Q.reshape(-1, d_head, n_heads).transpose(2, 0, 1), K.reshape(-1, d_head, n_heads).transpose(2, 0, 1)
        else:
            Qh, Kh = Q.reshape(-1, n_heads, d_head).transpose(1, 0, 2), K.reshape(-1, n_heads, d_head).transpose(1, 0, 2)
        S = Qh @ Kh.transpose(0, 2, 1) / (np.sqrt(d_head) if scale is None else scale(d_model, d_head, n_heads))
        return S.transpose(1, 0, 2) if order == "qhk" else S
    return wrong


_PH_WRONG = [
    Wrong("除以的是 √d_model：每个头只用自己那 d_head = d_model / n_heads 个分量打分，它的分数方差是 d_head，应除以 √d_head。",
          _ph_wrong(scale=lambda d, dh, h: np.sqrt(d))),
    Wrong("除以的是 d_head 本身：应除以它的平方根 √d_head。", _ph_wrong(scale=lambda d, dh, h: dh)),
    Wrong("分数没有缩放：每个头的分数要除以 √d_head。", _ph_wrong(scale=lambda d, dh, h: 1.0)),
    Wrong("头的切法不对：第 h 个头用的是连续的一段列（第 h·d_head 列起的 d_head 列），不是每隔 n_heads 列取一列。",
          _ph_wrong(strided=True)),
    Wrong("轴的顺序不对：结果的第一个轴应是头（n_heads, T_q, T_kv），你把查询轴放在了前面。", _ph_wrong(order="qhk")),
    Wrong("你算的是整个 d_model 宽的一张分数表：要先把查询和键按头切开，每个头各算一张表。",
          lambda Q, K, n_heads: np.broadcast_to(Q @ K.T / np.sqrt(Q.shape[1]), (n_heads, Q.shape[0], K.shape[0]))),
]


@float_safe
def check_per_head_scaled_scores(fn) -> CheckResult:
    """Check ``fn(Q, K, n_heads) -> S`` of shape (n_heads, T_q, T_kv), numpy only.

    ``Q`` (T_q, d_model), ``K`` (T_kv, d_model); head h uses columns h*d_head ... (h+1)*d_head - 1 with
    d_head = d_model // n_heads, and its scores are divided by sqrt(d_head).
    """
    rng = np.random.default_rng(20260253)
    c1 = (rng.normal(size=(3, 6)), rng.normal(size=(4, 6)), 2)
    c2 = (rng.normal(size=(4, 5)), rng.normal(size=(2, 5)), 1)
    c3 = (rng.normal(size=(3, 8)), rng.normal(size=(5, 8)), 4)
    c4 = (rng.normal(size=(1, 12)), rng.normal(size=(3, 12)), 3)
    c5 = (rng.normal(size=(2, 8)).astype(np.float32), rng.normal(size=(4, 8)).astype(np.float32), 2)
    cases = [
        Case("T_q=3，T_kv=4，d_model=6，2 个头", c1, _per_head_ref(*c1),
             "每个头用自己那一段连续的列打分，再除以这一段宽度 d_head 的平方根；结果的形状是 (n_heads, T_q, T_kv)。"),
        Case("只有 1 个头", c2, _per_head_ref(*c2), "只有 1 个头时 d_head = d_model，结果就是普通的缩放分数（外面多一个长度为 1 的轴）。"),
        Case("d_model=8，4 个头（d_head=2）", c3, _per_head_ref(*c3),
             "缩放因子来自每个头的宽度 d_head，不是 d_model，也不是头数。"),
        Case("只有 1 个查询，3 个头", c4, _per_head_ref(*c4), "T_q=1 时每个头的分数表只有一行，不要去掉这个轴。"),
        Case("float32 输入", c5, _per_head_ref(*c5), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_per_head_scaled_scores", fn, cases, wrong=_PH_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4)


def _softmax_backward_ref(A, G):
    """Row n: J(a_n) g_n with the Jacobian itself (the definition), for the small cases."""
    A, G = np.asarray(A, dtype=float), np.asarray(G, dtype=float)
    return np.stack([H.softmax_jacobian(a) @ g for a, g in zip(A, G)])


def _softmax_backward_closed(A, G):
    """The same without any T x T matrix, for the large case (the small cases show the two agree)."""
    return A * (G - np.sum(A * G, axis=-1, keepdims=True))


def _jacobians(A):
    return np.stack([np.diag(a) - np.outer(a, a) for a in np.asarray(A, dtype=float)])


_SB_WRONG = [
    Wrong("你返回的是雅可比矩阵本身（每行一个 T×T 的矩阵）：要的是它与这一行上游梯度的乘积，每行只有 T 个数，"
          "而且这个练习要求根本不把 T×T 的矩阵造出来。", lambda A, G: _jacobians(A)),
    Wrong("只算了 a_i·g_i，少了减去的那一项：每个权重也依赖其他所有分数（非对角项 −a_i a_j），"
          "它们合起来是每行一个数（g 按权重 a 的加权平均），要从 g_i 里减掉。", lambda A, G: A * G),
    Wrong("只算了对角线 a_i(1 − a_i)：非对角项 −a_i a_j 把其他分量的上游梯度也带了进来。",
          lambda A, G: A * (1 - A) * G),
    Wrong("少乘了一个 a：J 的每一项 J_ij = a_i(δ_ij − a_j) 都带着因子 a_i，所以结果的第 i 个分量也整个带着它。",
          lambda A, G: G - np.sum(A * G, axis=-1, keepdims=True)),
    Wrong("权重 a 和上游梯度 g 的位置对调了：权重只来自 J（它的每一项都带着 a_i），上游梯度只通过与 J 相乘的那个求和进来。"
          "对照 J_ij = a_i(δ_ij − a_j) 再展开一次。",
          lambda A, G: G * (A - np.sum(A * G, axis=-1, keepdims=True))),
    Wrong("减去的应是 g 按权重 a 的加权平均，而不是 g 的普通平均。",
          lambda A, G: A * (G - G.mean(axis=-1, keepdims=True))),
    Wrong("符号反了：你的结果正好是正确结果的相反数。J 的对角项 a_i(1 − a_i) 是正的，非对角项 −a_i a_j 是负的；"
          "展开时看清哪一项带减号。",
          lambda A, G: A * (np.sum(A * G, axis=-1, keepdims=True) - G)),
    Wrong("外积和内积弄反了（转置放错了边）：行向量 a 的 aᵀa 是 T×T 的外积，a aᵀ 只是一个数 ‖a‖²。"
          "一维数组转置后不变，两种写法很容易算成同一个数。",
          lambda A, G: A * G - np.sum(A * A, axis=-1, keepdims=True) * np.sum(G, axis=-1, keepdims=True)),
    Wrong("加权平均 a·g 要在每一行里（沿键的轴）求，你沿的是行与行之间的轴。",
          lambda A, G: A * (G - np.sum(A * G, axis=0, keepdims=True))),
    Wrong("加权平均 a·g 要每一行各求一个：你把所有行的乘积加成了一个数。",
          lambda A, G: A * (G - np.sum(A * G))),
    Wrong("每一行的加权平均求出来是 N 个数，排成一维时会被当成一行、沿键的方向广播："
          "行数与键数不同时报错，相同时不报错却减错了地方（第 j 列减的是第 j 行的平均）。"
          "让它保持一列（每行一个数），每一行才减去它自己的那个数。",
          lambda A, G: A * (G - np.sum(A * G, axis=-1))),
]

#: The large case: one T x T float64 matrix is 8 MiB here; the closed form needs a few (N, T) arrays (16 KiB each).
_BIG_N, _BIG_T = 2, 1024
#: Peak of new memory the learner's function may allocate on the large case: half a byte per T x T entry, so a
#: T x T matrix of any dtype (even bool or int8) is over it, and pure-Python lists of the (N, T) numbers are not.
_BIG_LIMIT = _BIG_T * _BIG_T // 2
#: tracemalloc slows a Python loop 10-15 x: a naive double loop over i and j (correct, no matrix, ~1 s on the large
#: case) took 9-16 s traced and the kernel looked hung. So the large case runs untraced and timed; only a function
#: that took at most ``_FAST_S`` there runs it again under tracemalloc.
_FAST_S = 0.05
#: A slower function is measured on one row of ``_SLOW_T`` keys instead (a double loop: ~0.3 s traced), against two
#: bytes per T x T entry: any T x T matrix of float16 or wider is over it (a float64 one is 4 x over), and lists of
#: the T numbers, however many, are not (512 bytes per number). A one-byte T x T mask in a slow function passes.
_SLOW_N, _SLOW_T = 1, 256
#: The O(T^2) speed note shows only above this (a double loop takes ~1 s on the large case; a plain per-row loop
#: takes milliseconds, but on a loaded JupyterHub it can pass ``_FAST_S`` and must not be told it is a double loop).
_NOTE_S = 0.3
_SLOW_LIMIT = 2 * _SLOW_T * _SLOW_T


class _Discard(io.TextIOBase):
    """A stdout that keeps nothing: what the learner prints during a measurement is neither shown nor counted."""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        return len(s)


def _peak_bytes(fn, args) -> int | None:
    """Peak new memory (bytes) ``fn(*args)`` allocates, by tracemalloc (which sees numpy's buffers, even one freed
    before returning); None if it raised. Its printing goes nowhere and numpy summarises arrays while it runs, so a
    learner's ``np.set_printoptions(threshold=sys.maxsize)`` and debugging prints do not count."""
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        with contextlib.redirect_stdout(_Discard()), np.printoptions(threshold=1000, edgeitems=3), \
                np.errstate(all="ignore"):
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            try:
                fn(*args)
            except Exception:
                return None
            return tracemalloc.get_traced_memory()[1] - base
    finally:
        if not was_tracing:
            tracemalloc.stop()


def _measured(fn, report: dict, slow_case: tuple):
    """``fn`` that, on its first call with the large case, times it untraced and then measures its peak memory
    there or, if it was slow, on ``slow_case`` (``report``: seconds, peak, limit, shape). Keeps ``fn``'s signature
    (the check's arity message reads it). ``slow_case`` is built outside: the "numpy only" tripwire is on here."""
    @functools.wraps(fn)
    def measured(*args, **kwargs):
        big = (not kwargs and len(args) == 2
               and all(isinstance(a, np.ndarray) and a.shape == (_BIG_N, _BIG_T) for a in args))
        if not big or "seconds" in report:
            return fn(*args, **kwargs)
        pristine = tuple(a.copy() for a in args)            # the measurement runs on inputs fn has not touched
        start = time.perf_counter()
        got = fn(*args)
        report["seconds"] = time.perf_counter() - start
        if report["seconds"] <= _FAST_S:
            report.update(peak=_peak_bytes(fn, pristine), limit=_BIG_LIMIT, shape=(_BIG_N, _BIG_T))
        else:
            report.update(peak=_peak_bytes(fn, slow_case), limit=_SLOW_LIMIT, shape=(_SLOW_N, _SLOW_T))
        return got
    return measured


@float_safe
def check_softmax_backward(fn) -> CheckResult:
    """Check ``fn(A, G) -> dS`` of shape (N, T), numpy only and without any T x T matrix.

    ``A`` (N, T) holds N rows of softmax weights, ``G`` (N, T) the upstream gradients dL/dA; row n of the
    answer is ``g_n J(a_n)`` with ``J(a) = diag(a) - a^T a`` (symmetric), i.e. ``a_n * (g_n - a_n . g_n)``.
    The last case has T = 1024. It runs untraced and timed; a function that took at most ``_FAST_S`` runs it again
    under tracemalloc (which sees numpy's buffers), and its peak must stay below ``_BIG_LIMIT`` bytes, half a byte
    per entry of a T x T matrix. A slower one is measured on one row of ``_SLOW_T`` keys instead, against
    ``_SLOW_LIMIT``; one slower than ``_NOTE_S`` (a double loop, correct and allowed) gets a note on its O(T^2) cost. Printing during a measurement is
    discarded and numpy's arrays are summarised, so the learner's debugging prints are not counted.
    """
    rng = np.random.default_rng(20260254)
    A1 = H.softmax(rng.normal(size=(3, 5)), axis=-1)
    G1 = rng.normal(size=(3, 5))
    A2 = H.softmax(rng.normal(size=(4, 4)) * 2, axis=-1)
    G2 = rng.normal(size=(4, 4))
    A3 = H.softmax(np.array([[30.0, 0.0, -1.0], [0.5, 0.0, 1.0]]), axis=-1)
    G3 = rng.normal(size=(2, 3))
    A4 = H.softmax(rng.normal(size=(2, 6)), axis=-1)
    G4 = np.array([[0.7] * 6, [-2.0] * 6])
    A5 = H.softmax(rng.normal(size=(3, 4)), axis=-1).astype(np.float32)
    G5 = rng.normal(size=(3, 4)).astype(np.float32)
    A6 = H.softmax(rng.normal(size=(1, 7)), axis=-1)
    G6 = rng.normal(size=(1, 7))
    A7 = H.softmax(rng.normal(size=(_BIG_N, _BIG_T)) * 2, axis=-1)
    G7 = rng.normal(size=(_BIG_N, _BIG_T))
    cases = [
        Case("3 行，每行 5 个键", (A1, G1), _softmax_backward_ref(A1, G1),
             "每一行是一份独立的 softmax：那一行的雅可比矩阵乘以那一行的上游梯度。先在纸上把第 i 个分量写出来。"),
        Case("方阵：4 行 4 个键", (A2, G2), _softmax_backward_ref(A2, G2),
             "方阵最能暴露轴的错误：每行的那个数要在这一行之内求，也只从这一行里减"
             "（行数等于键数时，排成一维的 N 个数会沿键的方向广播，不报错却减错了地方）。"),
        Case("一行已经饱和（一个权重几乎为 1）", (A3, G3), _softmax_backward_ref(A3, G3),
             "饱和的一行梯度应当几乎为 0：每一项都带着一个接近 0 的因子。"),
        Case("上游梯度每一行都是常数", (A4, G4), _softmax_backward_ref(A4, G4),
             "给一行的每个分数加同一个数，softmax 不变：上游梯度为常数时，传回分数的梯度应恰好为 0。"),
        Case("float32 输入", (A5, G5), _softmax_backward_ref(A5, G5), "float32 输入按 float32 的精度比较。"),
        Case("只有 1 行，7 个键", (A6, G6), _softmax_backward_ref(A6, G6), "N = 1 时结果仍是 (1, T) 的二维数组。"),
        Case(f"很长的行：{_BIG_N} 行，每行 T = {_BIG_T} 个键", (A7, G7), _softmax_backward_closed(A7, G7),
             "T 很大时也是每行的那一个数、再逐元素运算；结果的形状是 (N, T)。"),
    ]
    A8 = H.softmax(rng.normal(size=(_SLOW_N, _SLOW_T)) * 2, axis=-1)
    G8 = rng.normal(size=(_SLOW_N, _SLOW_T))
    report: dict = {}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed("check_softmax_backward", _measured(fn, report, (A8, G8)) if callable(fn) else fn, cases,
                               wrong=_SB_WRONG, numpy_only=True, learner=fn, atol=1e-5, rtol=1e-4)
    out = buf.getvalue()
    peak = report.get("peak") or 0
    if not result.passed or peak < report["limit"]:
        print(out, end="")
        if result.passed and report["seconds"] > _NOTE_S:
            print(f"   提示（速度）：你的函数在 {_BIG_N} 行、T = {_BIG_T} 的用例上用了约 {report['seconds']:.1f} 秒。"
                  "如果你写的是对 i、再对 j 的双重循环：每个分量都把这一行的同一个和重新算了一遍，每行是 O(T²) 次运算；"
                  "这个和对一行里所有分量都一样，每行只算一次，就只需 O(T)。")
        return result
    # every value is right, but the function built a T x T matrix: the task's second rule
    if out.endswith(result.message + "\n"):
        out = out[: -len(result.message) - 1]           # keep what the learner's own code printed, drop the pass line
    n, t = report["shape"]
    msg = (f"{FAIL} check_softmax_backward：数值都对了，但这个练习要求不构造 T×T 的矩阵，而你的函数在 "
           f"{n} 行、T = {t} 的用例上临时占用了约 {_mib(peak)} 内存"
           f"（一个 T×T 的 float64 矩阵是 {_mib(t * t * 8)}，而输入和结果各只有 {n * t * 8 / 2**10:.0f} KiB）。"
           "\n   提示（hint）：把结果的第 i 个分量写开——它只用到这一行的 a_i、g_i 和每行一个、先算好的数，"
           "用不着雅可比矩阵，也用不着单位矩阵或外积。")
    print(out + msg)
    return CheckResult(result.name, False, result.n_cases, result.n_cases - 1, msg)


def _mib(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:.1f} MiB" if n_bytes < 2**23 else f"{n_bytes / 2**20:.0f} MiB"
