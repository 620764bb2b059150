"""Build a deck notebook from the series' notebooks, at run time; time it; print its plan.

:func:`slide_cells` finds a slide's cells: the cells of its notebook whose ``metadata["slides"]``
names it (:mod:`publish.deck.slides` says what an entry holds). :func:`check_deck` finds every
slide of a deck and fails, naming the deck, the row, the slide and the cell, when one cannot be
built (a cell deleted or stripped of its metadata, a block that is gone, a figure with no image).
:func:`build_notebook` turns a :class:`~publish.deck.slides.Deck` into one small notebook
that Voila renders with the ``ch02-deck`` template: one markdown cell per slide (its text taken
from the notebooks' cells, a figure as the committed image output of its cell), and only the
code cells the live slides need (a prediction cell, the explorer, the causal slider, with the
few cells that compute their inputs). So the kernel runs a handful of cells, not whole notebooks.
Its last cell touches ``.deck-ready`` in the kernel's folder when Voila preheated that kernel (how the
server knows the deck has run).
"""

from __future__ import annotations

import ast
import html as html_lib
import math
import re
from functools import lru_cache
from pathlib import Path

from ..notebooks import NOTEBOOKS_ENV, hidden_outputs, notebooks_dir
from .notes import guide_dir, question_of, resolve, slide_notes, tex_html
from .slides import (CELL_KEY, FIGURE_MIN, PART_KEYS, READING_CHARS_PER_MIN, READY_FILE, ROLES, Deck,
                     DeckError, Slide, SlideCells, Text, class_vote_minutes)

__all__ = ["NOTEBOOKS_ENV", "notebooks_dir", "notebook_path", "find_cell", "slide_cells", "check_deck", "text_of",
           "slide_markdown", "slide_minutes", "row_minutes", "skipped_numbers", "build_notebook", "schedule",
           "schedule_markdown", "plan_markdown", "apply_kwargs", "vote_parts", "notes_of"]


def notebook_path(nb: str, root: Path) -> Path:
    found = sorted(root.glob(f"{nb}-*.ipynb"))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one notebook {nb}-*.ipynb in {root}; found {[p.name for p in found]}")
    return found[0]


@lru_cache(maxsize=32)
def _read(path: str, mtime: float):
    import nbformat

    return nbformat.read(path, as_version=4)


def _load(nb: str, root: Path):
    p = notebook_path(nb, root)
    return _read(str(p), p.stat().st_mtime)


def find_cell(nb: str, cell_id: str, root: Path):
    """The cell with id ``cell_id`` in notebook ``nb`` (KeyError naming both when it is gone)."""
    for cell in _load(nb, root).cells:
        if cell.get("id") == cell_id:
            return cell
    raise KeyError(f"notebook {nb} has no cell with id {cell_id!r}")


#: What each optional key of a cell's entry must hold (:mod:`publish.deck.slides`).
_ENTRY_VALUES = {
    "blocks": lambda v: isinstance(v, list) and bool(v) and all(type(b) is int for b in v),
    "kwargs": lambda v: isinstance(v, dict),
    "heading": lambda v: isinstance(v, str),
    "cells": lambda v: type(v) is int and v >= 1,
}


def slide_cells(slide: Slide, root: Path) -> SlideCells:
    """The cells of ``slide``'s notebook that carry its name in ``metadata["slides"]``, checked.

    DeckError (naming the slide, the notebook and the cell) when no cell carries it, when fewer cells
    carry it than they say make the slide, or when an entry does not fit the slide's kind.
    """
    if slide.kind == "activity":
        return SlideCells()
    try:
        path = notebook_path(slide.notebook, root)
    except FileNotFoundError as exc:
        raise DeckError(f"slide {slide.name!r}: {exc}") from None
    return _slide_cells(slide, str(path), path.stat().st_mtime)


@lru_cache(maxsize=1024)
def _slide_cells(slide: Slide, path: str, mtime: float) -> SlideCells:
    where = f"slide {slide.name!r} ({slide.kind}) in {Path(path).name}"
    parts = [(cell, entries[slide.name]) for cell in _read(path, mtime).cells
             if isinstance(entries := cell.get("metadata", {}).get(CELL_KEY), dict) and slide.name in entries]
    if not parts:
        raise DeckError(f"{where}: no cell carries it in its metadata[{CELL_KEY!r}] (deleted, or its metadata "
                        "lost in an edit? put the entry back on the cell: CONTRIBUTING.md, Lecture decks)")
    texts, setup, shown, counts = [], [], [], set()
    for cell, part in parts:
        cid = cell.get("id")
        bad = set(part) - PART_KEYS if isinstance(part, dict) else {"(not a dict)"}
        role = part.get("role") if isinstance(part, dict) else None
        if bad or role not in ROLES:
            raise DeckError(f"{where}: cell {cid} has the entry {part!r}; an entry has a role in {ROLES} "
                            f"and only the keys {sorted(PART_KEYS)}")
        wrong = [k for k, ok in _ENTRY_VALUES.items() if k in part and not ok(part[k])]
        if wrong:
            raise DeckError(f"{where}: cell {cid} has the entry {part!r}; {', '.join(wrong)} should be: blocks a list "
                            "of block numbers (1 = the first), kwargs a dict, heading a string, cells a count >= 1")
        want = "markdown" if role == "text" else "code"
        if cell.cell_type != want:
            raise DeckError(f"{where}: cell {cid} is a {cell.cell_type} cell; the role {role!r} needs a {want} cell")
        counts.add(part.get("cells", 1))
        if role == "text":
            blocks = part.get("blocks")
            texts.append(Text(slide.notebook, cid, None if blocks is None else tuple(blocks)))
        elif role == "setup":
            setup.append((slide.notebook, cid))
        elif role != slide.kind:
            raise DeckError(f"{where}: cell {cid} has the role {role!r}; the deck shows this slide as a {slide.kind}")
        else:
            shown.append((cell, part))
    found = ", ".join(f"{c.get('id')} ({p.get('role')})" for c, p in parts)
    if len(counts) != 1 or counts != {len(parts)}:
        raise DeckError(f"{where}: its cells say it is made of {' or '.join(map(str, sorted(counts)))} cells, "
                        f"{len(parts)} carry it: {found} (a cell deleted, or its metadata lost in an edit?)")
    if slide.kind == "text":
        return SlideCells(tuple(texts))
    if len(shown) != 1:
        raise DeckError(f"{where}: needs one cell with the role {slide.kind!r}; found {len(shown)}: {found}")
    if setup and slide.kind not in ("vote", "live"):
        raise DeckError(f"{where}: only a vote or a live slide runs setup cells; found {found}")
    cell, part = shown[0]
    heading = "全班投票" if slide.kind == "vote" else part.get("heading", "")
    return SlideCells(tuple(texts), (slide.notebook, cell.get("id")), tuple(setup), dict(part.get("kwargs", {})),
                      heading)


def check_deck(deck: Deck, root: Path | None = None) -> None:
    """Every slide of ``deck`` found and buildable, or one DeckError naming the deck and each slide that is not."""
    root = notebooks_dir(root)
    problems, n = [], 1
    for row in deck.rows:
        for s in row.slides:
            n += 1
            try:
                cells = slide_cells(s, root)
                for t in cells.texts:
                    text_of(t, root)
                if s.kind == "figure" and not (_images(find_cell(*cells.code, root)) or _printed(find_cell(*cells.code, root))):
                    raise DeckError(f"slide {s.name!r}: {cells.code[0]} cell {cells.code[1]} has no committed image "
                                    "or printed output")
                notes_of(s, root)
                if cells.kwargs:
                    try:
                        apply_kwargs(find_cell(*cells.code, root).source, cells.kwargs)
                    except (SyntaxError, ValueError) as exc:
                        raise DeckError(f"slide {s.name!r}: {cells.code[0]} cell {cells.code[1]}: cannot add its "
                                        f"kwargs {cells.kwargs}: {exc}") from None
            except DeckError as exc:
                problems.append(f"  slide {n} (row {row.label}): {exc}")
    if problems:
        raise DeckError(f"deck {deck.key} ({deck.title}) cannot be built from {root}:\n" + "\n".join(problems))


def _blocks(source: str) -> list[str]:
    out, cur = [], []
    in_math = False
    for line in source.split("\n"):
        if line.strip() == "" and not in_math and cur:
            out.append("\n".join(cur))
            cur = []
            continue
        if line.strip() or cur:
            cur.append(line)
        if line.count("$$") % 2 == 1:
            in_math = not in_math
    if cur:
        out.append("\n".join(cur))
    return out


def text_of(t: Text, root: Path) -> str:
    cell = find_cell(t.nb, t.cell, root)
    blocks = _blocks(cell.source)
    if t.blocks is None:
        return "\n\n".join(blocks)
    bad = [b for b in t.blocks if not 1 <= b <= len(blocks)]
    if bad:
        raise DeckError(f"{t.nb} cell {t.cell} has {len(blocks)} blocks; its metadata[{CELL_KEY!r}] asks for blocks {bad}")
    return "\n\n".join(blocks[b - 1] for b in t.blocks)


OPTIONAL_HEADING = re.compile(r"^(#{1,6} )选读[：:]\s*", re.M)


def slide_markdown(slide: Slide, root: Path) -> str:
    cells = slide_cells(slide, root)
    heading = slide.heading or cells.heading
    # A 选读 section the plan teaches (decks.OPTIONAL_TAUGHT) is no option in class: its heading loses 选读：.
    texts = [OPTIONAL_HEADING.sub(r"\1", text_of(t, root)) for t in cells.texts]
    if slide.kind == "vote" and texts and texts[0].startswith("#"):
        # A vote that opens a section (its caption is the section's heading): one heading, 全班投票 · <the section>.
        first, _, rest = texts[0].partition("\n")
        heading = f"{heading} · {first.lstrip('#').strip()}"
        texts = [t for t in [rest.strip(), *texts[1:]] if t]
    parts = [f"## {heading}"] if heading and slide.kind in ("activity", "vote", "figure") else []
    parts += texts
    if slide.body:
        parts.append(slide.body)
    if slide.ask:
        guide = guide_dir(root)
        if guide is None:
            raise DeckError(f"slide {slide.heading!r} asks the guide's questions {slide.ask}: no docs/teaching found")
        parts.append("\n".join(f"{i}. {question_of(resolve(guide, ref))}" for i, ref in enumerate(slide.ask, 1)))
    return "\n\n".join(parts)


def notes_of(slide: Slide, root: Path) -> list[str]:
    """The presenter's notes of ``slide``, as Markdown from the teacher's guide (:mod:`publish.deck.notes`)."""
    question = None
    if slide.kind == "vote":
        question = vote_parts(find_cell(*slide_cells(slide, root).code, root).source)[0]
    notes = slide_notes(slide, guide_dir(root), question)
    if slide.ask:  # the questions are on the slide (1., 2., ...); their answers are the teacher's, numbered the same
        notes += [re.sub(r"^(?:\d+\.|-) ", f"{i}. ", resolve(guide_dir(root), ref), count=1)
                  for i, ref in enumerate(slide.ask, 1)]
    return notes


def _notes_html(notes: list[str]) -> str:
    """The notes as HTML for the presenter's window (no MathJax there: the formulas as Unicode with sub- and
    superscripts, :func:`publish.deck.notes.tex_html`)."""
    def maths(m):
        return tex_html(m.group(1) if m.group(1) is not None else m.group(2))
    md = "\n\n".join(re.sub(r"\$\$(.+?)\$\$|\$([^$]+)\$", maths, n, flags=re.S) for n in notes)
    return markdown_html(md) if md else ""


def heading_html(source: str, width: int = 40) -> str:
    """A slide's heading for the presenter's window and the overview (no MathJax there): the first line of its
    Markdown without its ``#`` marks, its formulas as :func:`publish.deck.notes.tex_html` writes them
    (``$S' = S/\\sqrt{d_k}$`` -> ``S′ = S/√d<sub>k</sub>``), no anchor link; cut to ``width`` characters."""
    line = next((ln.strip() for ln in source.split("\n") if ln.strip()), "")
    line = re.sub(r"^#{1,6}\s+", "", line)
    line = re.sub(r"^(\d+)\. ", r"\1\\. ", line)  # "## 2. 分数矩阵": a numbered heading, not a list
    line = re.sub(r"\$\$(.+?)\$\$|\$([^$]+)\$",
                  lambda m: tex_html((m.group(1) if m.group(1) is not None else m.group(2)).replace("'", "′")), line)
    html = re.sub(r"^<p>|</p>$", "", markdown_html(line).strip())
    out, shown, open_tags = [], 0, []
    for tag, char in re.findall(r"(<[^>]+>)|(&#?\w+;|[^<])", html):
        if tag:
            closing = re.match(r"</(\w+)", tag)
            if closing and open_tags:
                open_tags.pop()
            elif not closing:
                open_tags.append(re.match(r"<(\w+)", tag).group(1))
            out.append(tag)
        elif shown == width - 1 and len(html_lib.unescape(re.sub(r"<[^>]+>", "", html))) > width:
            return "".join(out) + "".join(f"</{t}>" for t in reversed(open_tags)) + "…"
        else:
            out.append(char)
            shown += 1
    return html


def vote_parts(source: str) -> tuple[str, list[str] | None]:
    """(question, choices or None) of the ``predict_choice`` / ``predict_number`` call in a vote cell's source
    (choices given as a name are read from the cell's own assignment)."""
    tree = ast.parse(source)
    names = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in
                ("predict_choice", "predict_number") and len(node.args) > 1):
            args = [ast.literal_eval(names.get(a.id, a) if isinstance(a, ast.Name) else a) for a in node.args]
            return args[1], (list(args[2]) if len(args) > 2 else None)
    raise DeckError(f"no predict_choice / predict_number call with a question in:\n{source}")


def slide_minutes(slide: Slide, root: Path) -> float:
    """Minutes of one slide under the stated rule (see :mod:`publish.deck.slides`)."""
    cells = slide_cells(slide, root)
    reading = sum(len(text_of(t, root)) for t in cells.texts) / READING_CHARS_PER_MIN
    extra = FIGURE_MIN if slide.kind == "figure" else 0.0
    if slide.kind == "vote":
        extra = class_vote_minutes(*vote_parts(find_cell(*cells.code, root).source))
    return reading + extra + slide.minutes


def row_minutes(row, root: Path) -> float:
    return sum(slide_minutes(s, root) for s in row.slides if not s.skip)


def skipped_numbers(deck: Deck, row) -> list[int]:
    """1-based deck numbers of the slides of ``row`` that are marked skip (the title slide is number 1)."""
    numbers, n = [], 1
    for r in deck.rows:
        for s in r.slides:
            n += 1
            if r is row and s.skip:
                numbers.append(n)
    return numbers


def apply_kwargs(source: str, kwargs: dict) -> str:
    """``source`` with ``kwargs`` set on its first call (added, or replacing the same keyword)."""
    if not kwargs:
        return source
    tree = ast.parse(source)
    calls = [n for stmt in tree.body for n in ast.walk(stmt) if isinstance(n, ast.Call)]
    if not calls:
        raise ValueError(f"no call to add {kwargs} to in:\n{source}")
    target = min(calls, key=lambda n: (n.lineno, n.col_offset))  # the first call: the one that builds the widget
    for name, value in kwargs.items():
        target.keywords = [k for k in target.keywords if k.arg != name]
        target.keywords.append(ast.keyword(arg=name, value=ast.Constant(value)))
    return ast.unparse(tree)


def markdown_html(source: str) -> str:
    """Markdown to HTML as nbconvert renders a markdown cell; the maths stays TeX for MathJax to typeset."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    return markdown2html_mistune(source)


def _images(cell) -> list[str]:
    """The committed images of ``cell``, those a blind reveal's placeholder hides included."""
    outs = [h for o in cell.get("outputs", []) for h in (hidden_outputs(o) or [o])]
    return [o["data"]["image/png"] for o in outs
            if o.get("output_type") in ("display_data", "execute_result") and "image/png" in o.get("data", {})]


#: An activity slide of at least this many minutes carries a countdown (the lab's work blocks, the discussion).
TIMER_MIN = 5


def _printed(cell) -> str:
    """What a code cell printed (its committed stream output), for a figure slide whose cell draws no image."""
    outs = [h for o in cell.get("outputs", []) for h in (hidden_outputs(o) or [o])]
    return "".join(o.get("text", "") for o in outs if o.get("output_type") == "stream" and o.get("name") == "stdout")


def build_notebook(deck: Deck, root: Path | None = None):
    """The deck as a notebook: slide cells (markdown) and the few code cells its live slides need."""
    import nbformat

    root = notebooks_dir(root)
    check_deck(deck, root)
    nb = nbformat.v4.new_notebook()
    nb.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.language_info = {"name": "python"}
    nb.metadata.ch02_deck = {"key": deck.key, "title": deck.title}
    # Voila's own override (allow_template_override, default YES): JupyterLab's Voila route
    # (/voila/render/deck.ipynb, whose server keeps the ch02 template) shows a written deck as slides too.
    nb.metadata.voila = {"template": "ch02-deck"}
    cells = nb.cells
    starts = {number: start for number, _, _, start, _ in schedule(deck, root)}
    first = nbformat.v4.new_markdown_cell("# " + deck.title + "\n\n" + "\n".join(
        f"- {r.label}（{r.minutes} 分钟）" for r in deck.rows))
    first.metadata.deck = {"slide": 1, "kind": "title", "row": "", "skip": False, "minutes": 0, "start": 0,
                           "html": markdown_html(first.source), "notes": "",
                           "heading": heading_html(first.source)}
    cells.append(first)
    setup = nbformat.v4.new_code_cell("import helpers as H\nH.use_style()")
    setup.metadata.deck = {"slide": 1, "role": "setup"}
    cells.append(setup)
    ran: set[tuple[str, str]] = set()
    n = 1
    for row in deck.rows:
        for s in row.slides:
            n += 1
            md = nbformat.v4.new_markdown_cell(slide_markdown(s, root))
            meta = {"slide": n, "kind": s.kind, "name": s.name, "row": row.label, "skip": s.skip,
                    "minutes": round(slide_minutes(s, root), 2), "start": round(starts[n], 2),
                    "html": markdown_html(md.source), "notes": _notes_html(notes_of(s, root)),
                    "heading": heading_html(md.source)}
            shown = slide_cells(s, root)
            if s.kind == "activity" and s.minutes >= TIMER_MIN:  # a work block: a countdown on the slide (key T)
                meta["timer"] = s.minutes
            if s.kind == "figure":  # its image, or what its cell printed (2.8's Q, K, V: numbers on screen)
                meta["images"] = _images(find_cell(*shown.code, root))
                if not meta["images"]:
                    meta["printed"] = _printed(find_cell(*shown.code, root)).rstrip("\n")
            md.metadata.deck = meta
            cells.append(md)
            if s.kind in ("vote", "live"):
                for key in shown.setup:
                    if key in ran:
                        continue
                    ran.add(key)
                    c = nbformat.v4.new_code_cell(find_cell(*key, root).source)
                    c.metadata.deck = {"slide": n, "role": "setup"}
                    cells.append(c)
                src = find_cell(*shown.code, root).source
                c = nbformat.v4.new_code_cell(apply_kwargs(src, shown.kwargs))
                c.metadata.deck = {"slide": n, "role": "live"}
                cells.append(c)
    # Last: a kernel Voila preheated says the deck has run (the server opens the browser only then;
    # serve.py). Elsewhere (JupyterLab's Voila route, --no-preheat) it writes nothing.
    ready = nbformat.v4.new_code_cell(
        f"import os\nif os.environ.get('VOILA_PREHEAT') == 'True':\n    open({READY_FILE!r}, 'w').close()")
    ready.metadata.deck = {"slide": n, "role": "ready"}
    cells.append(ready)
    return nb


def schedule(deck: Deck, root: Path | None = None) -> list[tuple[int, str, str, float, bool]]:
    """(slide number, row label, slide heading, start minute, skip) for every slide after the title."""
    root = notebooks_dir(root)
    check_deck(deck, root)
    out, t, n = [], 0.0, 1
    for row in deck.rows:
        for s in row.slides:
            n += 1
            md = slide_markdown(s, root)
            head = next((ln.lstrip("#").strip() for ln in md.split("\n") if ln.strip()), "")
            out.append((n, row.label, head, t, s.skip))
            if not s.skip:
                t += slide_minutes(s, root)
    return out


_TEX_SYMBOLS = {"top": "ᵀ", "times": "×", "sqrt": "√", "Rightarrow": "⇒", "to": "→", "cdot": "·", "in": "∈",
                "le": "≤", "ge": "≥", "ne": "≠", "infty": "∞", "circ": "°", "sum": "Σ", "tau": "τ", "alpha": "α"}


def _plain(text: str) -> str:
    """A line of a slide as plain text for the guide's slide tables: no Markdown emphasis, no TeX commands."""
    text = text.replace("**", "").replace("$", "")
    text = re.sub(r"\\(?:text|mathrm|operatorname|mathbf|mathbb|mathcal)\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"\\([A-Za-z]+)", lambda m: _TEX_SYMBOLS.get(m.group(1), ""), text)
    text = re.sub(r"\^\{?ᵀ\}?", "ᵀ", text)
    return re.sub(r" {2,}", " ", re.sub(r"[{}]", "", text)).strip()


def _short(text: str, width: int = 34) -> str:
    text = _plain(text).replace("|", "\\|")
    return text if len(text) <= width else text[: width - 1] + "…"


def schedule_markdown(deck: Deck, root: Path | None = None) -> str:
    """The guide's slide-to-minute table for ``deck`` (tests compare the guide with it)."""
    lines = ["| 幻灯片 | 时段 | 内容 | 第几分钟开始 |", "|---|---|---|---|"]
    for n, label, head, start, skip in schedule(deck, root):
        when = "跳过" if skip else str(math.floor(start + 1e-9))
        lines.append(f"| {n} | {label} | {_short(head)} | {when} |")
    return "\n".join(lines)


def plan_markdown(deck: Deck) -> str:
    """The guide's plan table for ``deck``: 时段, 内容 (with the slides to skip), 分钟, 展示, 幻灯片."""
    lines = ["| 时段 | 内容 | 分钟 | 展示 | 幻灯片 |", "|---|---|---|---|---|"]
    n = 1
    for row in deck.rows:
        first, n = n + 1, n + len(row.slides)
        skips = skipped_numbers(deck, row)
        content = row.content + (f"（本行跳过第 {'、'.join(map(str, skips))} 张）" if skips else "")
        span = f"{first}–{n}" if n > first else str(first)
        lines.append(f"| {row.label} | {content} | {row.minutes} | {row.show} | {span} |")
    return "\n".join(lines)
