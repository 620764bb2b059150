"""Blind reveals: the experiment after a prediction runs at once, what it shows waits for the vote.

A reveal cell follows its prediction cell (:mod:`helpers.ui.predict`)::

    with H.reveal("2.5-q1") as r:
        ...                       # the experiment: prints, plots with plt.show()
        r.observed = <the option index (or number) the computation shows>

Inside the ``with`` block everything runs as usual ("Run All" works, nbval runs it), but what it
prints or draws (stdout, stderr, displayed figures) is captured. On leaving the block:

- ``r.observed`` is checked against the question's key, out of the learner's sight: a mismatch
  raises :class:`KeyMismatch` (the notebook lane fails, naming the question, the key and what the
  computation showed);
- if the learner has already submitted a prediction for the question, or pressed
  「不猜了，直接看答案」, in this kernel, the captured output is shown at once, as it came;
- otherwise the cell shows a short Chinese placeholder (:func:`placeholder_html`) through a display
  handle, and the prediction widget's callback replaces it with the output (:func:`revealed_html`)
  the moment the learner answers.

What a committed (executed) notebook holds under a reveal is the placeholder, never the result: it
carries a digest of the hidden *text* (:func:`text_digest`) so strict nbval still fails when a hidden
number changes, and the hidden outputs themselves in the output's metadata under :data:`HIDDEN_KEY`
(nbval compares no metadata; no front end draws it), where the static editions find them: the web
edition folds them into a closed 「看答案」 box, a deck's figure slide takes its image from them.
Design note: ``docs/design/blind-reveals.md``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import sys

from .._validate import check_text
from .predict import KeyMismatch, check_observed, is_answered, prediction_key, when_answered

__all__ = ["HIDDEN_KEY", "KeyMismatch", "Reveal", "reveal", "text_digest", "placeholder_html", "revealed_html",
           "show"]

#: Output metadata key of a placeholder: ``{"qid": "2.5-q1", "outputs": [nbformat outputs]}``.
HIDDEN_KEY = "self_attention_ch02_reveal"
DIGEST_CHARS = 6


def _text_of(outputs: list[dict]) -> str:
    """The text nbval would compare in ``outputs``: streams, and each display's text/plain, in order."""
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            parts.append(f"[{o.get('name', 'stdout')}]{o.get('text', '')}")
        else:
            parts.append(f"[display]{o.get('data', {}).get('text/plain', '')}")
    return "\n".join(parts)


def text_digest(outputs: list[dict]) -> str:
    """A short hex digest (6 characters) of the text in ``outputs`` (nbformat output dicts).

    Streams and each display's ``text/plain`` count; images do not (nbval does not compare them
    either, and their bytes change with the matplotlib build).
    """
    if not isinstance(outputs, list) or not all(isinstance(o, dict) for o in outputs):
        raise TypeError(f"outputs must be a list of nbformat output dicts; got {type(outputs).__name__}.")
    return hashlib.sha256(_text_of(outputs).encode("utf-8")).hexdigest()[:DIGEST_CHARS]


def placeholder_html(qid: str, digest: str) -> str:
    """The placeholder a reveal shows until its question is answered: no result, only where it comes from."""
    check_text("qid", qid, nonempty=True)
    check_text("digest", digest, nonempty=True)
    return ("<div class='ch02-reveal-hidden' style='color:#555'>🙈 运行结果先藏着：回答上面的预测题 "
            f"{html.escape(qid)}（或点「不猜了，直接看答案」）后，它就显示在这里。"
            f"<span style='float:right;font-size:0.8em'>校验 {html.escape(digest)}</span></div>")


def revealed_html(outputs: list[dict]) -> str:
    """``outputs`` (nbformat output dicts) as one HTML fragment: text in ``<pre>``, figures as ``<img>``."""
    text_digest(outputs)  # validates
    parts = []
    for o in outputs:
        if o.get("output_type") == "stream":
            style = "margin:0" if o.get("name") != "stderr" else "margin:0;background:#fdd"
            parts.append(f"<pre style='{style}'>{html.escape(o.get('text', ''))}</pre>")
            continue
        data = o.get("data", {})
        if "image/png" in data:
            size = o.get("metadata", {}).get("image/png", {})
            attrs = "".join(f" {k}='{int(size[k])}'" for k in ("width", "height") if k in size)
            parts.append(f"<img src='data:image/png;base64,{data['image/png'].strip()}'{attrs}>")
        elif "text/html" in data:
            parts.append(data["text/html"])
        elif "text/plain" in data:
            parts.append(f"<pre style='margin:0'>{html.escape(data['text/plain'])}</pre>")
    return "<div class='ch02-reveal-shown'>" + "\n".join(parts) + "</div>"


def _outputs(captured) -> list[dict]:
    """IPython's ``CapturedIO`` as nbformat output dicts: stdout, stderr, then each display."""
    outs = [{"output_type": "stream", "name": name, "text": text}
            for name, text in (("stdout", captured.stdout), ("stderr", captured.stderr)) if text]
    for rich in captured.outputs:
        data = {k: (base64.b64encode(v).decode() if isinstance(v, bytes) else v) for k, v in rich.data.items()}
        outs.append({"output_type": "display_data", "data": data, "metadata": dict(rich.metadata or {})})
    return outs


def _replay(outputs: list[dict]) -> None:
    """Show ``outputs`` as they came (the question is already answered)."""
    from IPython.display import display

    for o in outputs:
        if o["output_type"] == "stream":
            (sys.stderr if o["name"] == "stderr" else sys.stdout).write(o["text"])
        else:
            display(o["data"], metadata=o["metadata"], raw=True)


def show(qid: str, outputs: list[dict]) -> None:
    """Show ``outputs`` of the reveal of ``qid`` now if it is answered, else a placeholder the answer replaces."""
    from IPython.display import display

    if is_answered(qid):
        _replay(outputs)
        return
    meta = {HIDDEN_KEY: {"qid": qid, "outputs": outputs}}
    handle = display({"text/html": placeholder_html(qid, text_digest(outputs))}, metadata=meta, raw=True,
                     display_id=True)
    if handle is not None:  # None outside a kernel (a plain Python run prints the placeholder)
        when_answered(qid, lambda: handle.update({"text/html": revealed_html(outputs)}, raw=True))


class Reveal:
    """The context manager :func:`reveal` returns; set ``observed`` inside the block."""

    def __init__(self, qid: str):
        prediction_key(qid)  # a known question id, or a clear error now
        self.qid = qid
        self.observed = None
        self._capture = self._captured = None

    def __enter__(self) -> "Reveal":
        from IPython.utils.capture import capture_output

        self._capture = capture_output(stdout=True, stderr=True, display=True)
        self._captured = self._capture.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        self._capture.__exit__(exc_type, exc, tb)
        outputs = _outputs(self._captured)
        if exc_type is not None:  # an error in the experiment: show everything, the traceback follows
            _replay(outputs)
            return False
        check_observed(self.qid, self.observed)
        show(self.qid, outputs)
        return False


def reveal(qid: str) -> Reveal:
    """``with H.reveal("2.N-qK") as r: ...; r.observed = ...``: run a reveal blind (see the module docstring).

    Parameters
    ----------
    qid : str
        The id of the question this cell reveals (a key in :mod:`helpers.ui.prediction_keys`).

    Returns
    -------
    Reveal
        Set ``r.observed`` inside the block: the index of the option the computation shows (a choice
        question) or the number it measured (a numeric question).
    """
    return Reveal(qid)
