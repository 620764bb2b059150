"""Predict-then-run questions: the learner commits to an answer before a cell reveals it.

A prediction cell shows the question and its choices, nothing else; the answer key and the
explanation are looked up by the question's id in :mod:`helpers.ui.prediction_keys`, out of
sight of the class::

    H.predict_choice(
        "2.5-q1",
        "把 d_k 从 16 加到 1024（不缩放），点积 q·k 的标准差大约变成原来的几倍？",
        ["几乎不变", "约 4 倍", "约 8 倍", "约 64 倍"],
    )

The cell is tagged ``predict`` and ``nbval-ignore-output``. The next code cell (the reveal)
runs the experiment blind (:mod:`helpers.ui.reveal`): what it prints or draws appears only once the
question is answered in this kernel, and the key is checked against it out of sight::

    with H.reveal("2.5-q1") as r:
        ...
        r.observed = <index of the option the computation shows>

Two pure graders (arguments in, :class:`Feedback` out) that tests call directly, and two small
widgets that only draw them:

- :func:`grade_choice` / :func:`predict_choice`   pick one of a few options
- :func:`grade_number` / :func:`predict_number`   type a number, graded with a tolerance

A prediction is *locked* once submitted (the button is disabled), so the learner cannot peek at
the next cell and change their mind; a second button shows the answer without a guess (and
locks too). The explanation appears only then, and so does the reveal's output: the kernel
remembers which questions are answered (:func:`is_answered`) and runs what a reveal left waiting
(:func:`when_answered`). That set is the one piece of state the predictions keep, per kernel.
Feedback is in Chinese, like the notebooks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from .._validate import check_int, check_real, check_text
from .prediction_keys import KEYS, QID, ChoiceKey, NumberKey

__all__ = ["Feedback", "KeyMismatch", "check_observed", "grade_choice", "grade_number", "is_answered",
           "predict_choice", "predict_number", "prediction_key", "prediction_explanation", "show_answer",
           "when_answered"]

# The questions answered in this kernel, and what waits for each (the reveals run before the vote).
_ANSWERED: set[str] = set()
_WAITING: dict[str, list] = {}


class KeyMismatch(AssertionError):
    """A reveal computed something other than its question's key (the key or the experiment is wrong)."""


class Feedback(NamedTuple):
    """The verdict on one prediction.

    Attributes
    ----------
    correct : bool
    message : str
        Chinese text shown to the learner: verdict, then the explanation.
    """

    correct: bool
    message: str


def _question(qid, kind: type) -> ChoiceKey | NumberKey:
    """The key of question ``qid`` (``"2.N-qK"``), checked to exist and to be of ``kind``."""
    if not QID.match(check_text("qid", qid)):
        raise ValueError(f"qid must be a question id like '2.5-q1' (section 2.N, K-th question); got {qid!r}.")
    if qid not in KEYS:
        same = sorted(k for k in KEYS if k.split("-")[0] == qid.split("-")[0])
        raise ValueError(f"qid {qid!r} has no answer key in helpers/ui/prediction_keys.py; keys of that section: {same}.")
    if not isinstance(KEYS[qid], kind):
        want = "predict_choice" if isinstance(KEYS[qid], ChoiceKey) else "predict_number"
        raise TypeError(f"qid {qid!r} is a {type(KEYS[qid]).__name__}; ask it with H.{want}.")
    return KEYS[qid]


def _options(options) -> list[str]:
    """The options of a choice question: at least 2 distinct non-empty strings."""
    if isinstance(options, str) or not isinstance(options, Sequence):
        raise TypeError(f"options must be a list of strings; got {type(options).__name__}.")
    opts = [check_text(f"options[{i}]", o, nonempty=True) for i, o in enumerate(options)]
    if len(opts) < 2 or len(set(opts)) != len(opts):
        raise ValueError(f"options must offer at least 2 distinct choices; got {opts}.")
    return opts


def _index(name: str, value, opts: list[str]) -> int:
    """``value`` as an index into ``opts``."""
    return check_int(name, value, 0, len(opts) - 1, note=" (an index into options)")


def prediction_key(qid: str) -> int | float:
    """The answer key of question ``qid``: the index of the right option, or the right number.

    The reveal cell asserts it against the computation, e.g.
    ``assert H.prediction_key("2.7-q1") == observed``.
    """
    return _question(qid, (ChoiceKey, NumberKey)).answer


def check_observed(qid: str, observed) -> None:
    """Check what a reveal computed against the key of ``qid``; raise :class:`KeyMismatch` if they differ.

    ``observed`` is the index of the option the computation shows (a choice question; an int) or the
    measured number (a numeric question; it must lie within the key's tolerance, as a prediction must).
    ``None`` (never set) is a ``ValueError``.
    """
    key = _question(qid, (ChoiceKey, NumberKey))
    if observed is None:
        raise ValueError(f"observed: the reveal of {qid} never set r.observed (set it inside the with block).")
    if isinstance(key, ChoiceKey):
        observed = check_int("observed", observed, 0, note=" (the index of the option the computation shows)")
        ok = observed == key.answer
    else:
        observed = check_real("observed", observed)
        ok = grade_number(observed, key.answer, rel_tol=key.rel_tol, abs_tol=key.abs_tol).correct
    if not ok:
        raise KeyMismatch(f"{qid}: the computation shows {observed!r}, the key in helpers/ui/prediction_keys.py "
                          f"says {key.answer!r}. Fix the key or the experiment.")


def is_answered(qid: str) -> bool:
    """Whether question ``qid`` was submitted (or its answer shown) in this kernel."""
    return check_text("qid", qid) in _ANSWERED


def when_answered(qid: str, action) -> None:
    """Run ``action()`` once ``qid`` is answered in this kernel: now if it already is."""
    if not callable(action):
        raise TypeError(f"action must be callable; got {type(action).__name__}.")
    if is_answered(qid):
        action()
    else:
        _WAITING.setdefault(qid, []).append(action)


def _mark_answered(qid: str) -> None:
    _ANSWERED.add(qid)
    for action in _WAITING.pop(qid, []):
        action()


def prediction_explanation(qid: str) -> str:
    """Why the key of question ``qid`` is right (Chinese); the widget shows it after an answer."""
    return _question(qid, (ChoiceKey, NumberKey)).explanation


def grade_choice(choice, answer: int, options: Sequence[str], explanation: str = "") -> Feedback:
    """Grade a multiple-choice prediction.

    Parameters
    ----------
    choice : int or None
        Index of the option the learner picked; ``None`` means nothing picked yet.
    answer : int
        Index of the right option.
    options : sequence of str, length >= 2
    explanation : str
        Why the right answer is right; shown after any submitted answer.

    Returns
    -------
    Feedback
    """
    opts = _options(options)
    answer = _index("answer", answer, opts)
    if choice is None:
        return Feedback(False, "还没有选择：先选一个选项，再点「提交预测」。")
    choice = _index("choice", choice, opts)
    tail = f"\n解释：{check_text('explanation', explanation)}" if explanation else ""
    if choice == answer:
        return Feedback(True, f"✅ 预测正确：「{opts[answer]}」。{tail}")
    return Feedback(False, f"❌ 你选了「{opts[choice]}」，正确答案是「{opts[answer]}」。{tail}")


def grade_number(value, answer: float, *, rel_tol: float = 0.1, abs_tol: float = 0.0, explanation: str = "") -> Feedback:
    """Grade a numeric prediction: right when ``|value - answer| <= max(rel_tol * |answer|, abs_tol)``.

    Parameters
    ----------
    value : float or None
        The learner's number; ``None`` means nothing entered yet.
    answer : float
    rel_tol, abs_tol : float, >= 0
        At least one must be positive.
    explanation : str

    Returns
    -------
    Feedback
    """
    answer = check_real("answer", answer)
    rel_tol, abs_tol = check_real("rel_tol", rel_tol, 0.0), check_real("abs_tol", abs_tol, 0.0)
    if rel_tol == 0 and abs_tol == 0:
        raise ValueError("rel_tol and abs_tol must not both be 0 (no answer but the exact one would count).")
    if value is None:
        return Feedback(False, "还没有输入数字：先填一个预测值，再点「提交预测」。")
    value = check_real("value", value)
    tail = f"\n解释：{check_text('explanation', explanation)}" if explanation else ""
    window = max(rel_tol * abs(answer), abs_tol)
    exact = is_exact(answer, rel_tol=rel_tol, abs_tol=abs_tol)
    if abs(value - answer) <= window:
        close = "正是答案" if exact else f"与答案 {answer:g} 足够接近"
        return Feedback(True, f"✅ 预测正确：{value:g} {close}。{tail}")
    direction = "偏大" if value > answer else "偏小"
    return Feedback(False, f"❌ 你的预测 {value:g} {direction}了，答案{'是' if exact else '约为'} {answer:g}。{tail}")


def is_exact(answer: float, *, rel_tol: float, abs_tol: float) -> bool:
    """True when ``answer`` is a whole number and no other whole number is within the tolerance (a count)."""
    return float(answer).is_integer() and max(rel_tol * abs(answer), abs_tol) < 1


#: What an empty number box says: neutral, no number in it (on a slide an example number read as a hint: the
#: placeholder 例如 3 of a vote whose answer was 4).
NUMBER_PLACEHOLDER = "填一个数"


def number_example(answer: float) -> str:
    """An example entry for the number box, of the answer's kind (a whole number for a whole-number answer),
    never the answer itself."""
    pool = (3, 5) if float(answer).is_integer() else (0.5, 0.25)
    return f"例如 {next(x for x in pool if x != answer):g}"


def show_answer(qid: str, options: Sequence[str] | None = None) -> Feedback:
    """The feedback of the 「直接看答案」 button: the key of ``qid`` and its explanation, no verdict.

    ``options`` (the options the notebook shows) is required for a choice question.
    """
    key = _question(qid, (ChoiceKey, NumberKey))
    if isinstance(key, ChoiceKey):
        opts = _options(options)
        shown = f"「{opts[_index('answer', key.answer, opts)]}」"
    else:
        shown = f"{key.answer:g}"
    return Feedback(False, f"👀 没有预测，直接看答案：{shown}。\n解释：{key.explanation}")


def _show(qid: str, question: str, control, grade, reveal):
    """Draw question + control + submit/show-answer buttons + feedback; lock once either is pressed."""
    import ipywidgets as widgets
    from IPython.display import display

    title = widgets.HTML(f"<b>🤔 先预测，再运行：</b>{_escape(question)}")
    button = widgets.Button(description="提交预测", button_style="primary", icon="check")
    peek = widgets.Button(description="不猜了，直接看答案", icon="eye")
    out = widgets.HTML("")

    def finish(fb: Feedback) -> None:
        out.value = "<pre style='white-space: pre-wrap; font-size: 1.05em'>" + _escape(fb.message) + "</pre>"
        if fb.message.startswith(("✅", "❌", "👀")):
            control.disabled = True
            button.disabled = True
            peek.disabled = True
            button.description = "已提交" if not fb.message.startswith("👀") else "已看答案"
            _mark_answered(qid)

    button.on_click(lambda _: finish(grade()))
    peek.on_click(lambda _: finish(reveal()))
    box = widgets.VBox([title, control, widgets.HBox([button, peek]), out])
    box.add_class("predict-question")
    display(box)
    return None


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def predict_choice(qid: str, question: str, options: Sequence[str]) -> None:
    """Show a multiple-choice prediction widget; its key is ``prediction_key(qid)`` (see :func:`grade_choice`).

    Parameters
    ----------
    qid : str
        The question id, ``"2.N-qK"`` (a key in :mod:`helpers.ui.prediction_keys`).
    question : str
    options : sequence of str, length >= 2
        The choices, in the order the key's index refers to.
    """
    import ipywidgets as widgets

    key = _question(qid, ChoiceKey)
    check_text("question", question, nonempty=True)
    opts = _options(options)
    answer = _index(f"the key of {qid}", key.answer, opts)
    radio = widgets.RadioButtons(options=[(o, i) for i, o in enumerate(opts)], value=None,
                                 layout=widgets.Layout(width="auto"))
    return _show(qid, question, radio, lambda: grade_choice(radio.value, answer, opts, key.explanation),
                 lambda: show_answer(qid, opts))


def predict_number(qid: str, question: str) -> None:
    """Show a numeric prediction widget; its key and tolerance are ``KEYS[qid]`` (see :func:`grade_number`).

    Parameters
    ----------
    qid : str
        The question id, ``"2.N-qK"`` (a key in :mod:`helpers.ui.prediction_keys`).
    question : str
    """
    import ipywidgets as widgets

    key = _question(qid, NumberKey)
    check_text("question", question, nonempty=True)
    tol = {"rel_tol": key.rel_tol, "abs_tol": key.abs_tol}
    grade_number(key.answer, key.answer, **tol)  # validates the key
    box = widgets.Text(value="", placeholder=NUMBER_PLACEHOLDER, description="你的预测：",
                       style={"description_width": "initial"})

    def grade() -> Feedback:
        text = box.value.strip()
        if not text:
            return grade_number(None, key.answer, **tol)
        try:
            value = float(text)
        except ValueError:
            return Feedback(False, f"「{text}」不是一个数字：请输入一个数，{number_example(key.answer)}。")
        if not math.isfinite(value):
            return Feedback(False, f"「{text}」不是一个有限的数字。")
        return grade_number(value, key.answer, explanation=key.explanation, **tol)

    return _show(qid, question, box, grade, lambda: show_answer(qid))
