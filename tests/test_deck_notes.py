"""The presenter's notes (publish.deck.notes): read from the teacher's guide when a deck is built, never copied.

Every vote's notes are the guide's answer to that vote's own question; a section's title slide carries the page's
常见误解; a reference the guide does not have, or a guide that no longer answers a vote, stops the build naming the
slide. The browser side (the presenter's window shows them) is tests/browser/test_lecture_deck.py.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from publish.deck import DECKS, DeckError, build_notebook, check_deck, notebooks_dir
from publish.deck.build import find_cell, notebook_path, notes_of, slide_cells
from publish.deck.notes import items, resolve
from publish.deck.slides import Deck, Row, activity
from test_teaching_guide import predictions  # the guide test's reading of a notebook's predictions

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "teaching"
NB = notebooks_dir(ROOT / "notebooks")
VOTES = [(key, s) for key, d in DECKS.items() for s in d.slides if s.kind == "vote"]


def _answers(page: str) -> str:
    return (GUIDE / f"{page}.md").read_text(encoding="utf-8").split("## 预测题答案", 1)[1].split("\n## ", 1)[0]


@pytest.mark.parametrize("key, slide", VOTES, ids=[s.name for _, s in VOTES])
def test_a_votes_notes_are_the_guides_answer_to_its_question(key, slide):
    (question,) = [q for _, q, _ in predictions(notebook_path(slide.notebook, NB)) if f'"{q}"' in _cell_source(slide)]
    notes = notes_of(slide, NB)
    assert question in notes[0], f"{slide.name}: the notes do not answer 「{question}」"
    assert notes[0].split("\n")[0] in _answers(slide.notebook).split("\n")
    assert re.search(r"\*\*.+?\*\*", notes[0]), f"{slide.name}: the notes hold no bold answer"


def _cell_source(slide) -> str:
    return find_cell(*slide_cells(slide, NB).code, NB).source


def test_a_title_slide_carries_its_pages_misconceptions():
    title = next(s for s in DECKS["2"].slides if s.name == "02-10/title")
    page = (GUIDE / "02-10.md").read_text(encoding="utf-8")
    first = page.split("## 常见误解", 1)[1].strip().split("\n")[0]
    assert any(first in n for n in notes_of(title, NB))


def test_list_items_run_over_their_indented_lines():
    body = "1. **Q1?** answer\n   more of it\n2. **Q2?** other\n\nafter"
    assert items(body) == ["1. **Q1?** answer\n   more of it", "2. **Q2?** other"]


def test_every_deck_carries_notes_for_every_vote():
    for key, deck in DECKS.items():
        nb = build_notebook(deck, NB)
        for c in nb.cells:
            if c.cell_type == "markdown" and c.metadata.deck["kind"] == "vote":
                assert "<strong>" in c.metadata.deck["notes"], f"deck {key} slide {c.metadata.deck['slide']}: no answer"


def _copy(tmp_path: Path) -> Path:
    """A checkout-like copy: notebooks/ and docs/teaching/ side by side."""
    shutil.copytree(NB, tmp_path / "notebooks")
    shutil.copytree(GUIDE, tmp_path / "docs" / "teaching")
    return tmp_path / "notebooks"


def test_a_guide_that_no_longer_answers_a_vote_stops_the_build(tmp_path):
    nbs = _copy(tmp_path)
    page = tmp_path / "docs" / "teaching" / "02-08.md"
    text = page.read_text(encoding="utf-8")
    question = "精确计算时，A₁₂ 和 A₂₁ 哪个大？"
    assert f"「{question}」" in text
    page.write_text(text.replace(f"「{question}」", "「另一个问题」"), encoding="utf-8")
    with pytest.raises(DeckError, match=r"(?s)deck 2 .*02-08/q2.*预测题答案"):
        check_deck(DECKS["2"], nbs)


def test_a_reference_the_guide_lacks_is_named(tmp_path):
    with pytest.raises(DeckError, match="has 3 items"):
        resolve(GUIDE, "02-09#讨论题/9")
    with pytest.raises(DeckError, match="no section '## 讨论'"):
        resolve(GUIDE, "02-09#讨论")
    deck = Deck("x", "x", (Row("收尾", "x", 1, "—", (activity("讨论", "x", 1, ask=("02-09#讨论题/9",)),)),))
    with pytest.raises(DeckError, match=r"slide 2 \(row 收尾\).*has 3 items"):
        check_deck(deck, NB)
