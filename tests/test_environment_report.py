"""2.0's environment check: what it finds missing, said in Chinese with the command that fixes it."""

from __future__ import annotations

import pytest

from helpers.ui import environment

pytestmark = pytest.mark.fast


def test_a_complete_environment_has_no_problem(capsys):
    ok = environment.print_environment_report()
    out = capsys.readouterr().out
    assert ok is True
    assert out.rstrip().endswith("一切就绪：需要的包都在。")
    assert "问题" not in out


def test_a_missing_package_and_extension_are_named_with_their_fix(monkeypatch, capsys):
    real = environment._version
    monkeypatch.setattr(environment, "_version", lambda dist: None if dist == "ipywidgets" else real(dist))
    monkeypatch.setattr(environment.importlib.util, "find_spec",
                        lambda name, *a: None if name == "jupyterlab_widgets" else object())
    ok = environment.print_environment_report()
    lines = capsys.readouterr().out.splitlines()
    assert ok is False
    problems = [line for line in lines if line.startswith("问题：")]
    assert len(problems) == 2, lines
    assert "ipywidgets" in problems[0] and "pip install -e ." in problems[0]
    assert "jupyterlab_widgets" in problems[1] and ".[lab]" in problems[1]
    assert any(line.split()[0] == "ipywidgets" and line.split()[-1] == "未安装" for line in lines)
    assert "一切就绪" not in "\n".join(lines)
