"""What a deck is made of: slides that point at notebook cells, rows of a plan, the timing rule.

A slide never holds prose of its own: it names a notebook (``"02-05"``), a cell id (nbformat
cell ids are stable) and, for a long markdown cell, which of its blocks (paragraphs, formulas,
tables: the pieces between blank lines) to show. The deck is built from the notebooks each time
it is served (:mod:`publish.deck.build`), so an edit to a notebook shows up in the deck.

Timing (the guide states it too, 讲课时间怎么算):

- reading: :data:`READING_CHARS_PER_MIN` characters of a slide's text per minute (the Markdown
  source as the notebook has it, formulas included: the lecturer reads and explains it);
- a figure: :data:`FIGURE_MIN` minutes to read it with the class;
- a class vote (a prediction cell): :data:`VOTE_MIN` minutes -- question, hands up, the reveal;
- a live widget or an activity: the minutes its slide states (``demo=`` / ``minutes=``).

A plan row's minutes are the sum over its slides that are not marked skip, rounded to the
nearest minute (``tests/test_lecture.py`` checks every row).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Touched in the deck's folder by the deck notebook's last cell (build.py): the deck has run (serve.py waits for it).
READY_FILE = ".deck-ready"

__all__ = ["READING_CHARS_PER_MIN", "FIGURE_MIN", "VOTE_MIN", "Text", "Slide", "Row", "Deck",
           "text", "figure", "vote", "live", "activity", "title"]

READING_CHARS_PER_MIN = 120
FIGURE_MIN = 1.5
VOTE_MIN = 1.5


@dataclass(frozen=True)
class Text:
    """Blocks of one markdown cell: ``blocks`` are 1-based indices of its blank-line separated pieces (None = all)."""

    nb: str
    cell: str
    blocks: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Slide:
    """One slide.

    kind : "title" | "text" | "figure" | "vote" | "live" | "activity"
    texts : markdown pieces shown first (from the notebooks)
    code : (nb, cell id) of the code cell whose committed image (figure) or live widget (vote, live) is shown
    setup : (nb, cell id) code cells that must run before ``code`` (their output is never shown)
    kwargs : keyword arguments the deck adds to the one call in ``code`` (e.g. ``{"t": 1}``)
    minutes : stated minutes of a live demo or an activity
    skip : the plan's row skips this slide when time is short (the deck marks it)
    heading : a short heading for slides without a markdown heading of their own
    body : the text of an activity slide (the plan row's own words) or of the title slide
    """

    kind: str
    texts: tuple[Text, ...] = ()
    code: tuple[str, str] | None = None
    setup: tuple[tuple[str, str], ...] = ()
    kwargs: dict = field(default_factory=dict, hash=False, compare=False)
    minutes: float = 0.0
    skip: bool = False
    heading: str = ""
    body: str = ""


@dataclass(frozen=True)
class Row:
    """One row of a plan: 时段, 内容, 分钟, 展示 -- and its slides. ``page``: the guide page it draws on."""

    label: str
    content: str
    minutes: int
    show: str
    slides: tuple[Slide, ...]
    page: str | None = None


@dataclass(frozen=True)
class Deck:
    key: str
    title: str           # the plan's heading in docs/teaching/README.md (### ...)
    rows: tuple[Row, ...]

    @property
    def slides(self) -> list[Slide]:
        return [s for r in self.rows for s in r.slides]


def _texts(nb, cells) -> tuple[Text, ...]:
    out = []
    for c in cells:
        if isinstance(c, str):
            out.append(Text(nb, c))
        else:
            cid, *blocks = c
            out.append(Text(nb, cid, tuple(blocks)))
    return tuple(out)


def text(nb: str, *cells, skip: bool = False) -> Slide:
    """A text slide: each of ``cells`` is a cell id or ``(cell id, block, block, ...)``."""
    return Slide("text", _texts(nb, cells), skip=skip)


def title(nb: str, cell: str, skip: bool = False) -> Slide:
    """A section's opening slide: the first block (the ``# 2.N ...`` heading) of its title cell."""
    return Slide("text", (Text(nb, cell, (1,)),), skip=skip)


def figure(nb: str, cell: str, *captions, skip: bool = False, heading: str = "") -> Slide:
    """The committed image output of code cell ``cell``, under the text of ``captions``."""
    return Slide("figure", _texts(nb, captions), code=(nb, cell), skip=skip, heading=heading)


def vote(nb: str, cell: str, *captions, skip: bool = False) -> Slide:
    """A class vote: the prediction cell ``cell`` runs live (question and choices; the answer on a click)."""
    return Slide("vote", _texts(nb, captions), code=(nb, cell), skip=skip, heading="全班投票")


def live(nb: str, cell: str, *captions, setup=(), kwargs=None, demo: float, skip: bool = False) -> Slide:
    """A live widget: ``setup`` cells (ids in ``nb``) run first, then ``cell`` with ``kwargs`` added to its call."""
    return Slide("live", _texts(nb, captions), code=(nb, cell), setup=tuple((nb, s) for s in setup),
                 kwargs=dict(kwargs or {}), minutes=float(demo), skip=skip)


def activity(heading: str, body: str, minutes: float) -> Slide:
    """A slide for work or discussion (the lab, the opening, the close): the plan row's own words."""
    return Slide("activity", minutes=float(minutes), heading=heading, body=body)
