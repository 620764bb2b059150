"""Self-checks for 2.8's faded worked example: the five steps again, on new numbers the learner's seed draws.

After the book's example, worked in full, 2.8 gives a second 4-token example (d_k = 2) whose Q, K, V are
small integers drawn from a seed (:func:`faded_example`; the learner may put in their own, e.g. a student
number), and leaves its steps progressively blank: the scores S = QKᵀ (the first row given), the scaled
scores S' = S/√d_k, the weights of one row, the output of that row. Each step is a function with no
arguments that returns the learner's numbers (computed with numpy as a calculator, or typed in after a
computation by hand); each check compares them with the exact values to 1e-4 (so at least 4 decimals, no
rounding on the way), names the classic mistake when the numbers are one (forgot √d_k, a column-wise
softmax, K where Kᵀ belongs, rounding too early, the wrong row ...), and once a step is right prints why
the step is allowed, for the learner to hold against their own one-sentence reason.

The seed draws numbers on which every classic mistake shows: each named wrong answer differs from the
right one by more than 5 times the tolerance (the draw is repeated until it does).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from .._validate import check_int
from .core import FAIL, Case, CheckResult, float_safe, lenient_softmax
from .diagnose import run_faded_step
from .numpy_only import attention_helpers

__all__ = ["FadedExample", "faded_example", "check_faded_scores", "check_faded_scaled", "check_faded_weights",
           "check_faded_output"]

T, D_K, TOL = 4, 2, 1e-4
DEFAULT_SEED = 2026
_MARGIN = 5 * TOL                  # every classic wrong answer is at least this far from the right one
#: "By hand": every helpers function that computes scores, softmax or attention is refused (derived from the
#: package, :func:`.numpy_only.attention_helpers`); numpy and the other helpers stay allowed.
HAND_ONLY_WHAT = "helpers 里任何计算分数、softmax 或注意力的函数"
_ASK = "用 numpy 当计算器亲手算这一步"

#: Why each step is allowed: printed once the step is right, to compare with the learner's own reason.
REASONS = {
    "scores": "矩阵乘积 QKᵀ 的 (i, j) 元是 Q 的第 i 行与 Kᵀ 的第 j 列的内积，而 Kᵀ 的第 j 列就是键 k_j："
              "所以 S_ij = q_i·k_j，每一行属于一个查询，每一列属于一个键。",
    "scaled": "√d_k 只取决于维度，不取决于是哪一对 (i, j)：每个分数都是 d_k 项之和、方差都是 d_k（2.5 节），"
              "除以同一个常数把它们的尺度一起拉回 1，也不改变一行里分数的大小顺序。",
    "weights": "softmax 按行作用：查询 r 的权重只由它自己对四个键的分数决定，分母是这一行的指数之和；"
               "别的查询的分数不进来（2.6 节），所以只用第 r 行、沿行归一化。",
    "output": "(AV) 的第 r 行 = A 的第 r 行乘 V = Σ_j A_rj v_j：值向量按第 r 行权重的加权平均；"
              "别的行的权重不参与（2.7 节：每个输出行只依赖自己的查询和全体键值）。",
}
_CASES = {
    "scores": ("分数矩阵 S = QKᵀ，形状 (4, 4)", "S 的第 i 行第 j 列是 q_i 与 k_j 的点积（两个分量相乘再相加）。"),
    "scaled": ("缩放后的分数 S′ = S/√d_k，形状 (4, 4)", "每个分数除以 √d_k = √2 ≈ 1.4142，保留全精度。"),
    "weights": ("第 r 行的权重，形状 (4,)", "对 S′ 的第 r 行取指数，再除以这一行四个指数之和；保留全精度。"),
    "output": ("输出的第 r 行，形状 (2,)", "用第 r 行的权重（全精度）给 V 的四行加权求和。"),
}


class FadedExample(NamedTuple):
    """A 4-token example (d_k = d_v = 2) drawn from a seed: small integer Q, K, V and the row to compute."""

    seed: int
    Q: np.ndarray     # (4, 2)
    K: np.ndarray     # (4, 2)
    V: np.ndarray     # (4, 2)
    row: int          # 1-based: the row whose weights and output steps 3 and 4 ask for


def _softmax_row(s) -> np.ndarray:
    e = np.exp(s - np.max(s))
    return e / e.sum()


def step_answers(ex: FadedExample, step: str) -> tuple[np.ndarray, list[tuple[str, np.ndarray, bool]]]:
    """The right answer of ``step`` and its known wrong answers: (hint, value, classic) triples; a classic
    one must stand out on every drawn example."""
    with np.errstate(all="ignore"):          # a wrong answer may divide by a zero row sum
        return _answers_of(ex, step)


def _answers_of(ex: FadedExample, step: str) -> tuple[np.ndarray, list[tuple[str, np.ndarray, bool]]]:
    Q, K, V, r = ex.Q, ex.K, ex.V, ex.row
    i = r - 1
    S = Q @ K.T
    Sp = S / math.sqrt(D_K)
    w = _softmax_row(Sp[i])
    out = w @ V
    transposed = ("行和列对调了：S 的第 i 行属于查询 i、第 j 列属于键 j（S = QKᵀ）。你算的是 KQᵀ = Sᵀ："
                  "把 K 放在了 Kᵀ 该在的位置，或者把 Q、K 的顺序弄反了。")
    forgot = "忘了除以 √d_k = √2（forgot √d_k）：书的公式里分数先缩放，再做 softmax。"
    by_dk = "除以了 2：那是 d_k 本身（也恰好是 √T = √4），应该除以 √d_k = √2 ≈ 1.4142。"
    colwise = ("沿列做了 softmax（column-wise softmax）：分母成了一列（同一个键被各个查询打的分）的指数和。"
               f"注意力按行归一化：分母是第 {r} 行四个指数之和。")
    column = (f"你用的是 S′ 的第 {r} 列（键 {r} 被各个查询打的分），不是第 {r} 行：S = QKᵀ 的行属于查询。"
              "K 和 Kᵀ 的位置弄反时就会这样。")
    early = ("舍入太早（rounding too early）：{what}先保留了 {d} 位小数再往下算，误差被带进了后面每一步"
             "（书上的 4.10 就是这么来的）。保持全精度，检查允许的误差是 1e-4。")
    other_row = "你算的是第 {k} 行，这一步要的是第 {r} 行（行从 1 开始数：第 {r} 行的下标是 {i}）。"
    if step == "scores":
        return S, [(transposed, S.T, True), ("这一步只要点积，还不除以 √d_k（那是第 2 步）。", Sp, True),
                   ("你让查询和查询做了点积：S 的第 j 列应该对应第 j 个键 k_j，不是 q_j。", Q @ Q.T, False),
                   ("你用的是值 V 而不是键 K：打分只看查询和键。", Q @ V.T, False)]
    if step == "scaled":
        return Sp, [(forgot, S, True), (by_dk, S / D_K, True),
                     ("乘了 √2：应该除以 √d_k。", S * math.sqrt(D_K), False),
                     (transposed, Sp.T, False),
                     *[(early.format(what="S′ ", d=d), np.round(Sp, d), d == 2) for d in (1, 2, 3)],
                     ("√2 只写了几位小数（1.41 或 1.414）：用 np.sqrt(2) 的全精度。", S / 1.41, False),
                     ("√2 只写了几位小数（1.41 或 1.414）：用 np.sqrt(2) 的全精度。", S / 1.414, False)]
    rows = [k for k in range(T) if k != i]
    if step == "weights":
        return w, [(forgot, _softmax_row(S[i]), True), (colwise, lenient_softmax(Sp, axis=0)[i], True),
                   (column, _softmax_row(Sp[:, i]), True), (by_dk, _softmax_row(S[i] / D_K), False),
                   *[(early.format(what="S′ ", d=d), _softmax_row(np.round(Sp[i], d)), d == 2) for d in (1, 2, 3)],
                   ("没有除以行和：取完指数还要除以这一行四个指数之和，权重才加起来等于 1。", np.exp(Sp[i]), False),
                   ("没有取指数：softmax 是 e^{s_j} / Σ e^{s_k}，不是 s_j / Σ s_k。", Sp[i] / Sp[i].sum(), False),
                   *[(other_row.format(k=k + 1, r=r, i=i), _softmax_row(Sp[k]), True) for k in rows],
                   *[(f"权重只保留了 {d} 位小数：检查允许的误差是 1e-4，至少保留 4 位，最好全精度。", np.round(w, d), False)
                     for d in (2, 3)]]
    if step == "output":
        return out, [(forgot, _softmax_row(S[i]) @ V, True), (colwise, lenient_softmax(Sp, axis=0)[i] @ V, True),
                     (column, _softmax_row(Sp[:, i]) @ V, True),
                     *[(early.format(what="权重", d=d), np.round(w, d) @ V, d == 3) for d in (2, 3)],
                     (early.format(what="S′ ", d=2), _softmax_row(np.round(Sp[i], 2)) @ V, False),
                     ("乘的是 K 而不是 V：输出是值向量（V 的各行）的加权平均。", w @ K, False),
                     (f"直接取了 v_{r}：输出是所有值向量按权重的加权平均，不只是第 {r} 个。", V[i], False),
                     (f"这是四个值向量的简单平均（权重都当成 1/4）：要用第 {r} 行的权重。", V.mean(axis=0), False),
                     *[(other_row.format(k=k + 1, r=r, i=i), _softmax_row(Sp[k]) @ V, True) for k in rows],
                     *[(f"输出只保留了 {d} 位小数：检查允许的误差是 1e-4，至少保留 4 位。", np.round(out, d), False)
                       for d in (2, 3)]]
    raise ValueError(f"step must be one of {sorted(REASONS)}; got {step!r}.")


def _telling(ex: FadedExample) -> bool:
    """Whether every classic wrong answer of every step is more than ``_MARGIN`` from the right one."""
    for step in REASONS:
        right, wrongs = step_answers(ex, step)
        for _, value, classic in wrongs:
            if classic and np.shape(value) == np.shape(right) and np.max(np.abs(value - right)) <= _MARGIN:
                return False
    return True


def faded_example(seed: int = DEFAULT_SEED) -> FadedExample:
    """The faded example of the learner's ``seed``: Q, K in {0, 1, 2}, V in {0, ..., 3}, shape (4, 2) each,
    and the row (1..4) that steps 3 and 4 ask for.

    Parameters
    ----------
    seed : int, >= 0
        Any non-negative integer (a student number will do); the same seed always gives the same numbers.

    Returns
    -------
    FadedExample
        ``(seed, Q, K, V, row)``; every classic wrong answer of every step differs from the right one by
        more than 5e-4 on it.
    """
    seed = check_int("seed", seed, 0)
    rng = np.random.default_rng([802, seed])
    while True:          # about one draw in three is kept, so this ends after a few draws
        Q, K = (rng.integers(0, 3, size=(T, D_K)).astype(float) for _ in range(2))
        V = rng.integers(0, 4, size=(T, D_K)).astype(float)
        ex = FadedExample(seed, Q, K, V, int(rng.integers(1, T + 1)))
        if _telling(ex):
            return ex


def _check(step: str, fn, seed) -> CheckResult:
    name = f"check_faded_{step}(seed={seed!r})"
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        msg = (f"{FAIL} {name}：seed 要是一个非负整数（例如你的学号），和上面抽数时用的是同一个；"
               f"你传入的是 {type(seed).__name__} {seed!r}。")
        print(msg)
        return CheckResult(name, False, 1, 0, msg)
    ex = faded_example(int(seed))
    right, wrongs = step_answers(ex, step)
    label, hint = _CASES[step]
    case = Case(label.replace("第 r 行", f"第 {ex.row} 行"), (), right, hint.replace("第 r 行", f"第 {ex.row} 行"))
    return run_faded_step(name, fn, case, [(h, v) for h, v, _ in wrongs],
                          returns="这一步的结果", passed="数值正确，通过（your numbers are right）。", reason=REASONS[step],
                          forbid=attention_helpers(), forbid_what=HAND_ONLY_WHAT, ask=_ASK, learner=fn, atol=TOL, rtol=0.0)


@float_safe
def check_faded_scores(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """Step 1: ``fn() -> S`` (4, 4), the scores QKᵀ of ``faded_example(seed)``, to 1e-4."""
    return _check("scores", fn, seed)


@float_safe
def check_faded_scaled(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """Step 2: ``fn() -> S'`` (4, 4), the scaled scores QKᵀ/√2 of ``faded_example(seed)``, to 1e-4."""
    return _check("scaled", fn, seed)


@float_safe
def check_faded_weights(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """Step 3: ``fn() -> weights`` (4,), row ``faded_example(seed).row`` of A = softmax(S'), to 1e-4."""
    return _check("weights", fn, seed)


@float_safe
def check_faded_output(fn, seed: int = DEFAULT_SEED) -> CheckResult:
    """Step 4: ``fn() -> output`` (2,), row ``faded_example(seed).row`` of A V, to 1e-4."""
    return _check("output", fn, seed)
