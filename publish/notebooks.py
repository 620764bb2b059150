"""What every builder shares: where the notebooks are, their cell tags, and how one is run.

Every command of :mod:`publish` reads the series through this module, so the notebook list, the
tag names and the execution rules are written once.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Where the notebooks are, when not in a checkout next to this package (a normal, non-editable install).
NOTEBOOKS_ENV = "SELF_ATTENTION_CH02_NOTEBOOKS"
SHARE = Path(__file__).resolve().parent / "share"

# Cell tags (CONTRIBUTING.md says what each one means).
SOLUTION = "solution"                # a reference answer: removed from the student edition, committed unrun
EXERCISE = "exercise"                # the learner's stub: outputs cleared in the student edition
FULL_ONLY = "full-edition-only"      # prose true only of the full notebooks

#: The heading of a notebook's last cell, its English abstract (for readers without Chinese; CONTRIBUTING.md):
#: at the end, out of a Chinese learner's way and after every prediction it could answer.
ABSTRACT_HEADING = "## English abstract"

#: Output metadata key under which a blind reveal's placeholder keeps the outputs it hides
#: (helpers.ui.reveal.HIDDEN_KEY: the learner package cannot be imported by the build, nor the reverse;
#: tests/test_blind_predictions.py checks the two agree).
REVEAL_KEY = "self_attention_ch02_reveal"

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def notebooks_dir(explicit: str | os.PathLike | None = None) -> Path:
    """The folder of ``02-NN-*.ipynb``: ``explicit``, ``$SELF_ATTENTION_CH02_NOTEBOOKS``, the checkout
    next to this package, or ``<prefix>/share/self-attention-ch02/notebooks`` (a normal install)."""
    candidates = [explicit, os.environ.get(NOTEBOOKS_ENV) or None, ROOT / "notebooks",
                  Path(sys.prefix) / "share" / "self-attention-ch02" / "notebooks"]
    for c in candidates:
        if c is not None and any(Path(c).glob("02-*.ipynb")):
            return Path(c).resolve()
    raise FileNotFoundError(
        "cannot find the notebooks (02-NN-*.ipynb): pass --notebooks DIR or set "
        f"{NOTEBOOKS_ENV}; looked in: " + ", ".join(str(c) for c in candidates if c is not None))


NOTEBOOKS = ROOT / "notebooks"


def series(root: str | os.PathLike | None = None) -> list[Path]:
    """Every notebook of the series, in order (``02-00`` ... ``02-13``), from :func:`notebooks_dir`."""
    return sorted(notebooks_dir(root).glob("02-*.ipynb"))


def tags(cell) -> set[str]:
    """A cell's tags."""
    return set(cell.get("metadata", {}).get("tags", []))


def _source(cell) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def is_abstract(cell) -> bool:
    """Whether ``cell`` (an nbformat cell or its JSON dict) is an English abstract: markdown headed :data:`ABSTRACT_HEADING`."""
    return cell.get("cell_type") == "markdown" and _source(cell).lstrip().startswith(ABSTRACT_HEADING + "\n")


def abstract(cells) -> str | None:
    """The English abstract of a notebook (its text, without the heading) from its cells, or None if its last
    cell is not one (the abstract is the last cell: anywhere else it is in a learner's way)."""
    if not cells or not is_abstract(cells[-1]):
        return None
    return _source(cells[-1]).lstrip()[len(ABSTRACT_HEADING):].strip() or None


def hidden_outputs(output) -> list[dict] | None:
    """The outputs a blind reveal's placeholder ``output`` hides (nbformat output dicts), or None if it is none."""
    hidden = output.get("metadata", {}).get(REVEAL_KEY)
    return list(hidden["outputs"]) if isinstance(hidden, dict) and "outputs" in hidden else None


def execute(nb, cwd: str | os.PathLike, *, timeout: int = 600):
    """Run ``nb`` top to bottom in a fresh kernel of this environment, as a learner's Run All does.

    The notebook's folder is the working directory (as nbval's); timing is not recorded. Returns
    ``nb`` with its outputs. A cell that raises stops the run (no cell is meant to raise: CONTRIBUTING.md).
    """
    from nbclient import NotebookClient

    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", record_timing=False,
                            resources={"metadata": {"path": str(cwd)}})
    client.execute()
    return nb


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """Stop a child process: SIGTERM, then SIGKILL if it has not exited within ``timeout`` seconds."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
