"""Lecture mode: a live deck per plan of the teacher's guide, built from the notebooks at run time.

    python -m publish deck            # list the decks
    python -m publish deck 1          # serve lecture 1 on 127.0.0.1 and open it (--port P, --no-browser)

:mod:`publish.deck.decks` is the manifest (each plan's rows and slides, by name: ``"02-05/explorer"``;
no cell ids), :mod:`publish.deck.slides` the types, the timing rule and the cell metadata that puts a
cell on a slide (``metadata["slides"] = {"02-05/explorer": {"role": "live", ...}}``: the slide is
named on its cells, so a cell that moves or gets a new id keeps its slide, and one that is deleted,
loses its entry or no longer has the blocks it names fails the build naming the deck and the slide),
:mod:`publish.deck.build` finds a deck's cells, builds the deck notebook and times it,
:mod:`publish.deck.serve` starts Voila with the ``ch02-deck`` template that ships in the build
package (``publish/share/jupyter/voila/templates/ch02-deck``).
"""

from .build import (build_notebook, check_deck, notebooks_dir, plan_markdown, row_minutes, schedule, schedule_markdown,
                    slide_minutes)
from .decks import DECKS
from .slides import CLASS_SIZE, FIGURE_MIN, READING_CHARS_PER_MIN, VOTE_MIN, DeckError, class_vote_minutes

__all__ = ["DECKS", "CLASS_SIZE", "FIGURE_MIN", "READING_CHARS_PER_MIN", "VOTE_MIN", "DeckError", "class_vote_minutes",
           "build_notebook", "check_deck",
           "notebooks_dir", "plan_markdown", "row_minutes", "schedule", "schedule_markdown", "slide_minutes"]
