"""benchmarks/results.md: the benchmarks write their figures there, one section each, and keep the rest."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from benchmarks import results as R

ROOT = Path(__file__).resolve().parents[1]
COMMITTED = ROOT / "benchmarks" / "results.md"


@pytest.fixture
def copy(tmp_path) -> Path:
    path = tmp_path / "results.md"
    shutil.copy(COMMITTED, path)
    return path


def test_the_committed_file_says_when_and_how_each_figure_was_measured():
    head, found = R.sections(COMMITTED.read_text(encoding="utf-8"))
    assert "## " not in head and found, "the head must come before the first figure"
    for key, text in found.items():
        assert text.startswith("## "), key
        assert re.search(r"\b20\d\d\b|date not recorded", text), f"figure {key!r} does not say when it was measured"
        assert re.search(r"by `[^`]+`", text) or "*Measured by hand*" in text and key not in R.FIGURES, \
            f"figure {key!r} names no command that measured it (and is no figure measured by hand)"
    assert set(R.FIGURES) - {"memory"} <= set(found), "a benchmark figure has no section yet"


def test_record_replaces_its_own_section_and_keeps_every_other(copy):
    before_head, before = R.sections(copy.read_text(encoding="utf-8"))
    R.record("lecture", "first live widget 0.12 s vs bare kernel 0.34 s: 0.35x\n", command="python -m benchmarks.lecture",
             path=copy, when="2031-01-02 03:04 UTC", machine="machine: test")
    head, after = R.sections(copy.read_text(encoding="utf-8"))
    assert head == before_head and list(after) == list(before)
    assert all(after[k] == before[k] for k in before if k != "lecture")
    new = after["lecture"]
    assert "first live widget 0.12 s vs bare kernel 0.34 s: 0.35x" in new and "*Seeded.*" not in new
    assert "2031-01-02 03:04 UTC" in new and "`python -m benchmarks.lecture`" in new and "machine: test" in new


def test_a_new_section_goes_where_the_figures_are_ordered(tmp_path):
    path = tmp_path / "results.md"
    R.record("lecture", "late\n", command="c", path=path, machine="m")
    R.record("explorer", "early\n", command="c", path=path, machine="m")
    assert list(R.sections(path.read_text(encoding="utf-8"))[1]) == ["explorer", "lecture"]


def test_record_refuses_an_unknown_figure_and_an_empty_one(tmp_path):
    with pytest.raises(ValueError, match="key"):
        R.record("nonsense", "x", command="c", path=tmp_path / "r.md", machine="m")
    with pytest.raises(ValueError, match="empty"):
        R.record("lecture", "  \n", command="c", path=tmp_path / "r.md", machine="m")
    assert not (tmp_path / "r.md").exists()


def test_measured_prints_as_usual_and_writes_only_what_was_measured(tmp_path, capsys):
    path = tmp_path / "results.md"

    def not_measured():
        print("lecture: not measured (needs playwright)")
        return None

    assert R.measured("lecture", not_measured, command="c", path=path) is None
    assert not path.exists()
    assert R.measured("lecture", lambda: print("ratio 0.70x") or {"ok": 1}, command="c", path=path) == {"ok": 1}
    assert "ratio 0.70x" in capsys.readouterr().out
    assert "ratio 0.70x" in R.sections(path.read_text(encoding="utf-8"))[1]["lecture"]


def _only(figure: str) -> list[str]:
    flags = {"explorer", "suite", "attention", "classroom", "browser-edition", "lecture", "model-explorer"} - {figure}
    return [f"--no-{f}" for f in sorted(flags)]


def test_python_m_benchmarks_writes_the_figures_it_measured(monkeypatch, tmp_path):
    """The command's wiring: a figure's printed lines land in its own section, with the command line."""
    from benchmarks import __main__ as cli
    from benchmarks import attention

    def fake(quick=False, full_memory=False):
        print("tiled / plain at T = 512: 0.50x")
        return {"rows": [], "memory": []}

    monkeypatch.setattr(attention, "main", fake)
    path = tmp_path / "results.md"
    assert cli.main(_only("attention") + ["--results", str(path)]) == 0
    section = R.sections(path.read_text(encoding="utf-8"))[1]["attention"]
    assert "tiled / plain at T = 512: 0.50x" in section
    assert "`python -m benchmarks --no-browser-edition" in section and f"--results {path}`" in section


def test_quick_runs_write_nothing_unless_told_where(monkeypatch, tmp_path):
    from benchmarks import __main__ as cli
    from benchmarks import attention

    monkeypatch.setattr(attention, "main", lambda quick=False, full_memory=False: print("quick") or {"rows": [], "memory": []})
    monkeypatch.setattr(R, "RESULTS", tmp_path / "default.md")
    assert cli.main(_only("attention") + ["--quick"]) == 0
    assert not (tmp_path / "default.md").exists()
    assert cli.main(_only("attention") + ["--no-write"]) == 0
    assert not (tmp_path / "default.md").exists()
    assert cli.main(_only("attention")) == 0
    assert "quick" in R.sections((tmp_path / "default.md").read_text(encoding="utf-8"))[1]["attention"]


def test_only_skips_every_figure_the_command_has(capsys):
    """``_only`` must name every --no-<figure> flag, or the tests above would run a slow figure for real."""
    from benchmarks import __main__ as cli

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    flags = set(re.findall(r"--no-([\w-]+)", capsys.readouterr().out)) - {"write"}
    assert set(_only("none")) == {f"--no-{f}" for f in flags}
