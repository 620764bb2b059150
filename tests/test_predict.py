"""The predict-then-run graders: pure functions, Chinese feedback, clear errors."""

import pytest

from helpers.ui.predict import grade_choice, grade_number

OPTS = ["不变", "变大约 4 倍", "变大约 16 倍"]


def test_choice_right_and_wrong():
    right = grade_choice(1, 1, OPTS, "因为 √16 = 4")
    assert right.correct and "✅" in right.message and "因为" in right.message
    wrong = grade_choice(2, 1, OPTS, "因为 √16 = 4")
    assert not wrong.correct and "❌" in wrong.message and OPTS[1] in wrong.message and OPTS[2] in wrong.message


def test_choice_nothing_picked_is_not_correct():
    fb = grade_choice(None, 0, OPTS)
    assert not fb.correct and "还没有" in fb.message


@pytest.mark.parametrize("bad, err", [(3, ValueError), (-1, ValueError), (True, TypeError), (1.0, TypeError)])
def test_choice_bad_index(bad, err):
    with pytest.raises(err, match="choice"):
        grade_choice(bad, 0, OPTS)


def test_choice_bad_options():
    with pytest.raises(ValueError, match="at least 2"):
        grade_choice(0, 0, ["only"])
    with pytest.raises(ValueError, match="distinct"):
        grade_choice(0, 0, ["a", "a"])
    with pytest.raises(TypeError, match="options"):
        grade_choice(0, 0, "ab")


def test_number_tolerance_both_sides():
    assert grade_number(1.05, 1.0, rel_tol=0.1).correct
    assert grade_number(0.95, 1.0, rel_tol=0.1).correct
    hi = grade_number(1.2, 1.0, rel_tol=0.1)
    lo = grade_number(0.8, 1.0, rel_tol=0.1)
    assert not hi.correct and "偏大" in hi.message
    assert not lo.correct and "偏小" in lo.message
    assert grade_number(0.004, 0.0, abs_tol=0.01).correct
    assert not grade_number(0.02, 0.0, abs_tol=0.01).correct


def test_number_bad_arguments():
    with pytest.raises(ValueError, match="rel_tol"):
        grade_number(1.0, 1.0, rel_tol=0.0, abs_tol=0.0)
    with pytest.raises(ValueError, match="value"):
        grade_number(float("nan"), 1.0)                # the right type, a wrong value
    with pytest.raises(TypeError, match="value"):
        grade_number("0.5", 1.0)
    assert not grade_number(None, 1.0).correct


def test_widgets_build_without_error():
    import helpers as H

    H.predict_choice("2.5-q1", "问题？", ["几乎不变", "约 4 倍", "约 8 倍", "约 64 倍"])
    H.predict_number("2.4-q2", "问题？")
    with pytest.raises(ValueError, match="the key of 2.5-q1"):
        H.predict_choice("2.5-q1", "问题？", OPTS[:2])     # the key (index 2) is not among 2 options


@pytest.mark.parametrize("qid, err, match", [
    ("2.5-q9", ValueError, "no answer key"), ("2.5", ValueError, "question id"), (5, TypeError, "qid must be a str"),
    ("2.4-q2", TypeError, "predict_number")])
def test_a_widget_needs_a_known_question_id_of_its_kind(qid, err, match):
    import helpers as H

    with pytest.raises(err, match=match):
        H.predict_choice(qid, "问题？", OPTS)


def test_the_key_and_explanation_come_from_the_id():
    import helpers as H
    from helpers.ui.predict import prediction_key
    from helpers.ui.prediction_keys import KEYS, ChoiceKey, NumberKey

    assert len(KEYS) >= 26
    for qid, key in KEYS.items():
        assert prediction_key(qid) == key.answer
        assert isinstance(key, (ChoiceKey, NumberKey)) and key.explanation.strip()
        if isinstance(key, NumberKey):
            assert grade_number(key.answer, key.answer, rel_tol=key.rel_tol, abs_tol=key.abs_tol).correct


def test_show_answer_gives_key_and_explanation_without_a_verdict():
    from helpers.ui.predict import prediction_explanation, show_answer

    fb = show_answer("2.5-q1", ["几乎不变", "约 4 倍", "约 8 倍", "约 64 倍"])
    assert not fb.correct and fb.message.startswith("👀") and "「约 8 倍」" in fb.message
    assert prediction_explanation("2.5-q1") in fb.message
    assert "168" in show_answer("2.4-q2").message
    with pytest.raises(TypeError, match="options"):
        show_answer("2.5-q1")                      # a choice question needs the options it shows


def test_an_exact_count_is_said_to_be_exact_and_an_estimate_approximate():
    # 4 rows with the default 10 % tolerance: only 4 itself is accepted, so the answer is a count, not an estimate.
    wrong = grade_number(5, 4, rel_tol=0.1)
    assert not wrong.correct and "答案是 4" in wrong.message and "约" not in wrong.message
    assert "正是答案" in grade_number(4, 4, rel_tol=0.1).message
    # 168 with 10 %: 160 is accepted too, so the message says "about".
    assert "答案约为 168" in grade_number(100, 168, rel_tol=0.1).message
    assert "足够接近" in grade_number(160, 168, rel_tol=0.1).message
    # A fractional answer is never "exact", whatever the tolerance.
    assert "约为" in grade_number(0.9, 0.5, abs_tol=0.01).message


def test_the_number_box_example_has_the_answers_kind_and_is_never_the_answer():
    from helpers.ui.predict import number_example
    from helpers.ui.prediction_keys import KEYS, WARMUP_KEYS, NumberKey

    keys = [k for k in KEYS.values() if isinstance(k, NumberKey)]
    keys += [r.key for r in WARMUP_KEYS.values() if isinstance(r.key, NumberKey)]
    assert any(k.answer == 3 for k in keys), "a key of 3 makes the 'never the answer' rule bite"
    for k in keys:
        example = float(number_example(k.answer).removeprefix("例如 "))
        assert example != k.answer
        assert example.is_integer() == float(k.answer).is_integer()


def test_an_empty_number_box_shows_no_number(monkeypatch):
    # The teacher's review of the decks: an empty number box said 例如 3 (or 0.5), read by a class as a hint (a vote
    # whose answer was 4 showed 3). Every number box, prediction and warm-up, says only what to type, in the deck font.
    import IPython.display
    import ipywidgets as widgets
    from fontTools.ttLib import TTFont

    import helpers as H
    from helpers.ui.prediction_keys import KEYS, WARMUP_KEYS, NumberKey
    from helpers.ui.warmup import recall_number
    from publish.deck.serve import SHARE

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: shown.extend(a))
    numbers = [q for q, k in KEYS.items() if isinstance(k, NumberKey)]
    warmups = [q for q, r in WARMUP_KEYS.items() if isinstance(r.key, NumberKey)]
    assert numbers and warmups
    for qid in numbers:
        H.predict_number(qid, "问题？")
    for qid in warmups:
        recall_number(qid, "问题？")
    boxes = [c for box in shown for c in box.children if isinstance(c, widgets.Text)]
    assert len(boxes) == len(numbers) + len(warmups)
    assert {b.placeholder for b in boxes} == {"填一个数"}
    cmap = TTFont(str(SHARE / "voila" / "templates" / "ch02-deck" / "static" / "NotoSansSC-ch02.otf")).getBestCmap()
    assert all(ord(ch) in cmap for ch in "填一个数")
