"""Every self-check this package owns speaks Chinese, and no hint gives away the code of the answer.

The hidden cases are captured by replacing ``run_check`` in each module with a spy, so
every hint of every case is inspected, not only the first one that a wrong answer reaches.
"""

import math
import re

import pytest

import sys

import helpers.checks
from helpers.checks import diagnose

# The checks this file has always inspected (26, less the twenty-four no notebook calls any more); every newer check is inspected too (ALL below).
FIRST_26 = ["check_left_padded_causal_mask", "check_dot_variance"]
# Every check built on run_check / run_diagnosed; the capstone's two parts have their own message tests.
OWNED = sorted(n for n in helpers.checks.__all__
               if n.startswith("check_") and n not in ("check_array", "check_attention_test", "check_capstone"))
CHECKS = [(sys.modules[getattr(helpers.checks, name).__module__], name) for name in OWNED]
CJK = re.compile(r"[\u4e00-\u9fff]")
# Fragments that would hand the learner the code of the answer.
CODE = re.compile(r"@|\bnp\.|numpy|\.T\b|axis\s*=|keepdims|\.shape|reshape|swapaxes|einsum|outer\(|diag\(|"
                  r"tril|triu|np\.exp|\.sum\(|\.max\(|linalg|transpose\(|return ")


class _Seen(Exception):
    """Raised by the spy once it has the hidden cases: the check goes no further."""


def _spy_on(monkeypatch, mod, spy):
    # a check calls run_check directly, or through diagnose.run_diagnosed (known wrong answers, numpy only)
    monkeypatch.setattr(mod, "run_check", spy, raising=False)   # a module built only on run_diagnosed has none
    monkeypatch.setattr(diagnose, "run_check", spy)


def _stub(*args, **kwargs):
    raise NotImplementedError


def _wrong(*args, **kwargs):
    return 12345.678


def test_every_owned_check_is_listed():
    assert set(FIRST_26) <= set(OWNED) and len(FIRST_26) == 2


@pytest.mark.parametrize("mod, name", CHECKS, ids=[n for _, n in CHECKS])
def test_not_done_stub_prints_chinese_and_returns_falsy(mod, name, capsys):
    res = getattr(mod, name)(_stub)
    out = capsys.readouterr().out
    assert not res and res.n_passed == 0
    assert out.startswith("\u23f3") and "尚未完成" in out and CJK.search(out)


@pytest.mark.parametrize("mod, name", CHECKS, ids=[n for _, n in CHECKS])
def test_wrong_answer_prints_chinese_and_never_the_expected_value(mod, name, capsys):
    res = getattr(mod, name)(_wrong)
    out = capsys.readouterr().out
    assert not res and out.startswith("\u274c")
    assert len(CJK.findall(out)) >= 10
    assert "[[" not in out and "array(" not in out


# check_self_test_shapes compares six integers itself (no run_check): its messages are tested in test_checks_self_test.
SPIED = [(m, n) for m, n in CHECKS if n != "check_self_test_shapes"]


@pytest.mark.parametrize("mod, name", SPIED, ids=[n for _, n in SPIED])
def test_every_hint_and_label_is_chinese_and_shows_no_answer_code(mod, name, monkeypatch):
    seen = {}

    def spy(check_name, fn, cases, **kwargs):
        seen["cases"], seen["general_hint"] = list(cases), kwargs.get("general_hint", "")
        raise _Seen

    _spy_on(monkeypatch, mod, spy)
    with pytest.raises(_Seen):
        getattr(mod, name)(_stub)
    cases = seen["cases"]
    two_parts = name == "check_causal_worked_example"   # (weights, output) of one example
    # 2.8's faded example: one step of one example, drawn until every classic wrong answer stands out on it
    one_example = name.startswith("check_faded_") or name == "check_self_test_row"
    assert len(cases) >= (1 if one_example else 2 if two_parts else 3), "too few hidden cases to tell classic wrong answers apart"
    hints = [c.hint for c in cases] + ([seen["general_hint"]] if seen["general_hint"] else [])
    for hint in hints:
        assert hint and CJK.search(hint), hint
        assert not CODE.search(hint), hint
    for case in cases:
        if not re.fullmatch(r"[\w\s=,.:\[\]()!\-，（）]*", case.label):  # pure formulas like "T = 4" may stay
            assert CJK.search(case.label), case.label


def test_the_pass_line_is_chinese(capsys):
    from helpers.checks import check_max_context

    assert check_max_context(lambda budget, itemsize, batch=1, heads=1: math.isqrt(budget // (batch * heads * itemsize)))
    out = capsys.readouterr().out
    assert out.startswith("\u2705") and "隐藏用例通过" in out
