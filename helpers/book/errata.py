"""The errata of the worked example (2.8): an explicit counting rule (issue 12).

The one source for the headline that 2.8, 2.12 and the README quote: the notebooks
PRINT :func:`errata_summary` and :func:`errata_headline`, they never type a count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np

from .compare import BookEntry, agrees_up_to_rounding, book_chain_values, compare_with_book, entry_name
from .printed import BOOK_QUANTITIES, GIVEN_KEYS, BookQuantity

__all__ = [
    "ERRATA_RULE",
    "ErrataValue",
    "Slip",
    "ErrataSummary",
    "classify_entries",
    "errata_values",
    "errata_summary",
    "errata_headline",
]


#: The counting rule behind :func:`errata_summary`, in one paragraph (English).
ERRATA_RULE = (
    "A printed number is WRONG when it differs, at its printed precision, from the quantity it "
    "stands for: the expression the book writes for it, evaluated on the numbers the book printed "
    "as its operands (exp(1.41) ~ 4.10 is right because e^1.41 = 4.096). What is counted: the ROUNDED "
    "numbers (those the book writes with '~'), as distinct values: two printed numbers with the same "
    "digits and the same true value are one value (A[1,2] = 0.450, printed three times, is one value). "
    "The integer results the book states with '=' (Q, K, V, S and their restatements) are checked "
    "entry by entry for exact equality and reported as a number of entries, not as values: the same "
    "small integer recurs in unrelated quantities (the 2 of Q[1,1] and the 2 of S[1,1]), so counting "
    "distinct integers would count digits, not facts. The givens (X, W_Q, W_K, W_V, and x_1 restated) "
    "define the example and are not counted. A rounded value that is not wrong but differs from the "
    "exact end-to-end result at its printed precision is ROUNDING DRIFT when the difference comes from "
    "rounded operands, and INHERITS A SLIP when it only differs because an operand was a slip (it "
    "changes once the slip is corrected)."
)

#: Categories of :func:`classify_entries`, from harmless to wrong.
_CATEGORIES = ("exact", "drift", "inherited", "slip")


class ErrataValue(NamedTuple):
    """One distinct rounded value the book prints: its digits, its true value and its category.

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
    """The counts of :func:`errata_summary` under :data:`ERRATA_RULE`.

    Attributes
    ----------
    printed : int
        Printed numbers in the audit, counted with repetitions, integers and the
        restated given x_1 included (the rows of the audit table).
    distinct : int
        Distinct ROUNDED values (= exact + drift + inherited + wrong).
    exact, drift, inherited, wrong : int
        Distinct rounded values in each category; ``wrong`` counts the slips' values.
    slips : tuple of Slip
        The genuine slips, grouped as the book prints them (A[1,2]; output row 2).
    rule : str
        :data:`ERRATA_RULE`.
    integers : int
        Entries of the integer results stated with "=" (Q, K, V, S and their
        restatements; givens excluded), checked for exact equality.
    integers_wrong : int
        How many of those entries are wrong (each is also named in ``slips``).
    """

    printed: int
    distinct: int
    exact: int
    drift: int
    inherited: int
    wrong: int
    slips: tuple[Slip, ...]
    rule: str
    integers: int = 0
    integers_wrong: int = 0


def _with_printed(quantities: Sequence[BookQuantity], fixes: Mapping[tuple[str, tuple[int, ...]], str]):
    """A copy of ``quantities`` with some printed entries replaced (1-based index -> new digits)."""
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


def _relations(quantities: Sequence[BookQuantity]) -> dict[str, str]:
    return {q.key: q.relation for q in quantities}


def errata_values(quantities: Sequence[BookQuantity] = BOOK_QUANTITIES) -> list[ErrataValue]:
    """The distinct ROUNDED values the book prints, each with its category (book order).

    Entries of quantities stated with "≈" are grouped by (printed digits, true value);
    a group takes the worst category of its members.
    """
    rel = _relations(quantities)
    groups: dict[tuple[str, float], list] = {}
    for e, cat in classify_entries(quantities):
        if rel[e.key] == "~" and e.key not in GIVEN_KEYS:
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
        ``printed`` numbers audited; ``distinct`` rounded values; of those ``exact``, ``drift``
        (rounding drift), ``inherited`` (carry a slip) and ``wrong`` (genuine slips);
        ``slips``: the named slips (``Slip(name, printed, correct, from_book_numbers)``);
        ``integers`` entries of the integer results, ``integers_wrong`` of them wrong.
    """
    rel = _relations(quantities)
    classified = classify_entries(quantities)
    values = errata_values(quantities)
    count = {c: sum(v.category == c for v in values) for c in _CATEGORIES}
    integer_entries = [(e, c) for e, c in classified if rel[e.key] == "=" and e.key not in GIVEN_KEYS]
    # Group slipped entries into the units the book prints: one matrix entry or one output row.
    slip_units: dict[str, list[BookEntry]] = {}
    for e, cat in classified:
        if cat != "slip" or e.key in GIVEN_KEYS:
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
        integers=len(integer_entries), integers_wrong=sum(c == "slip" for _, c in integer_entries),
    )


def errata_headline(summary: ErrataSummary | None = None) -> str:
    """The README/2.12 headline sentence (English), built from :func:`errata_summary`."""
    s = errata_summary() if summary is None else summary
    slips = "; ".join(
        f"{sl.name} printed {', '.join(sl.printed)} should be {', '.join(sl.correct)}" for sl in s.slips)
    ints = "all exact" if s.integers_wrong == 0 else f"{s.integers_wrong} of them wrong"
    return (
        f"The example has {len(s.slips)} slips ({s.wrong} printed values): {slips}. "
        f"Of the {s.distinct} distinct rounded values it prints, {s.wrong} are those slips, "
        f"{s.drift} more differ from the exact result only by rounding drift carried from rounded "
        f"intermediates, {s.inherited} inherit a slip, and {s.exact} are right. The integer results Q, K, V, S "
        f"({s.integers} printed entries, restatements included) are {ints}. A number counts as wrong only "
        f"when it differs from the quantity it stands for at its printed precision."
    )
