"""Put the series' Voila templates and the server setting that selects them where Jupyter looks.

A normal install (``pip install ".[classroom]"``, as on a lab room or a JupyterHub) does this by
itself: pyproject.toml lists the files as data-files, installed into ``sys.prefix``. An editable
install (``pip install -e``) does not install data-files, so a checkout runs this once::

    python -m helpers.lecture --install-voila

Then JupyterLab's Voila route (``/voila/render/<notebook>``) renders every notebook with the
presentation view's template ``ch02`` (no code, no exercise or solution cells, no hidden-case
outputs, maths typeset offline). The decks are served by ``python -m helpers.lecture``; a deck notebook
written with ``--write`` names ``ch02-deck`` in its metadata (``voila.template``), which the route honours
(Voila's ``allow_template_override``, default YES), so there it shows as slides too.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

__all__ = ["CONFIG_NAME", "sources", "install_voila_files"]

CONFIG_NAME = "voila.json"
_PKG = Path(__file__).resolve().parent
_REPO = _PKG.parents[1]


def sources() -> dict[str, Path]:
    """Where each installed piece comes from: the checkout if there is one, else the installed copy."""
    prefix = Path(sys.prefix)
    ch02 = _REPO / "share" / "jupyter" / "voila" / "templates" / "ch02"
    config = _REPO / "share" / "etc" / "jupyter" / CONFIG_NAME
    return {
        "ch02": ch02 if ch02.is_dir() else prefix / "share" / "jupyter" / "voila" / "templates" / "ch02",
        "ch02-deck": _PKG / "share" / "jupyter" / "voila" / "templates" / "ch02-deck",
        "config": config if config.is_file() else prefix / "etc" / "jupyter" / CONFIG_NAME,
    }


def install_voila_files(prefix: str | Path | None = None) -> list[Path]:
    """Copy both templates into ``<prefix>/share/jupyter/voila/templates`` and the setting into
    ``<prefix>/etc/jupyter/voila.json`` (default prefix: this environment). Returns what was written."""
    prefix = Path(sys.prefix if prefix is None else prefix)
    src = sources()
    written = []
    for name in ("ch02", "ch02-deck"):
        dest = prefix / "share" / "jupyter" / "voila" / "templates" / name
        if src[name].resolve() != dest.resolve():
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(src[name], dest)
        written.append(dest)
    dest = prefix / "etc" / "jupyter" / CONFIG_NAME
    dest.parent.mkdir(parents=True, exist_ok=True)
    if src["config"].resolve() != dest.resolve():
        shutil.copy(src["config"], dest)
    written.append(dest)
    return written
