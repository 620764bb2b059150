"""Self-check for the 2.8 exercise: one row of the worked example by hand.

The learner uses numpy only as a calculator (no attention helper) to compute one
row of the attention matrix A and of the output for the book's 4-token example,
in a function that returns both, and passes that function to
:func:`check_worked_example_row`.
"""

from __future__ import annotations

import numpy as np

from ..book import exact_values
from .core import Case, CheckResult, run_check

__all__ = ["check_worked_example_row"]

_WEIGHT_HINT = (
    "for query row r: scores s_j = q_r . k_j, scaled s_j / sqrt(2), then exp(s_j / sqrt(2)) / sum of the four exps. "
    "Keep full precision: rounding S' to 2 decimals before exp is exactly how the book got 4.10 instead of 4.11."
)
_OUTPUT_HINT = (
    "output row r = sum over j of A[r, j] * V[j] (V's rows are the value vectors). "
    "Use your unrounded weights, not 3-decimal ones."
)


def check_worked_example_row(fn, row: int = 2) -> CheckResult:
    """Check one row of A and of the output of the book's example (rows counted from 1).

    Parameters
    ----------
    fn : callable
        ``fn() -> (weights, output)`` with ``weights`` of shape (4,), the learner's
        A[row, :] (query ``row`` over the 4 keys), and ``output`` of shape (2,),
        the learner's output[row, :].
    row : int
        1, 2, 3 or 4, the book's 1-based row number.

    Returns
    -------
    CheckResult
        Passes when both agree with the exact values to 1e-4 (so numbers rounded
        to 3 decimals along the way, like the book's, do not pass).
    """
    if isinstance(row, bool) or not isinstance(row, (int, np.integer)) or not 1 <= int(row) <= 4:
        raise ValueError(f"row must be 1, 2, 3 or 4 (the book counts rows from 1); got {row!r}.")
    r = int(row) - 1
    ex = exact_values()
    if not callable(fn):
        return run_check(f"check_worked_example_row(row={row})", fn, [])

    def part(k):
        result = fn()
        if not isinstance(result, (tuple, list)) or len(result) != 2:
            raise TypeError(f"return a pair (weights, output); got {type(result).__name__}")
        return result[k]

    cases = [
        Case(f"A[{row}, :], the weights of query {row}", (0,), ex["A"][r], _WEIGHT_HINT),
        Case(f"output[{row}, :]", (1,), ex["output"][r], _OUTPUT_HINT),
    ]
    return run_check(f"check_worked_example_row(row={row})", part, cases, atol=1e-4, rtol=0.0)
