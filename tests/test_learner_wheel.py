"""The wheel the browser edition preloads into every student's tab is the learner package alone."""

from __future__ import annotations

import zipfile
from pathlib import Path

from publish.lite import build_helpers_wheel, wheel_metadata

ROOT = Path(__file__).resolve().parents[1]


def test_the_preloaded_wheel_holds_helpers_only(tmp_path):
    wheel = build_helpers_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    package = sorted(n for n in names if ".dist-info/" not in n)
    assert package and all(n.startswith("helpers/") and n.endswith((".py", ".otf")) for n in package), package
    expected = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "helpers").rglob("*.py")
                      if "__pycache__" not in p.parts) + ["helpers/ui/fonts/NotoSansSC-ch02-plots.otf"]
    assert package == sorted(expected)    # every module of helpers and the figures' font, nothing of publish
    name, _, requires, imports = wheel_metadata(wheel)
    assert imports == ["helpers"]
    assert {"numpy", "matplotlib", "ipywidgets"} <= set(requires)
    assert not any(r in requires for r in ("voila", "nbgrader", "sphinx", "jupyterlite-core"))
