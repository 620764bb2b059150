"""The deck page's own script (publish/deck/js -> the ch02-deck template's static/): built from the committed
source, selected for preheated decks only, and every file the page loads ships with the package.

The browser test (tests/browser/test_lecture_deck.py) runs the page itself over all three decks.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from publish.deck.serve import PAGE_RESOURCES, SHARE, voila_command

JS = Path(__file__).resolve().parents[1] / "publish" / "deck" / "js"
TEMPLATE = SHARE / "voila" / "templates" / "ch02-deck"
STATIC = TEMPLATE / "static"


def test_the_page_script_was_built_from_the_committed_source():
    stamp = json.loads((STATIC / "deck-widgets.build.json").read_text())["built_from_sha256"]
    assert set(stamp) == {"src/index.js", "package.json", "package-lock.json", "build.sh"}
    stale = [f for f, digest in stamp.items() if hashlib.sha256((JS / f).read_bytes()).hexdigest() != digest]
    assert not stale, f"{stale} changed since static/deck-widgets.js was built: cd publish/deck/js && npm ci && sh build.sh"
    # The bundle is that source's: its own step names are in it (minified code keeps string literals).
    bundle = (STATIC / "deck-widgets.js").read_text(encoding="utf-8")
    for name in re.findall(r"mark\('([a-z-]+)'\)", (JS / "src" / "index.js").read_text()):
        assert f'"deck:"+"{name}"' in bundle or f"deck:{name}" in bundle or f'"{name}"' in bundle, name


def test_only_preheated_decks_run_the_deck_page_script(tmp_path):
    nb = tmp_path / "deck.ipynb"
    assert PAGE_RESOURCES == {"ch02_deck_page": "light"}
    # The key=value form of a dict trait (the JSON form is deprecated: Voila warns on every start).
    assert "--VoilaConfiguration.resources=ch02_deck_page=light" in voila_command(nb, 8866, preheat=True)
    # Progressive rendering streams the outputs through Voila's own script: no deck page there.
    assert not any(a.startswith("--VoilaConfiguration.resources") for a in voila_command(nb, 8866, preheat=False))
    template = (TEMPLATE / "index.html.j2").read_text(encoding="utf-8")
    assert template.count("resources.get('ch02_deck_page') == 'light'") >= 3  # head script, slides' place, footer


def test_idle_unconnected_kernels_are_culled_but_not_the_spare(tmp_path):
    # Read by Voila itself, in a folder of its own (the repository root's voila.py is Voila's config file, not the
    # package): the flags reach its kernel manager's config, and its pooled manager skips the pool when culling.
    probe = """
import json, sys
from jupyter_server.services.kernels.kernelmanager import AsyncMappingKernelManager
from voila.app import Voila
from voila.voila_kernel_manager import voila_kernel_manager_factory
app = Voila()
app.parse_command_line(json.loads(sys.argv[1]))
km = AsyncMappingKernelManager(config=app.config)  # the config as the kernel manager reads it (typed)
pooled = voila_kernel_manager_factory(AsyncMappingKernelManager, True, 1)
print(json.dumps({"timeout": km.cull_idle_timeout, "interval": km.cull_interval, "connected": km.cull_connected,
                  "pool_skipped": pooled.cull_kernel_if_idle is not AsyncMappingKernelManager.cull_kernel_if_idle}))
"""
    for preheat in (True, False):
        cmd = voila_command(tmp_path / "deck.ipynb", 8866, preheat=preheat)
        assert cmd[1:3] == ["-m", "voila"]
        out = subprocess.run([sys.executable, "-c", probe, json.dumps(cmd[3:])], cwd=tmp_path, capture_output=True,
                             text=True, check=True).stdout
        assert json.loads(out) == {"timeout": 600, "interval": 60, "connected": False, "pool_skipped": True}, out


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


def test_the_presenters_view_heads_a_slide_with_its_formula_and_no_anchor():
    # The teacher's review: every heading in the presenter's window ended in "¶" (the heading's anchor link), and a
    # formula heading lost its root: "S′=S/dk" for $S' = S/\sqrt{d_k}$ (the typeset formula's text). The page takes
    # the heading the build wrote, formulas as the notes write them, into a template the slide carries.
    from publish.deck import DECKS, build_notebook
    from publish.deck.build import heading_html

    assert heading_html("## 2. 分数矩阵 $S = QK^\\top$\n\ntext") == "2. 分数矩阵 S = QK<sup>T</sup>"
    assert heading_html("**第 3 步：缩放。** $S' = S/\\sqrt{d_k}$，形状不变").startswith(
        "<strong>第 3 步：缩放。</strong> S′ = S/√d<sub>k</sub>，")
    cut = heading_html("## $d_{" + "m" * 60 + "}$")  # cut inside a subscript: the tag is closed before the "…"
    assert cut == "d<sub>" + "m" * 38 + "</sub>…"
    template = (TEMPLATE / "index.html.j2").read_text(encoding="utf-8")
    assert "<template class=\"deck-heading\">{{ d.get('heading', '') }}</template>" in template
    for key in DECKS:
        headings = [c.metadata.deck["heading"] for c in build_notebook(DECKS[key]).cells if c.cell_type == "markdown"]
        shown = [re.sub(r"<[^>]+>", "", h) for h in headings]
        assert not [h for h in headings if re.search(r"¶|\$|\\[A-Za-z]|<ol|<li|<h\d", h)], key
        assert all(s.strip() for s in shown), key
        if key == "2":
            assert any("S′ = S/√d<sub>k</sub>" in h for h in headings)
