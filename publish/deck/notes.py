"""The presenter's notes: read from the teacher's guide (docs/teaching/02-NN.md) when a deck is built, never copied.

A note is named by a guide reference, ``"02-09#讨论题"`` (a whole section of a guide page) or
``"02-09#讨论题/2"`` (its 2nd list item). Which notes a slide gets:

- a vote: the item of its page's ``## 预测题答案`` that quotes its question (as tests/test_teaching_guide.py requires);
- a section's title slide (``NN-NN/title``): its page's ``## 常见误解``;
- any slide: the references its manifest entry names (``notes=`` in :mod:`publish.deck.decks`).

A reference that names no section or item is a :class:`~publish.deck.slides.DeckError` (the build names the slide).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from ..notebooks import ROOT
from .slides import DeckError, Slide

__all__ = ["guide_dir", "section", "items", "resolve", "question_of", "slide_notes"]

_ITEM = re.compile(r"^(?:- |\d+\. )")


def guide_dir(notebooks: Path) -> Path | None:
    """docs/teaching next to the notebooks' folder (a checkout), or this checkout's; None when neither exists."""
    for d in (Path(notebooks).parent / "docs" / "teaching", ROOT / "docs" / "teaching"):
        if any(d.glob("02-*.md")):
            return d
    return None


@lru_cache(maxsize=64)
def _page(path: str, mtime: float) -> dict[str, str]:
    text = Path(path).read_text(encoding="utf-8")
    out = {}
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        head, _, body = part.partition("\n")
        out[head.strip()] = body.strip()
    return out


def section(guide: Path, page: str, heading: str) -> str:
    path = guide / f"{page}.md"
    if not path.exists():
        raise DeckError(f"the teacher's guide has no page {path.name} (in {guide})")
    sections = _page(str(path), path.stat().st_mtime)
    if heading not in sections:
        raise DeckError(f"{path.name} has no section '## {heading}' (it has: {', '.join(sections)})")
    return sections[heading]


def items(body: str) -> list[str]:
    """The top-level list items of a section (an item runs on over its indented lines)."""
    out: list[str] = []
    for line in body.split("\n"):
        if _ITEM.match(line):
            out.append(line)
        elif out and line.startswith((" ", "\t")) and line.strip():
            out[-1] += "\n" + line
        elif out and not line.strip():
            continue
        elif out:
            out.append(None)  # a paragraph after the list ends the item before it
    return [i for i in out if i is not None]


def resolve(guide: Path, ref: str) -> str:
    """The Markdown a reference names: ``"02-09#讨论题"`` or ``"02-09#讨论题/2"``."""
    m = re.fullmatch(r"(\d\d-\d\d)#([^/]+)(?:/(\d+))?", ref)
    if not m:
        raise DeckError(f"note reference {ref!r}: write 'NN-NN#section' or 'NN-NN#section/item number'")
    body = section(guide, m.group(1), m.group(2))
    if m.group(3) is None:
        return body
    found, k = items(body), int(m.group(3))
    if not 1 <= k <= len(found):
        raise DeckError(f"note reference {ref!r}: {m.group(1)}.md '## {m.group(2)}' has {len(found)} items")
    return found[k - 1]


def question_of(item: str) -> str:
    """A discussion item's question: its first bold text (the answer follows it)."""
    m = re.search(r"\*\*(.+?)\*\*", item)
    if not m:
        raise DeckError(f"the guide item {item[:60]!r}... has no bold question")
    return m.group(1)


def slide_notes(slide: Slide, guide: Path | None, question: str | None = None) -> list[str]:
    """The guide's Markdown for ``slide`` (a vote's ``question`` finds its answer). Empty without a guide."""
    if guide is None:
        return []
    notes = []
    if slide.kind == "vote" and question:
        answers = items(section(guide, slide.notebook, "预测题答案"))
        found = [a for a in answers if question in a]
        if len(found) != 1:
            raise DeckError(f"vote {slide.name!r}: {slide.notebook}.md '## 预测题答案' has {len(found)} items quoting "
                            f"its question 「{question}」 (the presenter's view shows that item)")
        notes.append(found[0])
    if slide.name.endswith("/title"):
        notes.append("**常见误解**\n\n" + section(guide, slide.notebook, "常见误解"))
    notes += [resolve(guide, ref) for ref in slide.notes]
    return notes
