"""Fixtures for the browser tests: one real JupyterLab server and one headless Chromium.

The whole browser suite shares ONE JupyterLab server (session scope), started on
127.0.0.1 with a random free port and a random token, rooted in a temporary copy of
``notebooks/`` so nothing in the repository is written. Every piece of Jupyter state
(runtime, config, data, IPython, workspaces, user settings) lives in that temporary
tree, and ``overrides.json`` switches off the news / update pop-ups and autosave and
attaches every cell to the DOM (no windowing), so the page is fully inspectable.

Missing Chromium or a missing ``playwright`` package makes the tests SKIP with the
install command -- except under ``SELF_ATTENTION_CH02_STRICT=1`` (set by .ci/run), where it is a FAILURE: CI must prove the
widgets work, not silently skip the proof.

Environment knobs (all optional):

``CHROMIUM_PATH``           the browser binary (default: ``chromium`` on PATH, then
                            ``/usr/bin/chromium``, ``chromium-browser``).
``BROWSER_ARTIFACTS_DIR``   where screenshots go (default: ``artifacts/screenshots``,
                            git-ignored).
``BROWSER_WIDGET_BUDGET_S`` how long a slider may take to change what it drives before the
                            test calls it hung (default 10 s; speed itself is a benchmark figure).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from lab_driver import BROKEN_PROBE_NAME, PROBE_NAME, make_probe_notebook
from publish.deck.font import OUT as DECK_FONT_FILE

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS_DIR", ROOT / "artifacts" / "screenshots"))

CHROMIUM_ARGS = [
    "--no-sandbox",  # needed as root (CI runs as root)
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",  # no calls home on a closed network
    "--disable-component-update",
    "--disable-sync",
    # Offline by construction: no host but this machine resolves (a test that records a page's requests still
    # fails on any request to another host: this only makes sure none leaves).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
]

INSTALL_HINT = (
    "Browser tests need Chromium and Playwright's Python package:\n"
    "    sudo apt-get install chromium        # Debian/Ubuntu: provides /usr/bin/chromium\n"
    '    pip install -e ".[test]"             # installs the playwright Python package\n'
    "Do NOT run `playwright install`: the tests use the system Chromium "
    "(set CHROMIUM_PATH to point at another Chromium binary)."
)

# Settings that make the page deterministic for a robot and keep it offline.
OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {
        "fetchNews": "false",
        "checkForUpdates": False,
    },
    "@jupyterlab/docmanager-extension:plugin": {
        "autosave": False,
    },
    "@jupyterlab/notebook-extension:tracker": {
        # Every cell attached to the DOM, so off-screen outputs can be inspected.
        "windowingMode": "none",
    },
}

# --------------------------------------------------------------------------- tools


def strict() -> bool:
    """SELF_ATTENTION_CH02_STRICT=1 (see the repository root's conftest.py)."""
    return os.environ.get("SELF_ATTENTION_CH02_STRICT", "").strip().lower() in {"1", "true", "yes"}


def _missing(reason: str):
    """Skip locally, fail under the strict switch (.ci/run) -- the same message either way."""
    msg = f"{reason}\n{INSTALL_HINT}"
    if strict():
        pytest.fail(f"SELF_ATTENTION_CH02_STRICT=1 and the browser tests cannot run: {msg}", pytrace=False)
    pytest.skip(msg)


def find_chromium() -> str | None:
    explicit = os.environ.get("CHROMIUM_PATH")
    if explicit:
        return explicit if Path(explicit).exists() else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser"):
        if Path(path).exists():
            return path
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LabServer:
    """A running JupyterLab: its base URL, token and (temporary) notebook folder."""

    def __init__(self, url: str, token: str, root: Path, log: Path):
        self.url, self.token, self.root, self.log = url, token, root, log

    def api(self, method: str, path: str) -> object:
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def lab_url(self, notebook: str) -> str:
        # ?reset: start from an empty layout, never a restored one.
        return f"{self.url}/lab/tree/{notebook}?reset&token={self.token}"

    def shutdown_kernels(self) -> None:
        for session in self.api("GET", "/api/sessions") or []:
            try:
                self.api("DELETE", f"/api/sessions/{session['id']}")
            except urllib.error.URLError:
                pass


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="session")
def chromium_path() -> str:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing("The `playwright` Python package is not installed.")
    path = find_chromium()
    if path is None:
        _missing("No Chromium binary found (looked for $CHROMIUM_PATH, `chromium`, "
                 "`chromium-browser`, /usr/bin/chromium).")
    return path


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory, chromium_path) -> LabServer:
    """One JupyterLab server for the whole browser suite; always stopped at the end."""
    try:
        import jupyterlab  # noqa: F401
    except ImportError:
        _missing("JupyterLab is not installed in this environment.")

    base = tmp_path_factory.mktemp("jupyterlab")
    root = base / "notebooks"
    shutil.copytree(NOTEBOOKS, root, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for sibling in ("docs", "data"):  # what a notebook may link to as ../docs/..., ../data/...
        if (ROOT / sibling).is_dir():
            shutil.copytree(ROOT / sibling, base / sibling)
    make_probe_notebook(root / PROBE_NAME)
    make_probe_notebook(root / BROKEN_PROBE_NAME, broken=True)

    app_settings = base / "app-settings"
    app_settings.mkdir()
    (app_settings / "overrides.json").write_text(json.dumps(OVERRIDES, indent=2), encoding="utf-8")
    dirs = {name: base / name for name in ("runtime", "config", "data", "ipython",
                                           "user-settings", "workspaces")}
    for d in dirs.values():
        d.mkdir()

    env = dict(os.environ)
    env.update({
        "JUPYTER_RUNTIME_DIR": str(dirs["runtime"]),
        "JUPYTER_CONFIG_DIR": str(dirs["config"]),
        "JUPYTER_DATA_DIR": str(dirs["data"]),
        "IPYTHONDIR": str(dirs["ipython"]),
        "JUPYTERLAB_SETTINGS_DIR": str(dirs["user-settings"]),
        "JUPYTERLAB_WORKSPACES_DIR": str(dirs["workspaces"]),
        "JUPYTER_PLATFORM_DIRS": "1",
    })
    env.pop("JUPYTER_PATH", None)
    # A fresh machine builds matplotlib's font cache on the first import, and after 5 s
    # matplotlib logs "building the font cache" to stderr -- in the first plotting cell,
    # where it would read as an unexpected warning. Build it before any kernel starts.
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    port, token = _free_port(), secrets.token_hex(16)
    cmd = [
        sys.executable, "-m", "jupyterlab",
        "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={root}",
        f"--LabApp.app_settings_dir={app_settings}",
        f"--LabApp.user_settings_dir={dirs['user-settings']}",
        f"--LabApp.workspaces_dir={dirs['workspaces']}",
        "--LabApp.expose_app_in_browser=True",  # window.jupyterapp, to run commands
        "--LabApp.news_url=None",
        "--ServerApp.terminals_enabled=False",
        "--LabApp.extension_manager=readonly",  # no PyPI queries from the extension manager
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # CI runs as root
    log = base / "jupyterlab.log"
    url = f"http://127.0.0.1:{port}"
    with open(log, "wb") as log_file:
        proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
    server = LabServer(url, token, root, log)
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"JupyterLab exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            try:
                server.api("GET", "/api/status")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab not ready after 180 s:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
        yield server
    finally:
        try:
            server.shutdown_kernels()
        except Exception:
            pass
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="session")
def browser_context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, device_scale_factor=1)
    try:
        yield ctx
    finally:
        ctx.close()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Each phase's report on the test item, for fixtures that act on a failure (test_browser_notebooks' ``tab``)."""
    report = yield
    setattr(item, f"_browser_report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def artifacts_dir(chromium_path) -> Path:
    """Fresh per run that can run (a skipped run keeps the last screenshots): stale
    screenshots from an earlier run would mislead."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in list(ARTIFACTS.glob("*.png")) + list(ARTIFACTS.glob("*.json")):
        old.unlink()
    return ARTIFACTS


@pytest.fixture(scope="session")
def widget_budget_s() -> float:
    # A deadline that catches a hung or broken widget, not a speed target: speed is a
    # benchmark figure (python -m benchmarks), and the settle times land in
    # artifacts/screenshots/browser-summary.json.
    return float(os.environ.get("BROWSER_WIDGET_BUDGET_S", "10.0"))


# --------------------------------------------------------------------------- Chinese on a machine without a CJK font
# The decks, the presentation view, the web and the browser editions ship the decks' font; these check it in a
# Chromium that sees no CJK system font (test_lecture_deck, test_presentation_view, test_web_edition,
# test_browser_edition).
# The deck's Chinese font: the family its template declares (@font-face) and the file it ships.
DECK_FONT = "CH02 Noto Sans SC"  # (its file: DECK_FONT_FILE, imported above)
HAN = re.compile("[\u4e00-\u9fff]")
# Fonts that cover Chinese, Japanese or Korean (fontconfig languages): hidden from the test's Chromium.
CJK_LANGS = ("zh-cn", "zh-tw", "zh-hk", "ja", "ko")

# Every drawn element under the selector whose own text holds a Chinese character: marked data-font-probe=i
# (for DevTools), with that text and its computed font-family. MathJax's copy for screen readers is not drawn.
MARK_CHINESE = """sel => {
  document.querySelectorAll('[data-font-probe]').forEach(e => e.removeAttribute('data-font-probe'));
  const out = [];
  document.querySelectorAll(sel).forEach(root => {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let t;
    while ((t = walk.nextNode())) {
      const el = t.parentElement;
      if (!/[\\u4e00-\\u9fff]/.test(t.nodeValue) || !el || el.dataset.fontProbe !== undefined) continue;
      if (el.closest('mjx-assistive-mml') || !el.getClientRects().length) continue;
      el.dataset.fontProbe = String(out.length);
      out.push({own: Array.from(el.childNodes).filter(c => c.nodeType === 3).map(c => c.nodeValue).join(''),
                family: getComputedStyle(el).fontFamily, tag: el.tagName.toLowerCase()});
    }
  });
  return out;
}"""


@pytest.fixture(scope="module")
def no_cjk_fonts(tmp_path_factory) -> dict:
    """The environment of a Chromium that sees no CJK system font, whatever this machine has installed: a fontconfig
    that reads the system's configuration and rejects every font covering Chinese, Japanese or Korean."""
    d = tmp_path_factory.mktemp("fontconfig")
    rejects = "".join(f"<pattern><patelt name=\"lang\"><string>{lang}</string></patelt></pattern>" for lang in CJK_LANGS)
    conf = d / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n<fontconfig>\n'
                    '  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n'
                    f"  <cachedir>{d / 'cache'}</cachedir>\n"
                    f"  <selectfont><rejectfont>{rejects}</rejectfont></selectfont>\n</fontconfig>\n", encoding="utf-8")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    if shutil.which("fc-list"):  # fontconfig's own tool, where installed: the configuration hides them
        seen = subprocess.run(["fc-list", ":lang=zh-cn", "family"], env=env, capture_output=True, text=True,
                              timeout=300).stdout
        assert not seen.strip(), f"the test's fontconfig still shows CJK fonts: {seen}"
    return env


@pytest.fixture(scope="module")
def cjk_less_browser(browser, chromium_path, no_cjk_fonts):
    """A second Chromium from the session's Playwright, started with the CJK-less fontconfig."""
    b = browser.browser_type.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS, env=no_cjk_fonts)
    try:
        yield b
    finally:
        b.close()


def _deck_font_drew_chinese(pg, cdp, sel: str, where: str) -> list[dict]:
    """Every drawn element under sel with Chinese in its own text: its computed font-family names the deck's font,
    and the fonts Chromium drew its text with (DevTools' CSS.getPlatformFontsForNode) give the deck's font file at
    least one glyph per Chinese character. Returns the elements checked."""
    from fontTools.ttLib import TTFont

    shipped = TTFont(str(DECK_FONT_FILE))["name"].getDebugName(1)  # the family name inside the shipped file
    found = pg.evaluate(MARK_CHINESE, sel)
    root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    for i, el in enumerate(found):
        assert DECK_FONT in el["family"], f"{where}: <{el['tag']}> {el['own']!r} is set in {el['family']}"
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f'[data-font-probe="{i}"]'})["nodeId"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        ours = sum(f["glyphCount"] for f in fonts if f["isCustomFont"] and f["familyName"] == shipped)
        assert ours >= len(HAN.findall(el["own"])), \
            f"{where}: <{el['tag']}> {el['own']!r} was drawn with {fonts}, not the deck's font ({shipped})"
    return found


def chinese_drawn_in_shipped_font(pg, sel: str, where: str, at_least: int) -> list[dict]:
    """Once the page's fonts are ready: :func:`_deck_font_drew_chinese` over ``sel`` in a DevTools session of its
    own, and at least ``at_least`` elements with Chinese text were checked (else the probe missed the page)."""
    pg.evaluate("() => document.fonts.ready")
    cdp = pg.context.new_cdp_session(pg)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    checked = _deck_font_drew_chinese(pg, cdp, sel, where)
    assert len(checked) >= at_least, f"{where}: only {len(checked)} elements with Chinese text: the probe missed it"
    return checked
