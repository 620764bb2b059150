"""Every self-check gives a verdict in a kernel that ran ``np.seterr(all="raise")`` (a learner hunting an
overflow): its hidden reference cases must not raise ``FloatingPointError`` before the learner's code runs."""

from __future__ import annotations

import numpy as np
import pytest

import helpers.checks

# The exercise checks (one argument: the learner's answer); check_array is the comparison they share.
CHECKS = sorted(name for name in helpers.checks.__all__ if name.startswith("check_") and name != "check_array")


def _not_done(*args, **kwargs):
    raise NotImplementedError


@pytest.mark.parametrize("name", CHECKS)
def test_a_check_survives_seterr_raise(name, capsys):
    check = getattr(helpers.checks, name)
    old = np.seterr(all="raise")
    try:
        result = check(_not_done)
    finally:
        np.seterr(**old)
    assert not result
    out = capsys.readouterr().out
    assert "Traceback" not in out and "FloatingPointError" not in out, out


def test_the_seterr_test_sees_an_unsafe_check(capsys):
    def unsafe(fn):
        np.exp(np.array([1000.0]))  # a reference built without float_safe
        return fn()

    old = np.seterr(all="raise")
    try:
        with pytest.raises(FloatingPointError):
            unsafe(_not_done)
    finally:
        np.seterr(**old)
