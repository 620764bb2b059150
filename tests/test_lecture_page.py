"""The deck page's own script (helpers/lecture/js -> the ch02-deck template's static/): built from the committed
source, selected for preheated decks only, and every file the page loads ships with the package.

The browser test (tests/browser/test_lecture_deck.py) runs the page itself over all three decks.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from helpers.lecture.serve import PAGE_RESOURCES, SHARE, voila_command

JS = Path(__file__).resolve().parents[1] / "helpers" / "lecture" / "js"
TEMPLATE = SHARE / "voila" / "templates" / "ch02-deck"
STATIC = TEMPLATE / "static"


def test_the_page_script_was_built_from_the_committed_source():
    stamp = json.loads((STATIC / "deck-widgets.build.json").read_text())["built_from_sha256"]
    assert set(stamp) == {"src/index.js", "package.json", "package-lock.json", "build.sh"}
    stale = [f for f, digest in stamp.items() if hashlib.sha256((JS / f).read_bytes()).hexdigest() != digest]
    assert not stale, f"{stale} changed since static/deck-widgets.js was built: cd helpers/lecture/js && npm ci && sh build.sh"
    # The bundle is that source's: its own step names are in it (minified code keeps string literals).
    bundle = (STATIC / "deck-widgets.js").read_text(encoding="utf-8")
    for name in re.findall(r"mark\('([a-z-]+)'\)", (JS / "src" / "index.js").read_text()):
        assert f'"deck:"+"{name}"' in bundle or f"deck:{name}" in bundle or f'"{name}"' in bundle, name


def test_only_preheated_decks_run_the_deck_page_script(tmp_path):
    nb = tmp_path / "deck.ipynb"
    arg = f"--VoilaConfiguration.resources={json.dumps(PAGE_RESOURCES)}"
    assert PAGE_RESOURCES == {"ch02_deck_page": "light"}
    assert arg in voila_command(nb, 8866, preheat=True)
    # Progressive rendering streams the outputs through Voila's own script: no deck page there.
    assert not any(a.startswith("--VoilaConfiguration.resources") for a in voila_command(nb, 8866, preheat=False))
    template = (TEMPLATE / "index.html.j2").read_text(encoding="utf-8")
    assert template.count("resources.get('ch02_deck_page') == 'light'") >= 3  # head script, slides' place, footer


def test_every_file_the_page_loads_ships_in_the_template():
    template = (TEMPLATE / "index.html.j2").read_text(encoding="utf-8")
    loaded = set(re.findall(r"ch02-deck/static/([\w.-]+)", template))
    loaded |= {m for m in re.findall(r'"([\w.-]+\.js)"', template) if m.startswith("mathjax")}
    assert {"deck-widgets.js", "deck-widgets.css", "mathjax-tex-chtml-full.js", "NotoSansSC-ch02.otf"} <= loaded
    missing = sorted(f for f in loaded if not (STATIC / f).is_file())
    assert not missing, missing
    # MathJax's CHTML output asks for its fonts by name in the folder the page names (chtml.fontURL: static/).
    mathjax = (STATIC / "mathjax-tex-chtml-full.js").read_text(encoding="utf-8")
    fonts = set(re.findall(r"MathJax_[A-Za-z]+-?[A-Za-z]*\.woff", mathjax))
    assert len(fonts) >= 15
    assert not sorted(f for f in fonts if not (STATIC / f).is_file())
    assert 'fontURL: stat.replace(' in template and "mathjax-tex-chtml-full.js" in template
    # The licences of what is bundled ship with it.
    assert (STATIC / "mathjax-LICENSE.txt").is_file() and (STATIC / "deck-widgets.js.LEGAL.txt").is_file()
