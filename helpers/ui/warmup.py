"""Retrieval warm-ups: a lesson opens by recalling earlier notebooks, from memory, then self-grades.

Recalling beats re-reading (retrieval practice), so each lesson notebook 2.2 ... 2.12 opens, after its
goals, with two questions on the notebook before it and one further back, asked blind (nothing above them
in the notebook gives the answer) and graded at once::

    H.recall_choice("2.5-w1", "（2.4）...？", ["...", "...", "..."])
    H.recall_number("2.5-w2", "（2.3）...？")

It is the predictions' machinery: the keys and explanations live in
:data:`helpers.ui.prediction_keys.WARMUP_KEYS` under ids ``"2.N-wK"`` (each names the section it
recalls), and the verdict is :func:`helpers.ui.predict.grade_choice` / :func:`~helpers.ui.predict.grade_number`.
What differs is what the learner is told: a warm-up has no reveal cell, so a wrong or skipped answer
points back to the section to re-read instead of to the next cell. The pure graders
:func:`grade_recall` and :func:`show_recall` are what tests call; the two widgets only draw them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .._validate import check_int, check_real, check_text
from .predict import NUMBER_PLACEHOLDER, Feedback, grade_choice, grade_number, number_example
from .prediction_keys import WARMUP_KEYS, WARMUP_QID, ChoiceKey, NumberKey, Recall

__all__ = ["grade_recall", "show_recall", "recall_choice", "recall_number"]


def _recall(qid, kind: type | tuple = (ChoiceKey, NumberKey)) -> Recall:
    """The warm-up key of ``qid`` (``"2.N-wK"``), checked to exist and to be of ``kind``."""
    if not WARMUP_QID.match(check_text("qid", qid)):
        raise ValueError(f"qid must be a warm-up id like '2.5-w1' (section 2.N, K-th warm-up question); got {qid!r}.")
    if qid not in WARMUP_KEYS:
        same = sorted(k for k in WARMUP_KEYS if k.split("-")[0] == qid.split("-")[0])
        raise ValueError(f"qid {qid!r} has no key in WARMUP_KEYS (helpers/ui/prediction_keys.py); that section has {same}.")
    rec = WARMUP_KEYS[qid]
    if not isinstance(rec.key, kind):
        want = "recall_choice" if isinstance(rec.key, ChoiceKey) else "recall_number"
        raise TypeError(f"qid {qid!r} is a {type(rec.key).__name__}; ask it with H.{want}.")
    return rec


def _shown(rec: Recall, options) -> str:
    """The right answer as the learner sees it: the key's option in 「」, or the number."""
    if isinstance(rec.key, NumberKey):
        return f"{rec.key.answer:g}"
    if options is None:
        raise TypeError("options must be the list of options the notebook shows (a choice question); got None.")
    grade_choice(None, rec.key.answer, options)          # checks options and that the key indexes them
    return f"「{options[rec.key.answer]}」"


def grade_recall(qid: str, answer, options: Sequence[str] | None = None) -> Feedback:
    """Grade the learner's answer to warm-up question ``qid``.

    Parameters
    ----------
    qid : str
        ``"2.N-wK"``, a key of :data:`~helpers.ui.prediction_keys.WARMUP_KEYS`.
    answer : int, float or None
        The index of the option picked (a choice question) or the number typed (a number question);
        ``None``: nothing given yet.
    options : sequence of str, optional
        The options the notebook shows; required for a choice question.

    Returns
    -------
    Feedback
        ``correct`` and a Chinese message: the verdict, where to re-read when wrong, then why.
    """
    rec = _recall(qid)
    shown = _shown(rec, options)
    if answer is not None:                              # named as the learner's answer, not as the grader's value
        answer = (check_int("answer", answer, 0, len(options) - 1, note=" (an index into options)")
                  if isinstance(rec.key, ChoiceKey) else check_real("answer", answer))
    if isinstance(rec.key, ChoiceKey):
        fb = grade_choice(answer, rec.key.answer, options)
        given = None if answer is None else f"「{options[answer]}」"
    else:
        fb = grade_number(answer, rec.key.answer, rel_tol=rec.key.rel_tol, abs_tol=rec.key.abs_tol)
        given = None if answer is None else f" {float(answer):g}"
    if given is None:                                   # not a verdict: nothing locks
        return Feedback(False, "还没有作答：先选一个选项或填一个数，再点「提交」。")
    if fb.correct:
        return Feedback(True, f"✅ 记对了：{shown}。\n解释：{rec.key.explanation}")
    return Feedback(False, f"❌ 你答了{given}，答案是 {shown}。课后回到 {rec.recalls} 节把这一点再读一遍。"
                           f"\n解释：{rec.key.explanation}")


def show_recall(qid: str, options: Sequence[str] | None = None) -> Feedback:
    """The feedback of the 「想不起来，看答案」 button: the answer, where to re-read, and why (no verdict)."""
    rec = _recall(qid)
    return Feedback(False, f"👀 答案是 {_shown(rec, options)}。课后回到 {rec.recalls} 节把这一点再读一遍。"
                           f"\n解释：{rec.key.explanation}")


def _show(qid: str, question: str, control, answer, options) -> None:
    """Draw question + control + the two buttons + feedback; lock once an answer or the key is shown."""
    import html

    import ipywidgets as widgets
    from IPython.display import display

    title = widgets.HTML(f"<b>🧠 热身：</b>{html.escape(question)}")
    submit = widgets.Button(description="提交", button_style="primary", icon="check")
    peek = widgets.Button(description="想不起来，看答案", icon="eye")
    out = widgets.HTML("")

    def finish(fb: Feedback) -> None:
        out.value = "<pre style='white-space: pre-wrap; font-size: 1.05em'>" + html.escape(fb.message) + "</pre>"
        if fb.message.startswith(("✅", "❌", "👀")):
            control.disabled = submit.disabled = peek.disabled = True

    submit.on_click(lambda _: finish(answer()))
    peek.on_click(lambda _: finish(show_recall(qid, options)))
    box = widgets.VBox([title, control, widgets.HBox([submit, peek]), out])
    box.add_class("warm-up-question")
    display(box)


def recall_choice(qid: str, question: str, options: Sequence[str]) -> None:
    """Show a multiple-choice warm-up question; its key is ``WARMUP_KEYS[qid]`` (see :func:`grade_recall`)."""
    import ipywidgets as widgets

    _recall(qid, ChoiceKey)
    check_text("question", question, nonempty=True)
    show_recall(qid, options)                           # checks the options against the key before drawing
    radio = widgets.RadioButtons(options=[(o, i) for i, o in enumerate(options)], value=None,
                                 layout=widgets.Layout(width="auto"))
    _show(qid, question, radio, lambda: grade_recall(qid, radio.value, options), options)


def recall_number(qid: str, question: str) -> None:
    """Show a numeric warm-up question; its key and tolerance are ``WARMUP_KEYS[qid]`` (see :func:`grade_recall`)."""
    import ipywidgets as widgets

    key = _recall(qid, NumberKey).key
    check_text("question", question, nonempty=True)
    box = widgets.Text(value="", placeholder=NUMBER_PLACEHOLDER, description="你的答案：",
                       style={"description_width": "initial"})

    def answer() -> Feedback:
        text = box.value.strip()
        try:
            value = float(text) if text else None
        except ValueError:
            return Feedback(False, f"「{text}」不是一个数字：请输入一个数，{number_example(key.answer)}。")
        if value is not None and not math.isfinite(value):
            return Feedback(False, f"「{text}」不是一个有限的数字。")
        return grade_recall(qid, value)

    _show(qid, question, box, answer, None)
