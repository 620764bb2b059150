"""Reading committed notebooks as JSON, for the notebook tests (hygiene, pedagogy, teacher's guide)."""

from __future__ import annotations

import json
from pathlib import Path
from publish.notebooks import series

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = series()


def cells(path: Path) -> list[dict]:
    """The cells of a committed notebook, as stored."""
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def src(cell: dict) -> str:
    """A cell's source as one string."""
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def tags(cell: dict) -> set[str]:
    """A cell's tags."""
    return set(cell.get("metadata", {}).get("tags", []))
