"""The class-size rule for a deck's votes (publish.deck.slides.class_vote_minutes) and the 90 minutes it must fit.

The per-row check (a plan row lasts as long as its slides) and the guide's tables are tests/test_lecture.py.
"""

from __future__ import annotations

import math

import pytest

from publish.deck import DECKS, notebooks_dir
from publish.deck.build import slide_minutes
from publish.deck.slides import class_vote_minutes

NB = notebooks_dir()


def test_a_four_choice_vote_in_a_lecture_hall_takes_about_two_and_a_half_minutes():
    # 60 characters read at 120 a minute, 0.25 to think, 4 x (5 + 80/8) s of hands, 0.75 to reveal and explain.
    assert math.isclose(class_vote_minutes("问" * 40, ["甲" * 5] * 4, 80), 0.5 + 0.25 + 1.0 + 0.75)


def test_a_number_vote_hears_three_answers():
    assert math.isclose(class_vote_minutes("问" * 12, None, 80), 0.1 + 0.25 + 3 * 15 / 60 + 0.75)


def test_a_smaller_class_votes_faster():
    q, opts = "问" * 30, ["甲", "乙", "丙"]
    assert class_vote_minutes(q, opts, 20) < class_vote_minutes(q, opts, 80) < class_vote_minutes(q, opts, 200)
    assert math.isclose(class_vote_minutes(q, opts, 80) - class_vote_minutes(q, opts, 20), 3 * 60 * 0.125 / 60)


@pytest.mark.parametrize("args, error, name", [
    (("", ["a"], 80), TypeError, "question"), (("q", "ab", 80), TypeError, "options"),
    (("q", [1, 2], 80), TypeError, "options"), (("q", ["a"], 0), ValueError, "class_size"),
    (("q", ["a"], 80.0), ValueError, "class_size")])
def test_bad_input_is_named(args, error, name):
    with pytest.raises(error, match=name):
        class_vote_minutes(*args)


@pytest.mark.parametrize("key", list(DECKS))
def test_every_lecture_fits_ninety_minutes_by_the_rule(key):
    deck = DECKS[key]
    taught = sum(slide_minutes(s, NB) for s in deck.slides if not s.skip)
    assert taught <= 90, f"deck {key}: its slides take {taught:.1f} min by the rule (80 students), more than 90"
    assert taught >= 85, f"deck {key}: {taught:.1f} min: the plan leaves {90 - taught:.1f} of its 90 minutes empty"
