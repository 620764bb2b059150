"""Lab-room and JupyterHub tools: the nbgitpuller link is well formed and opens a real notebook."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("nbgitpuller_link", ROOT / "tools" / "nbgitpuller_link.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("ui, prefix", [("lab", "lab/tree/"), ("voila", "voila/render/")])
def test_link_is_well_formed_and_points_at_a_notebook(ui, prefix):
    link = _tool().nbgitpuller_link("https://hub.example.edu/", "https://github.com/owner/self-attention-ch02.git",
                                    branch="main", notebook="02-05-scaling-by-sqrt-dk.ipynb", ui=ui)
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "hub.example.edu", "/hub/user-redirect/git-pull")
    query = parse_qs(parts.query, strict_parsing=True)
    assert query["repo"] == ["https://github.com/owner/self-attention-ch02.git"]
    assert query["branch"] == ["main"]
    (urlpath,) = query["urlpath"]
    assert urlpath == prefix + "self-attention-ch02/notebooks/02-05-scaling-by-sqrt-dk.ipynb"
    assert (ROOT / "notebooks" / urlpath.split("/notebooks/", 1)[1]).exists()


@pytest.mark.parametrize("kwargs, arg", [
    ({"hub": "hub.example.edu"}, "hub"),
    ({"repo": "git@github.com:owner/repo.git"}, "repo"),
    ({"branch": "my branch"}, "branch"),
    ({"notebook": "../secret.txt"}, "notebook"),
    ({"ui": "classic"}, "ui"),
])
def test_bad_arguments_are_named(kwargs, arg):
    args = {"hub": "https://hub.example.edu", "repo": "https://github.com/owner/repo"} | kwargs
    hub, repo = args.pop("hub"), args.pop("repo")
    with pytest.raises(ValueError, match=arg):
        _tool().nbgitpuller_link(hub, repo, **args)


def test_default_link_opens_the_index():
    link = _tool().nbgitpuller_link("https://hub.example.edu", "https://github.com/owner/repo")
    assert parse_qs(urlsplit(link).query)["urlpath"] == ["lab/tree/repo/notebooks/02-00-index.ipynb"]
