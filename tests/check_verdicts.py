"""Shared helpers for the self-check tests (tests/test_checks_*.py): run a check, get its verdict.

Imported by the test modules as ``from check_verdicts import ...`` (pytest puts tests/ on sys.path).
"""

from __future__ import annotations

import contextlib
import io
import re

import pytest

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


# ---- the table-driven harness: one check, the answers it must accept, the answers it must reject ---------

def _labelled(table):
    """(label, value) pairs from a dict, or from a list (labels from the functions' names)."""
    if isinstance(table, dict):
        return list(table.items())
    return [(getattr(v[0] if isinstance(v, tuple) else v, "__name__", "") or str(k), v) for k, v in enumerate(table)]


def check_table(check, ok=(), wrong=(), *, ok_says=(), wrong_says=(), ok_quiet=False, min_cases=1):
    """Two parametrised tests for ``check``: every answer in ``ok`` passes, every answer in ``wrong`` fails.

    Bind them in a test module, where pytest collects them under the names you give::

        test_mask_accepts, test_mask_rejects = check_table(check_decode_mask, DECODE_OK, DECODE_WRONG,
                                                           wrong_says=["提示（hint）"])

    ``ok`` and ``wrong`` are lists of functions or dicts ``label -> function``; an entry of ``wrong``
    may be ``(function, "words")`` or ``(function, ["words", ...])``: the feedback must contain them.
    A pass must print the pass line (and every string of ``ok_says``); a failure must print Chinese
    feedback starting with the red cross, containing every string of ``wrong_says``.
    ``ok_quiet=True`` only asserts truthiness for the accepted answers (checks that print nothing else);
    ``min_cases`` is the least number of hidden cases a pass must have run.
    """
    ok_rows, wrong_rows = _labelled(ok), _labelled(wrong)

    @pytest.mark.parametrize("fn", [fn for _, fn in ok_rows], ids=[label for label, _ in ok_rows])
    def accepts(fn, capsys):
        result = check(fn)
        out = passes(capsys, result)
        assert result.n_passed == result.n_cases >= min_cases, result
        if not ok_quiet:
            assert out.startswith("\u2705") and "通过" in out, out
        for words in ok_says:
            assert words in out, (words, out)

    def split(entry):
        if isinstance(entry, tuple):
            fn, words = entry
            return fn, [words] if isinstance(words, str) else list(words)
        return entry, []

    @pytest.mark.parametrize("fn, words", [split(e) for _, e in wrong_rows], ids=[label for label, _ in wrong_rows])
    def rejects(fn, words, capsys):
        out = fails(capsys, check(fn))
        assert out.startswith("\u274c"), out
        for w in [*wrong_says, *words]:
            assert w in out, (w, out)

    return accepts, rejects


def verdict_table(rows, *, fail_says=()):
    """One parametrised test over rows ``(check, fn, should_pass)`` (the reviewers' mixed tables).

    A rejected answer's feedback must contain every string of ``fail_says``.
    """
    @pytest.mark.parametrize("check, fn, should_pass", rows, ids=[f"{k}-{getattr(r[0], '__name__', '')}" for k, r in enumerate(rows)])
    def verdicts(check, fn, should_pass, capsys):
        passed, out = review_verdict(check, fn, capsys)
        assert passed == should_pass, out
        if not passed:
            assert CJK.search(out), "feedback must contain Chinese"
            for words in fail_says:
                assert words in out, (words, out)

    return verdicts
