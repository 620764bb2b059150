"""The argument checks of helpers.ui (figures, predictions, timing): every check of the package, one call each.

Messages name the argument and what was received; the generic checks (arrays, integers, callables)
are in :mod:`helpers._validate`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np

from .._validate import as_real_array, check_int_in_range, describe
from .prediction_keys import KEYS, QID, ChoiceKey, NumberKey

__all__ = ["check_heatmap_matrix", "check_labels", "check_text", "check_options", "check_index",
           "check_finite_number", "check_tolerances", "check_question"]


def check_heatmap_matrix(A) -> np.ndarray:
    """``A`` (T_q, T_k) as a real array; ``-inf`` (masked scores) is allowed, NaN is not."""
    A = as_real_array("A", A, ndim=2, expected="(T_q, T_k)", allow_nonfinite=True)
    if np.isnan(A).any():
        raise ValueError(f"A contains NaN ({describe(A)}); nothing sensible to draw.")
    return A


def check_labels(name: str, labels, n: int) -> list[str]:
    """``labels`` as a list of ``n`` strings (one per row or column of a figure)."""
    labels = [str(s) for s in labels]
    if len(labels) != n:
        raise ValueError(f"{name} must have one label per {'row' if name == 'row_labels' else 'column'} ({n}); got {len(labels)}.")
    return labels


def check_text(name: str, value) -> str:
    """``value`` if it is a non-empty string (a question, an option)."""
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name} must be a non-empty string; got {type(value).__name__} {value!r}.")
    return value


def check_options(options) -> list[str]:
    """The options of a choice question: at least 2 distinct non-empty strings."""
    if isinstance(options, str) or not isinstance(options, Sequence):
        raise TypeError(f"options must be a list of strings; got {type(options).__name__}.")
    opts = [check_text(f"options[{i}]", o) for i, o in enumerate(options)]
    if len(opts) < 2:
        raise ValueError(f"options must offer at least 2 choices; got {len(opts)}.")
    if len(set(opts)) != len(opts):
        raise ValueError(f"options must be distinct; got {opts}.")
    return opts


def check_index(name: str, value, n: int) -> int:
    """``value`` as an index into ``n`` options."""
    return check_int_in_range(name, value, 0, n - 1, note=" (an index into options)")


def check_finite_number(name: str, value) -> float:
    """``value`` as a float if it is a finite real number (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise TypeError(f"{name} must be a finite real number; got {type(value).__name__} {value!r}.")
    return float(value)


def check_tolerances(rel_tol, abs_tol) -> tuple[float, float]:
    """``rel_tol, abs_tol`` as floats, both >= 0 and not both 0."""
    rel_tol = check_finite_number("rel_tol", rel_tol)
    abs_tol = check_finite_number("abs_tol", abs_tol)
    if rel_tol < 0 or abs_tol < 0 or (rel_tol == 0 and abs_tol == 0):
        raise ValueError(f"rel_tol and abs_tol must be >= 0 and not both 0; got rel_tol={rel_tol}, abs_tol={abs_tol}.")
    return rel_tol, abs_tol


def check_question(qid, kind: type) -> ChoiceKey | NumberKey:
    """The key of question ``qid`` (``"2.N-qK"``), checked to exist and to be of ``kind``."""
    if not isinstance(qid, str) or not QID.match(qid):
        raise ValueError(f"qid must be a question id like '2.5-q1' (section 2.N, K-th question); got {qid!r}.")
    if qid not in KEYS:
        same = sorted(k for k in KEYS if k.split("-")[0] == qid.split("-")[0])
        raise ValueError(f"qid {qid!r} has no answer key in helpers/ui/prediction_keys.py; keys of that section: {same}.")
    key = KEYS[qid]
    if not isinstance(key, kind):
        want = "predict_choice" if isinstance(key, ChoiceKey) else "predict_number"
        raise TypeError(f"qid {qid!r} is a {type(key).__name__}; ask it with H.{want}.")
    return key
