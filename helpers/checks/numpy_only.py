"""Enforce "numpy only" / "without helper X": refuse a learner's function that reaches into ``helpers``.

Two layers, because either alone can be dodged: a static scan of the names a function's code loads (its
closure, its defaults and, recursively, the learner's own functions it calls), and a run with every
``helpers`` function replaced by a tripwire that records the call. ``helpers.checks`` itself is not wrapped.
A task that says "no Python loop" is enforced by the same kind of static scan (``python_loops``).
"""

from __future__ import annotations

import dis
import functools
import inspect
import sys
import types
from contextlib import contextmanager

import numpy as np

__all__ = ["helpers_references", "helpers_tripwire", "python_loops"]


_FORBIDDEN_NAMES = {"helpers", "__import__", "importlib", "eval", "exec", "sys", "globals", "builtins"}


def _is_helpers(obj) -> bool:
    if isinstance(obj, types.ModuleType):
        name = obj.__name__
    else:
        name = getattr(obj, "__module__", None) or ""
        if not isinstance(name, str):
            return False
        if not name and not isinstance(obj, type):
            name = getattr(type(obj), "__module__", "") or ""
    return name == "helpers" or name.startswith("helpers.")


def _loaded_globals(code) -> set[str]:
    names = set()
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "IMPORT_NAME", "IMPORT_FROM") and isinstance(ins.argval, str):
            names.add(ins.argval)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _loaded_globals(const)
    return names


def helpers_references(fn, _seen=None, only=None) -> list[str]:
    """Names through which ``fn`` (or a function it calls) reaches ``helpers``; [] if none found.

    A static scan: the global names its code loads (and its nested functions'), its closure
    cells, its default arguments; the learner's own functions found this way are scanned too.
    With ``only`` (a set of function names: "without helper X"), only helpers functions of those
    names count; a reference to the package itself (``H``) is left to :func:`helpers_tripwire`.
    Never raises: an object too odd to inspect is skipped (the tripwire still watches it run).
    """
    try:
        return _references(fn, set() if _seen is None else _seen, None if only is None else frozenset(only))
    except Exception:
        return []


def _counts(obj, only) -> bool:
    if not _is_helpers(obj):
        return False
    return only is None or (inspect.isfunction(obj) and obj.__name__ in only)


def _references(fn, seen: set, only) -> list[str]:
    if id(fn) in seen:
        return []
    seen.add(id(fn))
    if _is_helpers(fn):
        return [getattr(fn, "__name__", repr(fn))] if _counts(fn, only) else []
    if isinstance(fn, functools.partial):
        found = _references(fn.func, seen, only)
        for v in list(fn.args) + list(fn.keywords.values()):
            found += _references(v, seen, only)
        return found
    if inspect.ismethod(fn):
        return _references(fn.__func__, seen, only) + _references(fn.__self__, seen, only)
    if isinstance(fn, types.ModuleType):
        return []
    if not inspect.isfunction(fn):
        call = getattr(type(fn), "__call__", None)
        if callable(fn) and inspect.isfunction(call) and not _is_helpers(type(fn)):
            return _references(call, seen, only)
        return []
    found = []
    code, g = fn.__code__, fn.__globals__
    builtins_ns = g.get("__builtins__", {})
    builtins_ns = vars(builtins_ns) if isinstance(builtins_ns, types.ModuleType) else builtins_ns
    refs = []
    for name in sorted(_loaded_globals(code)):
        if only is None and name in _FORBIDDEN_NAMES and (name not in g or name in ("helpers",)):
            found.append(name)
        if name in g:
            refs.append((name, g[name]))
        elif only is None and name in builtins_ns and name in _FORBIDDEN_NAMES:
            found.append(name)
    for cell in fn.__closure__ or ():
        try:
            refs.append(("(closure)", cell.cell_contents))
        except ValueError:  # empty cell
            pass
    for v in list(fn.__defaults__ or ()) + list((fn.__kwdefaults__ or {}).values()):
        refs.append(("(default)", v))
    for name, obj in refs:
        if _is_helpers(obj):
            if _counts(obj, only):
                found.append(name if name[0] != "(" else getattr(obj, "__name__", name))
        elif obj is sys and only is None:
            found.append("sys")
        elif isinstance(obj, (dict, list, tuple, set, frozenset)) and id(obj) not in seen and len(obj) < 10_000:
            seen.add(id(obj))
            items = obj.values() if isinstance(obj, dict) else obj
            refs.extend((name, v) for v in items if not isinstance(v, (int, float, str, bytes, np.ndarray)))
        elif inspect.isfunction(obj) or isinstance(obj, functools.partial) or inspect.ismethod(obj):
            if not (getattr(obj, "__module__", "") or "").startswith(("numpy", "math")):
                found += _references(obj, seen, only)
    return sorted(set(found))


@contextmanager
def helpers_tripwire(calls: list, only=None):
    """Wrap every function of every loaded helpers module (except the checks) so a call is recorded.

    Only the learner's own calls count, not the calls one helper makes to another: with ``only`` (a set
    of function names, "without helper X"), an allowed helper that uses X internally is not refused.
    """
    patched, depth = [], [0]
    for modname, mod in list(sys.modules.items()):
        if mod is None or not (modname == "helpers" or modname.startswith("helpers.")) or modname.startswith("helpers.checks"):
            continue
        for attr, value in list(vars(mod).items()):
            if inspect.isfunction(value) and _is_helpers(value):
                def wrapper(*a, __f=value, **kw):
                    if depth[0] == 0 and (only is None or __f.__name__ in only):
                        calls.append(__f.__name__)
                    depth[0] += 1
                    try:
                        return __f(*a, **kw)
                    finally:
                        depth[0] -= 1
                patched.append((mod, attr, value))
                setattr(mod, attr, wrapper)
    try:
        yield
    finally:
        for mod, attr, value in patched:
            setattr(mod, attr, value)


#: Calls that run a Python function once per element or per row: a loop under another name.
_LOOP_CALLS = {"map": "map", "vectorize": "np.vectorize", "apply_along_axis": "np.apply_along_axis",
               "frompyfunc": "np.frompyfunc"}


def _loops_in_code(code) -> list[str]:
    ops = list(dis.get_instructions(code))
    found = ["for"] if any(ins.opname == "FOR_ITER" for ins in ops) else (
        ["while"] if any("BACKWARD" in ins.opname for ins in ops) else [])   # a backward jump without FOR_ITER
    found += [_LOOP_CALLS[ins.argval] for ins in ops
              if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD") and ins.argval in _LOOP_CALLS]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found += _loops_in_code(const)
    return found


def python_loops(fn, _seen=None) -> list[str]:
    """The Python loops in ``fn`` and in the learner's own functions it calls: ``"for"`` (comprehensions and
    generator expressions too), ``"while"``, or a looping call (``"map"``, ``"np.vectorize"``, ...); [] if none.

    A static scan of the bytecode, for a task that says "no Python loop" (the batch handled by array
    operations). Functions of numpy, of ``helpers``, ``math`` and ``functools`` are not scanned. Never raises.
    """
    seen = set() if _seen is None else _seen
    try:
        if id(fn) in seen:
            return []
        seen.add(id(fn))
        if isinstance(fn, functools.partial):
            return python_loops(fn.func, seen)
        if inspect.ismethod(fn):
            fn = fn.__func__
        if not inspect.isfunction(fn):
            call = getattr(type(fn), "__call__", None)
            return python_loops(call, seen) if inspect.isfunction(call) and not _is_helpers(type(fn)) else []
        if _is_helpers(fn) or (fn.__module__ or "").split(".")[0] in ("numpy", "math", "functools", "builtins"):
            return []
        found = _loops_in_code(fn.__code__)
        callees = [fn.__globals__.get(name) for name in _loaded_globals(fn.__code__)]
        for cell in fn.__closure__ or ():
            try:
                callees.append(cell.cell_contents)
            except ValueError:      # empty cell
                pass
        for obj in callees:
            if inspect.isfunction(obj) or isinstance(obj, functools.partial):
                found += python_loops(obj, seen)
        return sorted(set(found))
    except Exception:
        return []


def _matrix_product_or_exp(code) -> bool:
    for ins in dis.get_instructions(code):
        if ins.opname in ("LOAD_ATTR", "LOAD_METHOD", "LOAD_GLOBAL") and ins.argval in ("exp", "matmul", "einsum", "dot"):
            return True
        if ins.opname == "BINARY_MATRIX_MULTIPLY" or (ins.opname == "BINARY_OP" and ins.argrepr in ("@", "@=")):
            return True
    return any(_matrix_product_or_exp(c) for c in code.co_consts if isinstance(c, types.CodeType))


def _loaded_names(code) -> set[str]:
    names = {ins.argval for ins in dis.get_instructions(code)
             if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD", "IMPORT_FROM")
             and isinstance(ins.argval, str)}
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _loaded_names(const)
    return names


@functools.cache
def attention_helpers() -> frozenset[str]:
    """The names of every ``helpers`` function that computes scores, softmax or attention, derived from the package.

    The kernels are the functions of ``helpers.core`` (the formula and its parts) that take an exponential or a
    matrix product: the softmax, the scores, the projections, the plain and the blockwise attention. Every
    other ``helpers`` function (outside ``checks`` and ``ui``) that calls one of them, directly or through
    another, computes attention too (``self_attention``, ``multi_head_self_attention``, ``soft_lookup``, the
    encoder, ...). For a task that says "by hand": the learner may use numpy and the non-attention helpers.
    """
    import helpers  # noqa: F401  (loads every module of the package)

    funcs = {}
    for modname, mod in list(sys.modules.items()):
        if mod is None or not modname.startswith("helpers.") or modname.startswith(("helpers.checks", "helpers.ui")):
            continue
        for value in vars(mod).values():
            if inspect.isfunction(value) and value.__module__ == modname:
                funcs[(modname, value.__qualname__)] = value
    found = {f.__name__ for (modname, _), f in funcs.items()
             if modname.startswith("helpers.core.") and _matrix_product_or_exp(f.__code__)}
    while True:
        more = {f.__name__ for f in funcs.values() if f.__name__ not in found and _loaded_names(f.__code__) & found}
        if not more:
            return frozenset(found)
        found |= more
