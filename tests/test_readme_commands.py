"""The README's two commands are what CI runs and what the project can actually do."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _command_after(heading: str) -> str:
    m = re.search(re.escape(heading) + r".*?```bash\n(.*?)\n```", README, re.S)
    assert m, f"README has no bash block after {heading!r}"
    lines = [ln for ln in m.group(1).splitlines() if ln.strip()]
    assert len(lines) == 1, f"the block after {heading!r} must be exactly one command, got {lines}"
    return lines[0]


def _ci_lines() -> list[str]:
    return [ln.strip() for ln in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]


def test_ci_runs_exactly_the_readme_test_command():
    test_cmd = _command_after("Install and run the whole test suite")
    assert test_cmd in _ci_lines(), f".ci/run does not run the README's test command:\n{test_cmd}"


def test_ci_runs_exactly_the_readme_lowest_versions_command():
    cmd = _command_after("Test the oldest versions the declared ranges allow")
    assert "-c constraints/lowest.txt" in cmd and (ROOT / "constraints" / "lowest.txt").exists()
    assert cmd in _ci_lines(), f".ci/run does not run the README's lowest-versions command:\n{cmd}"


def test_ci_is_strict_and_never_deletes_the_maintainers_venv():
    text = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "export SELF_ATTENTION_CH02_STRICT=1" in text
    assert "rm -rf .venv" not in text and "mktemp -d" in text


def test_open_command_opens_the_index_notebook():
    open_cmd = _command_after("Install and open the series in JupyterLab")
    assert open_cmd.startswith("python3 -m venv .venv && ")
    target = open_cmd.split()[-1]
    assert (ROOT / target).exists(), f"the open command points at {target}, which does not exist"
    assert '".[lab]"' in open_cmd


def test_extras_named_in_readme_exist():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    for extra in {e for group in re.findall(r'"\.\[([\w,]+)\]"', README) for e in group.split(",")}:
        assert re.search(rf"^{extra} = \[", pyproject, re.M), f"README installs extra [{extra}], which pyproject.toml lacks"
