"""Environment check for the index notebook: versions, and whether widgets can render."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import sys
from pathlib import Path

__all__ = ["environment_report", "print_environment_report"]

PACKAGES = ("numpy", "matplotlib", "ipywidgets", "jupyterlab", "jupyterlab_widgets", "ipykernel")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment_report() -> dict:
    """Versions of the packages the series needs, and the widget-extension status.

    Returns
    -------
    dict
        ``{"python": str, "packages": {name: version or None},
        "widget_extension": bool, "problems": [str, ...]}``
    """
    packages = {name: _version(name) for name in PACKAGES}
    ext_dirs = [Path(p) / "share" / "jupyter" / "labextensions" / "@jupyter-widgets" / "jupyterlab-manager"
                for p in {sys.prefix, sys.base_prefix}]
    widget_extension = importlib.util.find_spec("jupyterlab_widgets") is not None and any(d.is_dir() for d in ext_dirs)
    problems = []
    if sys.version_info < (3, 11):
        problems.append(f"Python {sys.version.split()[0]} is too old: the series needs Python >= 3.11.")
    for name in ("numpy", "matplotlib", "ipywidgets"):
        if packages[name] is None:
            problems.append(f"{name} is not installed: run `pip install -e .` in the repository.")
    if not widget_extension:
        problems.append(
            "The JupyterLab widget extension (jupyterlab_widgets) is missing from this environment: sliders "
            "will show as text. Run `pip install -e \".[lab]\"` (it brings jupyterlab and the extension), then restart JupyterLab."
        )
    return {"python": sys.version.split()[0], "packages": packages, "widget_extension": widget_extension, "problems": problems}


def print_environment_report() -> bool:
    """Print the report as a small table; return True when nothing is wrong."""
    rep = environment_report()
    print(f"{'python':<20} {rep['python']}")
    for name, ver in rep["packages"].items():
        print(f"{name:<20} {ver or 'NOT INSTALLED'}")
    print(f"{'widget extension':<20} {'ok' if rep['widget_extension'] else 'MISSING'}")
    if rep["problems"]:
        for p in rep["problems"]:
            print("PROBLEM:", p)
    else:
        print("Everything needed is here.")
    return not rep["problems"]
