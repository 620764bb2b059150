"""Self-check for the 2.11 transfer exercise: RMSNorm from its one-line definition.

``from helpers.checks import check_rms_norm``

RMSNorm(x) = x / sqrt(mean(x**2) + eps) * g, over the last axis (no mean subtracted, no beta).
The check rejects the classic slips: subtracting the mean (that is LayerNorm), the wrong axis,
eps outside the square root, the standard deviation instead of the root mean square, a
forgotten gain ``g``.
"""

from __future__ import annotations

import numpy as np

from .core import Case, CheckResult, run_check

__all__ = ["check_rms_norm"]


def _reference(x, g, eps):
    x = np.asarray(x, dtype=float)
    out = np.empty_like(x)
    for idx in np.ndindex(x.shape[:-1]):
        row = x[idx]
        out[idx] = row / np.sqrt(np.mean(row * row) + eps) * g
    return out


def check_rms_norm(fn) -> CheckResult:
    """Check ``fn(x, g, eps) -> y``: RMSNorm over the last axis. x (..., d), g (d,), y (..., d)."""
    r = np.random.default_rng(20260211)
    shifted = (r.normal(size=(4, 6)) + 3.0, r.normal(size=6), 1e-6)
    wide = (r.normal(size=(3, 8)), np.ones(8), 1e-6)
    batch = (r.normal(size=(2, 3, 5)), r.uniform(0.5, 2.0, size=5), 1e-6)
    tiny = (np.full((2, 4), 1e-3), np.ones(4), 1e-2)
    hint = "RMSNorm 只除以每一行（最后一个轴）的均方根，不减均值，没有 beta。"
    cases = [
        Case("均值不为 0 的行 (4, 6)", shifted, _reference(*shifted),
             hint + " 均值不为 0 时，减不减均值结果不同。"),
        Case("行数不等于宽度 (3, 8), g = 1", wide, _reference(*wide), "沿哪个轴求平均？每个词一行，对它自己的 d 个数求平均。"),
        Case("批量输入 (2, 3, 5)，g 不全为 1", batch, _reference(*batch), "输入可以有好几个批量维度：只沿最后一个轴求平均，并保留这个轴，好让每一行除以它自己的均方根；最后别忘了乘 g。"),
        Case("很小的输入，eps = 1e-2", tiny, _reference(*tiny), "eps 应该先加到均方值上，再开平方根——不是开完根再加，也不是加到别处。"),
    ]
    return run_check("check_rms_norm", fn, cases, atol=1e-9, rtol=1e-7)
