"""Lab-room and JupyterHub tools: the nbgitpuller link is well formed and opens a real notebook."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    from publish import link

    return link


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


def test_flat_layout_opens_a_notebook_of_the_student_edition(tmp_path):
    """A student edition pushed as its own repository has its notebooks at the top level."""
    from publish import student

    edition = tmp_path / "ch02-student"
    student.build(edition, [ROOT / "notebooks" / "02-10-causal-mask.ipynb"])
    for ui, prefix in [("lab", "lab/tree/"), ("voila", "voila/render/")]:
        link = _tool().nbgitpuller_link("https://hub.example.edu", "https://github.com/owner/ch02-student.git",
                                        notebook="02-10-causal-mask.ipynb", ui=ui, layout="flat")
        (urlpath,) = parse_qs(urlsplit(link).query)["urlpath"]
        assert urlpath == prefix + "ch02-student/02-10-causal-mask.ipynb"
        assert (tmp_path / urlpath.removeprefix(prefix)).is_file()


@pytest.mark.parametrize("layout", ["repo", "flat"])
def test_a_notebook_that_does_not_exist_is_refused(layout, capsys):
    with pytest.raises(ValueError, match=r"'02-05-scaling\.ipynb' is not one of the series' notebooks"):
        _tool().nbgitpuller_link("https://hub.example.edu", "https://github.com/owner/repo",
                                 notebook="02-05-scaling.ipynb", layout=layout)
    with pytest.raises(SystemExit):
        _tool().main(["https://hub.example.edu", "https://github.com/owner/repo", "--notebook", "02-99-nope.ipynb",
                      "--layout", layout])
    assert "02-99-nope.ipynb" in capsys.readouterr().err


def test_bad_layout_is_named():
    with pytest.raises(ValueError, match="layout"):
        _tool().nbgitpuller_link("https://hub.example.edu", "https://github.com/owner/repo", layout="nested")


def test_default_link_opens_the_index():
    link = _tool().nbgitpuller_link("https://hub.example.edu", "https://github.com/owner/repo")
    assert parse_qs(urlsplit(link).query)["urlpath"] == ["lab/tree/repo/notebooks/02-00-index.ipynb"]


# --------------------------------------------------------------------------- shared read-only model cache

_READ_ONLY_PROBE = r"""
import os, sys
shared = sys.argv[1]
WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

def inside(path):
    try:
        return os.path.realpath(os.fsdecode(path)).startswith(shared)
    except (TypeError, ValueError):
        return False

def audit(event, args):
    # Any attempt to write, create, rename or delete inside the shared folder fails, as it
    # would on a read-only mount (root ignores permission bits, so chmod alone proves nothing).
    if event == "open" and inside(args[0]):
        mode, flags = args[1], args[2]
        if (mode and any(c in mode for c in "wax+")) or (flags and flags & WRITE):
            raise PermissionError(f"write to the shared cache: {args[0]} ({mode or flags})")
    if event in {"os.rename", "os.replace", "os.remove", "os.rmdir", "os.mkdir", "os.chmod",
                 "os.utime", "os.truncate", "shutil.rmtree", "os.link", "os.symlink"} and args and inside(args[0]):
        raise PermissionError(f"{event} in the shared cache: {args[0]}")
    if event == "mmap.__new__":
        import mmap
        if args[2] not in (mmap.ACCESS_READ,):
            raise PermissionError(f"writable mmap {args}")

sys.addaudithook(audit)
os.environ["SELF_ATTENTION_CH02_CACHE"] = shared
from helpers.model import real_model as RM
assert RM.weights_present(), RM.missing_message()
RM.verify()
model = RM.load_minilm()
vec = model.embed("The animal didn't cross the street because it was too tired.")
assert vec.shape == (384,)
exec(sys.argv[2] if len(sys.argv) > 2 else "")
print("loaded", type(model).__name__)
"""


@pytest.mark.parametrize("extra, ok", [("", True), ("open(os.path.join(shared, 'x.lock'), 'w')", False)],
                         ids=["load-and-embed", "negative-control-a-write-is-caught"])
def test_a_shared_read_only_cache_serves_every_student(tmp_path, extra, ok):
    """A lab room fetches the 2.13 model once into a shared read-only folder; loading from it never writes."""
    import os
    import shutil
    import stat
    import subprocess
    import sys

    from helpers.model import cache as model_cache

    if not model_cache.weights_present():
        pytest.skip(model_cache.missing_message())
    shared = tmp_path / "ch02-cache"
    shutil.copytree(model_cache.model_dir(), shared / model_cache.model_dir().name)
    for root, dirs, files in os.walk(shared):
        for f in files:
            os.chmod(os.path.join(root, f), stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
        os.chmod(root, stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    before = sorted((p.relative_to(shared), p.stat().st_mtime_ns) for p in shared.rglob("*"))
    try:
        r = subprocess.run([sys.executable, "-c", _READ_ONLY_PROBE, str(shared.resolve()), extra], cwd=ROOT,
                           capture_output=True, text=True, timeout=300,
                           env={**os.environ, "MPLCONFIGDIR": str(tmp_path / "mpl")})
        if not ok:
            assert r.returncode != 0 and "PermissionError" in r.stderr, r.stdout + r.stderr[-2000:]
            return
        assert r.returncode == 0 and "loaded" in r.stdout, r.stderr[-3000:]
        after = sorted((p.relative_to(shared), p.stat().st_mtime_ns) for p in shared.rglob("*"))
        assert after == before, "loading from the shared cache changed it"
    finally:
        for root, dirs, files in os.walk(shared):
            os.chmod(root, stat.S_IRWXU)


def test_the_installed_voila_setting_is_the_repository_roots(monkeypatch):
    """Outside the repository (a lab room's install, a hub, JupyterLab's Voila route, ``publish deck --install-voila``)
    Voila reads share/etc/jupyter/voila.json instead of the root's voila.py: the presentation view must be the same
    there (template, no code, and only the widgets' JupyterLab extensions: the others fail outside JupyterLab)."""
    import runpy

    from traitlets.config import Config

    from publish.deck.install import sources

    root_config = Config()
    monkeypatch.setenv("JUPYTER_PATH", "")  # voila.py prepends the template folder to it
    runpy.run_path(str(ROOT / "voila.py"), init_globals={"get_config": lambda: root_config})
    installed = json.loads(sources()["config"].read_text(encoding="utf-8"))["VoilaConfiguration"]
    from_root = dict(root_config.VoilaConfiguration)
    assert from_root, "voila.py set no VoilaConfiguration"
    assert installed == from_root, f"voila.json {installed} differs from voila.py {from_root}"
