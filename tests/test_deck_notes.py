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
from publish.deck.notes import items, resolve, tex_html
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


@pytest.mark.parametrize("tex, html", [
    (r"W_Q W_K^\top", "W<sub>Q</sub> W<sub>K</sub><sup>T</sup>"),
    (r"(\|q\|/\sqrt{d_k})\,z_j/\tau", "(‖q‖/√d<sub>k</sub>) z<sub>j</sub>/τ"),
    (r"\lVert x_{\text{it}}W\rVert^2", "‖x<sub>it</sub>W‖<sup>2</sup>"),
    (r"z_j\sim\mathcal N(0,1)", "z<sub>j</sub>∼𝒩(0,1)"),
    (r"\sqrt{1024/16}=8", "√(1024/16)=8"),
    (r"\frac{\delta_{ij}}{Z^2}", "δ<sub>ij</sub>/Z<sup>2</sup>"),
    (r"\mathbb{R}^{T\times d_{\text{model}}}", "ℝ<sup>T×d<sub>model</sub></sup>"),
    (r"|i-j| < 2", "&#124;i-j&#124; &lt; 2"),      # Markdown and HTML characters as entities
    (r"\tau(\text{output}-\bar v)", "τ(output-v\u0304)"),  # a mean (2.2's exercise 3): a macron, no "\\barv"
    (r"\overline{x_i}", '<span style="text-decoration:overline">x<sub>i</sub></span>'),
])
def test_a_notes_formula_reads_in_a_window_without_mathjax(tex, html):
    assert tex_html(tex) == html


def test_no_note_shows_tex_source():
    # The notes flattened maths before (review of lecture 2): "\\|J\\|_F" read "\\|J\\|_F", "W_K^\\top" read "W_Kᵀ"
    # and "\\frac{..}{..}" lost its bar. In the presenter's window (no MathJax) no command, brace, $ or ^ is left
    # (but "QK^T" of a vote's question, quoted as the vote widget prints it).
    from publish.deck.build import _notes_html

    for key, deck in DECKS.items():
        for n, slide in enumerate(deck.slides, start=2):
            html = re.sub(r"<code>.*?</code>", "", _notes_html(notes_of(slide, NB)), flags=re.S)
            left = re.findall(r".{0,15}(?:\\[A-Za-z|]|\$|[{}]|\^(?!T\b)[\w{(]|_\{).{0,15}", html)
            assert not left, f"deck {key} slide {n} ({slide.name or slide.heading}): its notes show TeX {left}"


def test_every_live_slide_and_the_slides_the_review_named_carry_notes():
    # The teacher's review of lecture 2: the slider, the online softmax and the shapes summary had no notes.
    named = {"02-09/online-softmax", "02-12/shapes"}
    for key, deck in DECKS.items():
        for n, slide in enumerate(deck.slides, start=2):
            if slide.kind == "live" or slide.name in named:
                assert notes_of(slide, NB), f"deck {key} slide {n} ({slide.name}): no presenter's notes"


def test_the_labs_work_blocks_carry_the_guides_answers():
    # The teacher's review (issue 31): every lab slide's presenter's view said 指南里没有这张幻灯片的笔记, though the
    # guide answers the bug hunt and lists the mistakes the capstone checks name.
    for n, slide in enumerate(DECKS["lab"].slides, start=2):
        if slide.kind == "activity" and re.search(r"练习 \d|my_\w+|测试", slide.body):
            notes = "\n".join(notes_of(slide, NB))
            assert re.search(r"\*\*.+?\*\*", notes), f"lab slide {n} ({slide.heading}): no guide item in its notes"


def _flat(text: str) -> str:
    return re.sub(r"\s+|\$", "", text)


def test_what_a_note_quotes_is_in_the_notebooks():
    # The notes are the guide's; the guide names notebook sections, questions and printed lines in 「」. The teacher
    # reads them on the day: a section renamed or a line that prints other words since (2.0's environment check,
    # 2.3's shapes and 2.10's scores print Chinese now) makes the note point at nothing.
    import nbformat

    from publish.notebooks import series

    said = ""
    for path in series(NB):
        for c in nbformat.read(str(path), as_version=4).cells:
            said += c.source + "".join(o.get("text", "") for o in c.get("outputs", []))
    said = _flat(said)
    stale = [f"deck {key} slide {n} ({s.name or s.heading}): 「{q}」"
             for key, deck in DECKS.items() for n, s in enumerate(deck.slides, start=2)
             for q in re.findall(r"「([^」]{2,80})」", "\n".join(notes_of(s, NB))) if _flat(q) not in said]
    assert not stale, "\n".join(stale)
    assert "「先定规则，再数」" in "\n".join(notes_of(next(s for s in DECKS["2"].slides if s.name == "02-08/title"), NB))


def test_the_discussion_answers_are_numbered_as_the_slide_numbers_their_questions():
    # The teacher's review of lecture 2: the closing slide shows its questions as 1. and 2., the presenter's view
    # quoted the guide's items as 3. and 3. (their numbers on the guide pages).
    from publish.deck.build import _notes_html, slide_markdown

    asked = [(key, n, s) for key, d in DECKS.items() for n, s in enumerate(d.slides, start=2) if s.ask]
    assert asked
    for key, n, slide in asked:
        shown = re.findall(r"^(\d+)\. (.+)$", slide_markdown(slide, NB), flags=re.M)
        notes = notes_of(slide, NB)[-len(slide.ask):]
        for (number, question), note in zip(shown, notes):
            assert note.startswith(f"{number}. "), f"deck {key} slide {n}: 「{question[:20]}」 is {number}. on the slide"
            assert question in note
        html = _notes_html(notes)
        assert re.search(r"<ol>\s*<li>", html) and "<ol start" not in html, f"deck {key} slide {n}: {html[:80]}"


def test_the_causal_mask_guide_answers_each_exercise_of_its_notebook():
    # The teacher's review of the lab deck: 2.10's bug hunt (its 找 bug slide) had no answer in the guide to show.
    # One item per exercise of 2.10, in order, each naming its exercise; the bug hunt's answer names the wrong and
    # the right argument, as the notebook's exhibit and solution write them.
    import nbformat

    cells = nbformat.read(str(notebook_path("02-10", NB)), as_version=4).cells
    asked = [int(n) for c in cells if c.cell_type == "markdown" for n in re.findall(r"^\*\*练习 (\d+)", c.source, re.M)]
    answers = items(resolve(GUIDE, "02-10#练习参考答案"))
    assert asked and [int(re.search(r"练习 (\d+)", a).group(1)) for a in answers] == asked
    code = "\n".join(c.source for c in cells if c.cell_type == "code")
    assert "np.triu(np.full((T, T), -1e9), k=0)" in code and "np.triu(np.full((T, T), -1e9), k=1)" in code
    assert "`k=0`" in answers[1] and "`k=1`" in answers[1]
