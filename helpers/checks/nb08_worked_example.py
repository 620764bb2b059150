"""Self-checks for 2.8 (the worked example): one row by hand, and the book's example with a causal mask.

The learner uses numpy only as a calculator (no attention helper) to compute one row of the attention
matrix A and of the output for the book's 4-token example, in a function that returns both.
"""

from __future__ import annotations

import numpy as np

import helpers as H

from .core import FAIL, Case, CheckResult, float_safe, run_check, signature_problem
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_worked_example_row", "check_causal_worked_example"]


_ATTENTION_HELPERS = frozenset({"scaled_dot_product_attention", "self_attention", "multi_head_self_attention", "softmax"})
_WEIGHT_HINT = (
    "对第 r 个查询：分数是它与四个键的点积，除以 √2（d_k = 2），取指数后除以四个指数之和。"
    "保持全精度（keep full precision），中途不要舍入：书里先把缩放后的分数四舍五入到两位小数再取指数，所以得到 4.10 而不是 4.11。"
)


_OUTPUT_HINT = (
    "输出的第 r 行是四个值向量（V 的各行）按第 r 行权重加权之和。"
    "用你未经四舍五入的权重，而不是保留三位小数的权重。"
)


def _row_wrongs(r: int) -> list[Wrong]:
    """The classic slips for row ``r`` (0-based) of the book's example; a Wrong gets the part index k (0 weights, 1 output)."""
    ex = H.book.exact_values()
    Q, K, V = ex["Q"], ex["K"], ex["V"]

    def by_hand(scale=np.sqrt(2.0), digits=None, e=np.e, row=r):
        s = Q[row] @ K.T / scale
        if digits is not None:
            s = np.round(s, digits)
        w = e ** s / np.sum(e ** s)
        return w, w @ V

    wrongs = []
    for other in (r - 1, r + 1):
        if 0 <= other < 4:
            wrongs.append(Wrong(f"你算的是第 {other + 1} 行（书中的行从 1 开始数）：第 {r + 1} 个 token 在从 0 开始的下标里是 {r}。",
                                (lambda o: lambda k: by_hand(row=o)[k])(other)))
    w, out = by_hand()
    book_w, book_out = _book_chain(r)
    # weights or output copied or rounded to the few decimals a printout shows (before the constants typed
    # with few decimals: an output rounded to 4 decimals is as far off as one computed with e = 2.718)
    wrongs += [Wrong("输出被四舍五入成了几位小数：检查要求误差小于 1e-6。保持全精度，直接返回算出来的输出，不要舍入。",
                     (lambda d: lambda k: (w, np.round(out, d))[k])(d)) for d in (2, 3, 4)]
    wrongs += [
        Wrong("分数没有除以 √2（d_k = 2）。", lambda k: by_hand(scale=1.0)[k]),
        Wrong("这是书里印出来的数字：书在每一步都四舍五入（缩放后的分数、指数、行和各两位，权重三位），误差一路累积。"
              "保持全精度：从 q、k、v 出发重新算，中途不要舍入。", lambda k: (book_w, book_out)[k]),
        Wrong("中间结果被舍入了：缩放后的分数保留两位小数再取指数，正是书里那一行出错的原因。保持全精度。",
              lambda k: by_hand(digits=2)[k]),
        Wrong("√2 只写了几位小数（1.414）：用完整精度的平方根。", lambda k: by_hand(scale=1.414)[k]),
        Wrong("e 只写了几位小数（2.718）：用完整精度的指数函数。", lambda k: by_hand(e=2.718)[k]),
    ]
    wrongs += [Wrong(f"权重只保留了 {d} 位小数：检查要求误差小于 1e-6。保持全精度，直接用算出来的权重，不要舍入或抄打印出来的数。",
                     (lambda d: lambda k: (np.round(w, d), np.round(w, d) @ V)[k])(d)) for d in (2, 3, 4)]
    return wrongs


def _book_chain(r: int) -> tuple[np.ndarray, np.ndarray]:
    """Row ``r`` the way the book computed it: scaled scores, exponentials and row sum rounded to 2 decimals,
    weights to 3 (its printed A row; its output row then inherits the rounding, plus the book's own slip)."""
    ex = H.book.exact_values()
    s = np.round(ex["Q"][r] @ ex["K"].T / np.sqrt(2.0), 2)
    e = np.round(np.exp(s), 2)
    w = np.round(e / np.round(e.sum(), 2), 3)
    return w, np.round(w @ ex["V"], 3)


@float_safe
def check_worked_example_row(fn, row: int = 2) -> CheckResult:
    """Check one row of A and of the output of the book's example (rows counted from 1).

    Parameters
    ----------
    fn : callable
        ``fn() -> (weights, output)`` with ``weights`` of shape (4,), the learner's
        A[row, :] (query ``row`` over the 4 keys), and ``output`` of shape (2,),
        the learner's output[row, :].
    row : int
        1, 2, 3 or 4, the book's 1-based row number.

    Returns
    -------
    CheckResult
        Passes when both agree with the exact values to 1e-6, so numbers rounded
        along the way do not pass: the book's 3-decimal weights, and also sqrt(2)
        typed as 1.414 or e as 2.718 (off by ~5e-5 and ~3e-5).
    """
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 1 <= int(row) <= 4:
        # a check never raises: row is typed in the exercise cell, so a wrong row gets a verdict line too
        name = f"check_worked_example_row(row={row!r})"
        what = (f"一个小数 {row!r}" if isinstance(row, (float, np.floating)) else
                f"{row!r}（{type(row).__name__}，不是整数）" if isinstance(row, bool) or not isinstance(row, (int, np.integer))
                else f"{row}")
        msg = (f"{FAIL} {name}：row 只能是整数 1、2、3 或 4（书中的行从 1 开始数），你传入的是 {what}。"
               "例如第 2 行写 row=2。")
        print(msg)
        return CheckResult(name, False, 2, 0, msg)
    r = int(row) - 1
    ex = H.book.exact_values()
    if not callable(fn):
        return run_check(f"check_worked_example_row(row={row})", fn, [])
    problem = signature_problem(fn, (), {})
    if problem:  # the learner's function takes no arguments: say so in Chinese, not with a TypeError
        name = f"check_worked_example_row(row={row})"
        msg = f"{FAIL} {name}：{problem}（这个函数不需要参数，直接返回 (weights, output)）。"
        print(msg)
        return CheckResult(name, False, 2, 0, msg)

    def part(k):
        result = fn()
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"请返回一对结果 (weights, output)（return a pair），你返回的是 {type(result).__name__}")
        return result[k]

    copied = _reads_a_computed_result(fn, (ex["A"][r], ex["output"][r]))
    if copied:   # the notebook printed A and the output above: returning its rows is not computing them
        name = f"check_worked_example_row(row={row})"
        msg = (f"{FAIL} {name}：你的函数直接读了上面已经算好的 {'、'.join(copied)}。这个练习要你从 q、k、v 出发"
               "亲手把这一行算一遍（点积、除以 √2、取指数、除以行和、加权求和）。")
        print(msg)
        return CheckResult(name, False, 2, 0, msg)
    cases = [
        Case(f"A[{row}, :]，查询 {row} 的权重", (0,), ex["A"][r], _WEIGHT_HINT),
        Case(f"output[{row}, :]，第 {row} 行输出", (1,), ex["output"][r], _OUTPUT_HINT),
    ]
    # "用 numpy 当计算器（不调用 helpers 里的注意力函数）"
    return run_diagnosed(f"check_worked_example_row(row={row})", part, cases, wrong=_row_wrongs(r), forbid=_ATTENTION_HELPERS,
                         learner=fn,
                         ask="用 numpy 当计算器亲手算", atol=1e-6, rtol=0.0, dtype_aware=False)


def _global_names(code) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _global_names(const)
    return names


# The notebook's own globals holding the whole result, printed above the exercise (2.8 computes A and out with
# the helpers; a try-it cell's A_try keeps row 2). A matrix the learner computed under a name of their own is theirs.
_PRINTED_RESULTS = ("A", "out", "A_try")


def _reads_a_computed_result(fn, answers) -> list[str]:
    """Names among the notebook's printed results (``_PRINTED_RESULTS``) that ``fn`` reads and that hold a (4, n)
    matrix with one of ``answers`` as a row.

    2.8 prints ``A`` (4, 4) and ``out`` (4, 2) above the exercise; ``return A[1], out[1]`` reads them instead
    of computing. The learner's own earlier work (``A_mine``, a (4,) row) is not flagged."""
    code, scope = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or not isinstance(scope, dict):
        return []
    found = []
    for name in sorted(_global_names(code) & set(_PRINTED_RESULTS)):
        value = scope.get(name)
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "fc" or value.ndim != 2 or len(value) != 4:
            continue
        for answer in answers:
            if value.shape[1] == answer.shape[-1] and np.any(np.all(np.abs(value - answer) < 1e-9, axis=-1)):
                found.append(name)
                break
    return found


def _reference() -> tuple[np.ndarray, np.ndarray]:
    ex = H.book.exact_values()
    Q, K, V = ex["Q"], ex["K"], ex["V"]
    S = Q @ K.T / np.sqrt(Q.shape[1])
    S = np.where(np.tril(np.ones((4, 4), dtype=bool)), S, -np.inf)
    A = H.softmax(S)
    return A, A @ V


def check_causal_worked_example(fn) -> CheckResult:
    """Check ``fn() -> (weights, output)`` for the book's example with a causal mask, numpy only.

    ``weights`` has shape (4, 4): row i is query i's weights over keys 1..4, where query i
    may only look at keys j <= i (itself and the tokens before it). ``output`` has shape (4, 2).
    Both must match the exact values to 1e-4, so weights rounded to 3 decimals do not pass.
    A function that reaches into ``helpers`` (``H.self_attention(..., causal=True)``, ``H.softmax``)
    is refused: the task is to write the masked attention with numpy (see ``numpy_only``).
    """
    name = "check_causal_worked_example"
    if not callable(fn):
        return run_check(name, fn, [])
    A, out = _reference()

    def part(k):
        result = fn()
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"请返回一对 (weights, output)；你返回的是 {type(result).__name__}")
        return result[k]

    cases = [
        Case("因果掩码下的权重矩阵 A（4×4）", (0,), A,
             "第 i 行只能把权重分给第 1…i 个键（含自己）；被挡住的键在 softmax 之前就要排除，"
             "这样剩下的权重加起来才是 1。第 1 个 token 只看得见自己。别忘了除以 √d_k。"),
        Case("因果掩码下的输出（4×2）", (1,), out,
             "输出的第 i 行是第 i 行权重对 V 的各行加权求和；用不舍入的权重。"),
    ]
    return run_diagnosed(name, part, cases, numpy_only=True, learner=fn, ask="只用 numpy 亲手写出带掩码的注意力",
                         atol=1e-4, rtol=0.0, dtype_aware=False)
