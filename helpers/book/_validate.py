"""The argument checks of helpers.book: a printed number, a relation, the values compared with the book.

Messages name the argument and what was received; the generic checks are in :mod:`helpers._validate`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

__all__ = ["check_printed", "check_agreement", "check_book_values"]


def check_printed(printed) -> str:
    """``printed`` if it is a number as the book prints it: a string such as ``"0.450"`` (no exponent, inf, nan)."""
    if not isinstance(printed, str):
        raise TypeError(f"printed must be the number as a string (e.g. '0.450'); got {printed!r} (type {type(printed).__name__}).")
    try:
        float(printed)
    except ValueError:
        raise ValueError(f"printed must be a plain decimal number such as '0.450'; got {printed!r}.") from None
    if any(c in printed.lower() for c in "ein"):
        raise ValueError(f"printed must be a plain decimal number (no exponent, inf or nan); got {printed!r}.")
    return printed


def check_agreement(relation, value) -> float:
    """``relation`` is ``"~"`` or ``"="``; return ``value`` as a finite float."""
    if relation not in ("~", "="):
        raise ValueError(f"relation must be '~' (approximately) or '=' (exactly); got {relation!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value must be finite; got {value}.")
    return value


def check_book_values(name: str, values: Mapping, key: str, shape: tuple[int, ...]) -> None:
    """``values[key]`` exists and has the ``shape`` the book prints (``name`` is "exact" or "chain")."""
    if key not in values:
        raise ValueError(f"{name} values have no entry {key!r}.")
    if np.shape(values[key]) != shape:
        raise ValueError(f"{name}[{key!r}] has shape {np.shape(values[key])}, but the book prints shape {shape}.")
