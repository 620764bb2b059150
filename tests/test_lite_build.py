"""Where ``python -m publish lite OUT`` puts the browser edition (publish/lite.py), without building it.

The README says to open ``OUT/lab/index.html``. A fake built site (what ``jupyter lite build`` leaves in its
``_output`` folder) is placed into OUT the way a real build is, so each kind of OUT the command accepts is
tested in milliseconds: missing, an existing empty folder (it used to end up in ``OUT/_output/``), a
browser edition built before; and each kind it must refuse, before anything is downloaded or built.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from publish import lite


def _built(tmp_path: Path) -> Path:
    """A stand-in for JupyterLite's output folder: the lab page, a static file, the manifest."""
    built = tmp_path / "work" / "_output"
    (built / "lab").mkdir(parents=True)
    (built / "lab" / "index.html").write_text("<!DOCTYPE html><title>lab</title>", encoding="utf-8")
    (built / "static" / "pyodide").mkdir(parents=True)
    (built / "static" / "pyodide" / "pyodide.js").write_text("// pyodide", encoding="utf-8")
    (built / "browser-edition.json").write_text("{}", encoding="utf-8")
    return built


def _tree(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


SITE = ["browser-edition.json", "lab/index.html", "static/pyodide/pyodide.js"]


def test_an_existing_empty_folder_receives_the_site_itself(tmp_path):
    out = tmp_path / "OUT"
    out.mkdir()
    lite.place(_built(tmp_path), out)
    assert _tree(out) == SITE, "OUT/lab/index.html must exist (not OUT/_output/lab/index.html)"


def test_a_missing_folder_is_created_with_its_parents(tmp_path):
    out = tmp_path / "a" / "b" / "OUT"
    lite.place(_built(tmp_path), out)
    assert _tree(out) == SITE


def test_a_previous_browser_edition_is_replaced(tmp_path):
    out = tmp_path / "OUT"
    (out / "files").mkdir(parents=True)
    (out / "files" / "02-99-gone.ipynb").write_text("{}", encoding="utf-8")
    (out / "browser-edition.json").write_text('{"old": true}', encoding="utf-8")
    lite.place(_built(tmp_path), out)
    assert _tree(out) == SITE
    assert (out / "browser-edition.json").read_text(encoding="utf-8") == "{}"


@pytest.mark.parametrize("kind", ["a folder of other files", "a file"])
def test_anything_else_is_refused_before_building_and_left_as_it_was(tmp_path, kind):
    out = tmp_path / "OUT"
    if kind == "a file":
        out.write_text("notes", encoding="utf-8")
    else:
        out.mkdir()
        (out / "notes.txt").write_text("notes", encoding="utf-8")
    before = out.read_bytes() if out.is_file() else _tree(out)
    cache = tmp_path / "cache"
    with pytest.raises(SystemExit, match="refusing to overwrite"):
        lite.build(out, cache)
    assert not cache.exists(), "the build downloaded something before refusing OUT"
    with pytest.raises(SystemExit, match="refusing to overwrite"):
        lite.place(_built(tmp_path), out)
    assert (out.read_bytes() if out.is_file() else _tree(out)) == before


def test_the_command_line_refuses_with_the_reason(tmp_path):
    out = tmp_path / "OUT"
    out.mkdir()
    (out / "notes.txt").write_text("notes", encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        lite.main([str(out), "--cache-dir", str(tmp_path / "cache")])
    assert "is not a browser edition" in str(exc.value)
