"""Figure ``lecture``: how soon a lecture deck is on the projector and live, against a bare kernel.

    python -m benchmarks.lecture            # 3 rounds (about 2 min)
    python -m benchmarks.lecture --rounds 1
    python -m benchmarks.lecture --deck 2   # lecture 2 (its first slider: 2.10's; its live slides: 2.13's explorer too)

Side by side, taking turns in one run (each round: the bare kernel, then the deck as served, then
the deck with ``--no-preheat``):

* **bare kernel** (the baseline): start a fresh ``python3`` kernel of this environment and run
  :data:`benchmarks.classroom.FLOOR_SOURCE` (import numpy, matplotlib's pyplot inline, ipywidgets,
  ``helpers``): what any live widget has to wait for at least.
* **the deck as the teacher starts it**: ``python -m publish deck 1 --no-browser`` (``--deck 2``: lecture 2, figure
  ``lecture_2``) is started (a
  real process); when it prints the URL (it does so once its spare kernel has run the deck), headless
  Chromium (1280x720, a fresh profile: nothing cached) navigates to it. Timed from navigation:
  the first slide visible; the **first live widget** usable (lecture 1: the vote on 2.1, its choices
  clickable; target of issue 21: <= 1.5 x bare kernel); 2.5's explorer slider live (moving it with
  ArrowUp changes the figure). Timed from starting the command: the URL printed, and the first live
  widget (URL + navigation): what the preheated kernel hides is in that number.
* **the same with ``--no-preheat``** (progressive rendering, no spare kernel): for comparison.
* **memory**: the resident memory (VmRSS) of the deck's kernels once the URL is printed (the spare
  kernel) and after the page is live (the page's kernel; Voila starts the next spare one later).
* **one notebook's presentation view** (for comparison, the tool choice): ``voila`` on the whole of
  02-05 until its sliders are live (:func:`benchmarks.classroom.voila_time_to_live_sliders`).

Needs Voila, Playwright and Chromium (``/usr/bin/chromium``); without them the figure says so.
No test asserts on these numbers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time

__all__ = ["bare_kernel_s", "kernel_rss_mib", "deck_times", "main"]

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


FIRST_WIDGET = ("() => { const l = document.querySelector('.deck-live');"
                " return l && l.querySelector('.jupyter-widgets input:not([disabled]), .jupyter-widgets .noUi-handle'); }")
HANDLE = ("Array.from(document.querySelectorAll('.deck-live')).map(l => l.querySelector('.noUi-handle'))"
          ".find(h => h)")


def _descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


def kernel_rss_mib(pid: int) -> list[float]:
    """VmRSS (MiB) of every ipykernel process under ``pid`` (Linux; [] elsewhere)."""
    rss = []
    for k in _descendants(pid) if os.path.isdir("/proc") else []:
        try:
            with open(f"/proc/{k}/cmdline", "rb") as fh:
                if b"ipykernel" not in fh.read():
                    continue
            with open(f"/proc/{k}/status") as fh:
                rss += [int(ln.split()[1]) / 1024 for ln in fh if ln.startswith("VmRSS:")]
        except OSError:
            continue
    return sorted(rss)


def deck_times(browser, key: str = "1", preheat: bool = True, timeout: float = 180.0) -> dict:
    """Start ``python -m publish deck KEY`` (from a temporary folder) and time it, then a fresh page."""
    import re
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="bench-lecture-") as tmp:
        log = Path(tmp) / "lecture.log"
        cmd = [sys.executable, "-m", "publish", "deck", key, "--no-browser"] + ([] if preheat else ["--no-preheat"])
        with open(log, "wb") as fh:
            t0 = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=tmp, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            url, listening_s = None, None
            while url is None:
                text = log.read_text(encoding="utf-8", errors="replace")
                if listening_s is None and "spare kernel" in text:
                    listening_s = time.perf_counter() - t0
                m = re.search(r"http://127\.0\.0\.1:\d+/", text)
                if m:
                    url = m.group(0)
                elif proc.poll() is not None or time.perf_counter() - t0 > timeout:
                    raise RuntimeError(f"{' '.join(cmd)} printed no URL:\n{log.read_text()[-3000:]}")
                else:
                    time.sleep(0.02)
            url_s = time.perf_counter() - t0
            rss_spare = kernel_rss_mib(proc.pid)
            ctx = browser.new_context(viewport={"width": 1280, "height": 720})
            page = ctx.new_page()
            try:
                start = time.perf_counter()
                page.goto(url, wait_until="commit", timeout=timeout * 1000)
                page.wait_for_selector(".deck-slide.deck-current", state="visible", timeout=timeout * 1000)
                first_slide = time.perf_counter() - start
                page.wait_for_function(FIRST_WIDGET, timeout=timeout * 1000)
                first_widget = time.perf_counter() - start
                page.wait_for_function(f"() => {HANDLE}", timeout=timeout * 1000)
                src = page.evaluate(f"() => {{ const h = {HANDLE}; const s = h.closest('.deck-slide');"
                                    " window.deck.show(Number(s.dataset.slide) - 1); h.focus();"
                                    " return s.querySelector('img').src; }")
                page.keyboard.press("ArrowUp")
                page.wait_for_function(f"src => {{ const h = {HANDLE}; return h.closest('.deck-slide').querySelector('img').src !== src; }}",
                                       arg=src, timeout=timeout * 1000)
                explorer = time.perf_counter() - start
                if "Error displaying widget" in page.evaluate("() => document.body.innerText"):
                    raise RuntimeError("the deck shows 'Error displaying widget'")
                rss_live = kernel_rss_mib(proc.pid)
            finally:
                ctx.close()
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=30)
    return {"url_s": url_s, "listening_s": listening_s if listening_s is not None else url_s, "first_slide_s": first_slide, "first_widget_s": first_widget, "explorer_s": explorer,
            "command_to_widget_s": url_s + first_widget, "rss_spare_mib": rss_spare, "rss_live_mib": rss_live}


def _spread(xs) -> str:
    return "[" + ", ".join(f"{x:.2f}" for x in xs) + "]"


def main(rounds: int = 3, with_presentation_view: bool = True, deck: str = "1") -> dict | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("lecture: not measured (needs playwright; pip install -e '.[test]')")
        return None
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        print("lecture: not measured (needs Chromium: apt-get install chromium)")
        return None
    from publish.deck.serve import REFILL_DELAY_S

    bare, warm, cold = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=ARGS)
        try:
            bare_kernel_s()  # warm the disk cache for both sides alike
            for _ in range(rounds):
                bare.append(bare_kernel_s())
                warm.append(deck_times(browser, deck, preheat=True))
                cold.append(deck_times(browser, deck, preheat=False))
        finally:
            browser.close()
    view = None
    if with_presentation_view:
        from .classroom import voila_time_to_live_sliders

        view = voila_time_to_live_sliders()
    floor = statistics.median(bare)

    def med(runs, k):
        return statistics.median(d[k] for d in runs)

    def col(runs, k):
        return _spread(d[k] for d in runs)

    fw = med(warm, "first_widget_s")
    ratios = [d["first_widget_s"] / b for d, b in zip(warm, bare)]
    verdict = "met" if fw <= 1.5 * floor else "NOT met"
    print(f"rounds: {rounds} (medians, [every round]; each round: bare kernel, deck, deck --no-preheat)")
    print(f"bare kernel (start + numpy, matplotlib, ipywidgets, helpers): {floor:.2f} s  {_spread(bare)}")
    print(f"python -m publish deck {deck} (preheated), from navigating to the printed URL:")
    print(f"  first slide visible:        {med(warm, 'first_slide_s'):.2f} s  {col(warm, 'first_slide_s')}")
    print(f"  first live widget usable:   {fw:.2f} s = {fw / floor:.2f}x bare kernel (target <= 1.5x: {verdict}); "
          f"per round {_spread(ratios)}x  {col(warm, 'first_widget_s')}")
    print(f"  first slider moved (figure):{med(warm, 'explorer_s'):.2f} s = {med(warm, 'explorer_s') / floor:.2f}x  "
          f"{col(warm, 'explorer_s')}")
    print("  from starting the command: "
          f"Voila listening {med(warm, 'listening_s'):.2f} s {col(warm, 'listening_s')}, "
          f"URL printed {med(warm, 'url_s'):.2f} s {col(warm, 'url_s')}, first live widget "
          f"{med(warm, 'command_to_widget_s'):.2f} s = {med(warm, 'command_to_widget_s') / floor:.2f}x  "
          f"{col(warm, 'command_to_widget_s')}")
    print(f"python -m publish deck {deck} --no-preheat (progressive rendering, no spare kernel), from navigation:")
    cw = med(cold, "first_widget_s")
    print(f"  first slide {med(cold, 'first_slide_s'):.2f} s, first live widget {cw:.2f} s = {cw / floor:.2f}x "
          f"{col(cold, 'first_widget_s')}, first slider {med(cold, 'explorer_s'):.2f} s; from starting the command: "
          f"first live widget {med(cold, 'command_to_widget_s'):.2f} s {col(cold, 'command_to_widget_s')}")
    spare = [r for d in warm for r in d["rss_spare_mib"]]
    live = [sum(d["rss_live_mib"]) for d in warm]
    nolive = [sum(d["rss_live_mib"]) for d in cold]
    if spare:
        print(f"memory (VmRSS): the spare kernel when the URL is printed {statistics.median(spare):.0f} MiB "
              f"{_spread(spare)}; the page's kernel once live {statistics.median(live):.0f} MiB (preheated: Voila "
              f"starts the next spare {REFILL_DELAY_S} s after a page took one, so a server with a page open holds "
              f"two such kernels), {statistics.median(nolive):.0f} MiB --no-preheat (one kernel)")
    if view is not None:
        print(f"for comparison, voila on all of 02-05 until its sliders are live: {view:.2f} s = {view / floor:.2f}x")
    return {"bare_s": bare, "decks": warm, "no_preheat": cold, "floor_s": floor, "presentation_view_s": view}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.lecture", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-presentation-view", action="store_true")
    parser.add_argument("--deck", default="1", help="which deck: 1, 2 or lab (default 1)")
    a = parser.parse_args()
    from benchmarks.results import measured

    # lecture 1's figure is "lecture"; lecture 2's "lecture_2" (its 2.13 explorer slide); another deck only prints
    key = {"1": "lecture", "2": "lecture_2"}.get(a.deck)
    measured(key or "lecture", main, a.rounds, not a.no_presentation_view, a.deck, write=key is not None)
