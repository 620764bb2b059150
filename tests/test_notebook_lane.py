"""The notebook lane's checks (notebooks/conftest.py) fail on what they guard, from one execution.

Two small notebooks run through the real plugin in a child pytest (nbval, a fresh kernel each): a clean
one passes its three checks; a planted one fails each -- a 6 pt figure title, a kernel that peaks far
over the budget, a solution cell that moves a generator a later cell reads, an exercise whose check passes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.notebooks


def _notebook(cells: list[tuple[str, list[str]]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(src, metadata={"tags": tags}) for src, tags in cells]
    return nb


CLEAN = [
    ("import numpy as np\nimport matplotlib.pyplot as plt\nimport helpers as H\nH.use_style()\n"
     "rng = np.random.default_rng(0)", []),
    ("fig, ax = plt.subplots(figsize=(4, 3))\nax.set_title('legible', fontsize=12)\nplt.show()", []),
    ("print('尚未完成：还没有写 f')", ["exercise"]),
    ("f_solution = lambda x: x\nscratch = rng", ["solution"]),
    ("print(rng.normal())", []),
]
PLANTED = [
    ("import numpy as np\nimport matplotlib.pyplot as plt\nrng = np.random.default_rng(0)", []),
    ("fig, ax = plt.subplots(figsize=(4, 3))\nax.set_title('tiny', fontsize=6)\nplt.show()", []),
    ("big = np.ones(60_000_000)\ndel big", []),
    ("print('✅ 通过')", ["exercise"]),
    ("f_solution = rng.normal()", ["solution"]),
    ("print(rng.normal())", []),
]


def _run_lane(tmp_path: Path, **notebooks) -> str:
    folder = tmp_path / "notebooks"
    folder.mkdir()
    shutil.copy(ROOT / "notebooks" / "conftest.py", folder / "conftest.py")
    for name, cells in notebooks.items():
        nbformat.write(_notebook(cells), folder / f"{name}.ipynb")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("SELF_ATTENTION_CH02_STRICT", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax",
                           "--nbval-current-env", "-q", "-rA", "notebooks"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.stdout + done.stderr


def test_a_clean_notebook_passes_and_a_planted_one_fails_each_check(tmp_path):
    out = _run_lane(tmp_path, **{"02-98-clean": CLEAN, "02-99-planted": PLANTED})
    for check in ("figures-legible", "kernel-memory", "student-edition"):
        assert f"PASSED notebooks/02-98-clean.ipynb::{check}" in out, out[-3000:]
        assert f"FAILED notebooks/02-99-planted.ipynb::{check}" in out, out[-3000:]
    assert "('tiny', 6.0)" in out
    assert "MiB >" in out
    assert "changes ['rng'], which a later cell reads" in out
    assert "did not say (in Chinese) it is not done" in out and "passed an unfinished exercise" in out
    assert "2 notebooks executed; executions per notebook: 1x: 2" in out
