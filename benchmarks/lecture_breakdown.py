"""Where a deck page's time goes, from navigation to its first usable widget (Chromium's DevTools protocol).

    python -m benchmarks.lecture_breakdown          # lecture 1, preheated, a fresh browser profile
    python -m benchmarks.lecture_breakdown 2 --no-preheat

Serves the deck (:class:`publish.deck.serve.DeckServer`), opens it in headless Chromium (1280x720, fresh
profile) and prints, in milliseconds from navigation: the page's own milestones (first slide, DOMContentLoaded,
load), the deck script's steps (``performance`` marks ``deck:*`` of ``publish/deck/js``: script running,
page config read, widgets' state in, page parsed, first view, all views), the kernel websocket (created, open,
first frame, the largest frame: the widgets' state), the first live widget usable and the first typeset formula;
then the HTML's size and every script and stylesheet the page loaded with its size, summed. The ``lecture`` figure
(``python -m benchmarks.lecture``) times the same page against a bare kernel; this one says where the time goes.
"""

from __future__ import annotations

import argparse
import shutil

from .lecture import ARGS

INIT = r"""(() => {
  const marks = window.__deckBreakdown = {};
  const mark = (k) => { if (!(k in marks)) marks[k] = performance.now(); };
  const check = () => {
    const l = document.querySelector('.deck-live');
    if (document.querySelector('.deck-slide.deck-current')) mark('first slide in the DOM');
    if (l && l.querySelector('.jupyter-widgets input:not([disabled]), .jupyter-widgets .noUi-handle')) mark('FIRST LIVE WIDGET USABLE');
    if (document.querySelector('mjx-container')) mark('first formula typeset');
  };
  new MutationObserver(check).observe(document, {subtree: true, childList: true, attributes: true});
  document.addEventListener('DOMContentLoaded', () => mark('DOMContentLoaded'));
  window.addEventListener('load', () => mark('load event'));
})();"""


def breakdown(key: str = "1", preheat: bool = True, timeout_s: float = 120.0) -> dict:
    from playwright.sync_api import sync_playwright

    from publish.deck.serve import DeckServer

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    frames: list[tuple[str, float, int]] = []
    with DeckServer(key, preheat=preheat) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1280, "height": 720})
            page = ctx.new_page()
            page.add_init_script(INIT)
            cdp = ctx.new_cdp_session(page)
            cdp.send("Network.enable")
            start: list[float] = []
            cdp.on("Network.requestWillBeSent", lambda e: start or start.append(e["timestamp"]))
            cdp.on("Network.webSocketCreated", lambda e: frames.append(("websocket created", -1.0, 0)))
            cdp.on("Network.webSocketHandshakeResponseReceived", lambda e: frames.append(("open", e["timestamp"], 0)))
            cdp.on("Network.webSocketFrameReceived",
                   lambda e: frames.append(("in", e["timestamp"], len(e["response"]["payloadData"]))))
            page.goto(srv.url, wait_until="commit")
            page.wait_for_function("() => window.__deckBreakdown && window.__deckBreakdown['FIRST LIVE WIDGET USABLE'] !== undefined"
                                   " || !document.querySelector('.deck-live') && document.readyState === 'complete'",
                                   timeout=timeout_s * 1000)
            page.wait_for_timeout(1500)  # the maths and the remaining views
            marks = page.evaluate("() => window.__deckBreakdown")
            marks.update(page.evaluate("() => Object.fromEntries(performance.getEntriesByType('mark')"
                                       ".map(m => [m.name, m.startTime]))"))
            nav = page.evaluate("() => performance.getEntriesByType('navigation')[0].toJSON()")
            res = page.evaluate("() => performance.getEntriesByType('resource').map(r => r.toJSON())")
            ctx.close()
        finally:
            browser.close()
    t0 = start[0] if start else 0.0
    ws = [(what, (t - t0) * 1000 if t >= 0 else None, n) for what, t, n in frames]
    return {"marks": marks, "nav": nav, "resources": res, "websocket": ws}


def report(b: dict) -> None:
    rows = dict(b["marks"])
    ws = b["websocket"]
    opened = [t for what, t, _ in ws if what == "open"]
    incoming = [(t, n) for what, t, n in ws if what == "in"]
    if opened:
        rows["websocket open (network)"] = opened[0]
    if incoming:
        rows["websocket first frame in"] = incoming[0][0]
        t, n = max(incoming, key=lambda x: x[1])
        rows[f"largest frame in ({n / 1024:.0f} KiB: the widgets' state)"] = t
    print("ms from navigation:")
    for name, t in sorted(rows.items(), key=lambda kv: kv[1]):
        print(f"  {t:7.0f}  {name}")
    nav = b["nav"]
    print(f"HTML page: {nav['decodedBodySize'] / 1024:.0f} KiB (response end {nav['responseEnd']:.0f} ms)")
    total = 0
    for r in sorted(b["resources"], key=lambda r: r["startTime"]):
        if r["initiatorType"] in ("script", "link", "css") or r["name"].endswith((".js", ".css")):
            total += r["decodedBodySize"]
            print(f"  {r['startTime']:7.0f} -> {r['responseEnd']:6.0f} ms  {r['decodedBodySize'] / 1024:7.0f} KiB  "
                  f"{r['name'].rsplit('/', 1)[-1][:60]}")
    print(f"scripts, stylesheets and fonts loaded: {total / 1024:.0f} KiB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lecture_breakdown", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("deck", nargs="?", default="1")
    parser.add_argument("--no-preheat", action="store_true")
    a = parser.parse_args()
    from benchmarks.results import measured

    measured("lecture_breakdown", lambda: report(breakdown(a.deck, preheat=not a.no_preheat)) or True)
