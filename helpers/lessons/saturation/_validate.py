"""The argument checks of 2.5's saturation tools (view, experiment, widget): every check of the package.

Messages name the argument and what was received; the generic checks are in :mod:`helpers._validate`.
The bounds (``D_MAX``, the slider's options) live with the numbers in :mod:`.view` and are passed in.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..._validate import as_real_array, check_positive_int

__all__ = [
    "check_d_k", "check_inv_temp", "check_seed", "check_T", "check_divide", "check_weight_rows", "check_bank",
    "check_explorer_start", "check_view_fits", "check_d_ks_listed", "check_problem", "check_fit", "check_layout",
]


def check_d_k(d_k, d_max: int) -> int:
    """``d_k`` as int if it is an integer in 1 ... d_max (the components of the fixed draw), else raise."""
    d_k = check_positive_int("d_k", d_k)
    if d_k > d_max:
        raise ValueError(f"d_k={d_k} is too large: the fixed draw has D_MAX={d_max} components.")
    return d_k


def check_inv_temp(inv_temp) -> float:
    """``inv_temp`` (1/tau) as float if it is a finite real in [0, 1000], else raise."""
    if isinstance(inv_temp, bool) or not isinstance(inv_temp, numbers.Real):
        raise TypeError(f"inv_temp must be a real number, got {inv_temp!r} (type {type(inv_temp).__name__}).")
    m = float(inv_temp)
    if not math.isfinite(m) or m < 0 or m > 1e3:
        raise ValueError(f"inv_temp (1/tau) must be a finite number in [0, 1000]; got {inv_temp!r}.")
    return m


def check_seed(seed) -> int:
    """``seed`` as int if it is a non-negative integer, else raise."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be a non-negative integer, got {seed!r} (type {type(seed).__name__}).")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed}.")
    return int(seed)


def check_T(T) -> int:
    """``T`` as int if it is an integer in 2 ... 4096, else raise."""
    T = check_positive_int("T", T)
    if not 2 <= T <= 4096:
        raise ValueError(f"T (number of keys) must be between 2 and 4096; got {T}.")
    return T


def check_divide(divide) -> bool:
    """``divide`` (divide the scores by sqrt(d_k) or not) as a Python bool."""
    if not isinstance(divide, (bool, np.bool_)):
        raise TypeError(f"divide must be True or False, got {divide!r}.")
    return bool(divide)


def check_weight_rows(weights) -> np.ndarray:
    """Softmax outputs (..., T) as a float array with at least one axis."""
    a = np.asarray(weights, dtype=float)
    if a.ndim == 0:
        raise ValueError("weights must have at least one axis (..., T).")
    return a


def check_bank(bank, n_d_ks: int) -> np.ndarray:
    """A score bank (n_seeds, n_d_ks, T) as a float array."""
    bank = np.asarray(bank, dtype=float)
    if bank.ndim != 3 or bank.shape[1] != n_d_ks:
        raise ValueError(f"bank must have shape (n_seeds, {n_d_ks}, T); got {bank.shape}.")
    return bank


def check_explorer_start(d_k, inv_temp, d_k_options: tuple, inv_temp_range: tuple) -> tuple[int, float]:
    """The explorer's starting ``d_k`` (one of its options) and ``inv_temp`` (in its slider's range)."""
    if check_d_k(d_k, max(d_k_options)) not in d_k_options:
        raise ValueError(f"d_k must be one of {d_k_options} for the explorer; got {d_k}.")
    inv_temp = check_inv_temp(inv_temp)
    if not inv_temp_range[0] <= inv_temp <= inv_temp_range[1]:
        raise ValueError(f"inv_temp must lie in the slider's range {inv_temp_range}; got {inv_temp}.")
    return d_k, inv_temp


def check_view_fits(view, T: int) -> None:
    """A view drawn into a figure of ``T`` bars must have ``T`` keys."""
    if view.T != T:
        raise ValueError(f"this figure has {T} bars; the view has T={view.T}.")


def check_d_ks_listed(d_ks: list) -> list:
    """``d_ks`` (already checked one by one) must list at least one d_k."""
    if not d_ks:
        raise ValueError("d_ks must list at least one d_k.")
    return d_ks


def check_problem(q, K, V, target):
    """A retrieval problem q (..., d_k), K (..., T, d_k), V (..., T, d_v) or (T, d_v), target; see :func:`check_fit`."""
    q = as_real_array("q", q, min_ndim=1, expected="(..., d_k)")
    K = as_real_array("K", K, min_ndim=2, expected="(..., T, d_k)")
    V = as_real_array("V", V, min_ndim=2, expected="(..., T, d_v) or (T, d_v)")
    return check_fit(q, K, V, target)


def check_fit(q, K, V, target):
    """Shapes and target of already-converted arrays; returns ``q, K, V, target (batch shape), batch``."""
    batch = K.shape[:-2]
    if q.shape != batch + K.shape[-1:] or V.shape[-2] != K.shape[-2] or V.shape[:-2] not in ((), batch):
        raise ValueError(f"shapes do not fit: q {q.shape} (..., d_k), K {K.shape} (..., T, d_k), "
                         f"V {V.shape} (..., T, d_v) or (T, d_v).")
    t = np.asarray(target)
    if not np.issubdtype(t.dtype, np.integer) or t.shape not in ((), batch):
        raise ValueError(f"target must be an integer (or integer array of shape {batch}); got {target!r}.")
    if np.any((t < 0) | (t >= K.shape[-2])):
        raise ValueError(f"target must index a key (0 ... {K.shape[-2] - 1}); got {target!r}.")
    return q, K, V, np.broadcast_to(t, batch), batch


def check_layout(layout) -> str:
    """``layout`` if it is "full" or "lecture" (weights + median curves only, for the 720p projector deck)."""
    if layout not in ("full", "lecture"):
        raise ValueError(f"layout must be 'full' or 'lecture'; got {layout!r}.")
    return layout
