"""The strictness switch: under SELF_ATTENTION_CH02_STRICT=1 a skip is a failure."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run_skipping_test(tmp_path, env_extra):
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "test_skip.py").write_text(textwrap.dedent("""
        import pytest

        def test_cannot_run_here():
            pytest.skip("no frobnicator on this machine")

        def test_runs():
            assert True
    """), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in {"SELF_ATTENTION_CH02_STRICT", "CI"}}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbval",
                           "-o", "addopts=", str(tmp_path)], cwd=tmp_path, env=env, capture_output=True, text=True)


def test_skip_is_a_skip_without_the_switch(tmp_path):
    r = _run_skipping_test(tmp_path, {"CI": "true"})  # the generic CI variable does not make it strict
    assert r.returncode == 0, r.stdout
    assert "1 passed, 1 skipped" in r.stdout


def test_skip_is_a_failure_with_the_switch(tmp_path):
    r = _run_skipping_test(tmp_path, {"SELF_ATTENTION_CH02_STRICT": "1"})
    assert r.returncode == 1, r.stdout
    assert "1 failed, 1 passed" in r.stdout
    assert "no frobnicator on this machine" in r.stdout
