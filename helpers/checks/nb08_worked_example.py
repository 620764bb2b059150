"""Self-checks for 2.8 (the worked example): the score S'[1,2] a given weight A[1,2] needs (the softmax
inverted for one entry, issue 30), and the book's example with a causal mask (transfer)."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np

import helpers as H

from .core import Case, CheckResult, float_safe, lenient_softmax, run_check
from .diagnose import Wrong, run_diagnosed

__all__ = ["check_score_for_weight", "check_causal_worked_example"]


def _rest_of_row_1(scaled=None) -> float:
    """sum of exp over row 1's scaled scores other than S'[1,2] (exact: sqrt 2, 3/sqrt 2, 3/sqrt 2)."""
    ex = H.book.exact_values()
    s = ex["Q"][0] @ ex["K"].T / np.sqrt(2.0) if scaled is None else np.asarray(scaled, dtype=float)
    return float(np.exp(s[0]) + np.exp(s[2]) + np.exp(s[3]))


def _score_ref(target):
    rest = _rest_of_row_1()
    return float(np.log(target * rest / (1.0 - target)))


def _sw(rest=None, solve="right", scale=1.0, log=np.log):
    """A classic wrong inversion of A[1,2] = e^x / (e^x + rest) (a simulated learner's answer)."""
    def wrong(target):
        R = _rest_of_row_1() if rest is None else rest()
        value = {"right": target * R / (1 - target), "no 1-t": target * R, "log only": target,
                 "odds only": target / (1 - target)}[solve]
        return float(log(value) * scale)
    return wrong


def _total_row_1() -> float:
    ex = H.book.exact_values()
    return float(np.exp(ex["Q"][0] @ ex["K"].T / np.sqrt(2.0)).sum())


_SW_WRONG = [
    Wrong("你只取了 target 的对数：A₁₂ 是 e^x 除以整行四个指数之和，另外三项也在分母里，不能丢。", _sw(solve="log only")),
    Wrong("漏掉了另外三项之和：A₁₂ = e^x / (e^x + 另外三项之和)，解出的 e^x 里要乘上这个和。", _sw(solve="odds only")),
    Wrong("把分母当成了不变的数：改 S'₁₂ 时，e^x 自己也在分母里，分母跟着变。"
          "把 target = e^x / (e^x + 另外三项之和) 当作关于 e^x 的方程来解。", _sw(rest=_total_row_1, solve="no 1-t")),
    Wrong("解方程时漏了 1 − target：target · (e^x + 另外三项之和) = e^x，把含 e^x 的项移到一边。", _sw(solve="no 1-t")),
    Wrong("分母里多算了原来的 e^{2√2}：S'₁₂ 换成了 x，原来那一项就不在了，另外的只有三项。",
          _sw(rest=lambda: _rest_of_row_1() + np.exp(2 * np.sqrt(2.0)))),
    Wrong("第 1 行另外三个缩放分数是 √2、3/√2、3/√2：3/√2 出现了两次，两项都要算。",
          _sw(rest=lambda: float(np.exp(np.sqrt(2.0)) + np.exp(3 / np.sqrt(2.0))))),
    Wrong("用了书上舍入过的分数（1.41、2.12）：另外三个分数保持精确值 √2、3/√2、3/√2。",
          _sw(rest=lambda: _rest_of_row_1([1.41, 0.0, 2.12, 2.12]))),
    Wrong("另外三个分数没有除以 √2：用的是缩放前的 S（2、3、3），题目里是缩放后的 S'。",
          _sw(rest=lambda: _rest_of_row_1([2.0, 0.0, 3.0, 3.0]))),
    Wrong("返回的是缩放前的分数 S₁₂（乘了 √2）：题目要的是缩放后的 S'₁₂，就是 softmax 直接看到的那个数。",
          _sw(scale=np.sqrt(2.0))),
    Wrong("用的是以 10 为底的对数：e^x 的反函数是自然对数。", _sw(log=np.log10)),
]


@float_safe
def check_score_for_weight(fn) -> CheckResult:
    """Check ``fn(target) -> x``: the scaled score S'[1,2] of the book's example that makes A[1,2] == target.

    Row 1's other scaled scores keep their exact values (sqrt 2, 3/sqrt 2, 3/sqrt 2), so A[1,2] = e^x / (e^x + R)
    with R the sum of their exponentials, and x = log(target R / (1 - target)). Any correct method passes (the
    closed form, bisection on the softmax, a root finder): the answer is compared to 1e-6.
    """
    ex = H.book.exact_values()
    a12 = float(ex["A"][0, 1])
    hint = ("把 A₁₂ 写成 e^x 除以（e^x 加上第 1 行另外三项指数之和），另外三个缩放分数是 √2、3/√2、3/√2；"
            "把它当作关于 e^x 的方程解出来，再取自然对数。")
    rows = [("target = 0.25", 0.25), ("target = 精确的 A₁₂（应当得回 2√2）", a12), ("target = 0.4495", 0.4495),
            ("target = 0.9", 0.9), ("target = 0.05（比另外三个分数都小）", 0.05), ("target = 0.5", 0.5)]
    cases = [Case(label, (t,), _score_ref(t), hint) for label, t in rows]
    return run_diagnosed("check_score_for_weight", fn, cases, wrong=_SW_WRONG, atol=1e-6, rtol=0.0, dtype_aware=False)


def _causal(mask=None, fill=-np.inf, where="before", scale=True, decimals=None):
    """The book's example with a causal mask, done right or with a classic slip (a simulated learner's answer)."""
    ex = H.book.exact_values()
    Q, K, V = ex["Q"], ex["K"], ex["V"]
    S = Q @ K.T / (np.sqrt(Q.shape[1]) if scale is True else 1.0 if scale is False else scale)
    allowed = np.tril(np.ones((4, 4), dtype=bool)) if mask is None else mask
    if where == "before":
        S = np.where(allowed, S, fill)
    A = lenient_softmax(S)
    if where == "after":
        A = A * allowed
    if decimals is not None:
        A = np.round(A, decimals)
    return A, A @ V


def _reference() -> tuple[np.ndarray, np.ndarray]:
    return _causal()


def _part_of(answer):
    return lambda k: answer()[k]


_NOT_A_PAIR = "请返回一对 (weights, output)"
_CW_WRONG = [
    Wrong("先对整行做 softmax、再把被挡住的权重清零：剩下的权重加起来小于 1。被挡住的键要在 softmax 之前排除"
          "（它们的分数换成 −∞），剩下的键才重新分完全部权重。", _part_of(lambda: _causal(where="after"))),
    Wrong("连对角线也挡住了：第 i 个 token 看得见它自己（j ≤ i），只挡住它后面的键（j > i）。",
          _part_of(lambda: _causal(mask=np.tril(np.ones((4, 4), dtype=bool), -1)))),
    Wrong("连对角线也挡住了：第 i 个 token 看得见它自己（j ≤ i），只挡住它后面的键（j > i）。",
          _part_of(lambda: _causal(mask=np.tril(np.ones((4, 4), dtype=bool), -1), fill=-1e9))),
    Wrong("掩码的方向反了：第 i 行能看的是第 1…i 个键（自己和前面的 token），你挡住的是前面的键、留下的是后面的。",
          _part_of(lambda: _causal(mask=np.triu(np.ones((4, 4), dtype=bool))))),
    Wrong("分数没有除以 √d_k = √2：书的公式里分数先缩放，再做 softmax。", _part_of(lambda: _causal(scale=False))),
    Wrong("分数除以的是 √d_model = √4 = 2：缩放看的是 q、k 的长度 d_k = 2（Q 的列数），应除以 √d_k = √2。",
          _part_of(lambda: _causal(scale=2.0))),
    Wrong("权重舍入到了 3 位小数：检查要求与精确值相差不超过 1e-4，请返回不舍入的权重（只在打印时舍入），"
          "输出也用不舍入的权重来算。", _part_of(lambda: _causal(decimals=3))),
    Wrong("权重舍入到了 2 位小数：检查要求与精确值相差不超过 1e-4，请返回不舍入的权重（只在打印时舍入），"
          "输出也用不舍入的权重来算。", _part_of(lambda: _causal(decimals=2))),
]


def check_causal_worked_example(fn) -> CheckResult:
    """Check ``fn() -> (weights, output)`` for the book's example with a causal mask, numpy only.

    ``weights`` has shape (4, 4): row i is query i's weights over keys 1..4, where query i
    may only look at keys j <= i (itself and the tokens before it). ``output`` has shape (4, 2).
    Both must match the exact values to 1e-4, so weights rounded to 3 decimals do not pass.
    A function that reaches into ``helpers`` (``H.self_attention(..., causal=True)``, ``H.softmax``)
    is refused: the exercise asks for numpy only (see ``numpy_only``). A function that returns None is
    told it forgot ``return``; one that returns something other than a pair is told so, not that it raised.
    """
    name = "check_causal_worked_example"
    if not callable(fn):
        return run_check(name, fn, [])
    A, out = _reference()

    def part(k):
        result = fn()
        if result is None:
            return None          # run_check says: returned None, forgot `return`?
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"{_NOT_A_PAIR}；你返回的是 {type(result).__name__}")
        return result[k]

    cases = [
        Case("因果掩码下的权重矩阵 A（4×4）", (0,), A,
             "第 i 行只能把权重分给第 1…i 个键（含自己）；被挡住的键在 softmax 之前就要排除，"
             "这样剩下的权重加起来才是 1。第 1 个 token 只看得见自己。别忘了除以 √d_k。"),
        Case("因果掩码下的输出（4×2）", (1,), out,
             "输出的第 i 行是第 i 行权重对 V 的各行加权求和；用不舍入的权重。"),
    ]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = run_diagnosed(name, part, cases, wrong=_CW_WRONG, numpy_only=True, learner=fn,
                               ask="只用 numpy 亲手写出带掩码的注意力", atol=1e-4, rtol=0.0, dtype_aware=False)
    out_text, msg = buf.getvalue(), result.message
    # the pair is checked inside the check's own wrapper: its TypeError is not the learner's function raising
    fixed = re.sub(r"你的函数抛出了异常 TypeError: " + re.escape(_NOT_A_PAIR) + r"；你返回的是 (\w+)",
                   r"你的函数要返回一对 (weights, output)，它返回的却是 \1", msg)
    if fixed == msg:
        print(out_text, end="")
        return result
    print(out_text.replace(msg, fixed), end="" if out_text.endswith("\n") else "\n")
    return CheckResult(result.name, result.passed, result.n_cases, result.n_passed, fixed)
