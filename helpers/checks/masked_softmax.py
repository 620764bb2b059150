"""Self-checks for 2.6: a masked softmax whose fully masked rows give zero weights (transfer),
and the bug hunt (attention that subtracted the global max instead of each row's max)."""

from __future__ import annotations

import numpy as np

from ..softmax import softmax
from .core import Case, CheckResult, run_check

__all__ = ["check_masked_softmax", "check_row_max_fix"]


def _masked_softmax_ref(scores, allowed):
    """Reference: softmax over the allowed keys of each row; a row with no allowed key is all zeros."""
    scores = np.asarray(scores)
    allowed = np.asarray(allowed, dtype=bool)
    out = np.zeros(scores.shape, dtype=np.result_type(scores.dtype, np.float32))
    any_allowed = allowed.any(axis=-1)
    s = np.where(allowed, scores, -np.inf)
    m = np.where(any_allowed, s.max(axis=-1), 0.0)[..., None]
    e = np.where(allowed, np.exp(np.where(allowed, scores - m, 0.0)), 0.0)
    den = e.sum(axis=-1, keepdims=True)
    np.divide(e, den, out=out, where=den > 0)
    return out


def check_masked_softmax(fn) -> CheckResult:
    """Check ``fn(scores, allowed) -> weights``, both of shape (..., T_kv), ``allowed`` boolean (True = may attend).

    Each row is a softmax over its allowed keys only; masked keys get exactly 0; a row whose
    keys are *all* masked gets all-zero weights (no NaN, no uniform weights on masked keys).
    """
    rng = np.random.default_rng(20260206)
    s1 = np.array([[0.5, 2.0, -1.0, 1.0]])
    a1 = np.array([[True, False, True, True]])
    s2 = rng.normal(size=(2, 3, 4))
    a2 = rng.random(size=(2, 3, 4)) < 0.7
    a2[..., 0] = True                                   # every row keeps at least one key
    s3 = rng.normal(size=(3, 5))
    a3 = np.ones((3, 5), dtype=bool)
    a3[1] = False                                       # row 1: every key masked
    a3[2, 3:] = False
    s4 = np.array([[1e4, 0.0, 1.0, -2.0], [-1e3, -999.0, -1002.0, 5e3]], dtype=np.float64)
    a4 = np.array([[False, True, True, True], [True, True, True, False]])
    cases = [
        Case("一行，第 2 个键被掩码", (s1, a1), _masked_softmax_ref(s1, a1),
             "被掩码的键权重必须恰好为 0，其余键的权重仍要和为 1。"),
        Case("批量 (2, 3, 4) 的分数", (s2, a2), _masked_softmax_ref(s2, a2),
             "每一行（最后一个轴）单独归一化，掩码逐元素对应分数。"),
        Case("有一行的键全部被掩码", (s3, a3), _masked_softmax_ref(s3, a3),
             "全被掩码的行没有任何可看的键：它既不该出现 NaN，也不该把权重平均分给被掩码的键。"),
        Case("被掩码的位置上分数极大 / 一行整体远低于其他行", (s4, a4), _masked_softmax_ref(s4, a4),
             "被掩码的分数不能参与任何计算（包括求最大值）；先做 softmax 再乘掩码会被它带偏。"),
    ]
    return run_check("check_masked_softmax", fn, cases, atol=1e-9, rtol=1e-6,
                     general_hint="先想清楚：被掩码的键在 exp 之前应该变成什么？全被掩码的行最后该输出什么？")


def _attention_ref(Q, K, V):
    S = np.asarray(Q) @ np.asarray(K).T / np.sqrt(np.asarray(K).shape[-1])
    return softmax(S, axis=-1) @ np.asarray(V)


def check_row_max_fix(fn) -> CheckResult:
    """Check a fixed attention ``fn(Q, K, V) -> output`` of shape (T_q, d_v) from the 2.6 bug hunt.

    Cases include a batch of queries whose score rows lie far apart, so that subtracting the
    maximum of the whole score matrix (instead of each row's maximum) underflows a row to 0/0.
    """
    rng = np.random.default_rng(20260207)
    Q1, K1, V1 = rng.normal(size=(4, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    K2 = rng.normal(size=(4, 4))
    Q2 = np.vstack([400.0 * K2[0], rng.normal(size=(2, 4))])            # one very loud query, two quiet ones
    V2 = rng.normal(size=(4, 3))
    K3 = rng.normal(size=(6, 8)).astype(np.float32)
    Q3 = np.vstack([60.0 * K3[2], rng.normal(size=8)]).astype(np.float32)
    V3 = rng.normal(size=(6, 2)).astype(np.float32)
    cases = [
        Case("普通的小输入（T_q=4, T_kv=5, d_v=2）", (Q1, K1, V1), _attention_ref(Q1, K1, V1),
             "先确认缩放用的是 sqrt(d_k)，softmax 沿每一行（最后一个轴）。"),
        Case("一个很“响”的查询和两个安静的查询", (Q2, K2, V2), _attention_ref(Q2, K2, V2),
             "有一行的分数都比另一行的最大值低几百：减去的最大值应该是谁的最大值？"),
        Case("float32，两行分数相距很远", (Q3, K3, V3), _attention_ref(Q3, K3, V3),
             "float32 的 exp 在指数低于约 -100 时就下溢为 0；每一行都要有一个指数恰好为 0 的项。"),
    ]
    return run_check("check_row_max_fix", fn, cases, atol=1e-5, rtol=1e-4,
                     general_hint="比较 bug 版本与 2.6 第 4 节的稳定 softmax，逐行看差在哪里。")
