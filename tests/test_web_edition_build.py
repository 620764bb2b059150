"""The web edition's build output, without a browser (publish/web.py).

The site is built once per run by the maintainer's command, widget stills and all (the ``web_edition``
fixture in tests/conftest.py, shared with tests/browser/test_web_edition.py, which opens its pages in
Chromium at phone width). The stills are also tested on their own: the renderer on a hand-made widget
state, and the kernel path on a tiny notebook that displays a slider and an image.
"""

from __future__ import annotations

import base64
import html
import json
import re
import urllib.parse
from pathlib import Path

import nbformat
import pytest
from publish.notebooks import series

pytestmark = pytest.mark.editions

ROOT = Path(__file__).resolve().parents[1]
from publish import web, web_stills as ww  # noqa: E402

SERIES = [p.name for p in series()]
GUIDE = sorted(p.stem for p in (ROOT / "docs" / "teaching").glob("*.md"))
LITE = "https://school.example/lite/lab/index.html"
LOADS_REMOTE = re.compile(r"""<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=\s*["'](?:https?:)?//""", re.I)


@pytest.fixture(scope="module")
def site(web_edition) -> Path:
    out, stdout = web_edition  # built once per run (tests/conftest.py), shared with the browser test
    assert f"{len(SERIES)} notebook pages" in stdout
    return out


def test_a_page_per_notebook_with_its_notebook_beside_it(site):
    for name in SERIES:
        page = site / "notebooks" / f"{name[:-6]}.html"
        assert page.is_file(), f"no page for {name}"
        assert (site / "notebooks" / name).read_bytes() == (ROOT / "notebooks" / name).read_bytes(), \
            f"the .ipynb beside the page of {name} is not the committed notebook"
        text = page.read_text(encoding="utf-8")
        assert f'class="ipynb-link" href="{name}"' in text
        lite = web.lite_href(web.DEFAULT_LITE_URL, name, depth=1)
        assert f'class="lite-link" href="{lite}"' in text, f"{name}: no link to the browser edition"
        assert "VBox(children" not in text and "widget-view+json" not in text, f"{name}: a raw widget output is left"


def test_a_page_is_described_by_its_english_abstract_shown_last(site):
    for name in SERIES:
        last = nbformat.read(ROOT / "notebooks" / name, as_version=4).cells[-1].source
        body = last.split("\n\n", 1)[1]                       # after the '## English abstract' heading
        text = (site / "notebooks" / f"{name[:-6]}.html").read_text(encoding="utf-8")
        head, article = text.split("</head>", 1)
        metas = re.findall(r'<meta\b[^>]*\bname="description"[^>]*>', head)
        assert len(metas) == 1 and 'lang="en"' in metas[0], f"{name}: {metas}"
        said = html.unescape(re.search(r'\bcontent="([^"]*)"', metas[0]).group(1))
        assert re.findall(r"[A-Za-z]+", said) == re.findall(r"[A-Za-z]+", body), f"{name}: the description is not its abstract"
        assert not re.search(r"\*|`|\$|\n", said), f"{name}: Markdown left in the description: {said[:120]!r}"
        sections = re.findall(r'<section id="([^"]+)"', article)
        assert sections[-1] == "english-abstract", f"{name}: the abstract is not the page's last section ({sections[-3:]})"
        assert article.count("<h2>English abstract<") == 1, f"{name}: the abstract's heading is not shown once"


def test_home_page_is_the_index(site):
    home = (site / "index.html").read_text(encoding="utf-8")
    assert f'url=notebooks/{SERIES[0][:-6]}.html' in home
    assert SERIES[0].startswith("02-00-index")


def test_teachers_guide_is_a_section(site):
    for stem in GUIDE:
        assert (site / "docs" / "teaching" / f"{stem}.html").is_file(), f"no page for docs/teaching/{stem}.md"
    index = (site / "notebooks" / f"{SERIES[0][:-6]}.html").read_text(encoding="utf-8")
    assert "../docs/teaching/README.html" in index, "the navigation does not link the teacher's guide"


def test_previous_next_follow_the_series(site):
    for prev, here, nxt in zip(SERIES, SERIES[1:], SERIES[2:]):
        text = (site / "notebooks" / f"{here[:-6]}.html").read_text(encoding="utf-8")
        assert re.search(rf'<link rel="next"[^>]*href="{re.escape(nxt[:-6])}\.html"', text), f"next of {here}"
        assert re.search(rf'<link rel="prev"[^>]*href="{re.escape(prev[:-6])}\.html"', text), f"prev of {here}"


def test_search_index_holds_chinese_words(site):
    raw = (site / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(raw[raw.index("(") + 1: raw.rindex(")")])
    docs = index["docnames"]
    assert set(docs) >= {f"notebooks/{n[:-6]}" for n in SERIES} | {f"docs/teaching/{g}" for g in GUIDE}
    chinese = [t for t in index["terms"] if re.fullmatch(r"[\u4e00-\u9fff]{2,}", t)]
    assert len(chinese) > 500, f"only {len(chinese)} Chinese words indexed: is jieba splitting the text?"
    hits = []  # the word's pages: from the text and from the titles (Sphinx keeps them apart)
    for table in ("terms", "titleterms"):
        found = index[table].get("掩码", [])
        hits += [found] if isinstance(found, int) else found
    assert f"notebooks/{'02-10-causal-mask'}" in {docs[i] for i in hits}, "the word 掩码 (mask) does not find 2.10"


def test_everything_is_served_by_the_site(site):
    assert (site / "_static" / "mathjax" / "MathJax.js").is_file()
    remote = []
    for f in site.rglob("*.html"):
        remote += [f"{f.relative_to(site)}: {m.group(0)[:120]}" for m in LOADS_REMOTE.finditer(f.read_text(encoding="utf-8"))]
    for f in site.rglob("*.css"):
        remote += [f"{f.relative_to(site)}: {m}" for m in re.findall(r"url\(\s*['\"]?(?:https?:)?//[^)]*\)", f.read_text(encoding="utf-8"))]
    assert not remote, "the site loads resources from other hosts:\n" + "\n".join(remote[:10])
    pages = (site / "notebooks" / "02-05-scaling-by-sqrt-dk.html").read_text(encoding="utf-8")
    assert "../_static/mathjax/MathJax.js" in pages and "require.min.js" not in pages and "embed-amd" not in pages


def test_the_sphinx_project_is_the_templates_as_they_are(tmp_path):
    """conf.py, search-zh.js and the style sheet are copied from publish/templates/web/ unchanged; conf.py reads
    its one parameter (the home page) from web-edition.json, so the template itself is plain Python."""
    web.stage(tmp_path / "src", lite_url=LITE, jobs=1, stills=False, log=lambda *_: None)
    src = tmp_path / "src"
    for name, copied in (("conf.py", src / "conf.py"), ("search-zh.js", src / "search-zh.js"),
                         ("web-edition.css", src / "_static" / "web-edition.css")):
        assert copied.read_bytes() == (web.TEMPLATES / name).read_bytes(), name
    root_doc = json.loads((src / "web-edition.json").read_text(encoding="utf-8"))["root_doc"]
    assert (src / f"{root_doc}.ipynb").is_file(), f"root_doc {root_doc} is not a staged page"


def test_the_site_shows_the_maths_and_emphasis_that_jupyter_shows(site):
    """2.5's $$ inside a paragraph is display maths (MyST's default read it as text and garbled the
    paragraph); 2.1's emphasis before a full-width parenthesis is bold, not asterisks."""
    nb05 = (site / "notebooks" / "02-05-scaling-by-sqrt-dk.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="math[^"]*">\s*\\\[\\frac\{q\\cdot k_j\}', nb05), "2.5's scaled score is not display maths"
    assert re.search(r"<strong>乘</strong>在分数上", nb05)
    nb01 = (site / "notebooks" / "02-01-contextual-representations.html").read_text(encoding="utf-8")
    assert "<strong>我们自己编的、纯示意的</strong>" in nb01
    assert not web.pages_with_markup(site)


# What the prose check must catch: each form as MyST rendered it (2.1, 2.5, the guide's raw HTML).
PLANTED = {
    "emphasis left open": "<p>下面这一行是**我们自己编的、纯示意的（illustrative）**数字：</p>",
    "underscore emphasis left open": "<p>这是__示意的（illustrative）__数字</p>",
    "a $$ read as text": ('<p>写成\n$<span class="math notranslate nohighlight">\\(\\frac{q}{\\sqrt{d_k}}\\)</span>'
                          '<span class="math notranslate nohighlight">\\(\n因子 \\)</span>|q|/\\sqrt{d_k}</p>'),
    "TeX outside maths": "<p>因子 \\frac{1}{2} 乘在分数上</p>",
    "a stray maths delimiter": "<p>因子 \\(x 乘在分数上</p>",
    "a code span left open": "<p>运行 `python -m publish deck 1 即可</p>",
    "Markdown inside raw HTML": "<details><summary>第几分钟（`python -m publish deck 1 --schedule`）</summary></details>",
}
CLEAN = ('<html><head><title>a $ b</title><script>var x = "**" + `t`;</script></head><body>'
         '<p>写成</p><div class="math notranslate nohighlight">\\[\\frac{q\\cdot k_j}{\\sqrt{d_k}}\\]</div>'
         '<p>因子 <span class="math notranslate nohighlight">\\(\\|q\\|/\\sqrt{d_k}\\)</span> <strong>乘</strong>在'
         '分数上<br>运行 <code class="docutils literal"><span class="pre">x[&quot;**&quot;]</span></code></p>'
         '<pre>print(f"${a}__{b}`")</pre><summary>（<code>python -m publish deck 1</code>）</summary>'
         '<div class="widget-still"><div class="still-box"><b>🤔 先预测，再运行：</b>`didn&#x27;t` 会被切成几个 token？</div></div>'
         '</body></html>')


@pytest.mark.parametrize("form", PLANTED)
def test_the_build_fails_on_markup_left_in_prose(tmp_path, form):
    """Each planted form is found on its page; the same page without it passes (code, pre, maths, the head,
    scripts and a widget's still -- the widget's own text, as JupyterLab shows it -- are not prose)."""
    assert web.prose_markup(CLEAN) == []
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ok.html").write_text(CLEAN, encoding="utf-8")
    (tmp_path / "notebooks" / "bad.html").write_text(CLEAN.replace("</body>", PLANTED[form] + "</body>"), encoding="utf-8")
    found = web.pages_with_markup(tmp_path)
    assert found and all(f.startswith("notebooks/bad.html: ") for f in found), found


def test_lite_links():
    assert web.lite_href("../lite/lab/index.html", "02-05-x.ipynb", depth=1) == "../../lite/lab/index.html?path=02-05-x.ipynb"
    assert web.lite_href("/lite/lab/index.html", "a.ipynb", depth=1) == "/lite/lab/index.html?path=a.ipynb"
    assert web.lite_href("https://h/lab/?x=1", "a.ipynb", depth=3) == "https://h/lab/?x=1&path=a.ipynb"


def test_feedback_wraps_tables_scroll():
    """A self-check's Chinese sentences wrap on a phone; a printed table keeps its columns."""
    def cell(text):
        c = nbformat.v4.new_code_cell("x")
        c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        return c

    feedback = "❌ check_worked_example_row(row=2)：第 1/2 个用例（A[2, :]，查询 2 的权重）不对：提示（hint）：对第 r 个查询，分数是它与四个键的点积\n"
    table = "entry                  book book chain    exact  correct  cause of the difference\n" + "A[1,2] 0.449 0.449 0.44858 yes\n"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# t"), cell(feedback), cell(table), cell(feedback + table)]
    page, _ = web.stage_notebook(nb, "t.ipynb", lite="L")
    tagged = [web.WRAP_TAG in c.metadata.get("tags", []) for c in page.cells if c.cell_type == "code"]
    assert tagged == [True, False, False]
    css = web.CSS_FILE.read_text(encoding="utf-8")
    assert f".tag_{web.WRAP_TAG} .cell_output pre" in css and "pre-wrap" in css


# --------------------------------------------------------------------------- widget stills

PNG_1PX = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")


def _model(name, **state):
    return {"model_name": name, "model_module": "@jupyter-widgets/controls", "state": state}


def test_still_draws_the_first_view_from_widget_state():
    state = {
        "box": _model("VBoxModel", children=["IPY_MODEL_s", "IPY_MODEL_img", "IPY_MODEL_r", "IPY_MODEL_b", "IPY_MODEL_secret",
                                             "IPY_MODEL_menu"]),
        "s": _model("SelectionSliderModel", description="d_k", index=2, _options_labels=["1", "2", "4", "8"]),
        "img": {**_model("ImageModel", format="jpeg"),
                "buffers": [{"path": ["value"], "data": base64.b64encode(PNG_1PX).decode(), "encoding": "base64"}]},
        "r": _model("RadioButtonsModel", _options_labels=["几乎不变", "约 8 倍"], index=None),
        "b": _model("ButtonModel", description="提交预测"),
        "secret": _model("HTMLModel", value="the answer", layout="IPY_MODEL_hidden"),
        "hidden": _model("LayoutModel", display="none"),
        "menu": _model("DropdownModel", description="层", index=3, _options_labels=[f"第 {n} 层" for n in range(1, 7)]),
    }
    nb = nbformat.v4.new_notebook()
    nb.metadata["widgets"] = {ww.STATE_MIME: {"state": state, "version_major": 2, "version_minor": 0}}
    html = ww.widget_still_html(nb, "box")
    assert 'data:image/jpeg;base64,' + base64.b64encode(PNG_1PX).decode() in html
    assert "d_k" in html and ">4<" in html
    assert "几乎不变" in html and "约 8 倍" in html and "●" not in html  # nothing chosen yet
    assert "the answer" not in html, "a hidden widget (layout.display = none) is drawn"
    # a dropdown as it first appears: closed on its chosen option, the others not listed
    assert re.search(r'<span class="still-label">层</span> <span class="still-field">第 4 层 ▾</span>', html)
    assert "第 3 层" not in html and "第 5 层" not in html
    assert re.search(r'<span class="still-button" aria-disabled="true"[^>]*>提交预测</span>', html), \
        "a button's still must not pass for a button a reader can tap"
    assert re.search(r"\.still-button \{[^}]*cursor: not-allowed", web.CSS_FILE.read_text(encoding="utf-8"))
    assert ww.widget_still_html(nb, "missing") == ""


def test_stills_come_from_a_kernel_run_of_the_notebook(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# t"),
        nbformat.v4.new_code_cell("import base64, ipywidgets as w\n"
                                  f"png = base64.b64decode({base64.b64encode(PNG_1PX).decode()!r})\n"
                                  "w.VBox([w.IntSlider(value=7, description='t'), w.Image(value=png, format='png')])"),
        nbformat.v4.new_code_cell("print('after the last widget')"),
    ]
    nb.cells[1].outputs = [nbformat.v4.new_output("display_data", {ww.WIDGET_MIME: {"model_id": "old"}, "text/plain": "VBox()"})]
    path = tmp_path / "nb" / "t.ipynb"
    path.parent.mkdir()
    nbformat.write(nb, path)
    run = ww.run_for_widget_state(path, timeout=120)
    assert len(run.cells) == 2, "cells after the last widget cell must not run"
    page, n = web.stage_notebook(nb, "t.ipynb", lite="L?path=t.ipynb", executed=run)
    assert n == 1
    html = next(o["data"]["text/html"] for c in page.cells if c.cell_type == "code" for o in c.outputs)
    assert "data:image/png;base64," in html and ">7<" in html and 'href="L?path=t.ipynb"' in html
    assert not list(path.parent.glob("*.json")) and sorted(p.name for p in path.parent.iterdir()) == ["t.ipynb"]


def test_every_local_link_and_asset_exists(site):
    """Every href/src of every page resolves to a file of the site (the browser edition aside), and every
    ``#fragment`` to an id in its page (a cross-reference Sphinx could not resolve becomes ``href="#../…"``)."""
    missing = set()
    ids: dict[Path, set[str]] = {}

    def has_id(page: Path, frag: str) -> bool:
        if page not in ids:
            ids[page] = set(re.findall(r"""(?<![\w-])id\s*=\s*["']([^"']+)["']""", page.read_text(encoding="utf-8")))
        return urllib.parse.unquote(html.unescape(frag)) in ids[page]

    for page in site.rglob("*.html"):
        for ref in re.findall(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""", page.read_text(encoding="utf-8")):
            if re.match(r"^(?:[a-z][a-z0-9+.-]*:|//)", ref, re.I) or "/lite/lab/" in ref:
                continue
            file, _, frag = ref.partition("#")
            target = (page.parent / file.split("?")[0]).resolve() if file else page
            if not target.exists():
                missing.add(f"{page.relative_to(site)} -> {ref}")
            elif frag and target.suffix == ".html" and not has_id(target, frag):
                missing.add(f"{page.relative_to(site)} -> {ref} (no such id)")
    assert not missing, "links to files or anchors the site does not have:\n" + "\n".join(sorted(missing)[:20])


def test_the_site_ships_the_decks_chinese_face_with_every_character_it_shows(site):
    """A reader's machine may have no CJK font: the site's stylesheet names a font of the site, the decks' Noto Sans
    SC face, holding every CJK character and full-width form of its pages and scripts (found here, not by the build's
    own ``web.site_chinese``)."""
    from fontTools.ttLib import TTFont

    from publish.deck.font import OUT as DECK_FONT

    font_file = site / "_static" / web.ZH_FONT_FILE
    assert font_file.read_bytes()[:4] == b"wOFF", "the site's font is not a WOFF file"
    shipped = TTFont(str(font_file))
    assert shipped["name"].getDebugName(1) == TTFont(str(DECK_FONT))["name"].getDebugName(1) == "Noto Sans CJK SC"
    shown = {c for f in site.rglob("*") if f.suffix in {".html", ".js"} and "mathjax" not in f.parts
             for c in f.read_text(encoding="utf-8") if 0x3000 <= ord(c) <= 0x9FFF or 0xFF00 <= ord(c) <= 0xFFEF}
    assert {"掩", "码", "缩", "饱", "阈", "，"} <= shown, "the site's Chinese was not found in its pages"
    lacking = {c for c in shown if ord(c) not in shipped.getBestCmap()}
    assert not lacking, f"characters the site shows and its font lacks: {''.join(sorted(lacking))}"
    css = (site / "_static" / "web-edition.css").read_text(encoding="utf-8")
    assert f'url("{web.ZH_FONT_FILE}")' in css
    for var in ("base", "heading", "monospace"):  # the theme's three font stacks end with it
        assert re.search(rf'--pst-font-family-{var}:[^;]*, "CH02 Noto Sans SC";', css), var
    # Each page preloads the very URL the stylesheet asks for (a ?v= on one of them would fetch the font twice).
    for page in [site / "notebooks" / f"{SERIES[0][:-6]}.html", site / "docs" / "teaching" / "README.html"]:
        hrefs = re.findall(r'<link as="font"[^>]*rel="preload"[^>]*href="([^"]+)"', page.read_text(encoding="utf-8"))
        assert [(page.parent / h).resolve() for h in hrefs] == [(site / "_static" / web.ZH_FONT_FILE).resolve()], hrefs


def test_a_guides_link_to_a_repository_file_the_site_lacks_becomes_its_path():
    guide = ("实测见 [benchmarks/results.md](../../benchmarks/results.md#graded-lab)。"
             "先读 [2.5 的指南](02-05-scaling-by-sqrt-dk.md) 和 [笔记本](../../notebooks/02-05-scaling-by-sqrt-dk.ipynb)，"
             "再看 [MyST](https://mystmd.org/guide) 与 [说明](../../README.md)；"
             "代码 `[x](../../README.md)` 和图 ![图](../../docs/img/deck-explorer.png) 照旧。\n"
             "```\n[y](../../README.md)\n```\n")
    assert web.off_site_links_as_paths(guide) == (
        "实测见 `benchmarks/results.md`（项目仓库里的文件，网页版不含）。"
        "先读 [2.5 的指南](02-05-scaling-by-sqrt-dk.md) 和 [笔记本](../../notebooks/02-05-scaling-by-sqrt-dk.ipynb)，"
        "再看 [MyST](https://mystmd.org/guide) 与 说明（`README.md`，项目仓库里的文件，网页版不含）；"
        "代码 `[x](../../README.md)` 和图 ![图](../../docs/img/deck-explorer.png) 照旧。\n"
        "```\n[y](../../README.md)\n```\n")
    with pytest.raises(SystemExit, match="leaves the repository"):
        web.off_site_links_as_paths("[x](../../../../etc/hosts)")


def test_student_site_has_no_solutions_and_no_guide(tmp_path):
    """The student site's Sphinx project (what Sphinx renders) and its .ipynb downloads hold no solution code and
    no teacher's guide. Checked on the staged project, not a second Sphinx build: Sphinx renders only what is
    staged, and the full site's build is tested above (``site``)."""
    info = web.stage(tmp_path / "src", lite_url=web.DEFAULT_LITE_URL, jobs=1, stills=False, student=True,
                     log=lambda *_: None)
    assert info["notebooks"] == len(SERIES)
    solution_names = set()
    for name in SERIES:
        nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
        for cell in nb.cells:
            if "solution" in cell.metadata.get("tags", []):
                solution_names |= set(re.findall(r"def (\w+_solution)\b", cell.source))
    assert solution_names, "the series has solution cells defining *_solution functions"
    for name in SERIES:
        page = (tmp_path / "src" / "notebooks" / name).read_text(encoding="utf-8")
        download = nbformat.writes(web.student_notebook(nbformat.read(ROOT / "notebooks" / name, as_version=4)))
        for text, what in ((page, "page"), (download, ".ipynb download")):
            leaked = {s for s in solution_names if f"def {s}" in text}
            assert not leaked, f"student {what} of {name} shows solution code: {sorted(leaked)[:3]}"
    teaching = tmp_path / "src" / "docs" / "teaching"
    assert not list(teaching.glob("02-*.md")), "the student site carries the teacher's guide"
    assert "教师指南" not in (tmp_path / "src" / "notebooks" / SERIES[0]).read_text(encoding="utf-8").split("toctree")[-1]


def test_a_still_points_where_its_widget_can_run(site):
    """A still's note sends the reader to the browser edition, except on a page whose widgets need what the browser
    edition does not ship (2.13's model weights): there it sends them to a local install."""
    def notes(name):
        text = (site / "notebooks" / f"{name[:-6]}.html").read_text(encoding="utf-8")
        return re.findall(r'<p class="widget-still-note">(.*?)</p>', text, re.S)

    for name in SERIES:
        found = notes(name)
        if name in web.LOCAL_ONLY:
            assert found and all("lite-link" not in n and "JupyterLab" in n for n in found), (name, found)
        else:
            assert all("lite-link" in n for n in found), (name, found)
    assert notes("02-05-scaling-by-sqrt-dk.ipynb"), "the 2.5 explorer's still has a note"
