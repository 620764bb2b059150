"""What a deck is made of: slides named on their notebook cells, rows of a plan, the timing rule.

A slide never holds prose of its own, and the deck manifest (:mod:`publish.deck.decks`) names no
cell: a slide is a name such as ``"02-05/explorer"`` (the notebook it lives in, a slug), and the
cells that make it say so in their metadata, under :data:`CELL_KEY`::

    "metadata": {"slides": {"02-05/explorer": {"role": "live", "kwargs": {"layout": "lecture"}, "cells": 3}}}

One entry per slide the cell is on (a cell can be on several slides, e.g. with different blocks). Its keys:

- ``role`` (required): ``"text"`` (a markdown cell whose text is shown), ``"figure"`` (a code cell
  whose committed image is shown), ``"vote"`` (a prediction cell run live), ``"live"`` (a widget cell
  run live), ``"setup"`` (a code cell run before the vote or live cell; its output is never shown).
  A figure, vote or live slide has exactly one cell of that role, and the deck says which kind the
  slide is (:func:`figure`, :func:`vote`, :func:`live`): the two must agree.
- ``blocks`` (text): the 1-based blank-line separated pieces (paragraphs, formulas, tables) to show; all if absent.
- ``kwargs`` (live): keyword arguments the deck adds to the cell's first call (e.g. ``{"t": 1}``).
- ``heading`` (figure): a short heading for a figure slide whose captions have none.
- ``cells``: how many cells make the slide (1 if absent), stated on each of them, so that a cell that
  is deleted or loses its metadata is missed, not silently dropped.

A slide's texts are shown in notebook order, above its figure or widget; its setup cells run in
notebook order. The deck is built from the notebooks each time it is served
(:mod:`publish.deck.build`), so an edit to a notebook shows up in the deck, and an edit that takes a
slide's cell away fails the build with a :class:`DeckError` naming the deck and the slide.

Timing (the guide states it too, 讲课时间怎么算):

- reading: :data:`READING_CHARS_PER_MIN` characters of a slide's text per minute (the Markdown
  source as the notebook has it, formulas included: the lecturer reads and explains it);
- a figure: :data:`FIGURE_MIN` minutes to read it with the class;
- a class vote (a prediction cell), for a class of :data:`CLASS_SIZE` students (:func:`class_vote_minutes`): the
  question and its choices read aloud (at the reading rate), :data:`VOTE_THINK_MIN` to think, a show of hands per
  choice of :data:`HANDS_BASE_S` seconds plus :data:`HANDS_S_PER_STUDENT` per student (a number vote: the teacher
  takes :data:`NUMBER_VOTE_CALLS` answers), then :data:`VOTE_EXPLAIN_MIN` for the reveal and why (80 students,
  four choices: about 2.5 minutes, as a vote took in the lecture hall of issue 31);
- a live widget or an activity: the minutes its slide in the deck states (``demo=`` / ``minutes=``).

A plan row's minutes are the sum over its slides that are not marked skip, rounded to the
nearest minute (``tests/test_lecture.py`` checks every row).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Touched in the deck's folder by the deck notebook's last cell (build.py): the deck has run (serve.py waits for it).
READY_FILE = ".deck-ready"
#: The cell metadata key that puts a notebook cell on slides (see above).
CELL_KEY = "slides"
#: What a cell can be on a slide, and which keys an entry may have.
ROLES = ("text", "figure", "vote", "live", "setup")
PART_KEYS = frozenset({"role", "blocks", "kwargs", "heading", "cells"})
#: A slide's name: its notebook, a slash, a slug (``02-05/explorer``, ``02-01/q1``).
SLIDE_NAME = re.compile(r"\d\d-\d\d/[a-z0-9]+(?:-[a-z0-9]+)*")

__all__ = ["READING_CHARS_PER_MIN", "FIGURE_MIN", "VOTE_MIN", "CLASS_SIZE", "VOTE_THINK_MIN", "HANDS_BASE_S",
           "HANDS_S_PER_STUDENT", "NUMBER_VOTE_CALLS", "VOTE_EXPLAIN_MIN", "class_vote_minutes", "READY_FILE", "CELL_KEY", "ROLES", "PART_KEYS", "SLIDE_NAME",
           "DeckError", "Text", "Slide", "SlideCells", "Row", "Deck", "text", "figure", "vote", "live", "activity"]

READING_CHARS_PER_MIN = 120
FIGURE_MIN = 1.5
#: A prediction answered by one learner alone (publish.minutes: the notebooks' core-path minutes); not a class vote.
VOTE_MIN = 1.5
#: The class a deck's plan is timed for, and the parts of a class vote (see above).
CLASS_SIZE = 80
VOTE_THINK_MIN = 0.25
HANDS_BASE_S = 5.0
HANDS_S_PER_STUDENT = 0.125
NUMBER_VOTE_CALLS = 3
VOTE_EXPLAIN_MIN = 0.75


def class_vote_minutes(question: str, options, class_size: int = CLASS_SIZE) -> float:
    """Minutes of one class vote: read aloud, think, a show of hands per choice, reveal and explain.

    question : the vote's question; options : its choices (None: a number vote); class_size : students in the room.
    """
    if not isinstance(question, str) or not question:
        raise TypeError(f"question should be the vote's question (a non-empty str); got {question!r}")
    if options is not None and (isinstance(options, str) or not all(isinstance(o, str) for o in options)):
        raise TypeError(f"options should be the vote's choices (a list of str) or None; got {options!r}")
    if type(class_size) is not int or class_size < 1:
        raise ValueError(f"class_size should be a number of students >= 1; got {class_size!r}")
    read = (len(question) + sum(len(o) for o in options or ())) / READING_CHARS_PER_MIN
    rounds = len(options) if options is not None else NUMBER_VOTE_CALLS
    hands = rounds * (HANDS_BASE_S + HANDS_S_PER_STUDENT * class_size) / 60
    return read + VOTE_THINK_MIN + hands + VOTE_EXPLAIN_MIN


class DeckError(ValueError):
    """A deck cannot be built from the notebooks: the message names the deck, the slide and the cell."""


@dataclass(frozen=True)
class Text:
    """Blocks of one markdown cell: ``blocks`` are 1-based indices of its blank-line separated pieces (None = all)."""

    nb: str
    cell: str
    blocks: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Slide:
    """One slide of a deck.

    kind : "text" | "figure" | "vote" | "live" | "activity"
    name : "NN-NN/slug": the notebook and the name its cells carry in ``metadata["slides"]`` (not for an activity)
    minutes : stated minutes of a live demo or an activity
    skip : the plan's row skips this slide when time is short (the deck marks it)
    heading, body : an activity slide's heading and text (the plan row's own words)
    notes : guide references (``"02-09#讨论题/2"``) shown in the presenter's view (:mod:`publish.deck.notes`)
    ask : guide references whose bold question the slide shows (a discussion question on screen; its answer
          goes to the presenter's notes)
    """

    kind: str
    name: str = ""
    minutes: float = 0.0
    skip: bool = False
    heading: str = ""
    body: str = ""
    notes: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in ("text", "figure", "vote", "live", "activity"):
            raise ValueError(f"slide kind {self.kind!r} is not one of text, figure, vote, live, activity")
        if (self.kind == "activity") != (self.name == "") or (self.name and not SLIDE_NAME.fullmatch(self.name)):
            raise ValueError(f"slide name {self.name!r} (kind {self.kind}): a slide of the notebooks is named "
                             "'NN-NN/slug' (its notebook, then lower-case words joined by '-'); an activity has no name")

    @property
    def notebook(self) -> str:
        return self.name.split("/", 1)[0]


@dataclass(frozen=True)
class SlideCells:
    """What the notebooks give a slide (:func:`publish.deck.build.slide_cells`).

    texts : markdown pieces shown first
    code : (nb, cell id) of the code cell whose committed image (figure) or live widget (vote, live) is shown
    setup : (nb, cell id) code cells that must run before ``code`` (their output is never shown)
    kwargs : keyword arguments the deck adds to the one call in ``code``
    heading : a short heading for slides without a markdown heading of their own
    """

    texts: tuple[Text, ...] = ()
    code: tuple[str, str] | None = None
    setup: tuple[tuple[str, str], ...] = ()
    kwargs: dict = field(default_factory=dict, hash=False, compare=False)
    heading: str = ""


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


def text(name: str, skip: bool = False, notes: tuple[str, ...] = ()) -> Slide:
    """A text slide: the markdown cells that carry ``name``."""
    return Slide("text", name, skip=skip, notes=tuple(notes))


def figure(name: str, skip: bool = False, notes: tuple[str, ...] = ()) -> Slide:
    """The committed image of the cell with role ``figure``, under the text of the slide's markdown cells."""
    return Slide("figure", name, skip=skip, notes=tuple(notes))


def vote(name: str, skip: bool = False) -> Slide:
    """A class vote: the prediction cell (role ``vote``) runs live (question and choices; the answer on a click)."""
    return Slide("vote", name, skip=skip)


def live(name: str, demo: float, skip: bool = False, notes: tuple[str, ...] = ()) -> Slide:
    """A live widget: the ``setup`` cells run first, then the ``live`` cell; ``demo``: the minutes of the demo."""
    return Slide("live", name, minutes=float(demo), skip=skip, notes=tuple(notes))


def activity(heading: str, body: str, minutes: float, notes: tuple[str, ...] = (), ask: tuple[str, ...] = ()) -> Slide:
    """A slide for work or discussion (the lab, the opening, the close): the plan row's own words; ``ask``: the
    guide's discussion questions it puts on screen (their answers in the notes)."""
    return Slide("activity", minutes=float(minutes), heading=heading, body=body, notes=tuple(notes), ask=tuple(ask))
