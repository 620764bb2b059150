"""Voila configuration for the presentation view: `.venv/bin/voila notebooks/02-05-scaling-by-sqrt-dk.ipynb`.

Voila reads this file when it is started from the repository root (it looks for
voila.py / voila.json in the current folder). It selects the series' own template,
publish/share/jupyter/voila/templates/ch02 (no code, no exercises or solutions, nothing fetched
from another host), which Voila finds through JUPYTER_PATH: an editable install does not
copy data files into the environment, so the template is found where it lives.
"""

import os
from pathlib import Path

if "get_config" not in globals():  # imported as a module (e.g. `python -m voila` from here), not read as config
    raise ImportError(
        "voila.py in the repository root is Voila's configuration file, not the voila package: "
        "start Voila with its own command, `.venv/bin/voila notebooks/`."
    )

_SHARE = Path(__file__).resolve().parent / "publish" / "share" / "jupyter"
_paths = [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
if str(_SHARE) not in _paths:
    os.environ["JUPYTER_PATH"] = os.pathsep.join([str(_SHARE), *_paths])

c = get_config()  # noqa: F821  (provided by traitlets when it loads this file)
c.VoilaConfiguration.template = "ch02"
c.VoilaConfiguration.strip_sources = True
c.VoilaConfiguration.show_tracebacks = False
c.VoilaConfiguration.theme = "light"
c.VoilaExecutor.timeout = 180
# Only the JupyterLab extensions the widgets need, as the decks load (publish/deck/serve.py): the others
# installed beside JupyterLab (nbgrader, the JupyterLite kernel, notebook) fail outside JupyterLab and
# delay the page script that restores the widgets.
from publish.deck.serve import EXTENSIONS  # noqa: E402

c.VoilaConfiguration.extension_allowlist = EXTENSIONS
# Serve this machine only (the projector shows this machine's browser).
c.Voila.ip = "127.0.0.1"

