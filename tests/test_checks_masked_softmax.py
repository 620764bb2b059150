"""The 2.6 checks: masked softmax with fully masked rows (transfer) and the row-max bug hunt."""

import numpy as np

from helpers.checks import check_masked_softmax, check_row_max_fix
from check_verdicts import check_table, review_verdict


def _masked_ok(s, allowed):
    s = np.where(allowed, s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.where(allowed, np.exp(s - m), 0.0)
    den = e.sum(axis=-1, keepdims=True)
    return np.divide(e, den, out=np.zeros_like(e), where=den > 0)


def _masked_ok_where(s, allowed):
    out = np.zeros(np.shape(s))
    rows = np.asarray(allowed).any(axis=-1)
    s = np.where(allowed, s, -np.inf)
    sub = s[rows]
    e = np.exp(sub - sub.max(axis=-1, keepdims=True))
    out[rows] = e / e.sum(axis=-1, keepdims=True)
    return out


def nan_rows(s, allowed):                        # -inf mask, plain softmax: 0/0 on a dead row
    s = np.where(allowed, s, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)


def finite_mask(s, allowed):                     # -1e9 mask: a dead row becomes uniform
    s = np.where(allowed, s, -1e9)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def mask_after_softmax(s, allowed):              # softmax over everything, then zero masked
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True) * allowed


def mask_after_renorm(s, allowed):               # ... and renormalise: a huge masked score wins anyway
    w = mask_after_softmax(s, allowed)
    den = w.sum(axis=-1, keepdims=True)
    return np.divide(w, den, out=np.zeros_like(w), where=den > 0)


def inverted(s, allowed):
    return _masked_ok(s, ~np.asarray(allowed))


def global_max(s, allowed):
    s = np.where(allowed, s, -np.inf)
    m = s[np.isfinite(s)].max()
    e = np.where(allowed, np.exp(s - m), 0.0)
    den = e.sum(axis=-1, keepdims=True)
    return np.divide(e, den, out=np.zeros_like(e), where=den > 0)


def wrong_axis(s, allowed):
    s = np.where(allowed, s, -np.inf)
    with np.errstate(invalid="ignore"):
        e = np.exp(s - s.max(axis=0, keepdims=True))
        return np.nan_to_num(e / e.sum(axis=0, keepdims=True))


MASKED_OK = [_masked_ok, _masked_ok_where]
MASKED_WRONG = [nan_rows, finite_mask, mask_after_softmax, mask_after_renorm, inverted, global_max, wrong_axis]
test_masked_softmax_correct_variants_pass, test_masked_softmax_wrong_answers_fail = check_table(
    check_masked_softmax, MASKED_OK, MASKED_WRONG)


# ---- issue 30: the two classic mask mistakes are named, not answered with the generic hint ----------------
test_masked_softmax_named_accepts, test_masked_softmax_names_the_mistake = check_table(
    check_masked_softmax, [_masked_ok], {
        "softmax, then zero the masked keys": (mask_after_softmax, ["先对整行做了 softmax", "不到 1"]),
        "softmax, zero, renormalise": (mask_after_renorm, ["再重新归一化", "下溢"]),
        "the mask inverted": (inverted, "掩码用反了"),
    })


def test_masked_softmax_wrong_answers_talk_about_the_mask(capsys):
    with np.errstate(all="ignore"):
        for fn in MASKED_WRONG:
            check_masked_softmax(fn)
    assert "掩码" in capsys.readouterr().out


def _attn(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


def keepdims_free(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[-1])
    E = np.exp(S - S.max(axis=1)[:, None])
    return (E / E.sum(axis=1)[:, None]) @ V


def global_max_attention(Q, K, V):                          # the bug of the bug hunt
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max())
    return E / E.sum(axis=-1, keepdims=True) @ V


def no_max(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S)
    return E / E.sum(axis=-1, keepdims=True) @ V


def column_max(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


def wrong_axis_attention(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return E / E.sum(axis=0, keepdims=True) @ V


def no_scale(Q, K, V):
    S = Q @ K.T
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


FIX_WRONG = [global_max_attention, no_max, column_max, wrong_axis_attention, no_scale]
test_row_max_fix_accepts_correct_variants, test_row_max_fix_rejects_the_bug_and_its_cousins = check_table(
    check_row_max_fix, [_attn, keepdims_free], FIX_WRONG)


# ---- checks review (issue 20, a novice's own answers): the bug hunt names the mistake actually made -------
# (before, the column max got "先确认缩放用的是 sqrt(d_k)…" and the kept bug a question instead of its name)
test_row_max_fix_review_accepts, test_row_max_fix_review_names_the_mistake = check_table(
    check_row_max_fix, [lambda Q, K, V: _attn(*(np.asarray(a, dtype=np.float32) for a in (Q, K, V)))], {
        "column max": (column_max, "每一列的最大值"),
        "the global max kept": (global_max_attention, "bug 还在"),
        "no max": (no_max, "没有减去最大值"),
        "no scale": (no_scale, "没有除以 √d_k"),
    })


# ---- bug hunt review (fresh eyes): the bug hunt has two independent slips, and the check names the one left ----
# (before, copying the stable softmax of section 4 into attention_buggy fixed everything; the scale slip is
# sqrt(Q.shape[0]) = sqrt(T_q) where sqrt(d_k) belongs, silent whenever T_q == d_k)

def _slips(scale_by_T_q, global_max):
    def attention(Q, K, V):
        S = Q @ K.T / np.sqrt(Q.shape[0] if scale_by_T_q else K.shape[-1])
        E = np.exp(S - (S.max() if global_max else S.max(axis=-1, keepdims=True)))
        return E / E.sum(axis=-1, keepdims=True) @ V
    return attention


def query_width_scale(Q, K, V):                             # d_k read from Q's last axis: just as right
    S = Q @ K.T / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1)[:, None])
    return (E / E.sum(axis=1)[:, None]) @ V


def scale_by_T_kv(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[0])
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True) @ V


test_bug_hunt_two_slips_accepts, test_bug_hunt_two_slips_named = check_table(
    check_row_max_fix, [query_width_scale, _slips(False, False)], {
        "both slips kept (the buggy code handed in)": (_slips(True, True), ["两处错误都还在", "症状"]),
        "only the max fixed": (_slips(True, False), ["缩放还有错", "T_q"]),
        "only the scale fixed": (_slips(False, True), ["缩放已经对了", "整个分数矩阵的最大值"]),
        "scale by sqrt(T_kv)": (scale_by_T_kv, "键的个数 T_kv"),
    })


def test_the_named_slip_never_gives_the_fix_code(capsys):
    for fn in (_slips(True, True), _slips(True, False), _slips(False, True)):
        with np.errstate(all="ignore"):
            check_row_max_fix(fn)
    out = capsys.readouterr().out
    assert "keepdims" not in out and "axis=-1" not in out and "shape[-1]" not in out, out


# ---- fresh-eyes review: a row max without keepdims (the (T_q,) maxima broadcast against the columns) ----------
def row_max_without_keepdims(Q, K, V):
    S = Q @ K.T / np.sqrt(K.shape[-1])
    E = np.exp(S - S.max(axis=-1))
    return E / E.sum(axis=-1, keepdims=True) @ V


test_row_max_fix_keepdims_accepts, test_row_max_fix_keepdims_is_named = check_table(
    check_row_max_fix, [_attn], {"row max without keepdims": (row_max_without_keepdims, "保持维度")})


# ---- fresh-eyes review of 2.6: the two max mistakes of the masked softmax are named as what was done ----------
# (before: the max over all keys, masked ones included, got the hint of "softmax, zero, renormalise", and one
# max over the allowed keys of the whole array got "masked scores must not take part", which is not the problem)

def max_over_all_keys(s, allowed):               # the max includes the masked keys' scores
    allowed = np.asarray(allowed, dtype=bool)
    e = np.where(allowed, np.exp(s - np.max(s, axis=-1, keepdims=True)), 0.0)
    den = e.sum(axis=-1, keepdims=True)
    return np.divide(e, den, out=np.zeros_like(e), where=den > 0)


def one_max_over_allowed(s, allowed):            # one max for the whole array (over the allowed keys), NaN on 0/0
    allowed = np.asarray(allowed, dtype=bool)
    some = allowed.any(axis=-1, keepdims=True)
    e = np.where(allowed, np.exp(s - np.max(s[allowed])), 0.0)
    with np.errstate(invalid="ignore"):
        return np.where(some, e / e.sum(axis=-1, keepdims=True), 0.0)


test_masked_softmax_max_accepts, test_masked_softmax_names_the_max_mistake = check_table(
    check_masked_softmax, [_masked_ok], {
        "max over all keys, masked included": (max_over_all_keys, ["减去的最大值取自整行", "连同被掩码的键"]),
        "one max over the allowed keys of all rows (zeros)": (global_max, ["每一行", "整个数组"]),
        "one max over the allowed keys of all rows (NaN)": (one_max_over_allowed, ["每一行", "整个数组"]),
    })


def test_the_global_max_is_not_told_that_masked_scores_took_part(capsys):
    for fn in (global_max, one_max_over_allowed):
        passed, out = review_verdict(check_masked_softmax, fn, capsys)
        assert not passed and "被掩码的分数不能参与" not in out, out
