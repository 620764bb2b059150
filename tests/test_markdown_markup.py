"""Every notebook's markdown renders without leftover markup, in both renderers that show it outside JupyterLab.

The web edition parses markdown with MyST (markdown-it-py, CommonMark's delimiter rules, with the
settings of publish/templates/web/conf.py); the lecture decks and the feedback pages with nbconvert's
mistune. CommonMark closes ``**`` only where the delimiter is right-flanking, so a Chinese sentence
with emphasis ending on full-width punctuation (``**……（illustrative）**数字``) shows its asterisks;
a ``$$`` inside a paragraph that the parser does not take for maths shifts every later ``$`` of the
paragraph. These tests read the notebooks' markdown directly (no site is built): each cell is
rendered, and the prose of the result (outside code and maths) is checked by the web build's own
check, publish.web.prose_markup.
"""

from __future__ import annotations

import ast
import dataclasses
import html

import nbformat
import pytest

from publish import web
from publish.notebooks import series

NOTEBOOKS = series()


def _markdown_cells(path):
    return [(k, cell.source) for k, cell in enumerate(nbformat.read(path, as_version=4).cells)
            if cell.cell_type == "markdown"]


def _conf_settings() -> dict:
    """The ``myst_*`` settings of the web edition's conf.py, read from the file (literal assignments)."""
    tree = ast.parse((web.TEMPLATES / "conf.py").read_text(encoding="utf-8"))
    return {node.targets[0].id[len("myst_"):]: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.startswith("myst_")}


@pytest.fixture(scope="module")
def myst():
    """A markdown-it parser configured as the web edition's MyST: with conf.py's myst_* settings."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    fields = {f.name for f in dataclasses.fields(MdParserConfig)}
    settings = _conf_settings()
    assert {"enable_extensions", "dmath_double_inline"} <= set(settings) <= fields, settings
    settings["enable_extensions"] = set(settings["enable_extensions"])
    return create_md_parser(MdParserConfig(**settings), RendererHTML)


def _mistune(source: str) -> str:
    """nbconvert's markdown rendering (the decks' and the feedback pages'), its maths marked as maths."""
    from nbconvert.filters.markdown_mistune import IPythonRenderer, MarkdownWithMath

    class MathMarked(IPythonRenderer):
        def block_math(self, body):
            return f'<div class="math">{html.escape(body)}</div>'

        def inline_math(self, body):
            return f'<span class="math">{html.escape(body)}</span>'

        def latex_environment(self, name, body):
            return self.block_math(body)

    return MarkdownWithMath(renderer=MathMarked(escape=False)).render(source)


def _text_tokens(tokens):
    for token in tokens:
        if token.children:
            yield from _text_tokens(token.children)
        elif token.type == "text":
            yield token.content


@pytest.mark.editions
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_myst_reads_every_delimiter_as_markup(myst, path):
    """No ``**``/``__``/``$``/backtick/TeX command is left as text by MyST's parser (the web edition)."""
    left = []
    for k, source in _markdown_cells(path):
        left += [f"cell {k}: {t!r}" for t in _text_tokens(myst.parse(source)) if web.PROSE_MARKUP.search(t)]
        left += [f"cell {k}: {found}" for found in web.prose_markup(myst.render(source))]
    assert not left, f"{path.name}: MyST leaves markup as text:\n" + "\n".join(left)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name[:5])
def test_mistune_reads_every_delimiter_as_markup(path):
    """The same for nbconvert's mistune (the lecture decks, the nbgrader feedback pages)."""
    left = [f"cell {k}: {found}" for k, source in _markdown_cells(path) for found in web.prose_markup(_mistune(source))]
    assert not left, f"{path.name}: nbconvert's markdown leaves markup as text:\n" + "\n".join(left)


# The broken forms this file exists for, as they were in 2.1 and 2.5 (and as a guide page had them).
BROKEN = {
    "emphasis closing after full-width punctuation": "下面这一行是**我们自己编的、纯示意的（illustrative）**数字：",
    "underscore emphasis after full-width punctuation": "这是__示意的（illustrative）__数字",
    "unclosed code span": "运行 `python -m publish deck 1 即可",
    "TeX outside maths": "因子 \\frac{1}{\\sqrt{d_k}} 乘在分数上",
}


@pytest.mark.editions
@pytest.mark.parametrize("form", BROKEN)
def test_the_broken_forms_are_caught(myst, form):
    source = BROKEN[form]
    assert web.prose_markup(myst.render(source)), f"MyST: {form} not caught"
    assert web.prose_markup(_mistune(source)), f"mistune: {form} not caught"


@pytest.mark.editions
def test_double_dollar_inside_a_paragraph(myst):
    """2.5's form: MyST (with conf.py's settings) reads a $$ inside a paragraph as display maths, as
    Jupyter does; MyST's default does not, and the check sees the prose it garbles."""
    from markdown_it.renderer import RendererHTML
    from myst_parser.config.main import MdParserConfig
    from myst_parser.parsers.mdit import create_md_parser

    source = "分数可以写成\n$$\\frac{\\|q\\|}{\\sqrt{d_k}}\\; z_j$$\n因子 $\\|q\\|/\\sqrt{d_k}$ **乘**在分数上，和 $1/\\tau$ 一样。"
    assert not web.prose_markup(myst.render(source))
    default = create_md_parser(MdParserConfig(enable_extensions=set(_conf_settings()["enable_extensions"])),
                               RendererHTML)
    assert web.prose_markup(default.render(source))
