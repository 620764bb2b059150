"""The browser edition's copy of the weights: fetched from the site itself when 2.13 runs, verified (no numpy here).

The browser edition (``python -m publish lite``) carries the three pinned files of all-MiniLM-L6-v2 in
``<site>/static/models/all-MiniLM-L6-v2/`` (:data:`SITE_FOLDER`): ``vocab.txt``, ``config.json`` and
``model.safetensors`` cut into parts of :data:`PART_BYTES` (:func:`part_names`), each part small enough for every
browser's HTTP cache to keep (Firefox keeps no entry above 50 MB; the whole file is 87 MiB). Nothing of it is
fetched when a page opens: :func:`fetch_site` runs only in 2.13's first cell (``ensure_minilm``), inside the Pyodide
kernel (a web worker), with one synchronous same-origin request per file -- the kernel's code is synchronous, and a
worker may block. The browser's HTTP cache answers them on the next visit.

The parts are joined in memory and the whole file's SHA-256 and size are checked against the pinned
:data:`helpers.model.cache.MODEL_SHA256` / ``MODEL_BYTES`` (and ``vocab.txt`` / ``config.json`` against theirs)
before anything is loaded: a corrupt or foreign copy on the site raises
:class:`~helpers.model.cache.WeightsMismatchError`; an unreachable site raises
:class:`~helpers.model.cache.FetchError` (``kind == "network"``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from urllib.parse import urljoin

from . import cache as _pins       # the pinned hashes, read when used
from .cache import FetchError, WeightsMismatchError

__all__ = ["SITE_FOLDER", "PART_BYTES", "part_names", "site_url", "fetch_site"]

#: Where the site carries the files, relative to the site's root (the folder holding ``lab/`` and ``static/``).
SITE_FOLDER = "static/models/all-MiniLM-L6-v2"
#: Size of each part of model.safetensors (the last one is shorter): 4 MiB, under every browser's per-entry cap.
PART_BYTES = 4 * 2**20


def part_names() -> list[str]:
    """``model.safetensors.part00``, ``.part01``, ... -- the file's parts, in order (22 of them)."""
    n = -(-_pins.MODEL_BYTES // PART_BYTES)
    return [f"model.safetensors.part{k:02d}" for k in range(n)]


def site_url() -> str:
    """The folder URL of the files on this site (ends with ``/``), from where the kernel loaded Pyodide.

    The site's Pyodide lives in ``<site>/static/pyodide/`` (``pyodideUrl`` of the site's jupyter-lite.json)."""
    import pyodide_js  # only inside Pyodide

    return urljoin(str(pyodide_js._api.config.indexURL), "../../" + SITE_FOLDER + "/")


def _get(url: str) -> bytes:
    """The body of ``url`` (same origin), by a synchronous XMLHttpRequest from the kernel's web worker."""
    import js  # only inside Pyodide

    req = js.XMLHttpRequest.new()
    req.open("GET", url, False)
    req.responseType = "arraybuffer"           # allowed for a synchronous request in a worker
    try:
        req.send(None)
    except Exception as exc:                    # a JS NetworkError: no connection to the site
        raise OSError(f"GET {url}: {exc}") from exc
    if req.status != 200:
        raise OSError(f"GET {url}: HTTP {req.status} {req.statusText}")
    return req.response.to_bytes()


def fetch_site(progress: Callable[[int, int], None] | None = None, base: str | None = None,
               get: Callable[[str], bytes] | None = None) -> dict[str, bytes]:
    """The three model files from the site, verified: ``{"model.safetensors": ..., "vocab.txt": ..., "config.json": ...}``.

    Parameters
    ----------
    progress : callable, optional
        Called as ``progress(done_bytes, total_bytes)`` after each part.
    base : str, optional
        The folder URL (default :func:`site_url`).
    get : callable, optional
        ``get(url) -> bytes`` (default: a synchronous request from the kernel's worker). Tests pass their own.

    Raises
    ------
    FetchError
        A file could not be fetched (``kind == "network"``): offline on a first visit, or the site lacks it.
    WeightsMismatchError
        The joined ``model.safetensors``, ``vocab.txt`` or ``config.json`` is not the pinned file; nothing is returned.
    """
    base = site_url() if base is None else base
    get = _get if get is None else get
    out = {}

    def fetch(name: str) -> bytes:
        try:
            return get(base + name)
        except OSError as exc:
            raise FetchError(f"could not fetch {name} from this site ({exc})", "network") from exc

    for name, want in (("vocab.txt", _pins.VOCAB_SHA256), ("config.json", _pins.CONFIG_SHA256)):
        data = fetch(name)
        if (got := hashlib.sha256(data).hexdigest()) != want:
            raise WeightsMismatchError(f"{name} on this site has SHA-256 {got}, but the pinned file has {want}.")
        out[name] = data
    size, sha256 = _pins.MODEL_BYTES, _pins.MODEL_SHA256
    model = bytearray(size)
    h, done = hashlib.sha256(), 0
    for name in part_names():
        part = fetch(name)
        if done + len(part) > size:
            raise WeightsMismatchError(f"the parts of model.safetensors on this site hold more than the pinned "
                                       f"{size:,} bytes (at {name}).")
        model[done:done + len(part)] = part
        h.update(part)
        done += len(part)
        if progress is not None:
            progress(done, size)
    if done != size or h.hexdigest() != sha256:
        raise WeightsMismatchError(
            f"model.safetensors joined from this site's parts has {done:,} bytes and SHA-256 {h.hexdigest()}, but "
            f"the pinned file has {size:,} bytes and {sha256}: it is corrupt or not the pinned "
            f"all-MiniLM-L6-v2.")
    out["model.safetensors"] = model
    return out

