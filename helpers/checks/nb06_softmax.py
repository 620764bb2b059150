"""Self-checks for 2.6 (softmax as normalisation): scores recovered from the weights (centred per row), the
bug hunt (attention with two slips: the global max instead of each row's max, and a scale by the square root
of the number of queries instead of d_k), a masked softmax
whose fully masked rows give zero weights (transfer), and a stable log-softmax."""

from __future__ import annotations

import functools

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_centered_scores", "check_row_max_fix", "check_masked_softmax", "check_log_softmax"]


def _centered_ref(A):
    L = np.log(np.asarray(A, dtype=float))
    return L - L.mean(axis=-1, keepdims=True)


def _cs_wrong(kind):
    def wrong(A):
        A_ = np.asarray(A, dtype=float)
        L = np.log(A_)
        known = {"log only": lambda: L, "columns": lambda: L - L.mean(axis=0, keepdims=True),
                 "global": lambda: L - L.mean(), "row max": lambda: L - L.max(axis=-1, keepdims=True),
                 "no log": lambda: A_ - A_.mean(axis=-1, keepdims=True),
                 "log10": lambda: np.log10(A_) - np.log10(A_).mean(axis=-1, keepdims=True),
                 "row sum": lambda: L - L.sum(axis=-1, keepdims=True),
                 "flat": lambda: L - L.mean(axis=-1)}     # a broadcast error unless A is square
        if isinstance(kind, float):                       # log(A + eps): an eps "against log 0"
            L_eps = np.log(A_ + kind)
            return L_eps - L_eps.mean(axis=-1, keepdims=True)
        return known[kind]()
    return wrong


# The eps a learner adds "against log 0" (each moves the log of a small weight by its own amount).
_CS_EPS = (1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4)


_CS_WRONG = [
    Wrong("softmax 对了，但每一行的和不是 0：log A 只是许多答案中的一个。softmax 对一行里每个分数加同一个常数不变，"
          "选那个让这一行的和变成 0 的常数。", _cs_wrong("log only")),
    Wrong("减去的是每一列的平均：softmax 沿行归一化，能随意加减、不改变权重的常数是每一行一个，不是每一列一个"
          "（这又是一次错轴：这样减完，softmax 给不回 A）。", _cs_wrong("columns")),
    Wrong("减去的是整个矩阵的平均：softmax 给得回 A，但每一行的和不是 0；每一行要减去它自己的平均值。", _cs_wrong("global")),
    Wrong("减去的是每一行的最大值（稳定 softmax 的做法）：softmax 给得回 A，但这一行的和不是 0；要减去这一行的平均值。",
          _cs_wrong("row max")),
    Wrong("没有取对数：softmax 先对分数取 exp，反推时要先取 log。", _cs_wrong("no log")),
    Wrong("对数的底不对：softmax 用的是 e 的幂，反推要用自然对数。", _cs_wrong("log10")),
    Wrong("减去的是每一行的和：softmax 给得回 A，但减完之后这一行的和是原来的 (1 − n) 倍，一般不是 0；"
          "要减去这一行的平均值（和再除以这一行的个数 n）。", _cs_wrong("row sum")),
    Wrong("每一行的平均求对了，但求完没有保持维度：T_q 个平均值排成一维，广播从最后一个轴往前对齐，"
          "它们被当成了每一列要减的数（T_q ≠ T_kv 时就报错）。让每一行的那个数仍占着一个长度为 1 的轴。",
          _cs_wrong("flat")),
    *(Wrong("取对数之前给 A 加了一个小数 eps：A 的元素都大于 0，不必加 eps；而 eps 改变了每个权重的对数，"
            "权重越小改得越多（约 1e-15 的权重加上 eps，它的对数就差得很远）。直接对 A 取对数。", _cs_wrong(eps))
      for eps in _CS_EPS),
]


@float_safe
def check_centered_scores(fn) -> CheckResult:
    """Check ``fn(A) -> S`` of the shape of ``A`` (T_q, T_kv), every entry of A > 0 and every row summing to 1:
    softmax of each row of S gives back A, and every row of S sums to 0. Expected ``log A`` minus each row's mean."""
    rng = np.random.default_rng(20260207)
    square = H.softmax(rng.normal(size=(4, 4)) * 2)
    rect = H.softmax(rng.normal(size=(2, 5)))
    tall = H.softmax(rng.normal(size=(5, 3)))
    peaked = H.softmax(np.array([[30.0, 0.0, -5.0, 2.0], [0.0, 0.0, 0.0, 0.0]]))   # a weight near 1e-15; a uniform row
    f32 = H.softmax(rng.normal(size=(3, 4))).astype(np.float32)
    cases = [
        Case("4 × 4 的注意力矩阵", (square,), _centered_ref(square),
             "softmax 先取 exp 再归一化：反推时先取对数；再想清楚这一行能加减什么而不改变权重。"),
        Case("长方形矩阵（T_q = 2，T_kv = 5）", (rect,), _centered_ref(rect),
             "每个查询一行：可以随意加减的常数，每一行一个；结果与 A 的形状相同。"),
        Case("长方形矩阵（5 × 3）", (tall,), _centered_ref(tall), "行和为 0 是每一行各自为 0，沿每个查询的那一行求平均。"),
        Case("有一个极小的权重，还有一行是均匀的", (peaked,), _centered_ref(peaked),
             "第 1 行有一个约 1e-15 的权重：它的分数比这一行最大的低约 35，要照样精确算出；"
             "第 2 行是均匀的，分数全相等，行和为 0 就只能全是 0。"),
        Case("float32 输入", (f32,), _centered_ref(f32), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_centered_scores", fn, cases, wrong=_CS_WRONG, atol=1e-6, rtol=1e-6,
                         general_hint="返回与 A 同形状的分数：对每一行做 softmax 得回 A，并且每一行的和为 0。")


def _attention_ref(Q, K, V):
    S = np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.asarray(K).shape[-1])
    return H.softmax(S, axis=-1) @ np.asarray(V)


def _rm_wrong(kind, scale="d_k"):
    """A wrong fix of the bug hunt: ``kind`` names the max subtracted, ``scale`` the number whose root divides."""
    def wrong(Q, K, V):
        Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
        root = {"d_k": np.sqrt(K.shape[-1]), "T_q": np.sqrt(Q.shape[0]), "T_kv": np.sqrt(K.shape[0]),
                "d_k plain": K.shape[-1], "none": 1.0}[scale]
        S = Q @ K.T / root
        with np.errstate(all="ignore"):
            m = {"global": S.max(), "column": S.max(axis=0, keepdims=True), "none": 0.0,
                 "flat": S.max(axis=-1)}.get(kind, S.max(axis=-1, keepdims=True))
            E = np.exp(S - m)
            return E / E.sum(axis=-1, keepdims=True) @ V
    return wrong


# The bug hunt has two independent slips: the global max (a quiet row becomes 0/0 next to a loud one) and a
# scale by the square root of the number of queries, Q.shape[0], instead of d_k (silent whenever T_q = d_k).
_RM_WRONG = [
    Wrong("两处错误都还在：你的结果和 bug 版本的一样。回到症状单元格：一处错误在普通输入上就让结果和 helpers 不同，"
          "另一处只在有一个很“响”的查询时让其他行变成 NaN。逐行问自己，这一步用的是哪个轴、哪个尺寸？",
          _rm_wrong("global", "T_q")),
    Wrong("缩放已经对了，但另一处 bug 还在：减去的是整个分数矩阵的最大值。每一行要减去它自己的最大值（per-row max）。",
          _rm_wrong("global")),
    Wrong("减最大值的那一处修好了，但缩放还有错：除以的是查询个数 T_q（Q 的第一个轴）的平方根。"
          "缩放用的是查询和键向量的宽度 d_k（最后一个轴）；只在 T_q 恰好等于 d_k 时，这个错才看不出来。",
          _rm_wrong("row", "T_q")),
    Wrong("缩放除以的是键的个数 T_kv（K 的第一个轴）的平方根：应是查询和键向量的宽度 d_k（最后一个轴）的平方根。",
          _rm_wrong("row", "T_kv")),
    Wrong("缩放除以的是 d_k 本身：应除以 d_k 的平方根。", _rm_wrong("row", "d_k plain")),
    Wrong("减去的是每一列的最大值：同一行的分数被减去了不同的数，softmax 就变了。每一行要减去它自己那一行的最大值。",
          _rm_wrong("column")),
    Wrong("取指数之前没有减去最大值：很“响”的那个查询的分数会让 exp 溢出。", _rm_wrong("none")),
    Wrong("分数没有除以 √d_k：打分之后要缩放。", _rm_wrong("row", "none")),
    Wrong("每一行的最大值求对了，但求完没有保持维度：T_q 个最大值排成一维，广播从最后一个轴往前对齐，"
          "它们被当成了每一列要减的数（T_q ≠ T_kv 时就报错）。让每一行的那个数仍占着一个长度为 1 的轴。",
          _rm_wrong("flat")),
]


@float_safe
def check_row_max_fix(fn) -> CheckResult:
    """Check a fixed attention ``fn(Q, K, V) -> output`` of shape (T_q, d_v) from the 2.6 bug hunt.

    The buggy version has two independent slips, and the known wrong answers name whichever is left:
    subtracting the maximum of the whole score matrix (instead of each row's maximum) underflows a quiet
    row to 0/0 next to a loud one (cases 2 and 3); dividing by the square root of T_q = Q.shape[0] instead
    of d_k shows wherever T_q != d_k (every case).
    """
    rng = np.random.default_rng(20260207)
    Q1, K1, V1 = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    K2 = rng.normal(size=(4, 4))
    Q2 = np.vstack([400.0 * K2[0], rng.normal(size=(2, 4))])            # one very loud query, two quiet ones
    V2 = rng.normal(size=(4, 3))
    K3 = rng.normal(size=(6, 8)).astype(np.float32)
    Q3 = np.vstack([60.0 * K3[2], rng.normal(size=8)]).astype(np.float32)
    V3 = rng.normal(size=(6, 2)).astype(np.float32)
    Q4, K4, V4 = rng.normal(size=(1, 6)), rng.normal(size=(7, 6)), rng.normal(size=(7, 3))
    cases = [
        Case("普通的小输入（T_q=4, T_kv=5, d_k=3, d_v=2）", (Q1, K1, V1), _attention_ref(Q1, K1, V1),
             "先确认缩放用的是哪个尺寸，softmax 沿每一行（最后一个轴）。"),
        Case("一个很“响”的查询和两个安静的查询", (Q2, K2, V2), _attention_ref(Q2, K2, V2),
             "有一行的分数都比另一行的最大值低几百：减去的最大值应该是谁的最大值？"),
        Case("float32，两行分数相距很远", (Q3, K3, V3), _attention_ref(Q3, K3, V3),
             "float32 的 exp 在指数低于约 -100 时就下溢为 0；每一行都要有一个指数恰好为 0 的项。"),
        Case("只有一个查询（T_q=1, T_kv=7, d_k=6）", (Q4, K4, V4), _attention_ref(Q4, K4, V4),
             "一个查询时输出是 (1, d_v)；缩放用的尺寸与查询的个数无关。"),
    ]
    return run_diagnosed("check_row_max_fix", fn, cases, wrong=_RM_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4,
                         general_hint="bug 版本里有两处互不相关的错误：逐行问自己，这一步用的是哪个轴、哪个尺寸？")


def _masked_softmax_ref(scores, allowed):
    """Reference: softmax over the allowed keys of each row; a row with no allowed key is all zeros."""
    scores = np.asarray(scores, dtype=float)
    allowed = np.asarray(allowed, dtype=bool)
    some = allowed.any(axis=-1, keepdims=True)             # a fully masked row gets neutral scores, then zeros
    weights = H.softmax(np.where(some, np.where(allowed, scores, -np.inf), 0.0))
    return np.where(allowed, weights, 0.0)


def _ms_softmax_then_mask(scores, allowed, renormalise=False):
    """Softmax over every key, then zero the masked ones (and maybe renormalise): the mask comes too late."""
    allowed = np.asarray(allowed, dtype=bool)
    w = lenient_softmax(scores) * allowed
    if renormalise:
        den = w.sum(axis=-1, keepdims=True)
        w = np.divide(w, den, out=np.zeros_like(w), where=den > 0)
    return w


def _ms_one_max(scores, allowed, zero_dead):
    """One max for the whole array, over the allowed keys: a row far below it underflows to 0/0 (zeros or NaN)."""
    scores = np.asarray(scores, dtype=float)
    allowed = np.asarray(allowed, dtype=bool)
    e = np.where(allowed, np.exp(scores - scores[allowed].max()), 0.0)
    den = e.sum(axis=-1, keepdims=True)
    if zero_dead:
        return np.divide(e, den, out=np.zeros_like(e), where=den > 0)
    return np.where(allowed.any(axis=-1, keepdims=True), e / den, 0.0)


_MS_WRONG = [
    Wrong("掩码用反了：allowed 里 True 表示「这个键可以看」。你的结果把 True 的键挡住、把 False 的键留下了。",
          lambda s, a: _masked_softmax_ref(s, ~np.asarray(a, dtype=bool))),
    Wrong("先对整行做了 softmax，再把被掩码的位置置 0：被掩码的键在归一化时已经分走了一份权重，剩下的权重加起来不到 1。"
          "掩码要在取指数之前起作用，让被掩码的键根本不参与归一化。",
          _ms_softmax_then_mask),
    # softmax over every key, zero, renormalise gives the same numbers as a max taken over every key (masked
    # ones included) before the exp: the hint names both
    Wrong("被掩码的键参与了求最大值：不论是先对整行 softmax、再置 0、再重新归一化，还是减去的最大值取自整行（连同被掩码的键），"
          "被掩码的分数极大时，允许的键减去它以后在取指数时全部下溢成 0，重新归一化也救不回来。"
          "最大值只在允许的键上求：掩码要在取指数之前起作用。",
          lambda s, a: _ms_softmax_then_mask(s, a, renormalise=True)),
    *(Wrong("减去的是整个数组里允许的键的同一个最大值，不是每一行自己的最大值：一行的分数整体远低于它时"
            "（这个用例的第 2 行约为 −1000），这一行的 exp 全部下溢成 0，得到 0/0。每一行减去它自己那一行里允许的键的最大值。",
            functools.partial(_ms_one_max, zero_dead=zero_dead)) for zero_dead in (True, False)),
]


def check_masked_softmax(fn) -> CheckResult:
    """Check ``fn(scores, allowed) -> weights``, both of shape (..., T_kv), ``allowed`` boolean (True = may attend).

    Each row is a softmax over its allowed keys only; masked keys get exactly 0; a row whose
    keys are *all* masked gets all-zero weights (no NaN, no uniform weights on masked keys).
    """
    rng = np.random.default_rng(20260206)
    s1 = np.array([[0.5, 2.0, -1.0, 1.0]])
    a1 = np.array([[True, False, True, True]])
    s2 = rng.normal(size=(2, 3, 4))
    a2 = rng.random(size=(2, 3, 4)) < 0.7
    a2[..., 0] = True                                   # every row keeps at least one key
    s3 = rng.normal(size=(3, 5))
    a3 = np.ones((3, 5), dtype=bool)
    a3[1] = False                                       # row 1: every key masked
    a3[2, 3:] = False
    s4 = np.array([[1e4, 0.0, 1.0, -2.0], [-1e3, -999.0, -1002.0, 5e3]], dtype=np.float64)
    a4 = np.array([[False, True, True, True], [True, True, True, False]])
    cases = [
        Case("一行，第 2 个键被掩码", (s1, a1), _masked_softmax_ref(s1, a1),
             "被掩码的键权重必须恰好为 0，其余键的权重仍要和为 1。"),
        Case("批量 (2, 3, 4) 的分数", (s2, a2), _masked_softmax_ref(s2, a2),
             "每一行（最后一个轴）单独归一化，掩码逐元素对应分数。"),
        Case("有一行的键全部被掩码", (s3, a3), _masked_softmax_ref(s3, a3),
             "全被掩码的行没有任何可看的键：它既不该出现 NaN，也不该把权重平均分给被掩码的键。"),
        Case("被掩码的位置上分数极大 / 一行整体远低于其他行", (s4, a4), _masked_softmax_ref(s4, a4),
             "第 1 行：被掩码的分数不能参与任何计算（包括求最大值）；第 2 行：它的分数整体远低于第 1 行，"
             "减去的最大值要取自这一行自己。"),
    ]
    return run_diagnosed("check_masked_softmax", fn, cases, wrong=_MS_WRONG, atol=1e-9, rtol=1e-6,
                         general_hint="先想清楚：被掩码的键在 exp 之前应该变成什么？全被掩码的行最后该输出什么？")


# ---- 2.6 exercise that asks for something new (issue 20): a stable log-softmax


def _log_softmax_ref(x):
    x = np.asarray(x)
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


_LS_WRONG = [
    Wrong("先算 softmax 再取 log：很小的权重在浮点数里下溢成 0，log 0 = −∞，而正确答案是一个普通的有限负数。"
          "直接在对数空间里算：log softmax(x)_i = x_i − log Σ_j exp(x_j)，再用减最大值的办法让 exp 不溢出。",
          lambda x: np.log(lenient_softmax(x, axis=-1))),
    Wrong("log Σ exp 没有先减去最大值：exp(1e4) 溢出成 inf。先减每一行的最大值 m，最后再把 m 加回去。",
          lambda x: x - np.log(np.exp(x).sum(axis=-1, keepdims=True))),
    Wrong("减去的是整个数组的最大值：远低于它的一行 exp 全部下溢成 0，log 0 = −∞。每一行减去自己的最大值。",
          lambda x: x - x.max() - np.log(np.exp(x - x.max()).sum(axis=-1, keepdims=True))),
    Wrong("只减了最大值，漏了 log Σ exp 那一项：结果的每一行 exp 之后应加起来等于 1。",
          lambda x: x - x.max(axis=-1, keepdims=True)),
    Wrong("沿错了轴：每一行（最后一个轴，各个键）单独归一化。",
          lambda x: _log_softmax_ref(np.swapaxes(x, 0, -1)).swapaxes(0, -1) if np.ndim(x) > 1 else x * np.nan),
    Wrong("求和之后没有保持维度：一行一个数，要按行减去，而不是按列广播。",
          lambda x: x - x.max(axis=-1) - np.log(np.exp(x - x.max(axis=-1, keepdims=True)).sum(axis=-1))),
]


@float_safe
def check_log_softmax(fn) -> CheckResult:
    """Check ``fn(x) -> log softmax(x)`` along the last axis, for x of shape (..., n).

    Must stay finite where the answer is finite (no log of an underflowed 0), survive +-1e4 float32
    scores, give -inf exactly where x is -inf, and work on square and 3-d inputs.
    """
    rng = np.random.default_rng(20260261)
    row = np.array([1.0, 2.0, 3.0, 4.0])
    rows = rng.normal(size=(3, 5))
    square = rng.normal(size=(4, 4)) * 2.0
    tiny = np.array([[0.0, -800.0, 1.0], [2.0, 1.0, -1500.0]])
    far_apart = np.array([[0.0, 1.0, -0.5], [-1000.0, -1001.0, -1000.5]])
    big = np.array([[1e4, -1e4, 0.0, 9999.0], [-9000.0, -9001.0, -9002.0, -9003.0]], dtype=np.float32)
    masked = np.array([[0.5, -np.inf, 1.5, -np.inf], [-np.inf, 2.0, 2.0, 0.0]])
    batch = rng.normal(size=(2, 3, 4))
    cases = [
        Case("一行 4 个分数", (row,), _log_softmax_ref(row),
             "结果取 exp 之后应当是一个分布：非负、加起来为 1。"),
        Case("3 行、每行 5 个分数", (rows,), _log_softmax_ref(rows), "每一行单独归一化。"),
        Case("方阵：4 行 4 列", (square,), _log_softmax_ref(square),
             "方阵最能暴露轴的错误：每一行（不是每一列）取 exp 后和为 1；一行一个归一化常数。"),
        Case("有的分数比同一行的最大值低几百", (tiny,), _log_softmax_ref(tiny),
             "答案在这些位置上是有限的负数（比如约 −800），不是 −∞：不要经过会下溢的权重。"),
        Case("相差很远的两行（一行约为 -1000）", (far_apart,), _log_softmax_ref(far_apart),
             "减去的应是每一行自己的最大值。"),
        Case("很大的分数（±1e4，float32）", (big,), _log_softmax_ref(big),
             "exp(1e4) 会溢出：先减去每一行的最大值。", atol=1e-3, rtol=1e-5),
        Case("被掩码的分数（-inf）", (masked,), _log_softmax_ref(masked),
             "分数为 −∞ 的位置，权重为 0，它的对数应恰好是 −∞；其余位置照常。"),
        Case("三维输入：2 批 × 3 行 × 4 个分数", (batch,), _log_softmax_ref(batch),
             "输入形状是 (..., n)：始终沿最后一个轴。"),
    ]
    return run_diagnosed("check_log_softmax", fn, cases, wrong=_LS_WRONG, atol=1e-5, rtol=1e-4)
