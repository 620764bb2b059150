"""``python -m publish COMMAND [ARGS]``: see :mod:`publish` for the commands."""

from __future__ import annotations

import importlib
import sys

import publish

#: command -> module whose ``main(argv)`` runs it
COMMANDS = {
    "student": "publish.student",
    "course": "publish.course",
    "web": "publish.web",
    "lite": "publish.lite",
    "deck": "publish.deck.cli",
    "run": "publish.run",
    "link": "publish.link",
    "constraints": "publish.constraints",
    "font": "publish.deck.font",
    "minutes": "publish.minutes",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in {"-h", "--help"} or argv[0] not in COMMANDS:
        print(publish.__doc__)
        if argv and argv[0] not in {"-h", "--help"}:
            print(f"unknown command {argv[0]!r}; one of: {', '.join(COMMANDS)}", file=sys.stderr)
            return 2
        return 0
    return importlib.import_module(COMMANDS[argv[0]]).main(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
