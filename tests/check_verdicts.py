"""Shared helpers for the self-check tests (tests/test_checks_*.py): run a check, get its verdict.

Imported by the test modules as ``from check_verdicts import ...`` (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import contextlib
import io
import re

CJK = re.compile(r"[\u4e00-\u9fff]")


def review_verdict(check, fn, capsys):
    """Run ``check(fn)`` quietly; return (passed, what it printed)."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        result = check(fn)
    capsys.readouterr()
    return bool(result), buf.getvalue()


def passes(capsys, result):
    """Assert the check passed; return what it printed."""
    out = capsys.readouterr().out
    assert result.passed, out
    return out


def fails(capsys, result):
    """Assert the check failed and said so in Chinese; return what it printed."""
    out = capsys.readouterr().out
    assert not result.passed, out
    assert CJK.search(out), "feedback must contain Chinese"
    return out
