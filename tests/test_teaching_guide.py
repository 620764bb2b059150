"""The teacher's guide (docs/teaching/) stays in step with the notebooks.

- every notebook has its section file ``docs/teaching/02-NN.md`` with the required headings;
- every predict-then-run question a notebook asks is answered in its section (quoted exactly),
  and every question the section quotes is still asked by the notebook; the guide's answer is the
  hidden key of that question id (``helpers/ui/prediction_keys.py``);
- every 试一试 (try-it) cell's prompt line is quoted in the section's answers;
- a notebook with exercises has a 练习参考答案 section with a bold item naming each of its exercises;
- the index (README.md) links every section and its three session plans add up to 90 minutes.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from nbcells import cells as _cells, src as _src, tags as _tags
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "teaching"
NOTEBOOKS = series()
REQUIRED = ["## 学习目标", "## 核心路径与时间", "## 时间不够时跳过", "## 常见误解", "## 试一试 参考答案",
            "## 预测题答案", "## 讨论题"]
QUOTED = re.compile(r"「([^」]+)」")


def _section(path: Path) -> Path:
    return GUIDE / f"{path.name[:5]}.md"


def predict_questions(path: Path) -> list[str]:
    """The question text of every H.predict_choice / H.predict_number call."""
    return [q for _, q, _ in predictions(path)]


def predictions(path: Path) -> list[tuple[str, str, list[str] | None]]:
    """(question id, question, options or None) of every prediction: ``H.predict_choice(qid, question, options)``."""
    out = []
    for cell in _cells(path):
        if cell["cell_type"] != "code" or "predict_" not in _src(cell):
            continue
        tree = ast.parse(_src(cell))
        env = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in {
                    "predict_choice", "predict_number"}:
                args = [ast.literal_eval(env.get(a.id, a) if isinstance(a, ast.Name) else a) for a in node.args]
                out.append((args[0], args[1], args[2] if len(args) > 2 else None))
    return out


def try_it_prompts(path: Path) -> list[str]:
    """The first comment line of every cell tagged try-it."""
    prompts = []
    for cell in _cells(path):
        if "try-it" in _tags(cell):
            comments = [ln.strip() for ln in _src(cell).splitlines() if ln.strip().startswith("#")]
            assert comments, f"{path.name}: a try-it cell should open with a comment that says what to change"
            prompts.append(comments[0])
    return prompts


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_notebook_has_a_section_with_the_required_headings(path):
    section = _section(path)
    assert section.exists(), f"docs/teaching/{section.name} is missing for {path.name}"
    text = section.read_text(encoding="utf-8")
    for heading in REQUIRED:
        assert re.search(rf"^{re.escape(heading)}\s*$", text, re.M), f"{section.name}: missing heading {heading!r}"
    assert "English summary" in text or "*Summary" in text, f"{section.name}: needs a short English summary at the top"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_prediction_is_answered_and_every_answer_is_asked(path):
    text = _section(path).read_text(encoding="utf-8")
    answers = text.split("## 预测题答案", 1)[1].split("\n## ", 1)[0]
    asked = predict_questions(path)
    for q in asked:
        assert q in answers, f"{_section(path).name}: the prediction {q!r} of {path.name} has no answer"
    quoted = QUOTED.findall(answers)
    for q in quoted:
        assert q in asked, f"{_section(path).name} answers {q!r}, which {path.name} no longer asks"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_the_guides_answer_is_the_hidden_key(path):
    """The first bold text after a question in 预测题答案 names the key's option (or its number)."""
    from helpers.ui.prediction_keys import KEYS, ChoiceKey

    text = _section(path).read_text(encoding="utf-8")
    answers = text.split("## 预测题答案", 1)[1].split("\n## ", 1)[0]
    for qid, question, options in predictions(path):
        after = answers[answers.index(question) + len(question):] if question in answers else ""
        bold = re.search(r"\*\*(.+?)\*\*", after)
        assert bold, f"{_section(path).name}: no bold answer after {qid} ({question!r})"
        said, key = bold.group(1).strip(), KEYS[qid]
        if isinstance(key, ChoiceKey):
            right = options[key.answer]
            assert said and (said in right or right in said), \
                f"{_section(path).name}: the guide answers {qid} with {said!r}, the key is {right!r}"
        else:
            numbers = [float(x.replace(",", "")) for x in re.findall(r"-?\d[\d,]*(?:\.\d+)?", said)]
            assert float(key.answer) in numbers, f"{_section(path).name}: the guide answers {qid} with {said!r}, the key is {key.answer:g}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_every_try_it_is_answered(path):
    text = _section(path).read_text(encoding="utf-8")
    answers = text.split("## 试一试 参考答案", 1)[1].split("\n## ", 1)[0]
    for prompt in try_it_prompts(path):
        assert prompt in answers, f"{_section(path).name}: the try-it {prompt!r} of {path.name} has no answer"


#: The title an exercise cell sits under: a heading (``### 练习 2：…``, ``## 5. 迁移练习：…``) or a bold lead-in
#: (``**练习 1（打乱两次）.**``) whose text starts with the exercise's name. ``第 N 行``/``第 N 步`` title a step of a
#: faded derivation or example (2.5, 2.8), answered in the guide's own 渐隐 section, not in 练习参考答案.
EXERCISE_TITLE = re.compile(r"^(?:#+\s+(?:\d+\.\s*)?|\*\*)(练习 \d+|选读练习|迁移练习|综合练习（[一二三四]）|章末自测|第 \d+ [行步])",
                            re.M)
FADED_STEP = re.compile(r"第 \d+ [行步]")
ANSWER_TITLE = re.compile(r"^- \*\*(.+?)\*\*", re.M)


def exercise_names(path: Path) -> list[str]:
    """The name of every exercise-tagged code cell: the last exercise title in the markdown above it (None if none)."""
    names, title = [], None
    for cell in _cells(path):
        if cell["cell_type"] == "markdown":
            titles = EXERCISE_TITLE.findall(_src(cell))
            title = titles[-1] if titles else title
        elif cell["cell_type"] == "code" and "exercise" in _tags(cell):
            names.append(title)
    return names


def _names_exercise(answer_title: str, name: str) -> bool:
    return bool(re.search(rf"{re.escape(name)}(?!\d)", answer_title))


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if exercise_names(p)], ids=lambda p: p.name[:5])
def test_every_exercise_has_a_reference_answer(path):
    """A notebook with exercise cells: its guide has ``## 练习参考答案`` and, for every exercise the notebook names
    (练习 N, 选读练习, 迁移练习, …), an item whose bold title names it (练习 N by its number); the steps of a faded
    derivation are answered in the guide's 渐隐 section instead."""
    names = exercise_names(path)
    unnamed = names.count(None)
    assert not unnamed, f"{path.name}: {unnamed} exercise cell(s) under no 练习 / 选读练习 / 迁移练习 title"
    text = _section(path).read_text(encoding="utf-8")
    name = _section(path).name
    if any(FADED_STEP.fullmatch(n) for n in names):
        assert re.search(r"^## .*渐隐", text, re.M), f"{name}: {path.name} has a faded derivation but no 渐隐 section"
    assert re.search(r"^## 练习参考答案\s*$", text, re.M), f"{name}: no '## 练习参考答案' for the exercises of {path.name}"
    answers = text.split("\n## 练习参考答案", 1)[1].split("\n## ", 1)[0]
    titles = ANSWER_TITLE.findall(answers)
    for exercise in dict.fromkeys(n for n in names if not FADED_STEP.fullmatch(n)):
        assert any(_names_exercise(t, exercise) for t in titles), \
            f"{name}: 练习参考答案 has no item whose bold title names {exercise!r} of {path.name}"


def test_index_links_every_section_and_plans_add_up():
    index = (GUIDE / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOKS:
        assert f"({_section(path).name})" in index, f"docs/teaching/README.md does not link {_section(path).name}"
    plans = re.findall(r"^### (.+?)\n(.*?)(?=^### |^## |\Z)", index.split("## 课堂计划", 1)[1], re.M | re.S)
    assert len(plans) >= 3, "three session plans (two lectures, one lab) are expected"
    for title, body in plans[:3]:
        minutes = [int(m) for m in re.findall(r"^\|[^|\n]*\|[^|\n]*\|\s*(\d+)\s*\|", body, re.M)]
        assert sum(minutes) == 90, f"plan {title!r}: its minutes add up to {sum(minutes)}, not 90"


#: A printed line named in backticks or in 「」: "打印的 `…`", "打印成「…」", "`…` 一行", "把 `…` 与书并排打印".
_Q = r"(?:`([^`\n]+)`|「([^」\n]+)」)"
PRINTED_LINE = re.compile(rf"打印(?:的|成|出)\s*{_Q}|{_Q}\s*一行|把\s*{_Q}[^`「，。；\n]*打印")


def _flat(text: str) -> str:
    return re.sub(r"\s+|\$", "", text)


def test_a_printed_line_named_in_backticks_or_quotes_is_still_printed():
    # After the printed lines were translated (genuine slips -> 真正的笔误有…, exp(book's S') -> 对书上的 S' 取指数),
    # a guide or a notebook's prose that names a printed line in backticks pointed at words no cell prints any more.
    said, prose = "", [(p.name, p.read_text(encoding="utf-8")) for p in sorted(GUIDE.glob("*.md"))]
    for path in NOTEBOOKS:
        for cell in _cells(path):
            if cell["cell_type"] == "code":
                said += _src(cell) + "".join("".join(o.get("text", "")) for o in cell.get("outputs", []))
            else:
                prose.append((path.name, _src(cell)))
    said = _flat(said)
    # a quote that ends in … names the start of the line
    stale = [f"{name}: `{span}`" for name, text in prose for m in PRINTED_LINE.finditer(text)
             for span in [next(g for g in m.groups() if g)] if _flat(span.rstrip("…")) not in said]
    assert not stale, "\n".join(stale)
