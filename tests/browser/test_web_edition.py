"""The web edition (publish/web.py) in headless Chromium, on a phone-sized screen.

The site is built once (with its widget stills) into a temporary folder and served by a
static file server on 127.0.0.1. Every request the pages make to any other host is recorded
(Chromium resolves no other host: tests/browser/conftest.py); the test fails if there is one, or if a
page asks the site for a file it lacks (404). At 375 x 740 px (a phone):

- every notebook has a page with its figures loaded, its maths typeset by the site's own
  MathJax (MathJax output present, no TeX error), and its prose as the reader sees it holds no Markdown or
  TeX markup (``**``, ``$``, ``\\frac``, a backtick: publish.web.PROSE_MARKUP);
- no page (notebooks, the teacher's guide, search) scrolls sideways, and no table cell breaks a
  short word ("2.4") over two lines;
- searching a Chinese word, or a phrase typed without spaces, lists the notebook about it;
- the previous/next links walk the series in order;
- a widget's still shows its first view (the 2.5 explorer's image) and points to the browser edition;
- in a Chromium that sees no CJK system font (a locked lab PC), a notebook page's, the teacher's guide's and the
  search page's Chinese is drawn in the font the site ships (``_static/ch02-noto-sans-sc.woff``).
"""

from __future__ import annotations

import functools
import http.server
import threading
import urllib.parse
import urllib.request
from pathlib import Path

import nbformat
import pytest

from conftest import chinese_drawn_in_shipped_font
from publish.web import PROSE_MARKUP
from publish.notebooks import series

pytestmark = [pytest.mark.browser, pytest.mark.editions]

ROOT = Path(__file__).resolve().parents[2]
SERIES = [p.name for p in series()]
GUIDE = sorted(p.stem for p in (ROOT / "docs" / "teaching").glob("*.md"))
PHONE = {"width": 375, "height": 740}
FOREIGN: list[str] = []
SEEN: list[str] = []
MISSING: list[str] = []  # what the pages asked the site for and it did not have (404s)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_error(self, code, *args, **kwargs):
        if code == 404 and self.path != "/favicon.ico":  # Chromium's own guess at the server's root, not a page's
            MISSING.append(self.path)
        super().send_error(code, *args, **kwargs)


@pytest.fixture(scope="module")
def site(web_edition):
    out, _ = web_edition  # the maintainer's command, run once per test run (tests/conftest.py)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield out, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def phone(browser, site):
    ctx = browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)

    def seen(req):
        SEEN.append(req.url)
        parts = urllib.parse.urlsplit(req.url)
        if parts.scheme in {"http", "https"} and parts.hostname != "127.0.0.1":
            FOREIGN.append(req.url)  # it got no answer: Chromium resolves no other host (conftest.CHROMIUM_ARGS)

    # The request event, not a route: a route turns the HTTP cache off, and every page would fetch MathJax again.
    ctx.on("request", seen)
    pg = ctx.new_page()
    pg.set_default_timeout(60_000)
    try:
        yield pg
    finally:
        ctx.close()


def _open(pg, url: str) -> None:
    pg.goto(url)
    pg.wait_for_load_state("load")
    # MathJax 2 typesets asynchronously; its queue runs a callback when everything is done.
    if pg.evaluate("() => !!document.querySelector('script[src*=\"mathjax/MathJax.js\"]')"):
        pg.wait_for_function("() => window.MathJax && MathJax.Hub && MathJax.isReady", timeout=60_000)
        pg.evaluate("() => new Promise(done => MathJax.Hub.Queue(() => done(true)))")


def _sideways(pg) -> int:
    return pg.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


def _figures(name: str) -> int:
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    return sum("image/png" in o.get("data", {}) for c in nb.cells for o in c.get("outputs", []))


@pytest.mark.parametrize("name", SERIES)
def test_notebook_page(site, phone, name):
    _, url = site
    _open(phone, f"{url}/notebooks/{name[:-6]}.html")
    info = phone.evaluate("""() => {
        const art = document.querySelector('article.bd-article');
        const clone = art.cloneNode(true);
        clone.querySelectorAll('pre, code, script, .MathJax, .MathJax_Display, .MathJax_Preview, .widget-still').forEach(n => n.remove());
        const imgs = Array.from(art.querySelectorAll('img'));
        return {
            prose: clone.innerText,
            mathjax: art.querySelectorAll('.MathJax, .MathJax_Display').length,
            tex_errors: art.querySelectorAll('.MathJax .merror, .MathJax_Error').length,
            imgs: imgs.length,
            broken: imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src.slice(0, 80)),
            ipynb: (art.querySelector('a.ipynb-link') || {}).href,
            lite: (art.querySelector('a.lite-link') || {}).href,
            // a table cell holding one short ASCII word ("2.4") on more than one line: split by the CSS
            split: Array.from(art.querySelectorAll('td, th')).filter(c => /^[\\x21-\\x7e]{1,8}$/.test(c.innerText.trim())).filter(c => {
                const rects = [], walk = document.createTreeWalker(c, NodeFilter.SHOW_TEXT);
                for (let t = walk.nextNode(); t; t = walk.nextNode()) {
                    const r = document.createRange(); r.selectNodeContents(t);
                    rects.push(...Array.from(r.getClientRects()).filter(x => x.width > 0));
                }
                const top = Math.min(...rects.map(x => x.top)), bottom = Math.max(...rects.map(x => x.bottom));
                return rects.length && bottom - top > 1.8 * parseFloat(getComputedStyle(c).fontSize);
            }).map(c => c.innerText.trim()),
        };
    }""")
    src = "".join(c.source for c in nbformat.read(ROOT / "notebooks" / name, as_version=4).cells if c.cell_type == "markdown")
    if "$" in src:
        assert info["mathjax"] > 0, f"{name}: the page has maths in its source but no MathJax output"
    left = [info["prose"][max(0, m.start() - 30): m.end() + 30] for m in PROSE_MARKUP.finditer(info["prose"])]
    assert not left, f"{name}: Markdown or TeX markup left in the prose: {left[:5]}"
    assert info["tex_errors"] == 0, f"{name}: {info['tex_errors']} TeX errors"
    assert not info["broken"], f"{name}: images that did not load: {info['broken']}"
    assert info["imgs"] >= _figures(name), f"{name}: {info['imgs']} images shown, the notebook has {_figures(name)} figures"
    assert _sideways(phone) <= 0, f"{name}: the page scrolls sideways at 375 px by {_sideways(phone)} px"
    assert not info["split"], f"{name}: table cells whose one word is broken over lines: {info['split'][:5]}"
    assert info["ipynb"].endswith(f"/notebooks/{name}")
    with urllib.request.urlopen(info["ipynb"], timeout=10) as resp:
        assert nbformat.reads(resp.read().decode("utf-8"), as_version=4).cells, f"{name}: its .ipynb link is broken"
    assert info["lite"] == f"{url}/lite/lab/index.html?path={name}", f"{name}: browser-edition link {info['lite']}"


def test_guide_and_search_pages_fit_a_phone(site, phone):
    _, url = site
    pages = [f"docs/teaching/{g}.html" for g in GUIDE] + ["search.html", "genindex.html"]
    wide = {}
    for page in pages:
        _open(phone, f"{url}/{page}")
        if _sideways(phone) > 0:
            wide[page] = _sideways(phone)
    assert not wide, f"pages that scroll sideways at 375 px (by px): {wide}"


def test_home_page_is_the_index_and_prev_next_walk_the_series(site, phone):
    _, url = site
    phone.goto(f"{url}/")
    phone.wait_for_url(f"**/notebooks/{SERIES[0][:-6]}.html", timeout=30_000)  # the home page sends you there
    assert phone.url.endswith(f"/notebooks/{SERIES[0][:-6]}.html"), f"home page is {phone.url}"
    # Only the links are walked: each page is left once its HTML is parsed (its maths and figures are
    # test_notebook_page's), so the walk does not typeset fifteen pages.
    walk = {"wait_until": "domcontentloaded", "timeout": 30_000}
    for here, there in zip(SERIES, SERIES[1:]):
        phone.locator("a.right-next").click()
        phone.wait_for_url(f"**/notebooks/{there[:-6]}.html", **walk)  # fails if next goes elsewhere
    phone.locator("a.left-prev").click()
    phone.wait_for_url(f"**/notebooks/{SERIES[-2][:-6]}.html", **walk)
    phone.locator("a.right-next").click()  # after the last notebook: the teacher's guide
    phone.wait_for_url(f"**/notebooks/{SERIES[-1][:-6]}.html", **walk)
    phone.locator("a.right-next").click()
    phone.wait_for_url("**/docs/teaching/**", **walk)
    assert "/docs/teaching/" in phone.url, f"after the last notebook came {phone.url}, not the teacher's guide"


@pytest.mark.parametrize("query, words", [("饱和", ["饱和"]),             # saturation: what 2.5 is about
                                          ("缩放点积", ["缩放", "点积"])])  # a phrase typed without a space
def test_chinese_search_finds_the_page(site, phone, query, words):
    _, url = site
    expected = "02-05-scaling-by-sqrt-dk"
    phone.goto(f"{url}/search.html?q={urllib.parse.quote(query)}")
    phone.wait_for_function("() => document.querySelectorAll('#search-results ul.search li').length > 0", timeout=60_000)
    hrefs = phone.evaluate("() => Array.from(document.querySelectorAll('#search-results ul.search li a')).map(a => a.href)")
    assert any(f"/notebooks/{expected}.html" in h for h in hrefs), f"searching {query} listed {hrefs}"
    for h in hrefs:  # every hit really contains every word
        with urllib.request.urlopen(h.split("?")[0].split("#")[0], timeout=10) as resp:
            text = resp.read().decode("utf-8")
            assert all(w in text for w in words), f"search for {query} listed {h}, which lacks one of {words}"


def test_widget_still_shows_the_first_view(site, phone):
    _, url = site
    _open(phone, f"{url}/notebooks/02-05-scaling-by-sqrt-dk.html")
    stills = phone.evaluate("""() => Array.from(document.querySelectorAll('.widget-still')).map(s => ({
        imgs: Array.from(s.querySelectorAll('img.still-image')).filter(i => i.naturalWidth > 0).length,
        lite: (s.querySelector('.widget-still-note a.lite-link') || {}).href,
        text: s.innerText}))""")
    assert stills, "2.5 shows no widget still"
    assert all(s["lite"] and "/lite/lab/index.html?path=02-05-scaling-by-sqrt-dk.ipynb" in s["lite"] for s in stills)
    assert any(s["imgs"] for s in stills), "no still of 2.5 shows the explorer's image"
    assert not any("VBox(" in s["text"] for s in stills), "a still shows the widget's text repr"


def test_chinese_is_drawn_in_the_shipped_font(site, cjk_less_browser):
    _, url = site
    ctx = cjk_less_browser.new_context(viewport=PHONE, device_scale_factor=1, is_mobile=True, has_touch=True)
    foreign: list[str] = []
    ctx.on("request", lambda r: foreign.append(r.url) if urllib.parse.urlsplit(r.url).scheme in {"http", "https"}
           and urllib.parse.urlsplit(r.url).hostname != "127.0.0.1" else None)
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(60_000)
        for page, root, at_least in (("notebooks/02-10-causal-mask.html", "article.bd-article", 40),
                                     ("docs/teaching/README.html", "article.bd-article", 40),
                                     (f"search.html?q={urllib.parse.quote('掩码')}", "body", 3)):
            _open(pg, f"{url}/{page}")
            if page.startswith("search"):
                pg.wait_for_function("() => document.querySelectorAll('#search-results ul.search li').length > 0")
            pg.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")  # folded code
            chinese_drawn_in_shipped_font(pg, root, f"web edition {page}", at_least)
    finally:
        ctx.close()
    assert not foreign, f"requests to other hosts (unresolved): {sorted(set(foreign))[:10]}"


def test_no_request_left_the_host(site, phone):
    assert len(SEEN) > 50, f"too few requests recorded ({len(SEEN)}): did the pages load?"
    assert not FOREIGN, f"requests to other hosts (unresolved): {sorted(set(FOREIGN))[:20]}"
    assert not MISSING, f"files the pages asked for and the site lacks (404): {sorted(set(MISSING))[:10]}"
