"""Lecture mode: a live deck per plan of the teacher's guide, built from the notebooks at run time.

    python -m publish deck            # list the decks
    python -m publish deck 1          # serve lecture 1 on 127.0.0.1 and open it (--port P, --no-browser)

:mod:`publish.deck.decks` is the manifest (slides -> notebook cell ids), :mod:`publish.deck.build`
builds the deck notebook and times it, :mod:`publish.deck.serve` starts Voila with the
``ch02-deck`` template that ships in this package (``templates/``).
"""

from .build import build_notebook, notebooks_dir, plan_markdown, row_minutes, schedule, schedule_markdown, slide_minutes
from .decks import DECKS
from .slides import FIGURE_MIN, READING_CHARS_PER_MIN, VOTE_MIN

__all__ = ["DECKS", "FIGURE_MIN", "READING_CHARS_PER_MIN", "VOTE_MIN", "build_notebook", "notebooks_dir",
           "plan_markdown", "row_minutes", "schedule", "schedule_markdown", "slide_minutes"]
