"""Self-checks for 2.2 (soft lookup): the temperature derivative, many queries with their own
temperatures, and the derivative of the output with respect to one key.

:func:`check_temperature_gradient` compares with the closed form
``-(1/tau^2) * sum_i alpha_i (v_i - vbar) (s_i - sbar)`` with ``s = K q``; its cases use temperatures
other than 1 so that a wrong power of tau or a missing sign cannot pass, and a float64 answer is held to
rtol 1e-9 with a tiny and a huge temperature, so that a finite difference (any step, central or forward)
fails and is named as such (the task asks for the analytic derivative).
"""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np

import helpers as H

from .compare import MIXED_REASON
from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

_HINT_SEP = "\n   提示（hint）："
_MIXED_HINT_START = "如果你在中途把数组转成了 float32"

__all__ = ["check_temperature_gradient", "check_soft_lookup_many", "check_output_key_jacobian"]


def _jac_parts(q, K, V, temperature):
    q, K, V = (np.asarray(a, dtype=float) for a in (q, K, V))
    a = lenient_softmax(K @ q / temperature)
    return a, K, V


def _reference(q, K, V, temperature):
    s = np.asarray(K, dtype=float) @ np.asarray(q, dtype=float)
    z = s / temperature
    a = H.softmax(z)
    V = np.asarray(V, dtype=float)
    vbar = a @ V
    sbar = a @ s
    return -((a * (s - sbar)) @ (V - vbar)) / temperature**2


def _dtau_wrong(kind):
    def wrong(q, K, V, temperature):
        if kind == "q jacobian":
            a, K_, V_ = _jac_parts(q, K, V, temperature)
            return V_.T @ (np.diag(a) - np.outer(a, a)) @ K_ @ np.asarray(q, dtype=float) / temperature
        with np.errstate(all="ignore"):
            s = np.asarray(K, dtype=float) @ np.asarray(q, dtype=float)
            a = lenient_softmax(s / temperature)
            V_ = np.asarray(V, dtype=float)
            core = (a * (s - a @ s)) @ (V_ - a @ V_)
        return {"sign": core / temperature**2, "power 1": -core / temperature, "power 3": -core / temperature**3}[kind]
    return wrong


_DTAU_WRONG = [
    Wrong("符号反了：分数是 s/τ，对 τ 求导时 d(1/τ)/dτ = −1/τ² 带一个负号。别凭直觉定符号：温度升高，权重变平，"
          "τ 很大时输出趋向各个值的简单平均；输出随 τ 变大还是变小，取决于 τ 和数据，同一组数据上导数的符号可以在某个 τ 处改变。",
          _dtau_wrong("sign")),
    Wrong("τ 的幂不对：分数 s/τ 对 τ 的导数是 −s/τ²（平方），你的结果像只除了一次 τ。", _dtau_wrong("power 1")),
    Wrong("τ 的幂不对：分数 s/τ 对 τ 的导数是 −s/τ²（平方），你的结果像除了三次 τ。", _dtau_wrong("power 3")),
    Wrong("这像输出对查询的导数（练习 2 的 Jacobian）再乘以查询：这里要的是对温度的导数，分数对 τ 求导。",
          _dtau_wrong("q jacobian")),
]


# The task asks for the analytic derivative. A finite difference (f(tau + h) - f(tau - h)) / 2h of a numpy soft
# lookup is close to it, so float64 answers are held to rtol 1e-9 (a correct formula is right to ~1e-12 on every case)
# and two cases defeat every step size: at tau = 2e-6 (scores as small, so the weights are not saturated) any step
# h >= 1e-8 is a large step or crosses tau = 0; at tau = 1e6 the output moves ~1e-12 of itself per unit of tau, so
# rounding (~1e-16 / h) swamps any step h <= 1e-3 * tau, and a five-point stencil or Richardson extrapolation
# with a step ~1e-2 * tau is still off by ~1e-8 (at tau = 1e4 such stencils passed: fresh-eyes review). float32 results are compared at float32 precision as in the
# other checks (a float32 input case; float32 work passes every case). Not caught: a difference taken in float64 even
# on the float32 inputs and then rounded to float32, with a step in ~[1e-7, 1e-3] * tau (its error is below float32
# precision on every case), and a complex-step derivative (exact to rounding).
_DTAU_ATOL, _DTAU_RTOL = 1e-12, 1e-9
_NEAR_RTOL = 1e-2          # "close but not exact": how far a finite difference lands, far nearer than any wrong formula

_DTAU_DIFFERENCE = ("你的结果接近正确答案，但不够准：这像是用数值差分（有限差分，(f(τ+h) − f(τ−h))/2h 之类）近似了导数，"
                    "而不是解析导数。差分的误差随步长 h 变化，h 取多大都消不掉（大了截断误差大，小了舍入误差大）；"
                    "这个练习要的是用链式法则写出的解析式。")
_DTAU_DIFFERENCE_OR_F32 = ("差别只在 float32 的精度量级。两种可能：一是用数值差分（有限差分）近似了导数，而不是解析导数——"
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


def _name_a_difference(fn, cases, result: CheckResult, printed: str,
                       hint_difference: str = _DTAU_DIFFERENCE) -> tuple[CheckResult, str]:
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
    new_hint = _DTAU_DIFFERENCE_OR_F32 if MIXED_REASON in head else hint_difference
    new = head + _HINT_SEP + new_hint
    return CheckResult(result.name, False, result.n_cases, result.n_passed, new), printed.replace(msg, new)


@float_safe
def check_temperature_gradient(fn) -> CheckResult:
    """Check ``fn(q, K, V, temperature) -> (d_v,)``: the derivative of the soft-lookup output with respect to the
    temperature, written analytically in numpy (a finite difference fails, and is told so)."""
    rng = np.random.default_rng(20260224)
    q, K, V = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    q2, K2, V2 = rng.normal(size=2), rng.normal(size=(4, 2)), rng.normal(size=(4, 3))
    K_big = np.array([[10.0, 0.0], [9.5, 0.0], [0.0, 10.0]])
    q_big = np.array([1.0, 0.5])
    V_big = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    c32 = tuple(rng.normal(size=s).astype(np.float32) for s in (3, (4, 3), (4, 2))) + (0.6,)
    q_tiny, K_tiny, V_tiny = 2e-6 * rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    q_hot, K_hot, V_hot = rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    cases = [
        Case("5 个键，温度 0.5", (q, K, V, 0.5), _reference(q, K, V, 0.5),
             "先写出缩放后的分数 qK^T/tau 对 tau 的导数，再乘 softmax 的 Jacobian 和 V 的转置；注意 tau 出现的次数。"),
        Case("同样的键，温度 2", (q, K, V, 2.0), _reference(q, K, V, 2.0),
             "d(1/tau)/d tau = -1/tau^2：检查符号和 tau 的幂。"),
        Case("4 个键，d_v = 3，温度 0.8", (q2, K2, V2, 0.8), _reference(q2, K2, V2, 0.8),
             "结果的形状是 (d_v,)：每个输出分量对温度求一次导。"),
        Case("很小的温度 0.01（分数/温度约 1000）", (q_big, K_big, V_big, 0.01),
             _reference(q_big, K_big, V_big, 0.01),
             "先减去最大分数再取 exp，否则会溢出。"),
        Case("只有一个键", (q2, K2[:1], V2[:1], 0.7), np.zeros(3),
             "只有一个键时权重恒为 1，输出不随温度变化。"),
        Case("float32 输入", c32, _reference(*c32),
             "float32 输入按 float32 的精度比较。前面的 float64 用例都通过了，只有这里不对：这像是数值差分（有限差分）"
             "而不是解析导数——在 float32 里 f(τ+h) − f(τ−h) 几乎全是舍入误差。这个练习要的是用链式法则写出的解析式。"),
        Case("极小的温度 2e-6（分数也极小，权重并不极端）", (q_tiny, K_tiny, V_tiny, 2e-6),
             _reference(q_tiny, K_tiny, V_tiny, 2e-6),
             "前面的用例都通过了，只有这里不对：这像是数值差分（有限差分）而不是解析导数——温度只有 2e-6，"
             "步长 h 稍大就越过了 0 或远超温度本身。这个练习要的是用链式法则写出的解析式，它与温度的大小无关。"),
        Case("很高的温度 1e6（权重几乎均匀，输出随温度变化极慢）", (q_hot, K_hot, V_hot, 1e6),
             _reference(q_hot, K_hot, V_hot, 1e6),
             "前面的用例都通过了，只有这里不对：这像是数值差分（有限差分）而不是解析导数——输出随温度变化极慢，"
             "f(τ+h) − f(τ−h) 几乎全是舍入误差。这个练习要的是用链式法则写出的解析式。", atol=0.0),
    ]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed("check_temperature_gradient", fn, cases, wrong=_DTAU_WRONG, numpy_only=True,
                               atol=_DTAU_ATOL, rtol=_DTAU_RTOL,
                               general_hint="链式法则：输出 = alpha V，alpha = softmax(s/tau)；softmax 的 Jacobian 在本节推导过。")
    result, printed = _name_a_difference(fn, cases, result, buf.getvalue())
    print(printed, end="")
    return result


# ---- 2.2 exercises that ask for something new (issue 20): many queries with their own temperatures,
# the derivative of the output with respect to one key


def _lookup_many_ref(Qm, K, V, temperatures):
    S = np.asarray(Qm) @ np.asarray(K).T / np.asarray(temperatures, dtype=float)[:, None]
    return H.softmax(S, axis=-1) @ np.asarray(V)


def _lm_wrong(temps="rows", axis=-1, shift="row", weights=False):
    def wrong(Qm, K, V, temperatures):
        t = np.asarray(temperatures, dtype=float)
        S = Qm @ K.T
        S = {"rows": lambda: S / t[:, None], "cols": lambda: S / t, "first": lambda: S / t[0],
             "times": lambda: S * t[:, None], "none": lambda: S}[temps]()
        if shift == "global":
            E = np.exp(S - S.max())
            A = E / E.sum(axis=-1, keepdims=True)
        elif shift == "none":
            E = np.exp(S)
            A = E / E.sum(axis=axis, keepdims=True)
        else:
            A = lenient_softmax(S, axis=axis)
        return A if weights else A @ V
    return wrong


_LM_WRONG = [
    Wrong("第 i 个温度属于第 i 个查询，它除的是第 i 行的分数；你按列（第 i 个键）除了"
          "（形状 (m,) 的温度直接和 (m, n) 的分数相除，广播把它对齐到最后一个轴，即键；m ≠ n 时就报错）。", _lm_wrong(temps="cols")),
    Wrong("每个查询有自己的温度：你对所有查询用了同一个温度。", _lm_wrong(temps="first")),
    Wrong("分数要除以温度，而不是乘以温度：温度越低，分布越尖。", _lm_wrong(temps="times")),
    Wrong("温度没有用上：每一行分数先除以这个查询的温度。", _lm_wrong(temps="none")),
    Wrong("softmax 沿的是查询的轴：每个查询在它的 n 个键上归一化。", _lm_wrong(axis=0)),
    Wrong("减去的是整张表的最大值：温度很小的查询分数极大，安静的查询整行下溢成 0/0。每一行减去自己的最大值。",
          _lm_wrong(shift="global")),
    Wrong("取指数之前没有减去最大值：温度很小时分数很大，exp 溢出成 inf。", _lm_wrong(shift="none")),
    Wrong("你返回的是权重：还要用它们对值加权求和。", _lm_wrong(weights=True)),
]


@float_safe
def check_soft_lookup_many(fn) -> CheckResult:
    """Check ``fn(Qm, K, V, temperatures) -> out`` of shape (m, d_v), numpy only.

    ``Qm`` (m, d_k): m queries; ``K`` (n, d_k); ``V`` (n, d_v); ``temperatures`` (m,): query i uses
    its own temperature for softmax(K q_i / tau_i).
    """
    rng = np.random.default_rng(20260221)
    c1 = (rng.normal(size=(3, 2)), rng.normal(size=(5, 2)), rng.normal(size=(5, 4)), np.array([0.5, 1.0, 2.0]))
    c2 = (rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2)), np.array([0.25, 1.0, 4.0, 2.0]))
    c3 = (rng.normal(size=(3, 3)), rng.normal(size=(6, 3)), rng.normal(size=(6, 2)), np.array([1e-3, 1.0, 1e-3]))
    c4 = (rng.normal(size=(1, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 3)), np.array([0.7]))
    c5 = tuple(a.astype(np.float32) for a in (rng.normal(size=(2, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2)),
                                               np.array([0.5, 3.0])))
    cases = [
        Case("3 个查询、5 个键，温度 0.5 / 1 / 2", c1, _lookup_many_ref(*c1),
             "对每个查询：分数除以它自己的温度，沿键做 softmax，再对值加权求和；结果形状 (m, d_v)。"),
        Case("查询数与键数相同（m = n = 4）", c2, _lookup_many_ref(*c2),
             "形状凑巧相同时，温度放错轴也能运行：第 i 个温度只作用在第 i 个查询的那一行分数上。"),
        Case("有的温度极小（0.001）", c3, _lookup_many_ref(*c3),
             "温度很小时分数极大：每一行减去自己的最大值再取指数，不会溢出，也不会让别的行变成 0/0。"),
        Case("只有 1 个查询", c4, _lookup_many_ref(*c4), "m=1 时结果形状是 (1, d_v)。"),
        Case("float32 输入", c5, _lookup_many_ref(*c5), "float32 输入按 float32 的精度比较。"),
    ]
    return run_diagnosed("check_soft_lookup_many", fn, cases, wrong=_LM_WRONG, numpy_only=True, atol=1e-5, rtol=1e-4)


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
                               atol=_DTAU_ATOL, rtol=_DTAU_RTOL)
    result, printed = _name_a_difference(fn, cases, result, buf.getvalue(), _KEY_DIFFERENCE)
    print(printed, end="")
    return result
