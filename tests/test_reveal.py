"""Blind reveals (helpers.ui.reveal): the pure parts, the key check, and both paths of the context manager."""

from __future__ import annotations

import base64

import pytest

import helpers as H
from helpers.ui import predict, reveal as R
from helpers.ui.prediction_keys import KEYS, ChoiceKey, NumberKey

CHOICE = next(q for q, k in KEYS.items() if isinstance(k, ChoiceKey))
NUMBER = next(q for q, k in KEYS.items() if isinstance(k, NumberKey))
PNG = base64.b64encode(b"\x89PNG fake bytes").decode()
OUTS = [{"output_type": "stream", "name": "stdout", "text": "ratio = 8.01\n"},
        {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure size 900x360 with 2 Axes>"},
         "metadata": {"image/png": {"width": 900, "height": 360}}}]


@pytest.fixture
def fresh_kernel_state(monkeypatch):
    """A kernel in which no question has been answered yet."""
    monkeypatch.setattr(predict, "_ANSWERED", set())
    monkeypatch.setattr(predict, "_WAITING", {})


def test_the_digest_changes_with_any_hidden_number_and_ignores_image_bytes():
    d = R.text_digest(OUTS)
    assert len(d) == R.DIGEST_CHARS and int(d, 16) >= 0
    changed = [dict(OUTS[0], text="ratio = 8.02\n"), OUTS[1]]
    assert R.text_digest(changed) != d
    other_png = [OUTS[0], {**OUTS[1], "data": {**OUTS[1]["data"], "image/png": base64.b64encode(b"other").decode()}}]
    assert R.text_digest(other_png) == d
    assert R.text_digest([dict(OUTS[0], name="stderr")]) != R.text_digest([OUTS[0]])   # a warning is not a print
    assert R.text_digest([]) != d
    with pytest.raises(TypeError, match="outputs"):
        R.text_digest("ratio = 8.01")


def test_the_placeholder_shows_no_result_only_the_question_and_the_digest():
    d = R.text_digest(OUTS)
    html = R.placeholder_html(CHOICE, d)
    assert CHOICE in html and f"校验 {d}" in html and "不猜了，直接看答案" in html
    assert "8.01" not in html and "Figure" not in html and "img" not in html
    with pytest.raises(TypeError, match="qid"):
        R.placeholder_html(3, d)


def test_the_revealed_html_holds_every_output_in_order():
    html = R.revealed_html(OUTS + [{"output_type": "stream", "name": "stderr", "text": "<warn>"}])
    assert html.index("ratio = 8.01") < html.index(f"data:image/png;base64,{PNG}") < html.index("&lt;warn&gt;")
    assert "width='900'" in html


def test_the_key_check_accepts_the_key_and_names_a_mismatch():
    key = KEYS[CHOICE].answer
    predict.check_observed(CHOICE, key)
    with pytest.raises(predict.KeyMismatch, match=f"{CHOICE}: the computation shows {(key + 1) % 2}"):
        predict.check_observed(CHOICE, (key + 1) % 2)
    with pytest.raises(ValueError, match="never set r.observed"):
        predict.check_observed(CHOICE, None)
    with pytest.raises(TypeError, match="observed"):
        predict.check_observed(CHOICE, float(key))         # an index, not a float
    number = KEYS[NUMBER]
    predict.check_observed(NUMBER, number.answer)
    tol = max(number.rel_tol * abs(number.answer), number.abs_tol)
    with pytest.raises(predict.KeyMismatch):
        predict.check_observed(NUMBER, number.answer + 2 * tol + 1)
    with pytest.raises(ValueError, match="no answer key"):
        predict.check_observed("2.5-q9", 0)


def test_an_unanswered_reveal_prints_nothing_and_runs_when_answered(fresh_kernel_state, capsys):
    shown = []
    predict.when_answered(CHOICE, lambda: shown.append("now"))
    assert shown == [] and not predict.is_answered(CHOICE)
    with H.reveal(CHOICE) as r:
        print("the hidden result 123.456")
        r.observed = KEYS[CHOICE].answer
    out = capsys.readouterr().out
    assert "123.456" not in out and "运行结果先藏着" in out     # outside a kernel the placeholder is printed
    predict._mark_answered(CHOICE)
    assert shown == ["now"] and predict.is_answered(CHOICE)


def test_an_answered_question_shows_its_reveal_at_once(fresh_kernel_state, capsys):
    predict._mark_answered(CHOICE)
    later = []
    predict.when_answered(CHOICE, lambda: later.append(1))
    assert later == [1]
    with H.reveal(CHOICE) as r:
        print("the hidden result 123.456")
        r.observed = KEYS[CHOICE].answer
    out = capsys.readouterr().out
    assert "123.456" in out and "运行结果先藏着" not in out


def test_a_wrong_observed_fails_the_cell_and_an_error_inside_shows_what_was_printed(fresh_kernel_state, capsys):
    with pytest.raises(predict.KeyMismatch):
        with H.reveal(CHOICE) as r:
            r.observed = (KEYS[CHOICE].answer + 1) % 2
    with pytest.raises(ZeroDivisionError):
        with H.reveal(CHOICE):
            print("before the error")
            1 / 0
    assert "before the error" in capsys.readouterr().out
    with pytest.raises(ValueError, match="no answer key"):
        H.reveal("2.5-q9")
    with pytest.raises(TypeError, match="action"):
        predict.when_answered(CHOICE, "not callable")


def test_in_a_kernel_the_placeholder_hides_the_outputs_until_the_vote_replaces_it(tmp_path):
    """Run All in a real kernel: the reveal shows only its placeholder (its outputs in the metadata); the
    prediction's callback (here called directly, as the widget's button does) swaps the result in by its
    display id; a reveal run after the vote shows its output at once."""
    import nbformat

    from publish.notebooks import execute

    qid, key = CHOICE, KEYS[CHOICE].answer
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in [
        "import helpers as H\nimport matplotlib.pyplot as plt\nH.use_style()",
        f"with H.reveal({qid!r}) as r:\n    print('hidden 4.2')\n    plt.plot([0, 1]); plt.title('t'); plt.show()\n"
        f"    r.observed = {key}",
        f"from helpers.ui.predict import _mark_answered\n_mark_answered({qid!r})",
        f"with H.reveal({qid!r}) as r:\n    print('shown 7.3')\n    r.observed = {key}",
    ]]
    before = nbformat.v4.new_notebook(cells=nb.cells[:2])
    execute(before, tmp_path)
    (placeholder,) = before.cells[1].outputs
    assert set(placeholder.data) == {"text/html"} and "hidden 4.2" not in placeholder.data["text/html"]
    hidden = placeholder.metadata[R.HIDDEN_KEY]
    assert hidden["qid"] == qid and [o["output_type"] for o in hidden["outputs"]] == ["stream", "display_data"]
    assert "image/png" in hidden["outputs"][1]["data"] and R.text_digest(hidden["outputs"]) in placeholder.data["text/html"]
    execute(nb, tmp_path)
    (updated,) = nb.cells[1].outputs
    assert "hidden 4.2" in updated.data["text/html"] and "data:image/png;base64," in updated.data["text/html"]
    assert [o.get("text") for o in nb.cells[3].outputs] == ["shown 7.3\n"]
