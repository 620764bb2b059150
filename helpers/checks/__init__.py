"""Self-checks for the exercises: ``from helpers.checks import check_log_softmax`` (every check).

Each ``check_*`` runs a learner's function (or value) on hidden cases and prints a pass line, or the
first failing case with a hint (in Chinese). It never prints the answer and never raises because of
what the learner's function returned or raised.

One module per notebook, in the notebooks' order (2.12 has three: the capstone, the learner's test and the chapter self-test),
on a shared machinery: ``core`` (``run_check``, ``Case``, the verdict) and ``numpy_only`` (refusing
code that calls ``helpers`` where a task says "numpy only"). ``MODULES`` below is the one list; every
name in a module's ``__all__`` is importable from here.
"""

from __future__ import annotations

import importlib

MODULES = (
    "compare",
    "core",
    "numpy_only",
    "diagnose",
    "nb01_contextual",
    "nb02_soft_lookup",
    "nb03_qkv_projections",
    "nb04_dot_product_scores",
    "nb05_scaling",
    "nb05_faded_derivation",
    "nb06_softmax",
    "nb07_whole_formula",
    "nb07_cross_attention",
    "nb08_worked_example",
    "nb08_faded_example",
    "nb09_properties",
    "nb10_causal_mask",
    "nb11_beyond_single_head",
    "nb12_capstone",
    "nb12_capstone_test",
    "nb12_self_test",
    "nb13_real_model",
)

_EXPORTS = {}  # public name -> module that defines it
for _name in MODULES:
    _module = importlib.import_module(f"{__name__}.{_name}")
    for _public in _module.__all__:
        if _public in _EXPORTS:
            raise ImportError(f"helpers.checks: {_public!r} is exported by both {_EXPORTS[_public].__name__} and {_name}")
        _EXPORTS[_public] = _module
del _name, _module, _public

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    try:
        module = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    return getattr(module, name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
