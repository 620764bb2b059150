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
    "slip_count",
]


#: The counting rule behind :func:`errata_summary`, in one paragraph (Chinese: 2.12 prints it).
ERRATA_RULE = (
    "一个印出的数，只有当它在自己印出的精度下与它所代表的量不符时，才算错。它所代表的量，是书为它写出的式子，"
    "代入书自己印出的操作数（exp(1.41) ≈ 4.10 没错，因为 e^1.41 = 4.096）。数的是舍入过的数（书用「≈」写出的），"
    "并且按不同的值来数：数字相同、真值也相同的印出数只算一个（A[1,2] = 0.450 印了三次，算一个）。"
    "书用「=」给出的整数结果（Q、K、V、S 以及它们的重抄）逐个元素核对是否完全相等，报告的是元素个数，不并成值："
    "同一个小整数会出现在互不相干的量里（Q[1,1] 的 2 和 S[1,1] 的 2），把它们并成一个值，数的就是数字而不是事实了。"
    "给定的输入（X、W_Q、W_K、W_V，以及重抄的 x_1）定义了这个例子，不计。一个舍入值没错、却在印出精度下与端到端的精确值不符时："
    "偏差来自舍入过的操作数，叫舍入漂移；只因为某个操作数本身是笔误（改正笔误后它也跟着变），叫继承笔误。"
)


def slip_count(summary: ErrataSummary | None = None) -> str:
    """How many slips the example has, the one phrase the notebooks print: ``"2 处（共 3 个印错的数）"``
    (after "真正的笔误有" in 2.8 and 2.12, after "笔误有" in :func:`errata_headline`).

    A slip (an entry of ``summary.slips``) may span several printed values (a whole output row),
    so both counts are said. (The README and the teaching guides quote the English
    ``"2 slips (3 printed values)"``; ``tests/test_slip_count_phrase.py`` keeps them equal to the data.)
    """
    s = errata_summary() if summary is None else summary
    return f"{len(s.slips)} 处（共 {s.wrong} 个印错的数）"


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
    """The headline sentence 2.12 prints (Chinese), built from :func:`errata_summary`."""
    s = errata_summary() if summary is None else summary
    slips = "；".join(f"{sl.name} 印成 {', '.join(sl.printed)}，应为 {', '.join(sl.correct)}" for sl in s.slips)
    ints = "全部正确" if s.integers_wrong == 0 else f"其中 {s.integers_wrong} 个错了"
    return (
        f"这个例子的笔误有 {slip_count(s)}：{slips}。它印出的 {s.distinct} 个不同的舍入值里，"
        f"{s.wrong} 个属于这 {len(s.slips)} 处笔误，"
        f"另有 {s.drift} 个只因为沿用舍入过的中间结果而与精确值有偏差（舍入漂移），{s.inherited} 个继承了笔误，{s.exact} 个正确。"
        f"整数结果 Q、K、V、S（共 {s.integers} 个印出的元素，重抄的也算）{ints}。"
        f"一个数只有在它印出的精度下与它所代表的量不符时，才算错。"
    )
