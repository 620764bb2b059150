"""Self-checks for 2.12's chapter self-test: the book's four outcomes, on numbers the learner's seed draws.

The chapter promises that a learner can (a) write the formula, (b) say each array's shape, (c) say why
each term is there and (d) hand-compute a 4-token example. :func:`self_test` draws, from any non-negative
integer seed (a student number will do), one small problem for each; the same seed always gives the same
numbers, a new seed new ones (retake the test; a class cannot share answers). Each ``check_self_test_*``
runs the learner's function on the seed's numbers (and, where the answer is a function, on hidden cases
too), names the classic mistake when the answer is one, and never raises because of the learner's code.

The machinery is the series' own: ``run_diagnosed`` with ``Wrong`` answers (named mistakes), and for (d)
the 4-token example and the wrong answers of 2.8's faded example (:mod:`.nb08_faded_example`).
"""

from __future__ import annotations

import contextlib
import io
import math
import re
from typing import NamedTuple

import numpy as np

from .._validate import check_int
from .compare import exception_text
from .core import FAIL, PASS, TODO, Case, CheckResult, float_safe, lenient_softmax, run_check, signature_problem
from .diagnose import Wrong, run_diagnosed
from .nb08_faded_example import DEFAULT_SEED, HAND_ONLY_WHAT, FadedExample, step_answers
from .numpy_only import attention_helpers

__all__ = ["SelfTest", "self_test", "check_self_test_formula", "check_self_test_shapes", "check_self_test_terms",
           "check_self_test_row"]

ROW_TOL = 1e-3                      # (d): a hand computation to 3 decimals
_ROW_MARGIN = 3 * ROW_TOL           # every classic wrong row is at least this far from the right one
SHAPE_NAMES = ("Q", "K", "V", "S", "A", "out")
_N_TOKENS = 64                      # (c): rows of Q and K, enough for a stable standard deviation


class SelfTest(NamedTuple):
    """The seed's self-test: sizes for (b), Q and K for (c), the 4-token example for (a) and (d)."""

    seed: int
    sizes: dict           # (b): T, d_model, d_k, d_v, four different numbers
    Q_big: np.ndarray     # (c): (64, d_k) standard normal queries
    K_big: np.ndarray     # (c): (64, d_k) standard normal keys
    example: FadedExample  # (a), (d): Q, K, V (4, 2) small integers, and the row (1..4) to hand-compute


def _row_answers(ex: FadedExample):
    """The right output row of ``ex`` and its named wrong answers (2.8's), each flagged classic or not."""
    with np.errstate(all="ignore"):
        return step_answers(ex, "output")


def _row_classics(wrongs) -> list[tuple[str, np.ndarray]]:
    """Of 2.8's wrong rows (hint, value, flag), those that must stand out at 1e-3: forgot √d_k, a column-wise
    softmax, a column of S' for a row, weights rounded to 2 decimals (too early), another row. (2.8's flags are
    for its 1e-4.)"""
    return [(h, v) for n, (h, v, _) in enumerate(wrongs) if n < 4 or h.startswith("你算的是第")]


def _row_telling(ex: FadedExample) -> bool:
    """Every classic wrong row stands out from the right one and from every other named mistake (its name is
    unambiguous)."""
    right, wrongs = _row_answers(ex)
    classics = _row_classics(wrongs)
    others = [(h, v) for h, v, _ in wrongs if "小数" not in h]      # every named mistake but a late rounding
    return all(np.max(np.abs(a - b)) > _ROW_MARGIN for n, (ha, a) in enumerate(classics)
               for hb, b in [("", right)] + classics[n + 1:] + others if hb != ha)


def self_test(seed: int) -> SelfTest:
    """The self-test of ``seed`` (any non-negative integer, e.g. a student number).

    Returns
    -------
    SelfTest
        ``sizes``: T in 3..6 and d_model, d_k, d_v in 2..9, all four different (each shape has one reading);
        ``Q_big``, ``K_big``: (64, d_k) with d_k in {16, 25, 36, 49, 64}; ``example``: a 4-token example
        (d_k = 2) on which every classic wrong output row differs from the right one by more than 3e-3.
    """
    seed = check_int("seed", seed, 0)
    rng = np.random.default_rng([1212, seed])
    while True:
        T = int(rng.integers(3, 7))
        d_model, d_k, d_v = (int(v) for v in rng.choice(np.arange(2, 10), size=3, replace=False))
        if T not in (d_model, d_k, d_v):
            break
    d_big = int(rng.choice([16, 25, 36, 49, 64]))
    Q_big, K_big = rng.normal(size=(2, _N_TOKENS, d_big))
    while True:                     # drawn as 2.8's are, until every classic mistake shows (a few draws)
        Q, K = (rng.integers(0, 3, size=(4, 2)).astype(float) for _ in range(2))
        V = rng.integers(0, 4, size=(4, 2)).astype(float)
        ex = FadedExample(seed, Q, K, V, int(rng.integers(1, 5)))
        if _row_telling(ex):
            break
    return SelfTest(seed, {"T": T, "d_model": d_model, "d_k": d_k, "d_v": d_v}, Q_big, K_big, ex)


def _bad_seed(name: str, seed) -> CheckResult | None:
    if seed is None:                # the graded lab's release: SEED = None until the student sets it (no shared default)
        msg = f"{TODO} {name}：先把 SEED 改成你的学号（一个整数），再运行。"
        print(msg)
        return CheckResult(name, False, 1, 0, msg)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        msg = (f"{FAIL} {name}：SEED 要是一个非负整数（例如你的学号）；"
               f"你传入的是 {type(seed).__name__} {seed!r}。")
        print(msg)
        return CheckResult(name, False, 1, 0, msg)
    return None


def _name(what: str, seed) -> str:
    return f"check_self_test_{what}(seed={seed!r})"


# ---------------------------------------------------------------- (a) the formula


def _attention(Q, K, V, *, scale=True, axis=-1, transpose=True, stable=True, weights=False):
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    S = Q @ (K.T if transpose else K)
    if scale is True:
        S = S / math.sqrt(Q.shape[-1])
    elif scale == "d_k":
        S = S / Q.shape[-1]
    elif scale == "d_v":
        S = S / math.sqrt(V.shape[-1])
    elif scale == "T":
        S = S / math.sqrt(Q.shape[0])
    if stable:
        A = lenient_softmax(S, axis=axis)
    else:
        E = np.exp(S)
        A = E / E.sum(axis=axis, keepdims=True)
    return A if weights else A @ V


_FORMULA_WRONG = (
    Wrong("忘了除以 √d_k：公式是 softmax(QKᵀ/√d_k)V，分数先缩放再做 softmax。", lambda Q, K, V: _attention(Q, K, V, scale=False)),
    Wrong("除以了 d_k：应该除以 √d_k（点积的标准差是 √d_k，2.5 节）。", lambda Q, K, V: _attention(Q, K, V, scale="d_k")),
    Wrong("除以了 √d_v（V 的宽度）：缩放的是分数 QKᵀ，它的尺度由 q、k 的长度 d_k 决定（Q 的最后一维），应除以 √d_k。",
          lambda Q, K, V: _attention(Q, K, V, scale="d_v")),
    Wrong("除以了 √T（词的个数）：缩放抵消的是 d_k 个乘积相加带来的方差，应除以 √d_k（Q 的最后一维），与序列长度无关。",
          lambda Q, K, V: _attention(Q, K, V, scale="T")),
    Wrong("沿列做了 softmax：注意力按行归一化（axis=-1），每个查询的权重加起来是 1。",
          lambda Q, K, V: _attention(Q, K, V, axis=0)),
    Wrong("K 没有转置：分数是 QKᵀ（q_i 与每个 k_j 的点积），Q @ K 的形状只在 T = d_k 时才碰巧对得上。",
          lambda Q, K, V: _attention(Q, K, V, transpose=False)),
    Wrong("你返回的是权重 A，不是输出：最后还要乘 V（AV）。", lambda Q, K, V: _attention(Q, K, V, weights=True)),
    Wrong("取指数前没有减去每一行的最大值：分数很大时 exp 溢出，得到 inf/inf = NaN（2.6 节）。",
          lambda Q, K, V: _attention(Q, K, V, stable=False)),
)


def _formula_cases(t: SelfTest) -> list[Case]:
    rng = np.random.default_rng([1212, t.seed, 1])
    ex = t.example
    cases = [Case("你的种子的 4 个词的例子，d_k = 2", (ex.Q, ex.K, ex.V), _attention(ex.Q, ex.K, ex.V),
                  "对照公式 softmax(QKᵀ/√d_k)V 一步一步检查。")]
    for T, d_k, d_v, label in ((5, 3, 4, "T = 5，d_k = 3，d_v = 4"), (3, 3, 2, "T = d_k = 3")):
        Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
        cases.append(Case(label, (Q, K, V), _attention(Q, K, V), "d_k 取 Q 的最后一维，不要写死成 2。"))
    Q, K, V = 30 + rng.normal(size=(4, 3)), 30 + rng.normal(size=(4, 3)), rng.normal(size=(4, 2))   # scores > 1000
    cases.append(Case("很大的分数", (Q, K, V), _attention(Q, K, V), "softmax 要数值稳定：取指数前减去每一行的最大值。"))
    return cases


@float_safe
def check_self_test_formula(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """(a) ``fn(Q, K, V) -> softmax(QKᵀ/√d_k) V``, numpy only (any use of ``helpers`` refused), on the seed's example and hidden cases."""
    name = _name("formula", seed)
    bad = _bad_seed(name, seed)
    if bad is not None:
        return bad
    return run_diagnosed(name, fn, _formula_cases(self_test(int(seed))), wrong=_FORMULA_WRONG, numpy_only=True,
                         ask="只用 numpy 写出公式", learner=fn)


# ---------------------------------------------------------------- (b) the shapes


def _right_shapes(T, d_model, d_k, d_v) -> dict:
    return {"Q": (T, d_k), "K": (T, d_k), "V": (T, d_v), "S": (T, T), "A": (T, T), "out": (T, d_v)}


def _shape_mistake(key: str, got: tuple, sizes: dict) -> str:
    """Name what a wrong shape of ``key`` means (Chinese)."""
    T, d_model, d_k, d_v = (sizes[k] for k in ("T", "d_model", "d_k", "d_v"))
    if key in ("Q", "K", "V") and got == (T, d_model):
        return f"{key} = X W 的最后一维是 W 的列数，d_model 在投影里被乘掉了。"
    if key in ("Q", "K", "V") and len(got) == 2 and got[0] != T:
        return f"{key} 的每一行属于一个词：第一维是 T = {T}。"
    if key in ("Q", "K") and got == (T, d_v):
        return "Q 和 K 要做点积，最后一维必须一样，是 d_k（d_v 只属于 V 和输出）。"
    if key == "V" and got == (T, d_k):
        return "V 的最后一维是 d_v：它可以和 d_k 不同（点积只要求 Q、K 一致）。"
    if key in ("S", "A") and got in ((d_k, d_k), (T, d_k), (d_k, T)):
        return f"{key} = QKᵀ 是每一对（查询，键）的分数：(T, T)，d_k 在点积里被求和掉了。"
    if key in ("S", "A"):
        return f"{key} 的每一行属于一个查询、每一列属于一个键：(T, T)。"
    if key == "out" and got == (T, d_k):
        return "输出是值向量的加权平均，最后一维跟 V 走，是 d_v，不是 d_k。"
    if key == "out" and got == (T, d_model):
        return "这里只到 AV（单头、没有输出投影 W_O），最后一维是 d_v。"
    if key == "out" and got == (T, T):
        return "输出是 AV：(T, T) 乘 (T, d_v) 得到 (T, d_v)。"
    return "按矩阵乘法 (m, n)(n, p) = (m, p) 重新推一遍这一步。"


def _as_shapes(got):
    """The learner's answer as a dict name -> tuple of ints, or a Chinese reason why it cannot be read."""
    if got is None:
        return None, "你的函数返回了 None（是不是忘了写 `return`？）"
    if isinstance(got, dict):
        missing = [k for k in SHAPE_NAMES if k not in got]
        if missing:
            return None, f"返回的字典缺少键 {'、'.join(missing)}（要有 {'、'.join(SHAPE_NAMES)}）"
        items = {k: got[k] for k in SHAPE_NAMES}
    elif isinstance(got, (tuple, list)) and len(got) == len(SHAPE_NAMES):
        items = dict(zip(SHAPE_NAMES, got))
    else:
        return None, (f"应返回一个字典（键 {'、'.join(SHAPE_NAMES)}）或按这个顺序的 6 个形状组成的元组；"
                      f"你返回的是 {type(got).__name__}")
    out = {}
    for k, v in items.items():
        try:
            shape = tuple(v)
            if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in shape):
                raise TypeError
        except TypeError:
            return None, f"{k} 的形状要写成整数组成的元组，例如 (3, 4)；你给的是 {v!r}"
        out[k] = tuple(int(n) for n in shape)
    return out, None


@float_safe
def check_self_test_shapes(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """(b) ``fn(T, d_model, d_k, d_v)`` -> the shapes of Q, K, V, S, A, out (a dict, or a tuple in that order),
    on the seed's sizes and two hidden ones; a wrong one is named with what it means."""
    name = _name("shapes", seed)
    bad = _bad_seed(name, seed)
    if bad is not None:
        return bad
    if not callable(fn):
        return run_check(name, fn, [])
    sizes = self_test(int(seed)).sizes
    hidden = [sizes, {"T": 7, "d_model": 10, "d_k": 3, "d_v": 5}, {"T": 2, "d_model": 4, "d_k": 6, "d_v": 9}]
    problem = signature_problem(fn, (1, 2, 3, 4), {})
    if problem:
        return _fail(name, len(hidden), 0, f"{FAIL} {name}：{problem}（参数是 T, d_model, d_k, d_v）。")
    for n, s in enumerate(hidden):
        where = "你的种子的大小" if n == 0 else f"第 {n + 1}/{len(hidden)} 组大小"
        where += "（" + "、".join(f"{k} = {v}" for k, v in s.items()) + "）"
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                got = fn(s["T"], s["d_model"], s["d_k"], s["d_v"])
        except NotImplementedError:
            return _fail(name, len(hidden), n, f"{TODO} {name}：尚未完成（not done yet）——把 `raise NotImplementedError` "
                         "换成你的代码，再运行这个单元。")
        except Exception as exc:
            return _fail(name, len(hidden), n, f"{FAIL} {name}：{where}：你的函数抛出了异常 {exception_text(exc)}。")
        shapes, reason = _as_shapes(got)
        if reason:
            return _fail(name, len(hidden), n, f"{FAIL} {name}：{where}：{reason}。")
        right = _right_shapes(**s)
        for k in SHAPE_NAMES:
            if shapes[k] != right[k]:
                return _fail(name, len(hidden), n, f"{FAIL} {name}：{where}：{k} 的形状不对（你写的是 {shapes[k]}）。"
                             f"\n   提示（hint）：{_shape_mistake(k, shapes[k], s)}")
    msg = f"{PASS} {name}：你的种子的大小和 {len(hidden) - 1} 组隐藏的大小，六个形状都对（all shapes right）。"
    print(msg)
    return CheckResult(name, True, len(hidden), len(hidden), msg)


def _fail(name: str, n_cases: int, n_passed: int, msg: str) -> CheckResult:
    print(msg)
    return CheckResult(name, False, n_cases, n_passed, msg)


# ---------------------------------------------------------------- (c) why each term, in numbers


def _stds(Q, K, *, scaled_by=None, ddof=0, of_q=False):
    Q, K = np.asarray(Q, dtype=float), np.asarray(K, dtype=float)
    S = Q @ K.T
    d = Q.shape[-1] if scaled_by is None else scaled_by
    if of_q:
        return np.array([Q.std(ddof=ddof), (Q / math.sqrt(d)).std(ddof=ddof)])
    return np.array([S.std(ddof=ddof), (S / math.sqrt(d)).std(ddof=ddof)])


_TERMS_WRONG = (
    Wrong("第二个数除以的是 d_k，不是 √d_k：缩放后的分数是 QKᵀ/√d_k。",
          lambda Q, K: np.array([_stds(Q, K)[0], _stds(Q, K)[0] / Q.shape[-1]])),
    Wrong("你返回的是方差（var），要的是标准差（std）：方差是 d_k，标准差才是 √d_k。",
          lambda Q, K: _stds(Q, K) ** 2),
    Wrong("两个数的顺序反了：先未缩放的 QKᵀ，再缩放后的 QKᵀ/√d_k。", lambda Q, K: _stds(Q, K)[::-1]),
    Wrong("你算的是 Q 的标准差，不是分数 QKᵀ 的：要看的是点积 q·k 的尺度。", lambda Q, K: _stds(Q, K, of_q=True)),
    Wrong("你算的是 QK（K 没有转置）或 QᵀK：分数是 Q @ K.T，形状 (T, T)。",
          lambda Q, K: np.array([(Q.T @ K).std(), (Q.T @ K).std() / math.sqrt(Q.shape[-1])])),
)


@float_safe
def check_self_test_terms(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """(c) ``fn(Q, K) -> (std of QKᵀ, std of QKᵀ/√d_k)`` on the seed's (64, d_k) Q, K and hidden ones; once right,
    prints what the two numbers say about each term of the formula."""
    name = _name("terms", seed)
    bad = _bad_seed(name, seed)
    if bad is not None:
        return bad
    t = self_test(int(seed))
    rng = np.random.default_rng([1212, t.seed, 3])
    cases = [Case(f"你的种子的 Q、K，d_k = {t.Q_big.shape[1]}", (t.Q_big, t.K_big), _stds(t.Q_big, t.K_big),
                  "两个数：未缩放的分数 QKᵀ 的标准差，和除以 √d_k 之后的标准差；d_k 是 Q 每行的长度。")]
    for d in (9, 100):
        Q, K = rng.normal(size=(2, 30, d))
        cases.append(Case(f"d_k = {d}", (Q, K), _stds(Q, K), "d_k 取 Q 的最后一维，不要写死。"))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):     # std with ddof = 0 or 1 are both right: 1e-3 relative
        result = run_diagnosed(name, fn, cases, wrong=_TERMS_WRONG, atol=1e-9, rtol=1e-3, dtype_aware=False)
    if not result.passed:
        print(buf.getvalue(), end="")
        return result
    s = _stds(t.Q_big, t.K_big)
    d = t.Q_big.shape[1]
    msg = (f"{PASS} {name}：两个数都对（both right）。\n   读这两个数：q、k 的分量方差为 1 时，未缩放的分数标准差约为 "
           f"√d_k = {math.sqrt(d):g}（你的是 {s[0]:.2f}），缩放后约为 1（你的是 {s[1]:.2f}）。"
           "这就是 √d_k 的理由：不缩放，d_k 越大分数越大，softmax 越接近 one-hot、梯度越小（2.5 节）；"
           "softmax 把每一行变成加起来为 1 的权重（2.6 节），所以 AV 是值向量的加权平均；"
           "Kᵀ 让 S 的 (i, j) 元是 q_i·k_j（2.4 节）。")
    print(buf.getvalue().replace(result.message, msg, 1), end="")
    return CheckResult(result.name, True, result.n_cases, result.n_passed, msg)


# ---------------------------------------------------------------- (d) one output row by hand


@float_safe
def check_self_test_row(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """(d) ``fn() -> output row`` (2,): row ``self_test(seed).example.row`` of softmax(QKᵀ/√2)V, to 1e-3,
    computed by hand (numpy as a calculator; the helpers' attention refused)."""
    name = _name("row", seed)
    bad = _bad_seed(name, seed)
    if bad is not None:
        return bad
    if not callable(fn):
        return run_check(name, fn, [])
    problem = signature_problem(fn, (), {})
    if problem:
        return _fail(name, 1, 0, f"{FAIL} {name}：{problem}（这个函数不需要参数，直接返回这一行）。")
    ex = self_test(int(seed)).example
    right, wrongs = _row_answers(ex)
    case = Case(f"输出的第 {ex.row} 行，形状 (2,)", (), right,
                f"先算第 {ex.row} 行的分数、除以 √2、softmax（全精度），再给 V 的四行加权求和。")
    wrong = [Wrong(h, (lambda v: lambda: v)(v)) for h, v, _ in wrongs]
    if ex.row == len(ex.Q):     # the last row, indexed as if from 1: Q[4] of a 4-row Q is out of range
        wrong.append(Wrong(f"第 {ex.row} 行在代码里的下标是 {ex.row - 1}（Python 从 0 数起，{len(ex.Q)} 行的下标是 0..{len(ex.Q) - 1}），"
                           f"下标 {ex.row} 越界了。", lambda: ex.Q[ex.row]))
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed(name, fn, [case], wrong=wrong, forbid=attention_helpers(),
                               forbid_what=HAND_ONLY_WHAT, ask="亲手算（numpy 只当计算器）",
                               learner=fn, atol=ROW_TOL, rtol=0.0, dtype_aware=False)
    msg = (f"{PASS} {name}：第 {ex.row} 行算对了（your row is right）。" if result.passed
           else re.sub(r"第 1/1 个用例（([^）]*)）：", r"\1：", result.message, count=1).replace("1e-4", "1e-3"))
    print(buf.getvalue().replace(result.message, msg, 1), end="")
    return CheckResult(result.name, result.passed, 1, result.n_passed, msg)
