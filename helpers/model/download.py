"""Download one file over HTTP(S) (or ``file://``) with a progress line: what :mod:`helpers.model.cache` fetches
the weights with. No numpy, nothing but the standard library (and certifi's certificates when installed)."""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable

__all__ = ["download", "ProgressLine"]


def _ssl_contexts():
    """The system's certificates first (a proxy's own CA installed there, as pip trusts it), then certifi's when it
    is installed (the ``lab`` install has it): a python.org Python on macOS has no system certificates until its
    'Install Certificates' step."""
    import ssl

    yield ssl.create_default_context()
    try:
        import certifi
    except ImportError:
        return
    yield ssl.create_default_context(cafile=certifi.where())


def _open(url: str):
    """``urlopen(url)``, trying each of :func:`_ssl_contexts` while the server's certificate is not trusted."""
    import ssl

    for context in _ssl_contexts():
        try:
            return urllib.request.urlopen(url, timeout=60, context=context)
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ssl.SSLCertVerificationError):
                raise
            failure = exc
    raise failure


def download(url: str, target: str | os.PathLike, progress: Callable[[int, int], None] | None = None,
             expected_bytes: int | None = None) -> None:
    """Stream ``url`` into the file ``target`` (1 MiB at a time), calling ``progress(done_bytes, total_bytes)``.

    ``total_bytes`` is the server's Content-Length, else ``expected_bytes``. A connection that closes before the
    announced length is a ``ConnectionError`` (urllib's ``read()`` just ends early). Network failures raise as
    urllib raises them (``URLError``, timeouts: ``OSError``); the partial file stays for the caller to remove.
    """
    with _open(url) as resp, open(target, "wb") as out:
        announced = resp.headers.get("Content-Length")
        total = int(announced or expected_bytes or 0)
        done = 0
        while block := resp.read(1 << 20):
            out.write(block)
            done += len(block)
            if progress is not None:
                progress(done, total)
        if announced is not None and done < total:
            raise ConnectionError(f"the connection closed after {done:,} of {total:,} bytes")


class ProgressLine:
    """A one-line download progress, rewritten in place with a carriage return (a terminal and JupyterLab's
    output area both overwrite the line); at most one update per ``every`` seconds, and the last one always.

    Parameters
    ----------
    label : str
        What is downloading, e.g. ``"all-MiniLM-L6-v2"``.
    stream : file-like, optional
        Default: ``sys.stdout`` at the time of each update (a notebook's output).
    """

    def __init__(self, label: str, stream=None, every: float = 0.25):
        self.label, self.stream, self.every, self._last = label, stream, every, -1.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < self.every:
            return
        self._last = now
        frac = min(1.0, done / total) if total else 1.0
        bar = "#" * int(30 * frac)
        out = self.stream or sys.stdout
        out.write(f"\r{self.label} [{bar:<30}] {done / 1e6:5.1f} / {total / 1e6:.1f} MB ({frac:4.0%})")
        if done >= total:
            out.write("\n")
        out.flush()
