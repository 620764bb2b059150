"""benchmarks/results.md: every measured figure of the series, written by the command that measured it.

Each figure is one section of that file, found by its key (``<!-- figure: KEY -->`` under its heading).
A run rewrites the sections of the figures it measured (what the benchmark printed, verbatim: each figure
beside its baseline, with the date, the command, the machine line and the load average) and leaves every
other section as it was, so the file always holds the latest figure of each kind and says when it was taken.
Prose (README, docs/) quotes no figure: it links here.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import os
import re
import shlex
import sys
from pathlib import Path

__all__ = ["RESULTS", "FIGURES", "Capture", "capture", "sections", "record", "measured"]

RESULTS = Path(__file__).resolve().with_name("results.md")

#: key -> heading, in the order the sections appear in the file
FIGURES = {
    "explorer": "Figure 1: saturation-explorer update vs naive `interact`",
    "suite": "Figure 2: validating every notebook vs the kernel-start floor",
    "attention": "Figure 3: float32 attention, tiled vs plain (and peak memory, figure 4)",
    "memory": "Figure 4 (summary): peak memory",
    "classroom": "Classroom: peak kernel memory per notebook; kernels at once",
    "run_all": "Run All of each notebook vs a floor kernel",
    "browser_edition": "Browser edition: 2.5 to its first live slider",
    "browser_model": "Browser edition: 2.13's model cold and warm, and its explorer live",
    "lecture": "Lecture deck: first live widget vs a bare kernel",
    "lecture_2": "Lecture 2's deck with 2.13's explorer: first live widget and kernel memory, before and after",
    "lecture_breakdown": "Lecture deck page: where its time goes",
    "ci": "CI: bash .ci/run on a fresh clone, this commit vs a baseline",
    "model_explorer": "2.13 attention explorer: re-encode + redraw and a move vs a bare kernel",
}

_MARK = re.compile(r"^<!-- figure: ([\w-]+) -->$", re.M)


class Capture(io.TextIOBase):
    """A stdout that writes through to the real one and keeps a copy."""

    def __init__(self, through):
        self._through, self._buf = through, io.StringIO()

    def write(self, s: str) -> int:
        self._through.write(s)
        return self._buf.write(s)

    def flush(self) -> None:
        self._through.flush()

    @property
    def text(self) -> str:
        return self._buf.getvalue()


@contextlib.contextmanager
def capture():
    """``with capture() as out:`` ... ``out.text`` is everything printed inside, which still goes to stdout."""
    out = Capture(sys.stdout)
    with contextlib.redirect_stdout(out):
        yield out


def sections(text: str) -> tuple[str, dict[str, str]]:
    """Split the file into its head (before the first figure) and ``{key: section text}``."""
    marks = list(_MARK.finditer(text))
    starts = [text.rfind("\n## ", 0, m.start()) + 1 for m in marks]
    for m, s in zip(marks, starts):
        if not text.startswith("## ", s):
            raise ValueError(f"results file: figure {m.group(1)!r} has no '## ' heading right above its mark")
    head = text[: starts[0]] if marks else text
    ends = starts[1:] + [len(text)]
    return head, {m.group(1): text[s:e] for m, s, e in zip(marks, starts, ends)}


def _section(key: str, body: str, command: str, when: str, machine: str) -> str:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    return (f"## {FIGURES[key]}\n<!-- figure: {key} -->\n\n"
            f"Measured {when} by `{command}`; load average {load} (1/5/15 min) when it was written.  \n"
            f"`{machine}`\n\n```text\n{body.strip()}\n```\n\n")


def _command() -> str:
    """This process's command line as a reader would type it (``python -m benchmarks.lecture --rounds 3``)."""
    script = Path(sys.argv[0])
    module = (script.parent.name if script.name == "__main__.py"
              else f"{script.parent.name}.{script.stem}" if script.parent.name == "benchmarks" else None)
    words = (["python", "-m", module] if module else ["python", sys.argv[0]]) + sys.argv[1:]
    return " ".join(shlex.quote(w) for w in words)


def record(key: str, body: str, command: str | None = None, path: Path | None = None,
           when: str | None = None, machine: str | None = None) -> Path:
    """Write figure ``key``'s section (``body`` = what the benchmark printed) into the results file.

    Every other section and the file's head are kept; a new key goes where ``FIGURES`` orders it.
    """
    if key not in FIGURES:
        raise ValueError(f"key must be one of {sorted(FIGURES)}, got {key!r}")
    if not isinstance(body, str) or not body.strip():
        raise ValueError(f"body of figure {key!r} is empty: nothing was measured, nothing is written")
    path = RESULTS if path is None else Path(path)
    command = _command() if command is None else command
    if machine is None:
        from .machine import machine_line

        machine = machine_line()
    when = when or _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    head, found = sections(path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n\n")
    found[key] = _section(key, body, command, when, machine)
    order = list(FIGURES) + [k for k in found if k not in FIGURES]
    path.write_text(head + "".join(found[k] for k in order if k in found), encoding="utf-8")
    return path


def measured(key: str, fn, *args, command: str | None = None, path: Path | None = None, write: bool = True,
             **kwargs):
    """Run ``fn(*args, **kwargs)``, printing as usual; when it returns a result (it measured something) and
    ``write`` is true, record what it printed as figure ``key``. Returns what ``fn`` returned."""
    if not write:
        return fn(*args, **kwargs)
    with capture() as out:
        result = fn(*args, **kwargs)
    if result:
        where = record(key, out.text, command=command, path=path)
        print(f"(written to {where})")
    return result
