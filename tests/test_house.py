"""The house rules of issue 13, checked: one way in, no private imports, small modules, clear names."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import helpers
import helpers.checks

HELPERS = Path(helpers.__file__).parent
MAX_LINES = 400


def _modules() -> list[Path]:
    return sorted(p for p in HELPERS.rglob("*.py") if "__pycache__" not in p.parts)


def _rel(p: Path) -> str:
    return p.relative_to(HELPERS.parent).as_posix()


def _dotted(p: Path) -> str:
    parts = list(p.relative_to(HELPERS.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_every_check_in_helpers_checks_is_importable_from_helpers_checks():
    missing = []
    for info in pkgutil.iter_modules(helpers.checks.__path__):
        mod = importlib.import_module(f"helpers.checks.{info.name}")
        for name, obj in vars(mod).items():
            if name.startswith("check_") and callable(obj) and getattr(obj, "__module__", "") == mod.__name__:
                if getattr(helpers.checks, name, None) is not obj:
                    missing.append(f"helpers.checks.{info.name}.{name}")
    assert not missing, f"not importable from helpers.checks: {missing}"


def _resolve(package: str, node: ast.ImportFrom) -> str:
    """The absolute module an ``ImportFrom`` refers to, for code in ``package`` (its containing package)."""
    if node.level == 0:
        return node.module or ""
    parts = package.split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join(parts + ([node.module] if node.module else []))


def _is_module(dotted: str) -> bool:
    base = HELPERS.parent.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _private_uses(source: str, package: str) -> list[str]:
    """Private names of other helpers modules that ``source`` (code in ``package``) imports or reads.

    Flags ``from .x import _y`` and ``x._y`` where ``x`` is a helpers module bound by an import.
    ``_validate`` itself is the package's shared (module-private, package-public) checking module.
    """
    tree = ast.parse(source)
    found, modules = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            src = _resolve(package, node)
            if src.split(".")[0] != "helpers":
                continue
            for a in node.names:
                if a.name.startswith("_") and not a.name.startswith("__") and not _is_module(f"{src}.{a.name}"):
                    found.append(f"line {node.lineno}: from {src} import {a.name}")
                elif _is_module(f"{src}.{a.name}"):
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "helpers":
                    modules.add(a.asname or "helpers")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_no_module_imports_another_modules_private_name(path):
    package = _dotted(path) if path.name == "__init__.py" else _dotted(path).rpartition(".")[0]
    uses = _private_uses(path.read_text(encoding="utf-8"), package)
    assert not uses, f"{_rel(path)} uses private names of other helpers modules: {uses}"


def test_the_private_name_detector_catches_both_forms_and_spares_public_ones():
    bad = "from .attention import _check_mask\nfrom . import blockwise\nx = blockwise._pool\n"
    assert len(_private_uses(bad, "helpers.core")) == 2
    assert len(_private_uses("from ..core.softmax import _x\n", "helpers.checks")) == 1
    good = ("from ._validate import check_qk\nfrom . import blockwise\nimport helpers as H\n"
            "r = H.self_attention\nr._replace\nx = blockwise.blockwise_attention\n")
    assert _private_uses(good, "helpers.core") == []


@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_no_helpers_module_exceeds_400_lines(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{_rel(path)} has {n} lines (> {MAX_LINES}); split it by concern"


def _public_functions() -> dict[str, list[str]]:
    defs: dict[str, list[str]] = {}
    for path in _modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                defs.setdefault(node.name, []).append(_rel(path))
    return defs


def test_no_public_function_is_called_compute():
    defs = _public_functions()
    assert "compute" not in defs, f"a public function named `compute` says nothing about what it computes: {defs['compute']}"


def test_no_two_helpers_modules_define_the_same_public_name():
    clashes = {name: where for name, where in _public_functions().items() if len(where) > 1}
    assert not clashes, f"the same public name means different things in different modules: {clashes}"


def test_import_helpers_gives_the_core():
    core = {"project_qkv", "dot_product_scores", "additive_attention_scores", "scaled_dot_product_attention",
            "self_attention", "causal_mask", "additive_from_boolean", "softmax", "softmax_jacobian", "entropy",
            "AttentionResult", "use_style", "predict_choice", "predict_number"}
    assert core <= set(helpers.__all__)
    assert all(callable(getattr(helpers, name)) for name in helpers.__all__)


@pytest.mark.parametrize("module, formula", [
    ("core/attention.py", ["S = Q @ K.T / sqrt(d_k)", "A = softmax(S)", "return A @ V"]),
    ("core/softmax.py", ["e = exp(s - max(s))", "return e / sum(e)"]),
    ("core/masking.py", ["allowed = tril(ones((T, T), dtype=bool))", "M = where(allowed, 0, -inf)"]),
])
def test_the_formula_reads_first(module, formula):
    head = "\n".join((HELPERS / module).read_text(encoding="utf-8").splitlines()[:12])
    assert all(line in head for line in formula), f"{module}: the formula should be in its first lines"


def test_attention_validates_in_one_call():
    import inspect

    src = inspect.getsource(helpers.core.attention.scaled_dot_product_attention)
    body = src.split('"""')[-1]
    assert body.count("check_attention_inputs(") == 1
    assert "raise " not in body and "isinstance" not in body
