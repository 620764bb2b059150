"""The book's worked example (2.8): transcription, exact values and the verdicts.

Expected values here are derived by hand (integer matrices, closed-form
exponentials with sqrt(2)), never copied from helpers.book. The set of entries
where the book disagrees with the exact computation is written out by hand, so
this file fails if the transcribed numbers, the computation or the verdict rule
change.
"""

import dataclasses
import math

import numpy as np
import pytest

from helpers.book import (
    BOOK_QUANTITIES,
    agrees_up_to_rounding,
    book_chain_values,
    compare_with_book,
    disagreements,
    entry_name,
    example_inputs,
    exact_values,
    format_table,
    printed_decimals,
)

R2 = math.sqrt(2.0)

# --- hand derivation -------------------------------------------------------
# Q = X W_Q: each row of X picks two rows of W_Q and adds them.
#   x1 = (1,0,1,0): W_Q rows 1+3 = (1,0)+(1,1) = (2,1);  x2: rows 2+4 = (0,1)
#   x3: rows 1+2 = (1,1);  x4: rows 3+4 = (1,1).  Likewise for K and V.
Q_HAND = [[2, 1], [0, 1], [1, 1], [1, 1]]
K_HAND = [[0, 2], [2, 0], [1, 1], [1, 1]]
V_HAND = [[2, 1], [0, 2], [1, 2], [1, 1]]
# S[i, j] = q_i . k_j, e.g. q1 . k2 = 2*2 + 1*0 = 4.
S_HAND = [[2, 4, 3, 3], [2, 0, 1, 1], [2, 2, 2, 2], [2, 2, 2, 2]]


def _softmax_row(scores):
    e = [math.exp(s) for s in scores]
    return e, sum(e), [x / sum(e) for x in e]


E1, SUM1, A1 = _softmax_row([2 / R2, 4 / R2, 3 / R2, 3 / R2])   # = (sqrt2, 2 sqrt2, 3/sqrt2, 3/sqrt2)
E2, SUM2, A2 = _softmax_row([2 / R2, 0.0, 1 / R2, 1 / R2])
OUT1 = [sum(A1[j] * V_HAND[j][c] for j in range(4)) for c in range(2)]
OUT2 = [sum(A2[j] * V_HAND[j][c] for j in range(4)) for c in range(2)]

# The entries where the book's printed value is NOT within half a unit of its
# last printed decimal of the exact value, with the printed string and the cause.
# Keys are (quantity key, 1-based index).
CARRIED, SLIP = "carried forward", "not reproducible"
EXPECTED_DISAGREEMENTS = {
    ("exp_row1", (1,)): ("4.10", CARRIED),    # exp(sqrt2) = 4.113 -> 4.11; exp(1.41) = 4.096
    ("exp_row1", (2,)): ("16.95", CARRIED),   # exp(2 sqrt2) = 16.919 -> 16.92; exp(2.83) = 16.945
    ("exp_row1", (3,)): ("8.33", CARRIED),    # exp(3/sqrt2) = 8.342 -> 8.34; exp(2.12) = 8.331
    ("exp_row1", (4,)): ("8.33", CARRIED),
    ("rowsum_row1", ()): ("37.71", CARRIED),  # 37.716 -> 37.72; 4.10+16.95+8.33+8.33 = 37.71
    ("A_row1", (2,)): ("0.450", SLIP),        # 0.4486; even 16.95/37.71 = 0.44948 -> 0.449
    ("exp_row2", (1,)): ("4.10", CARRIED),
    ("rowsum_row2", ()): ("9.16", CARRIED),   # 9.1695 -> 9.17
    ("A_row2", (1,)): ("0.448", CARRIED),     # 0.44858 -> 0.449; 4.10/9.16 = 0.4476
    ("A_row2", (3,)): ("0.222", CARRIED),     # 0.22118 -> 0.221; 2.03/9.16 = 0.2216
    ("A_row2", (4,)): ("0.222", CARRIED),
    ("A", (1, 2)): ("0.450", SLIP),
    ("A", (2, 1)): ("0.448", CARRIED),
    ("A", (2, 3)): ("0.222", CARRIED),
    ("A", (2, 4)): ("0.222", CARRIED),
    ("step5_weights", (2,)): ("0.450", SLIP),       # the same 0.450, printed a third time in step 5
    ("step5_terms", (2, 2)): ("0.900", CARRIED),    # 2 * 0.4486 = 0.897; 2 * 0.450 = 0.900
    ("output_row1", (2,)): ("1.672", CARRIED),      # 1.6698 -> 1.670
    ("output", (1, 2)): ("1.672", CARRIED),
    ("output", (2, 1)): ("1.337", SLIP),            # 1.3395 -> 1.340; book's own A gives 1.340
    ("output", (2, 2)): ("1.224", SLIP),            # 1.3302 -> 1.330; book's own A gives 1.332
    ("output_row1_recap", (2,)): ("1.672", CARRIED),
}


# Quantities the book states with "=" (integers): the products and their restatements.
EXACT_KEYS = ["Q", "K", "V", "S_step_Q", "S_step_KT", "S", "step5_values", "x1_recap"]


def _hand_exact():
    A = [A1, A2, [0.25] * 4, [0.25] * 4]
    out = [OUT1, OUT2, [1.0, 1.5], [1.0, 1.5]]
    return {
        "Q": Q_HAND, "K": K_HAND, "V": V_HAND, "S": S_HAND, "sqrt_dk": R2,
        "S_step_Q": Q_HAND, "S_step_KT": [list(col) for col in zip(*K_HAND)],
        "S_scaled": [[s / R2 for s in row] for row in S_HAND],
        "exp_row1": E1, "rowsum_row1": SUM1, "A_row1": A1,
        "exp_row2": E2, "rowsum_row2": SUM2, "A_row2": A2,
        "A_row3": [0.25] * 4, "A_row4": [0.25] * 4, "A": A,
        "step5_weights": A1, "step5_values": V_HAND,
        "step5_terms": [[A1[j] * V_HAND[j][c] for c in range(2)] for j in range(4)],
        "output_row1": OUT1, "output": out, "x1_recap": [1, 0, 1, 0], "output_row1_recap": OUT1,
    }


def test_inputs_are_the_books():
    inp = example_inputs()
    assert inp["X"].tolist() == [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1]]
    assert inp["W_Q"].tolist() == [[1, 0], [0, 1], [1, 1], [0, 0]]
    assert inp["W_K"].tolist() == [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert inp["W_V"].tolist() == [[1, 1], [0, 1], [1, 0], [0, 1]]
    inp["X"][0, 0] = 99  # fresh arrays: mutating one must not leak
    assert example_inputs()["X"][0, 0] == 1


def test_exact_values_match_hand_derivation():
    ex, hand = exact_values(), _hand_exact()
    assert set(ex) == set(hand) == {q.key for q in BOOK_QUANTITIES}
    for k, v in hand.items():
        assert np.allclose(ex[k], v, rtol=0, atol=1e-12), k


def test_transcription_shapes_and_precision():
    shapes = {q.key: np.shape(q.printed) for q in BOOK_QUANTITIES}
    assert shapes == {
        "Q": (4, 2), "K": (4, 2), "V": (4, 2), "S_step_Q": (4, 2), "S_step_KT": (2, 4), "S": (4, 4),
        "sqrt_dk": (), "S_scaled": (4, 4),
        "exp_row1": (4,), "rowsum_row1": (), "A_row1": (4,), "exp_row2": (4,), "rowsum_row2": (),
        "A_row2": (4,), "A_row3": (4,), "A_row4": (4,), "A": (4, 4), "step5_weights": (4,),
        "step5_values": (4, 2), "step5_terms": (4, 2), "output_row1": (2,), "output": (4, 2),
        "x1_recap": (4,), "output_row1_recap": (2,),
    }
    rel = {q.key: q.relation for q in BOOK_QUANTITIES}
    assert [k for k, r in rel.items() if r == "="] == EXACT_KEYS
    # The book's printed integer matrices are exactly the hand-derived ones.
    for key, hand in (("Q", Q_HAND), ("K", K_HAND), ("V", V_HAND), ("S", S_HAND), ("S_step_Q", Q_HAND),
                      ("S_step_KT", [list(col) for col in zip(*K_HAND)]), ("step5_values", V_HAND)):
        printed = next(q.printed for q in BOOK_QUANTITIES if q.key == key)
        assert [[int(s) for s in row] for row in printed] == hand, key
    # Printed precision: A rows 1-2 with 3 decimals, rows 3-4 with 2; output with 3.
    A = next(q.printed for q in BOOK_QUANTITIES if q.key == "A")
    assert [[printed_decimals(s) for s in row] for row in A] == [[3] * 4, [3] * 4, [2] * 4, [2] * 4]
    # 8+8+8 (Q, K, V) + 8+8 (Q, K^T again) + 16 (S) + 1 (sqrt 2) + 16 (S') + 4+1+4 (row 1)
    # + 4+1+4 (row 2) + 4+4 (rows 3, 4) + 16 (A) + 4+8+8 (step 5) + 2 + 8 (output) + 4+2 (recap)
    assert len(compare_with_book()) == 151


def test_the_disagreements_are_exactly_the_hand_listed_ones():
    entries = compare_with_book()
    found = {(e.key, e.index): (e.printed, e.cause) for e in disagreements(entries)}
    assert found == EXPECTED_DISAGREEMENTS


def test_every_verdict_agrees_with_an_independent_rule():
    hand = _hand_exact()
    for e in compare_with_book():
        exact = np.asarray(hand[e.key], dtype=float)[tuple(i - 1 for i in e.index)]
        assert e.exact == pytest.approx(float(exact), abs=1e-12)
        d = len(e.printed.split(".")[1]) if "." in e.printed else 0
        tol = 1e-12 if e.key in EXACT_KEYS else 0.5 * 10 ** -d + 1e-12
        assert e.agrees == (abs(float(e.printed) - float(exact)) <= tol), entry_name(e)
        # where it agrees, the printed string is the exact value rounded to the book's decimals
        if e.agrees and e.key not in EXACT_KEYS:
            assert f"{float(exact):.{d}f}" == e.printed, entry_name(e)


def test_a_row2_is_a_permutation_of_row1_so_the_book_contradicts_itself():
    # S[2,:] = (2,0,1,1) and S[1,:] - 2 = (0,2,1,1): softmax ignores the shift, so
    # A[2,:] is A[1,:] with the first two entries swapped.
    A = exact_values()["A"]
    assert np.allclose(A[1], A[0][[1, 0, 2, 3]], rtol=0, atol=1e-15)
    book_A = np.array(next(q.printed for q in BOOK_QUANTITIES if q.key == "A"), dtype=float)
    assert book_A[0, 1] != book_A[1, 0] and book_A[0, 2] != book_A[1, 2]


def test_rows_one_and_two_of_the_output_add_up_to_two_three():
    # out1 + out2 = (a0 + a1)(v1 + v2) + 2 a2 (v3 + v4) with v1+v2 = v3+v4 = (2,3)
    # and a0 + a1 + 2 a2 = 1, so the sum is exactly (2, 3).
    out = exact_values()["output"]
    assert np.allclose(out[0] + out[1], [2.0, 3.0], rtol=0, atol=1e-12)
    book_out = np.array(next(q.printed for q in BOOK_QUANTITIES if q.key == "output"), dtype=float)
    assert np.allclose(book_out[0] + book_out[1], [1.997, 2.896])


def test_book_chain_reproduces_carried_rounding():
    chain = book_chain_values()
    assert chain["exp_row1"][0] == pytest.approx(math.exp(1.41))
    assert chain["rowsum_row1"] == pytest.approx(4.10 + 16.95 + 8.33 + 8.33)
    assert chain["A_row1"][1] == pytest.approx(16.95 / 37.71)          # 0.44948: rounds to 0.449, not 0.450
    assert chain["A_row2"][0] == pytest.approx(4.10 / 9.16)
    assert np.allclose(chain["output"][1], [2 * 0.448 + 0.222 + 0.222, 0.448 + 2 * 0.109 + 2 * 0.222 + 0.222])
    assert chain["output_row1"][1] == pytest.approx(0.109 + 2 * 0.450 + 2 * 0.221 + 0.221)  # 1.672
    assert chain["step5_weights"][1] == pytest.approx(16.95 / 37.71)


def _replace(key, index, new):
    out = []
    for q in BOOK_QUANTITIES:
        if q.key == key:
            arr = np.array(q.printed, dtype=object)
            arr[index] = new
            q = dataclasses.replace(q, printed=tuple(map(tuple, arr.tolist())) if arr.ndim == 2 else tuple(arr.tolist()))
        out.append(q)
    return tuple(out)


def test_a_changed_book_value_changes_the_verdicts():
    fixed = _replace("output", (1, 1), "1.330")
    found = {(e.key, e.index) for e in disagreements(compare_with_book(fixed))}
    assert found == set(EXPECTED_DISAGREEMENTS) - {("output", (2, 2))}
    broken = _replace("A", (0, 0), "0.119")
    found = {(e.key, e.index) for e in disagreements(compare_with_book(broken))}
    assert found == set(EXPECTED_DISAGREEMENTS) | {("A", (1, 1))}


def test_a_changed_computation_is_caught():
    ex = exact_values()
    ex["S_scaled"] = ex["S"] / 2.0  # forgot the square root
    found = {(e.key, e.index) for e in disagreements(compare_with_book(exact=ex))}
    assert ("S_scaled", (1, 2)) in found


def test_agrees_up_to_rounding_rule():
    assert agrees_up_to_rounding("0.449", 0.44858)
    assert not agrees_up_to_rounding("0.450", 0.44858)
    assert agrees_up_to_rounding("0.25", 0.25)
    assert agrees_up_to_rounding("0.5", 0.55)          # a tie counts as agreeing
    assert not agrees_up_to_rounding("0.5", 0.5501)
    assert agrees_up_to_rounding("0", 0.0, "=")
    assert not agrees_up_to_rounding("2", 2.001, "=")
    assert agrees_up_to_rounding("2", 2.4)             # "~" with no decimals: +-0.5
    with pytest.raises(ValueError, match="relation"):
        agrees_up_to_rounding("1", 1.0, "<")
    with pytest.raises(ValueError, match="finite"):
        agrees_up_to_rounding("1", float("nan"))


@pytest.mark.parametrize("s, d", [("0.450", 3), ("37.71", 2), ("0", 0), ("-1.5", 1), ("16.95", 2)])
def test_printed_decimals(s, d):
    assert printed_decimals(s) == d


@pytest.mark.parametrize("bad, err", [(0.45, TypeError), ("abc", ValueError), ("1e3", ValueError), ("nan", ValueError)])
def test_printed_decimals_rejects(bad, err):
    with pytest.raises(err, match="printed"):
        printed_decimals(bad)


def test_compare_rejects_wrong_shapes():
    ex = exact_values()
    ex["A"] = ex["A"][:3]
    with pytest.raises(ValueError, match=r"exact\['A'\] has shape \(3, 4\)"):
        compare_with_book(exact=ex)
    del ex["A"]
    with pytest.raises(ValueError, match="no entry 'A'"):
        compare_with_book(exact=ex)


def test_format_table():
    entries = compare_with_book()
    table = format_table(entries)
    lines = table.splitlines()
    assert len(lines) == 2 + 151
    assert sum("不一致" in line for line in lines) == len(EXPECTED_DISAGREEMENTS) == 22
    row = next(line for line in lines if line.startswith("out[2,2] "))
    assert "1.224" in row and "1.3302" in row and "1.330" in row and "-0.1062" in row and "书自己的数也复现不了" in row
    row = next(line for line in lines if line.startswith("行和 1 "))
    assert "37.71" in row and "37.7164" in row and "沿用书的数能复现" in row
    # a Chinese name is padded by its width on screen (a CJK character is two columns): the columns line up
    import unicodedata

    def on_screen(text):
        return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)

    ends = {on_screen(line[:line.find("  一致") if "  一致" in line else line.index("  不一致")]) for line in lines[2:]}
    assert len(ends) == 1, ends


def test_entry_names_are_chinese_where_they_are_words():
    import re
    names = {entry_name(e) for e in compare_with_book()}
    assert {"行和 1", "分项[2,2]（第五步）", "A[1,2]（单行）", "A[1,2]（第五步）", "out[1,2]（章末）", "Q[1,1]（第二步）"} <= names
    assert not [n for n in names if re.search(r"\b(row|sum|step|recap|term)\b", n)]


# --- the errata headline (issue 12): an explicit counting rule --------------
# Every DISTINCT ROUNDED value the example prints (the numbers written with "~";
# same digits + same true value = one value), written out by hand with
#   exact: its true value, computed here from sqrt(2) in closed form;
#   book:  the expression the book writes for it, on the book's PRINTED operands;
#   fixed: the same expression once the slip 0.450 is corrected to 0.449.
E = math.exp
_SLIP_FIX = 0.449
_DISTINCT_BY_HAND = [
    # the 0 of S' (0 / 1.414) and the 0 term of step 5 (0.450 x 0); the integers of
    # Q, K, V, S are stated with "=" and counted as entries, not as values (below)
    ("0", 0.0, 0.0, None),
    ("1.414", R2, R2, None),
    # S' = S / 1.414
    ("1.41", R2, 2 / 1.414, None), ("2.83", 2 * R2, 4 / 1.414, None),
    ("2.12", 3 / R2, 3 / 1.414, None), ("0.71", 1 / R2, 1 / 1.414, None),
    # exponentials of the printed S', sums of the printed exponentials
    ("4.10", E(R2), E(1.41), None), ("16.95", E(2 * R2), E(2.83), None),
    ("8.33", E(3 / R2), E(2.12), None), ("37.71", SUM1, 4.10 + 16.95 + 8.33 + 8.33, None),
    ("1.00", 1.0, E(0.0), None), ("2.03", E(1 / R2), E(0.71), None),
    ("9.16", SUM2, 4.10 + 1.00 + 2.03 + 2.03, None),
    # weights: printed exponential / printed sum (0.109 is also A[2,2] = 1.00/9.16 and the term 0.109 * 1)
    ("0.109", A1[0], 4.10 / 37.71, None), ("0.450", A1[1], 16.95 / 37.71, None),
    ("0.221", A1[2], 8.33 / 37.71, None), ("0.448", A2[0], 4.10 / 9.16, None),
    ("0.222", A2[2], 2.03 / 9.16, None), ("0.25", 0.25, 0.25, None),
    # step 5 terms A[1,j] v_j on the printed weights (the others equal a weight above)
    ("0.218", 2 * A1[0], 2 * 0.109, None), ("0.900", 2 * A1[1], 2 * 0.450, 2 * _SLIP_FIX),
    ("0.442", 2 * A1[2], 2 * 0.221, None),
    # outputs: printed weights times V
    ("0.660", OUT1[0], 2 * 0.109 + 0.221 + 0.221, None),
    ("1.672", OUT1[1], 0.109 + 2 * 0.450 + 2 * 0.221 + 0.221, 0.109 + 2 * _SLIP_FIX + 2 * 0.221 + 0.221),
    ("1.337", OUT2[0], 2 * 0.448 + 0.222 + 0.222, None),
    ("1.224", OUT2[1], 0.448 + 2 * 0.109 + 2 * 0.222 + 0.222, None),
    ("1.000", 1.0, 0.25 * (2 + 0 + 1 + 1), None), ("1.500", 1.5, 0.25 * (1 + 2 + 2 + 1), None),
]


def _within(printed, value):
    d = len(printed.split(".")[1]) if "." in printed else 0
    return abs(float(printed) - value) <= 0.5 * 10.0**-d + 1e-12


def _hand_category(printed, exact, book, fixed):
    if _within(printed, exact):
        return "exact"
    if not _within(printed, book):
        return "slip"
    if fixed is not None and not _within(printed, fixed):
        return "inherited"
    return "drift"


def test_errata_counts_follow_the_stated_rule():
    from helpers.book import errata_summary

    cats = [_hand_category(*row) for row in _DISTINCT_BY_HAND]
    s = errata_summary()
    assert len({(p, round(x, 9)) for p, x, _, _ in _DISTINCT_BY_HAND}) == len(_DISTINCT_BY_HAND)
    assert s.distinct == len(_DISTINCT_BY_HAND)
    assert (s.exact, s.drift, s.inherited, s.wrong) == tuple(cats.count(c) for c in ("exact", "drift", "inherited", "slip"))
    assert s.exact + s.drift + s.inherited + s.wrong == s.distinct
    assert s.printed == len(compare_with_book())


def test_errata_names_the_genuine_slips_only():
    from helpers.book import errata_summary

    wrong = {p for p, x, b, f in _DISTINCT_BY_HAND if _hand_category(p, x, b, f) == "slip"}
    assert wrong == {"0.450", "1.337", "1.224"}
    s = errata_summary()
    assert [(sl.name, sl.printed, sl.correct) for sl in s.slips] == [
        ("A[1,2]", ("0.450",), (f"{A1[1]:.3f}",)),
        ("out[2,:]", ("1.337", "1.224"), (f"{OUT2[0]:.3f}", f"{OUT2[1]:.3f}")),
    ]
    assert sum(len(sl.printed) for sl in s.slips) == s.wrong


def test_errata_rule_calls_exp_141_right_but_drifting():
    from helpers.book import classify_entries

    cats = {(entry_name(e), e.printed): c for e, c in classify_entries()}
    assert cats[("exp(S'[1,1])", "4.10")] == "drift"            # e^1.41 = 4.096 -> 4.10: not wrong
    assert cats[("行和 1", "37.71")] == "drift"                  # exact sum of the printed terms
    assert cats[("分项[2,2]（第五步）", "0.900")] == "inherited"   # 2 x the slip 0.450
    assert cats[("A[1,2]", "0.450")] == "slip"


# The integer results stated with "=": Q, K, V (4 x 2 each), S (4 x 4), and their
# restatements Q and K^T in step 2 and the value rows in step 5; the given x_1 is not one.
INTEGER_ENTRIES_BY_HAND = 3 * 8 + 16 + 8 + 8 + 8


def test_errata_counts_integers_as_entries_not_values():
    from helpers.book import errata_summary, errata_values

    s = errata_summary()
    assert (s.integers, s.integers_wrong) == (INTEGER_ENTRIES_BY_HAND, 0)
    assert all(v.printed not in {"1", "2", "3", "4"} for v in errata_values())


def test_errata_summary_reacts_to_a_new_integer_slip():
    from helpers.book import errata_headline, errata_summary

    base = errata_summary()
    changed = errata_summary(_replace("S", (1, 1), "5"))   # 0-based: S[2,2] = 0, stated with "=": 5 is a slip
    assert changed.integers_wrong == base.integers_wrong + 1 and changed.wrong == base.wrong
    assert "S[2,2]" in [sl.name for sl in changed.slips]
    assert "其中 1 个错了" in errata_headline(changed)


def test_errata_summary_reacts_to_a_new_rounded_slip():
    from helpers.book import errata_summary

    base = errata_summary()
    changed = errata_summary(_replace("output", (2, 1), "1.100"))  # out[3,2] = 1.500, printed 1.100
    assert changed.wrong == base.wrong + 1 and changed.distinct == base.distinct + 1   # a new value, and wrong


def test_errata_headline_quotes_the_computed_numbers():
    from helpers.book import errata_headline, errata_summary

    s = errata_summary()
    text = errata_headline(s)
    for n in (s.distinct, s.wrong, s.drift, s.inherited, s.exact, s.integers):
        assert str(n) in text
    assert "0.450" in text and "0.449" in text and "1.224" in text
