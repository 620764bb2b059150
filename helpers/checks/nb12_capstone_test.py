"""Self-check for part 2 of the 2.12 capstone: the learner writes a *test* of causal self-attention.

``from helpers.checks import check_attention_test``

The learner writes ``my_test(attn_fn) -> bool`` (False or an ``AssertionError`` = "this is not a
correct causal self-attention"). The check runs it on one correct implementation and on broken
ones (a mask off by one, no mask, mask after softmax, softmax along the wrong axis, a
position-dependent bias); a good test accepts the correct one and rejects every broken one.
It says which broken ones slipped through, never how to catch them.
"""

from __future__ import annotations

import math
import random
import re
import weakref

import numpy as np

from .compare import describe_value, exception_text
from .core import FAIL, PASS, TODO, CheckResult, lenient_softmax, signature_problem

__all__ = ["check_attention_test"]


# ---- part 2: the learner writes the test -------------------------------------------------------

def _weights(d: int):
    g = np.random.default_rng(7000 + d)
    return [g.normal(size=(d, d)) / math.sqrt(d) for _ in range(3)]


class _AttnFn:
    """An attention ``attn_fn(X) -> (T, d)`` for X of shape (T, d), with fixed hidden weights per d.

    Every implementation handed to a learner's test is an instance of this one class with no
    readable state (no closure, no attributes): which one is broken is kept in a private table
    keyed by the instance, so a test cannot read the answer off the function it is given.
    """

    __slots__ = ("__weakref__",)

    def __call__(self, X):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2:
            raise ValueError(f"attn_fn expects X of shape (T, d); got shape {X.shape}")
        if _SEEN is not None and len(_SEEN) < 200:
            _SEEN.append(X.copy())
        return _apply(_KIND[self], X)

    def __repr__(self):
        return "<attn_fn>"


_KIND: "weakref.WeakKeyDictionary[_AttnFn, str]" = weakref.WeakKeyDictionary()
#: While :func:`_verdict` runs with ``seen``: the inputs the learner's test gave the implementations (to name its mistake).
_SEEN: list | None = None


def _exact_causal(X: np.ndarray) -> np.ndarray:
    """The correct causal attention with every sum correctly rounded (math.fsum), so its rows do not depend on
    the order of the tokens before them, on the tokens after them or on T: a test that demands bit-identical rows
    in those cases accepts it. For large inputs the sums run in extended precision instead (nearly always the same)."""
    T, d = X.shape
    W_Q, W_K, W_V = _weights(d)
    if T * T * d > 200_000:
        Xl = X.astype(np.longdouble)
        Q, K, V = (Xl @ W.astype(np.longdouble) for W in (W_Q, W_K, W_V))
        S = np.where(np.triu(np.ones((T, T), bool), 1), -np.inf, Q @ K.T / np.sqrt(np.longdouble(d)))
        E = np.exp(S - S.max(axis=-1, keepdims=True))
        return ((E / E.sum(axis=-1, keepdims=True)) @ V).astype(float)

    def project(W):
        return [[math.fsum(X[t, m] * W[m, c] for m in range(d)) for c in range(d)] for t in range(T)]

    Q, K, V = project(W_Q), project(W_K), project(W_V)
    out = np.empty((T, d))
    for i in range(T):
        s = [math.fsum(a * b for a, b in zip(Q[i], K[j])) / math.sqrt(d) for j in range(i + 1)]
        top = max(s)
        e = [math.exp(x - top) for x in s]
        z = math.fsum(e)
        w = [x / z for x in e]
        for c in range(d):
            out[i, c] = math.fsum(w[j] * V[j][c] for j in range(i + 1))
    return out


def _apply(kind: str, X: np.ndarray) -> np.ndarray:
    T, d = X.shape
    if kind == "exact":
        return _exact_causal(X)
    W_Q, W_K, W_V = _weights(d)
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / math.sqrt(d)
    i, j = np.indices((T, T))
    if kind == "position bias":                  # an ALiBi-like bias: depends on where a token sits
        S = S - 0.5 * (i - j)
    blocked = {"off by one": j > i + 1, "no mask": np.zeros((T, T), bool)}.get(kind, j > i)
    if kind == "mask after softmax":
        A = np.where(blocked, 0.0, lenient_softmax(S))
    elif kind == "wrong axis":
        A = lenient_softmax(np.where(blocked, -np.inf, S), axis=0)
    else:
        A = lenient_softmax(np.where(blocked, -np.inf, S))
    return A @ V


def _make_impl(kind: str) -> _AttnFn:
    """A fresh implementation of the given kind ("correct" or one of ``_BROKEN``)."""
    fn = _AttnFn()
    _KIND[fn] = kind
    return fn


_BROKEN = {
    "off by one": "掩码错了一位：每个词还能偷看它后面紧挨着的那一个词",
    "no mask": "没有掩码：每个词都看得见整个序列",
    "mask after softmax": "softmax 之后才把未来的权重清零（分母里仍有未来的词）",
    "wrong axis": "softmax 沿错了轴（按列归一化）",
    "position bias": "分数里加了一个随位置变化的偏置（偷偷用了词的位置）",
}


def _verdict(my_test, attn_fn, seen: list | None = None) -> tuple[str, str]:
    """(outcome, note) of ``my_test(attn_fn)``; never raises but NotImplementedError (and BaseException).

    With ``seen`` (a list), every input X the test passes to an implementation is appended to it.

    outcome: "accept" (True), "reject" (False, AssertionError or any other exception; note = its text),
    "none" (returned None: an assert-style test that let it through) or "bad" (returned something that
    is not a verdict; note = what it was).
    """
    global _SEEN
    _SEEN = seen
    try:
        with np.errstate(all="ignore"):
            out = my_test(attn_fn)
    except AssertionError:
        return "reject", ""
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - the learner's test may fail in any way
        return "reject", exception_text(exc)
    finally:
        _SEEN = None
    if out is None:
        return "none", ""
    if isinstance(out, (bool, np.bool_)):
        return ("accept" if out else "reject"), ""
    return "bad", describe_value(out)


def _public_text(note: str) -> str:
    """An exception's text as the learner knows the function: ``attn_fn(...)``, not the hidden class behind it
    (whose ``__call__`` counts ``self`` among its positional arguments)."""
    def call(m: re.Match) -> str:
        takes, given = int(m.group(1)) - 1, int(m.group(2)) - 1
        return f"attn_fn() takes {takes} positional argument{'s' * (takes != 1)} but {given} {'was' if given == 1 else 'were'} given"

    note = re.sub(r"_AttnFn\.__call__\(\) takes (\d+) positional arguments? but (\d+) (?:was|were) given", call, note)
    return re.sub(r"_AttnFn\.__call__\(\)", "attn_fn()", note)


def _reordered_pairs(inputs: list) -> list[tuple[np.ndarray, np.ndarray]]:
    """The pairs of inputs that hold the same rows (tokens) in another order."""
    rows = [(X.shape, sorted(map(tuple, X.tolist()))) for X in inputs]
    return [(inputs[a], inputs[b]) for a in range(len(inputs)) for b in range(a + 1, len(inputs))
            if rows[a] == rows[b] and not np.array_equal(inputs[a], inputs[b])]


def _bias_hidden(inputs: list) -> bool:
    """The test shuffled the tokens (it tests the shuffle property), but on its inputs the position-biased
    implementation's last row stays within np.allclose (scores so large that softmax is one-hot): the input hid it."""
    return any(np.allclose(_apply("position bias", A)[-1], _apply("position bias", B)[-1])
               for A, B in _reordered_pairs(inputs))


def _no_verdict(name: str, n: int, what: str, elementwise: bool) -> CheckResult:
    msg = (f"{FAIL} {name}：你的测试应返回一个真假值（True 或 False），或者用 assert 拒绝；它返回的却是 {what}。"
           + ("\n   提示：逐元素的比较得到的是一个数组，不是一个结论：把它汇总成一个真假值（全部成立才算通过）。"
              if elementwise else "\n   提示：想清楚这个测试要回答的是一个是非题：被测的实现对不对？"))
    print(msg)
    return CheckResult(name, False, n, 0, msg)


def check_attention_test(my_test) -> CheckResult:
    """Check a learner's test ``my_test(attn_fn) -> bool`` of causal self-attention.

    ``attn_fn(X)`` takes X of shape (T, d) (any T >= 1, d >= 1) and returns (T, d); its weights
    are fixed and hidden. The test returns True (or None after its asserts pass) to accept, False or
    raises ``AssertionError`` to reject. A good test accepts the correct implementation and rejects
    all the broken ones (mask off by one, no mask, mask after softmax, wrong softmax axis,
    position-dependent bias). Prints which ones slip through, never how to catch them. A test that
    returns something else (an elementwise array, a string, a dict) or never decides anything (no
    ``return``, no assert) fails with a message that says so; one that rejects the correct causal
    attention but accepts attention without a mask is told it tests a property causal attention lacks.
    """
    name = "check_attention_test"
    if not callable(my_test):
        msg = f"{FAIL} {name}：需要传入测试函数本身（不要加括号调用它），收到的是 {describe_value(my_test)}。"
        print(msg)
        return CheckResult(name, False, 1 + len(_BROKEN), 0, msg)
    n = 1 + len(_BROKEN)
    problem = signature_problem(my_test, (_make_impl("correct"),), {})
    if problem:
        msg = (f"{FAIL} {name}：{problem}。你的测试要接收一个参数 attn_fn（被测的注意力函数），"
               "在测试里调用它。")
        print(msg)
        return CheckResult(name, False, n, 0, msg)
    try:
        first_inputs: list = []
        first, note = _verdict(my_test, _make_impl("correct"), first_inputs)
        if first == "bad":
            return _no_verdict(name, n, note, elementwise=note.startswith("dtype"))
        if first == "reject" and note:   # the test itself crashed: that error is what to fix, not a property
            msg = (f"{FAIL} {name}：你的测试在检验一个正确的因果自注意力时自己出错了：{_public_text(note)}。"
                   "\n   提示：attn_fn 只接受一个参数 X，形状 (T, d)（T ≥ 1，d ≥ 1），返回形状同为 (T, d) 的数组。"
                   "照着前面的错误信息，找出你的测试里出错的那一行。")
            print(msg)
            return CheckResult(name, False, n, 0, msg)
        if first == "reject":
            unmasked, _ = _verdict(my_test, _make_impl("no mask"))
            exact, _ = _verdict(my_test, _make_impl("exact"))
            if unmasked in ("accept", "none"):
                hint = ("\n   提示：你的测试拒绝了正确的因果注意力，却接受了没有掩码的注意力：它检验的性质属于没有掩码的自注意力"
                        "（例如对整个序列的排列等变：打乱输入，输出跟着同样打乱）。因果掩码按位置挡住未来，打乱顺序后"
                        "每个词能看见的词变了，所以因果注意力本来就不满足它。换一条因果注意力真正具有的性质来检验。")
            elif exact == "reject":
                hint = ("\n   提示：你的测试连每一步都精确计算（没有任何舍入差异）的正确因果注意力也拒绝了，所以问题不在浮点比较："
                        "它要求的某条性质，正确的因果自注意力本来就没有（例如对整个序列的排列等变：因果掩码按位置挡住未来，"
                        "打乱顺序后每个词能看见的词变了）。逐条检查你的测试断言的性质。")
            else:
                truncated = len({X.shape for X in first_inputs}) > 1
                hint = "\n   提示：浮点数结果一般用 np.allclose 比较。"
                if _reordered_pairs(first_inputs):
                    hint += ("你的测试打乱了词的顺序，再逐位比较（np.array_equal、==）：打乱之后，正确实现的输出只在舍入意义下"
                             "不变——加权求和里的加法换了顺序，浮点结果的最后几位可能不同。")
                if truncated or not _reordered_pairs(first_inputs):
                    hint += ("只有在输入形状不变（序列长度 T 相同，只改后面的词）时，前面各行才能要求逐位相等"
                             + ("；把序列截短后再比，长度不同，矩阵乘法和求和的计算路径可能不同，最后几位会有舍入差异。"
                                if truncated else "。"))
            msg = f"{FAIL} {name}：你的测试拒绝了一个正确的因果自注意力。" + hint
            print(msg)
            return CheckResult(name, False, n, 0, msg)
        # The broken ones, and the correct one once more, in an unpredictable order: a test that
        # accepts by call count ("the first one is the correct one") is caught; verdicts do not depend on it.
        kinds = list(_BROKEN) + ["correct"]
        random.SystemRandom().shuffle(kinds)
        seen = {kind: [] for kind in kinds}
        outcomes = {kind: _verdict(my_test, _make_impl(kind), seen[kind]) for kind in kinds}
        bad = [note for outcome, note in outcomes.values() if outcome == "bad"]
        if bad:
            return _no_verdict(name, n, bad[0], elementwise=bad[0].startswith("dtype"))
        if first == "none" and all(outcome == "none" for outcome, _ in outcomes.values()):
            msg = (f"{FAIL} {name}：你的测试对每一个实现都既没有返回 True/False，也没有用 assert 拒绝任何一个"
                   "（是不是忘了写 `return`？）。它什么也没有检验。")
            print(msg)
            return CheckResult(name, False, n, 0, msg)
        accepted = {kind: outcome in ("accept", "none") for kind, (outcome, _) in outcomes.items()}
        if not accepted["correct"]:
            msg = (f"{FAIL} {name}：你的测试对同一个正确的实现先接受、后拒绝：它的结论不能取决于调用的次数或顺序。"
                   "\n   提示：测试里的随机数要用固定种子，也不要在多次调用之间保存状态。")
            print(msg)
            return CheckResult(name, False, n, 0, msg)
        missed = [text for kind, text in _BROKEN.items() if accepted[kind]]
    except NotImplementedError:
        msg = f"{TODO} {name}：尚未完成（not done yet）——把 `raise NotImplementedError` 换成你的测试，再运行这个单元。"
        print(msg)
        return CheckResult(name, False, n, 0, msg)
    if missed:
        msg = (f"{FAIL} {name}：你的测试接受了正确的实现，但还不够好：{len(_BROKEN)} 个有毛病的实现里有 "
               f"{len(missed)} 个被放过了：\n" + "\n".join(f"   - {m}" for m in missed)
               + "\n   提示：每个被放过的实现，违反了正确的因果自注意力的哪一条性质？你的测试检验了那条性质吗？"
               + ("\n   检验了的话，再看看输入：分数很大时（比如按顺序排列的整数），softmax 几乎只给一个词权重，偷偷用了位置的实现"
                  "和正确的实现输出几乎一样，np.allclose 分不出来；换成随机的、大小适中的输入。"
                  if accepted["position bias"] and len(missed) < len(_BROKEN) and _bias_hidden(seen["position bias"])
                  else ""))   # it does test something, on inputs that hide the bias
        print(msg)
        return CheckResult(name, False, n, n - len(missed), msg)
    msg = f"{PASS} {name}：你的测试接受了正确的实现，并抓住了全部 {len(_BROKEN)} 个有毛病的实现。"
    print(msg)
    return CheckResult(name, True, n, n, msg)
