"""The chapter's 4-token worked example (section 2.8), as printed: the book's numbers as data.

Everything the book prints for the example lives here, in ONE place, transcribed
from the chapter text with the printed digits kept as strings, so that the
precision the book chose ("0.450" has 3 decimals, "0.25" has 2) is part of the
data. :mod:`helpers.book.compare` computes the same quantities exactly and
compares them; :mod:`helpers.book.errata` counts what is wrong.

"Everything" means every number the section prints after its givens: the
results of the five steps, the intermediate exponentials and row sums, and also
the places where the book prints a number again (Q and K^T written out in step 2,
the weights and value rows written out in step 5, x_1 in the closing sentence).
The givens X, W_Q, W_K, W_V define the example, so there is nothing to compare
them with; they are the inputs of the computation (:func:`example_inputs`). The
one symbolic line, the expansion of q_1 as sums of products in step 1, is a
formula whose value is Q[1, :], which is compared.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import check_text

__all__ = [
    "BookQuantity",
    "BOOK_QUANTITIES",
    "GIVEN_KEYS",
    "example_inputs",
    "printed_decimals",
    "book_array",
]

# ---------------------------------------------------------------------------
# The example's inputs (2.8): d_model = 4, d_k = d_v = 2, T = 4. The book calls
# the projection matrices "random but fixed"; they are hand-picked 0/1 matrices.
# ---------------------------------------------------------------------------
_X = ((1, 0, 1, 0), (0, 1, 0, 1), (1, 1, 0, 0), (0, 0, 1, 1))
_W_Q = ((1, 0), (0, 1), (1, 1), (0, 0))
_W_K = ((0, 1), (1, 0), (0, 1), (1, 0))
_W_V = ((1, 1), (0, 1), (1, 0), (0, 1))


@dataclass(frozen=True)
class BookQuantity:
    """One value (scalar, vector or matrix) that the book prints for the example.

    Attributes
    ----------
    key : str
        Identifier used by :func:`exact_values` and :func:`book_chain_values`.
    label : str
        ASCII name for tables; ``{i}`` is replaced by the entry's 1-based index
        ("A[{i}]" -> "A[1,2]", "exp(S'[1,{i}])" -> "exp(S'[1,3])").
    relation : str
        ``"="`` if the book states it exactly, ``"~"`` if it writes "≈".
    printed : tuple
        The printed digits as strings: ``str`` (scalar), tuple of str (vector,
        shape (n,)) or tuple of tuples of str (matrix, shape (r, c)).
    where : str
        Where in section 2.8 the book prints it.
    """

    key: str
    label: str
    relation: str
    printed: tuple | str
    where: str


def _m(*rows: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(r.split()) for r in rows)


def _v(row: str) -> tuple[str, ...]:
    return tuple(row.split())


#: Every value section 2.8 prints, in the order the book prints them.
BOOK_QUANTITIES: tuple[BookQuantity, ...] = (
    BookQuantity("Q", "Q[{i}]", "=", _m("2 1", "0 1", "1 1", "1 1"), "step 1, Q = X W_Q"),
    BookQuantity("K", "K[{i}]", "=", _m("0 2", "2 0", "1 1", "1 1"), "step 1, K = X W_K"),
    BookQuantity("V", "V[{i}]", "=", _m("2 1", "0 2", "1 2", "1 1"), "step 1, V = X W_V"),
    BookQuantity("S_step_Q", "Q[{i}]（第二步）", "=", _m("2 1", "0 1", "1 1", "1 1"), "step 2, Q written out in Q K^T"),
    BookQuantity("S_step_KT", "K^T[{i}]（第二步）", "=", _m("0 2 1 1", "2 0 1 1"), "step 2, K^T written out in Q K^T"),
    BookQuantity("S", "S[{i}]", "=", _m("2 4 3 3", "2 0 1 1", "2 2 2 2", "2 2 2 2"), "step 2, S = Q K^T"),
    BookQuantity("sqrt_dk", "sqrt(d_k)", "~", "1.414", "step 3, S / sqrt(2) (~ S / 1.414)"),
    BookQuantity(
        "S_scaled", "S'[{i}]", "~",
        _m("1.41 2.83 2.12 2.12", "1.41 0 0.71 0.71", "1.41 1.41 1.41 1.41", "1.41 1.41 1.41 1.41"),
        "step 3, S' matrix",
    ),
    BookQuantity("exp_row1", "exp(S'[1,{i}])", "~", _v("4.10 16.95 8.33 8.33"), "step 4, row 1 exponentials"),
    BookQuantity("rowsum_row1", "行和 1", "~", "37.71", "step 4, row 1 sum"),
    BookQuantity("A_row1", "A[1,{i}]（单行）", "~", _v("0.109 0.450 0.221 0.221"), "step 4, row 1 normalised"),
    BookQuantity("exp_row2", "exp(S'[2,{i}])", "~", _v("4.10 1.00 2.03 2.03"), "step 4, row 2 exponentials"),
    BookQuantity("rowsum_row2", "行和 2", "~", "9.16", "step 4, row 2 sum"),
    BookQuantity("A_row2", "A[2,{i}]（单行）", "~", _v("0.448 0.109 0.222 0.222"), "step 4, row 2 normalised"),
    BookQuantity("A_row3", "A[3,{i}]（单行）", "~", _v("0.25 0.25 0.25 0.25"), "step 4, A[3,:] = A[4,:]"),
    BookQuantity("A_row4", "A[4,{i}]（单行）", "~", _v("0.25 0.25 0.25 0.25"), "step 4, A[3,:] = A[4,:]"),
    BookQuantity(
        "A", "A[{i}]", "~",
        _m("0.109 0.450 0.221 0.221", "0.448 0.109 0.222 0.222", "0.25 0.25 0.25 0.25", "0.25 0.25 0.25 0.25"),
        "step 4, full A",
    ),
    BookQuantity("step5_weights", "A[1,{i}]（第五步）", "~", _v("0.109 0.450 0.221 0.221"), "step 5, the weights of output row 1"),
    BookQuantity("step5_values", "V[{i}]（第五步）", "=", _m("2 1", "0 2", "1 2", "1 1"), "step 5, the value rows v_j"),
    BookQuantity(
        "step5_terms", "分项[{i}]（第五步）", "~", _m("0.218 0.109", "0 0.900", "0.221 0.442", "0.221 0.221"),
        "step 5, the four terms A[1,j] v_j of output row 1 (term[j, c])",
    ),
    BookQuantity("output_row1", "out[1,{i}]（单行）", "~", _v("0.660 1.672"), "step 5, output row 1"),
    BookQuantity(
        "output", "out[{i}]", "~", _m("0.660 1.672", "1.337 1.224", "1.000 1.500", "1.000 1.500"),
        "step 5, full output",
    ),
    BookQuantity("x1_recap", "X[1,{i}]（章末）", "=", _v("1 0 1 0"), "closing sentence, x_1 before attention"),
    BookQuantity("output_row1_recap", "out[1,{i}]（章末）", "~", _v("0.660 1.672"), "closing sentence, new representation of x_1"),
)


#: Keys of BOOK_QUANTITIES that restate a given (x_1 in the closing sentence): not a result.
GIVEN_KEYS = frozenset({"x1_recap"})


def example_inputs() -> dict[str, np.ndarray]:
    """The example's X (4, 4), W_Q (4, 2), W_K (4, 2), W_V (4, 2) as fresh float arrays."""
    return {
        "X": np.array(_X, dtype=float),
        "W_Q": np.array(_W_Q, dtype=float),
        "W_K": np.array(_W_K, dtype=float),
        "W_V": np.array(_W_V, dtype=float),
    }


def printed_decimals(printed: str) -> int:
    """Number of decimals in a printed number: ``"0.450"`` -> 3, ``"0"`` -> 0.

    Raises
    ------
    TypeError
        If ``printed`` is not a string.
    ValueError
        If it is not a plain decimal number.
    """
    try:
        float(check_text("printed", printed))
    except ValueError:
        raise ValueError(f"printed must be a plain decimal number such as '0.450'; got {printed!r}.") from None
    if any(c in printed.lower() for c in "ein"):
        raise ValueError(f"printed must be a plain decimal number (no exponent, inf or nan); got {printed!r}.")
    return len(printed.split(".", 1)[1]) if "." in printed else 0


def book_array(quantity: BookQuantity) -> np.ndarray:
    """The printed digits of ``quantity`` as a float array (shape (), (n,) or (r, c))."""
    return np.array(quantity.printed, dtype=float)

