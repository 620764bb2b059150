"""How a self-check reads and compares what a learner's function returned (never raises, never shows the answer).

``as_numbers`` turns any return value into floats or a Chinese reason; ``compare_values`` says whether it
matches the expected value at the check's tolerance (float32 results at float32 precision, see
``dtype_tolerance``) and, if not, why in words that do not reveal the expected value; ``type_problem`` checks
a stated return type. :func:`helpers.checks.core.run_check` and :mod:`helpers.checks.diagnose` use them.
"""

from __future__ import annotations

import numpy as np

__all__: list[str] = []  # no check_* here: helpers for the checks' core


def describe_value(value) -> str:
    """A short Chinese description of what the learner returned: its type, and dtype/shape for an array."""
    try:
        if isinstance(value, np.ndarray):
            return f"dtype 为 {value.dtype}、形状（shape）为 {value.shape} 的数组"
        return type(value).__name__
    except Exception:  # an object whose attributes raise
        return "一个无法读取的对象"


def exception_text(exc: BaseException) -> str:
    """``Type: message`` of an exception the learner's code raised, even if its ``__str__`` raises; at most 300 characters."""
    try:
        text = str(exc)
    except Exception:
        text = "（无法显示的异常信息）"
    text = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return text if len(text) <= 300 else text[:297] + "..."


# float32 results are compared at their own precision: 64 units in the last place, relative to the largest
# expected magnitude (a float32 matmul over d_k = 1024 needs ~5e-7). It is capped at 1e-2, so a constant-factor
# error (1.04x, 1.01x) is still rejected in any dtype. No task gives float16 inputs: a float16 result is held to
# float32 precision (it fails, and is told that float16 is the reason, see _precision_reason).
_ULPS = 64
_MAX_DTYPE_RTOL = 1e-2
FLOAT16_REASON = "你的结果是 float16（半精度，只有约 3 位有效数字）"
MIXED_REASON = "差别很小，只在 float32 的精度量级"


def dtype_tolerance(dtype, expected: np.ndarray, atol: float, rtol: float) -> tuple[float, float]:
    """(atol, rtol) for a result of floating ``dtype``: never tighter than the check's, looser only for float32
    (float16 is held to float32 precision)."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f" or dtype.itemsize >= 8:
        return atol, rtol
    tol = min(_ULPS * float(np.finfo(np.float32 if dtype.itemsize < 4 else dtype).eps), _MAX_DTYPE_RTOL)
    finite = np.abs(expected[np.isfinite(expected)])
    scale = float(finite.max()) if finite.size else 0.0
    return max(atol, tol * scale), max(rtol, tol)


def as_numbers(got) -> tuple[np.ndarray | None, str | None]:
    """(float array, None) for a numeric result, else (None, a Chinese reason). Never raises."""
    if isinstance(got, (str, bytes)):
        return None, f"你返回的是字符串（{type(got).__name__}），这里要的是数值"
    try:
        raw = np.asarray(got)
        if raw.dtype.kind == "c":
            return None, "你的结果是复数（complex），这里要的是实数：检查是否有复数运算混了进来"
        if raw.dtype.kind in "USVMm":
            return None, f"无法把你的结果读成数值（收到的是 {describe_value(raw)}）"
        return raw.astype(float), None
    except Exception:  # ragged lists, generators, dicts, ints too large for a float, objects whose __array__ raises
        return None, f"无法把你的结果读成数值（收到的是 {describe_value(got)}）"


def input_precision(*values) -> np.dtype | None:
    """The least precise floating dtype among the arrays in ``values`` (nested in tuples, lists and dict
    values), or None when none is a float array below float64. A case with float32 inputs is answered at
    float32 precision whatever dtype the result has: a correct loop that accumulates into ``np.zeros(n)``
    (float64 by default) is still float32 work."""
    low = None
    stack = list(values)
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, (np.ndarray, np.floating)) and v.dtype.kind == "f" and v.dtype.itemsize < 8:
            if low is None or v.dtype.itemsize < low.itemsize:
                low = v.dtype
    return low


def compare_values(got, expected, atol: float, rtol: float, dtype_aware: bool = True,
                   inputs_dtype=None) -> str | None:
    """Return None if ``got`` matches ``expected``, else a reason that does not reveal ``expected``.

    ``inputs_dtype`` (see :func:`input_precision`): with ``dtype_aware``, a result of a wider dtype than
    the case's inputs is compared at the inputs' precision (float32 inputs, float64 result: float32
    precision); a float64 case is never loosened by a float64 result."""
    if isinstance(expected, tuple):
        if got is None:
            return "你的函数返回了 None（是不是忘了写 `return`？）"
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            what = (f"{len(got)} 个结果组成的 {type(got).__name__}" if isinstance(got, (tuple, list))
                    else describe_value(got))
            return f"应返回 {len(expected)} 个结果组成的元组（tuple），你返回的是 {what}"
        for k, (g, e) in enumerate(zip(got, expected)):
            reason = compare_values(g, e, atol, rtol, dtype_aware)
            if reason:
                return f"第 {k + 1} 个返回值：{reason}"
        return None
    if got is None:
        return "你的函数返回了 None（是不是忘了写 `return`？）"
    g, reason = as_numbers(got)
    if reason:
        return reason
    e = np.asarray(expected, dtype=float)
    if g.shape != e.shape:
        return f"你的结果形状（shape）是 {g.shape}，应为 {e.shape}"
    check_atol, check_rtol = atol, rtol
    got_dtype = np.asarray(got).dtype
    if dtype_aware:
        tol_dtype = got_dtype
        if inputs_dtype is not None and got_dtype.kind == "f" and got_dtype.itemsize > np.dtype(inputs_dtype).itemsize:
            tol_dtype = np.dtype(inputs_dtype)
        atol, rtol = dtype_tolerance(tol_dtype, e, atol, rtol)
    if np.any(np.isfinite(g) != np.isfinite(e)) or np.any(np.isnan(g) != np.isnan(e)):
        if np.isnan(g).any() and not np.isnan(e).any():
            if np.isinf(e).any():
                return ("你的结果在不该是 NaN 的位置给出了 NaN（常见原因：0 × (−∞) 或 (−∞) − (−∞) 在浮点数里都是 NaN，"
                        "也可能是 exp 溢出或 0/0）")
            return "你的结果含有 NaN 或 inf（常见原因：exp 溢出，或 0/0）"
        if np.isinf(e).any():
            # e.g. an additive mask: -inf belongs in some places; say how many are misplaced, not where
            wrong = int(np.sum(np.isinf(g) != np.isinf(e)))
            return f"共 {e.size} 个元素中有 {wrong} 个在「是否为 ±inf」上不对（该是 −∞ 的位置与不该是的位置）"
        return "你的结果在不该是 ±inf 的位置给出了 inf"
    close = np.isclose(g, e, atol=atol, rtol=rtol, equal_nan=True)
    if not np.all(close) and isinstance(expected, (bool, np.bool_)):
        return "你返回的真假值（True/False）不对"
    if not np.all(close) and close.size == 1:
        return "你的数值不对"
    if not np.all(close):
        # Say how many entries are off, not by how much: with an all-zero answer the
        # size of the error would give the expected values away.
        return f"共 {close.size} 个元素中有 {int(close.size - close.sum())} 个数值不对" + (
            _precision_reason(g, e, got_dtype, check_atol, check_rtol) if dtype_aware else "")
    return None


def _precision_reason(g: np.ndarray, e: np.ndarray, dtype, atol: float, rtol: float) -> str:
    """Why an answer that is off only at low precision fails (Chinese, appended to the reason), or "".

    A float16 result that is right at float16 precision; a float64 result that is right only at float32
    precision (float32 arrays combined with a float64 number, e.g. ``np.sqrt(d_k)``, come out float64).
    The check's tolerance is not changed: these answers still fail, and are told why.
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f" or dtype.itemsize == 4:
        return ""
    if dtype.itemsize < 4:
        tol = _MAX_DTYPE_RTOL
        scale = float(np.abs(e[np.isfinite(e)]).max()) if np.isfinite(e).any() else 0.0
        near = np.isclose(g, e, atol=max(atol, tol * scale), rtol=max(rtol, tol), equal_nan=True)
        return f"：{FLOAT16_REASON}，检查至少按 float32 的精度比较" if np.all(near) else ""
    atol32, rtol32 = dtype_tolerance(np.float32, e, atol, rtol)
    near = np.isclose(g, e, atol=atol32, rtol=rtol32, equal_nan=True)
    return f"（{MIXED_REASON}）" if np.all(near) else ""


def type_problem(got, result_type) -> str | None:
    """Why ``got`` is not of the ``result_type`` a task asks for (Chinese), or None.

    ``result_type`` is ``int`` (an integer, not a bool, not a float that happens to be whole), ``bool``
    (True/False, numpy's bool included) or ``"bool array"`` (an array, or nested lists, of bools).
    """
    if result_type is int:
        if isinstance(got, (bool, np.bool_)) or not isinstance(got, (int, np.integer)):
            return f"这里要返回一个整数（int），你返回的是 {describe_value(got)}"
    elif result_type is bool:
        if not isinstance(got, (bool, np.bool_)):
            return f"这里要返回一个真假值（bool：True 或 False），你返回的是 {describe_value(got)}"
    elif result_type == "bool array":
        try:
            ok = not isinstance(got, (bool, np.bool_)) and np.asarray(got).dtype == bool
        except Exception:
            ok = False
        if not ok:
            return f"这里要返回一个布尔矩阵（元素是 True/False，dtype 为 bool），你返回的是 {describe_value(got)}"
    elif result_type is not None:
        raise ValueError(f"result_type must be None, int, bool or 'bool array'; got {result_type!r}")
    return None
