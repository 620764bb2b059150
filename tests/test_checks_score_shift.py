"""The 2.4 transfer check: adding c to every key shifts row i of S by q_i . c."""

import numpy as np

from helpers.checks import check_key_shift
from check_verdicts import check_table


OK = [
    lambda Q, c: Q @ c,
    lambda Q, c: (np.asarray(Q) * c).sum(axis=1),
    lambda Q, c: np.einsum("id,d->i", Q, c),
]
WRONG = [
    lambda Q, c: np.zeros(len(Q)),                                   # "a dot product of directions does not move"
    lambda Q, c: np.full(len(Q), c @ c),                             # |c|^2
    lambda Q, c: Q @ c / np.sqrt(Q.shape[1]),                        # spurious scale
    lambda Q, c: 2 * (Q @ c),                                        # constant factor
    lambda Q, c: -(Q @ c),                                           # sign
    lambda Q, c: Q.sum(axis=1) * c.sum(),                            # sum of products != product of sums
    lambda Q, c: np.linalg.norm(Q, axis=1) * np.linalg.norm(c),      # cosine = 1 assumed
    lambda Q, c: Q @ c + c @ c,                                      # expanded (q + c).(k + c)
]
test_correct_variants_pass, test_wrong_answers_fail = check_table(check_key_shift, OK, WRONG)


def test_wrong_answers_name_queries_or_keys(capsys):
    for fn in WRONG:
        check_key_shift(fn)
    out = capsys.readouterr().out
    assert out.count("❌") == len(WRONG) and ("查询" in out or "键" in out)


def test_stub_reports_not_done():
    def stub(Q, c):
        raise NotImplementedError

    assert not check_key_shift(stub)


def test_the_classic_wrong_answers_are_named(capsys):
    # fresh-eyes review: each of these was told the one generic hint of the first case
    named = {
        "全 0": lambda Q, c: np.zeros(len(Q)),                                 # "softmax does not change, so nothing does"
        "和之积": lambda Q, c: Q.sum(axis=1) * c.sum(),
        "夹角的余弦": lambda Q, c: np.linalg.norm(Q, axis=1) * np.linalg.norm(c),
        "查询没有变": lambda Q, c: np.full(len(Q), c @ c),
        "没有 c·c": lambda Q, c: Q @ c + c @ c,
    }
    for says, fn in named.items():
        assert not check_key_shift(fn)
        out = capsys.readouterr().out
        assert says in out, (says, out)
