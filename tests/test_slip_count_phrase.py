"""The book's errata are said the same way everywhere (issue 20), built by one helper, ``helpers.book.slip_count``,
from ``helpers.book.errata_summary()``: 2.8 and 2.12 print the Chinese phrase "N 处（共 M 个印错的数）" (committed
outputs, issue 30), the README and the guides of 2.8 and the course quote the English "N slips (M printed values)" (built here from
the same counts); the 2.12 guide quotes the Chinese line the notebooks print."""

import json
from pathlib import Path

import pytest

from helpers.book import errata_headline, errata_summary, slip_count

ROOT = Path(__file__).resolve().parents[1]


def counts() -> tuple[int, int]:
    """(slips, printed values), counted here from the summary's slips themselves."""
    s = errata_summary()
    return len(s.slips), sum(len(sl.printed) for sl in s.slips)


def outputs(notebook: str) -> str:
    nb = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))


def test_the_phrases_say_the_counts_of_the_data():
    n, m = counts()
    assert slip_count() == f"{n} 处（共 {m} 个印错的数）"


def test_the_phrase_is_built_from_the_summary_it_is_given():
    s = errata_summary()
    more = s._replace(slips=s.slips + s.slips[:1], wrong=s.wrong + len(s.slips[0].printed))
    assert slip_count(more) == f"{len(s.slips) + 1} 处（共 {s.wrong + len(s.slips[0].printed)} 个印错的数）"
    assert slip_count(more) != slip_count(s)


@pytest.mark.parametrize("notebook", ["02-08-worked-example.ipynb", "02-12-summary.ipynb"])
def test_notebooks_print_the_phrase(notebook):
    n, m = counts()
    text = outputs(notebook)
    assert f"真正的笔误有 {n} 处（共 {m} 个印错的数）" in text
    assert "笔误：" not in text.replace("真正的笔误（印成", "")   # 笔误 is said once, not "笔误：N 处笔误"


@pytest.mark.parametrize("doc", ["README.md", "docs/teaching/02-08.md", "docs/teaching/README.md"])
def test_docs_quote_the_phrase(doc):
    n, m = counts()
    assert f"{n} slips ({m} printed values)" in (ROOT / doc).read_text(encoding="utf-8")


def test_the_2_12_guide_quotes_the_line_both_notebooks_print():
    n, m = counts()
    line = f"真正的笔误有 {n} 处（共 {m} 个印错的数）"
    assert f"「{line}」" in (ROOT / "docs/teaching/02-12.md").read_text(encoding="utf-8")
    assert all(line in outputs(nb) for nb in ("02-08-worked-example.ipynb", "02-12-summary.ipynb"))


def test_headline_says_it_too():
    n, m = counts()
    s = errata_summary()
    assert f"笔误有 {slip_count()}" in errata_headline()
    assert f"{s.distinct} 个不同的舍入值里，{m} 个属于这 {n} 处笔误" in errata_headline()


def test_the_phrase_counts_slips_apart_from_printed_values():
    s = errata_summary()
    assert len(s.slips) < s.wrong == sum(len(sl.printed) for sl in s.slips)
