"""python -m publish deck [DECK] [--port P] [--no-browser] [--no-preheat] [--notebooks DIR]
                           [--plan | --schedule | --write PATH]
       python -m publish deck --install-voila

Without DECK: list the decks. With DECK (1, 2 or lab): build it from the notebooks and serve it on
127.0.0.1 with Voila (Ctrl-C stops it), or print its plan table / slide-to-minute table, or write the
deck notebook (e.g. to look at what the kernel runs). A slide whose cells are gone from the notebooks
(deleted, or their metadata["slides"] lost) stops it with a message naming the deck and the slide (exit 1).

Serving, Voila first runs the deck in a spare kernel (a few seconds), then prints the URL and opens
it: the page then gets that warm kernel. --no-preheat serves at once without a spare kernel (one
kernel less in memory; the first live widget then waits for its kernel to start and run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

#: The deck's keys (the page's script: publish/share/jupyter/voila/templates/ch02-deck/index.html.j2).
KEYS = ("→ / ← or PageDown / PageUp: next / back; a number then Enter (or #N in the address): that slide; "
        "O: overview of every slide; B or .: black screen; S: the presenter's window (the guide's notes, the plan's "
        "minute, a clock, vote reset for the next class); T: start / pause a work block's countdown; Ctrl+P: the handout "
        "(one slide per page)")


def main(argv: list[str] | None = None) -> int:
    from .build import check_deck, notebooks_dir, plan_markdown, schedule_markdown
    from .decks import DECKS
    from .slides import DeckError

    parser = argparse.ArgumentParser(prog="python -m publish deck", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("deck", nargs="?", choices=list(DECKS), help="which deck (omit to list them)")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: the first free from 8866)")
    parser.add_argument("--no-browser", action="store_true", help="only print the URL")
    parser.add_argument("--no-preheat", action="store_true",
                        help="no spare kernel that has run the deck already (less memory, slower first widget)")
    parser.add_argument("--notebooks", type=Path, default=None, help="folder of the 02-NN-*.ipynb notebooks")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--plan", action="store_true", help="print the plan table (as in the teacher's guide)")
    what.add_argument("--schedule", action="store_true", help="print which slide goes with which minute")
    what.add_argument("--write", type=Path, metavar="PATH", help="write the deck notebook to PATH and exit")
    what.add_argument("--install-voila", action="store_true",
                      help="install the Voila templates and their server setting into this environment "
                           "(needed once after `pip install -e`; a normal install does it itself)")
    args = parser.parse_args(argv)

    if args.install_voila:
        from .install import install_voila_files

        for path in install_voila_files():
            print(f"installed {path}")
        return 0

    try:
        root = notebooks_dir(args.notebooks)
    except FileNotFoundError as exc:
        print(exc, file=sys.stderr)
        return 2
    if args.deck is None:
        print("Decks (python -m publish deck KEY):")
        for key, deck in DECKS.items():
            n = len(deck.slides) + 1
            minutes = sum(r.minutes for r in deck.rows)
            print(f"  {key:<4} {deck.title}  ({n} slides, {minutes} min)")
        return 0
    deck = DECKS[args.deck]
    if args.plan:
        print(plan_markdown(deck))
        return 0
    try:
        check_deck(deck, root)  # a slide whose cells are gone: say which, before building or serving anything
    except DeckError as exc:
        print(exc, file=sys.stderr)
        return 1
    if args.schedule:
        print(schedule_markdown(deck, root))
        return 0
    if args.write:
        import nbformat

        from .build import build_notebook

        nbformat.write(build_notebook(deck, root), str(args.write))
        print(f"wrote {args.write} ({deck.title})")
        return 0

    import signal

    from .serve import DeckServer, free_port

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # `kill PID` stops Voila and removes the folder too
    port = args.port or free_port(8866)
    server = DeckServer(args.deck, port=port, notebooks=root, preheat=not args.no_preheat)
    try:
        server.wait_ready()
        if server.preheat:
            print(f"{deck.title}: running the deck in a spare kernel ...", flush=True)
            server.wait_warm()
        print(f"{deck.title}\n  {server.url}\n{KEYS}\n(Ctrl-C stops the server)", flush=True)
        if not args.no_browser:
            import webbrowser

            webbrowser.open(server.url)
        server.proc.wait()
    except KeyboardInterrupt:
        pass
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    finally:
        server.stop()
    return 0

