"""Name the mistake actually made: ``run_check`` plus known wrong answers, "numpy only" and a return type.

``run_diagnosed`` runs the hidden cases exactly as :func:`helpers.checks.core.run_check` does (same
verdict lines, no traceback whatever the learner's function returns or raises). When a case fails, the
learner's results on all the cases (or the exceptions it raised, type and message) are compared with what each known wrong answer
(:class:`Wrong`) gives on the same cases; the one that matches best (on the failing case and on most others) replaces the case's generic hint with
its own, which names that mistake in Chinese. A task that says "only numpy" is enforced with
:mod:`helpers.checks.numpy_only` (a static scan and a run with tripwires on every ``helpers`` function);
a task that says "no Python loop" is enforced with :func:`helpers.checks.numpy_only.python_loops`;
a task that asks for an ``int`` or a ``bool`` refuses a float or an array.
"""

from __future__ import annotations

import contextlib
import re
import copy
import functools
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .compare import as_numbers, compare_values, dtype_tolerance, exception_text, type_problem
from .core import CONSTANT_HINT, FAIL, PASS, Case, CheckResult, run_check, signature_problem
from .numpy_only import helpers_references, helpers_tripwire, python_loops

__all__ = ["Wrong", "run_diagnosed", "run_faded_step"]

_HINT_SEP = "\n   提示（hint）："


@dataclass(frozen=True)
class Wrong:
    """A classic wrong answer: ``fn`` computes it from a case's arguments; ``hint`` names it (Chinese)."""

    hint: str
    fn: Callable


def _outcome(fn, case: Case):
    """('value', result) or ('raised', (type name, message)) of ``fn`` on ``case``; never raises."""
    try:
        with np.errstate(all="ignore"):
            return "value", fn(*case.args, **case.kwargs)
    except Exception as exc:  # a wrong answer that raises (e.g. a transpose that breaks the shapes)
        return "raised", (type(exc).__name__, exception_text(exc))


def _same_result(a, b) -> bool:
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same_result(x, y) for x, y in zip(a, b))
    (x, bad_x), (y, bad_y) = as_numbers(a), as_numbers(b)      # never raises, whatever the learner returned
    if bad_x or bad_y or x.shape != y.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(x, y, rtol=1e-4, atol=1e-6, equal_nan=True))


# An array shape as numpy and the helpers print it: "(3,5,5)", "(4, 4)", "(2,)", "()".
_SHAPE = re.compile(r"\(\s*(?:\d+\s*(?:,\s*\d+\s*)*,?)?\s*\)")


def _exception_key(raised) -> tuple:
    """What identifies a raised exception: its type, its text with the shapes taken out, and the non-empty shapes
    it names in any order (``S + m``, ``m + S`` and ``np.where(m, S, x)`` name the same two arrays)."""
    kind, text = raised
    shapes = sorted(tuple(int(n) for n in re.findall(r"\d+", s)) for s in _SHAPE.findall(text))
    template = re.sub(r"(?:<shape>\s*)+", "<shape> ", _SHAPE.sub("<shape>", text)).strip()
    return kind, template, [s for s in shapes if s]


def _same_outcome(a, b) -> bool:
    """Both raised the same exception (type and text, see ``_exception_key``), or both returned the same values.

    The type alone says little: a missing ``keepdims``, a projection of the wrong sequence and a bare ``.T``
    all raise a ValueError, each with its own message (the shapes or sizes that did not fit).
    """
    if a[0] != b[0]:
        return False
    return _exception_key(a[1]) == _exception_key(b[1]) if a[0] == "raised" else _same_result(a[1], b[1])


def _matching_wrong(fn, cases: Sequence[Case], k: int, wrong: Sequence[Wrong], passes=None) -> Wrong | None:
    """The known wrong answer that behaves most like ``fn``: like it on the failing case ``k`` (where it is
    wrong) and on at least half of all the cases; the first listed wins a tie.

    ``fn`` is run again on copies of every case (its printing silenced): one case alone cannot tell
    apart two mistakes that fail it the same way, the whole set of cases usually can.
    """
    if not wrong:
        return None
    best, best_score = None, (len(cases) + 1) // 2 - 1
    with contextlib.redirect_stdout(io.StringIO()):
        learner = [_outcome(fn, _copied(c)) for c in cases]
        for w in wrong:
            theirs = [_outcome(w.fn, _copied(c)) for c in cases]
            if theirs[k][0] == "value" and (passes(theirs[k][1], cases[k]) if passes is not None
                                            else _same_result(theirs[k][1], cases[k].expected)):
                continue   # right on the failing case (it would pass it): it cannot be what went wrong there
            if not _same_outcome(learner[k], theirs[k]):
                continue
            score = sum(_same_outcome(a, b) for a, b in zip(learner, theirs))
            if score > best_score:
                best, best_score = w, score
    return best


def _passes(check_kwargs: dict, value, case: Case) -> bool:
    """Is ``value`` right on ``case``: within the check's tolerance, or (where float32 answers are accepted)
    within float32 precision? A wrong answer that close cannot be told from a float32 rounding error, so it is
    not named; one further off is (with eps = 1e-2 a misplaced eps is far off). Never raises."""
    atol = check_kwargs.get("atol", 1e-6) if case.atol is None else case.atol
    rtol = check_kwargs.get("rtol", 1e-6) if case.rtol is None else case.rtol
    try:
        if check_kwargs.get("dtype_aware", True) and not isinstance(case.expected, tuple):
            atol, rtol = dtype_tolerance(np.float32, np.asarray(case.expected, dtype=float), atol, rtol)
        return compare_values(value, case.expected, atol, rtol, dtype_aware=False) is None
    except Exception:
        return False


def _copied(case: Case) -> Case:
    return Case(case.label, copy.deepcopy(case.args), case.expected, case.hint, copy.deepcopy(case.kwargs))


def _fail(name: str, n_cases: int, n_passed: int, msg: str) -> CheckResult:
    print(msg)
    return CheckResult(name, False, n_cases, n_passed, msg)


def run_diagnosed(
    name: str,
    fn: Callable,
    cases: Sequence[Case],
    *,
    wrong: Sequence[Wrong] = (),
    numpy_only: bool = False,
    no_loops: bool = False,
    forbid: frozenset[str] | None = None,
    forbid_what: str = "",
    ask: str = "",
    learner: Callable | None = None,
    result_type=None,
    **kwargs,
) -> CheckResult:
    """Like :func:`run_check` (``kwargs`` go to it), then name the known wrong answer the learner gave.

    Parameters
    ----------
    wrong : sequence of Wrong
        Known wrong answers, most specific first. When a case fails, the one that gives the learner's
        result there (or raises the same exception, type and message) and agrees with the learner on the most cases
        (at least half) replaces the failing case's hint.
    numpy_only : bool
        Refuse a function that reaches ``helpers`` (found statically or by a tripwire while it runs).
    no_loops : bool
        "No Python loop": refuse a function with a ``for``/``while`` loop, a comprehension or a looping call
        (``map``, ``np.vectorize``), in it or in the learner's functions it calls (a static scan).
    forbid : set of str, optional
        "Without helper X": refuse a function that calls a ``helpers`` function of one of these names
        (the rest of ``helpers`` stays allowed). ``ask`` says in Chinese what the task asked instead;
        ``forbid_what`` names the forbidden set in Chinese (default: the names themselves, for a short set).
    learner : callable, optional
        The learner's own function, when ``fn`` is the check's wrapper around it (scanned instead of ``fn``).
    result_type : {None, int, bool, "bool array"}
        Every result must have this type (checked after the values are right, see ``core.type_problem``).
    """
    if not callable(fn):
        return run_check(name, fn, cases, **kwargs)
    only = None if numpy_only or not forbid else frozenset(forbid)
    guarded = numpy_only or only is not None
    rule = (f"这个练习要求{ask or '只用 numpy'}" if numpy_only else
            f"这个练习要求{ask or '自己写出这一步'}（不调用 {forbid_what or '、'.join(sorted(only or ()))}）")
    if guarded:
        refs = helpers_references(learner if learner is not None else fn, only=only)
        if refs:
            return _fail(name, len(cases), 0,
                         f"{FAIL} {name}：{rule}，而你的函数用到了 helpers 里的 {'、'.join(refs)}。"
                         "请自己用 numpy 写出这几步。")
    loops = python_loops(learner if learner is not None else fn) if no_loops else []
    if loops:
        return _fail(name, len(cases), 0,
                     f"{FAIL} {name}：这个练习要求不写 Python 循环，而你的函数里有 {'、'.join(loops)}。"
                     f"{_HINT_SEP}numpy 的运算会把前面的（批量）轴逐个配对，整批一次算完：让每一步都只作用在最后一个"
                     "或最后两个轴上，就不需要循环。")
    seen: list = []

    @functools.wraps(fn)
    def recorded(*args, **kw):
        try:
            got = fn(*args, **kw)
        except Exception as exc:
            seen.append(("raised", (type(exc).__name__, exception_text(exc))))
            raise
        seen.append(("value", got))
        return got

    calls: list = []
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        if guarded:
            with helpers_tripwire(calls, only=only):
                result = run_check(name, recorded, cases, result_type=result_type, **kwargs)
        else:
            result = run_check(name, recorded, cases, result_type=result_type, **kwargs)
    msg = result.message
    learner_printed = buf.getvalue().replace(msg + "\n", "", 1)
    if learner_printed:            # what the learner's own code printed (debugging output) still shows
        print(learner_printed, end="")
    if guarded and calls:
        return _fail(name, len(cases), 0,
                     f"{FAIL} {name}：{rule}，而你的函数在运行时调用了 helpers 里的 "
                     f"{'、'.join(sorted(set(calls)))}。请自己用 numpy 写出这几步。")
    if not result.passed:
        k = result.n_passed
        if (msg.startswith(FAIL) and k < len(cases) and len(seen) > k and CONSTANT_HINT not in msg
                and not msg.split("：", 2)[1].startswith("你的函数的参数")):
            w = _matching_wrong(fn, cases, k, wrong, passes=functools.partial(_passes, kwargs))
            if w is not None:   # the mistake is known: drop the generic guesses at the cause, name it
                msg = re.sub(r"（(常见原因：|差别很小)[^）]*）", "", msg.split(_HINT_SEP)[0]) + _HINT_SEP + w.hint
        print(msg)
        return CheckResult(result.name, False, result.n_cases, result.n_passed, msg)
    print(msg)
    return result


def run_faded_step(name: str, fn: Callable, case: Case, wrong_values: Sequence[tuple[str, object]], *,
                   returns: str, passed: str, reason: str, **kwargs) -> CheckResult:
    """One step of a faded example: ``fn() -> value`` checked against the one visible ``case``.

    ``wrong_values`` are ``(hint, value)`` pairs: the classic slips at this step, each named by its hint.
    On a pass the verdict adds ``reason`` (why the step is allowed) so the learner compares it with their own;
    on a failure the "case 1/1" prefix is dropped (there is one visible example, not a hidden case).
    ``returns`` says in Chinese what the function returns; ``kwargs`` go to :func:`run_diagnosed`.
    """
    if not callable(fn):
        return run_check(name, fn, [])
    problem = signature_problem(fn, (), {})
    if problem:
        msg = f"{FAIL} {name}：{problem}（这个函数不需要参数，直接返回{returns}）。"
        print(msg)
        return CheckResult(name, False, 1, 0, msg)
    wrong = [Wrong(h, (lambda v: lambda: v)(v)) for h, v in wrong_values]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed(name, fn, [case], wrong=wrong, dtype_aware=False, **kwargs)
    msg = (f"{PASS} {name}：{passed}\n   为什么可以这样做（对照你自己写的理由）：" + reason) if result.passed \
        else re.sub(r"第 1/1 个用例（([^）]*)）：", r"\1：", result.message, count=1)
    print(buf.getvalue().replace(result.message, msg, 1), end="")
    return CheckResult(result.name, result.passed, 1, result.n_passed, msg)
