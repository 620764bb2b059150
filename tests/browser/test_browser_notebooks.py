"""Every notebook, opened in a real JupyterLab in headless Chromium, as a learner would.

For each notebook: open it, Run All Cells, wait for the kernel to go idle, and check
that every code cell ran and nothing shows an error (cells tagged ``raises-exception``
may show theirs; ``shows-warning`` cells may write to stderr). For a notebook with
widgets: every widget view renders (no "Error displaying widget") and every slider,
moved with the keyboard and with a mouse drag, changes what it drives (an image or a
text readout) and the view settles within ``BROWSER_WIDGET_BUDGET_S`` seconds (default
2); moved back by keyboard to its first value, the view is pixel-for-pixel the first
one again (no stale or out-of-order render). Every checkbox is clicked the same way.

A probe notebook with a known-good slider -> Image widget proves the harness itself,
and its broken twin (the callback raises) proves the harness can fail.

Screenshots land in ``artifacts/screenshots/`` (git-ignored); a summary of the slider
timings in ``artifacts/screenshots/browser-summary.json``.
"""

from __future__ import annotations

import json
from pathlib import Path

import lab_driver as lab
import nbformat
import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SERIES = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))

# Notebooks whose widget MUST offer at least one slider (once the notebook exists), so
# a renamed CSS class or a widget that silently stopped rendering cannot pass vacuously.
MUST_HAVE_SLIDERS = {"02-05-scaling-by-sqrt-dk.ipynb", "02-10-causal-mask.ipynb", lab.PROBE_NAME}

SUMMARY: dict[str, dict] = {}


@pytest.fixture(scope="module", autouse=True)
def _write_summary(artifacts_dir):
    yield
    if SUMMARY:
        (artifacts_dir / "browser-summary.json").write_text(lab.dump(SUMMARY), encoding="utf-8")


def _run_and_check(page, lab_server, name: str) -> lab.NotebookRun:
    hidden = lab.open_notebook(page, lab_server, name)
    optional = [c for c in nbformat.read(lab_server.root / name, as_version=4).cells
                if c.cell_type == "markdown" and c.source.lstrip("# ").startswith("选读")]
    if optional:  # JupyterLab honours the committed collapse state: the notebook opens on its core path
        assert hidden > 0, f"{name}: has 选读 sections but JupyterLab opened it with every cell shown"
    run = lab.run_all(page, name)
    tags = lab.notebook_tags(lab_server.root / name)
    problems = lab.problems(run, tags)
    assert not problems, f"{name} in JupyterLab:\n" + "\n".join(problems)
    # The same, as rendered on screen: an error box is only allowed in a raises-exception cell.
    shown = [e for e in lab.dom_errors(page)
             if "raises-exception" not in tags.get(e["cell"], [])
             and "shows-warning" not in tags.get(e["cell"], [])]
    assert not shown, f"{name}: error output on screen:\n{lab.dump(shown)}"
    return run


@pytest.mark.parametrize("name", SERIES + [lab.PROBE_NAME])
def test_notebook_runs_and_widgets_respond(page, lab_server, artifacts_dir, widget_budget_s, name):
    run = _run_and_check(page, lab_server, name)
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
    pressed = lab.buttons(page)
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


def test_a_broken_callback_is_caught(page, lab_server, widget_budget_s):
    """Negative control: the probe's callback raises -> the slider moves, nothing changes,
    and the check that the real notebooks must pass reports it."""
    name = lab.BROKEN_PROBE_NAME
    run = _run_and_check(page, lab_server, name)
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
