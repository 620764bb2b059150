"""Self-check for the 2.7 transfer exercise: attention with a key-padding mask."""

from __future__ import annotations

import numpy as np

from ..softmax import softmax
from .core import Case, CheckResult, run_check

__all__ = ["check_key_padding_attention"]


def _padded_ref(Q, K, V, key_valid):
    keep = np.asarray(key_valid, dtype=bool)
    K, V = np.asarray(K)[keep], np.asarray(V)[keep]
    return softmax(np.asarray(Q) @ K.T / np.sqrt(K.shape[1]), axis=-1) @ V


def check_key_padding_attention(fn) -> CheckResult:
    """Check ``fn(Q, K, V, key_valid) -> output`` of shape (T_q, d_v).

    ``key_valid`` has shape (T_kv,), boolean, True for a real token and False for padding.
    Every query must give exactly the output it would give if the padded keys and values were
    not there at all, whatever numbers the padding holds.
    """
    rng = np.random.default_rng(20260208)
    T, d_k, d_v = 5, 3, 4
    Q, K, V = rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))
    end_pad = np.array([True, True, True, False, False])
    Kg, Vg = K.copy(), V.copy()
    # Padding that holds large garbage: for some queries a padded key outscores every real key by
    # hundreds, so "softmax over all keys, then zero the padding (and renormalise)" underflows the real
    # keys to 0 and fails, while a mask applied before the softmax is unaffected.
    Kg[~end_pad] = 1e3 * rng.normal(size=(2, d_k))
    Vg[~end_pad] = 1e3
    mid = np.array([True, False, True, True, False])
    Q6 = rng.normal(size=(2, d_k))                      # T_q != T_kv
    cases = [
        Case("末尾 2 个位置是填充", (Q, K, V, end_pad), _padded_ref(Q, K, V, end_pad),
             "填充位置的权重应当恰好为 0，其余权重仍然和为 1。"),
        Case("填充位置里装着很大的垃圾数", (Q, Kg, Vg, end_pad), _padded_ref(Q, Kg, Vg, end_pad),
             "结果不应依赖填充位置里的数：它们必须在 softmax 之前就被排除。"),
        Case("没有填充", (Q, K, V, np.ones(T, dtype=bool)), _padded_ref(Q, K, V, np.ones(T, dtype=bool)),
             "没有填充时应与普通的缩放点积注意力完全一致（别忘了除以 sqrt(d_k)）。"),
        Case("填充不在末尾、T_q=2 不等于 T_kv=5", (Q6, K, V, mid), _padded_ref(Q6, K, V, mid),
             "掩码作用在键（列）上，不是查询（行）上；形状应为 (T_q, d_v)。"),
    ]
    return run_check("check_key_padding_attention", fn, cases, atol=1e-8, rtol=1e-6,
                     general_hint="key_valid 为 False 的键：它的分数在 softmax 之前该变成什么？")
