"""The self-check machinery behind every exercise.

A check runs the learner's function on hidden cases and prints one clear line
(in Simplified Chinese): pass, or the first case that failed and a hint. It never
prints the expected answer, and it never raises because the learner's code did:
the notebook must keep running so the learner can fix the cell and try again.

The learner's function receives copies of the hidden inputs; a function that
changes its inputs in place fails (the caller's arrays would change under it).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .compare import (FLOAT16_REASON, MIXED_REASON, as_numbers, compare_values, describe_value, dtype_tolerance,
                      exception_text, input_precision, type_problem)

__all__ = ["Case", "CheckResult", "run_check", "check_array", "float_safe"]

PASS = "\u2705"  # green check mark
FAIL = "\u274c"  # red cross
TODO = "\u23f3"  # hourglass: not done yet


@dataclass(frozen=True)
class Case:
    """One hidden test case.

    Attributes
    ----------
    label : str
        Short description shown when the case fails ("很大的分数").
    args : tuple
        Positional arguments for the learner's function.
    expected : Any
        The reference result (array, tuple of arrays or scalar). Never printed.
    hint : str
        What to look at if this case fails (Chinese, conceptual, never the code of the answer).
    kwargs : dict
        Keyword arguments for the learner's function.
    atol, rtol : float or None
        Tolerances for this case only (e.g. a float32 input); ``None`` uses the check's.
    """

    label: str
    args: tuple
    expected: Any
    hint: str = ""
    kwargs: dict = field(default_factory=dict)
    atol: float | None = None
    rtol: float | None = None


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a check; truthy when every case passed."""

    name: str
    passed: bool
    n_cases: int
    n_passed: int
    message: str

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return f"CheckResult(name={self.name!r}, passed={self.passed}, cases={self.n_passed}/{self.n_cases})"

    def _ipython_display_(self) -> None:
        # The check already printed its verdict; showing the object again would repeat it.
        return None


CONSTANT_HINT = ("你的函数对不同的隐藏输入返回了完全相同的结果，说明它没有用到传进来的参数：是不是把例子的答案写死了，"
                 "或者用的是笔记本里的全局变量，而不是函数自己的参数？")


def float_safe(check: Callable) -> Callable:
    """Decorate a ``check_*`` so that building its hidden cases ignores numpy's error settings.

    A learner who ran ``np.seterr(all="raise")`` (to hunt an overflow) must still get a verdict,
    not a ``FloatingPointError`` traceback from the reference computation (e.g. exp underflow).
    """
    @functools.wraps(check)
    def wrapper(*args, **kwargs):
        with np.errstate(all="ignore"):
            return check(*args, **kwargs)
    return wrapper


def lenient_softmax(S, axis: int = -1) -> np.ndarray:
    """Stable softmax along ``axis`` that never raises: NaN and 0/0 come out as plain numpy gives them.

    The checks' reference (expected) values use the one core softmax, ``H.softmax``. This is the single
    exception, for code that must *behave like a learner's numpy code* rather than like the validated
    helper: the classic wrong answers a diagnosis compares with (a mask that hides a whole row gives 0/0,
    which ``H.softmax`` refuses with a ValueError) and the implementations handed to a learner's test
    (which may feed them any input). It is also immune to a ``helpers`` tripwire (see ``numpy_only``).
    """
    S = np.asarray(S, dtype=float)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(S - S.max(axis=axis, keepdims=True))
        return e / e.sum(axis=axis, keepdims=True)


def signature_problem(fn: Callable, args: tuple, kwargs: dict) -> str | None:
    """Say (in Chinese) why ``fn`` cannot be called with ``args``/``kwargs``, or None if it can.

    Only the number of arguments and the keyword names are named, never their values.
    Callables without an inspectable signature (some builtins) are let through.
    """
    try:
        sig = inspect.signature(fn)
    except Exception:  # builtins without a signature, or a callable whose __signature__ raises
        return None
    try:
        sig.bind(*args, **kwargs)
    except TypeError:
        how = f" {len(args)} 个位置参数"
        if kwargs:
            how += "，外加关键字参数 " + "、".join(f"{k}=…" for k in kwargs)
        return (f"你的函数的参数个数不对：检查会用{how} 来调用它，而你的函数定义是 "
                f"{getattr(fn, '__name__', '函数')}{sig}。请按练习说明里的参数列表定义函数")
    return None


def _copy_args(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    return copy.deepcopy(args), copy.deepcopy(kwargs)


def _same(a, b) -> bool:
    """True if ``a`` (the original input) still equals ``b`` (what the learner's function saw)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return bool(a == b) or (a != a and b != b)
    except Exception:  # objects that cannot be compared are not inputs we check
        return True


def run_check(
    name: str,
    fn: Callable,
    cases: Sequence[Case],
    *,
    atol: float = 1e-6,
    rtol: float = 1e-6,
    general_hint: str = "",
    dtype_aware: bool = True,
    result_type=None,
) -> CheckResult:
    """Run ``fn`` on each case, print a verdict line, return a :class:`CheckResult`.

    Stops at the first failing case. A ``NotImplementedError`` from ``fn`` is
    reported as "尚未完成 (not done yet)" and gives a falsy result; any other
    exception is reported with its type and message (no traceback), followed by
    the case's hint; ``KeyboardInterrupt`` and ``SystemExit`` propagate. Whatever ``fn`` returns
    (None, a string, a generator, a complex or object array, an int too large for a float ...)
    gives a Chinese verdict, never a traceback. ``fn`` gets copies of the inputs; changing them in
    place fails. numpy floating-point warnings inside ``fn`` are silenced: the check reports NaN/inf itself.

    ``dtype_aware``: a float32/float16 result is compared at its own precision (:func:`dtype_tolerance`);
    pass False where the task states its tolerance. ``result_type`` (``int``, ``bool`` or
    ``"bool array"``): the type the task asks for, enforced once the values are right.
    """
    if not callable(fn):
        msg = (f"{FAIL} {name}：这里需要传入一个函数，你传入的是 {type(fn).__name__}。"
               "请传函数本身，不要在函数名后加括号调用它。")
        print(msg)
        return CheckResult(name, False, len(cases), 0, msg)
    for k, case in enumerate(cases):
        where = f"第 {k + 1}/{len(cases)} 个用例（{case.label}）"
        problem = signature_problem(fn, case.args, case.kwargs)
        if problem:  # a wrong signature is not a wrong answer: no case hint, no Python traceback text
            msg = f"{FAIL} {name}：{problem}。"
            print(msg)
            return CheckResult(name, False, len(cases), k, msg)
        args, kwargs = _copy_args(case.args, case.kwargs)
        try:
            with np.errstate(all="ignore"):
                got = fn(*args, **kwargs)
        except NotImplementedError:
            msg = (f"{TODO} {name}：尚未完成（not done yet）——把 `raise NotImplementedError` "
                   "换成你的代码，再运行这个单元。")
            print(msg)
            return CheckResult(name, False, len(cases), k, msg)
        except Exception as exc:  # the learner's bug must not stop the notebook
            reason = f"你的函数抛出了异常 {exception_text(exc)}"
        else:
            try:
                if not (_same(case.args, args) and _same(case.kwargs, kwargs)):
                    reason = "你的函数原地修改（in-place）了传入的数组；请在新数组上计算，不要改动输入"
                else:
                    reason = compare_values(got, case.expected, atol if case.atol is None else case.atol,
                                            rtol if case.rtol is None else case.rtol, dtype_aware,
                                            inputs_dtype=input_precision(case.args, case.kwargs))
                    if reason is None and result_type is not None:
                        problem = type_problem(got, result_type)
                        reason = f"数值对了，但{problem}" if problem else None
            except Exception:  # a result so odd that even reading it fails
                reason = f"检查读不懂你的返回值（{describe_value(got)}）"
        if reason:
            hint = case.hint or general_hint
            if "原地修改" in reason:
                hint = "把中间结果存进新的变量，而不是用 -=、/= 之类的原地运算改写传进来的数组。"
            elif reason.startswith("你的函数返回了 None"):
                hint = "函数要用 return 把结果交回来：只用 print 打印出来的话，调用它的代码（和检查）拿到的是 None。"
            elif reason.startswith("数值对了"):
                hint = "数值已经对了，只差返回值的类型：按练习说明里要求的类型返回。"
            elif FLOAT16_REASON in reason:
                hint = "float16 的舍入误差比这个练习允许的大：请用 float32 或 float64 计算，结果保持这个精度。"
            elif "抛出了异常" not in reason and _ignores_its_input(fn, cases, k, got):
                hint = CONSTANT_HINT
            elif MIXED_REASON in reason:
                hint = ("如果你在中途把数组转成了 float32，之后又和 float64 的数（例如对整数 d_k 开平方得到的数）一起运算，结果会变回 float64，"
                        "精度却只有 float32 的：要么全程用 float64，要么让结果保持 float32（检查会按 float32 的精度比较）。"
                        "如果你没有用 float32：差别这么小，通常是某个很小的量（例如 eps）放错了位置，或者某个常数只写了几位小数。")
            msg = f"{FAIL} {name}：{where}：{reason}。" + (f"\n   提示（hint）：{hint}" if hint else "")
            print(msg)
            return CheckResult(name, False, len(cases), k, msg)
    msg = f"{PASS} {name}：全部 {len(cases)} 个隐藏用例通过（all {len(cases)} hidden cases pass）。"
    print(msg)
    return CheckResult(name, True, len(cases), len(cases), msg)


def _ignores_its_input(fn, cases: Sequence[Case], k: int, got) -> bool:
    """True if ``fn`` returned exactly ``got`` on every other case although the expected answers differ
    (a hard-coded example answer, or a notebook global read instead of the argument). Never raises."""
    others = [c for j, c in enumerate(cases) if j != k]
    if not others:
        return False
    mine, bad = as_numbers(got)
    if bad:
        return False
    try:
        expected_k = np.asarray(cases[k].expected, dtype=float)
        if all(np.shape(c.expected) == expected_k.shape and np.array_equal(np.asarray(c.expected, dtype=float), expected_k,
                                                                          equal_nan=True) for c in others):
            return False                       # the answers do not differ: a constant is not a symptom
        with contextlib.redirect_stdout(io.StringIO()), np.errstate(all="ignore"):
            for c in others:
                args, kwargs = _copy_args(c.args, c.kwargs)
                theirs, bad = as_numbers(fn(*args, **kwargs))
                if bad or theirs.shape != mine.shape or not np.array_equal(theirs, mine, equal_nan=True):
                    return False
    except Exception:                          # tuples of results, a function that raises on another case, ...
        return False
    return True


def check_array(name: str, got, expected, *, atol: float = 1e-3, rtol: float = 0.0, hint: str = "") -> CheckResult:
    """Check a value the learner computed (not a function) against a hidden reference.

    ``name``, ``expected``, ``atol``, ``rtol`` and ``hint`` come from the notebook's author, not the learner:
    a wrong one is a ``TypeError``/``ValueError`` naming the argument, never a verdict blaming the learner.
    """
    from .._validate import as_real_array, check_real, check_text

    check_text("name", name, nonempty=True)
    check_text("hint", hint)
    if np.asarray(expected).dtype != np.bool_:
        as_real_array("expected", expected, allow_nonfinite=True)
    atol = check_real("atol", atol, 0.0)
    rtol = check_real("rtol", rtol, 0.0)
    with contextlib.redirect_stdout(io.StringIO()):
        result = run_check(name, lambda: got, [Case("你的数值", (), expected, hint)], atol=atol, rtol=rtol)
    msg = result.message
    if result.passed:   # one visible value, not "all 1 hidden cases"
        msg = f"{PASS} {name}：数值正确（your value is right）。"
    else:
        msg = msg.replace("第 1/1 个用例（你的数值）：", "你的数值：")
    print(msg)
    return CheckResult(name, result.passed, 1, int(result.passed), msg)
