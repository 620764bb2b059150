"""The house rules (issues 13 and 19), checked: one door, folders that show the architecture, no
import-* façades, no private imports, small modules, no function shadowing a module, clear names,
and every public call checking each input once."""

from __future__ import annotations

import ast
import collections
import functools
import importlib
import importlib.util
import inspect
import pkgutil
import re
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest

import helpers
import helpers.checks
from nbcells import NOTEBOOKS, cells, src

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

    src = inspect.getsource(helpers.core.attention.scaled_dot_product_attention)
    body = src.split('"""')[-1]
    assert body.count("check_attention_inputs(") == 1
    assert "raise " not in body and "isinstance" not in body


# ---- two houses: the learner's package and the build package -------------------------------------------

ROOT = HELPERS.parent
PROJECT_PACKAGES = ("helpers", "publish", "benchmarks")


def _project_modules() -> dict[str, Path]:
    """Every module of the project's packages, by dotted name."""
    out = {}
    for pkg in PROJECT_PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            if "__pycache__" in p.parts or "node_modules" in p.parts:
                continue
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


def _imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports (at any depth of its code: a function-level import counts too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Each strongly connected group of more than one module (an import cycle), sorted."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _import_graph() -> dict[str, set[str]]:
    mods = _project_modules()
    # A package's __init__ importing its own submodules is how a package is built, not a cycle between modules.
    return {n: {t for t in _imports_of(n, p, set(mods)) if not (p.name == "__init__.py" and t.startswith(n + "."))}
            for n, p in mods.items()}


def test_no_import_cycle_anywhere():
    cycles = _cycles(_import_graph())
    assert not cycles, f"import cycles (each group imports itself through the others): {cycles}"


def test_the_cycle_reader_sees_a_cycle_through_a_function_level_import():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    src = "def f():\n    from .serve import READY\n"
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "build.py"
        path.write_text(src)
        assert _imports_of("publish.deck.build", path, {"publish.deck.serve", "publish.deck.build"}) == {"publish.deck.serve"}


def test_the_learner_package_imports_nothing_of_the_build_package():
    """helpers/ is what a learner's kernel imports: no module of it imports publish (or benchmarks), at any depth."""
    graph = _import_graph()
    bad = {n: sorted(t for t in deps if not t.startswith("helpers")) for n, deps in graph.items()
           if n.startswith("helpers") and any(not t.startswith("helpers") for t in deps)}
    assert not bad, bad


# What the learner's kernel itself needs besides code: the CJK font its figures are drawn with (a machine may have
# none; helpers.ui.plotting loads it), written by `python -m publish font`.
LEARNER_DATA = {"helpers/ui/fonts/NotoSansSC-ch02-plots.otf"}


def test_the_learner_package_holds_only_python():
    """No deck or edition asset (templates, scripts, the deck's font) ships in helpers/: they are the build package's.
    The one exception is data a learner's kernel reads (LEARNER_DATA)."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "helpers"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not tracked:  # not a git checkout (an sdist): read the tree
        tracked = [p.relative_to(ROOT).as_posix() for p in HELPERS.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    assert tracked and all(f.endswith(".py") or f in LEARNER_DATA for f in tracked), \
        [f for f in tracked if not f.endswith(".py") and f not in LEARNER_DATA]
    assert LEARNER_DATA <= set(tracked), "LEARNER_DATA names a file helpers/ does not hold"


def test_nothing_loads_project_code_by_file_path():
    """Project code is imported as a package (``from publish import web``), never from a file path or a
    hand-made sys.path entry."""
    offenders = []
    for path in [*_project_modules().values(), *sorted((ROOT / "tests").rglob("*.py")), ROOT / "conftest.py"]:
        text = path.read_text(encoding="utf-8")
        for needle in ("spec_from_file_location", "sys.path.insert", "sys.path.append", "SourceFileLoader"):
            if needle in text and path.resolve() != Path(__file__).resolve():
                offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert not offenders, offenders


def test_import_helpers_loads_no_build_module():
    import subprocess

    code = "import sys, helpers; print(sorted(m for m in sys.modules if m.split('.')[0] in ('publish', 'benchmarks')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


# ---- the folders show the architecture ---------------------------------------------------------------

def test_the_tree_shows_where_things_live():
    """Read top-down: the formula in core/, a lesson's tools in lessons/, the book, the real model, the
    UI, the self-checks; nothing else at the top but the door and the shared argument checks."""
    packages = sorted(p.name for p in HELPERS.iterdir() if (p / "__init__.py").is_file())
    assert packages == ["book", "checks", "core", "lessons", "model", "ui"], packages
    top = sorted(p.name for p in HELPERS.glob("*.py"))
    assert top == ["__init__.py", "_validate.py"], top
    for pkg in packages:
        doc = importlib.import_module(f"helpers.{pkg}").__doc__ or ""
        assert len(doc.strip()) > 40, f"helpers/{pkg}/__init__.py should say what lives there"


# ---- one door ----------------------------------------------------------------------------------------

def _code_cells():
    for path in NOTEBOOKS:
        for k, cell in enumerate(cells(path)):
            if cell["cell_type"] == "code":
                lines = [ln for ln in src(cell).splitlines() if not ln.lstrip().startswith(("%", "!"))]
                yield path, k, ast.parse("\n".join(lines))


def _chain(node: ast.Attribute) -> list[str] | None:
    """``H.a.b`` -> ["a", "b"]; None if the attribute chain is not rooted at the name H."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return parts[::-1] if isinstance(node, ast.Name) and node.id == "H" else None


def one_door_problems(tree: ast.AST) -> list[str]:
    """What breaks the one-door rule in one cell: another import of helpers, the name ``helpers``,
    an alias of a helper, a second spelling of a function, a name that does not exist."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "helpers" and (a.name, a.asname) != ("helpers", "H"):
                    found.append(f"line {node.lineno}: import {a.name}" + (f" as {a.asname}" if a.asname else ""))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "helpers":
            if node.module != "helpers.checks" or node.level:
                found.append(f"line {node.lineno}: from {node.module} import ...")
        elif isinstance(node, ast.Name) and node.id == "helpers":
            found.append(f"line {node.lineno}: the name `helpers` (use H)")
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Attribute, ast.Tuple)):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for v in values:
                chain = _chain(v) if isinstance(v, ast.Attribute) else None
                if chain and callable(functools.reduce(getattr, chain, helpers)):
                    found.append(f"line {node.lineno}: an alias of H.{'.'.join(chain)} (call it by that name)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(getattr(node, "_parent_attr", None), ast.Attribute):
            chain = _chain(node)
            if not chain:
                continue
            obj = helpers
            for k, part in enumerate(chain):
                if not isinstance(obj, types.ModuleType):
                    break  # a method or field of a helper's result: not ours to spell
                if not hasattr(obj, part):
                    found.append(f"line {node.lineno}: H.{'.'.join(chain[:k + 1])} does not exist")
                    break
                obj = getattr(obj, part)
            else:
                leaf = chain[-1]
                if len(chain) > 1 and callable(obj) and getattr(helpers, leaf, None) is obj:
                    found.append(f"line {node.lineno}: H.{'.'.join(chain)} is spelled H.{leaf}")
    return found


def _mark_parents(tree):
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child._parent_attr = node
    return tree


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebooks_use_one_door_and_one_spelling(path):
    problems = [f"cell {k}: {p}" for nb, k, tree in _code_cells() if nb == path
                for p in one_door_problems(_mark_parents(tree))]
    assert not problems, f"{path.name}: {problems}"


def test_the_one_door_detector_catches_every_other_way_in():
    bad = ("from helpers.plotting import attention_heatmap\nimport helpers\nimport helpers.cost as C\n"
           "heatmap = H.attention_heatmap\nH.plotting.attention_heatmap(A)\nH.nowhere(1)\nhelpers.softmax(x)\n")
    assert len(one_door_problems(_mark_parents(ast.parse(bad)))) == 7
    good = ("import helpers as H\nfrom helpers.checks import check_log_softmax\ncmap = H.plotting.DIVERGING_CMAP\n"
            "out = H.scaled_dot_product_attention(Q, K, V).output\nH.cost.matmul_flops(2, 3, 4)\n")
    assert one_door_problems(_mark_parents(ast.parse(good))) == []


# ---- no façades, no shadowing ------------------------------------------------------------------------

@pytest.mark.parametrize("path", _modules(), ids=_rel)
def test_no_import_star(path):
    stars = [n.lineno for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)]
    assert not stars, f"{_rel(path)} re-exports with `import *` (lines {stars}): import the names it means"


def test_helpers_checks_lists_its_modules_once():
    listed = list(helpers.checks.MODULES)
    assert len(listed) == len(set(listed)), [m for m, n in collections.Counter(listed).items() if n > 1]
    here = {i.name for i in pkgutil.iter_modules(helpers.checks.__path__)}
    assert set(listed) <= here, set(listed) - here
    exporting = {m for m in here if not m.startswith("_")
                 and "__all__" in vars(importlib.import_module(f"helpers.checks.{m}"))}
    assert exporting <= set(listed), f"modules with an __all__ missing from MODULES: {exporting - set(listed)}"


def _packages():
    yield helpers
    for info in pkgutil.walk_packages(helpers.__path__, "helpers."):
        if info.ispkg:
            yield importlib.import_module(info.name)


@pytest.mark.parametrize("pkg", list(_packages()), ids=lambda p: p.__name__)
def test_no_function_shadows_a_module(pkg):
    """``import helpers.x.y as m`` gives the module y, never a function y that the package re-exports."""
    shadowed = []
    for info in pkgutil.iter_modules(pkg.__path__):
        full = f"{pkg.__name__}.{info.name}"
        if info.name == "__main__":
            continue
        module = importlib.import_module(full)
        if getattr(pkg, info.name) is not module:
            shadowed.append(f"{full} is {getattr(pkg, info.name)!r}")
    for name, value in vars(pkg).items():
        if not isinstance(value, types.ModuleType) and not name.startswith("__"):
            if importlib.util.find_spec(f"{pkg.__name__}.{name}") is not None:
                shadowed.append(f"{pkg.__name__}.{name} names both a module and a {type(value).__name__}")
    assert not shadowed, shadowed


# ---- one validation module; the core raises only there; each input checked once per public call ------

def test_there_is_one_validation_module():
    found = sorted(_rel(p) for p in _modules() if "valid" in p.name)
    assert found == ["helpers/_validate.py"], f"every argument check lives in helpers/_validate.py; found {found}"


def raise_lines(source: str) -> list[int]:
    """The lines of every ``raise`` in ``source``."""
    return [n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Raise)]


@pytest.mark.parametrize("path", sorted((HELPERS / "core").glob("*.py")), ids=_rel)
def test_the_core_raises_only_in_the_validation_module(path):
    """The formula reads without checks: every error of the core is raised in helpers/_validate.py."""
    raises = raise_lines(path.read_text(encoding="utf-8"))
    assert not raises, f"{_rel(path)} raises inline (lines {raises}): put the check in helpers/_validate.py"


def test_the_core_rule_sees_a_planted_raise():
    assert raise_lines("def f(x):\n    if x < 0:\n        raise ValueError('x')\n    return x\n") == [3]
    assert raise_lines("def f(x):\n    return check_int('x', x, 1)\n") == []


def _validator_modules():
    return [importlib.import_module("helpers._validate")]


def _label(fn_name, args):
    """What a validator call checks: the argument's name when it takes one (as_real_array("Q", ...))."""
    if args and isinstance(args[0], str):
        return args[0]
    if args and isinstance(args[0], tuple) and all(isinstance(a, str) for a in args[0]):
        return args[0]
    return None


@pytest.fixture
def validator_calls(monkeypatch):
    """Count every call of a validator (every name in a ``_validate`` module's ``__all__``), wherever
    it was imported: the log of (validator, the argument it checks)."""
    log = []
    originals = {}
    for mod in _validator_modules():
        for name in mod.__all__:
            if name != "describe":
                originals[id(getattr(mod, name))] = getattr(mod, name)

    def counted(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            log.append((fn.__name__, _label(fn.__name__, args)))
            return fn(*args, **kwargs)
        return wrapper

    wrappers = {}
    for name, mod in list(sys.modules.items()):
        if not (name == "helpers" or name.startswith("helpers.")) or name.startswith("helpers.checks") or mod is None:
            continue
        for attr, value in list(vars(mod).items()):
            if id(value) in originals and originals[id(value)] is value:
                wrappers.setdefault(id(value), counted(value))
                monkeypatch.setattr(mod, attr, wrappers[id(value)])
    return log


class Call(NamedTuple):
    """One call of a public function: ``fn(*args, **kwargs)``."""

    fn: Callable
    args: tuple
    kwargs: dict

    def __call__(self):
        return self.fn(*self.args, **self.kwargs)


def call(fn, *args, **kwargs) -> Call:
    return Call(fn, args, kwargs)


_rng = np.random.default_rng(0)
_T, _D = 6, 4
_Q, _K, _V, _X = (_rng.standard_normal((_T, _D)) for _ in range(4))
_W = np.eye(_D)
_BOOL = np.tri(_T, dtype=bool) | np.eye(_T, k=1, dtype=bool)
_ADD = np.where(_BOOL, 0.0, -np.inf)
_P = np.full((2, 3), 1 / 3)

#: A representative call of every public function of the core.
PUBLIC_CALLS = {
    "softmax": call(helpers.softmax, _Q),
    "softmax_jacobian": call(helpers.softmax_jacobian, _P),
    "entropy": call(helpers.entropy, _P),
    "is_distribution": call(helpers.is_distribution, _P),
    "project_qkv": call(helpers.project_qkv, _X, _W, _W, _W),
    "dot_product_scores": call(helpers.dot_product_scores, _Q, _K),
    "additive_attention_scores": call(helpers.additive_attention_scores, _Q, _K, _W, _W, np.ones(_D)),
    "attention": call(helpers.scaled_dot_product_attention, _Q, _K, _V),
    "attention, scale": call(helpers.scaled_dot_product_attention, _Q, _K, _V, scale=1.0),
    "attention, boolean mask": call(helpers.scaled_dot_product_attention, _Q, _K, _V, mask=_BOOL),
    "attention, additive mask": call(helpers.scaled_dot_product_attention, _Q, _K, _V, mask=_ADD),
    "attention, causal": call(helpers.scaled_dot_product_attention, _Q, _K, _V, causal=True),
    "attention, causal and mask": call(helpers.scaled_dot_product_attention, _Q, _K, _V, mask=_BOOL, causal=True),
    "attention, tiled": call(helpers.scaled_dot_product_attention, _Q, _K, _V, mask=_ADD, causal=True, block_size=4),
    "blockwise_attention": call(helpers.blockwise.blockwise_attention, _Q, _K, _V, _BOOL, block_size=2, query_block=3),
    "self_attention": call(helpers.self_attention, _X, _W, _W, _W, causal=True),
    "apply_mask": call(helpers.apply_mask, _Q @ _K.T, _BOOL),
    "causal_mask": call(helpers.causal_mask, _T, boolean=True),
    "additive_from_boolean": call(helpers.additive_from_boolean, _BOOL),
    "split_heads": call(helpers.heads.split_heads, _Q, 2),
    "merge_heads": call(helpers.heads.merge_heads, _Q.reshape(2, 3, 4)),
    "multi_head_self_attention": call(helpers.multi_head_self_attention, _X, _W, _W, _W, _W, 2, causal=True),
}

#: Checks that look at the same thing under two names: a row whose every key is masked.
SAME_THING = {"check_rows_alive", "check_softmax_input"}


def once_problems(log) -> list[str]:
    problems = [f"{fn}({label!r}) x{n}" for (fn, label), n in collections.Counter(log).items() if n > 1]
    dead_row_checks = [fn for fn, _ in log if fn in SAME_THING]
    if len(dead_row_checks) > 1:
        problems.append(f"the all-masked-row check ran {len(dead_row_checks)} times: {dead_row_checks}")
    return problems


@pytest.mark.parametrize("call", PUBLIC_CALLS, ids=str)
def test_each_public_call_checks_each_input_once(call, validator_calls):
    PUBLIC_CALLS[call]()
    assert validator_calls, "no validator ran: the counting does not see the calls (a test that cannot fail)"
    assert not once_problems(validator_calls), f"{call}: {once_problems(validator_calls)}"


def test_the_once_rule_flags_a_repeated_check():
    assert once_problems([("check_mask", None), ("check_mask", None)])
    assert once_problems([("check_rows_alive", None), ("check_softmax_input", None)])
    assert once_problems([("check_positive_int", "n_heads")] * 4)
    assert not once_problems([("as_real_array", "Q"), ("as_real_array", "K"), ("check_mask", None)])


def _figure_axes():
    from matplotlib.figure import Figure

    return Figure().subplots()


def _agg_figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure()
    FigureCanvasAgg(fig)
    return fig


_CAUSAL_A = np.tri(_T) / np.arange(1, _T + 1)[:, None]
_ATTN = np.full((2, 3, 4, 4), 0.25)
_CHOICE = next(k for k, v in __import__("helpers.ui.prediction_keys", fromlist=["KEYS"]).KEYS.items()
               if type(v).__name__ == "ChoiceKey")
_VOCAB = {"[CLS]": 0, "[SEP]": 1, "[UNK]": 2, "the": 3, "cat": 4, "##s": 5}

#: A representative call of the public functions of lessons, model and ui (beyond the core).
PACKAGE_CALLS = {
    "contextual.tokenize": call(helpers.contextual.tokenize, "The animal didn't cross."),
    "contextual.static_embeddings": call(helpers.contextual.static_embeddings, ["The", "animal", "the", "street"]),
    "contextual.contextual_mix": call(helpers.contextual.contextual_mix, np.full((2, 3), 1 / 3), np.eye(3)),
    "soft_lookup.hard_lookup": call(helpers.soft_lookup.hard_lookup, _Q[0], _K, _V),
    "soft_lookup.soft_lookup": call(helpers.soft_lookup.soft_lookup, _Q[0], _K, _V, temperature=0.5),
    "soft_lookup.soft_lookup_jacobian": call(helpers.soft_lookup.soft_lookup_jacobian, _Q[0], _K, _V),
    "soft_lookup.ratio_weights": call(helpers.soft_lookup.ratio_weights, np.array([1.0, 2.0, 3.0])),
    "gradcheck.numerical_gradient": call(helpers.gradcheck.numerical_gradient, np.tanh, _Q[0]),
    "gradcheck.relative_error": call(helpers.gradcheck.relative_error, _Q, _K),
    "geometry.cosine_similarity": call(helpers.geometry.cosine_similarity, _Q, _K),
    "geometry.angle_between": call(helpers.geometry.angle_between, _Q[0], _K[0]),
    "geometry.vector_at_angle": call(helpers.geometry.vector_at_angle, 2.0, np.linspace(0, 3, 4)),
    "cost.dot_product_score_flops": call(helpers.cost.dot_product_score_flops, 8, 4, convention="exact"),
    "cost.additive_score_cost": call(helpers.cost.additive_score_cost, 8, 4, 5),
    "cost.score_matrix_cost": call(helpers.cost.score_matrix_cost, 8, 4, dtype="bfloat16", batch=2, heads=3),
    "normalization.convex_hull_2d": call(helpers.normalization.convex_hull_2d, _Q[:, :2]),
    "normalization.in_convex_hull_2d": call(helpers.normalization.in_convex_hull_2d,
                                            np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([[0.2, 0.2], [1.0, 1.0]])),
    "attention_properties.permutation_matrix": call(helpers.attention_properties.permutation_matrix, [2, 0, 1]),
    "attention_properties.toy_rnn": call(helpers.attention_properties.toy_rnn, _X, _W, _W, np.ones(_D)),
    "attention_properties.sensitivity_matrix": call(helpers.attention_properties.sensitivity_matrix, np.tanh, _X[:3]),
    "causal_view.causal_view_state": call(helpers.causal_view.causal_view_state, 3, _CAUSAL_A),
    "causal_view.CausalViewPlot": call(helpers.causal_view.CausalViewPlot, helpers.softmax(_ADD), fig=_agg_figure(), t=2),
    "saturation.fixed_draw": call(helpers.saturation.fixed_draw, 3, 8),
    "saturation.jacobian_norm": call(helpers.saturation.jacobian_norm, _P),
    "saturation.query_loss_and_grad": call(helpers.saturation.query_loss_and_grad, _Q[0], _K, _V, 2, True),
    "saturation.train_query": call(helpers.saturation.train_query, _K, _V, 2, False, steps=3, q0=_Q[0]),
    "model.basic_tokenize": call(helpers.model.wordpiece.basic_tokenize, "The cats!"),
    "model.WordPieceTokenizer": call(helpers.model.wordpiece.WordPieceTokenizer, _VOCAB),
    "model.WordPieceTokenizer.encode": call(helpers.model.wordpiece.WordPieceTokenizer(_VOCAB).encode, "The cats"),
    "model.EncoderConfig": call(helpers.encoder.EncoderConfig, vocab_size=10, hidden=8, n_layers=1, n_heads=2,
                                intermediate=16, max_positions=8),
    "model.layer_norm": call(helpers.encoder.layer_norm, _X, np.ones(_D), np.zeros(_D)),
    "model.mean_pool_normalize": call(helpers.encoder.mean_pool_normalize, _X + 1.0),
    "model.referent_margin": call(helpers.real_model.referent_margin, _ATTN, 1, 0, 3),
    "model.special_share": call(helpers.real_model.special_share, _ATTN, [0, 3, 0]),
    "model.flipped_heads": call(helpers.real_model.flipped_heads, _Q[:2], -_Q[:2], threshold=0.1),
    "ui.attention_heatmap": call(helpers.attention_heatmap, _ADD, list("abcdef"), ax=_figure_axes()),
    "ui.weights_bar": call(helpers.weights_bar, _P[0], ["x", "y", "z"], ax=_figure_axes()),
    "ui.grade_choice": call(helpers.ui.predict.grade_choice, 1, 0, ["a", "b", "c"], "why"),
    "ui.grade_number": call(helpers.ui.predict.grade_number, 0.5, 0.4, rel_tol=0.1, abs_tol=0.01),
    "ui.show_answer": call(helpers.ui.predict.show_answer, _CHOICE, ["a", "b", "c", "d", "e", "f"]),
    "ui.prediction_key": call(helpers.ui.predict.prediction_key, _CHOICE),
    "ui.best_time": call(helpers.timing.best_time, lambda: None, repeat=2, number=2),
}


@pytest.mark.parametrize("call", PACKAGE_CALLS, ids=str)
def test_each_public_call_of_lessons_model_ui_checks_each_input_once(call, validator_calls):
    PACKAGE_CALLS[call]()
    assert validator_calls, "no validator ran: the counting does not see the calls (a test that cannot fail)"
    assert not once_problems(validator_calls), f"{call}: {once_problems(validator_calls)}"


# ---- one exception type per kind of mistake: a wrong type is a TypeError that names the argument ------

#: Arguments handed on to matplotlib as they are (where to draw), not the helpers' to check.
NOT_OURS = {"ax", "fig"}


class _Alien:
    """A value of no type any helper accepts: not a number, an array, a string, a flag, a mapping or a function."""

    def __repr__(self):
        return "<alien>"


def wrong_type_problems(c: Call) -> list[str]:
    """Replace each argument of the call ``c`` in turn by an :class:`_Alien`: each must raise a ``TypeError``
    whose message names that argument (never another exception, never silence)."""
    sig = inspect.signature(c.fn)
    problems = []
    for name in sig.bind(*c.args, **c.kwargs).arguments:
        if name in NOT_OURS:
            continue
        bound = sig.bind(*c.args, **c.kwargs)
        bound.arguments[name] = _Alien()
        try:
            c.fn(*bound.args, **bound.kwargs)
        except TypeError as exc:
            if not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", str(exc)):
                problems.append(f"{name}: the TypeError does not name it ({exc})")
        except Exception as exc:  # noqa: BLE001 - any other exception is the finding
            problems.append(f"{name}: {type(exc).__name__}, not TypeError ({exc})")
        else:
            problems.append(f"{name}: a value of no sensible type was accepted")
    return problems


@pytest.mark.parametrize("name", [*PUBLIC_CALLS, *PACKAGE_CALLS], ids=str)
def test_an_argument_of_the_wrong_type_raises_a_type_error_naming_it(name):
    problems = wrong_type_problems({**PUBLIC_CALLS, **PACKAGE_CALLS}[name])
    assert not problems, f"{name}: {problems}"


def test_the_wrong_type_rule_flags_each_kind_of_slip():
    from helpers._validate import check_int, check_real

    def lax(x, n=1):                     # accepts anything
        return x

    def value_error(x):                  # the wrong exception for a wrong type
        if not isinstance(x, float):
            raise ValueError("x must be a float")

    def anonymous(x):                    # a TypeError that does not say which argument
        return x + 1

    def good(x, n=2):
        return check_real("x", x) * check_int("n", n, 1)

    assert [p.split(":")[0] for p in wrong_type_problems(call(lax, 1.0, n=2))] == ["x", "n"]
    assert wrong_type_problems(call(value_error, 1.0))[0].startswith("x: ValueError")
    assert "does not name it" in wrong_type_problems(call(anonymous, 1.0))[0]
    assert wrong_type_problems(call(good, 1.0, n=2)) == []


def undefined_names(trees) -> set[str]:
    """Names a notebook reads but never binds (f-strings included): a helper renamed away, an alias removed."""
    import builtins

    bound, loads = set(dir(builtins)) | {"display", "get_ipython"}, set()
    for tree in trees:
        for n in ast.walk(tree):
            if isinstance(n, ast.Name):
                (bound if isinstance(n.ctx, (ast.Store, ast.Del)) else loads).add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(n.name)
            elif isinstance(n, ast.arg):
                bound.add(n.arg)
            elif isinstance(n, ast.alias):
                bound.add((n.asname or n.name).split(".")[0])
            elif isinstance(n, ast.ExceptHandler) and n.name:
                bound.add(n.name)
    return loads - bound


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_name_a_notebook_reads_is_defined_in_it(path):
    missing = undefined_names(tree for nb, _, tree in _code_cells() if nb == path)
    assert not missing, f"{path.name} reads names it never defines (a helper imported by name before the one door?): {sorted(missing)}"


def test_the_undefined_name_detector_looks_inside_f_strings():
    assert undefined_names([ast.parse('print(f"{RM.special_share(a):.3f}")\na = 1\n')]) == {"RM"}


def test_the_series_is_listed_in_one_place():
    """publish.notebooks.series() is the one list of the series' notebooks: a test or a build step that globs
    ``02-*.ipynb`` itself would silently disagree with it the day a notebook is added, renamed or kept aside."""
    pattern = re.compile(r"""glob\(\s*["']02-\*\.ipynb["']""")
    owner = ROOT / "publish" / "notebooks.py"
    offenders = [str(p.relative_to(ROOT)) for folder in ("publish", "tests", "benchmarks", "helpers")
                 for p in (ROOT / folder).rglob("*.py") if p != owner and pattern.search(p.read_text(encoding="utf-8"))]
    assert not offenders, f"these glob the series themselves instead of calling publish.notebooks.series(): {offenders}"
