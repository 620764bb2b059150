"""Every notebook, opened in a real JupyterLab in headless Chromium, as a learner would.

The lane boots JupyterLab once, in one tab; each notebook opens there on a new kernel, after the last one's
kernel was shut down and its tab closed (``lab_driver.open_next``; a failed test closes the tab, so the next
boots afresh). So only the first notebook meets a cold JupyterLab: the run-all and slider times in the summary
below are a warm app's. No request may go to a host other than 127.0.0.1. For each notebook: open it, Run All
Cells, wait for the kernel to go idle, and check that every code cell ran and nothing shows an error (``shows-warning`` cells may write
to stderr). For a notebook with
widgets: every widget view renders (no "Error displaying widget") and every slider,
moved with the keyboard and with a mouse drag, changes what it drives (an image or a
text readout) and the view settles within ``BROWSER_WIDGET_BUDGET_S`` seconds (default
10); moved back by keyboard to its first value, the view is pixel-for-pixel the first
one again (no stale or out-of-order render). Every checkbox is clicked the same way.

2.13 runs with the real model, found in the cache as the README's first command leaves it (2.13 fetches it
on first use; CI fetches it beforehand): its load cell must say the weights were found and verified. Its
attention explorer is then driven like a learner would: an empty sentence shows a Chinese message and keeps
the figure; typing a new sentence key by key changes nothing until Enter (the box keeps the focus: Enter took it),
the 编码 button takes a sentence too; choosing a token, a layer and a head, and toggling the causal mask each
change the figure (its decoded pixels) and the readout follows the control; the two save buttons write a
PNG and an SVG that decode as such, named in the panel.

A probe notebook with a known-good slider -> Image widget proves the harness itself,
and its broken twin (the callback raises) proves the harness can fail.

Screenshots land in ``artifacts/screenshots/`` (git-ignored); a summary of the slider
timings in ``artifacts/screenshots/browser-summary.json``.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
import urllib.parse
import xml.etree.ElementTree as ET
from pathlib import Path

import lab_driver as lab
import nbformat
import pytest

from conftest import ARTIFACTS, _missing

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SERIES = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

# Notebooks whose widget MUST offer at least one slider (once the notebook exists), so
# a renamed CSS class or a widget that silently stopped rendering cannot pass vacuously.
MUST_HAVE_SLIDERS = {"02-05-scaling-by-sqrt-dk.ipynb", "02-10-causal-mask.ipynb", lab.PROBE_NAME}

SUMMARY: dict[str, dict] = {}
MODEL_NOTEBOOK = "02-13-real-model-attention.ipynb"


@pytest.fixture(scope="module", autouse=True)
def _write_summary(artifacts_dir):
    yield
    if SUMMARY:
        (artifacts_dir / "browser-summary.json").write_text(lab.dump(SUMMARY), encoding="utf-8")


class _Tab:
    """The lane's one JupyterLab tab: booted by its first notebook, each next one opened in it on a new kernel
    (``lab.open_next``); a test that fails closes it (with a screenshot), so the next one boots afresh.

    A hand-over that fails (the last kernel would not shut down, a dialog stayed open ...) is not the next
    notebook's fault: that notebook opens again in a freshly booted tab, and its test then fails naming both
    (``handover``). Every request the tab makes to a host other than 127.0.0.1 is kept in ``foreign``."""

    def __init__(self, context):
        self.context, self.page, self.shown = context, None, None
        self.handover: str | None = None
        self.foreign: list[str] = []

    def _boot(self, lab_server, name: str) -> int:
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.page.on("request", lambda r: self.foreign.append(r.url)
                     if urllib.parse.urlsplit(r.url).scheme in {"http", "https"}
                     and urllib.parse.urlsplit(r.url).hostname != "127.0.0.1" else None)
        return lab.open_notebook(self.page, lab_server, name)

    def open(self, lab_server, name: str):
        """The tab, with ``name`` open in it, kernel idle; how many cells it opened hidden."""
        self.handover, self.foreign = None, []
        if self.page is None:
            hidden = self._boot(lab_server, name)
        else:
            try:
                hidden = lab.open_next(self.page, lab_server, self.shown, name)
            except Exception as exc:  # the hand-over's problem, not name's: say so, and give name a fresh tab
                self.handover = f"opening {name} where {self.shown} ran failed ({exc})"
                self.close(f"handover-to-{name}", ARTIFACTS)
                with contextlib.suppress(Exception):
                    lab_server.shutdown_kernels()
                hidden = self._boot(lab_server, name)
        self.shown = name
        return self.page, hidden

    def close(self, failed_as: str | None = None, artifacts_dir: Path | None = None) -> None:
        try:
            if self.page is not None and failed_as and artifacts_dir is not None:
                safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in failed_as)
                with contextlib.suppress(Exception):
                    self.page.screenshot(path=artifacts_dir / f"FAILED-{safe}.png", full_page=True)
            if self.page is not None:
                self.page.close()
        finally:
            self.page = self.shown = None


@pytest.fixture(scope="module")
def _lab_tab(browser_context, lab_server):
    tab = _Tab(browser_context)
    yield tab
    tab.close()
    with contextlib.suppress(Exception):
        lab_server.shutdown_kernels()


@pytest.fixture
def tab(request, _lab_tab, lab_server, artifacts_dir):
    """The lane's tab for one test; after the test, what failed outside its own assertions fails it too."""
    yield _lab_tab
    report = getattr(request.node, "_browser_report_call", None)
    if report is None or report.failed or hasattr(report, "wasxfail"):
        _lab_tab.close(request.node.name, artifacts_dir)
        with contextlib.suppress(Exception):
            lab_server.shutdown_kernels()
    if _lab_tab.handover:
        pytest.fail(f"{_lab_tab.handover}; in a fresh tab: {'failed' if report is None or report.failed else 'passed'}",
                    pytrace=False)
    if _lab_tab.foreign:
        pytest.fail(f"{_lab_tab.shown or request.node.name} asked other hosts: {sorted(set(_lab_tab.foreign))[:10]}",
                    pytrace=False)


def _run_and_check(tab: _Tab, lab_server, name: str) -> tuple:
    page, hidden = tab.open(lab_server, name)
    optional = [c for c in nbformat.read(lab_server.root / name, as_version=4).cells
                if c.cell_type == "markdown" and c.source.lstrip("# ").startswith("选读")]
    if optional:  # JupyterLab honours the committed collapse state: the notebook opens on its core path
        assert hidden > 0, f"{name}: has 选读 sections but JupyterLab opened it with every cell shown"
    run = lab.run_all(page, name)
    tags = lab.notebook_tags(lab_server.root / name)
    problems = lab.problems(run, tags)
    assert not problems, f"{name} in JupyterLab:\n" + "\n".join(problems)
    # The same, as rendered on screen: no error box (a shows-warning cell's stderr is one too).
    shown = [e for e in lab.dom_errors(page) if "shows-warning" not in tags.get(e["cell"], [])]
    assert not shown, f"{name}: error output on screen:\n{lab.dump(shown)}"
    return page, run


@pytest.mark.parametrize("name", SERIES + [lab.PROBE_NAME])
def test_notebook_runs_and_widgets_respond(tab, lab_server, artifacts_dir, widget_budget_s, name, request):
    request.node.user_properties.append(("executed", ("JupyterLab (Chromium)", name)))
    page, run = _run_and_check(tab, lab_server, name)
    stem = Path(name).stem
    record = SUMMARY.setdefault(name, {})
    record["run_all_seconds"] = round(run.seconds, 2)

    figure = lab.first_figure_cell(run)
    if figure is not None:
        lab.screenshot_cell_output(page, figure, artifacts_dir / f"{stem}-figure.png")

    if not lab.has_widget(lab_server.root / name):
        return

    views = lab.wait_widgets_rendered(page, run)
    assert views > 0, f"{name} uses widgets but no widget view was displayed after Run All"
    errors = lab.widget_display_errors(page)
    assert not errors, f"{name}: {errors}"
    for cell in lab.widget_cells(run):
        lab.screenshot_cell_output(page, cell, artifacts_dir / f"{stem}-widget-cell{cell}.png")

    found = [s for s in lab.sliders(page) if not s["disabled"]]
    if name in MUST_HAVE_SLIDERS:
        assert found, f"{name}: expected at least one slider, found none"
    if found:  # the learner's first view of the widget, before anything is moved
        lab.screenshot_lab_at_cell(page, found[0]["cell"], artifacts_dir / f"{stem}-lab.png")
    results = []
    first_views = {}
    for info in found:
        first_views.setdefault(info["cell"], lab.content(page, info["k"]))
    for info in found:
        original = lab.content(page, info["k"])
        there = lab.move_slider(page, info, "keyboard", widget_budget_s, artifacts_dir, stem)
        back = lab.move_slider(page, info, "keyboard", widget_budget_s, artifacts_dir, stem,
                               direction="left" if there.direction == "right" else "right")
        returned = lab.content(page, info["k"])
        drag = lab.move_slider(page, info, "mouse", widget_budget_s, artifacts_dir, stem)
        for res in (there, back, drag):
            results.append(res)
            how = f"{res.how} ({res.direction})"
            assert res.readout_after != res.readout_before, (
                f"{name}: slider '{res.label}' (cell {res.cell}) did not move by {how}: "
                f"{res.readout_before} -> {res.readout_after}")
            assert res.driven_changed, (
                f"{name}: slider '{res.label}' (cell {res.cell}) moved by {how} "
                f"({res.readout_before} -> {res.readout_after}) but nothing it drives changed "
                f"(image / readout) within {2 * widget_budget_s + 3:.1f} s")
            assert res.seconds <= widget_budget_s, (
                f"{name}: slider '{res.label}' moved by {how}: the view took {res.seconds:.2f} s "
                f"to settle (budget {widget_budget_s} s)")
            if res is back:
                # Same value again -> the same picture and text: the view shows the slider's
                # value, not a stale or out-of-order render.
                assert back.readout_after == there.readout_before, (there, back)
                assert returned == original, (
                    f"{name}: slider '{res.label}' returned to {back.readout_after} but the view "
                    f"differs from the one first shown for that value:\nfirst: {original}\nnow:   {returned}")
    for info in lab.checkboxes(page):
        res = lab.toggle_checkbox(page, info, widget_budget_s)
        results.append(res)
        assert res.readout_after != res.readout_before, f"{name}: checkbox '{res.label}' did not toggle"
        assert res.driven_changed, (
            f"{name}: checkbox '{res.label}' (cell {res.cell}) toggled but nothing it drives changed")
        assert res.seconds <= widget_budget_s, (
            f"{name}: checkbox '{res.label}': the view took {res.seconds:.2f} s (budget {widget_budget_s} s)")
    # Buttons (the explorer's presets and reset): each preset changes the view; "reset" (重置)
    # brings back the very first view the learner saw, pixel for pixel.
    # (2.13's 编码 button takes the sentence in the box; on the sentence already shown it rightly changes nothing:
    # _drive_the_explorer presses it on a new one.)
    pressed = [b for b in lab.buttons(page) if b["label"] != "编码"]
    if name == "02-05-scaling-by-sqrt-dk.ipynb":
        assert len(pressed) >= 2, f"{name}: expected preset and reset buttons, found {pressed}"
    for info in pressed:
        res = lab.click_button(page, info, widget_budget_s)
        results.append(res)
        assert res.driven_changed, f"{name}: button '{res.label}' (cell {res.cell}) changed nothing it drives"
        assert res.seconds <= widget_budget_s, f"{name}: button '{res.label}': the view took {res.seconds:.2f} s"
        if "重置" in info["label"] and info["cell"] in first_views:
            slider_k = next(s["k"] for s in found if s["cell"] == info["cell"])
            assert lab.content(page, slider_k) == first_views[info["cell"]], (
                f"{name}: '{info['label']}' did not bring back the first view")

    # Predict-then-run questions: after Run All each reveal under a question is still blind; answered like a
    # learner, the feedback (in Chinese) shows, the answer locks, and the reveal below shows its result.
    predict_cells = [i for i, t in lab.notebook_tags(lab_server.root / name).items() if "predict" in t]
    asked = lab.predictions(page)
    assert len(asked) == len(predict_cells), f"{name}: {len(predict_cells)} predict cells, {len(asked)} questions shown"
    for info in asked:
        reveal = page.locator(f'[data-nbtest-index="{info["cell"] + 1}"]').first
        assert reveal.locator(".ch02-reveal-hidden").count() == 1 and reveal.locator(".ch02-reveal-shown").count() == 0, (
            f"{name}: after Run All the reveal under the question in cell {info['cell']} is not blind")
        answer = lab.answer_prediction(page, info, widget_budget_s)
        reveal.locator(".ch02-reveal-shown").first.wait_for(timeout=(widget_budget_s + 3) * 1000)   # the vote shows it
        assert reveal.locator(".ch02-reveal-hidden").count() == 0
        assert answer["feedback"].startswith(("✅", "❌")) and "解释" in answer["feedback"], (
            f"{name}: question in cell {info['cell']} gave no verdict + explanation: {answer['feedback']!r}")
        assert answer["locked"], f"{name}: question in cell {info['cell']} did not lock after the answer"
        assert answer["seconds"] <= widget_budget_s, f"{name}: feedback took {answer['seconds']:.2f} s"
    record["predictions"] = len(asked)
    record["controls"] = [
        {"cell": r.cell, "label": r.label, "how": r.how, "direction": r.direction, "from": r.readout_before,
         "to": r.readout_after, "seconds": round(r.seconds, 3)} for r in results]
    assert not lab.widget_display_errors(page)
    if name == MODEL_NOTEBOOK:
        record["explorer"] = _drive_the_explorer(page, lab_server, run, widget_budget_s, artifacts_dir)
        assert not lab.widget_display_errors(page)


# --------------------------------------------------------------------------- 2.13's attention explorer

def _drive_the_explorer(page, lab_server, run: lab.NotebookRun, budget_s: float, artifacts_dir: Path) -> dict:
    nb = nbformat.read(lab_server.root / MODEL_NOTEBOOK, as_version=4)
    load = next(i for i, c in enumerate(nb.cells)
                if c.cell_type == "code" and re.search(r"^HAVE\s*=", c.source, re.MULTILINE))
    printed = "".join(o["text"] or "" for o in run.cells[load]["outputs"] if o["output_type"] == "stream")
    if lab.model_loaded_line(True) not in printed:
        _missing(f"2.13 ran in JupyterLab without its model (is it in the cache? `python -m helpers.model fetch`): "
                 f"its load cell printed {printed[-500:]!r}")
    cell = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "attention_explorer(" in c.source)
    area = page.locator(f'.jp-Cell[data-nbtest-index="{cell}"] .jp-Cell-outputArea').first
    area.scroll_into_view_if_needed()
    menu = {label: area.locator(".widget-dropdown").filter(has=page.locator(f'label:text-is("{label}")'))
                       .locator("select").first for label in ("token", "层", "头")}
    moves = {}

    def check(what: str, before: dict, after: dict, seconds: float | None) -> dict:
        assert seconds is not None and after["pixels"] != before["pixels"], (
            f"{MODEL_NOTEBOOK}: the explorer's figure did not change after {what}:\n{before}\n{after}")
        assert seconds <= budget_s, f"{MODEL_NOTEBOOK}: {what}: the figure took {seconds:.2f} s (budget {budget_s} s)"
        assert after["message"] == "", f"{MODEL_NOTEBOOK}: {what}: the panel says {after['message']!r}"
        moves[what] = round(seconds, 3)
        return after

    def choose(label: str, option: str):
        """Pick ``option`` (as read, nbsp as a space) from the menu labelled ``label``."""
        shown = [t.replace("\xa0", " ") for t in menu[label].locator("option").all_text_contents()]
        assert option in shown, f"{MODEL_NOTEBOOK}: the {label} menu offers {shown}, not {option!r}"
        return lambda: menu[label].select_option(index=shown.index(option))

    first = lab.explorer_view(page, cell)
    assert first["pixels"] and first["readout"] and first["tokens"], f"{MODEL_NOTEBOOK}: the explorer shows {first}"

    # Bad input: a Chinese message in the panel, the last good figure kept, no traceback.
    before, after, _ = lab.explorer_enter(page, cell, "", budget_s)
    assert re.search(r"[\u4e00-\u9fff]", after["message"]) and after["pixels"] == before["pixels"], (
        f"{MODEL_NOTEBOOK}: an empty sentence should keep the figure and say why in Chinese: {after}")

    # A sentence of one's own: new tokens, as the tokenizer split them, in the menu and the figure.
    own = "The trophy didn't fit in the suitcase because it was too big."
    after = check("typing a new sentence, Enter", *lab.explorer_enter(page, cell, own, budget_s))
    assert after["tokens"] != first["tokens"] and any(t.endswith(": trophy") for t in after["tokens"]), after["tokens"]
    # The 编码 button beside the box does what Enter does.
    box = area.locator(".widget-text input").first
    box.fill("The cat sat on the trophy.")
    shown = check("the 编码 button", *lab.explorer_move(
        page, cell, area.locator(".widget-button", has_text="编码").first.click, budget_s))
    assert [t.split(": ", 1)[1] for t in shown["tokens"]][1:4] == ["the", "cat", "sat"], shown["tokens"]
    after = check("typing the sentence again, Enter", *lab.explorer_enter(page, cell, own, budget_s))
    trophy = next(t for t in after["tokens"] if t.endswith(": trophy"))
    after = check("choosing a token", *lab.explorer_move(page, cell, choose("token", trophy),
                                                      budget_s))
    assert "trophy（下标" in after["readout"], after["readout"]          # the readout names the chosen token
    after = check("choosing a layer", *lab.explorer_move(page, cell, choose("层", "第 2 层"),
                                                      budget_s))
    assert after["readout"].startswith("第 2 层"), after["readout"]
    after = check("choosing a head", *lab.explorer_move(page, cell, choose("头", "第 7 头"),
                                                     budget_s))
    assert after["readout"].startswith("第 2 层 第 7 头"), after["readout"]
    causal = area.locator('.widget-checkbox input[type="checkbox"]').first
    was = causal.is_checked()
    before, after, seconds = lab.explorer_move(page, cell, causal.click, budget_s)
    check("toggling the causal mask", before, after, seconds)
    assert causal.is_checked() != was and ("因果掩码" in after["readout"]) != ("因果掩码" in before["readout"])
    lab.screenshot_cell_output(page, cell, artifacts_dir / f"{Path(MODEL_NOTEBOOK).stem}-explorer-moved.png")

    # The save buttons write the figure shown now, as PNG and as SVG, where the panel says.
    saved = {}
    for suffix in (".png", ".svg"):
        button = area.locator(".widget-button", has_text=f"保存 {suffix[1:].upper()}").first
        start = time.time()
        button.click()
        page.wait_for_function(
            """([cell, suffix]) => Array.from(document.querySelectorAll(
                   `.jp-Cell[data-nbtest-index="${cell}"] .widget-html-content code`))
                 .some(n => n.textContent.endsWith(suffix))""", arg=[cell, suffix], timeout=(budget_s + 3) * 1000)
        named = lab.explorer_view(page, cell)["message"]
        path = lab_server.root / re.search(r"已保存：(\S+)", named).group(1)  # relative to the kernel's folder
        assert path.suffix == suffix and "L2H7" in path.name and path.is_file() and path.stat().st_mtime >= start - 1, \
            f"{MODEL_NOTEBOOK}: {named!r}: no fresh file of the view shown at {path}"
        saved[suffix] = path
    import matplotlib.image

    png = saved[".png"].read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pixels = matplotlib.image.imread(saved[".png"])
    assert pixels.ndim == 3 and pixels.shape[0] > 200 and pixels.shape[1] > 300 and pixels.std() > 0
    svg = "{http://www.w3.org/2000/svg}"
    root = ET.parse(saved[".svg"]).getroot()
    assert root.tag == f"{svg}svg" and root.get("width") and root.get("height")
    # the data drawn, not an empty page: the 72 heads' grid is an embedded image, the bars and letters are paths
    assert len(list(root.iter(f"{svg}image"))) >= 1 and len(list(root.iter(f"{svg}path"))) > len(first["tokens"])
    return moves


def test_a_broken_callback_is_caught(tab, lab_server, widget_budget_s):
    """Negative control: the probe's callback raises -> the slider moves, nothing changes,
    and the check that the real notebooks must pass reports it."""
    name = lab.BROKEN_PROBE_NAME
    page, run = _run_and_check(tab, lab_server, name)
    lab.wait_widgets_rendered(page, run)
    (info,) = lab.sliders(page)
    res = lab.move_slider(page, info, "keyboard", widget_budget_s, None, "broken")
    assert res.readout_after != res.readout_before, "the slider itself should still move"
    assert not res.driven_changed, "a raising callback must leave the image unchanged"


def test_server_settings_are_isolated(lab_server):
    """News/update pop-ups and autosave are off, through overrides.json, in a temp dir."""
    def default(plugin, key):
        # overrides.json replaces the schema defaults the server hands to the page
        return lab_server.api("GET", f"/lab/api/settings/{plugin}")["schema"]["properties"][key]["default"]

    assert default("@jupyterlab/apputils-extension:notification", "fetchNews") == "false"
    assert default("@jupyterlab/apputils-extension:notification", "checkForUpdates") is False
    assert default("@jupyterlab/docmanager-extension:plugin", "autosave") is False
    assert default("@jupyterlab/notebook-extension:tracker", "windowingMode") == "none"
    assert ROOT not in lab_server.root.parents and lab_server.root != ROOT / "notebooks"
    assert json.loads((lab_server.root.parent / "app-settings" / "overrides.json").read_text())
