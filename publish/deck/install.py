"""Put the series' Voila templates and the server setting that selects them where Jupyter looks.

A normal install (``pip install ".[classroom]"``, as on a lab room or a JupyterHub) does this by
itself: pyproject.toml lists the files as data-files, installed into ``sys.prefix``. An editable
install (``pip install -e``) does not install data-files, so a checkout runs this once::

    python -m publish deck --install-voila

Then JupyterLab's Voila route (``/voila/render/<notebook>``) renders every notebook with the
presentation view's template ``ch02`` (no code, no exercise or solution cells, no hidden-case
outputs, maths typeset offline). The decks are served by ``python -m publish deck``; a deck notebook
written with ``--write`` names ``ch02-deck`` in its metadata (``voila.template``), which the route honours
(Voila's ``allow_template_override``, default YES), so there it shows as slides too.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

__all__ = ["CONFIG_NAME", "sources", "install_voila_files"]

from ..notebooks import SHARE

CONFIG_NAME = "voila.json"


def sources() -> dict[str, Path]:
    """Where each installed piece comes from: this package's own ``share/`` (package data)."""
    templates = SHARE / "jupyter" / "voila" / "templates"
    return {"ch02": templates / "ch02", "ch02-deck": templates / "ch02-deck",
            "config": SHARE / "etc" / "jupyter" / CONFIG_NAME}


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
