"""The book's errata are said the same way everywhere (issue 20): "N slips (M printed values)", with N and M from
``helpers.book.errata_summary()`` — printed by 2.8 and 2.12 (committed outputs), quoted by the README and the guide."""

import json
from pathlib import Path

import pytest

from helpers.book import errata_headline, errata_summary

ROOT = Path(__file__).resolve().parents[1]


def phrase() -> str:
    s = errata_summary()
    return f"{len(s.slips)} slips ({s.wrong} printed values)"


def outputs(notebook: str) -> str:
    nb = json.loads((ROOT / "notebooks" / notebook).read_text(encoding="utf-8"))
    return "".join("".join(o.get("text", "")) for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", []))


@pytest.mark.parametrize("notebook", ["02-08-worked-example.ipynb", "02-12-summary.ipynb"])
def test_notebooks_print_the_phrase(notebook):
    assert f"genuine slips: {phrase()}" in outputs(notebook)


@pytest.mark.parametrize("doc", ["README.md", "docs/teaching/02-08.md", "docs/teaching/02-12.md", "docs/teaching/README.md"])
def test_docs_quote_the_phrase(doc):
    assert phrase() in (ROOT / doc).read_text(encoding="utf-8")


def test_headline_says_it_too():
    assert phrase() in errata_headline()


def test_the_phrase_counts_slips_apart_from_printed_values():
    s = errata_summary()
    assert len(s.slips) < s.wrong == sum(len(sl.printed) for sl in s.slips)
