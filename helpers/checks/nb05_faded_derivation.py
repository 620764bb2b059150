"""Self-check for 2.5's faded derivation: Var(q·k) again, line by line, when the components have a mean.

Section 1 of 2.5 derives Var(q·k) = d_k for independent components of mean 0 and variance 1. The faded
version (a collapsed 选读 after it) keeps independence but draws, from the learner's seed, a mean and a
variance for the components of q and of k and a d_k (:func:`faded_moments`); the learner redoes the
derivation one blank line at a time, each after writing why the step is allowed:

1. E[q_i k_i] = E[q_i] E[k_i]                       (independence)
2. E[q_i²] = Var(q_i) + E[q_i]²                     (the definition of the variance)
3. Var(q_i k_i) = E[q_i²] E[k_i²] − (E[q_i] E[k_i])²  (the same definition, and independence of q_i², k_i²)
4. Var(q·k) = d_k Var(q_i k_i)                      (independent terms: the variances add)

:func:`check_faded_derivation` takes a function that returns the number of one line, compares it exactly
(relative 1e-9: every quantity is a small rational number), names the classic slip (the mean-0 result
carried over, a variance taken for a second moment, the squared mean not subtracted, d_k forgotten or
squared) when no other slip gives the same number on the learner's seed (else the line's own hint), and once
the line is right prints why the step is allowed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validate import check_int
from .core import FAIL, Case, CheckResult, float_safe
from .diagnose import run_faded_step

__all__ = ["FadedMoments", "faded_moments", "check_faded_derivation"]

DEFAULT_SEED = 2026
_LINES = (1, 2, 3, 4)

#: Why each line is allowed: printed once the line is right, to compare with the learner's own reason.
REASONS = {
    1: "q_i 与 k_i 独立，独立变量乘积的期望等于期望的乘积：E[q_i k_i] = E[q_i]·E[k_i]。",
    2: "方差的定义 Var(q_i) = E[q_i²] − E[q_i]²，移项得 E[q_i²] = Var(q_i) + E[q_i]²：二阶矩不等于方差，除非均值是 0。",
    3: "对 X = q_i k_i 再用一次方差的定义 Var(X) = E[X²] − E[X]²；q_i² 与 k_i² 也独立，所以 E[q_i² k_i²] = E[q_i²]·E[k_i²]，"
       "E[X] 是第 1 行的结果。",
    4: "不同位置的项 q_i k_i 与 q_j k_j 由互不相交的独立变量算出，也相互独立、协方差为 0，"
       "所以和的方差等于方差之和：d_k 个相同的方差相加。",
}
_WHAT = {1: "第 1 行 E[q_i k_i]", 2: "第 2 行 E[q_i²]", 3: "第 3 行 Var(q_i k_i)", 4: "第 4 行 Var(q·k)"}
_HINT = {1: "独立变量乘积的期望等于期望的乘积。", 2: "方差 = 二阶矩 − 均值的平方；反过来求二阶矩。",
         3: "对乘积 q_i k_i 用方差的定义：它的二阶矩减去它的均值的平方。", 4: "d_k 个独立项的方差相加。"}


class FadedMoments(NamedTuple):
    """The components' means and variances and d_k of one learner's faded derivation."""

    seed: int
    d_k: int
    mean_q: int
    mean_k: int
    var_q: int
    var_k: int


def _lines(m: FadedMoments) -> dict[int, tuple[float, list[tuple[str, float]]]]:
    """Each line's right value and its classic wrong values (hint, value)."""
    mq, mk, vq, vk, d = m.mean_q, m.mean_k, m.var_q, m.var_k, m.d_k
    e1 = mq * mk
    e2q, e2k = vq + mq ** 2, vk + mk ** 2
    v3 = e2q * e2k - e1 ** 2
    zero_mean = "这是第 1 节（均值为 0）的结论：这里的分量均值不为 0，这一行要把均值带进来。"
    return {
        1: (e1, [(zero_mean, 0.0), ("加起来了：独立变量乘积的期望是期望的乘积，不是和。", mq + mk),
                 ("这是方差的乘积：这一行问的是期望（均值）。", vq * vk)]),
        2: (e2q, [("把方差当成了二阶矩：E[q_i²] = Var(q_i) + E[q_i]²，均值不为 0 时两者不同。", vq),
                  ("只算了均值的平方，漏了方差：E[q_i²] = Var(q_i) + E[q_i]²。", mq ** 2),
                  ("这是 (std + 均值)²：方差与均值的平方直接相加，不要先开方。", (vq ** 0.5 + mq) ** 2),
                  ("你算的是 k 的二阶矩：这一行问的是 q。", e2k)]),
        3: (v3, [(zero_mean, vq * vk),
                 ("只算了二阶矩 E[q_i²]·E[k_i²]，没有减去均值的平方 (E[q_i]·E[k_i])²。", e2q * e2k),
                 ("均值的平方应该减去，不是加上：Var(X) = E[X²] − E[X]²。", e2q * e2k + e1 ** 2),
                 ("方差的乘积再加均值的乘积：先按定义写出 E[X²] − E[X]²，再代入第 1、2 行。", vq * vk + e1 ** 2)]),
        4: (d * v3, [("忘了乘 d_k：点积是 d_k 项之和。", v3), ("乘了 d_k²：d_k 个独立项的方差相加，是乘 d_k。", d * d * v3),
                     ("乘了 √d_k：那是标准差的增长；方差按 d_k 增长。", d ** 0.5 * v3),
                     (zero_mean, d * vq * vk), ("没有减去均值的平方（第 3 行）。", d * e2q * e2k)]),
    }


def _unlisted(m: FadedMoments) -> dict[int, list[float]]:
    """Each line's slips that have no hint of their own: a wrong value equal to one of them is not named.

    Line 3 expanded, Var(q_i k_i) = vq·vk + vq·mk² + vk·mq², with one of its three terms left out (line 4 is d_k times
    line 3). On seed 2026 vq·mk² + vk·mq² (vq·vk left out) equals the listed
    vq·vk + (mq·mk)², so a learner who made the first slip would be told of the second.
    """
    mq, mk, vq, vk, d = m.mean_q, m.mean_k, m.var_q, m.var_k, m.d_k
    terms = (vq * vk, vq * mk ** 2, vk * mq ** 2)
    dropped = [sum(terms) - t for t in terms]
    return {1: [], 2: [], 3: dropped, 4: [d * x for x in dropped]}


def _unambiguous(wrongs: list[tuple[str, float]], unlisted: list[float]) -> list[tuple[str, float]]:
    """The listed slips whose value no other slip (listed or not) gives: only those are named by their hint."""
    values = [v for _, v in wrongs] + list(unlisted)
    same = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(a))
    return [(h, v) for h, v in wrongs if sum(same(v, w) for w in values) == 1]


def _telling(m: FadedMoments) -> bool:
    """Every classic wrong value differs from the right one (by more than 1e-3 relative)."""
    return all(abs(w - right) > 1e-3 * max(1.0, abs(right)) for right, wrongs in _lines(m).values() for _, w in wrongs)


def faded_moments(seed: int = DEFAULT_SEED) -> FadedMoments:
    """The faded derivation of the learner's ``seed``: d_k in {4, 8, 16, 32, 64}, means in {1, 2, 3} (q) and
    {1, 2} (k), variances in {1, 2, 4}; every classic slip of every line gives a different number on it.

    Parameters
    ----------
    seed : int, >= 0
        Any non-negative integer (a student number will do); the same seed always gives the same numbers.
    """
    seed = check_int("seed", seed, 0)
    rng = np.random.default_rng([205, seed])
    while True:
        m = FadedMoments(seed, int(rng.choice([4, 8, 16, 32, 64])), int(rng.integers(1, 4)), int(rng.integers(1, 3)),
                         int(rng.choice([1, 2, 4])), int(rng.choice([1, 2, 4])))
        if _telling(m):
            return m


@float_safe
def check_faded_derivation(fn, seed: int = DEFAULT_SEED, line: int = 1) -> CheckResult:
    """Check ``fn() -> number``: line ``line`` (1-4) of the faded derivation of ``faded_moments(seed)``.

    The number must equal the exact value to a relative 1e-9 (an expression such as ``3 * 5 - 4`` is fine;
    a float rounded to a few decimals is not needed: every value is an integer).
    """
    name = f"check_faded_derivation(line={line!r})"
    for arg, value, ok in (("line", line, _in(line, _LINES)), ("seed", seed, _natural(seed))):
        if not ok:
            what = " 1、2、3 或 4（第几行）" if arg == "line" else "非负整数（例如你的学号，和上面抽数时用的是同一个）"
            msg = f"{FAIL} {name}：{arg} 要是{what}；你传入的是 {type(value).__name__} {value!r}。"
            print(msg)
            return CheckResult(name, False, 1, 0, msg)
    m = faded_moments(int(seed))
    right, wrongs = _lines(m)[int(line)]
    named = _unambiguous(wrongs, _unlisted(m)[int(line)])   # two slips, one number: the line's own hint instead
    return run_faded_step(name, fn, Case(_WHAT[int(line)], (), float(right), _HINT[int(line)]), named,
                          returns="这一行的数", passed="这一行对了，通过（this line is right）。",
                          reason=REASONS[int(line)], atol=0.0, rtol=1e-9)


def _in(value, allowed) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and int(value) in allowed


def _natural(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, np.integer)) and value >= 0
