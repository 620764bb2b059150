"""Predict-then-run questions: the learner commits to an answer before a cell reveals it.

Two pure graders (arguments in, :class:`Feedback` out) that tests call directly, and two
small widgets that only draw them:

- :func:`grade_choice` / :func:`predict_choice`   pick one of a few options
- :func:`grade_number` / :func:`predict_number`   type a number, graded with a tolerance

A prediction is *locked* once submitted (the button is disabled), so the learner cannot
peek at the next cell and change their mind. Feedback is in Chinese, like the notebooks.

Usage in a notebook (the cell is tagged ``predict`` and ``nbval-ignore-output``)::

    H.predict_choice(
        "把 d_k 从 16 加到 256，未缩放分数的标准差会怎样？",
        ["不变", "变大约 4 倍", "变大约 16 倍"],
        answer=1,
        explanation="Var(q·k) = d_k，标准差是 √d_k：√256 / √16 = 4。",
    )

The next code cell runs the experiment and prints what happens.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import NamedTuple

from ..core._validate import check_int_in_range

__all__ = ["Feedback", "grade_choice", "grade_number", "predict_choice", "predict_number"]


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


def _check_text(name: str, value) -> str:
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name} must be a non-empty string; got {type(value).__name__} {value!r}.")
    return value


def _check_options(options) -> list[str]:
    if isinstance(options, str) or not isinstance(options, Sequence):
        raise TypeError(f"options must be a list of strings; got {type(options).__name__}.")
    opts = [_check_text(f"options[{i}]", o) for i, o in enumerate(options)]
    if len(opts) < 2:
        raise ValueError(f"options must offer at least 2 choices; got {len(opts)}.")
    if len(set(opts)) != len(opts):
        raise ValueError(f"options must be distinct; got {opts}.")
    return opts


def _check_index(name: str, value, n: int) -> int:
    return check_int_in_range(name, value, 0, n - 1, note=" (an index into options)")


def _check_real(name: str, value, *, allow_none: bool = False) -> float | None:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise TypeError(f"{name} must be a finite real number; got {type(value).__name__} {value!r}.")
    return float(value)


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
    opts = _check_options(options)
    answer = _check_index("answer", answer, len(opts))
    if choice is None:
        return Feedback(False, "还没有选择：先选一个选项，再点「提交预测」。")
    choice = _check_index("choice", choice, len(opts))
    tail = f"\n解释：{explanation}" if explanation else ""
    if choice == answer:
        return Feedback(True, f"✅ 预测正确：「{opts[answer]}」。{tail}")
    return Feedback(False, f"❌ 你选了「{opts[choice]}」，正确答案是「{opts[answer]}」。运行下一格看看实际发生了什么。{tail}")


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
    answer = _check_real("answer", answer)
    rel_tol = _check_real("rel_tol", rel_tol)
    abs_tol = _check_real("abs_tol", abs_tol)
    if rel_tol < 0 or abs_tol < 0 or (rel_tol == 0 and abs_tol == 0):
        raise ValueError(f"rel_tol and abs_tol must be >= 0 and not both 0; got rel_tol={rel_tol}, abs_tol={abs_tol}.")
    if value is None:
        return Feedback(False, "还没有输入数字：先填一个预测值，再点「提交预测」。")
    value = _check_real("value", value)
    tail = f"\n解释：{explanation}" if explanation else ""
    if abs(value - answer) <= max(rel_tol * abs(answer), abs_tol):
        return Feedback(True, f"✅ 预测正确：{value:g} 与答案 {answer:g} 足够接近。{tail}")
    direction = "偏大" if value > answer else "偏小"
    return Feedback(False, f"❌ 你的预测 {value:g} {direction}了，答案约为 {answer:g}。运行下一格看看实际发生了什么。{tail}")


def _show(question: str, control, grade):
    """Draw question + control + submit button + feedback; lock the control once submitted."""
    import ipywidgets as widgets
    from IPython.display import display

    title = widgets.HTML(f"<b>🤔 先预测，再运行：</b>{_escape(question)}")
    button = widgets.Button(description="提交预测", button_style="primary", icon="check")
    out = widgets.HTML("")

    def on_click(_):
        fb = grade()
        out.value = "<pre style='white-space: pre-wrap; font-size: 1.05em'>" + _escape(fb.message) + "</pre>"
        if fb.message.startswith(("✅", "❌")):
            control.disabled = True
            button.disabled = True
            button.description = "已提交"

    button.on_click(on_click)
    box = widgets.VBox([title, control, button, out])
    box.add_class("predict-question")
    display(box)
    return None


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def predict_choice(question: str, options: Sequence[str], answer: int, explanation: str) -> None:
    """Show a multiple-choice prediction widget (see :func:`grade_choice`)."""
    import ipywidgets as widgets

    _check_text("question", question)
    _check_text("explanation", explanation)
    opts = _check_options(options)
    answer = _check_index("answer", answer, len(opts))
    radio = widgets.RadioButtons(options=[(o, i) for i, o in enumerate(opts)], value=None,
                                 layout=widgets.Layout(width="auto"))
    return _show(question, radio, lambda: grade_choice(radio.value, answer, opts, explanation))


def predict_number(question: str, answer: float, *, explanation: str, rel_tol: float = 0.1, abs_tol: float = 0.0) -> None:
    """Show a numeric prediction widget (see :func:`grade_number`)."""
    import ipywidgets as widgets

    _check_text("question", question)
    _check_text("explanation", explanation)
    grade_number(answer, answer, rel_tol=rel_tol, abs_tol=abs_tol)  # validates the arguments
    box = widgets.Text(value="", placeholder="例如 0.5", description="你的预测：",
                       style={"description_width": "initial"})

    def grade() -> Feedback:
        text = box.value.strip()
        if not text:
            return grade_number(None, answer, rel_tol=rel_tol, abs_tol=abs_tol)
        try:
            value = float(text)
        except ValueError:
            return Feedback(False, f"「{text}」不是一个数字：请输入例如 0.5 或 1e-3。")
        if not math.isfinite(value):
            return Feedback(False, f"「{text}」不是一个有限的数字。")
        return grade_number(value, answer, rel_tol=rel_tol, abs_tol=abs_tol, explanation=explanation)

    return _show(question, box, grade)
