"""Self-checks for 2.2 (soft lookup): the temperature that gives the best key a stated share, the derivative of
the output with respect to one key, and how the output leaves the mean of the values at a high temperature
(the graded transfer).

:func:`check_high_temperature_drift` compares with the closed form ``mean_i (s_i - sbar) v_i`` with ``s = K q``
(the derivative of the output in 1/tau at 1/tau = 0); a float64 answer is held to rtol 1e-9, so that
``tau * (output(tau) - mean V)`` at one large finite tau fails (its truncation error falls as 1/tau, its rounding
error grows with tau: at best ~1e-8 of the answer) and is named as such (the task asks for the limit's formula).
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np

import helpers as H

from .compare import MIXED_REASON
from .core import Case, CheckResult, float_safe, lenient_softmax
from .diagnose import Wrong, run_diagnosed

_HINT_SEP = "\n   提示（hint）："
_MIXED_HINT_START = "如果你在中途把数组转成了 float32"

__all__ = ["check_max_temperature", "check_output_key_jacobian", "check_high_temperature_drift"]


# An analytic answer is right to ~1e-15 in float64; float64 answers are held to rtol 1e-9 so that a finite difference (or
# a finite stand-in for a limit) fails and is named. float32 results are compared at float32 precision.
_EXACT_ATOL, _EXACT_RTOL = 1e-12, 1e-9
_NEAR_RTOL = 1e-2          # "close but not exact": how far a finite difference lands, far nearer than any wrong formula

_DIFFERENCE_OR_F32 = ("差别只在 float32 的精度量级。两种可能：一是用数值差分（有限差分）近似了导数，而不是解析导数——"
                      "这个练习要的是用链式法则写出的解析式；二是解析式写对了，但中途把数组转成了 float32、结果又变回了 "
                      "float64——要么全程用 float64，要么让结果保持 float32（检查会按 float32 的精度比较）。")


def _near_miss(fn, case: Case) -> bool:
    """Did ``fn`` land within ``_NEAR_RTOL`` (of the largest expected magnitude) on ``case`` without passing it?
    Runs ``fn`` once more on copies, silenced; never raises."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            got = fn(*copy.deepcopy(case.args))
        g = np.asarray(got, dtype=float)
        e = np.asarray(case.expected, dtype=float)
        if g.shape != e.shape or not np.all(np.isfinite(g)):
            return False
        scale = float(np.abs(e).max())
        return scale > 0 and bool(np.all(np.abs(g - e) <= _NEAR_RTOL * scale))
    except Exception:
        return False


def _name_a_difference(fn, cases, result: CheckResult, printed: str, hint_difference: str,
                       hint_f32: str = _DIFFERENCE_OR_F32) -> tuple[CheckResult, str]:
    """Replace the hint of a near miss (a value mismatch close to the answer, no known wrong formula named) by the
    one that names a finite difference (or, at float32 precision, a finite difference or a float32 slip)."""
    k = result.n_passed
    msg = result.message
    if result.passed or k >= len(cases) or _HINT_SEP not in msg or "数值不对" not in msg:
        return result, printed
    head, hint = msg.split(_HINT_SEP, 1)
    if hint != cases[k].hint and not hint.startswith(_MIXED_HINT_START):
        return result, printed        # a known wrong answer was named: keep it
    if not _near_miss(fn, cases[k]):
        return result, printed
    new_hint = hint_f32 if MIXED_REASON in head else hint_difference
    new = head + _HINT_SEP + new_hint
    return CheckResult(result.name, False, result.n_cases, result.n_passed, new), printed.replace(msg, new)


# ---- 2.2 exercise 1: the temperature at which the best of n keys gets the share p


def _max_temperature_ref(gap, p, n):
    return gap / np.log(p * (n - 1) / (1 - p))


_MT_WRONG = [
    Wrong("这是只有两个键时的答案：其余 n−1 个键每个都分走一份，最好的键的权重是 1/(1 + (n−1)·e^(−g/τ))。",
          lambda gap, p, n: gap / np.log(p / (1 - p))),
    Wrong("“其余的键”有 n−1 个，不是 n 个：最好的键自己不算在里面。",
          lambda gap, p, n: gap / np.log(p * n / (1 - p))),
    Wrong("这是温度很低时的近似（其余键的权重之和约为 (n−1)·e^(−g/τ)，分母近似成 1）：题目要的是精确的温度，"
          "最好的键的权重恰好是 1/(1 + (n−1)·e^(−g/τ))。",
          lambda gap, p, n: gap / np.log((n - 1) / (1 - p))),
    Wrong("τ 放反了：分数除以温度，差距变成 g/τ；解出来 τ 与 g 成正比，不是与 g 成反比。",
          lambda gap, p, n: np.log(p * (n - 1) / (1 - p)) / gap),
    Wrong("分数差要除以温度（g/τ），不是乘以温度：温度越低，差距越大，最好的键越占优。",
          lambda gap, p, n: gap * np.log(p * (n - 1) / (1 - p))),
    Wrong("对数的底不对：softmax 用的是 e 的幂，解方程要用自然对数。",
          lambda gap, p, n: gap / np.log10(p * (n - 1) / (1 - p))),
    Wrong("对数的底不对：softmax 用的是 e 的幂，解方程要用自然对数。",
          lambda gap, p, n: gap / np.log2(p * (n - 1) / (1 - p))),
]


@float_safe
def check_max_temperature(fn) -> CheckResult:
    """Check ``fn(gap, p, n) -> tau``: n keys, the best one's score ``gap`` above the n - 1 others (all equal); at
    ``tau`` the best key's softmax weight is exactly ``p`` (1/n < p < 1), and larger below it.
    Expected ``gap / ln(p (n - 1) / (1 - p))``; a careful numeric root (bisection) passes (rtol 1e-6)."""
    cases = [
        Case("n = 2 个键，差距 2，份额 0.9", (2.0, 0.9, 2), _max_temperature_ref(2.0, 0.9, 2),
             "先写出最好的键的权重：分子是它的 e 的幂，分母再加上其余每个键的那一份；让它等于 p，解出 τ。"),
        # p = 0.6, not 0.5: at p / (1 - p) = 1 the two-key answer divides by ln 1 = 0 and raises (math.log) instead
        # of being named
        Case("n = 4，差距 1，份额 0.6", (1.0, 0.6, 4), _max_temperature_ref(1.0, 0.6, 4),
             "把分子分母同除以最好的键那一项：其余 n−1 个键各剩下 e^(−g/τ)。"),
        Case("n = 10，差距 3，份额 0.75", (3.0, 0.75, 10), _max_temperature_ref(3.0, 0.75, 10),
             "键越多，其余的键分走的越多：要达到同样的份额，温度要更低。"),
        Case("n = 5，差距 0.5，份额 0.3（只比均匀的 0.2 大一点）", (0.5, 0.3, 5), _max_temperature_ref(0.5, 0.3, 5),
             "p 只比 1/n 大一点时，温度可以很高。"),
        Case("n = 3，差距 10，份额 0.99", (10.0, 0.99, 3), _max_temperature_ref(10.0, 0.99, 3),
             "结果是一个正数：温度与差距 g 成正比。"),
    ]
    return run_diagnosed("check_max_temperature", fn, cases, wrong=_MT_WRONG, atol=0.0, rtol=1e-6,
                         general_hint="返回一个正数 τ：在这个温度下，最好的键的权重恰好是 p。")


def _key_jac_ref(q, K, V, temperature, j):
    q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))
    a = H.softmax(K @ q / temperature)
    out = a @ V
    return a[j] * np.outer(V[j] - out, q) / temperature


def _kj_wrong(weight=True, sign=1.0, tau_power=1, centre=True, transpose=False):
    def wrong(q, K, V, temperature, j):
        a = lenient_softmax(K @ q / temperature)
        out = a @ V
        J = (a[j] if weight else 1.0) * sign * np.outer(V[j] - out if centre else V[j], q) / temperature ** tau_power
        return J.T if transpose else J
    return wrong


_KJ_WRONG = [
    Wrong("少了因子 α_j：输出对第 j 个分数的导数是 α_j(v_j − output)。", _kj_wrong(weight=False)),
    Wrong("符号反了：分数 s_j 变大，输出向 v_j 靠近，导数是 α_j(v_j − output)，不是 α_j(output − v_j)。",
          _kj_wrong(sign=-1.0)),
    Wrong("少了 1/τ：分数是 k_j·q / τ，它对 k_j 的导数是 q / τ。", _kj_wrong(tau_power=0)),
    Wrong("多除了一次 τ：分数 k_j·q / τ 对 k_j 的导数是 q / τ，只有一个 τ。", _kj_wrong(tau_power=2)),
    Wrong("漏了归一化的那一项：s_j 变大时其他权重会变小，导数是 α_j(v_j − output)，而不只是 α_j v_j。",
          _kj_wrong(centre=False)),
    Wrong("形状转置了：J[a, b] 是输出第 a 个分量对 k_j 第 b 个分量的导数，形状 (d_v, d_k)。", _kj_wrong(transpose=True)),
    Wrong("这是输出对查询 q 的导数（本节推导过的那个）：这里要的是对第 j 个键 k_j 的导数——k_j 只出现在第 j 个分数里。",
          lambda q, K, V, temperature, j: H.soft_lookup.soft_lookup_jacobian(q, K, V, temperature)),
]


_KEY_DIFFERENCE = ("你的结果接近正确答案，但不够准：这像是用数值差分（有限差分，把 k_j 的一个分量挪动 h 再相减）近似了导数，"
                   "而不是解析导数。差分的误差随步长 h 变化，h 取多大都消不掉（大了截断误差大，小了舍入误差大）；"
                   "这个练习要的是用链式法则写出的解析式。")


@float_safe
def check_output_key_jacobian(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature, j) -> J`` of shape (d_v, d_k): J[a, b] = d output_a / d K[j, b]."""
    rng = np.random.default_rng(20260222)
    c1 = (rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), 1.0, 1)
    c2 = (rng.normal(size=2), rng.normal(size=(5, 2)), rng.normal(size=(5, 4)), 0.5, 0)
    c3 = (rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=(3, 3)), 2.0, 2)
    q4 = rng.normal(size=3)
    K4 = rng.normal(size=(4, 3))
    K4[3] = 2.0 * q4                                     # key 3 takes nearly all the weight at tau = 0.2
    c4 = (q4, K4, rng.normal(size=(4, 2)), 0.2, 3)
    c5 = tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a
               for a in (rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 5)), 1.5, 2))
    # float64 answers are held to rtol 1e-9 as in the transfer (a correct formula is right to ~1e-15; float32 inputs
    # set float32 precision, so a float64 accumulator on the float32 case passes). At tau = 1e12 the Jacobian is
    # ~1e-13 while the output is ~1: a finite difference in k_j with an absolute step is rounding error (~1e-16 / h),
    # and one with a step proportional to tau is off by its truncation error (~(h/tau)^2), far above 1e-9.
    c6 = (rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), 1e12, 1)
    cases = [
        Case("4 个键，d_k=3，d_v=2，τ=1，对第 1 个键（从 0 数）", c1, _key_jac_ref(*c1),
             "链式法则：k_j 只通过第 j 个分数 s_j 影响输出；先求输出对 s_j 的导数，再乘以 s_j 对 k_j 的导数。"),
        Case("τ=0.5，d_k=2，d_v=4", c2, _key_jac_ref(*c2), "温度出现在分数里：s_j = k_j·q / τ。"),
        Case("τ=2，对最后一个键", c3, _key_jac_ref(*c3), "结果形状是 (d_v, d_k)：行对应输出的分量，列对应键的分量。"),
        Case("这个键几乎拿走全部权重", c4, _key_jac_ref(*c4),
             "输出几乎就是这个键的值时，v_j − output 接近 0：导数也应接近 0。"),
        Case("float32 输入", c5, _key_jac_ref(*c5),
             "float32 输入按 float32 的精度比较。前面的 float64 用例都通过了，只有这里不对：这像是数值差分（有限差分）"
             "而不是解析导数——在 float32 里 f(k_j + h) − f(k_j − h) 几乎全是舍入误差。这个练习要的是用链式法则写出的解析式。"),
        Case("极高的温度 1e12（权重完全均匀，输出随键变化极慢）", c6, _key_jac_ref(*c6),
             "前面的用例都通过了，只有这里不对：这像是数值差分（有限差分）而不是解析导数——这里输出随 k_j 变化极慢，"
             "f(k_j + h) − f(k_j − h) 几乎全是舍入误差，步长取多大都不行。这个练习要的是用链式法则写出的解析式。", atol=0.0),
    ]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed("check_output_key_jacobian", fn, cases, wrong=_KJ_WRONG, numpy_only=True,
                               atol=_EXACT_ATOL, rtol=_EXACT_RTOL)
    result, printed = _name_a_difference(fn, cases, result, buf.getvalue(), _KEY_DIFFERENCE)
    print(printed, end="")
    return result


# ---- 2.2 transfer (graded): how the output leaves the mean of the values at a very high temperature


def _drift_ref(q, K, V):
    s = np.asarray(K, dtype=float) @ np.asarray(q, dtype=float)
    return (s - s.mean()) @ np.asarray(V, dtype=float) / len(s)


def _drift_wrong(kind):
    def wrong(q, K, V):
        s = np.asarray(K, dtype=float) @ np.asarray(q, dtype=float)
        V_ = np.asarray(V, dtype=float)
        n = len(s)
        centred = (s - s.mean()) @ V_
        return {"uncentred": s @ V_ / n, "sum": centred, "n-1": centred / max(n - 1, 1), "sign": -centred / n,
                "n^2": centred / n**2, "mean": V_.mean(axis=0),
                "sqrt d_k": centred / n / np.sqrt(len(np.asarray(q)))}[kind]
    return wrong


_DR_WRONG = [
    Wrong("漏了减去平均分数：权重之和恒为 1，softmax 导数里 −α_iα_j 那一项让每个分数先减去所有分数的平均 s̄。"
          "一个分数恰好等于平均分数的键，不把输出往任何方向拉。", _drift_wrong("uncentred")),
    Wrong("少了 1/n：温度无穷大时每个权重是 1/n，softmax 导数在那一点也带着这个 1/n。", _drift_wrong("sum")),
    Wrong("除以的是 n−1（样本协方差的惯例）：这里每个权重恰好是 1/n，要除以 n。", _drift_wrong("n-1")),
    Wrong("符号反了：ε = 1/τ 变大（温度降低）时，分数高于平均的键权重变大，输出朝它们的值移动。", _drift_wrong("sign")),
    Wrong("多除了一次 n：softmax 导数在均匀权重处是 (1/n)(δ_ij − 1/n)，乘上分数之后只剩一个 1/n。", _drift_wrong("n^2")),
    Wrong("这是极限本身（所有值的平均）：要的是输出离开它的速度，D = lim τ·(output − v̄)。", _drift_wrong("mean")),
    Wrong("这一节的分数是 q·k_i/τ，没有除以 √d_k（那是 2.5 节的事）。", _drift_wrong("sqrt d_k")),
]

_DRIFT_FINITE = ("你的结果接近正确答案，但不够准：这像是取了一个很大的有限温度，算 τ·(output − v̄)。"
                 "它的误差约按 1/τ 变小，τ 太大又被舍入误差淹没，取多大都消不掉；这个练习要的是极限的解析式"
                 "（对 ε = 1/τ 在 ε = 0 处求导）。")
_DRIFT_FINITE_OR_F32 = ("差别只在 float32 的精度量级。两种可能：一是取了一个很大的有限温度去近似极限，而不是写出极限的解析式——"
                        "这个练习要的是解析式；二是解析式写对了，但中途把数组转成了 float32、结果又变回了 float64——"
                        "要么全程用 float64，要么让结果保持 float32（检查会按 float32 的精度比较）。")


@float_safe
def check_high_temperature_drift(fn) -> CheckResult:
    """Check ``fn(q, K, V) -> D`` of shape (d_v,): ``D = lim_{tau -> inf} tau (output(tau) - mean of V)`` for the soft
    lookup ``softmax(K q / tau) V``, written analytically in numpy (a large finite tau fails, and is told so)."""
    rng = np.random.default_rng(20260225)
    c1 = (rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2)))
    c2 = (rng.normal(size=2), rng.normal(size=(4, 2)), rng.normal(size=(4, 3)))
    K3 = rng.normal(size=(4, 3))
    c3 = (np.zeros(3), K3, rng.normal(size=(4, 2)))                   # q = 0: every score equal
    c4 = (rng.normal(size=4), rng.normal(size=(1, 4)), rng.normal(size=(1, 3)))
    c5 = tuple(a.astype(np.float32) for a in (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))))
    c6 = (300.0 * rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2)))   # scores in the hundreds
    cases = [
        Case("5 个键，d_k = 3，d_v = 2", c1, _drift_ref(*c1),
             "令 ε = 1/τ：ε = 0 时权重都是 1/n。输出对 ε 求导，用本节的 softmax 导数，再乘以分数对 ε 的导数。"),
        Case("4 个键，d_v = 3", c2, _drift_ref(*c2), "结果的形状是 (d_v,)：每个输出分量一个数。"),
        Case("q 是零向量（所有分数相等）", c3, _drift_ref(*c3), "所有分数相等时，温度怎么变权重都是均匀的：输出一动不动。"),
        Case("只有一个键", c4, _drift_ref(*c4), "只有一个键时权重恒为 1，输出不随温度变化。"),
        Case("float32 输入", c5, _drift_ref(*c5), "float32 输入按 float32 的精度比较。"),
        Case("分数有几百那么大", c6, _drift_ref(*c6),
             "前面的用例都通过了，只有这里不对：这像是取了一个有限的大温度去近似极限。要的是极限的解析式，"
             "它与分数的大小无关。"),
    ]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed("check_high_temperature_drift", fn, cases, wrong=_DR_WRONG, numpy_only=True,
                               atol=_EXACT_ATOL, rtol=_EXACT_RTOL,
                               general_hint="D 是输出对 ε = 1/τ 在 ε = 0 处的导数；那时权重是均匀的。")
    result, printed = _name_a_difference(fn, cases, result, buf.getvalue(), _DRIFT_FINITE, _DRIFT_FINITE_OR_F32)
    print(printed, end="")
    return result
