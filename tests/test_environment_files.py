"""environment.yml (conda/Binder) and pyproject.toml (pip) must ask for the same things."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _norm(req: str) -> tuple[str, str]:
    m = re.match(r"^\s*([A-Za-z0-9_.\-]+)\s*(.*)$", req)
    name, spec = m.group(1).lower().replace("_", "-"), m.group(2).replace(" ", "")
    return name, ",".join(sorted(spec.split(","))) if spec else ""


def _pyproject():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(data["dependencies"])
    for extra in ("lab", "test"):
        reqs += data["optional-dependencies"][extra]
    out = dict(_norm(r) for r in reqs)
    out["python"] = _norm("python" + data["requires-python"])[1]
    return out


# conda-forge names that differ from the PyPI name of the same package.
CONDA_TO_PYPI = {
    "playwright-python": "playwright",  # conda-forge ships the Python package under this name
}


def _conda():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    out, pip = {}, []
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            pip += dep.get("pip", [])
        else:
            name, spec = _norm(dep)
            name = CONDA_TO_PYPI.get(name, name)
            if name != "pip":
                out[name] = spec
    return out, pip


def test_same_packages_and_ranges():
    conda, _ = _conda()
    pyproject = _pyproject()
    assert conda == pyproject, (
        "environment.yml and pyproject.toml disagree:\n"
        f"only in environment.yml: { {k: v for k, v in conda.items() if pyproject.get(k) != v} }\n"
        f"only in pyproject.toml:  { {k: v for k, v in pyproject.items() if conda.get(k) != v} }"
    )


def test_environment_installs_the_helpers_package():
    _, pip = _conda()
    assert any(p.replace(" ", "").startswith("-e.") or p.strip() == "." for p in pip), \
        "environment.yml must pip-install this repository so `import helpers` works"


def test_lowest_constraints_follow_pyproject():
    """constraints/lowest.txt is generated from pyproject.toml's lower bounds and cannot drift."""
    from publish import constraints as mod

    expected = mod.render((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    actual = (ROOT / "constraints" / "lowest.txt").read_text(encoding="utf-8")
    assert actual == expected, "constraints/lowest.txt is stale: run `python -m publish constraints`"
    pins = dict(line.split("==") for line in actual.splitlines() if line and not line.startswith("#"))
    assert pins["numpy"] == "1.26" and "matplotlib" in pins and "voila" in pins


def test_every_range_has_a_lower_and_an_upper_bound():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    reqs = list(project["dependencies"]) + [r for extra in project["optional-dependencies"].values() for r in extra]
    for req in reqs:
        assert ">=" in req and "<" in req.replace("<=", ""), f"{req!r} needs both a lower and an upper bound"
