"""Every relative link in the notebooks and the Markdown pages (README, CONTRIBUTING, docs/, the benchmark
results) resolves; the index links every notebook; the README lists every notebook."""

import json
import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parents[1]
NB_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NB_DIR.glob("*.ipynb"))
PAGES = ([ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "benchmarks" / "results.md"]
         + sorted((ROOT / "docs").rglob("*.md")))
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _markdown(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def _prose(text):
    """Markdown without its fenced blocks and code spans (a link shown as code is an example, not a link)."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))


def _relative_links(text):
    for target in LINK.findall(text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        yield unquote(target.split("#", 1)[0])


@pytest.mark.parametrize("path", NOTEBOOKS + PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    text = _markdown(path) if path.suffix == ".ipynb" else _prose(path.read_text(encoding="utf-8"))
    broken = [t for t in _relative_links(text) if not (path.parent / t).exists()]
    assert not broken, f"{path.relative_to(ROOT)}: broken links {broken}"


def test_index_links_every_notebook():
    index = NB_DIR / "02-00-index.ipynb"
    linked = {Path(t).name for t in _relative_links(_markdown(index))}
    missing = [p.name for p in NOTEBOOKS if p != index and p.name not in linked]
    assert not missing, f"02-00-index.ipynb does not link {missing}"


def test_readme_lists_every_notebook():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in NOTEBOOKS if p.name not in readme]
    assert not missing, f"README.md does not mention {missing}"


def test_every_docs_page_is_reachable_from_the_readme():
    """A page nobody links is a page nobody reads: every docs/ page is reached by links from README.md."""
    seen, todo = set(), [ROOT / "README.md"]
    while todo:
        page = todo.pop()
        if page in seen or page.suffix != ".md" or not page.exists():
            continue
        seen.add(page)
        text = _prose(page.read_text(encoding="utf-8"))
        todo += [(page.parent / t).resolve() for t in _relative_links(text)]
    orphans = [str(p.relative_to(ROOT)) for p in PAGES if p.resolve() not in seen]
    assert not orphans, f"no chain of links from README.md reaches {orphans}"
