"""Enforce "numpy only" / "without helper X": refuse a learner's function that reaches into ``helpers``.

Two layers, because either alone can be dodged: a static scan of the names a function's code loads (its
closure, its defaults and, recursively, the learner's own functions it calls), and a run with every
``helpers`` function replaced by a tripwire that records the call. ``helpers.checks`` itself is not wrapped.
"""

from __future__ import annotations

import dis
import functools
import inspect
import sys
import types
from contextlib import contextmanager

import numpy as np

__all__ = ["helpers_references", "helpers_tripwire"]


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


def helpers_references(fn, _seen=None) -> list[str]:
    """Names through which ``fn`` (or a function it calls) reaches ``helpers``; [] if none found.

    A static scan: the global names its code loads (and its nested functions'), its closure
    cells, its default arguments; the learner's own functions found this way are scanned too.
    """
    seen = set() if _seen is None else _seen
    if id(fn) in seen:
        return []
    seen.add(id(fn))
    if _is_helpers(fn):
        return [getattr(fn, "__name__", repr(fn))]
    if isinstance(fn, functools.partial):
        found = helpers_references(fn.func, seen)
        for v in list(fn.args) + list(fn.keywords.values()):
            found += helpers_references(v, seen)
        return found
    if inspect.ismethod(fn):
        return helpers_references(fn.__func__, seen) + helpers_references(fn.__self__, seen)
    if isinstance(fn, types.ModuleType):
        return []
    if not inspect.isfunction(fn):
        call = getattr(type(fn), "__call__", None)
        if callable(fn) and inspect.isfunction(call) and not _is_helpers(type(fn)):
            return helpers_references(call, seen)
        return []
    found = []
    code, g = fn.__code__, fn.__globals__
    builtins_ns = g.get("__builtins__", {})
    builtins_ns = vars(builtins_ns) if isinstance(builtins_ns, types.ModuleType) else builtins_ns
    refs = []
    for name in sorted(_loaded_globals(code)):
        if name in _FORBIDDEN_NAMES and (name not in g or name in ("helpers",)):
            found.append(name)
        if name in g:
            refs.append((name, g[name]))
        elif name in builtins_ns and name in _FORBIDDEN_NAMES:
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
            found.append(name if name[0] != "(" else getattr(obj, "__name__", name))
        elif obj is sys:
            found.append("sys")
        elif isinstance(obj, (dict, list, tuple, set, frozenset)) and id(obj) not in seen and len(obj) < 10_000:
            seen.add(id(obj))
            items = obj.values() if isinstance(obj, dict) else obj
            refs.extend((name, v) for v in items if not isinstance(v, (int, float, str, bytes, np.ndarray)))
        elif inspect.isfunction(obj) or isinstance(obj, functools.partial) or inspect.ismethod(obj):
            if not (getattr(obj, "__module__", "") or "").startswith(("numpy", "math")):
                found += helpers_references(obj, seen)
    return sorted(set(found))


@contextmanager
def helpers_tripwire(calls: list):
    """Wrap every function of every loaded helpers module (except the checks) so a call is recorded."""
    patched = []
    for modname, mod in list(sys.modules.items()):
        if mod is None or not (modname == "helpers" or modname.startswith("helpers.")) or modname.startswith("helpers.checks"):
            continue
        for attr, value in list(vars(mod).items()):
            if inspect.isfunction(value) and _is_helpers(value):
                def wrapper(*a, __f=value, **kw):
                    calls.append(__f.__name__)
                    return __f(*a, **kw)
                patched.append((mod, attr, value))
                setattr(mod, attr, wrapper)
    try:
        yield
    finally:
        for mod, attr, value in patched:
            setattr(mod, attr, value)
