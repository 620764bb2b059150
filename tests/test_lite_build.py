"""Where ``python -m publish lite OUT`` puts the browser edition (publish/lite.py), without building it.

The README says to open ``OUT/lab/index.html``. A fake built site (what ``jupyter lite build`` leaves in its
``_output`` folder) is placed into OUT the way a real build is, so each kind of OUT the command accepts is
tested in milliseconds: missing, an existing empty folder (it used to end up in ``OUT/_output/``), a
browser edition built before; and each kind it must refuse, before anything is downloaded or built.

2.13's weights in the site, with the tiny stand-in release of ``model_fakes`` pinned in place of the real one:
the build copies them verified, in parts (a file that is not the pinned one stops it), and the kernel's side
(``ensure_minilm`` under Pyodide, its requests answered from that folder) joins, verifies and loads them, or prints a
Chinese message without a traceback when a part is corrupt or the site cannot be reached.
"""

from __future__ import annotations

from pathlib import Path

import re

import numpy as np
import pytest

import helpers.model.browser as MB
import helpers.model.real_model as RM
from model_fakes import pin_tiny_release, tiny_files
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


# --------------------------------------------------------------------------- 2.13's weights in the site


@pytest.fixture
def tiny_site(tmp_path, monkeypatch):
    """The tiny release pinned, in 16-byte parts, copied into a site folder by the build; a Pyodide kernel stand-in
    whose requests read that folder. Returns (source folder, site folder, URLs requested)."""
    files = tiny_files()
    pin_tiny_release(monkeypatch, tmp_path, files)
    monkeypatch.setattr(MB, "PART_BYTES", 4096)
    src = tmp_path / "model"
    src.mkdir()
    for name, data in files.items():
        (src / name).write_bytes(data)
    site = tmp_path / "site" / MB.SITE_FOLDER
    requested: list[str] = []

    def get(url: str) -> bytes:
        requested.append(url)
        path = site / url.removeprefix("https://school.example/site/" + MB.SITE_FOLDER + "/")
        if not path.is_file():
            raise OSError(f"GET {url}: HTTP 404 File not found")
        return path.read_bytes()

    monkeypatch.setattr(MB, "_get", get)
    monkeypatch.setattr(MB, "site_url", lambda: "https://school.example/site/" + MB.SITE_FOLDER + "/")
    monkeypatch.setattr(RM.sys, "platform", "emscripten")
    return src, site, requested


def test_the_build_copies_the_pinned_weights_in_parts(tiny_site):
    src, site, _ = tiny_site
    entry = lite.add_model(src, site)
    parts = MB.part_names()
    assert len(parts) == -(-(src / "model.safetensors").stat().st_size // 4096) > 1
    assert sorted(p.name for p in site.iterdir()) == sorted([*parts, "vocab.txt", "config.json"])
    assert b"".join((site / n).read_bytes() for n in parts) == (src / "model.safetensors").read_bytes()
    assert entry["parts"] == parts and entry["folder"] == MB.SITE_FOLDER


@pytest.mark.parametrize("name", ["model.safetensors", "vocab.txt"])
def test_the_build_refuses_a_file_that_is_not_the_pinned_one(tiny_site, name):
    src, site, _ = tiny_site
    data = bytearray((src / name).read_bytes())
    data[-2] ^= 0x01
    (src / name).write_bytes(bytes(data))
    with pytest.raises(SystemExit, match="not the pinned"):
        lite.add_model(src, site)
    assert not any(p.name.startswith("model.safetensors") for p in site.glob("*")), "unverified parts left in the site"


def test_2_13_in_the_browser_loads_the_sites_weights_verified(tiny_site, capsys):
    src, site, requested = tiny_site
    lite.add_model(src, site)
    model = RM.ensure_minilm()
    out = capsys.readouterr().out
    assert model is not None and re.search(r"[\u4e00-\u9fff]", out) and "SHA-256" in out
    assert requested == [MB.site_url() + n for n in ("vocab.txt", "config.json", *MB.part_names())]
    # the model is the pinned one, loaded from memory: the same numbers as from the folder through the local path
    local = RM.load_minilm(src)
    tokens, got = model.run("the animal didn't cross the street")
    assert tokens == local.run("the animal didn't cross the street")[0]
    np.testing.assert_array_equal(got.attentions, local.run("the animal didn't cross the street")[1].attentions)
    assert not any(w.flags.writeable for w in model.weights.values())


def test_2_13_in_the_browser_refuses_a_corrupt_part_in_chinese(tiny_site, capsys):
    src, site, _ = tiny_site
    lite.add_model(src, site)
    part = site / MB.part_names()[1]
    data = bytearray(part.read_bytes())
    data[7] ^= 0x01
    part.write_bytes(bytes(data))
    assert RM.ensure_minilm() is None
    out = capsys.readouterr().out
    assert "没有通过 SHA-256 校验" in out and "Traceback" not in out


def test_2_13_in_the_browser_without_the_site_says_so_in_chinese(tiny_site, capsys):
    src, site, _ = tiny_site
    lite.add_model(src, site)
    (site / MB.part_names()[-1]).unlink()
    assert RM.ensure_minilm() is None
    out = capsys.readouterr().out
    assert "没能从本站取到模型权重" in out and "Traceback" not in out
