"""The 2.7 transfer check: the full (B, T, T) attention weights of a padded batch, one length per sentence.

The exercise replaced "attention with a key-padding mask" (fresh-eyes review): its answer could be had by
deleting the padded keys. Here the weights keep the shape (B, T, T) with exactly zero padded columns, and
the sentences have different lengths, so deletion alone gives the wrong shape (and the check says so).
"""

import numpy as np
import pytest

import helpers as H
from helpers.checks import check_padded_attention_weights
from check_verdicts import check_table, fails


def _softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _real(lengths, T):
    return np.arange(T)[None, :] < np.asarray(lengths)[:, None]


def _scores(Q, K):
    return Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1])


def minus_inf_where(Q, K, lengths):
    return _softmax(np.where(_real(lengths, K.shape[1])[:, None, :], _scores(Q, K), -np.inf))


def additive_minus_1e9_einsum(Q, K, lengths):     # a large finite negative number is fine: exp gives exactly 0
    S = np.einsum("bid,bjd->bij", Q, K) / np.sqrt(K.shape[-1])
    return _softmax(S + np.where(_real(lengths, K.shape[1]), 0.0, -1e9)[:, None, :])


def additive_minus_inf(Q, K, lengths):
    return _softmax(_scores(Q, K) + np.where(_real(lengths, K.shape[1]), 0.0, -np.inf)[:, None, :])


def loop_deleting_then_zero_filled(Q, K, lengths):   # delete per sentence, then put the columns back as zeros
    B, T, d_k = K.shape
    A = np.zeros((B, T, T))
    for b in range(B):
        n = int(lengths[b])
        A[b, :, :n] = _softmax(Q[b] @ K[b, :n].T / np.sqrt(d_k))
    return A


def loop_over_every_row(Q, K, lengths):
    B, T, d_k = K.shape
    A = np.zeros((B, T, T))
    for b in range(B):
        for i in range(T):
            s = np.array([Q[b, i] @ K[b, j] / np.sqrt(d_k) if j < lengths[b] else -np.inf for j in range(T)])
            e = np.exp(s - s.max())
            A[b, i] = e / e.sum()
    return A


def float32_throughout(Q, K, lengths):
    Q, K = np.asarray(Q, np.float32), np.asarray(K, np.float32)
    S = Q @ np.swapaxes(K, -1, -2) / np.float32(np.sqrt(K.shape[-1]))
    return _softmax(np.where(_real(lengths, K.shape[1])[:, None, :], S, np.float32(-np.inf)))


OK = [minus_inf_where, additive_minus_1e9_einsum, additive_minus_inf, loop_deleting_then_zero_filled,
      loop_over_every_row, float32_throughout]


def deleted_padded_keys(Q, K, lengths):           # the old exercise's shortcut: a list of (T, lengths[b]) arrays
    return [_softmax(Q[b] @ K[b, :n].T / np.sqrt(K.shape[-1])) for b, n in enumerate(lengths)]


def deleted_and_stacked(Q, K, lengths):
    return np.stack(deleted_padded_keys(Q, K, lengths))


def mask_after_softmax(Q, K, lengths):
    return _softmax(_scores(Q, K)) * _real(lengths, K.shape[1])[:, None, :]


def mask_after_softmax_renormalised(Q, K, lengths):   # exact in real numbers, not with large padding
    with np.errstate(invalid="ignore"):
        A = mask_after_softmax(Q, K, lengths)
        return A / A.sum(axis=-1, keepdims=True)


def mask_on_rows(Q, K, lengths):
    with np.errstate(invalid="ignore"):
        return _softmax(np.where(_real(lengths, K.shape[1])[:, :, None], _scores(Q, K), -np.inf))


def rows_zeroed_after_softmax(Q, K, lengths):
    return _softmax(_scores(Q, K)) * _real(lengths, K.shape[1])[:, :, None]


def columns_and_rows(Q, K, lengths):              # the padded queries zeroed too: their rows must sum to 1
    return minus_inf_where(Q, K, lengths) * _real(lengths, K.shape[1])[:, :, None]


def one_padded_key_kept(Q, K, lengths):
    return minus_inf_where(Q, K, np.minimum(np.asarray(lengths) + 1, K.shape[1]))


def one_real_key_dropped(Q, K, lengths):
    real = np.arange(K.shape[1])[None, :] < np.asarray(lengths)[:, None] - 1
    with np.errstate(invalid="ignore"):
        return _softmax(np.where(real[:, None, :], _scores(Q, K), -np.inf))


def broadcast_over_the_wrong_axis(Q, K, lengths):   # (B, T) aligned with (T_q, T_kv); raises unless B == T
    return _softmax(_scores(Q, K) + np.where(_real(lengths, K.shape[1]), 0.0, -1e9))


def damped_not_removed(Q, K, lengths):            # -100: tiny weights, not zeros
    return _softmax(_scores(Q, K) + np.where(_real(lengths, K.shape[1]), 0.0, -100.0)[:, None, :])


def within_tolerance_but_not_zero(Q, K, lengths):
    A = minus_inf_where(Q, K, lengths)
    return np.where(A == 0.0, 1e-30, A)


def global_max(Q, K, lengths):
    S = np.where(_real(lengths, K.shape[1])[:, None, :], _scores(Q, K), -np.inf)
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max())
        return E / E.sum(axis=-1, keepdims=True)


def softmax_over_queries(Q, K, lengths):
    S = np.where(_real(lengths, K.shape[1])[:, None, :], _scores(Q, K), -np.inf)
    with np.errstate(invalid="ignore"):
        E = np.exp(S - S.max(axis=1, keepdims=True))
        return E / E.sum(axis=1, keepdims=True)


def bare_transpose(Q, K, lengths):
    return _softmax(np.where(_real(lengths, K.shape[1])[:, None, :], Q @ K.T / np.sqrt(K.shape[-1]), -np.inf))


def no_scale(Q, K, lengths):
    return _softmax(np.where(_real(lengths, K.shape[1])[:, None, :], Q @ np.swapaxes(K, -1, -2), -np.inf))


def ignores_the_mask(Q, K, lengths):
    return _softmax(_scores(Q, K))


def uses_helpers(Q, K, lengths):
    B, T = len(lengths), K.shape[1]
    mask = np.broadcast_to(_real(lengths, T)[:, None, :], (B, T, T))
    return H.scaled_dot_product_attention(Q, K, K, mask=mask).weights


def no_max_subtracted(Q, K, lengths):              # the padded queries' large scores overflow exp
    S = np.where(_real(lengths, K.shape[1])[:, None, :], _scores(Q, K), -np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S)
        return E / E.sum(axis=-1, keepdims=True)


def no_max_subtracted_minus_1e9(Q, K, lengths):
    S = _scores(Q, K) + np.where(_real(lengths, K.shape[1]), 0.0, -1e9)[:, None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        E = np.exp(S)
        return E / E.sum(axis=-1, keepdims=True)


def _both(lengths, T):                             # a (B, T, T) table: real query AND real key
    real = _real(lengths, T)
    return real[:, :, None] & real[:, None, :]


def queries_and_keys_masked(Q, K, lengths):        # -inf: the padded queries' rows are 0/0
    with np.errstate(invalid="ignore"):
        return _softmax(np.where(_both(lengths, K.shape[1]), _scores(Q, K), -np.inf))


def queries_and_keys_masked_minus_1e9(Q, K, lengths):   # -1e9: the padded queries' rows are uniform over all T keys
    return _softmax(np.where(_both(lengths, K.shape[1]), _scores(Q, K), -1e9))


def scores_times_mask(Q, K, lengths):              # 0 is an ordinary score: exp(0) = 1
    return _softmax(_scores(Q, K) * _real(lengths, K.shape[1])[:, None, :])


def zero_instead_of_minus_inf(Q, K, lengths):
    return _softmax(np.where(_real(lengths, K.shape[1])[:, None, :], _scores(Q, K), 0.0))


def mask_of_width_b(Q, K, lengths):               # the table built over range(B), not range(T): (B, 1, B) raises
    real = np.arange(len(lengths))[None, :] < np.asarray(lengths)[:, None]
    return _softmax(np.where(real[:, None, :], _scores(Q, K), -np.inf))


WRONG = {
    "no max subtracted (-inf)": (no_max_subtracted, ["没有减去每一行的最大值", "溢出"]),
    "no max subtracted (-1e9)": (no_max_subtracted_minus_1e9, ["没有减去每一行的最大值", "溢出"]),
    "queries masked as well as keys (-inf)": (queries_and_keys_masked, ["查询（行）也遮住了", "只遮键"]),
    "queries masked as well as keys (-1e9)": (queries_and_keys_masked_minus_1e9, ["查询（行）也遮住了", "只遮键"]),
    "scores times the mask": (scores_times_mask, ["换成了 0", "−∞"]),
    "0 instead of -inf": (zero_instead_of_minus_inf, ["换成了 0", "−∞"]),
    "deleting padded keys": (deleted_padded_keys, ["删掉", "(B, T, T)"]),
    "deleting, then stacking": (deleted_and_stacked, ["删掉", "形状"]),
    "mask after softmax, no renormalising": (mask_after_softmax, ["清零之后每一行的和小于 1", "之前"]),
    "mask after softmax, renormalised": (mask_after_softmax_renormalised, ["重新归一化", "0/0"]),
    "mask on rows": (mask_on_rows, ["遮住的是行", "遮列"]),
    "rows zeroed": (rows_zeroed_after_softmax, "遮住的是行"),
    "padded queries zeroed too": (columns_and_rows, ["填充列遮对了", "和为 1"]),
    "off by one: a padded key kept": (one_padded_key_kept, ["长度差了一", "多留了"]),
    "off by one: a real key dropped": (one_real_key_dropped, ["长度差了一", "少留了"]),
    "mask broadcast over the wrong axis": (broadcast_over_the_wrong_axis, ["广播轴不对", "查询轴"]),
    "damped (-100), not removed": (damped_not_removed, ["恰好为 0", "不够负"]),
    "1e-30 instead of 0": (within_tolerance_but_not_zero, "恰好为 0"),
    "max of the whole batch": (global_max, "整个批量的最大值"),
    "softmax over the queries": (softmax_over_queries, "查询轴"),
    "bare .T on 3-d keys": (bare_transpose, "所有轴倒过来"),
    "no scale": (no_scale, "√d_k"),
    "no mask": (ignores_the_mask, "没有被排除"),
    "helpers (the prompt says numpy only)": (uses_helpers, "只用 numpy"),
}
test_correct_variants_pass, test_wrong_answers_are_named = check_table(check_padded_attention_weights, OK, WRONG,
                                                                       min_cases=5)


@pytest.mark.parametrize("fn", [fn for fn, _ in WRONG.values()], ids=list(WRONG))
def test_no_feedback_shows_a_traceback_or_the_answer_code(fn, capsys):
    with np.errstate(all="ignore"):
        out = fails(capsys, check_padded_attention_weights(fn))
    assert "Traceback" not in out
    for code in ("np.where", "[:, None, :]", "keepdims", "-np.inf", "swapaxes"):
        assert code not in out, (code, out)


def test_only_the_first_case_judged_not_exact_is_named(capsys):
    """A damped mask is within tolerance on case 1 yet not zero there: named at case 1, not at a later case."""
    out = fails(capsys, check_padded_attention_weights(damped_not_removed))
    assert "第 1/5 个用例" in out, out


def test_what_the_learners_code_prints_still_shows(capsys):
    def chatty(Q, K, lengths):
        print("debug: lengths", list(lengths))
        return damped_not_removed(Q, K, lengths)

    out = fails(capsys, check_padded_attention_weights(chatty))
    assert "debug: lengths" in out and "恰好为 0" in out, out


def test_a_mask_of_the_wrong_width_is_not_told_the_broadcast_axis(capsys):
    """A (B, 1, B) table raises a broadcast error too, but it names other shapes than the (B, T) table aligned
    with the last two axes: the wrong-broadcast hint is not given (it was while only the exception's type counted)."""
    out = fails(capsys, check_padded_attention_weights(mask_of_width_b))
    assert "广播轴不对" not in out, out


def test_deleting_the_keys_is_not_told_the_lengths_differ_where_they_do_not(capsys):
    out = fails(capsys, check_padded_attention_weights(deleted_and_stacked))
    assert "第 1/5 个用例" in out and "删掉" in out, out
    assert "何况每个句子的长度不同" not in out, out


# ---- fresh-eyes review (r2): a novice hides the padded queries' rows with -1e9 instead of -inf ----------------

def mask_on_rows_minus_1e9(Q, K, lengths):         # the keys stay unmasked; the padded queries' rows go uniform
    T = K.shape[1]
    real_queries = np.arange(T)[None, :] < np.asarray(lengths)[:, None]
    S = np.where(real_queries[:, :, None], Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]), -1e9)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def test_rows_masked_with_a_large_negative_number_are_named(capsys):
    # before, this got the case's generic hint: only the -inf version of "masked the rows" was known
    out = fails(capsys, check_padded_attention_weights(mask_on_rows_minus_1e9))
    assert "遮住的是行" in out and "遮列" in out, out
