"""2.12's ``run_mine`` (the core cells that reuse the learner's ``my_causal_mha``): a stub, a bug that raises, a wrong
shape or a forgotten ``return`` each print one Chinese line and give None, never a traceback in a core cell."""

from __future__ import annotations

import ast
import contextlib
import io
from pathlib import Path

import numpy as np
import pytest
from nbcells import cells, src

NB = Path(__file__).resolve().parents[1] / "notebooks" / "02-12-summary.ipynb"


def run_mine_with(learner):
    """``run_mine`` as the notebook defines it, with ``my_causal_mha = learner``."""
    code = next(src(c) for c in cells(NB) if c["cell_type"] == "code" and "def run_mine" in src(c))
    fn = next(n for n in ast.parse(code).body if isinstance(n, ast.FunctionDef) and n.name == "run_mine")
    ns = {"np": np, "my_causal_mha": learner}
    exec(compile(ast.Module([fn], []), str(NB), "exec"), ns)  # noqa: S102 - the notebook's own definition
    return ns["run_mine"]


X = np.random.default_rng(0).normal(size=(2, 5, 8))
W = [np.eye(8)] * 4
ARGS = (X, *W, 2, 0)


def _stub(*a):
    raise NotImplementedError


def _raises(*a):
    return a[0] @ a[1][:3]          # a shape bug: matmul of (2, 5, 8) with (3, 8) raises ValueError


@pytest.mark.parametrize("learner, says", [
    (_stub, "还没写完"),
    (_raises, "出错了：ValueError"),
    (lambda *a: None, "None"),
    (lambda *a: np.zeros((5, 8)), "(5, 8)"),
    (lambda *a: "not an array", "形状"),
    (lambda *a: [[1.0, 2.0], [3.0]], "没有形状"),
], ids=["stub", "raises", "None", "wrong shape", "a string", "a ragged list"])
def test_a_learner_that_is_not_done_or_wrong_gets_a_line_not_a_traceback(learner, says):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert run_mine_with(learner)(*ARGS) is None
    out = buf.getvalue()
    assert says in out and "Traceback" not in out and out.count("\n") == 1, out


def test_a_working_learner_is_used():
    out = run_mine_with(lambda *a: np.ones((2, 5, 8)))(*ARGS)
    assert out.shape == (2, 5, 8)
