"""Drive a notebook in a real JupyterLab page through Playwright (sync API).

Everything that talks to JupyterLab goes through its own command registry and models
(``window.jupyterapp``, exposed with ``--LabApp.expose_app_in_browser``), never through
pixel positions of menus: "Run All Cells" is the ``notebook:run-all-cells`` command and
"executed" means the cell *model* got an execution count while the kernel went idle.
Sliders, on the other hand, are moved the way a learner moves them: keyboard focus +
ArrowRight/ArrowLeft, and a real mouse drag of the noUiSlider handle.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Widgets come from ipywidgets or, through the one door, from H.<topic>.<...widget/explorer/slider>(...).
WIDGET_IMPORT = re.compile(r"^\s*(import ipywidgets|from ipywidgets)|\bH\.\w+\.\w*(widget|explorer|slider)\w*\(",
                           re.MULTILINE | re.IGNORECASE)

# Helper functions installed into every page before JupyterLab boots. They only use
# public JupyterLab objects: the shell's main-area widgets, the notebook panel's
# context, session context, cell widgets and their models.
_INIT_SCRIPT = r"""
window.__nbtest = {
  panel(path) {
    const app = window.jupyterapp;
    if (!app) return null;
    for (const w of app.shell.widgets('main')) {
      if (w.context && w.context.path === path && w.content && w.content.widgets) return w;
    }
    return null;
  },
  cells(path) {
    const panel = this.panel(path);
    return panel.content.widgets.map((cell, i) => {
      cell.node.dataset.nbtestIndex = String(i);
      const m = cell.model;
      const outputs = m.type === 'code' ? m.outputs.toJSON() : [];
      return {
        index: i,
        type: m.type,
        tags: m.getMetadata('tags') || [],
        empty: m.sharedModel.getSource().trim() === '',
        executionCount: m.type === 'code' ? m.executionCount : null,
        running: cell.node.querySelector('.jp-InputPrompt') ?
                 cell.node.querySelector('.jp-InputPrompt').textContent.includes('*') : false,
        outputs: outputs.map(o => ({
          output_type: o.output_type,
          name: o.name || null,
          ename: o.ename || null,
          evalue: o.evalue || null,
          text: o.output_type === 'stream' ? String(o.text).slice(0, 2000) :
                (o.traceback ? o.traceback.join('\n').replace(/\u001b\[[0-9;]*m/g, '').slice(-2000) : null),
          mimes: o.data ? Object.keys(o.data) : [],
        })),
      };
    });
  },
  within(promise, ms, what) {  // every await in the harness is time-bounded
    return Promise.race([promise, new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms))]);
  },
  dialogs() {
    return Array.from(document.querySelectorAll('.jp-Dialog')).map(d => d.textContent.trim().slice(0, 500));
  },
  status(path) {
    const panel = this.panel(path);
    if (!panel) return 'no-panel';
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    return kernel ? kernel.status : 'no-kernel';
  },
};
"""


#: The last line 2.13's first cell prints: whether the model's weights were found and their SHA-256 checked.
MODEL_LOADED = "权重已找到且 SHA-256 核对无误？HAVE = {}"


def model_loaded_line(have: bool) -> str:
    """The line 2.13's load cell ends with, for ``HAVE`` = ``have``."""
    return MODEL_LOADED.format(have)


# The throwaway widget notebook the fixture adds to the temporary copy: the harness
# is proven on a known-good slider -> Image/HTML widget even before (and besides) the
# series' own widgets. Its name starts with "zz-" so it sorts after the series.
PROBE_NAME = "zz-browser-probe-widget.ipynb"
BROKEN_PROBE_NAME = "zz-broken-browser-probe-widget.ipynb"
PROBE_CELLS = [
    ("markdown", "# Browser probe\n\nA slider drives a PNG image and an HTML readout.", []),
    ("code", "import io\n\nimport ipywidgets as widgets\nimport matplotlib\n"
             "matplotlib.use('Agg')\nimport matplotlib.pyplot as plt\nimport numpy as np", []),
    ("code", "def render(k):\n"
             "    fig, ax = plt.subplots(figsize=(3, 2))\n"
             "    x = np.linspace(0, 1, 50)\n"
             "    ax.plot(x, x ** k)\n"
             "    ax.set_title(f'k = {k}')\n"
             "    buf = io.BytesIO()\n"
             "    fig.savefig(buf, format='png')\n"
             "    plt.close(fig)\n"
             "    return buf.getvalue()\n\n"
             "slider = widgets.IntSlider(value=2, min=1, max=9, description='k')\n"
             "image = widgets.Image(value=render(2), format='png')\n"
             "readout = widgets.HTML(value='k = 2')\n\n"
             "def update(change):\n"
             "    image.value = render(change['new'])\n"
             "    readout.value = f\"k = {change['new']}\"\n\n"
             "slider.observe(update, names='value')\n"
             "widgets.VBox([slider, image, readout])", ["nbval-ignore-output"]),
]


def make_probe_notebook(path: Path, *, broken: bool = False) -> Path:
    """Write the probe notebook; ``broken=True`` makes the slider's callback raise."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                 "language": "python"}
    for kind, source, tags in PROBE_CELLS:
        if broken and "def update(change):" in source:
            source = source.replace("def update(change):\n",
                                    "def update(change):\n    raise RuntimeError('broken callback')\n")
        cell = (nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell)(source)
        if tags:
            cell.metadata["tags"] = list(tags)
        nb.cells.append(cell)
    nbformat.write(nb, path)
    return path



@dataclass
class SliderResult:
    cell: int
    label: str
    how: str
    readout_before: str
    readout_after: str
    driven_changed: bool
    seconds: float | None
    screenshot: Path | None = None
    direction: str | None = None


@dataclass
class NotebookRun:
    name: str
    cells: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def notebook_tags(path: Path) -> dict[int, list[str]]:
    nb = nbformat.read(path, as_version=4)
    return {i: list(c.metadata.get("tags", [])) for i, c in enumerate(nb.cells)}


def has_widget(path: Path) -> bool:
    """A notebook has a widget if a saved output is a widget view, or a cell imports widgets."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if any(WIDGET_MIME in out.get("data", {}) for out in cell.get("outputs", [])):
            return True
        if WIDGET_IMPORT.search(cell.source):
            return True
    return False


def install(page) -> None:
    page.add_init_script(_INIT_SCRIPT)


def open_notebook(page, server, name: str, timeout_s: float = 120) -> int:
    """Open ``name`` in a fresh layout and wait until its kernel is idle.

    Returns how many cells JupyterLab shows hidden on opening (those under a collapsed
    选读 heading), then expands every heading so the robot can reach every output.

    A "Select Kernel" dialog (a notebook without kernelspec) is answered with the
    default kernel, as a learner would; any other dialog (e.g. "File Load Error") fails.
    """
    install(page)
    ms = int(timeout_s * 1000)
    page.goto(server.lab_url(name), wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp !== undefined", timeout=ms)
    page.evaluate("ms => window.__nbtest.within(Promise.all([window.jupyterapp.started, "
                  "window.jupyterapp.restored]), ms, 'JupyterLab start')", ms)
    return settle(page, name, timeout_s)


_NEXT_JS = """async ([prev, next, ms]) => {
  const app = window.jupyterapp, t = window.__nbtest, panel = t.panel(prev);
  const session = panel.sessionContext.session, kernel = session.kernel.id;
  panel.context.model.dirty = false;      // closed as it is, unsaved: no "save your changes?" question
  await t.within(session.shutdown(), ms, `${prev}'s kernel shut down`);
  panel.dispose();                        // the tab closes: its cells, outputs and widget views leave the page
  await t.within(app.commands.execute('docmanager:open', {path: next}), ms, `${next} opened`);
  return kernel;
}"""


def open_next(page, server, previous: str, name: str, timeout_s: float = 120) -> int:
    """Open ``name`` in the JupyterLab where ``previous`` ran, on a new kernel; like :func:`open_notebook`.

    ``previous``'s kernel is shut down and its tab closed unsaved; ``name`` then opens with a kernel of its own,
    in an app that has run other notebooks: a test-only shortcut (a learner's next notebook may share the app,
    but nobody closes the last one first). What this saves is booting JupyterLab again (test_browser_notebooks).
    """
    ms = int(timeout_s * 1000)
    old = page.evaluate(_NEXT_JS, [previous, name, ms])
    hidden = settle(page, name, timeout_s)
    new = page.evaluate("p => window.__nbtest.panel(p).sessionContext.session.kernel.id", name)
    running = [k["id"] for k in server.api("GET", "/api/kernels")]
    panels = page.evaluate("() => document.querySelectorAll('.jp-NotebookPanel').length")
    assert new != old and running == [new] and panels == 1, (
        f"{name} after {previous}: kernel {new} (the last one was {old}; running: {running}), {panels} notebook tabs")
    return hidden


def settle(page, name: str, timeout_s: float = 120) -> int:
    """After ``name`` was opened in a running JupyterLab (:func:`open_notebook`, :func:`open_next`): wait for its kernel, show
    its panel, fold the file browser away; return how many cells it opened hidden, then expand them all."""
    ms = int(timeout_s * 1000)
    deadline = time.monotonic() + timeout_s
    while True:
        state = page.evaluate("p => [window.__nbtest.status(p), window.__nbtest.dialogs()]", name)
        status, dialogs = state
        if dialogs:
            if any("Select Kernel" in d for d in dialogs):
                page.locator(".jp-Dialog .jp-mod-accept").first.click()
            else:
                raise AssertionError(f"{name}: JupyterLab shows a dialog: {dialogs}")
        elif status == "idle":
            break
        if time.monotonic() > deadline:
            raise AssertionError(f"{name}: kernel not idle after {timeout_s} s (status {status!r})")
        page.wait_for_timeout(200)
    page.evaluate(
        """([p, ms]) => { const panel = window.__nbtest.panel(p);
                          window.jupyterapp.shell.activateById(panel.id);
                          return window.__nbtest.within(panel.context.ready, ms, 'document ready'); }""",
        [name, ms])
    # More room for the notebook (and for screenshots): fold the file browser away.
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    hidden = page.evaluate("p => window.__nbtest.panel(p).content.widgets.filter(c => c.isHidden).length", name)
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:expand-all-headings')")
    page.wait_for_function("p => window.__nbtest.panel(p).content.widgets.every(c => !c.isHidden)", arg=name,
                           timeout=ms)
    return hidden


def run_all(page, name: str, timeout_s: float = 300) -> NotebookRun:
    """Run All Cells through the command registry; return once the kernel processed every cell.

    JupyterLab sends all the cells' execute requests at once, and its run-all promise
    settles as soon as ANY reply is not "ok", possibly before the kernel has worked through
    the rest. So "done" is decided by the kernel instead: after the command settles, one
    more (silent, empty) execute request is queued; the kernel answers requests in order, so
    its reply means every cell before it was executed (or aborted, after an error).
    """
    ms = int(timeout_s * 1000)
    start = time.monotonic()
    page.evaluate(
        """p => { window.__runAllResult = undefined;
                  window.jupyterapp.shell.activateById(window.__nbtest.panel(p).id);
                  window.jupyterapp.commands.execute('notebook:run-all-cells').then(
                      r => { window.__runAllResult = {ok: true, value: String(r)}; },
                      e => { window.__runAllResult = {ok: false, value: String(e)}; }); }""", name)
    page.wait_for_function("() => window.__runAllResult !== undefined", timeout=ms)
    result = page.evaluate("() => window.__runAllResult")
    assert result["ok"], f"{name}: notebook:run-all-cells failed: {result['value']}"
    page.evaluate(
        """([p, ms]) => { const kernel = window.__nbtest.panel(p).sessionContext.session.kernel;
                          const future = kernel.requestExecute(
                              {code: '', silent: true, store_history: false, stop_on_error: false});
                          return window.__nbtest.within(future.done, ms, 'kernel queue drained'); }""",
        [name, ms])
    page.wait_for_function(
        """p => window.__nbtest.status(p) === 'idle' &&
               window.__nbtest.cells(p).every(c => !c.running)""",
        arg=name, timeout=ms)
    return NotebookRun(name=name, cells=page.evaluate("p => window.__nbtest.cells(p)", name),
                       seconds=time.monotonic() - start)


def problems(run: NotebookRun, tags: dict[int, list[str]]) -> list[str]:
    """Every error / unexpected stderr / unexecuted cell, as readable lines."""
    found = []
    for cell in run.cells:
        if cell["type"] != "code" or cell["empty"]:
            continue
        i = cell["index"]
        cell_tags = set(tags.get(i, [])) | set(cell["tags"])
        if cell["executionCount"] is None:
            found.append(f"cell {i}: not executed (did an earlier cell fail and stop Run All?)")
        for out in cell["outputs"]:
            if out["output_type"] == "error":
                found.append(f"cell {i}: {out['ename']}: {out['evalue']}\n{out['text']}")
            if out["output_type"] == "stream" and out["name"] == "stderr" and "shows-warning" not in cell_tags:
                found.append(f"cell {i}: unexpected stderr: {out['text']}")
    return found


def dom_errors(page) -> list[str]:
    """Error outputs as the learner sees them, indexed by cell."""
    return page.evaluate(
        """() => Array.from(document.querySelectorAll(
               '.jp-Notebook .jp-Cell .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]'))
             .map(n => ({cell: Number(n.closest('.jp-Cell').dataset.nbtestIndex),
                         text: n.textContent.slice(0, 500)}))""")


def wait_widgets_rendered(page, run: NotebookRun, timeout_s: float = 60) -> int:
    """Wait until every cell with a widget-view output shows a rendered widget (or an
    "Error displaying widget" box); return the number of such cells."""
    cells = widget_cells(run)
    page.wait_for_function(
        """cells => cells.every(i => {
               const area = document.querySelector(`.jp-Cell[data-nbtest-index="${i}"] .jp-Cell-outputArea`);
               return area && (area.querySelector('.jp-OutputArea-output .jupyter-widgets') !== null ||
                               area.textContent.includes('Error displaying widget'));
           })""", arg=cells, timeout=timeout_s * 1000)
    return len(cells)


def widget_display_errors(page) -> list[str]:
    return page.evaluate(
        """() => Array.from(document.querySelectorAll('.jp-Notebook .jp-OutputArea-output'))
                 .filter(n => n.textContent.includes('Error displaying widget'))
                 .map(n => n.textContent.trim().slice(0, 300))""")


# --------------------------------------------------------------------------- sliders

_SLIDERS_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .widget-slider'))
    .filter(s => s.querySelector('.noUi-handle'))
    .map((s, k) => { s.dataset.nbtestSlider = String(k);
      const label = s.querySelector('.widget-label');
      return {k, cell: Number(s.closest('.jp-Cell').dataset.nbtestIndex),
              label: label ? label.textContent.trim() : '',
              disabled: s.querySelector('.noUi-target').hasAttribute('disabled')}; })"""

# A fingerprint of everything a slider could drive inside its cell's output area:
# every image (its src: a blob: or data: URL that changes when the PNG changes),
# every HTML / label / Output-widget text -- minus the sliders' own readouts and labels.
_DRIVEN_JS = """k => {
  const slider = document.querySelector(`[data-nbtest-slider="${k}"]`);
  const area = slider.closest('.jp-Cell').querySelector('.jp-Cell-outputArea');
  const parts = [];
  for (const img of area.querySelectorAll('img')) parts.push('img:' + img.src.length + ':' + img.src);
  for (const n of area.querySelectorAll('.widget-html-content, .widget-output, .jp-RenderedText, .widget-readout, .widget-label')) {
    if (n.closest('.widget-slider')) continue;  // the slider's own readout/label is not "driven"
    parts.push('txt:' + n.textContent);
  }
  return parts.join('\\n');
}"""


def sliders(page) -> list[dict]:
    return page.evaluate(_SLIDERS_JS)


def _readout(page, k: int) -> str:
    return page.evaluate(
        """k => { const s = document.querySelector(`[data-nbtest-slider="${k}"]`);
                  const r = s.querySelector('.widget-readout');
                  const h = s.querySelector('.noUi-handle');
                  return (r ? r.textContent.trim() : '') + ' [' + h.getAttribute('aria-valuenow') + ']'; }""", k)


def _fingerprint(page, k: int) -> str:
    return hashlib.sha256(page.evaluate(_DRIVEN_JS, k).encode()).hexdigest()


def _handle_room(page, k: int) -> str:
    """'right' if the handle can move right, else 'left'."""
    return page.evaluate(
        """k => { const h = document.querySelector(`[data-nbtest-slider="${k}"] .noUi-handle`);
                  const now = Number(h.getAttribute('aria-valuenow'));
                  const max = Number(h.getAttribute('aria-valuemax'));
                  const min = Number(h.getAttribute('aria-valuemin'));
                  return (max - now) >= (now - min) ? 'right' : 'left'; }""", k)


def _wait_settled(fingerprint, before: str, start: float, budget_s: float, grace_s: float,
                  quiet_s: float = 0.6) -> float | None:
    """Seconds from ``start`` until the driven view changed from ``before`` for the LAST
    time, i.e. stayed unchanged for ``quiet_s`` afterwards (None if it never changed).

    A drag sends several values while the handle moves (``continuous_update``); the
    learner waits for the view of the value where the handle was released, so the time
    that counts is the last change, not the first one.
    """
    last_print, last_change = before, None
    while True:
        now = time.monotonic()
        current = fingerprint()
        if current != last_print:
            last_print, last_change = current, now
        if last_change is not None and now - last_change >= quiet_s:
            return last_change - start
        if now - start > budget_s + grace_s:
            return None if last_change is None else last_change - start
        time.sleep(0.05)


def move_slider(page, info: dict, how: str, budget_s: float, shots: Path | None, stem: str,
                direction: str | None = None) -> SliderResult:
    """Move slider ``info`` by keyboard or mouse; report whether what it drives changed.

    ``direction`` ('left' / 'right') defaults to the side with more room.
    """
    k = info["k"]
    handle = page.locator(f'[data-nbtest-slider="{k}"] .noUi-handle').first
    handle.scroll_into_view_if_needed()
    page.wait_for_timeout(300)  # let a previous update settle before the baseline
    readout_before, before = _readout(page, k), _fingerprint(page, k)
    direction = direction or _handle_room(page, k)
    start = time.monotonic()
    if how == "keyboard":
        handle.focus()
        key = "ArrowRight" if direction == "right" else "ArrowLeft"
        page.keyboard.press(key)
        page.keyboard.press(key)
    else:
        track = page.locator(f'[data-nbtest-slider="{k}"] .noUi-target').first.bounding_box()
        box = handle.bounding_box()
        x0, y0 = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        dx = 0.3 * track["width"] * (1 if direction == "right" else -1)
        page.mouse.move(x0, y0)
        page.mouse.down()
        page.mouse.move(x0 + dx, y0, steps=8)
        page.mouse.up()
    # Allow twice the budget before giving up, so a slow change is reported with its
    # real time (and then fails the budget assertion) instead of as "never".
    seconds = _wait_settled(lambda: _fingerprint(page, k), before, start, budget_s, grace_s=budget_s + 3)
    readout_after = _readout(page, k)
    shot = None
    if shots is not None:
        shot = shots / f"{stem}-slider{k}-{how}-{direction}.png"
        shot = _screenshot(page.locator(f'.jp-Cell[data-nbtest-index="{info["cell"]}"] .jp-Cell-outputArea').first, shot)
    return SliderResult(cell=info["cell"], label=info["label"], how=how, readout_before=readout_before,
                        readout_after=readout_after, driven_changed=seconds is not None,
                        seconds=seconds, screenshot=shot, direction=direction)


_CONTENT_JS = """async k => {
  const slider = document.querySelector(`[data-nbtest-slider="${k}"]`);
  const area = slider.closest('.jp-Cell').querySelector('.jp-Cell-outputArea');
  const parts = [];
  for (const img of area.querySelectorAll('img')) {
    await img.decode().catch(() => null);
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    c.getContext('2d').drawImage(img, 0, 0);
    parts.push('px:' + c.width + 'x' + c.height + ':' + c.toDataURL('image/png'));
  }
  for (const n of area.querySelectorAll('.widget-html-content, .widget-output, .jp-RenderedText')) {
    if (!n.closest('.widget-slider')) parts.push('txt:' + n.textContent);
  }
  return parts;
}"""


def content(page, k: int) -> list[str]:
    """What slider ``k`` drives, by VALUE: the decoded pixels of every image (not its
    blob URL, which is new on every update) and the texts. Equal for equal views."""
    return [(part if not part.startswith("px:") else part.split(":data:")[0]) [:200]
            + " sha256:" + hashlib.sha256(part.encode()).hexdigest()[:16]
            for part in page.evaluate(_CONTENT_JS, k)]


_CHECKBOXES_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .widget-checkbox'))
    .filter(c => c.querySelector('input[type="checkbox"]') && !c.querySelector('input').disabled)
    .map((c, k) => { c.dataset.nbtestCheckbox = String(k);
      return {k, cell: Number(c.closest('.jp-Cell').dataset.nbtestIndex), label: c.textContent.trim()}; })"""

_CHECKBOX_DRIVEN_JS = _DRIVEN_JS.replace("[data-nbtest-slider=", "[data-nbtest-checkbox=").replace(
    "n.closest('.widget-slider')", "(n.closest('.widget-slider') || n.closest('.widget-checkbox'))")


def checkboxes(page) -> list[dict]:
    return page.evaluate(_CHECKBOXES_JS)


def toggle_checkbox(page, info: dict, budget_s: float) -> SliderResult:
    """Click a checkbox like a learner; report whether what it drives changed (and how fast)."""
    k = info["k"]
    box = page.locator(f'[data-nbtest-checkbox="{k}"] input[type="checkbox"]').first
    box.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    state = lambda: str(box.is_checked())  # noqa: E731
    before_state = state()
    before = hashlib.sha256(page.evaluate(_CHECKBOX_DRIVEN_JS, k).encode()).hexdigest()
    start = time.monotonic()
    box.click()
    seconds = _wait_settled(lambda: hashlib.sha256(page.evaluate(_CHECKBOX_DRIVEN_JS, k).encode()).hexdigest(),
                            before, start, budget_s, grace_s=budget_s + 3)
    return SliderResult(cell=info["cell"], label=info["label"], how="click", readout_before=before_state,
                        readout_after=state(), driven_changed=seconds is not None, seconds=seconds)


def _screenshot(target, path: Path, timeout_ms: int = 15_000) -> Path | None:
    """Screenshots are documentation, not evidence: a browser/Playwright pair that cannot take one
    (old Playwright with a newer Chromium waits forever "for the element to be stable") gives None."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        target.screenshot(path=path, timeout=timeout_ms)
    except PlaywrightError:
        return None
    return path


def screenshot_cell_output(page, cell: int, path: Path) -> Path | None:
    return _screenshot(page.locator(f'.jp-Cell[data-nbtest-index="{cell}"] .jp-Cell-outputArea').first, path)


def screenshot_lab_at_cell(page, cell: int, path: Path) -> Path:
    """The whole JupyterLab window, scrolled so that ``cell``'s output is in view."""
    page.locator(f'.jp-Cell[data-nbtest-index="{cell}"]').first.evaluate(
        "n => n.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(200)
    return _screenshot(page, path)


def first_figure_cell(run: NotebookRun) -> int | None:
    """Index of the first cell whose output is a (matplotlib) PNG."""
    for cell in run.cells:
        if any("image/png" in o["mimes"] for o in cell["outputs"]):
            return cell["index"]
    return None


def widget_cells(run: NotebookRun) -> list[int]:
    return [c["index"] for c in run.cells if any(WIDGET_MIME in o["mimes"] for o in c["outputs"])]


def dump(obj) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False, default=str)


# --------------------------------------------------------------------------- predict-then-run

_PREDICT_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .predict-question'))
    .map((q, k) => { q.dataset.nbtestPredict = String(k);
      return {k, cell: Number(q.closest('.jp-Cell').dataset.nbtestIndex),
              kind: q.querySelector('input[type="radio"]') ? 'choice' : 'number',
              question: q.querySelector('.widget-html-content').textContent.trim().slice(0, 200)}; })"""


def predictions(page) -> list[dict]:
    return page.evaluate(_PREDICT_JS)


def answer_prediction(page, info: dict, budget_s: float) -> dict:
    """Answer a predict-then-run question like a learner: pick the first option (or type 1),
    press 提交预测, and read the feedback. Returns the feedback text and whether it locked."""
    box = page.locator(f'[data-nbtest-predict="{info["k"]}"]').first
    box.scroll_into_view_if_needed()
    if info["kind"] == "choice":
        box.locator('input[type="radio"]').first.check()
    else:
        box.locator('input[type="text"]').first.fill("1")
    button = box.locator("button").first
    start = time.monotonic()
    button.click()
    feedback = ""
    while time.monotonic() - start < budget_s + 3:
        feedback = box.locator("pre").first.text_content() if box.locator("pre").count() else ""
        if feedback:
            break
        time.sleep(0.05)
    seconds = time.monotonic() - start
    # The kernel sets the feedback, then disables the controls: two widget updates, which a loaded machine can
    # apply a moment apart. So the lock gets the same deadline as the feedback, not a single look.
    locked = button.is_disabled()
    while not locked and time.monotonic() - start < budget_s + 3:
        time.sleep(0.05)
        locked = button.is_disabled()
    return {"cell": info["cell"], "feedback": feedback, "seconds": seconds, "locked": locked}


# --------------------------------------------------------------------------- buttons (presets, reset)

_BUTTONS_JS = """() => Array.from(document.querySelectorAll('.jp-Notebook .widget-button'))
    .filter(b => !b.closest('.predict-question') && !b.disabled)
    .map((b, k) => { b.dataset.nbtestButton = String(k);
      return {k, cell: Number(b.closest('.jp-Cell').dataset.nbtestIndex), label: b.textContent.trim()}; })"""

_BUTTON_DRIVEN_JS = _DRIVEN_JS.replace("[data-nbtest-slider=", "[data-nbtest-button=")


def buttons(page) -> list[dict]:
    """Widget buttons outside predict-then-run questions (e.g. the explorer's presets and reset)."""
    return page.evaluate(_BUTTONS_JS)


def click_button(page, info: dict, budget_s: float) -> SliderResult:
    """Click a button like a learner; report whether what its cell shows changed (and how fast)."""
    k = info["k"]
    button = page.locator(f'[data-nbtest-button="{k}"]').first
    button.scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    fingerprint = lambda: hashlib.sha256(page.evaluate(_BUTTON_DRIVEN_JS, k).encode()).hexdigest()  # noqa: E731
    before = fingerprint()
    start = time.monotonic()
    button.click()
    seconds = _wait_settled(fingerprint, before, start, budget_s, grace_s=budget_s + 3)
    return SliderResult(cell=info["cell"], label=info["label"], how="click", readout_before="",
                        readout_after="", driven_changed=seconds is not None, seconds=seconds)


# --------------------------------------------------------------------------- 2.13's attention explorer

# What the explorer shows, by value: the decoded pixels of its figure, the readout and message texts, the token
# menu's options. (The image's blob URL is new on every update, so it is not compared.)
_EXPLORER_VIEW_JS = """async cell => {
  const area = document.querySelector(`.jp-Cell[data-nbtest-index="${cell}"] .jp-Cell-outputArea`);
  const img = area.querySelector('img');
  let pixels = '';
  if (img) {
    await img.decode().catch(() => null);
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    c.getContext('2d').drawImage(img, 0, 0);
    pixels = c.width + 'x' + c.height + ':' + c.toDataURL('image/png');
  }
  const htmls = Array.from(area.querySelectorAll('.widget-html-content')).map(n => n.textContent);
  const menu = Array.from(area.querySelectorAll('.widget-dropdown'))
                    .find(d => d.querySelector('label').textContent.trim() === 'token');
  const text = n => n.textContent.replace(/\u00a0/g, ' ');   // ipywidgets draws a dropdown label's spaces as nbsp
  return {pixels, htmls, tokens: menu ? Array.from(menu.querySelectorAll('option')).map(text) : []};
}"""


def explorer_view(page, cell: int) -> dict:
    view = page.evaluate(_EXPLORER_VIEW_JS, cell)
    size, _, png = view["pixels"].partition(":")
    view["pixels"] = f"{size}:{hashlib.sha256(png.encode()).hexdigest()[:16]}" if png else ""
    # the panel's two HTML lines: the message above the figure, the readout under it
    view["message"], view["readout"] = (view.pop("htmls") + ["", ""])[:2]
    return view


def explorer_move(page, cell: int, act, budget_s: float) -> tuple[dict, dict, float | None]:
    """``act()`` like a learner; wait until the panel settles; return the views before and after and the seconds."""
    page.wait_for_timeout(300)                 # let the previous update settle before the baseline
    before = explorer_view(page, cell)
    start = time.monotonic()
    act()
    seconds = _wait_settled(lambda: json.dumps(explorer_view(page, cell)), json.dumps(before), start,
                                budget_s, grace_s=budget_s + 3)
    return before, explorer_view(page, cell), seconds


def explorer_enter(page, cell: int, text: str, budget_s: float, typed_s: float = 1.0) -> tuple[dict, dict, float | None]:
    """Type ``text`` into the explorer's sentence box key by key and press Enter, as a learner does; return the views
    before and after Enter and its seconds (as :func:`explorer_move`).

    Typing alone must leave the panel as it was (nothing is taken before Enter), and the box must still have the
    focus once the panel settled: Enter took the sentence, not a blur (Tab or a click elsewhere).
    """
    box = page.locator(f'.jp-Cell[data-nbtest-index="{cell}"] .jp-Cell-outputArea .widget-text input').first
    page.wait_for_timeout(300)
    shown = explorer_view(page, cell)
    box.fill("")
    if text:
        box.press_sequentially(text)
    page.wait_for_timeout(int(typed_s * 1000))
    typed = explorer_view(page, cell)
    assert typed == shown, f"typing alone changed the explorer (only Enter takes a sentence):\n{shown}\n{typed}"
    assert box.input_value() == text
    before, after, seconds = explorer_move(page, cell, lambda: box.press("Enter"), budget_s)
    assert box.evaluate("el => document.activeElement === el"), \
        "the sentence box lost the focus: the sentence was not taken by Enter alone"
    return before, after, seconds
