"""Every relative link in the notebooks and the README resolves; the index links every notebook."""

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _markdown(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _relative_links(text):
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        yield unquote(target.split("#", 1)[0])


@pytest.mark.parametrize("path", NOTEBOOKS + [ROOT / "README.md"], ids=lambda p: p.name)
def test_relative_links_resolve(path):
    text = _markdown(path) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")
    broken = [t for t in _relative_links(text) if not (path.parent / t).exists()]
    assert not broken, f"{path.name}: broken links {broken}"


def test_index_links_every_notebook():
    index = NB_DIR / "02-00-index.ipynb"
    linked = {Path(t).name for t in _relative_links(_markdown(index))}
    missing = [p.name for p in NOTEBOOKS if p != index and p.name not in linked]
    assert not missing, f"02-00-index.ipynb does not link {missing}"


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in NOTEBOOKS if p.name not in readme]
    assert not missing, f"README.md does not mention {missing}"
