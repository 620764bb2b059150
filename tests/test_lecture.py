"""Lecture mode (publish.deck): every slide finds its cells by their metadata (and a deck whose cell is gone
fails naming the deck and the slide), the plans fit their slides and pages, the guide shows what the manifest
says, the deck notebook runs, the command lists the decks from anywhere.

The browser side (every slide, fonts, fit, sliders, the vote, offline) is tests/browser/test_lecture_deck.py.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from publish.deck import DECKS, FIGURE_MIN, READING_CHARS_PER_MIN, DeckError, build_notebook, notebooks_dir
from publish.deck.slides import (CLASS_SIZE, HANDS_BASE_S, HANDS_S_PER_STUDENT, NUMBER_VOTE_CALLS, VOTE_EXPLAIN_MIN,
                                 VOTE_THINK_MIN)
from publish.deck.build import (_blocks, _images, _printed, apply_kwargs, find_cell, notebook_path, plan_markdown,
                                row_minutes, schedule_markdown, skipped_numbers, slide_cells, slide_markdown, slide_minutes, text_of)
from publish.deck.decks import OPTIONAL_TAUGHT
from publish.deck.slides import CELL_KEY, Deck, Row, Slide, activity, live
from publish.deck.slides import text as text_slide
from publish.notebooks import series
from helpers.ui.prediction_keys import KEYS, NumberKey
from test_blind_predictions import (CLAUSE, MAX_SHARED, MIN_CLAUSE, MIN_OPTION,  # the notebooks' own measure
                                    _question_and_options, longest_common_substring, norm)

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "teaching" / "README.md"
NB = notebooks_dir(ROOT / "notebooks")
SLIDES = [(key, i, s) for key, d in DECKS.items() for i, s in enumerate(d.slides, start=2)]


def _cells(slide):
    """What the notebooks give ``slide`` (its cells, found by their metadata)."""
    return slide_cells(slide, NB)


def _slide(name: str) -> Slide:
    return next(s for d in DECKS.values() for s in d.slides if s.name == name)


@pytest.mark.parametrize("key, number, slide", SLIDES, ids=[f"{k}-{n}" for k, n, _ in SLIDES])
def test_every_slide_finds_its_cells(key, number, slide):
    cells = _cells(slide)
    assert slide.kind == "activity" or cells.texts or cells.code, f"deck {key} slide {number}: no cell"
    for t in cells.texts:
        cell = find_cell(t.nb, t.cell, NB)
        assert cell.cell_type == "markdown", f"deck {key} slide {number}: {t.nb} {t.cell} is not a markdown cell"
        assert text_of(t, NB).strip(), f"deck {key} slide {number}: {t.nb} {t.cell} blocks {t.blocks} are empty"
        tags = set(cell.metadata.get("tags", []))
        assert not tags & {"exercise", "solution"}, f"deck {key} slide {number} shows an exercise/solution cell"
    if cells.code is not None:
        cell = find_cell(*cells.code, NB)
        assert cell.cell_type == "code"
        tags = set(cell.metadata.get("tags", []))
        assert not tags & {"exercise", "solution", "bug-hunt"}, f"deck {key} slide {number}: no exercise code"
        if slide.kind == "vote":
            assert "predict" in tags, f"deck {key} slide {number}: {cells.code} is not a prediction cell"
        if slide.kind == "figure":
            assert _images(cell) or _printed(cell), \
                f"deck {key} slide {number}: {cells.code} has no committed figure"
    for key_cell in cells.setup:
        assert find_cell(*key_cell, NB).cell_type == "code"


def test_every_slide_entry_of_the_notebooks_is_on_a_deck_of_its_own_notebook():
    # An entry no deck shows is a slide dropped from decks.py (or a typo in its name): it would rot unseen.
    shown = {s.name for d in DECKS.values() for s in d.slides}
    found = []
    for path in series(NB):
        for cell in nbformat.read(path, as_version=4).cells:
            for name in cell.get("metadata", {}).get(CELL_KEY, {}):
                if name not in shown:
                    found.append(f"{path.name} cell {cell.get('id')}: slide {name!r} is on no deck")
                elif not path.name.startswith(name.split("/")[0] + "-"):
                    found.append(f"{path.name} cell {cell.get('id')}: slide {name!r} is named for another notebook")
    assert not found, "\n".join(found)


def test_the_manifest_names_no_cell():
    # The point of naming slides on their cells: an edit of a notebook never has to touch decks.py.
    manifest = (ROOT / "publish" / "deck" / "decks.py").read_text(encoding="utf-8")
    ids = {c.get("id") for path in series(NB) for c in nbformat.read(path, as_version=4).cells}
    named = sorted(i for i in ids if i and re.search(rf"\b{re.escape(i)}\b", manifest))
    assert not named, f"publish/deck/decks.py names the cells {named}"


# -- a deck whose cell is gone fails, naming the deck and the slide ---------------------------------------------

def _copy_of_the_notebooks(tmp_path: Path, edit) -> Path:
    """The series' notebooks in ``tmp_path``; ``edit(notebook key, nb)`` changes them in memory first."""
    for path in series(NB):
        nb = nbformat.read(path, as_version=4)
        edit(path.name[:5], nb)
        nbformat.write(nb, str(tmp_path / path.name))
    return tmp_path


def _number(key: str, name: str) -> int:
    return next(n for k, n, s in SLIDES if k == key and s.name == name)


def test_a_cell_that_lost_its_slide_entry_stops_the_build_naming_deck_and_slide(tmp_path):
    # 2.5's Jacobian slide is one markdown cell: an edit that drops its metadata must not drop the slide silently.
    def strip(key, nb):
        for cell in nb.cells:
            cell.metadata.get(CELL_KEY, {}).pop("02-05/jacobian", None)

    root = _copy_of_the_notebooks(tmp_path, strip)
    number = _number("1", "02-05/jacobian")
    with pytest.raises(DeckError) as caught:
        build_notebook(DECKS["1"], root)
    message = str(caught.value)
    assert message.startswith(f"deck 1 ({DECKS['1'].title})"), message
    assert f"slide {number} (row 2.5): slide '02-05/jacobian'" in message and "02-05-" in message, message
    assert message.count("\n  slide ") == 1, f"only that slide is broken:\n{message}"
    build_notebook(DECKS["2"], root)  # a deck that does not show it still builds
    # The command says the same, without a traceback, and writes nothing.
    out = subprocess.run([sys.executable, "-m", "publish", "deck", "1", "--notebooks", str(root),
                          "--write", str(tmp_path / "deck.ipynb")], capture_output=True, text=True, timeout=120,
                         check=False)
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert f"slide {number} (row 2.5): slide '02-05/jacobian'" in out.stderr
    assert not (tmp_path / "deck.ipynb").exists()


def test_a_deleted_cell_of_a_slide_of_several_cells_is_missed(tmp_path):
    # The explorer's slide is its caption, a setup cell and the widget cell: deleting the caption (which would
    # leave a slide that still builds) fails, because every cell of a slide says how many make it.
    def delete_caption(key, nb):
        nb.cells = [c for c in nb.cells
                    if c.get("metadata", {}).get(CELL_KEY, {}).get("02-05/explorer", {}).get("role") != "text"]

    root = _copy_of_the_notebooks(tmp_path, delete_caption)
    with pytest.raises(DeckError, match=rf"deck 1 .*\n  slide {_number('1', '02-05/explorer')} \(row 2\.5\): "
                                        r"slide '02-05/explorer' \(live\).*made of 3 cells, 2 carry it"):
        build_notebook(DECKS["1"], root)


def test_a_cell_cut_short_or_given_the_wrong_role_is_named(tmp_path):
    # An edit that leaves 2.5's "problem" cell with fewer blocks than its entry names, and an entry whose role does
    # not fit the deck's slide (the explorer's widget cell marked a figure).
    def edit(key, nb):
        for cell in nb.cells:
            entries = cell.get("metadata", {}).get(CELL_KEY, {})
            if "02-05/problem" in entries:
                cell.source = cell.source.split("\n\n")[0]
            if entries.get("02-05/explorer", {}).get("role") == "live":
                entries["02-05/explorer"]["role"] = "figure"

    root = _copy_of_the_notebooks(tmp_path, edit)
    with pytest.raises(DeckError) as caught:
        build_notebook(DECKS["1"], root)
    message = str(caught.value)
    assert re.search(rf"slide {_number('1', '02-05/problem')} \(row 2\.5\): .*has 1 blocks; .*asks for blocks \[2, 3\]",
                     message), message
    assert re.search(rf"slide {_number('1', '02-05/explorer')} \(row 2\.5\): slide '02-05/explorer' \(live\).*"
                     r"role 'figure'; the deck shows this slide as a live", message), message


@pytest.mark.parametrize("cell_type, entry, message", [
    ("markdown", {"role": "text", "blocks": 2}, "blocks should be"),
    ("markdown", {"role": "text", "block": [1]}, "only the keys"),
    ("markdown", {"role": "caption"}, "a role in"),
    ("code", {"role": "text"}, "is a code cell; the role 'text' needs a markdown cell"),
    ("markdown", {"role": "text", "cells": 2}, "made of 2 cells, 1 carry it"),
])
def test_a_malformed_entry_is_named(tmp_path, cell_type, entry, message):
    new = nbformat.v4.new_markdown_cell if cell_type == "markdown" else nbformat.v4.new_code_cell
    cell = new("## A heading\n\nA paragraph.")
    cell.metadata[CELL_KEY] = {"02-05/t": entry}
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), str(tmp_path / "02-05-x.ipynb"))
    with pytest.raises(DeckError, match=rf"slide '02-05/t' \(text\) in 02-05-x\.ipynb: .*{re.escape(message)}"):
        slide_cells(text_slide("02-05/t"), tmp_path)


def test_a_live_cell_edited_to_have_no_call_for_its_kwargs_is_named(tmp_path):
    from publish.deck import check_deck
    from publish.deck.slides import Deck, Row

    cell = nbformat.v4.new_code_cell("widget = 1")
    cell.metadata[CELL_KEY] = {"02-10/w": {"role": "live", "kwargs": {"t": 1}}}
    nbformat.write(nbformat.v4.new_notebook(cells=[cell]), str(tmp_path / "02-10-x.ipynb"))
    deck = Deck("x", "a deck", (Row("r", "", 1, "", (live("02-10/w", demo=1),)),))
    with pytest.raises(DeckError, match=r"deck x \(a deck\).*\n  slide 2 \(row r\): slide '02-10/w'.*cannot add its kwargs"):
        check_deck(deck, tmp_path)


def test_a_slide_name_says_its_notebook():
    assert text_slide("02-05/explorer").notebook == "02-05"
    for bad in ("explorer", "02-05", "2-05/explorer", "02-05/Explorer", "02-05/the explorer"):
        with pytest.raises(ValueError, match="slide name"):
            live(bad, demo=1)


def test_blocks_keep_display_maths_whole():
    assert _blocks("a\n\n$$x\n\ny$$\n\nb") == ["a", "$$x\n\ny$$", "b"]
    assert _blocks("## t\n\n\n\np") == ["## t", "p"]


def test_kwargs_replace_or_add_on_the_widget_call():
    assert apply_kwargs("causal_widget(A, words, t=T)", {"t": 1}) == "causal_widget(A, words, t=1)"
    src = "explorer = saturation_explorer(d_k=64)\nexplorer.widget"
    assert apply_kwargs(src, {"layout": "lecture"}) == \
        "explorer = saturation_explorer(d_k=64, layout='lecture')\nexplorer.widget"


def test_the_live_widgets_start_where_the_narration_starts():
    sources = {c.source for d in DECKS.values() for c in build_notebook(d, NB).cells if c.cell_type == "code"}
    assert any("causal_widget(" in s and "t=1" in s for s in sources), "2.10's slider must start at t = 1"
    assert any("saturation_explorer(" in s and "layout='lecture'" in s for s in sources)


@pytest.mark.parametrize("key", list(DECKS))
def test_every_row_lasts_as_long_as_its_slides(key):
    deck = DECKS[key]
    assert sum(r.minutes for r in deck.rows) == 90, f"deck {key}: the plan is not 90 minutes"
    for row in deck.rows:
        got = row_minutes(row, NB)
        per = ", ".join(f"{slide_minutes(s, NB):.1f}{' (skip)' if s.skip else ''}" for s in row.slides)
        assert abs(got - row.minutes) <= 0.5, (
            f"deck {key}, row {row.label!r}: its slides take {got:.1f} min ({per}), the row says {row.minutes}")


@pytest.mark.parametrize("key", list(DECKS))
def test_a_row_shorter_than_its_page_names_the_slides_it_skips(key):
    deck = DECKS[key]
    for row in deck.rows:
        skips = skipped_numbers(deck, row)
        if row.page is None:
            assert not skips
            continue
        page = (ROOT / "docs" / "teaching" / f"{row.page}.md").read_text(encoding="utf-8")
        total = int(re.search(r"^\| 合计 \|[^|]*\|\s*(\d+)\s*\|", page, re.M).group(1))
        if total > row.minutes:
            assert skips, f"deck {key}, row {row.label}: the page's core path is {total} min, the row " \
                          f"{row.minutes}, and no slide is marked to skip"
        line = next(ln for ln in plan_markdown(deck).splitlines() if ln.startswith(f"| {row.label} |"))
        for n in skips:
            assert re.search(rf"跳过第 [\d、]*\b{n}\b", line), f"row {row.label} does not name slide {n}"


def test_votes_cost_what_the_rule_says():
    # 2.1-q1 by hand: its question and four choices read aloud (32 + 30 characters at 120 a minute), a quarter minute to
    # think, four shows of hands of 5 s + 80 x 0.125 s = 15 s each, three quarters of a minute to reveal and explain.
    vote = next(s for s in DECKS["1"].slides if s.name == "02-01/q1")
    caption = sum(len(text_of(t, NB)) for t in _cells(vote).texts) / READING_CHARS_PER_MIN  # its slide's own text
    source = find_cell(*_cells(vote).code, NB).source
    assert '"两个句子里，静态嵌入给 “it” 的两个向量，余弦相似度是多少？"' in source
    assert '["1：完全同向", "0：正交", "介于 0 和 1 之间", "要看句子的其余部分"]' in source
    assert math.isclose(slide_minutes(vote, NB), caption + (32 + 30) / 120 + 0.25 + 4 * 15 / 60 + 0.75)
    fig = next(s for s in DECKS["1"].slides if s.kind == "figure")
    expected = FIGURE_MIN + sum(len(text_of(t, NB)) for t in _cells(fig).texts) / READING_CHARS_PER_MIN
    assert math.isclose(slide_minutes(fig, NB), expected)


def _plan_section(title: str) -> str:
    guide = GUIDE.read_text(encoding="utf-8")
    assert f"### {title}\n" in guide, f"the guide has no plan headed {title!r}"
    return guide.split(f"### {title}\n", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]


@pytest.mark.parametrize("key", list(DECKS))
def test_the_guide_shows_the_plan_and_the_minutes_of_every_slide(key):
    deck = DECKS[key]
    section = _plan_section(deck.title)
    assert plan_markdown(deck) in section, f"the guide's table of plan {key} differs from `python -m publish deck {key} --plan`"
    assert schedule_markdown(deck, NB) in section, \
        f"the guide's slide table of plan {key} differs from `python -m publish deck {key} --schedule`"
    assert f"python -m publish deck {key}" in section


def test_the_guide_states_the_timing_rule():
    guide = GUIDE.read_text(encoding="utf-8")
    assert f"{READING_CHARS_PER_MIN} 个字符" in guide and f"{FIGURE_MIN:g} 分钟" in guide
    rule = guide.split("**全班投票按", 1)[1].split("\n\n", 1)[0]
    for value in (f"{CLASS_SIZE} 人", f"想一想 {VOTE_THINK_MIN:g} 分钟", f"每次 {HANDS_BASE_S:g} 秒", f"每人 {HANDS_S_PER_STUDENT:g} 秒",
                  f"听 {NUMBER_VOTE_CALLS} 个答案", f"为什么 {VOTE_EXPLAIN_MIN:g} 分钟"):
        assert value in rule, f"the guide's vote rule does not say {value!r}"


@pytest.mark.parametrize("key", list(DECKS))
def test_the_deck_notebook_is_small_and_runs(key, tmp_path):
    from nbclient import NotebookClient

    nb = build_notebook(DECKS[key], NB)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert len(code) <= 20, f"deck {key} runs {len(code)} code cells; it should run only what its live slides need"
    slides = [c for c in nb.cells if c.cell_type == "markdown"]
    assert [c.metadata.deck["slide"] for c in slides] == list(range(1, len(DECKS[key].slides) + 2))
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    for c in code:
        errors = [o for o in c.outputs if o.output_type == "error" or o.get("name") == "stderr"]
        assert not errors, f"deck {key}: cell {c.source[:60]!r} wrote {errors}"
        if c.metadata.deck["role"] == "live":
            assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in c.outputs), \
                f"deck {key}: the live cell {c.source[:60]!r} shows no widget"


def test_the_command_lists_the_decks_from_another_directory(tmp_path):
    out = subprocess.run([sys.executable, "-m", "publish", "deck"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, check=True).stdout
    for deck in DECKS.values():
        assert deck.title in out
    written = tmp_path / "deck.ipynb"
    subprocess.run([sys.executable, "-m", "publish", "deck", "2", "--write", str(written)], cwd=tmp_path,
                   check=True, capture_output=True, timeout=120)
    assert nbformat.read(written, as_version=4).metadata.ch02_deck["key"] == "2"


def test_the_font_the_deck_ships_covers_every_slide():
    from fontTools.ttLib import TTFont

    from publish.deck.serve import SHARE

    font = SHARE / "voila" / "templates" / "ch02-deck" / "static" / "NotoSansSC-ch02.otf"
    cmap = TTFont(str(font)).getBestCmap()
    missing = set()
    for deck in DECKS.values():
        for cell in build_notebook(deck, NB).cells:
            missing |= {ch for ch in cell.source if ord(ch) >= 0x2E80 and ord(ch) not in cmap}
    assert not missing, f"the deck font lacks {''.join(sorted(missing))!r}: run `python -m publish font`"


def test_the_explorer_has_a_lecture_layout_that_fits_720p():
    from helpers.lessons.saturation.widget import SaturationFigure, saturation_explorer

    fig = SaturationFigure(T=16, layout="lecture")
    assert len(fig.fig.axes) == 2 and fig.fig.get_figheight() * fig.fig.dpi <= 300
    ex = saturation_explorer(layout="lecture")
    ex.d_k_slider.value = 1024
    ex.divide_checkbox.value = True
    assert ex.image.value[:2] == b"\xff\xd8"  # a JPEG of the two panels
    assert ex.view.d_k == 1024 and ex.view.divide
    with pytest.raises(ValueError, match="layout"):
        saturation_explorer(layout="big")


# -- review rows (deck review, engineer T): each was a slide a teacher would have hit -------------------------------

def _headings_above(nb: str) -> dict[str, list[str]]:
    """cell id -> the headings it sits under (its own heading included), from the notebook's markdown."""
    stack: list[tuple[int, str]] = []
    out = {}
    for cell in nbformat.read(next(NB.glob(f"{nb}-*.ipynb")), as_version=4).cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                m = re.match(r"^(#{1,6})\s+(.*)", line)
                if m:
                    stack = [h for h in stack if h[0] < len(m.group(1))] + [(len(m.group(1)), m.group(2).strip())]
        out[cell.get("id")] = [h for _, h in stack]
    return out


def test_no_slide_shows_a_cell_of_an_optional_section():
    # Lecture 2's 2.8 slide showed "选读：先定规则，再数" after the counting rule moved into a 选读 section.
    found = []
    for key, number, slide in SLIDES:
        shown = _cells(slide)
        cells = [(t.nb, t.cell) for t in shown.texts] + ([shown.code] if shown.code else [])
        if slide.name in OPTIONAL_TAUGHT:  # the plan teaches it on purpose: it must be under a 选读 heading
            assert any(h.startswith("选读") for nb, cell in cells for h in _headings_above(nb)[cell]), slide.name
            continue
        for nb, cell in cells:
            under = _headings_above(nb)[cell]
            if any(h.startswith("选读") for h in under):
                found.append(f"deck {key} slide {number}: {nb} {cell} is under {' > '.join(under)}")
    assert not found, "\n".join(found)


def test_a_taught_optional_section_is_no_option_on_its_slide():
    # Teacher's review (issue 31): lecture 2 taught 2.9's online softmax under the title 选读：不存下 T×T 矩阵……
    for name in OPTIONAL_TAUGHT:
        slide = _slide(name)
        assert text_of(_cells(slide).texts[0], NB).startswith("## 选读：")   # the notebook keeps it optional
        md = slide_markdown(slide, NB)
        assert md.startswith("## ") and "选读" not in md.split("\n", 1)[0], md[:80]


@pytest.mark.parametrize("key", list(DECKS))
def test_every_vote_of_a_row_comes_before_its_live_widget(key):
    # 2.5-q3 (does the saturated share change with d_k once scaled, at 1/tau = 10?) came after the explorer, whose
    # step-3 button shows that share over 200 seeds for every d_k: the class saw the answer before voting.
    for row in DECKS[key].rows:
        kinds = [s.kind for s in row.slides]
        if "live" in kinds:
            first_live = kinds.index("live")
            assert "vote" not in kinds[first_live:], f"deck {key}, row {row.label}: a vote after the live widget"


def test_a_vote_caption_points_at_nothing_the_deck_does_not_show():
    # 2.8-q1's caption began "上面打印的 Q 里" and 2.10-q1's ended "先在下面选一个答案，再运行揭晓的那一格":
    # notebook cells that are not on the slide (and both captions repeated the widget's own question).
    notebook_only = ("上面打印", "揭晓的那一格", "在下面选")
    found = [f"deck {key} slide {number}: {p!r}" for key, number, slide in SLIDES if slide.kind == "vote"
             for t in _cells(slide).texts for p in notebook_only if p in text_of(t, NB)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("key", list(DECKS))
def test_the_guide_names_each_slide_in_plain_text(key):
    # The guide's slide table read "\\text{Attention}(Q, K, V) = \\text…", "S = QK^\\top", "**第 1 步：投影。** X \\in …".
    table = schedule_markdown(DECKS[key], NB)
    assert not re.search(r"\\[A-Za-z]|\*\*|\$", table), [ln for ln in table.splitlines() if re.search(r"\\[A-Za-z]|\*\*|\$", ln)]


# -- no slide gives a vote away (deck review 2): lecture 1's notation slide (skipped, but on the projector when a
# teacher has time) said "QKᵀ is 2·T_q·T_kv·d_k flops" 36 slides before 2.4-q2 asks how many flops S = QKᵀ takes.

_TEX_COMMAND = re.compile(r"\\(?:[A-Za-z]+|[,;:! ])")


def _deck_norm(text: str) -> str:
    """The notebooks' normalisation, after dropping TeX commands and product signs: '2\\,T_q T_{kv} d_k' and
    '2·T_q·T_kv·d_k' both read '2tqtkvdk'."""
    return norm(re.sub(r"[·×√]", "", _TEX_COMMAND.sub("", text)))


def _vote(slide) -> tuple[str, str, list[str] | None]:
    cell = find_cell(*_cells(slide).code, NB)
    qid = re.search(r"""["'](2\.\d+-q\d+)["']""", cell.source).group(1)
    question, options = _question_and_options({"source": cell.source, "cell_type": "code", "metadata": {}})
    return qid, question, options


def _number_forms(value: float) -> list[str]:
    """How a slide would print the answer of a numeric vote; none for a one-digit answer (every slide has digits)."""
    text = f"{value:g}"
    return [text] if len(text.replace("-", "").replace(".", "")) >= 2 else []


def vote_giveaways(qid: str, question: str, options: list[str] | None, shown: list[tuple[str, str, str]]) -> list[str]:
    """Where ``shown`` ((where, notebook, text): what the class has seen when it votes) states the answer of ``qid``:
    a clause of its explanation, a long stretch of it, the key's option text, or a numeric key's value.

    The key's option text counts from ``MIN_OPTION`` characters on slides of the vote's own notebook (as in the
    notebooks' test), from twice that elsewhere: a short phrase of another section ('it 自己' in 2.1-q2's
    explanation, before 2.3-q2) is a coincidence, not an answer."""
    key = KEYS[qid]
    own = f"02-{int(qid.split('-')[0].split('.')[1]):02d}"
    explanation = _deck_norm(key.explanation)
    clauses = [_deck_norm(c) for c in CLAUSE.findall(key.explanation) if len(_deck_norm(c)) >= MIN_CLAUSE]
    parts = []
    if options is not None:
        option = options[key.answer]
        parts = [_deck_norm(x) for x in [option, *re.split(r"[：:]", option)]]
        parts = [x for x in parts if len(x) >= MIN_OPTION and x not in _deck_norm(question)]
    numbers = _number_forms(key.answer) if isinstance(key, NumberKey) else []
    found = []
    for where, nb, raw in shown:
        text = _deck_norm(raw)
        found += [f"{where} states a clause of {qid}'s explanation: {c!r}" for c in clauses if c in text]
        shared = longest_common_substring(explanation, text)
        if shared > MAX_SHARED:
            found.append(f"{where} shares {shared} characters in a row with {qid}'s explanation")
        found += [f"{where} states {qid}'s key {p!r}" for p in parts
                  if p in text and (nb == own or len(p) >= 2 * MIN_OPTION)]
        found += [f"{where} prints {qid}'s answer {n}" for n in numbers
                  if re.search(rf"(?<![\d.]){re.escape(n)}(?![\d]|\.\d)", raw)]
    return found


def _notebook_of(slide) -> str | None:
    return slide.notebook if slide.name else None


def deck_giveaways(deck) -> list[str]:
    """Every vote of ``deck`` against all the deck shows before it (skipped slides too): the earlier slides' text,
    the earlier votes with their revealed explanations, and the vote slide's own caption."""
    found, shown = [], []
    for number, slide in enumerate(deck.slides, start=2):
        md, nb = slide_markdown(slide, NB), _notebook_of(slide)
        if slide.kind == "vote":
            qid, question, options = _vote(slide)
            found += [f"deck {deck.key} slide {number} ({qid}): {f}"
                      for f in vote_giveaways(qid, question, options, shown + [("its own caption", nb, md)])]
            md += "\n\n" + question + "\n\n" + "\n".join(options or []) + "\n\n" + KEYS[qid].explanation
        shown.append((f"slide {number}{' (skipped)' if slide.skip else ''}", nb, md))
    return found


@pytest.mark.parametrize("key", list(DECKS))
def test_no_slide_before_a_vote_gives_its_answer(key):
    found = deck_giveaways(DECKS[key])
    assert not found, "\n".join(found)


def test_the_giveaway_check_catches_the_notation_slide_it_was_written_for():
    # 02-00's notation block as it was, with the flops bullet that went on to the whole S, shown before 2.4-q2: the
    # check must see it; the bullet as it is now (it stops at one dot product) and a slide that only asks the
    # question give nothing away.
    qid, question, options = _vote(next(s for s in DECKS["1"].slides if s.kind == "vote"
                                        and find_cell(*_cells(s).code, NB).source.count('"2.4-q2"')))
    notation = text_of(_cells(_slide("02-00/notation")).texts[0], NB)
    old_bullet = ("所以两个 $d_k$ 维向量的点积是 $2d_k$ flops，\n"
                  "  $QK^\\top$（$T_q \\times T_{kv}$ 个点积）是 $2\\,T_q T_{kv} d_k$ flops。")
    now_bullet = "所以两个 $d_k$ 维向量的点积是 $2d_k$ flops。"
    assert now_bullet in notation
    old_notation = notation.replace(now_bullet, old_bullet)
    assert any("explanation" in f for f in vote_giveaways(qid, question, options, [("notation", "02-00", old_notation)]))
    assert vote_giveaways(qid, question, options, [("notation", "02-00", notation)]) == []
    assert vote_giveaways(qid, question, options, [("caption", "02-04", "### 先预测（2）")]) == []
    assert vote_giveaways(qid, question, options, [("a print", "02-04", "S 一共 168 flops")])
    assert not vote_giveaways(qid, question, options, [("other numbers", "02-04", "1168、16.8 与 168.5")])
    q3, question3, options3 = _vote(next(s for s in DECKS["1"].slides if s.kind == "vote"
                                         and find_cell(*_cells(s).code, NB).source.count('"2.6-q1"')))
    said = "不报错、形状相同，但每一行的和不再是 1"
    assert vote_giveaways(q3, question3, options3, [("a caption", "02-06", said)])
    assert vote_giveaways(q3, question3, options3, [("another section", "02-05", said)])  # long: counts anywhere
    q4, question4, options4 = _vote(next(s for s in DECKS["2"].slides if s.kind == "vote"
                                         and find_cell(*_cells(s).code, NB).source.count('"2.11-q1"')))
    assert vote_giveaways(q4, question4, options4, [("a caption", "02-11", "两种方案一样多")])
    assert not vote_giveaways(q4, question4, options4, [("another section", "02-09", "两种方案一样多")])


# -- no slide points at a notebook cell it does not show (deck review 1): 2.1 said "结论（数值见上一格的输出）" and
# "下面两句话" (a code cell), 2.8 §7 "下一格从 … 打印", 2.10 "上面打印的行和" — on a slide there is no cell above or
# below, no printed output (figure slides show images only) and no collapsed 选读.

NOTEBOOK_POINTER = re.compile(r"上一格|下一格|这一格|揭晓格|揭晓的那一格|单元格|上表|下表|上面打印|下面打印|在下面选|折叠"
                              r"|[见如]下文|[见如]上文|下面[用是两这那的]|上面[的那这第]")
TEXT_ONLY_POINTER = re.compile(r"这张表|这张图|上图|下图")   # on a slide with no figure
FIGURE_BELOW = re.compile(r"下面的[^，。；：\n]{0,8}图")       # a figure slide's caption naming the figure under it
# Reported to the lead (cells of notebooks other engineers are editing):
# (notebook or "key", cell id or question id) -> the pointers it still has.
KNOWN_POINTERS: dict[tuple[str, str], set[str]] = {}   # every pointer the review found is fixed


def notebook_pointers(text: str, kind: str) -> list[str]:
    """The phrases of ``text`` that point at notebook cells, on a slide of ``kind``."""
    if kind == "figure":
        text = FIGURE_BELOW.sub("", text)
    found = NOTEBOOK_POINTER.findall(text)
    if kind != "figure":
        found += TEXT_ONLY_POINTER.findall(text)
    return found


def test_no_slide_points_at_a_cell_it_does_not_show():
    found = []
    for key, number, slide in SLIDES:
        shown = [((t.nb, t.cell), text_of(t, NB)) for t in _cells(slide).texts]
        if slide.kind == "vote":
            qid = _vote(slide)[0]
            shown.append((("key", qid), KEYS[qid].explanation))   # shown on the slide after the click
        for where, text in shown:
            for p in notebook_pointers(text, slide.kind):
                if p not in KNOWN_POINTERS.get(where, ()):
                    found.append(f"deck {key} slide {number}: {where[0]} {where[1]} says {p!r}")
    assert not found, "\n".join(found)


def test_the_pointer_check_catches_what_the_review_found():
    for old in ("结论（数值见上一格的输出）：", "下面两句话只有最后一个词不同。", "提示：看一看上面第 1、2 行的分数 $S$。",
                "下一格从 `helpers.book.errata_summary()` 打印", "见下面折叠的选读。", "（上面打印的行和）", "逐轴读出来（数值见上表）："):
        assert notebook_pointers(old, "text"), old
    assert notebook_pointers("读这张表时", "text") and not notebook_pointers("怎么读这张表：", "figure")
    assert not notebook_pointers("每一轴的值也画在下面的柱状图里", "figure")
    assert notebook_pointers("每一轴的值也画在下面的柱状图里", "text")


# -- a slide does not open on a pronoun whose noun is on another slide (deck review 2): 2.12's skipped slide began
# "它放过了所有有毛病的实现" — 它 was the shape-only test, a code cell the deck does not show.

OPENING_PRONOUN = re.compile(r"(它们|它|这些|那些|这个|那个|这样|此)")


def opening_pronoun(text: str) -> str | None:
    """The pronoun the first paragraph of ``text`` (headings skipped) opens with, if any."""
    for block in re.split(r"\n\s*\n", text):
        block = block.strip()
        if block and not block.startswith("#"):
            m = OPENING_PRONOUN.match(block)
            return m.group(1) if m else None
    return None


def test_no_slide_opens_on_a_pronoun_it_does_not_explain():
    found = [f"deck {key} slide {number}: {slide.name} opens with {p!r}"
             for key, number, slide in SLIDES if _cells(slide).texts
             and (p := opening_pronoun(text_of(_cells(slide).texts[0], NB)))]
    assert not found, "\n".join(found)


def test_the_pronoun_check_catches_the_slide_it_was_written_for():
    assert opening_pronoun("它放过了所有有毛病的实现。你的测试至少要检验两条性质。") == "它"
    assert opening_pronoun("### 小标题\n\n这些实现输出的形状都对。") == "这些"
    assert opening_pronoun("只比较输出形状的测试太弱：它一个也抓不住。") is None
    assert opening_pronoun("这里的每一本笔记本对应书中的一节。") is None


# -- one heading per slide (teacher's review of lecture 2): a vote that opens a notebook section showed "全班投票" and
# then the section's own heading ("## 4. 因果性是一个可以运行的测试") as a second title.

@pytest.mark.parametrize("key", list(DECKS))
def test_no_slide_prints_two_headings(key):
    found = []
    for number, slide in enumerate(DECKS[key].slides, start=2):
        heads = [ln for ln in slide_markdown(slide, NB).split("\n") if re.match(r"#{1,6} ", ln)]
        if len(heads) > 1:
            found.append(f"deck {key} slide {number} ({slide.name}): {heads}")
    assert not found, "\n".join(found)


def test_a_vote_that_opens_a_section_takes_its_heading_once():
    vote = _slide("02-10/q2")
    assert text_of(_cells(vote).texts[0], NB).startswith("## 4. ")     # the caption is the section's heading
    md = slide_markdown(vote, NB)
    assert md.startswith("## 全班投票 · 4. ") and md.count("\n#") == 0


# -- each slide stands on what the class has seen (teacher's review of lecture 2): slides pointed at notebook sections
# the deck does not show ("按第 1 节那个固定种子的随机排列", "本节的代码验证三件事", "见选读「试一试」", "2.13 里 …
# helpers/model/encoder.py") and used P without saying what it is. Skipped slides too (a teacher with time shows them:
# lecture 1's 2.1 conclusion pointed at the section's code, lecture 2's 2.11 block slide at encoder.py).

SECTION_POINTER = re.compile(r"本节的代码|本笔记本的|选读「|「试一试」|helpers/[\w/]+\.py|第 ?(\d+) ?节")


def pointers(text: str, notebook: str, shown: set) -> list[str]:
    """The phrases of ``text`` (a slide of ``notebook``) that point at what the class has not seen: code, a 选读 or 试一试,
    a source file, or "第 N 节" when ``shown`` (the (notebook, N) sections the deck has shown) lacks that section."""
    return [m.group(0) for m in SECTION_POINTER.finditer(text)
            if m.group(1) is None or (notebook, int(m.group(1))) not in shown]


def section_pointers(deck) -> list[str]:
    """Every such phrase on ``deck``'s slides of the notebooks, skipped ones too (a teacher with time shows them; an
    activity slide's homework may name 试一试)."""
    found, shown = [], set()
    for number, slide in enumerate(deck.slides, start=2):
        if not slide.name:
            continue
        texts = [text_of(t, NB) for t in _cells(slide).texts]
        for text in texts:
            shown |= {(slide.notebook, int(m)) for m in re.findall(r"^#+ (\d+)\. ", text, flags=re.M)}
        found += [f"deck {deck.key} slide {number} ({slide.name}): {p!r}"
                  for text in texts for p in pointers(text, slide.notebook, shown)]
    return found


@pytest.mark.parametrize("key", list(DECKS))
def test_no_slide_points_at_a_section_the_class_has_not_seen(key):
    found = section_pointers(DECKS[key])
    assert not found, "\n".join(found)


def test_the_section_pointer_check_catches_what_the_review_found():
    for said in ("把句子按第 1 节那个固定种子的随机排列打乱。", "本节的代码验证三件事。", "换一个键，它就可能不成立（见选读「试一试」）。",
                 "（`helpers/model/encoder.py` 用的正是这里的 `split_heads`）",
                 "结论（这些余弦由本节的代码算出并断言）：", "MiniLM（见 `helpers/model/encoder.py`）都是 post-LN"):  # skipped slides
        assert pointers(said, "02-09", set()), said
    assert not pointers("把 2.9 第 1 节的打乱再做一次。", "02-09", {("02-09", 1)})   # a section the deck showed


# -- the lab's setup slide quotes the line the 2.0 environment check ends with (teacher's review, issue 31: it still
# said "Everything needed is here." after the check began to print its verdict in Chinese).

def test_the_lab_setup_slide_quotes_the_environment_checks_last_line():
    (setup,) = [s for s in DECKS["lab"].slides if s.kind == "activity" and "环境检查" in s.body]
    said = re.search(r"最后一行应是「([^」]+)」", setup.body)
    assert said, f"the setup slide names no last line in 「」: {setup.body}"
    cells = nbformat.read(str(notebook_path("02-00", NB)), as_version=4).cells
    (at,) = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## 环境检查")]
    check = next(c for c in cells[at + 1:] if c.cell_type == "code")
    printed = "".join(o.get("text", "") for o in check.outputs if o.output_type == "stream")
    assert printed.rstrip("\n").split("\n")[-1] == said.group(1), printed


def test_the_equivariance_slide_says_what_p_is():
    md = slide_markdown(_slide("02-09/equivariance"), NB)
    assert "置换矩阵" in md and md.index("置换矩阵") < md.index("PXW_Q")


@pytest.mark.parametrize("key", DECKS)
def test_a_vote_question_shows_no_tex_source(key):
    # The teacher's review of lecture 2: vote 5 read "softmax(QK^T/√d_k) V" on the projector. A vote's question is
    # plain text in its widget (no MathJax there): a transpose is written Kᵀ, as 2.6's warm-up writes it.
    raw = [(n, q) for n, s in enumerate(DECKS[key].slides, start=2) if s.kind == "vote"
           for q in [_vote(s)[1]] if re.search(r"\^|\\[A-Za-z]|\$|_\{", q)]
    assert not raw, raw


def test_the_causal_slider_figure_reads_on_a_slide():
    # The teacher's review of lecture 2 (slide 40): the 8x8 heatmap was squashed to about 3:1 and its "0.00"
    # annotations were ~13 px. The deck's slider is built as the deck builds it (its kwargs from the cell's
    # metadata["slides"]) and shown at its pixel size: every text >= 18 px, the heatmap no flatter than 2:1, the
    # image within the slide's 1168 x ~520 px under its heading, slider and caption.
    import ast

    import ipywidgets as widgets

    nb = build_notebook(DECKS["2"], NB)
    n = next(c.metadata.deck["slide"] for c in nb.cells if c.metadata.deck.get("name") == "02-10/slider")
    cells = [c.source for c in nb.cells if c.cell_type == "code" and c.metadata.deck.get("slide") == n]
    ns: dict = {}
    for src in cells[:-1]:
        exec(compile(src, "<deck setup>", "exec"), ns)
    tree = ast.parse(cells[-1])
    exec(compile(ast.Module(tree.body[:-1], []), "<deck live>", "exec"), ns)
    box = eval(compile(ast.Expression(tree.body[-1].value), "<deck live>", "eval"), ns)
    fig = box.plot.fig
    texts = [t for t in fig.findobj(lambda o: hasattr(o, "get_fontsize") and hasattr(o, "get_text"))
             if t.get_text() and t.get_visible()]
    small = sorted({(t.get_text(), round(t.get_fontsize() * fig.dpi / 72, 1)) for t in texts
                    if t.get_fontsize() * fig.dpi / 72 < 18})
    assert not small, f"2.10's slider on slide {n}: figure text under 18 px {small}"
    width, height = fig.get_size_inches() * fig.dpi
    assert width <= 1168 and height <= 520, (width, height)
    heatmap = box.plot.ax_map.get_window_extent()
    assert heatmap.height / heatmap.width >= 0.5, (heatmap.width, heatmap.height)
    assert isinstance(box.children[1], widgets.Image)
