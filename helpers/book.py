"""The chapter's 4-token worked example (section 2.8), as printed, and its check.

Everything the book prints for the example lives here, in ONE place, transcribed
from the chapter text with the printed digits kept as strings, so that the
precision the book chose ("0.450" has 3 decimals, "0.25" has 2) is part of the
data. The rest of the module computes the same quantities exactly and compares
them entry by entry.

"Everything" means every number the section prints after its givens: the
results of the five steps, the intermediate exponentials and row sums, and also
the places where the book prints a number again (Q and K^T written out in step 2,
the weights and value rows written out in step 5, x_1 in the closing sentence).
The givens X, W_Q, W_K, W_V define the example, so there is nothing to compare
them with; they are the inputs of the computation (:func:`example_inputs`). The
one symbolic line, the expansion of q_1 as sums of products in step 1, is a
formula whose value is Q[1, :], which is compared.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .attention import scaled_dot_product_attention
from .projections import project_qkv
from .scores import dot_product_scores
from .softmax import softmax

__all__ = [
    "BookQuantity",
    "BookEntry",
    "BOOK_QUANTITIES",
    "example_inputs",
    "printed_decimals",
    "book_array",
    "exact_values",
    "book_chain_values",
    "agrees_up_to_rounding",
    "compare_with_book",
    "disagreements",
    "entry_name",
    "format_table",
    "ERRATA_RULE",
    "ErrataValue",
    "Slip",
    "ErrataSummary",
    "classify_entries",
    "errata_summary",
    "errata_headline",
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
    BookQuantity("S_step_Q", "Q[{i}] (step 2)", "=", _m("2 1", "0 1", "1 1", "1 1"), "step 2, Q written out in Q K^T"),
    BookQuantity("S_step_KT", "K^T[{i}] (step 2)", "=", _m("0 2 1 1", "2 0 1 1"), "step 2, K^T written out in Q K^T"),
    BookQuantity("S", "S[{i}]", "=", _m("2 4 3 3", "2 0 1 1", "2 2 2 2", "2 2 2 2"), "step 2, S = Q K^T"),
    BookQuantity("sqrt_dk", "sqrt(d_k)", "~", "1.414", "step 3, S / sqrt(2) (~ S / 1.414)"),
    BookQuantity(
        "S_scaled", "S'[{i}]", "~",
        _m("1.41 2.83 2.12 2.12", "1.41 0 0.71 0.71", "1.41 1.41 1.41 1.41", "1.41 1.41 1.41 1.41"),
        "step 3, S' matrix",
    ),
    BookQuantity("exp_row1", "exp(S'[1,{i}])", "~", _v("4.10 16.95 8.33 8.33"), "step 4, row 1 exponentials"),
    BookQuantity("rowsum_row1", "row sum 1", "~", "37.71", "step 4, row 1 sum"),
    BookQuantity("A_row1", "A[1,{i}] (row)", "~", _v("0.109 0.450 0.221 0.221"), "step 4, row 1 normalised"),
    BookQuantity("exp_row2", "exp(S'[2,{i}])", "~", _v("4.10 1.00 2.03 2.03"), "step 4, row 2 exponentials"),
    BookQuantity("rowsum_row2", "row sum 2", "~", "9.16", "step 4, row 2 sum"),
    BookQuantity("A_row2", "A[2,{i}] (row)", "~", _v("0.448 0.109 0.222 0.222"), "step 4, row 2 normalised"),
    BookQuantity("A_row3", "A[3,{i}] (row)", "~", _v("0.25 0.25 0.25 0.25"), "step 4, A[3,:] = A[4,:]"),
    BookQuantity("A_row4", "A[4,{i}] (row)", "~", _v("0.25 0.25 0.25 0.25"), "step 4, A[3,:] = A[4,:]"),
    BookQuantity(
        "A", "A[{i}]", "~",
        _m("0.109 0.450 0.221 0.221", "0.448 0.109 0.222 0.222", "0.25 0.25 0.25 0.25", "0.25 0.25 0.25 0.25"),
        "step 4, full A",
    ),
    BookQuantity("step5_weights", "A[1,{i}] (step 5)", "~", _v("0.109 0.450 0.221 0.221"), "step 5, the weights of output row 1"),
    BookQuantity("step5_values", "V[{i}] (step 5)", "=", _m("2 1", "0 2", "1 2", "1 1"), "step 5, the value rows v_j"),
    BookQuantity(
        "step5_terms", "term[{i}] (step 5)", "~", _m("0.218 0.109", "0 0.900", "0.221 0.442", "0.221 0.221"),
        "step 5, the four terms A[1,j] v_j of output row 1 (term[j, c])",
    ),
    BookQuantity("output_row1", "out[1,{i}] (row)", "~", _v("0.660 1.672"), "step 5, output row 1"),
    BookQuantity(
        "output", "out[{i}]", "~", _m("0.660 1.672", "1.337 1.224", "1.000 1.500", "1.000 1.500"),
        "step 5, full output",
    ),
    BookQuantity("x1_recap", "X[1,{i}] (recap)", "=", _v("1 0 1 0"), "closing sentence, x_1 before attention"),
    BookQuantity("output_row1_recap", "out[1,{i}] (recap)", "~", _v("0.660 1.672"), "closing sentence, new representation of x_1"),
)


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
    if not isinstance(printed, str):
        raise TypeError(f"printed must be the number as a string (e.g. '0.450'); got {printed!r} (type {type(printed).__name__}).")
    try:
        float(printed)
    except ValueError:
        raise ValueError(f"printed must be a plain decimal number such as '0.450'; got {printed!r}.") from None
    if any(c in printed.lower() for c in "ein"):
        raise ValueError(f"printed must be a plain decimal number (no exponent, inf or nan); got {printed!r}.")
    return len(printed.split(".", 1)[1]) if "." in printed else 0


def book_array(quantity: BookQuantity) -> np.ndarray:
    """The printed digits of ``quantity`` as a float array (shape (), (n,) or (r, c))."""
    return np.array(quantity.printed, dtype=float)


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
    if relation not in ("~", "="):
        raise ValueError(f"relation must be '~' (approximately) or '=' (exactly); got {relation!r}.")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"value must be finite; got {value}.")
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
                raise ValueError(
                    f"{name}[{q.key!r}] has shape {np.shape(src[q.key])}, but the book prints shape {printed.shape}."
                )
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
    """The entry's table name, e.g. ``"A[1,2]"`` or ``"row sum 1"``."""
    return entry.label.replace("{i}", ",".join(map(str, entry.index)))


def format_table(entries: Sequence[BookEntry], *, exact_decimals: int = 4) -> str:
    """A fixed-width ASCII table: quantity, book, exact, correct (rounded), difference, verdict.

    "correct" is the exact value rounded to the book's own number of decimals:
    the number the book should have printed.
    """
    head = f"{'quantity':<20} {'book':>7} {'exact':>9} {'correct':>8} {'book-exact':>10}  verdict"
    lines = [head, "-" * len(head)]
    for e in entries:
        name = entry_name(e)
        correct = f"{e.exact:.{e.decimals}f}"
        verdict = "agrees" if e.agrees else f"DOES NOT AGREE ({e.cause})"
        lines.append(
            f"{name:<20} {e.printed:>7} {e.exact:>9.{exact_decimals}f} {correct:>8} {e.difference:>+10.{exact_decimals}f}  {verdict}"
        )
    return "\n".join(lines)



# ---------------------------------------------------------------------------
# The errata headline: an explicit counting rule (issue 12).
# ---------------------------------------------------------------------------

#: The counting rule behind :func:`errata_summary`, in one paragraph (English).
ERRATA_RULE = (
    "A printed number is WRONG when it differs, at its printed precision, from the quantity it "
    "stands for: the expression the book writes for it, evaluated on the numbers the book printed "
    "as its operands (exp(1.41) ~ 4.10 is right because e^1.41 = 4.096). Values are counted once: "
    "two printed numbers with the same digits and the same true value are one value, and the givens "
    "(X, W_Q, W_K, W_V and x_1 restated) are not counted. A value that is not wrong but differs from "
    "the exact end-to-end result at its printed precision is ROUNDING DRIFT when the difference "
    "comes from rounded operands, and INHERITS A SLIP when it only differs because an operand was a "
    "slip (it changes once the slip is corrected)."
)

#: Categories of :func:`classify_entries`, from harmless to wrong.
_CATEGORIES = ("exact", "drift", "inherited", "slip")
_NOT_COUNTED = frozenset({"x1_recap"})          # a given, printed again


class ErrataValue(NamedTuple):
    """One distinct printed value: its digits, its true value and its category.

    ``names`` lists every place (:func:`entry_name`) where the book prints it.
    ``stands_for`` is the value of the expression the book writes, on its printed operands.
    ``category`` is one of ``"exact"``, ``"drift"``, ``"inherited"``, ``"slip"``.
    """

    printed: str
    exact: float
    stands_for: float
    category: str
    names: tuple[str, ...]


class Slip(NamedTuple):
    """A genuine slip: printed numbers that differ from what they stand for.

    ``printed``, ``correct`` (the exact value at the book's precision) and
    ``from_book_numbers`` (the book's own operands, at the book's precision) are
    tuples of strings, one per component (``("0.450",)`` or a whole output row).
    """

    name: str
    printed: tuple[str, ...]
    correct: tuple[str, ...]
    from_book_numbers: tuple[str, ...]


class ErrataSummary(NamedTuple):
    """The counts of :func:`errata_summary` (all counts are of DISTINCT values).

    Attributes
    ----------
    printed : int
        Printed numbers in the audit, counted with repetitions and with the givens
        restated (the audit table's rows).
    distinct : int
        Distinct values under :data:`ERRATA_RULE` (= exact + drift + inherited + wrong).
    exact, drift, inherited, wrong : int
        Distinct values in each category; ``wrong`` counts the slips' values.
    slips : tuple of Slip
        The genuine slips, grouped as the book prints them (A[1,2]; output row 2).
    rule : str
        :data:`ERRATA_RULE`.
    """

    printed: int
    distinct: int
    exact: int
    drift: int
    inherited: int
    wrong: int
    slips: tuple[Slip, ...]
    rule: str


def _with_printed(quantities: Sequence[BookQuantity], fixes: Mapping[tuple[str, tuple[int, ...]], str]):
    """A copy of ``quantities`` with some printed entries replaced (1-based index -> new digits)."""
    import dataclasses

    out = []
    for q in quantities:
        arr = np.array(q.printed, dtype=object)
        changed = False
        for idx in np.ndindex(arr.shape):
            new = fixes.get((q.key, tuple(i + 1 for i in idx)))
            if new is not None:
                arr[idx], changed = new, True
        if changed:
            printed = arr.item() if arr.ndim == 0 else tuple(arr.tolist()) if arr.ndim == 1 else tuple(map(tuple, arr.tolist()))
            q = dataclasses.replace(q, printed=printed)
        out.append(q)
    return tuple(out)


def classify_entries(quantities: Sequence[BookQuantity] = BOOK_QUANTITIES) -> list[tuple[BookEntry, str]]:
    """Each printed number with its category under :data:`ERRATA_RULE`.

    ``"exact"``: agrees with the exact value at its printed precision.
    ``"slip"``: differs from the quantity it stands for (the book's own operands).
    ``"inherited"``: right on the book's operands, but only because an operand is a slip
    (recomputing with the slips corrected changes it at its printed precision).
    ``"drift"``: right on the book's operands, off from the exact value by carried rounding.
    """
    entries = compare_with_book(quantities)
    slips = {(e.key, e.index): f"{e.book_chain:.{e.decimals}f}"
             for e in entries if not e.agrees and not agrees_up_to_rounding(e.printed, e.book_chain, "~")}
    fixed_chain = book_chain_values(_with_printed(quantities, slips)) if slips else book_chain_values(quantities)
    out = []
    for e in entries:
        if e.agrees:
            cat = "exact"
        elif (e.key, e.index) in slips:
            cat = "slip"
        else:
            fixed = float(np.asarray(fixed_chain[e.key], dtype=float)[tuple(i - 1 for i in e.index)])
            cat = "drift" if agrees_up_to_rounding(e.printed, fixed, "~") else "inherited"
        out.append((e, cat))
    return out


def _distinct_values(classified) -> list[ErrataValue]:
    groups: dict[tuple[str, float], list] = {}
    for e, cat in classified:
        if e.key in _NOT_COUNTED:
            continue
        groups.setdefault((e.printed, round(e.exact, 9)), []).append((e, cat))
    values = []
    for (printed, _), members in groups.items():
        cat = max((c for _, c in members), key=_CATEGORIES.index)      # the worst verdict of the group
        e0 = members[0][0]
        values.append(ErrataValue(printed, e0.exact, e0.book_chain, cat, tuple(entry_name(e) for e, _ in members)))
    return values


def errata_summary(quantities: Sequence[BookQuantity] = BOOK_QUANTITIES) -> ErrataSummary:
    """Count what is wrong in the book's worked example under :data:`ERRATA_RULE`.

    The one source for the headline quoted by the notebooks (2.8, 2.12) and the README.

    Returns
    -------
    ErrataSummary
        ``printed`` numbers audited; ``distinct`` values; of those ``exact``, ``drift``
        (rounding drift), ``inherited`` (carry a slip) and ``wrong`` (genuine slips);
        ``slips``: the named slips (``Slip(name, printed, correct, from_book_numbers)``).
    """
    classified = classify_entries(quantities)
    values = _distinct_values(classified)
    count = {c: sum(v.category == c for v in values) for c in _CATEGORIES}
    # Group slipped entries into the units the book prints: one matrix entry or one output row.
    slip_units: dict[str, list[BookEntry]] = {}
    for e, cat in classified:
        if cat != "slip":
            continue
        if e.key in ("output", "output_row1", "output_row1_recap") and len(e.index) == 2:
            name = f"out[{e.index[0]},:]"
        elif e.key in ("A_row1", "A_row2", "step5_weights"):
            continue                                    # restatements of an entry of the full A
        else:
            name = entry_name(e)
        slip_units.setdefault(name, []).append(e)
    slips = tuple(
        Slip(name, tuple(e.printed for e in es), tuple(f"{e.exact:.{e.decimals}f}" for e in es),
             tuple(f"{e.book_chain:.{e.decimals}f}" for e in es))
        for name, es in slip_units.items()
    )
    return ErrataSummary(
        printed=len(classified), distinct=len(values), exact=count["exact"], drift=count["drift"],
        inherited=count["inherited"], wrong=count["slip"], slips=slips, rule=ERRATA_RULE,
    )


def errata_headline(summary: ErrataSummary | None = None) -> str:
    """The README/2.12 headline sentence (English), built from :func:`errata_summary`."""
    s = errata_summary() if summary is None else summary
    slips = "; ".join(
        f"{sl.name} printed {', '.join(sl.printed)} should be {', '.join(sl.correct)}" for sl in s.slips)
    return (
        f"Of the {s.distinct} distinct values the example prints, {s.wrong} are genuine slips ({slips}); "
        f"{s.drift} more differ from the exact result only by rounding drift carried from rounded "
        f"intermediates, and {s.inherited} inherit a slip. A number counts as wrong only when it differs "
        f"from the quantity it stands for at its printed precision."
    )
