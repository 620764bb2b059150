"""Print the one-click nbgitpuller link that gives every student the notebooks on a JupyterHub.

    python -m publish link https://hub.example.edu https://github.com/OWNER/REPO
    python -m publish link HUB REPO --branch main --notebook 02-05-scaling-by-sqrt-dk.ipynb --ui lab
    python -m publish link HUB STUDENT_EDITION_REPO --layout flat   # the student edition's flat folder

The hub must have nbgitpuller installed (``pip install nbgitpuller`` in the hub's user image).
Clicking the link clones the repository into the student's home on first use and merges
updates afterwards without overwriting the student's own edits, then opens the notebook.
For a student edition, push the output of ``python -m publish student`` to its own
repository (or branch) and link that with ``--layout flat``: there the notebooks sit at the top of
the repository instead of in ``notebooks/``. Either way the notebook must be one of this series'
(``notebooks/02-*.ipynb``; the student edition has the same file names): a misspelt name is
refused here rather than turning into a link that opens an empty folder.
"""

from __future__ import annotations

import argparse
from pathlib import PurePosixPath
from urllib.parse import urlencode, urlsplit

from .notebooks import series

DEFAULT_NOTEBOOK = "02-00-index.ipynb"
LAYOUTS = {"repo": "notebooks/", "flat": ""}   # where the notebooks sit in the linked repository


def series_notebooks() -> list[str]:
    """The file names of the series' notebooks (the student edition keeps the same names)."""
    return [p.name for p in series()]


def _check_http_url(name: str, value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in {"http", "https"} or not parts.netloc:
        raise ValueError(f"{name} must be an http(s) URL with a host; got {value!r}")
    return value.rstrip("/")


def nbgitpuller_link(hub: str, repo: str, *, branch: str = "main", notebook: str = DEFAULT_NOTEBOOK,
                     ui: str = "lab", layout: str = "repo") -> str:
    """The nbgitpuller URL that clones ``repo`` on ``hub`` and opens ``<notebook>`` in it.

    Parameters
    ----------
    hub : str        the JupyterHub's base URL, e.g. ``https://hub.example.edu``
    repo : str       the git repository's clone URL
    branch : str     the branch to pull
    notebook : str   one of the series' notebooks, e.g. ``02-05-scaling-by-sqrt-dk.ipynb``
    ui : {"lab", "voila"}
        ``lab`` opens JupyterLab at the notebook; ``voila`` opens its presentation view
        (needs Voila on the hub).
    layout : {"repo", "flat"}
        ``repo``: this repository (the notebook in ``notebooks/``); ``flat``: a student edition
        pushed as its own repository (the notebook at the top level).
    """
    hub, repo = _check_http_url("hub", hub), _check_http_url("repo", repo)
    if not branch or any(c.isspace() for c in branch):
        raise ValueError(f"branch must be a non-empty name without spaces; got {branch!r}")
    if not notebook.endswith(".ipynb") or "/" in notebook:
        raise ValueError(f"notebook must be a file name ending in .ipynb, without a folder; got {notebook!r}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {sorted(LAYOUTS)}; got {layout!r}")
    if notebook not in series_notebooks():
        raise ValueError(f"notebook {notebook!r} is not one of the series' notebooks: {', '.join(series_notebooks())}")
    folder = PurePosixPath(urlsplit(repo).path).name.removesuffix(".git")
    target = f"{folder}/{LAYOUTS[layout]}{notebook}"
    if ui == "lab":
        urlpath = f"lab/tree/{target}"
    elif ui == "voila":
        urlpath = f"voila/render/{target}"
    else:
        raise ValueError(f"ui must be 'lab' or 'voila'; got {ui!r}")
    query = urlencode({"repo": repo, "urlpath": urlpath, "branch": branch})
    return f"{hub}/hub/user-redirect/git-pull?{query}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m publish link", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("hub")
    parser.add_argument("repo")
    parser.add_argument("--branch", default="main")
    parser.add_argument("--notebook", default=DEFAULT_NOTEBOOK)
    parser.add_argument("--ui", choices=["lab", "voila"], default="lab")
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default="repo",
                        help="repo: the notebooks are in notebooks/ (this repository); flat: a student edition's folder")
    args = parser.parse_args(argv)
    try:
        print(nbgitpuller_link(args.hub, args.repo, branch=args.branch, notebook=args.notebook, ui=args.ui,
                               layout=args.layout))
    except ValueError as exc:
        parser.error(str(exc))
    return 0

