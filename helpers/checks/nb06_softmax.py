"""Self-checks for 2.6 (softmax as normalisation): "is this an attention matrix?", the
bug hunt (attention with two slips: the global max instead of each row's max, and a scale by the square root
of the number of queries instead of d_k), a masked softmax
whose fully masked rows give zero weights (transfer), and a stable log-softmax."""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_is_attention_matrix", "check_row_max_fix", "check_masked_softmax", "check_log_softmax"]


def _attn_none_fails(A):
    """Wrong: "no condition fails" (any(A < 0) or any |row sum - 1| > 1e-6 -> False, else True); NaN lets it through."""
    A = np.asarray(A, dtype=float)
    return not (bool(np.any(A < 0)) or bool(np.any(np.abs(A.sum(axis=-1) - 1.0) > 1e-6)))


# Classic slips of "is this an attention matrix?", most specific first (each has its own hint; without them a
# slip got the hint of the first case it failed, e.g. a column-sum test was told "this should be True").
_ATTN_WRONG = [
    Wrong("你检查的是列和（沿第 0 个轴求和）：注意力矩阵每个查询占一行，要求的是每一行的和为 1，也就是沿最后一个轴求和。",
          lambda A: bool(np.all(A >= 0) and np.allclose(np.sum(A, axis=0), 1.0, rtol=0.0, atol=1e-6))),
    Wrong("你检查的是整个矩阵的总和等于行数 T（或者各行和的平均值为 1）：一行 1.3、一行 0.7 也能凑出同样的总和，"
          "列归一化的方阵也一样。要求的是每一行各自和为 1。",
          lambda A: bool(np.all(A >= 0) and abs(float(np.sum(A)) - A.shape[0]) <= 1e-6 * A.shape[0])),
    Wrong("比较行和时要求了严格相等（或者容差比 1e-6 严得多）：浮点数相加有舍入误差，一行 softmax 的和常常与 1 差 1e-16 左右。"
          "练习规定的是：行和与 1 相差不超过 1e-6，就算和为 1。",
          lambda A: bool(np.all(A >= 0) and np.all(np.sum(A, axis=-1) == 1.0))),
    Wrong("NaN 和任何数比较（小于 0、大于容差、等于 1）结果都是 False，所以“只要有一个条件不成立就返回 False，否则返回 True”"
          "的写法会放过全是 NaN 的一行。反过来写：检查每一个条件都成立（每个元素 ≥ 0 为真，每一行的和与 1 相差不超过 1e-6 为真），"
          "而不是检查没有一个条件失败。",
          _attn_none_fails),
]


@float_safe
def check_is_attention_matrix(fn) -> CheckResult:
    """Check ``fn(A) -> bool``: True iff every ROW of A is non-negative and sums to 1 (within 1e-6), numpy only.

    The notebook shows ``H.is_distribution`` doing exactly this test a few cells above, so the exercise asks
    for it written with numpy alone and refuses the helper (fresh-eyes review: copying it passed).

    The task states the tolerance (1e-6), and the cases hold the learner to it within the slack of
    numpy's defaults: a row off by 5e-7 is True (a tolerance of 1e-9 or exact equality fails), a row
    off by 3e-5 is False (a tolerance of 1e-4 fails; ``np.allclose``'s 1e-5 + 1e-8 passes). The other
    False cases have a defect far outside any tolerance (row sums off by 0.3 or 1e-3, a
    column-normalised matrix, a negative weight, NaN; a row with a negative weight whose absolute values sum
    to 1, which a test of the absolute values' sum alone lets through). The answer must be a bool (True/False).
    """
    rng = np.random.default_rng(20260206)
    S = rng.normal(size=(4, 4)) * 3
    good = H.softmax(S, axis=-1)
    wrong_axis = H.softmax(S, axis=0)
    negative = good.copy()
    negative[0] = [1.2, -0.2, 0.0, 0.0]
    negative_below_one = good.copy()
    negative_below_one[1] = [0.6, 0.6, -0.2, 0.0]  # every entry <= 1: an upper-bound test does not notice
    negative_abs_one = good.copy()
    negative_abs_one[3] = [0.7, -0.3, 0.0, 0.0]    # |a| sums to 1: a test of the absolute values does not notice
    rect = H.softmax(rng.normal(size=(2, 5)))
    wrong_axis_rect = H.softmax(rng.normal(size=(5, 2)), axis=0)  # (5, 2): its columns sum to 1
    plus_03 = good.copy()
    plus_03[1] *= 1.3
    minus_03 = good.copy()
    minus_03[2] *= 0.7
    shuffled = good.copy()
    shuffled[0] *= 1.3
    shuffled[3] *= 0.7  # total mass still T: only a per-row test notices
    small_off = rect.copy()
    small_off[1] *= 1.001
    rounding = good.copy()
    rounding[:, 0] += 1e-12
    nan_row = good.copy()
    nan_row[2] = np.nan
    within = rect.copy()
    within[0] *= 1 + 5e-7                                # inside the stated tolerance 1e-6
    outside = rect.copy()
    outside[1] *= 1 + 3e-5                               # outside it (a tolerance of 1e-4 would say True)
    cases = [
        Case("按行做的 softmax", (good,), True, "注意力矩阵的每一行都非负且和为 1，应返回 True。"),
        Case("按列做的 softmax（错轴 bug）", (wrong_axis,), False,
             "这个矩阵每一列的和为 1，每一行却不是：要检查的是行和（最后一个轴），不是列和。"),
        Case("行和都为 1，但有一个权重为负", (negative,), False, "权重还必须非负：每一个元素都要 ≥ 0。"),
        Case("行和都为 1，每个元素都不超过 1，但有一个权重为负", (negative_below_one,), False,
             "检查的是“非负”（每个元素 ≥ 0），而不是“不超过 1”：和为 1 的一行里仍可能有负数。"),
        Case("有一个权重为负，这一行的绝对值加起来恰好是 1", (negative_abs_one,), False,
             "这一行的和其实是 0.4：取了绝对值再求和，负的权重就被当成了正的。非负和行和为 1 是两个条件，各查各的。"),
        Case("长方形矩阵（T_q = 2，T_kv = 5）", (rect,), True, "矩阵每个查询一行，不必是方阵。"),
        Case("单位矩阵", (np.eye(3),), True, "独热（one-hot）的行是合法的注意力行：0 也是允许的非负数。"),
        Case("有一行的和是 1.3", (plus_03,), False, "逐行检查和是否为 1，而不是只看非负或只看形状。"),
        Case("有一行的和是 0.7", (minus_03,), False, "逐行检查和是否为 1（在容差 1e-6 之内）。"),
        Case("总和为 T，但有两行分别是 1.3 和 0.7", (shuffled,), False,
             "整个矩阵的总和或行和的平均值为 1 并不够：每一行都必须各自和为 1。"),
        Case("有一行的和是 1.001", (small_off,), False, "容差是 1e-6：差 0.001 已经远超容差。"),
        Case("只有 1e-12 的浮点舍入误差", (rounding,), True,
             "浮点数相加有舍入误差：比较行和时要留一点容差，不要要求严格相等。"),
        Case("有一行的和是 1 + 5e-7（在容差 1e-6 之内）", (within,), True,
             "练习规定的容差是 1e-6：行和与 1 相差不超过 1e-6 就算和为 1，你的容差太严了。"),
        Case("有一行的和是 1 + 3e-5（超出容差 1e-6）", (outside,), False,
             "练习规定的容差是 1e-6：差 3e-5 已经超出，你的容差太宽了。"),
        Case("有一行全是 NaN（0/0）", (nan_row,), False, "NaN 既不是非负数，也不会和为 1：应返回 False。"),
        Case("长方形矩阵（5 × 2），列和为 1", (wrong_axis_rect,), False,
             "长方形矩阵的行和与列和长度不同：沿最后一个轴（每个查询的一行）求和。"),
    ]
    return run_diagnosed("check_is_attention_matrix", fn, cases, wrong=_ATTN_WRONG, numpy_only=True, ask="只用 numpy 写出这两个条件（不调用 H.is_distribution）",
                         atol=0.0, rtol=0.0, result_type=bool)


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
             "被掩码的分数不能参与任何计算（包括求最大值）；先做 softmax 再乘掩码会被它带偏。"),
    ]
    return run_check("check_masked_softmax", fn, cases, atol=1e-9, rtol=1e-6,
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
