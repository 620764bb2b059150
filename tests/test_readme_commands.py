"""The README's commands are what CI runs and what the project can actually do; the README stays a
two-minute read and every path it names exists."""

import glob
import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    extras = {e.strip() for group in re.findall(r'"\.\[([\w,]+)\]"', README) for e in group.split(",")}
    assert {"test", "grading", "editions"} <= extras
    for extra in extras:
        assert re.search(rf"^{extra} = \[", pyproject, re.M), f"README installs extra [{extra}], which pyproject.toml lacks"


# --------------------------------------------------------------------------- a two-minute read

MAX_LINES = 150


def test_readme_is_a_two_minute_read():
    lines = README.count("\n") + (not README.endswith("\n"))
    assert lines <= MAX_LINES, (f"README.md has {lines} lines (at most {MAX_LINES}): design notes go to docs/design/, "
                                "how-tos to docs/editions/ or docs/teaching/, figures to benchmarks/results.md")


# --------------------------------------------------------------------------- every command it names runs

def _code() -> str:
    """Everything the README shows as code: fenced blocks and inline spans."""
    blocks = re.findall(r"```\w*\n(.*?)```", README, re.S)
    rest = re.sub(r"```\w*\n.*?```", "", README, flags=re.S)
    return "\n".join(blocks + re.findall(r"`([^`\n]+)`", rest))


def _module_commands() -> list[tuple[str, ...]]:
    """Each distinct ``python -m MODULE [SUBCOMMAND]`` the README names (pytest and venv are CI's and Python's)."""
    found = set()
    for module, sub in re.findall(r"python3? -m ([\w.]+)(?: ([a-z][\w-]*))?", _code()):
        if module in {"pytest", "venv", "http.server"}:
            continue
        found.add((module, sub) if module in {"publish", "helpers.model"} and sub else (module,))
    return sorted(found)


def test_readme_names_the_build_commands():
    """The teacher's table: one publish command per derived artefact (the list must not silently empty)."""
    subs = {c[1] for c in _module_commands() if c[0] == "publish" and len(c) > 1}
    assert {"student", "course", "web", "lite", "deck", "run"} <= subs, subs


@pytest.mark.parametrize("command", _module_commands(), ids=" ".join)
def test_every_module_command_in_readme_runs(command):
    """``python -m MODULE [SUB] --help`` exits 0 and its help names the command as the README spells it."""
    spelled = f"python -m {' '.join(command)}"
    r = subprocess.run([sys.executable, "-m", *command, "--help"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, f"{spelled} --help failed:\n{r.stdout}\n{r.stderr}"
    assert spelled in r.stdout, f"{spelled} --help does not describe {spelled!r}:\n{r.stdout}"


def test_every_repository_path_in_readme_exists():
    tops = {p.name for p in ROOT.iterdir() if p.name != ".git"}
    missing = []
    for token in re.findall(r"[\w.*-]+(?:/[\w.*-]*)+", _code()):
        if token.split("/", 1)[0] in tops and not glob.glob(str(ROOT / token)):
            missing.append(token)
    assert not missing, f"README.md names paths that do not exist: {missing}"


# --------------------------------------------------------------------------- figures live in the results file

RESULTS = ROOT / "benchmarks" / "results.md"
FIGURE = re.compile(r"\d+(?:\.\d+)?(?:\s?(?:×|ms|MiB|GiB|KiB|MB|KB|GFLOP/s)|x\b| s\b)")


def test_readme_quotes_figures_only_from_the_results_file():
    assert "](benchmarks/results.md)" in README, "README.md must link the results file"
    results = RESULTS.read_text(encoding="utf-8")
    stale = [f for f in FIGURE.findall(README) if f not in results and f.replace("×", "x") not in results]
    assert not stale, f"README.md quotes figures that benchmarks/results.md does not hold: {stale}"
