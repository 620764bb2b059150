"""The worked example of 2.8 recomputed exactly and compared with the book, entry by entry.

The verdict rule (:func:`agrees_up_to_rounding`):

* a quantity the book states with "=" (Q, K, V, S) must match exactly;
* a quantity stated with "≈" agrees when the exact value lies within half a unit
  of the last printed decimal of the book's number: ``|book - exact| <= 0.5 * 10**-d``
  where ``d`` is the number of decimals printed (``"0.450"`` -> d = 3 -> 0.0005).
  A bare integer printed inside a "≈" matrix (the ``0`` in S') is judged at its
  own precision (d = 0); in this example such entries are exactly 0 anyway.

For every disagreeing entry the module also recomputes the entry the way a
careful hand calculation would if it carried the book's own printed, rounded
numbers forward (:func:`book_chain_values`). If that reproduces the printed value,
the cause is "carried forward": the error was already in an earlier printed
number (usually a rounded intermediate; in 2.8 also the slip A[1,2] = 0.450) and
the book carried it into this step. If not, the printed number cannot be
reproduced from the book's own earlier numbers either: "not reproducible", an
arithmetic, rounding or typing slip made at this very step.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from ..core.attention import scaled_dot_product_attention
from .._validate import check_choice, check_real
from .printed import BOOK_QUANTITIES, BookQuantity, book_array, example_inputs, printed_decimals
from ..core.projections import project_qkv
from ..core.scores import dot_product_scores
from ..core.softmax import softmax

__all__ = [
    "BookEntry",
    "exact_values",
    "book_chain_values",
    "agrees_up_to_rounding",
    "compare_with_book",
    "disagreements",
    "entry_name",
    "pad",
    "format_table",
    "CAUSE_TEXT",
]

#: What a disagreement's ``cause`` means, in the Chinese the notebooks print.
CAUSE_TEXT = {"carried forward": "沿用书的数能复现", "not reproducible": "书自己的数也复现不了"}


class BookEntry(NamedTuple):
    """One printed number of the example next to its exact value.

    ``index`` is 1-based like the book (``()`` for a scalar); ``book_chain`` is the
    value obtained by carrying the book's own rounded numbers forward.
    """

    key: str
    label: str
    index: tuple[int, ...]
    printed: str
    decimals: int
    book: float
    exact: float
    book_chain: float
    difference: float
    tolerance: float
    agrees: bool
    cause: str


def _quantities_by_key(quantities: Sequence[BookQuantity]) -> dict[str, BookQuantity]:
    return {q.key: q for q in quantities}


def exact_values() -> dict[str, np.ndarray]:
    """Every quantity of :data:`BOOK_QUANTITIES`, computed in float64 without rounding.

    Returns
    -------
    dict of str to numpy.ndarray
        Keyed like :data:`BOOK_QUANTITIES`; shapes: Q, K, V, S_step_Q, step5_values
        (4, 2); S_step_KT (2, 4); S, S_scaled, A (4, 4); sqrt_dk and rowsum_row* ();
        exp_row*, A_row*, step5_weights, x1_recap (4,); step5_terms (4, 2);
        output (4, 2); output_row1* (2,).
    """
    inp = example_inputs()
    Q, K, V = project_qkv(inp["X"], inp["W_Q"], inp["W_K"], inp["W_V"])
    res = scaled_dot_product_attention(Q, K, V)               # the series' own helper gives A and the output
    A, out = res.weights, res.output
    S = dot_product_scores(Q, K)                             # the intermediates the book also prints
    d_k = Q.shape[-1]
    S_scaled = S / math.sqrt(d_k)
    E = np.exp(S_scaled)
    return {
        "Q": Q, "K": K, "V": V, "S_step_Q": Q, "S_step_KT": K.T, "S": S,
        "sqrt_dk": np.array(math.sqrt(d_k)),
        "S_scaled": S_scaled,
        "exp_row1": E[0], "rowsum_row1": np.array(E[0].sum()), "A_row1": A[0],
        "exp_row2": E[1], "rowsum_row2": np.array(E[1].sum()), "A_row2": A[1],
        "A_row3": A[2], "A_row4": A[3], "A": A,
        "step5_weights": A[0], "step5_values": V, "step5_terms": A[0][:, None] * V,
        "output_row1": out[0], "output": out, "x1_recap": inp["X"][0], "output_row1_recap": out[0],
    }


def book_chain_values(quantities: Sequence[BookQuantity] = BOOK_QUANTITIES) -> dict[str, np.ndarray]:
    """Each quantity recomputed from the book's *printed* (rounded) earlier numbers.

    This is what a careful hand calculation gets if it carries the book's rounded
    intermediate results into the next step: exp of the printed S', the sum of
    the printed exponentials, printed exponential / printed sum, the printed A
    times V. The integer quantities (Q, K, V, S and their restatements, x_1) and
    sqrt(d_k) have no earlier rounding: exact.

    Returns
    -------
    dict of str to numpy.ndarray
        Same keys and shapes as :func:`exact_values`.
    """
    b = {k: book_array(q) for k, q in _quantities_by_key(quantities).items()}
    exact = exact_values()
    chain = {k: exact[k] for k in ("Q", "K", "V", "S_step_Q", "S_step_KT", "S", "sqrt_dk",
                                   "step5_values", "x1_recap")}
    chain["S_scaled"] = exact["S"] / b["sqrt_dk"]
    for r in (1, 2):
        chain[f"exp_row{r}"] = np.exp(b["S_scaled"][r - 1])
        chain[f"rowsum_row{r}"] = np.array(b[f"exp_row{r}"].sum())
        chain[f"A_row{r}"] = b[f"exp_row{r}"] / b[f"rowsum_row{r}"]
    for r in (3, 4):
        chain[f"A_row{r}"] = softmax(b["S_scaled"][r - 1])
    chain["A"] = np.stack([chain[f"A_row{r}"] for r in (1, 2, 3, 4)])
    chain["step5_weights"] = chain["A_row1"]
    V = exact["V"]
    chain["step5_terms"] = b["step5_weights"][:, None] * V
    chain["output_row1"] = b["step5_weights"] @ V
    chain["output"] = b["A"] @ V
    chain["output_row1_recap"] = b["A_row1"] @ V
    return chain


def agrees_up_to_rounding(printed: str, value: float, relation: str = "~") -> bool:
    """Does ``value`` round to the book's ``printed`` number at the book's own precision?

    Parameters
    ----------
    printed : str
        The number as printed, e.g. ``"0.450"``.
    value : float
        The value it should stand for.
    relation : {"~", "="}
        ``"="``: the book claims an exact value (must match to 1e-12);
        ``"~"``: ``|printed - value| <= 0.5 * 10**-decimals`` (+1e-12 for ties).
    """
    relation = check_choice("relation", relation, ("~", "="), note=" ('~' approximately, '=' exactly)")
    value = check_real("value", value)
    d = printed_decimals(printed)
    tol = 1e-12 if relation == "=" else 0.5 * 10.0 ** (-d) + 1e-12
    return abs(float(printed) - value) <= tol


def compare_with_book(
    quantities: Sequence[BookQuantity] = BOOK_QUANTITIES,
    exact: Mapping[str, np.ndarray] | None = None,
    chain: Mapping[str, np.ndarray] | None = None,
) -> list[BookEntry]:
    """Compare every printed number with its exact value, entry by entry.

    Parameters
    ----------
    quantities : sequence of BookQuantity
        Default: everything the book prints (:data:`BOOK_QUANTITIES`).
    exact, chain : mapping of str to array, optional
        Default :func:`exact_values` and :func:`book_chain_values`. Each array
        must have the shape of the printed quantity.

    Returns
    -------
    list of BookEntry
        One per printed number, in the book's order (row-major within a matrix).
    """
    exact = exact_values() if exact is None else exact
    chain = book_chain_values(quantities) if chain is None else chain
    rows: list[BookEntry] = []
    for q in quantities:
        printed = np.array(q.printed, dtype=object)
        for name, src in (("exact", exact), ("chain", chain)):
            if q.key not in src:
                raise ValueError(f"{name} values have no entry {q.key!r}.")
            if np.shape(src[q.key]) != printed.shape:
                raise ValueError(f"{name}[{q.key!r}] has shape {np.shape(src[q.key])}, but the book prints shape {printed.shape}.")
        ex = np.asarray(exact[q.key], dtype=float)
        ch = np.asarray(chain[q.key], dtype=float)
        for idx in np.ndindex(printed.shape):
            s = printed[idx]
            d = printed_decimals(s)
            e, c = float(ex[idx]), float(ch[idx])
            ok = agrees_up_to_rounding(s, e, q.relation)
            if ok:
                cause = ""
            elif agrees_up_to_rounding(s, c, "~"):
                cause = "carried forward"
            else:
                cause = "not reproducible"
            rows.append(BookEntry(
                key=q.key, label=q.label, index=tuple(i + 1 for i in idx), printed=s, decimals=d,
                book=float(s), exact=e, book_chain=c, difference=float(s) - e,
                tolerance=0.0 if q.relation == "=" else 0.5 * 10.0 ** (-d), agrees=ok, cause=cause,
            ))
    return rows


def disagreements(entries: Sequence[BookEntry]) -> list[BookEntry]:
    """The entries whose printed value does not agree with the exact one."""
    return [e for e in entries if not e.agrees]


def entry_name(entry: BookEntry) -> str:
    """The entry's table name (Chinese where it is a word), e.g. ``"A[1,2]"``, ``"行和 1"`` or ``"分项[2,2]（第五步）"``."""
    return entry.label.replace("{i}", ",".join(map(str, entry.index)))


def pad(text: str, width: int) -> str:
    """``text`` left-justified to ``width`` columns of monospaced output, a wide (CJK) character counting two."""
    wide = sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)
    return text + " " * max(0, width - len(text) - wide)


def format_table(entries: Sequence[BookEntry], *, exact_decimals: int = 4) -> str:
    """A fixed-width table (Chinese headings, 2.8 prints it): quantity, book, exact, correct (rounded), difference, verdict.

    "correct" (应印出) is the exact value rounded to the book's own number of decimals:
    the number the book should have printed. A Chinese character takes two columns of
    monospaced output, so a heading's field is narrower by one per character.
    """
    head = f"{'条目':<18} {'书上':>5} {'精确值':>6} {'应印出':>5} {'书上-精确':>6}  判定"
    lines = [head, "-" * 67]
    for e in entries:
        name = pad(entry_name(e), 20)
        correct = f"{e.exact:.{e.decimals}f}"
        verdict = "一致" if e.agrees else f"不一致（{CAUSE_TEXT[e.cause]}）"
        lines.append(
            f"{name} {e.printed:>7} {e.exact:>9.{exact_decimals}f} {correct:>8} {e.difference:>+10.{exact_decimals}f}  {verdict}"
        )
    return "\n".join(lines)
