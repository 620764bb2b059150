"""Serve one deck with Voila on 127.0.0.1, from any working directory.

The deck notebook is written into a fresh temporary folder (the kernel's working directory);
Voila runs there with the ``ch02-deck`` template found through ``JUPYTER_PATH`` in this
package's own ``share/jupyter`` (package data: nothing depends on the current directory, and
nothing is fetched from another host).

Preheated (the default): Voila starts one kernel before any page is asked for and runs the deck in
it (``--preheat_kernel``, pool size 1), so the page arrives with every slide and every widget's output
at once and its script only has to connect to that warm kernel. That script is the deck's own
(:data:`PAGE_RESOURCES`; source and build in ``publish/deck/js``, built into the template's
``static/deck-widgets.js``, ~1 MB): it connects to the kernel, fetches the widgets' state and renders the live
slides' widgets (the current slide first), then loads the MathJax shipped in ``static/`` for the slides' maths;
Voila's own page script (~5 MB, started only after the page's load event) does not run. :meth:`DeckServer.wait_warm` waits
until the spare kernel has run the deck's last cell (it touches :data:`READY_FILE` in the deck's
folder), so the CLI opens the browser on a warm deck. After a page takes the spare kernel, Voila
starts the next one :data:`REFILL_DELAY_S` seconds later (not at once: refilling while the page's
script starts would slow that start on a small machine); a page reloaded before then waits for it.
Cost: one spare kernel (its memory: ``python -m benchmarks.lecture``). A preheated kernel starts
before its request, so it cannot read the request's query string or headers from ``os.environ`` (the
deck reads none), and ``?template=`` / ``?theme=`` in the URL bypass the pool.

``preheat=False``: progressive rendering instead: the page with every slide is sent before the
kernel has started, and each live cell's output arrives when it has run (no spare kernel).

Where Voila's page script runs (``--no-preheat``), only the two JupyterLab extensions the widgets need are
loaded (``extension_allowlist``): the others installed in the environment (jupytext, nbgrader, the JupyterLite
kernel, ...) cost the page script time and, outside JupyterLab, only fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from ..notebooks import SHARE as _SHARE, stop
from .slides import READY_FILE

__all__ = ["SHARE", "TEMPLATE", "READY_FILE", "REFILL_DELAY_S", "EXTENSIONS", "voila_command", "write_deck",
           "free_port", "DeckServer"]

SHARE = _SHARE / "jupyter"
TEMPLATE = "ch02-deck"
DECK_FILE = "deck.ipynb"
#: Seconds after a page takes the preheated kernel before Voila starts the next spare one.
REFILL_DELAY_S = 10
#: A page's kernel is shut down when the page closes (its beforeunload); one whose page crashed or lost its network
#: never is: Voila's kernel manager shuts down a kernel idle this many seconds with no page connected (checked every
#: CULL_INTERVAL_S). Never the preheated spare (Voila's manager skips its pool's kernels) nor a connected page's.
CULL_IDLE_S = 600
CULL_INTERVAL_S = 60
#: Preheated, the deck page runs its own small script (publish/deck/js, built into the template's
#: static/deck-widgets.js) instead of Voila's: the template reads this from ``resources``.
PAGE_RESOURCES = {"ch02_deck_page": "light"}
#: The JupyterLab extensions the deck page loads (ipywidgets' manager and Voila's; Voila keeps the one
#: that matches the installed ipywidgets).
EXTENSIONS = ["@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8",
              "@voila-dashboards/widgets-manager7"]


def free_port(start: int = 8866, tries: int = 50) -> int:
    """The first free loopback port from ``start`` on (``0``: any free port)."""
    for port in ([0] if start == 0 else range(start, start + tries)):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return s.getsockname()[1]
    raise OSError(f"no free port in {start}..{start + tries - 1}; pass --port")


def write_deck(key: str, folder: Path, notebooks: Path | None = None) -> Path:
    """Build deck ``key`` from the notebooks and write it as ``folder/deck.ipynb``."""
    import nbformat

    from .build import build_notebook
    from .decks import DECKS

    if key not in DECKS:
        raise KeyError(f"no deck {key!r}; the decks are {', '.join(DECKS)}")
    nb = build_notebook(DECKS[key], notebooks)
    path = Path(folder) / DECK_FILE
    nbformat.write(nb, str(path))
    return path


def voila_command(notebook: Path, port: int, preheat: bool = True) -> list[str]:
    cmd = [sys.executable, "-m", "voila", str(notebook), "--no-browser", f"--port={port}",
           "--Voila.ip=127.0.0.1", "--Voila.port_retries=0", f"--template={TEMPLATE}", "--theme=light",
           "--strip_sources=True", "--VoilaConfiguration.show_tracebacks=False",
           "--VoilaExecutor.timeout=180", *(f"--VoilaConfiguration.extension_allowlist={name}" for name in EXTENSIONS),
           f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE_S}", "--MappingKernelManager.cull_connected=False",
           f"--MappingKernelManager.cull_interval={CULL_INTERVAL_S}"]
    if preheat:  # Voila: preheated kernels and progressive rendering exclude each other
        cmd += ["--preheat_kernel=True", "--pool_size=1", f"--VoilaKernelManager.fill_delay={REFILL_DELAY_S}",
                *(f"--VoilaConfiguration.resources={k}={v}" for k, v in PAGE_RESOURCES.items())]
    else:
        cmd.append("--VoilaConfiguration.progressive_rendering=True")
    return cmd


def deck_env(base: dict | None = None) -> dict:
    env = dict(os.environ if base is None else base)
    paths = [p for p in env.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    env["JUPYTER_PATH"] = os.pathsep.join([str(SHARE), *[p for p in paths if p != str(SHARE)]])
    return env


class DeckServer:
    """A running Voila for one deck: ``url``, ``folder`` (temporary), ``log``; a context manager (it waits
    until Voila listens and, when preheated, until the spare kernel has run the deck)."""

    def __init__(self, key: str, port: int = 0, notebooks: Path | None = None, env: dict | None = None,
                 preheat: bool = True, log: Path | None = None):
        self.key = key
        self.preheat = preheat
        self.folder = Path(tempfile.mkdtemp(prefix=f"ch02-deck-{key}-"))
        self.notebook = write_deck(key, self.folder, notebooks)
        self.port = port or free_port(0)
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log = log or self.folder / "voila.log"
        self._log_file = open(self.log, "wb")
        self.proc = subprocess.Popen(voila_command(self.notebook, self.port, preheat), cwd=self.folder,
                                     env=deck_env(env), stdout=self._log_file, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = 120.0) -> None:
        """Block until Voila answers on its port (it renders the deck only when the page is requested)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Voila exited with {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"Voila not listening after {timeout:.0f} s:\n{self.log.read_text()[-3000:]}")
                time.sleep(0.1)

    def wait_warm(self, timeout: float = 180.0) -> None:
        """Block until the preheated kernel has run every cell of the deck (at once without preheat)."""
        if not self.preheat:
            return
        deadline = time.monotonic() + timeout
        while not (self.folder / READY_FILE).exists():
            if self.proc.poll() is not None:
                raise RuntimeError(f"Voila exited with {self.proc.returncode}:\n{self.log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the deck's kernel did not finish its cells in {timeout:.0f} s:\n"
                                   f"{self.log.read_text()[-3000:]}")
            time.sleep(0.05)

    def stop(self) -> None:
        stop(self.proc)
        self._log_file.close()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        try:
            self.wait_ready()
            self.wait_warm()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()


def _probe(url: str) -> bool:  # used by the CLI to say the page answers
    try:
        with urllib.request.urlopen(url, timeout=5):
            return True
    except (urllib.error.URLError, OSError):
        return False
