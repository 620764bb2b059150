"""Figure ``lecture``: how soon a lecture deck is on the projector and live, against a bare kernel.

    python -m benchmarks.lecture            # 3 rounds (about 1 min)
    python -m benchmarks.lecture --rounds 1

Side by side, taking turns in one run:

* **bare kernel** (the baseline): start a fresh ``python3`` kernel of this environment and run
  :data:`benchmarks.classroom.FLOOR_SOURCE` (import numpy, matplotlib's pyplot inline, ipywidgets,
  ``helpers``): what any live widget has to wait for at least.
* **deck, first slide**: from navigating headless Chromium (1280x720) to ``python -m helpers.lecture 1``'s
  URL until the first slide is visible (the page is already served; Voila renders it on request).
* **deck, first live widget**: until the first live slide's control is usable (lecture 1: the vote on
  2.1, its choices clickable). Target (issue 21): <= 1.5 x bare kernel.
* **deck, explorer**: until 2.5's explorer slider is live (moving it with ArrowUp changes the figure).
* **one notebook's presentation view** (for comparison, the tool choice): ``voila`` on the whole of
  02-05 until its sliders are live (:func:`benchmarks.classroom.voila_time_to_live_sliders`).

Needs Voila, Playwright and Chromium (``/usr/bin/chromium``); without them the figure says so.
No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time

__all__ = ["bare_kernel_s", "deck_times", "main"]

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def bare_kernel_s(timeout: float = 120.0) -> float:
    """Seconds to start a fresh python3 kernel and run the series' imports in it."""
    from jupyter_client import KernelManager

    from .classroom import FLOOR_SOURCE

    start = time.perf_counter()
    km = KernelManager(kernel_name="python3")
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=timeout)
        reply = kc.execute_interactive(FLOOR_SOURCE, timeout=timeout, output_hook=lambda msg: None)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"the floor imports failed: {reply['content']}")
        return time.perf_counter() - start
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def deck_times(browser, key: str = "1", timeout: float = 120.0) -> dict:
    """Serve deck ``key`` and time a fresh page: first slide, first live widget, the explorer's slider."""
    from helpers.lecture.serve import DeckServer

    with DeckServer(key) as srv:
        ctx = browser.new_context(viewport={"width": 1280, "height": 720})
        page = ctx.new_page()
        try:
            start = time.perf_counter()
            page.goto(srv.url, wait_until="commit", timeout=timeout * 1000)
            page.wait_for_selector(".deck-slide.deck-current", state="visible", timeout=timeout * 1000)
            first_slide = time.perf_counter() - start
            page.wait_for_function(
                "() => { const l = document.querySelector('.deck-live');"
                " return l && l.querySelector('.jupyter-widgets input:not([disabled]), .jupyter-widgets .noUi-handle'); }",
                timeout=timeout * 1000)
            first_widget = time.perf_counter() - start
            handle = ("Array.from(document.querySelectorAll('.deck-live')).map(l => l.querySelector('.noUi-handle'))"
                      ".find(h => h)")
            page.wait_for_function(f"() => {handle}", timeout=timeout * 1000)
            src = page.evaluate(f"() => {{ const h = {handle}; const s = h.closest('.deck-slide');"
                                " window.deck.show(Number(s.dataset.slide) - 1); h.focus();"
                                " return s.querySelector('img').src; }")
            page.keyboard.press("ArrowUp")
            page.wait_for_function(f"src => {{ const h = {handle}; return h.closest('.deck-slide').querySelector('img').src !== src; }}",
                                   arg=src, timeout=timeout * 1000)
            explorer = time.perf_counter() - start
        finally:
            ctx.close()
    return {"first_slide_s": first_slide, "first_widget_s": first_widget, "explorer_s": explorer}


def main(rounds: int = 3, with_presentation_view: bool = True) -> dict | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("lecture: not measured (needs playwright; pip install -e '.[test]')")
        return None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("lecture: not measured (needs Chromium: apt-get install chromium)")
        return None
    bare, decks = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
        try:
            bare_kernel_s()  # warm the disk cache for both sides alike
            for _ in range(rounds):
                bare.append(bare_kernel_s())
                decks.append(deck_times(browser))
        finally:
            browser.close()
    view = None
    if with_presentation_view:
        from .classroom import voila_time_to_live_sliders

        view = voila_time_to_live_sliders()
    med = {k: statistics.median(d[k] for d in decks) for k in decks[0]}
    floor = statistics.median(bare)
    print(f"rounds: {rounds} (medians; each round: bare kernel, then the deck, on the same machine)")
    print(f"bare kernel (start + numpy, matplotlib, ipywidgets, helpers): {floor:.2f} s  "
          f"[{', '.join(f'{x:.2f}' for x in bare)}]")
    print(f"lecture 1 deck, first slide visible:         {med['first_slide_s']:.2f} s")
    verdict = "met" if med["first_widget_s"] <= 1.5 * floor else "NOT met"
    print(f"lecture 1 deck, first live widget usable:    {med['first_widget_s']:.2f} s = "
          f"{med['first_widget_s'] / floor:.2f}x bare kernel (target <= 1.5x: {verdict})  "
          f"[{', '.join(format(d['first_widget_s'], '.2f') for d in decks)}]")
    print(f"lecture 1 deck, 2.5 explorer slider live:    {med['explorer_s']:.2f} s = {med['explorer_s'] / floor:.2f}x")
    if view is not None:
        print(f"for comparison, voila on all of 02-05 until its sliders are live: {view:.2f} s = {view / floor:.2f}x")
    return {"bare_s": bare, "decks": decks, "median": med, "floor_s": floor, "presentation_view_s": view}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lecture", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-presentation-view", action="store_true")
    a = parser.parse_args()
    main(a.rounds, not a.no_presentation_view)
