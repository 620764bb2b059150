"""Drive the browser edition (a static JupyterLite site) and compare its outputs as nbval would.

The site is served by a tiny static file server on 127.0.0.1 (what any school server or
GitHub Pages does); the browser context aborts every request to any other host and records it.
JupyterLite's page is JupyterLab's, so the notebook helpers of ``lab_driver`` (open a notebook,
read its cells, move sliders) work on it unchanged; what differs lives here:

- ``run_to_end``: Run All, as a learner does, and every code cell must have run. (JupyterLite's kernel
  cancels every queued cell after one that raises, whatever its tags: no notebook has a cell meant to raise,
  tests/test_notebook_hygiene.py.)
- ``open_after``: the next notebook on the kernel of the one before, in the same page (a test-only shortcut that
  saves booting JupyterLite and Pyodide again; a learner's next notebook gets a new kernel).
- ``compare``: each code cell's outputs against the committed ones, the way nbval compares
  them (streams coalesced, the sanitizers of tests/nbval_sanitize.cfg, images and widget model
  ids not compared, cells tagged ``nbval-ignore-output`` and cells committed unrun skipped).
"""

from __future__ import annotations

import functools
import re
import http.server
import threading
import time
import urllib.parse
from collections import defaultdict
from pathlib import Path

import nbformat
from nbval.plugin import coalesce_streams, get_sanitize_patterns, transform_streams_for_comparison

if __package__:   # imported as tests.browser.lite_driver (the benchmarks, run from the repository root)
    from .lab_driver import settle as lab_settle
else:             # imported by the browser tests, which see tests/browser as a folder of modules
    from lab_driver import settle as lab_settle

ROOT = Path(__file__).resolve().parents[2]
SANITIZE = get_sanitize_patterns((ROOT / "tests" / "nbval_sanitize.cfg").read_text(encoding="utf-8"))
# nbval's own list (nbval.plugin.IPyNbFile.skip_compare, images not compared without --nbdime).
SKIP_COMPARE = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
                "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")
LOCAL_HOSTS = {"127.0.0.1"}


class _Quiet(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".wasm": "application/wasm",
                      ".mjs": "text/javascript", ".js": "text/javascript", ".json": "application/json"}

    def log_message(self, *args):  # noqa: D401 - keep pytest's output clean
        pass


class StaticSite:
    """``python -m http.server``, in a thread: serves ``root`` on 127.0.0.1 until ``stop()``."""

    def __init__(self, root: Path):
        self.root = root
        handler = functools.partial(_Quiet, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def lab_url(self, notebook: str) -> str:
        return f"{self.url}/lab/index.html?path={urllib.parse.quote(notebook)}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def block_foreign_hosts(context, foreign: list[str]) -> None:
    """Abort every request whose host is not 127.0.0.1 (and remember it); data:/blob: never reach a route."""
    def route(r):
        host = urllib.parse.urlsplit(r.request.url).hostname
        if host in LOCAL_HOSTS:
            r.continue_()
        else:
            foreign.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    context.on("request", lambda req: foreign.append(req.url)
               if urllib.parse.urlsplit(req.url).scheme in {"http", "https", "ws", "wss"}
               and urllib.parse.urlsplit(req.url).hostname not in LOCAL_HOSTS else None)


_OUTPUTS_JS = """p => window.__nbtest.panel(p).content.widgets.map(c => c.model.type === 'code' ?
    {count: c.model.executionCount, outputs: c.model.outputs.toJSON()} : null)"""


def outputs(page, name: str) -> list[dict | None]:
    return page.evaluate(_OUTPUTS_JS, name)


def _idle(page, name: str, timeout_s: float) -> None:
    ms = int(timeout_s * 1000)
    page.evaluate(
        """([p, ms]) => { const kernel = window.__nbtest.panel(p).sessionContext.session.kernel;
                          const future = kernel.requestExecute(
                              {code: '', silent: true, store_history: false, stop_on_error: false});
                          return window.__nbtest.within(future.done, ms, 'kernel queue drained'); }""", [name, ms])
    page.wait_for_function("p => window.__nbtest.status(p) === 'idle' && window.__nbtest.cells(p).every(c => !c.running)",
                           arg=name, timeout=ms)


def _command(page, command: str, timeout_s: float) -> dict:
    page.evaluate(
        """c => { window.__cmd = undefined;
                  window.jupyterapp.commands.execute(c).then(
                      r => { window.__cmd = {ok: true, value: String(r)}; },
                      e => { window.__cmd = {ok: false, value: String(e)}; }); }""", command)
    page.wait_for_function("() => window.__cmd !== undefined", timeout=int(timeout_s * 1000))
    return page.evaluate("() => window.__cmd")


def run_to_end(page, name: str, timeout_s: float = 300) -> dict:
    """Run All and wait for the kernel to drain its queue. Returns {"seconds", "problems": [cells not executed]}."""
    start = time.monotonic()
    page.evaluate("p => window.jupyterapp.shell.activateById(window.__nbtest.panel(p).id)", name)
    _command(page, "notebook:run-all-cells", timeout_s)
    _idle(page, name, timeout_s)
    cells = outputs(page, name)
    problems = [f"cell {i} was not executed (did an earlier cell fail and stop Run All?)"
                for i, c in enumerate(cells) if c is not None and c["count"] is None and _source_nonempty(page, name, i)]
    return {"seconds": time.monotonic() - start, "problems": problems}


# What a fresh kernel would not have left from the notebook before: its widgets (closed in the kernel, so its
# panel's widget manager drops them too), its figures, its helpers modules (imported again, as new) and its names.
FORGET = ("import sys, ipywidgets, matplotlib.pyplot\n"
          "ipywidgets.Widget.close_all()\n"
          "matplotlib.pyplot.close('all')\n"
          "for _m in [m for m in sys.modules if m == 'helpers' or m.startswith('helpers.')]:\n"
          "    del sys.modules[_m]\n"
          "get_ipython().run_line_magic('reset', '-f')\n")
# ... and, in a request of its own, that it did (run on every hand-over: a reset that stopped working fails the test).
# It checks the names every notebook of the series defines (np, H, plt), not every name.
FORGOTTEN = ("import sys, ipywidgets, matplotlib.pyplot\n"
             "assert not {'np', 'H', 'plt'} & set(get_ipython().user_ns), 'names of the last notebook are left'\n"
             "assert not [m for m in sys.modules if m == 'helpers' or m.startswith('helpers.')], 'helpers is left'\n"
             "assert not ipywidgets.widgets.widget._instances, 'widgets of the last notebook are left'\n"
             "assert not matplotlib.pyplot.get_fignums(), 'figures of the last notebook are left'\n"
             "del sys, ipywidgets, matplotlib\n")

# pyodide-kernel 0.6 runs every execute request as an ordinary cell (it ignores silent and store_history): the two
# requests below advance the execution count and stay in In, which nothing compares.
_HAND_OVER_JS = """async ([prev, next, forget, forgotten, ms]) => {
  const app = window.jupyterapp, t = window.__nbtest, panel = t.panel(prev);
  const session = panel.sessionContext.session, kernel = session.kernel;
  const reply = await t.within(kernel.requestExecute({code: forget, silent: true, store_history: false}).done,
                               ms, 'the last notebook forgotten');
  if (reply.content.status !== 'ok') throw new Error(`resetting ${prev}'s kernel failed: ${reply.content.ename}: ${reply.content.evalue}`);
  const check = await t.within(kernel.requestExecute({code: forgotten, silent: true, store_history: false}).done,
                               ms, 'the reset checked');
  if (check.content.status !== 'ok') throw new Error(`the kernel did not forget ${prev}: ${check.content.ename}: ${check.content.evalue}`);
  const model = {...session.model};
  panel.context.model.dirty = false;      // nothing is saved: the committed copy stays as it is
  panel.dispose();                        // the tab closes; its session and kernel keep running (kernelShutdown off)
  const sessions = app.serviceManager.sessions, moved = sessions.connectTo({model});
  await t.within(moved.setPath(next), ms, 'session moved');
  await t.within(moved.setName(next), ms, 'session renamed');
  moved.dispose();
  await t.within(sessions.refreshRunning(), ms, 'sessions listed');
  await t.within(app.commands.execute('docmanager:open', {path: next}), ms, 'notebook opened');
  return kernel.id;
}"""


def open_after(page, previous: str, name: str, timeout_s: float = 120) -> int:
    """Open ``name`` in the page where ``previous`` ran, on ``previous``'s Pyodide kernel; like ``open_notebook``.

    The kernel first forgets ``previous`` (its widgets, figures, helpers modules, and names: ``%reset -f``); the tab
    closes and its session is moved to ``name``, which JupyterLab then finds by its path and joins, as it joins a
    server's running session. Booting JupyterLite and Pyodide is what this saves (test_browser_edition)."""
    ms = int(timeout_s * 1000)
    kernel = page.evaluate(_HAND_OVER_JS, [previous, name, FORGET, FORGOTTEN, ms])
    hidden = lab_settle(page, name, timeout_s)
    now = page.evaluate("p => window.__nbtest.panel(p).sessionContext.session.kernel.id", name)
    assert now == kernel, f"{name}: opened on a new kernel ({now}), not on {previous}'s ({kernel})"
    return hidden


def _source_nonempty(page, name: str, i: int) -> bool:
    return page.evaluate("([p, i]) => window.__nbtest.panel(p).content.widgets[i].model.sharedModel.getSource().trim() !== ''",
                         [name, i])


def _sanitize(s):
    if not isinstance(s, str):
        return s
    for regex, replace in SANITIZE:
        s = re.sub(regex, replace, s)
    return s


def _flatten(outs: list) -> dict[str, list]:
    """nbval's comparison form: every key (data flattened by MIME type) -> its sanitized values."""
    nodes = [nbformat.from_dict(o) for o in outs]
    for o in nodes:
        if o.get("output_type") == "stream" and isinstance(o.get("text"), list):
            o.text = "".join(o.text)
    flat = defaultdict(list)
    for o in transform_streams_for_comparison(coalesce_streams(nodes)):
        for key, value in o.items():
            if key in SKIP_COMPARE:
                continue
            if key == "data":
                for mime, v in value.items():
                    if mime not in SKIP_COMPARE:
                        flat[mime].append(_sanitize("".join(v) if isinstance(v, list) else v))
            else:
                flat[key].append(_sanitize(value))
    return dict(flat)


def compare(notebook: Path, browser_cells: list[dict | None], skip: set[int] = frozenset()) -> dict[int, str]:
    """Every code cell whose browser outputs differ from the committed ones: index -> what differs."""
    nb = nbformat.read(notebook, as_version=4)
    diffs = {}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or "nbval-ignore-output" in cell.metadata.get("tags", []) or i in skip:
            continue
        if cell.get("execution_count") is None and not cell.get("outputs"):
            continue  # committed unrun (the solution cells): nbval does not compare these either
        want = _flatten(cell.get("outputs", []))
        got = _flatten(browser_cells[i]["outputs"])
        if want != got:
            lines = [f"cell {i}:"]
            for key in sorted(set(want) | set(got)):
                if want.get(key) != got.get(key):
                    lines.append(f"  {key}: committed {str(want.get(key))[:600]!r}\n  {' ' * len(key)}  browser   "
                                 f"{str(got.get(key))[:600]!r}")
            diffs[i] = "\n".join(lines)
    return diffs
