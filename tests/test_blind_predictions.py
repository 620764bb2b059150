"""Predictions are blind: nothing on the page gives a question's answer before the learner votes.

The mechanical giveaways, checked on the committed notebooks and on the student edition:

- a prediction cell shows its question id, question and choices, nothing else: no ``answer=`` or
  ``explanation=``, no key variable, no text of the explanation, not in the source nor in its
  saved output; the key lives in ``helpers/ui/prediction_keys.py`` under the question's id and
  every id asked has a key (and every key is asked, once);
- no markdown cell above a question (same notebook, anywhere before the question cell,
  the learning goals included) holds a clause of the explanation, a long stretch
  of it, or the key's option text;
- the reveal cell is the cell right after the question (no markdown "揭晓" in between that a
  class would read under the widget) and runs its experiment blind, ``with H.reveal(<id>) as r:``
  (``helpers.ui.reveal``), setting ``r.observed``; no notebook names ``prediction_key`` (the key
  check is inside the helper, out of the learner's view);
- what the committed reveal cell shows is only the placeholder: no stream, no image, no text under
  the question; the outputs it hides sit in the placeholder's metadata (for the static editions), with
  a digest in its text that matches them (so strict nbval still sees a changed hidden number);
- solution cells are committed with their outputs cleared and unrun, so "Run All" in the
  committed file never shows a transfer exercise's answer.

A fresh-eyes read still has to catch the rest (a paraphrase, a printed number that gives the
result away).
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import nbformat
import pytest
from nbcells import cells as _cells, src as _src, tags as _tags

from helpers.ui.prediction_keys import KEYS, QID, ChoiceKey, NumberKey
from helpers.ui.reveal import HIDDEN_KEY, placeholder_html, text_digest
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = series()
CALLS = {"predict_choice", "predict_number"}
# Punctuation, spaces and markup that a sentence may or may not carry in markdown vs a Python string.
NOISE = re.compile(r"[\s$\\{}*`'\"“”‘’「」()（）\[\],，.。:：;；!！?？、_^~|=<>-]+")
CLAUSE = re.compile(r"[^。；;！!？?\n]+")
MIN_CLAUSE = 8        # a clause of the explanation this long (normalised characters) must not appear above
MAX_SHARED = 12       # nor any stretch of the explanation longer than this
MIN_OPTION = 3        # the key's option text (or a part of it around "：") this long must not appear above


def norm(text: str) -> str:
    return NOISE.sub("", text).lower()


def longest_common_substring(a: str, b: str) -> int:
    best, prev = 0, [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        cur = [0] * (len(b) + 1)
        for j in range(1, len(b) + 1):
            if a[i - 1] == b[j - 1]:
                cur[j] = prev[j - 1] + 1
                best = max(best, cur[j])
        prev = cur
    return best


def _outputs_text(cell) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append("".join(out["text"]))
        for value in out.get("data", {}).values():
            parts.append("".join(value) if isinstance(value, list) else str(value))
    return "".join(parts)


def predictions(cells: list[dict]) -> list[dict]:
    """Every prediction cell: its index, the call's name, its literal arguments and keywords."""
    found = []
    for k, cell in enumerate(cells):
        if "predict" not in _tags(cell):
            continue
        calls = [n for n in ast.walk(ast.parse(_src(cell))) if isinstance(n, ast.Call)
                 and getattr(n.func, "attr", getattr(n.func, "id", "")) in CALLS]
        assert len(calls) == 1, f"cell {k}: a prediction cell asks exactly one question"
        call = calls[0]
        first = call.args[0] if call.args else None
        qid = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        found.append({"k": k, "kind": getattr(call.func, "attr", getattr(call.func, "id", "")), "qid": qid,
                      "n_args": len(call.args), "keywords": [kw.arg for kw in call.keywords], "cell": cell})
    return found


def _question_and_options(cell: dict) -> tuple[str, list[str] | None]:
    """The question text and (for a choice) the options, read from the cell's literal code."""
    tree = ast.parse(_src(cell))
    env = {t.id: ast.literal_eval(n.value) for n in tree.body if isinstance(n, ast.Assign)
           for t in n.targets if isinstance(t, ast.Name)}
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call)
                and getattr(n.func, "attr", getattr(n.func, "id", "")) in CALLS)
    value = [env[a.id] if isinstance(a, ast.Name) else ast.literal_eval(a) for a in call.args]
    return value[1], (value[2] if len(value) > 2 else None)


def _student_edition(tmp_path_factory) -> dict[str, Path]:
    from publish import student

    return {p.name: p for p in student.build(tmp_path_factory.mktemp("student"))}


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> dict[str, Path]:
    return _student_edition(tmp_path_factory)


# --------------------------------------------------------------------------- the mechanism


def test_every_question_has_a_key_and_every_key_is_asked_once():
    asked = []
    for path in NOTEBOOKS:
        section = f"2.{int(path.name[3:5])}-"
        for n, p in enumerate(predictions(_cells(path)), start=1):
            assert p["qid"] and QID.match(p["qid"]), f"{path.name} cell {p['k']}: the first argument is a question id like '2.5-q1'"
            assert p["qid"].startswith(section), f"{path.name} cell {p['k']}: {p['qid']} is not an id of section {section[:-1]}"
            assert p["qid"] == f"{section}q{n}", f"{path.name} cell {p['k']}: the {n}-th question should be {section}q{n}"
            kind = ChoiceKey if p["kind"] == "predict_choice" else NumberKey
            assert isinstance(KEYS.get(p["qid"]), kind), f"{path.name}: {p['qid']} has no {kind.__name__} in prediction_keys.py"
            asked.append(p["qid"])
    assert len(asked) == len(set(asked)), "a question id is asked twice"
    assert sorted(asked) == sorted(KEYS), f"keys that no notebook asks: {sorted(set(KEYS) - set(asked))}"


def test_every_choice_key_points_at_an_option():
    for path in NOTEBOOKS:
        for p in predictions(_cells(path)):
            _, options = _question_and_options(p["cell"])
            if options is not None:
                assert 0 <= KEYS[p["qid"]].answer < len(options), f"{p['qid']}: the key is not an index into its options"


# --------------------------------------------------------------------------- the prediction cell


def _assert_cell_is_blind(name: str, p: dict) -> None:
    cell, where = p["cell"], f"{name} cell {p['k']} ({p['qid']})"
    src = _src(cell)
    assert not {"answer", "explanation"} & set(p["keywords"]), f"{where}: the key or explanation is visible in the cell"
    assert p["n_args"] == (3 if p["kind"] == "predict_choice" else 2), \
        f"{where}: a prediction cell passes only the id, the question and (for a choice) the options"
    assert not re.search(r"\b\w*(ANSWER|_KEY)\w*\s*=|prediction_key|prediction_explanation|KEYS", src), \
        f"{where}: the prediction cell names its key"
    key = KEYS.get(p["qid"])
    if key is None:
        return
    for clause in CLAUSE.findall(key.explanation):
        if len(norm(clause)) >= MIN_CLAUSE:
            assert norm(clause) not in norm(src + _outputs_text(cell)), f"{where}: the explanation is in the cell: {clause!r}"
    if isinstance(key, NumberKey):
        numbers = {float(x) for x in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", src)}
        assert float(key.answer) not in numbers, f"{where}: the numeric key {key.answer:g} is written in the cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_prediction_cells_show_only_question_and_choices(path):
    for p in predictions(_cells(path)):
        _assert_cell_is_blind(path.name, p)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_student_edition_predictions_are_blind_too(student, path):
    cells = nbformat.read(student[path.name], as_version=4).cells
    found = predictions(cells)
    assert len(found) == len(predictions(_cells(path))), f"{path.name}: the student edition lost a prediction"
    for p in found:
        _assert_cell_is_blind(f"student {path.name}", p)


# --------------------------------------------------------------------------- around it


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_nothing_above_a_question_states_its_result(path):
    cells = _cells(path)
    for p in predictions(cells):
        key = KEYS[p["qid"]]
        _, options = _question_and_options(p["cell"])
        clauses = [norm(c) for c in CLAUSE.findall(key.explanation) if len(norm(c)) >= MIN_CLAUSE]
        option = options[key.answer] if options is not None else None
        option_parts = [norm(x) for x in ([option] + re.split(r"[：:]", option))] if option else []
        option_parts = [x for x in option_parts if len(x) >= MIN_OPTION and x not in norm(_question_and_options(p["cell"])[0])]
        for j, above in enumerate(cells[:p["k"]]):
            if above["cell_type"] != "markdown":
                continue
            text = norm(_src(above))
            where = f"{path.name} cell {j} (above {p['qid']}, cell {p['k']})"
            for clause in clauses:
                assert clause not in text, f"{where} states the explanation: {clause!r}"
            shared = longest_common_substring(norm(key.explanation), text)
            assert shared <= MAX_SHARED, f"{where} shares {shared} characters in a row with the explanation"
            for part in option_parts:
                assert part not in text, f"{where} states the key's option {option!r}"


def named_option_tests(src: str) -> list[str]:
    """Names standing alone as one option's test in ``[...].index(True)``, used by no other option's test.

    ``[False, rows_off, np.allclose(A0, A), ...].index(True)`` computed ``rows_off`` for one option only: its
    name (shown above the vote) says what the run finds. A name that every option's test reads, like ``tie`` in
    ``[a > b and not tie, b > a and not tie, tie]``, is a neutral quantity and passes.
    """
    found = []
    for node in ast.walk(ast.parse(src)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "index"
                and isinstance(node.func.value, ast.List)):
            continue
        tests = node.func.value.elts
        for k, test in enumerate(tests):
            if isinstance(test, ast.Name):
                others = {n.id for j, t in enumerate(tests) if j != k for n in ast.walk(t) if isinstance(n, ast.Name)}
                if test.id not in others:
                    found.append(test.id)
    return found


def reveal_problems(name: str, cells: list[dict], p: dict) -> list[str]:
    """Why the cell after prediction ``p`` is not a blind reveal of it (empty: it is one)."""
    where = f"{name} cell {p['k'] + 1} (the reveal of {p['qid']})"
    nxt = cells[p["k"] + 1] if p["k"] + 1 < len(cells) else None
    if nxt is None or nxt["cell_type"] != "code":
        return [f"{where}: the reveal code cell must come right after the question (markdown under the widget "
                "is read before the vote)"]
    problems = []
    if not re.search(rf"^\s*with H\.reveal\(\"{re.escape(p['qid'])}\"\) as r:", _src(nxt), re.M):
        problems.append(f"{where}: does not run its experiment blind, `with H.reveal({p['qid']!r}) as r:`")
    if "r.observed" not in _src(nxt):
        problems.append(f"{where}: never sets r.observed (the key check)")
    for name in named_option_tests(_src(nxt)):
        problems.append(f"{where}: option test {name!r} is a name of its own (its name states what the run found, "
                        "above the vote); write the condition itself in the list")
    placeholders = 0
    for out in nxt.get("outputs", []):
        hidden = out.get("metadata", {}).get(HIDDEN_KEY)
        data = out.get("data", {})
        if out.get("output_type") != "display_data" or hidden is None or set(data) != {"text/html"}:
            problems.append(f"{where}: a saved output shows the result under the question: {out.get('output_type')} "
                            f"{sorted(data)}")
            continue
        placeholders += 1
        shown = "".join(data["text/html"]) if isinstance(data["text/html"], list) else data["text/html"]
        if hidden.get("qid") != p["qid"] or shown != placeholder_html(p["qid"], text_digest(hidden["outputs"])):
            problems.append(f"{where}: the placeholder is not the one of its hidden outputs (stale digest?)")
    if nxt.get("execution_count") is not None and placeholders != 1:
        problems.append(f"{where}: a run reveal shows exactly one placeholder; it shows {placeholders}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_reveal_is_the_next_cell_and_blind(path):
    cells = _cells(path)
    problems = [x for p in predictions(cells) for x in reveal_problems(path.name, cells, p)]
    if path.name.startswith("02-13") and not any(c.get("outputs") for c in cells if c["cell_type"] == "code"):
        pytest.fail(f"{path.name} is committed unrun")
    assert not problems, "\n".join(problems)
    code = "\n".join(_src(c) for c in cells if c["cell_type"] == "code")
    assert "prediction_key" not in code, f"{path.name}: the key check belongs inside H.reveal, out of the learner's view"


def test_the_reveal_check_catches_a_saved_result_and_an_open_reveal():
    question = {"cell_type": "code", "metadata": {"tags": ["predict"]}, "outputs": [],
                "source": 'H.predict_choice("2.5-q1", "q?", ["a", "b", "c", "d"])'}
    p = predictions([question])[0]
    hidden = [{"output_type": "stream", "name": "stdout", "text": "ratio 8.0\n"}]
    good = {"cell_type": "code", "execution_count": 3, "source": 'with H.reveal("2.5-q1") as r:\n    r.observed = 2',
            "outputs": [{"output_type": "display_data", "data": {"text/html": placeholder_html("2.5-q1", text_digest(hidden))},
                         "metadata": {HIDDEN_KEY: {"qid": "2.5-q1", "outputs": hidden}}}]}
    assert reveal_problems("fake", [question, good], p) == []
    shown = dict(good, outputs=hidden)
    assert any("shows the result" in x for x in reveal_problems("fake", [question, shown], p))
    stale = dict(good, outputs=[dict(good["outputs"][0], metadata={HIDDEN_KEY: {"qid": "2.5-q1", "outputs": [
        dict(hidden[0], text="ratio 9.0\n")]}})])
    assert any("stale digest" in x for x in reveal_problems("fake", [question, stale], p))
    old = dict(good, source='observed = 2\nassert H.prediction_key("2.5-q1") == observed')
    assert any("blind" in x for x in reveal_problems("fake", [question, old], p))
    named = dict(good, source='with H.reveal("2.5-q1") as r:\n    rows_off = s != 1\n'
                              '    r.observed = [False, rows_off, s == 1, s != s].index(True)')
    assert any("'rows_off'" in x for x in reveal_problems("fake", [question, named], p))
    shared = dict(good, source='with H.reveal("2.5-q1") as r:\n    tie = a == b\n'
                               '    r.observed = [a > b and not tie, b > a and not tie, tie, False].index(True)')
    assert reveal_problems("fake", [question, shared], p) == []


def test_the_build_reads_the_hidden_outputs_under_the_helpers_key():
    from publish.notebooks import REVEAL_KEY, hidden_outputs

    assert REVEAL_KEY == HIDDEN_KEY
    out = {"output_type": "display_data", "data": {}, "metadata": {HIDDEN_KEY: {"qid": "2.5-q1", "outputs": [1]}}}
    assert hidden_outputs(out) == [1] and hidden_outputs({"output_type": "stream", "text": "x"}) is None


# --------------------------------------------------------------------------- solutions


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_solution_cells_are_committed_without_outputs(path):
    for k, cell in enumerate(_cells(path)):
        if "solution" in _tags(cell):
            assert cell.get("outputs") == [], f"{path.name} cell {k}: a solution cell was committed with its output"
            assert cell.get("execution_count") is None, f"{path.name} cell {k}: a solution cell was committed as run"


# --------------------------------------------------------------------------- the test can fail


def test_the_checks_catch_a_visible_key():
    cell = {"cell_type": "code", "metadata": {"tags": ["predict"]}, "outputs": [],
            "source": 'H.predict_choice("2.5-q1", "q?", ["a", "b", "c", "d"], answer=2, explanation="x")'}
    with pytest.raises(AssertionError, match="visible"):
        _assert_cell_is_blind("fake", predictions([cell])[0])
    leaked = dict(cell, source='H.predict_choice("2.5-q1", "q?", ["a", "b", "c", "d"])\n# ' + KEYS["2.5-q1"].explanation)
    with pytest.raises(AssertionError, match="explanation is in the cell"):
        _assert_cell_is_blind("fake", predictions([leaked])[0])
    number = dict(cell, source='Q_ANSWER = 168\nH.predict_number("2.4-q2", "q?")')
    with pytest.raises(AssertionError, match="names its key"):
        _assert_cell_is_blind("fake", predictions([number])[0])


def test_the_shared_stretch_measure():
    assert longest_common_substring(norm("所以新输入不再是原输入的一个排列"), norm("所以输入不再是原输入的一个排列。")) == 13
    assert longest_common_substring("abc", "xyz") == 0


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_student_edition_reveals_are_blind_too(student, path):
    cells = [dict(c) for c in nbformat.read(student[path.name], as_version=4).cells]
    problems = [x for p in predictions(cells) for x in reveal_problems(f"student {path.name}", cells, p)]
    assert not problems, "\n".join(problems)


def test_the_web_edition_folds_each_reveal_into_a_closed_answer_box():
    from publish.web import stage_notebook

    path = next(p for p in NOTEBOOKS if p.name.startswith("02-06"))
    nb = nbformat.read(path, as_version=4)
    staged, _ = stage_notebook(nb, path.name, lite="lite/index.html")
    found = 0
    for p in predictions([dict(c) for c in staged.cells]):
        reveal = staged.cells[p["k"] + 1]
        for out in reveal.outputs:
            assert out.output_type == "display_data" and set(out.data) == {"text/html", "text/plain"}
            box = out.data["text/html"]
            assert box.startswith('<details class="reveal-answer"><summary>看答案') and "<details open" not in box
            committed = next(c for c in nb.cells if c.get("id") == reveal.get("id"))
            hidden = committed.outputs[0].metadata[HIDDEN_KEY]["outputs"]
            for h in hidden:
                if h["output_type"] == "stream":
                    assert html.escape(h["text"].splitlines()[0]) in box
                else:
                    assert h["data"]["image/png"].strip()[:200] in box
            found += 1
    assert found == 2, "02-06 asks two questions, each with one reveal"
