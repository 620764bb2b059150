"""Build the web edition: ``python -m publish web OUT_DIR [--lite-url URL]``.

A static HTML site of the whole series, for reading on any device (a phone included), built
by Sphinx + MyST-NB + sphinx-book-theme from the **committed, executed** notebooks (their
saved outputs are shown; no notebook is re-executed to make a page) and from the teacher's
guide in ``docs/teaching/``:

- every notebook is a page (prose, maths, figures, printed outputs; solution code folded);
  02-00 (the index) is the home page, the teacher's guide a section after the notebooks;
  previous/next links follow the series' order;
- each notebook page links to its ``.ipynb`` (shipped beside the page) and to the same
  notebook in the browser edition (JupyterLite: ``<lite-url>?path=<notebook>``);
- a notebook's English abstract (its last cell, ``publish.notebooks.abstract``) is also its page's
  ``<meta name="description" lang="en">``, as plain text (see ``description``);
- the search finds Chinese words (``html_search_language = "zh"``; jieba splits the text);
- everything is served by the site itself: MathJax 2.7 (from ``jupyter-server-mathjax``),
  the theme's fonts and scripts; no CDN (MyST-NB's require.js / widget-manager URLs are
  switched off) -- the build fails if a page would load anything from another host;
- the build also fails if a page's prose still shows Markdown or TeX markup (``**``, ``$``, ``\\frac``,
  a backtick ...) once rendered: see ``prose_markup``;
- the Sphinx project's own files (conf.py, the search's query splitter, the style sheet) are real
  files in ``publish/templates/web/``, copied as they are;
- ``--student`` builds it from the student edition instead (no solutions, no guide);
- a static page has no kernel to vote in, so a predict-then-run reveal (committed as a placeholder that
  hides its outputs; see ``helpers.ui.reveal``) shows them folded in a closed 「看答案」 box
  (``<details>``, see ``answer_box``), never open under the question;
- a widget cannot run in a static page: each widget output is replaced by a *still* of its
  first view (see ``publish/web_stills.py``: the build runs each notebook with a
  widget, up to its last widget cell, in a kernel, and draws the recorded widget state),
  followed by a line pointing to the browser edition.

It reads only notebooks and docs (never ``helpers`` internals). Needs the ``editions`` extra:
``pip install -e ".[editions]"``.
"""

from __future__ import annotations

import argparse
import copy
import html
import json
import re
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path

import nbformat

from . import web_stills as ww
from .student import student_notebook
from .notebooks import NOTEBOOKS, ROOT, abstract, hidden_outputs, series as _series

TEACHING = ROOT / "docs" / "teaching"
INDEX = "02-00-index"
DEFAULT_LITE_URL = "../lite/lab/index.html"  # relative to OUT_DIR: the browser edition as a sibling folder
STILL_NOTE = ("这是交互控件首屏的静态截图：网页版不能运行代码。要拖动滑块、提交预测，"
              '请在<a class="lite-link" href="{href}">浏览器版</a>中运行本笔记本（无需安装）。')
# Notebooks whose widgets cannot run in the browser edition either (2.13's explorer needs the model's
# weights, which the browser edition does not ship): their stills point to a local install instead.
LOCAL_ONLY = {"02-13-real-model-attention.ipynb"}
LOCAL_STILL_NOTE = ("这是交互控件首屏的静态截图：网页版不能运行代码。这个控件要用真实模型的权重，浏览器版没有带它们："
                    "请按 README 的第一条命令在自己的电脑上安装，在 JupyterLab 里运行本笔记本（首次运行时自动下载权重）。")
FOREIGN_URL = re.compile(r"""(?:src|href)\s*=\s*["'](?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import\s+["']?(?:https?:)?//""", re.I)
# Unused by the HTML-CSS output (7 of MathJax's 12 MB); the menu's languages except Chinese and English.
MATHJAX_KEEP_LANGS = {"en", "zh-hans", "zh-hant"}
# The Sphinx project's own files, copied as they are: conf.py (it reads its parameters from the
# web-edition.json written beside it), search-zh.js (the search's query splitter, read by conf.py)
# and web-edition.css (the site's style sheet, into _static/).
TEMPLATES = Path(__file__).resolve().parent / "templates" / "web"
CSS_FILE = TEMPLATES / "web-edition.css"


def series() -> list[Path]:
    """The notebooks of the series, in order (02-00 index first)."""
    return _series()


def guide_pages() -> list[Path]:
    return sorted(TEACHING.glob("02-*.md"))


def lite_href(lite_url: str, notebook: str, depth: int) -> str:
    """Link to ``notebook`` in the browser edition from a page ``depth`` folders below OUT_DIR."""
    sep = "&" if "?" in lite_url else "?"
    target = f"{lite_url}{sep}path={notebook}"
    if re.match(r"^[a-z][a-z0-9+.-]*:|^/", lite_url, re.I):
        return target
    return "../" * depth + target


WRAP_TAG = "web-wrap-output"
_CJK_RUN = re.compile(r"[\u3400-\u9fff]{4,}")


def prose_output(cell) -> bool:
    """True when a cell prints Chinese sentences (a self-check's feedback) and no wide table.

    Such output wraps on a phone (tag WRAP_TAG) instead of scrolling sideways line by line; a
    printed table (a long line without Chinese) keeps its columns and scrolls in place.
    """
    text = "".join(o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    long = [line for line in text.splitlines() if len(line) > 40]
    return bool(long) and all(_CJK_RUN.search(line) for line in long)


def answer_box(outputs: list[dict]) -> str:
    """A reveal's hidden ``outputs`` in a closed 「看答案」 box: printed text in ``<pre>``, figures as images."""
    parts = []
    for o in outputs:
        data = o.get("data", {})
        if o.get("output_type") == "stream":
            parts.append(f"<pre>{html.escape(o.get('text', ''))}</pre>")
        elif "image/png" in data:
            parts.append(f'<img class="reveal-figure" alt="figure" src="data:image/png;base64,{data["image/png"].strip()}">')
        elif "text/plain" in data:
            parts.append(f"<pre>{html.escape(data['text/plain'])}</pre>")
    return ('<details class="reveal-answer"><summary>看答案（先在上面的预测题里想好你的答案）</summary>'
            + "".join(parts) + "</details>")


def _md_cell(text: str, **meta) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata.update(meta)
    return cell


def description(markdown: str) -> str:
    """An abstract as a page description: plain text (no Markdown emphasis, code ticks or maths dollars), one line."""
    text = re.sub(r"\*\*|(?<![\w\\])\*|\*(?!\w)|`|\$", "", markdown)
    return " ".join(text.split())


def stage_notebook(nb, name: str, *, lite: str, executed=None) -> tuple[nbformat.NotebookNode, int]:
    """The page version of one committed notebook; returns it and the number of stills drawn.

    Widget outputs become stills (from ``executed``'s widget state) plus a pointer to the
    browser edition; code cells committed with hidden source (solutions) fold their input;
    a line of links (the .ipynb, the browser edition) follows the first cell; the English abstract (the
    last cell) is also the page's description (MyST's ``html_meta``, read from the notebook's metadata).
    """
    nb = copy.deepcopy(nb)
    summary = abstract(nb.cells)
    if summary:
        nb.metadata.setdefault("myst", {}).setdefault("html_meta", {})["description lang=en"] = description(summary)
    note = LOCAL_STILL_NOTE if name in LOCAL_ONLY else STILL_NOTE.format(href=html.escape(lite, quote=True))
    # The executed copy's cells, found by cell id (by position where a notebook has no ids), so
    # a page whose cells were filtered (the student edition) still finds its widgets' views.
    run_cells = executed.cells if executed is not None else []
    by_id = {c.get("id"): c for c in run_cells if c.get("id")}
    stills = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        jmeta = cell.metadata.get("jupyter", {})
        tags = list(cell.metadata.get("tags", []))
        if jmeta.get("source_hidden") or "predict" in tags:  # solutions; a prediction's code holds its key
            tags.append("hide-input")
        if jmeta.get("outputs_hidden"):
            tags.append("hide-output")
        if prose_output(cell):
            tags.append(WRAP_TAG)
        if tags:
            cell.metadata["tags"] = tags
        for out in cell.get("outputs", []):
            hidden = hidden_outputs(out)
            if hidden is not None:
                out["data"], out["metadata"] = {"text/html": answer_box(hidden), "text/plain": "(看答案)"}, {}
        views = [o for o in cell.get("outputs", []) if ww.WIDGET_MIME in o.get("data", {})]
        if not views:
            continue
        ran = []
        twin = by_id.get(cell.get("id")) if cell.get("id") else (run_cells[i] if i < len(run_cells) else None)
        if twin is not None and twin.get("source") == cell.get("source"):
            ran = [o for o in twin.get("outputs", []) if ww.WIDGET_MIME in o.get("data", {})]
        for k, out in enumerate(views):
            body = ""
            if k < len(ran):
                body = ww.widget_still_html(executed, ran[k]["data"][ww.WIDGET_MIME]["model_id"])
            if not body and executed is not None:
                print(f"warning: {name}: a widget output has no recorded first view; the page shows only the pointer",
                      file=sys.stderr)
            out["data"] = {"text/html": (f'<div class="widget-still">{body}'
                                         f'<p class="widget-still-note">{note}</p></div>'),
                           "text/plain": "(widget: see the browser edition)"}
            out.setdefault("metadata", {})
            stills += bool(body)
    links = (f'<p class="edition-links"><a class="ipynb-link" href="{name}" download>下载本笔记本（{name}）</a>'
             f' · ▶ <a class="lite-link" href="{html.escape(lite, quote=True)}">在浏览器版中运行（无需安装）</a></p>')
    nb.cells.insert(1 if nb.cells else 0, _md_cell(links))
    return nb, stills


def _toctree(entries: list[str], caption: str) -> str:
    return "```{toctree}\n:hidden:\n:caption: " + caption + "\n\n" + "\n".join(entries) + "\n```\n"


_MD_LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s#]+)(#[^)\s]*)?\)")
_MD_CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)


def off_site_links_as_paths(markdown: str) -> str:
    """A guide's links to repository files the site does not ship (``../../benchmarks/results.md#…``), as their
    path in code type with a note, instead of a link that goes nowhere. A guide's Markdown lives in
    ``docs/teaching/``; what the site has from the repository is that folder and ``notebooks/``. Code (spans and
    fenced blocks) and images are left as they are; a link out of the repository stops the build."""
    def swap(m: re.Match) -> str:
        text, target = m.group(1), m.group(2)
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            return m.group(0)  # a web address
        path = (TEACHING / target).resolve()
        if path.is_relative_to(TEACHING) or path.is_relative_to(NOTEBOOKS):
            return m.group(0)
        if not path.is_relative_to(ROOT):
            raise SystemExit(f"docs/teaching: the link [{text}]({target}) leaves the repository")
        rel = path.relative_to(ROOT).as_posix()
        note = "项目仓库里的文件，网页版不含"
        return f"`{rel}`（{note}）" if text.strip("`") == rel else f"{text}（`{rel}`，{note}）"
    parts = _MD_CODE.split(markdown)  # odd items: code, kept as written
    return "".join(part if k % 2 else _MD_LINK.sub(swap, part) for k, part in enumerate(parts))


def stage(src: Path, *, lite_url: str, jobs: int, stills: bool, student: bool = False, log=print) -> dict:
    """Write the Sphinx project (staged notebooks, guide, conf.py, static files) into ``src``."""
    nbs = series()
    if not nbs or nbs[0].stem != INDEX:
        raise SystemExit(f"no {INDEX}.ipynb in {NOTEBOOKS}")
    (src / "notebooks").mkdir(parents=True)
    (src / "docs" / "teaching").mkdir(parents=True)
    executed: dict[str, object] = {}
    if stills:
        t0 = time.monotonic()
        with_widgets = [p for p in nbs if ww.widget_cells(nbformat.read(p, as_version=4))]
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for p, run in zip(with_widgets, pool.map(ww.run_for_widget_state, with_widgets)):
                executed[p.name] = run
        log(f"widget stills: ran {len(with_widgets)} notebooks up to their last widget cell in {time.monotonic() - t0:.1f} s")
    n_stills = 0
    for p in nbs:
        nb = nbformat.read(p, as_version=4)
        if student:
            nb = student_notebook(nb)
        page, n = stage_notebook(nb, p.name, lite=lite_href(lite_url, p.name, depth=1), executed=executed.get(p.name))
        n_stills += n
        if p.stem == INDEX:
            page.cells.append(_md_cell(
                _toctree([q.stem for q in nbs[1:]], "笔记本") + "\n"
                + ("" if student else _toctree(["../docs/teaching/README"], "教师指南"))))
        nbformat.write(page, src / "notebooks" / p.name)
    if student:  # no guide (it holds the answers); its links from the notebooks go nowhere
        (src / "docs" / "teaching" / "README.md").write_text("---\norphan: true\n---\n# 教师指南\n\n学生版网页不含教师指南。\n", encoding="utf-8")
    else:
        guide = off_site_links_as_paths((TEACHING / "README.md").read_text(encoding="utf-8"))
        guide += "\n\n" + _toctree([q.stem for q in guide_pages()], "各节指南")
        (src / "docs" / "teaching" / "README.md").write_text(guide, encoding="utf-8")
        for q in guide_pages():
            (src / "docs" / "teaching" / q.name).write_text(off_site_links_as_paths(q.read_text(encoding="utf-8")),
                                                             encoding="utf-8")
    static = src / "_static"
    static.mkdir()
    shutil.copyfile(CSS_FILE, static / CSS_FILE.name)
    import jupyter_server_mathjax

    mj = Path(jupyter_server_mathjax.__file__).parent / "static"
    def unused(folder, names):
        folder = Path(folder)
        if folder.name == "localization":
            return [n for n in names if n not in MATHJAX_KEEP_LANGS]
        return [n for n in names if n in {"a11y", "SVG"}]

    shutil.copytree(mj, static / "mathjax", ignore=unused)
    for name in ("conf.py", "search-zh.js"):
        shutil.copyfile(TEMPLATES / name, src / name)
    (src / "web-edition.json").write_text(json.dumps({"root_doc": f"notebooks/{INDEX}"}, indent=2) + "\n",
                                          encoding="utf-8")
    return {"notebooks": len(nbs), "stills": n_stills}


# The Chinese font the site ships: the decks' subset of Noto Sans CJK SC, subset again to the characters of the
# site's pages and scripts in the unicode-range its @font-face in web-edition.css declares (read from there).
ZH_FONT_FILE = "ch02-noto-sans-sc.woff"


def _font_face_ranges(css: str) -> tuple[tuple[int, int], ...]:
    """The unicode-range of the @font-face naming ZH_FONT_FILE, as (first, last) code points; only the plain
    ``U+XXXX`` and ``U+XXXX-YYYY`` forms are accepted."""
    face = re.search(r"@font-face\s*\{[^}]*" + re.escape(ZH_FONT_FILE) + r"[^}]*\}", css)
    spec = re.search(r"unicode-range:\s*([^;}]+)", face.group(0)) if face else None
    if not spec:
        raise SystemExit(f"{CSS_FILE.name}: no @font-face with a unicode-range for {ZH_FONT_FILE}")
    ranges = []
    for token in spec.group(1).split(","):
        m = re.fullmatch(r"\s*[Uu]\+([0-9A-Fa-f]{1,6})(?:-([0-9A-Fa-f]{1,6}))?\s*", token)
        if not m:
            raise SystemExit(f"{CSS_FILE.name}: unicode-range entry {token.strip()!r} is not U+XXXX or U+XXXX-YYYY")
        ranges.append((int(m.group(1), 16), int(m.group(2) or m.group(1), 16)))
    return tuple(ranges)


ZH_RANGES = _font_face_ranges(CSS_FILE.read_text(encoding="utf-8"))


def site_chinese(out: Path) -> set[str]:
    """Every character in the font's unicode-range that a page or script of the site (MathJax aside) holds."""
    chars: set[str] = set()
    for f in out.rglob("*"):
        if f.suffix in {".html", ".js"} and f.is_file() and "mathjax" not in f.relative_to(out).parts:
            chars |= {c for c in f.read_text(encoding="utf-8", errors="replace")
                      if any(lo <= ord(c) <= hi for lo, hi in ZH_RANGES)}
    return chars


def ship_chinese_font(out: Path) -> int:
    """Write ``_static/ch02-noto-sans-sc.woff``: the decks' font, subset to :func:`site_chinese`. Returns its size."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    from .deck.font import OUT as DECK_FONT

    font = TTFont(str(DECK_FONT))
    chars = site_chinese(out)
    lacking = sorted(c for c in chars if ord(c) not in font.getBestCmap())
    if lacking:
        raise SystemExit(f"the decks' Chinese font lacks {''.join(lacking)!r}, which the site shows: "
                         "run python -m publish font (see its --help)")
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.notdef_outline = True
    sub = subset.Subsetter(options)
    sub.populate(unicodes=sorted(ord(c) for c in chars))
    sub.subset(font)
    font.flavor = "woff"
    target = out / "_static" / ZH_FONT_FILE
    font.save(str(target))
    return target.stat().st_size


def foreign_references(out: Path) -> list[str]:
    """Every HTML/CSS/JS file of the site that would load something from another host."""
    bad = []
    for f in sorted(out.rglob("*")):
        if f.suffix not in {".html", ".css"} or not f.is_file():
            continue
        text = f.read_text(encoding="utf-8", errors="replace")
        for m in FOREIGN_URL.finditer(text):
            line = text[max(0, m.start() - 60): m.end() + 60].replace("\n", " ")
            if 'href="http' in m.group(0).lower() and "<a " in text[max(0, m.start() - 300): m.start()].rsplit(">", 1)[-1]:
                continue  # an ordinary link the reader may follow, not a resource the page loads
            bad.append(f"{f.relative_to(out)}: …{line}…")
    return bad


# Markup a reader must never see in a page's prose: Markdown emphasis that did not close (CommonMark does
# not close ** after a full-width parenthesis followed by a Chinese character), TeX outside the maths
# MathJax typesets (a $$ MyST did not read as maths shifts every later $ of its paragraph), a
# backtick of a code span that did not close (or Markdown inside raw HTML, which is not parsed).
PROSE_MARKUP = re.compile(r"\*\*|__|\$|`|\\[A-Za-z]+|\\[()\[\]]")
# What is not prose: code, scripts, the page head, the maths (class "math": MathJax typesets it) and a
# widget's still (class "widget-still": the widget's own text, drawn as JupyterLab draws it, never markdown).
_NOT_PROSE = {"pre", "code", "kbd", "samp", "tt", "script", "style", "textarea", "head", "math", "svg"}
_NOT_PROSE_CLASSES = {"math", "widget-still"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _ProseText(HTMLParser):
    """The text of a page outside _NOT_PROSE elements, as the reader sees it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[tuple[str, bool]] = []
        self.hidden = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in _VOID:
            return
        skip = tag in _NOT_PROSE or bool(_NOT_PROSE_CLASSES & set((dict(attrs).get("class") or "").split()))
        self.open.append((tag, skip))
        self.hidden += skip

    def handle_endtag(self, tag):
        if all(t != tag for t, _ in self.open):
            return                      # a stray end tag closes nothing
        while self.open:
            t, skip = self.open.pop()
            self.hidden -= skip
            if t == tag:
                break

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def prose_markup(page: str) -> list[str]:
    """Each piece of Markdown or TeX markup left in the prose of one HTML page, with its context."""
    parser = _ProseText()
    parser.feed(page)
    parser.close()
    text = "".join(parser.parts)
    return [f"{m.group(0)!r} in …{' '.join(text[max(0, m.start() - 40): m.end() + 40].split())}…"
            for m in PROSE_MARKUP.finditer(text)]


def pages_with_markup(out: Path) -> list[str]:
    """Every page of the site whose prose still holds Markdown or TeX markup (see ``prose_markup``)."""
    return [f"{page.relative_to(out)}: {found}" for page in sorted(out.rglob("*.html"))
            for found in prose_markup(page.read_text(encoding="utf-8"))]


def build(out: Path, *, lite_url: str = DEFAULT_LITE_URL, jobs: int = 1, stills: bool = True, log=print,
          keep_src: Path | None = None, student: bool = False) -> dict:
    from sphinx.cmd.build import build_main

    t0 = time.monotonic()
    if out.exists():
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory(prefix="web-edition-src-") as tmp:
        src = Path(tmp) / "src"
        info = stage(src, lite_url=lite_url, jobs=jobs, stills=stills, student=student, log=log)
        warnings = Path(tmp) / "warnings.txt"
        if keep_src is not None:  # for comparing tools or debugging: the Sphinx project as built
            shutil.copytree(src, keep_src, dirs_exist_ok=True)
        rc = build_main(["-b", "html", "-q", "-w", str(warnings), str(src), str(out)])
        text = warnings.read_text(encoding="utf-8") if warnings.exists() else ""
        if rc:
            raise SystemExit(f"sphinx-build failed ({rc})")
        if text.strip():  # e.g. a cross-reference that goes nowhere: the page would show a dead link
            raise SystemExit("sphinx-build warned (fix the notebook or guide):\n" + text.strip())
    for p in series():  # the notebook beside its page, for the download link
        if student:
            nbformat.write(student_notebook(nbformat.read(p, as_version=4)), out / "notebooks" / p.name)
        else:
            shutil.copy(p, out / "notebooks" / p.name)
    (out / "index.html").write_text(
        '<!DOCTYPE html><html lang="zh-CN"><head><meta charset="utf-8">'
        f'<meta http-equiv="refresh" content="0; url=notebooks/{INDEX}.html">'
        f'<title>Self-Attention</title></head><body><a href="notebooks/{INDEX}.html">目录</a></body></html>\n',
        encoding="utf-8")
    (out / ".nojekyll").write_text("", encoding="utf-8")  # GitHub Pages: serve _static/ as is
    for m in out.rglob("*.map"):  # source maps: only a developer's tools ask for them
        m.unlink()
    # Build-time leftovers: Sphinx's pickles, the source copies, the theme's gettext catalogues
    # and Jinja macro files.
    for junk in (".doctrees", ".buildinfo", "objects.inv", "_sources", "_static/locales",
                 "_static/webpack-macros.html", "_static/sbt-webpack-macros.html"):
        target = out / junk
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    info["font_bytes"] = ship_chinese_font(out)
    bad = foreign_references(out)
    if bad:
        raise SystemExit("the site would load resources from another host:\n" + "\n".join(bad[:20]))
    bad = pages_with_markup(out)
    if bad:
        raise SystemExit("pages show Markdown or TeX markup as text (fix the notebook's or guide's markdown):\n"
                         + "\n".join(bad[:20]))
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    files = sum(1 for f in out.rglob("*") if f.is_file())
    info.update(seconds=time.monotonic() - t0, bytes=size, files=files)
    return info


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish web", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", type=Path, help="folder to write the site into (replaced if it exists)")
    parser.add_argument("--lite-url", default=DEFAULT_LITE_URL,
                        help="the browser edition's JupyterLite lab page; relative URLs are relative to OUT_DIR "
                             f"(default {DEFAULT_LITE_URL!r}: the browser edition in a sibling folder 'lite')")
    parser.add_argument("--jobs", type=int, default=1, help="kernels run at once for the widget stills (default 1)")
    parser.add_argument("--no-stills", action="store_true",
                        help="do not run any kernel: widget outputs show only the pointer to the browser edition")
    parser.add_argument("--student", action="store_true",
                        help="the student edition: solution cells removed, exercise outputs cleared (as "
                             "publish/student.py does, also in the .ipynb downloads), no teacher's guide")
    parser.add_argument("--keep-src", type=Path, help="also write the generated Sphinx project (conf.py, staged pages) here")
    args = parser.parse_args(argv)
    out = args.out_dir.resolve()
    if out == ROOT or ROOT.is_relative_to(out) or out in (NOTEBOOKS, TEACHING.parent):
        parser.error(f"OUT_DIR {out} would overwrite the repository")
    info = build(out, lite_url=args.lite_url, jobs=args.jobs, stills=not args.no_stills, keep_src=args.keep_src,
                 student=args.student)
    print(f"wrote the web edition to {args.out_dir}: {info['notebooks']} notebook pages, {info['stills']} widget stills, "
          f"{info['files']} files, {info['bytes'] / 2**20:.1f} MiB, {info['seconds']:.0f} s")
    return 0

