"""check_softmax (2.6): correct variants pass, every classic wrong softmax is rejected."""

import numpy as np

from helpers.checks import check_softmax
from check_verdicts import check_table, verdict_table


def good(x):
    x = np.asarray(x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def good_logsumexp(x):
    x = np.asarray(x, dtype=float)
    m = np.max(x, axis=-1, keepdims=True)
    return np.exp(x - m - np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True)))


def good_rows_loop(x):
    x = np.asarray(x)
    out = np.empty(x.shape, dtype=float)
    for idx in np.ndindex(x.shape[:-1]):
        row = x[idx]
        e = np.exp(row - row.max())
        out[idx] = e / e.sum()
    return out.tolist()  # a list is a fine answer too


CORRECT = [good, good_logsumexp, good_rows_loop, lambda x: good(np.asarray(x, dtype=np.float64))]


def global_max(x):
    e = np.exp(x - np.max(x))
    return e / e.sum(axis=-1, keepdims=True)


def no_max(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def subtract_min(x):
    e = np.exp(x - x.min(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def axis0(x):
    return good(np.swapaxes(x, 0, -1)).swapaxes(0, -1) if np.ndim(x) > 1 else good(x)


def axis1(x):  # right for 2-d input only
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=1 if np.ndim(x) > 1 else 0, keepdims=True)


def no_keepdims(x):  # broadcasts the row sums along the wrong axis on square input
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def global_sum(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum()


def in_place(x):
    x -= x.max(axis=-1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=-1, keepdims=True)
    return x


def inf_as_zero(x):
    return good(np.where(np.isinf(x), 0.0, x))


def ratio(x):
    x = np.asarray(x, dtype=float)
    return x / x.sum(axis=-1, keepdims=True)


WRONG = [global_max, no_max, subtract_min, axis0, axis1, no_keepdims, global_sum, in_place, inf_as_zero, ratio,
         lambda x: 1.04 * good(x), lambda x: good(x / 1.04), lambda x: good(2 * np.asarray(x))]


test_correct_variants_pass, test_wrong_softmax_is_rejected = check_table(check_softmax, CORRECT, WRONG,
                                                                         wrong_says=["提示（hint）"])


def test_global_max_gets_the_per_row_hint(capsys):
    check_softmax(global_max)
    out = capsys.readouterr().out
    assert "相差很远的行" in out and "每一行自己的最大值" in out


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

def _review_rowwise(x, centre):
    x = np.asarray(x, dtype=float)
    e = np.exp(x - centre(x))
    return e / e.sum(axis=-1, keepdims=True)


REVIEW_SOFTMAX = [
    (lambda x: _review_rowwise(x, lambda x: np.max(x, axis=(-2, -1), keepdims=True) if x.ndim > 1 else x.max()), False),
    (lambda x: _review_rowwise(x, lambda x: np.median(x, axis=-1, keepdims=True)), False),
    (lambda x: _review_rowwise(x, lambda x: np.max(x, axis=0, keepdims=True)), False),        # column max
    (lambda x: np.nan_to_num(_review_rowwise(x, lambda x: 0.0)), False),
    (lambda x: np.exp(x - np.log(np.sum(np.exp(x), axis=-1, keepdims=True))), False),        # log-sum-exp without the max
    (lambda x: good(np.asarray(x) / np.sqrt(np.shape(x)[-1])), False),                       # a temperature nobody asked for
    (lambda x: x, False),
    (lambda x: _review_rowwise(x, lambda x: np.max(x, axis=-1)[..., None]), True),
    (lambda x: good(np.asarray(x, dtype=np.float32)), True),                                  # float32 all the way
]


test_review_softmax_variants = verdict_table([(check_softmax, fn, should_pass) for fn, should_pass in REVIEW_SOFTMAX])


# ---- checks review (issue 20): log-sum-exp added to the max before subtracting loses float32 bits -----------

def lse_added_first(x):
    m = np.max(x, axis=-1, keepdims=True)
    return np.exp(x - (m + np.log(np.sum(np.exp(x - m), axis=-1, keepdims=True))))   # in the input's dtype


def test_lse_added_first_is_told_why_not_to_subtract_the_max(capsys):
    # mathematically a softmax; on the float32 +-1e4 case (m + log sum) rounds to 0.001: rejected, and told so
    # (it got "exp(1e4) overflows: subtract the row max", which it did)
    from check_verdicts import fails
    out = fails(capsys, check_softmax(lse_added_first))
    assert "有效位" in out and "溢出" not in out.split("提示")[1], out
    assert check_softmax(lambda x: good_logsumexp(np.asarray(x, dtype=np.float32)))   # subtracting in turn: float32 is fine
