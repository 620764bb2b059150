"""check_distance_bias_attention (2.9 transfer) accepts correct variants and rejects the classic wrong answers."""

import numpy as np

from helpers.checks import check_distance_bias_attention
from check_verdicts import check_table


def _rows_softmax(S):
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return E / E.sum(axis=1, keepdims=True)


def _dist(T):
    i = np.arange(T)
    return np.abs(i[:, None] - i[None, :])


def correct(Q, K, V, slope):
    return _rows_softmax(Q @ K.T / np.sqrt(Q.shape[1]) - slope * _dist(len(Q))) @ V


def correct_multiplicative(Q, K, V, slope):   # exp(-slope |i-j|) as a factor: the same weights
    S = Q @ K.T / np.sqrt(Q.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True)) * np.exp(-slope * _dist(len(Q)))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def correct_loops(Q, K, V, slope):
    T, d = Q.shape
    out = np.zeros((T, V.shape[1]))
    for i in range(T):
        s = np.array([Q[i] @ K[j] / np.sqrt(d) - slope * abs(i - j) for j in range(T)])
        w = np.exp(s - s.max())
        out[i] = (w / w.sum()) @ V
    return out


def wrong_plus(Q, K, V, slope):
    return _rows_softmax(Q @ K.T / np.sqrt(Q.shape[1]) + slope * _dist(len(Q))) @ V


def wrong_bias_scaled_too(Q, K, V, slope):
    return _rows_softmax((Q @ K.T - slope * _dist(len(Q))) / np.sqrt(Q.shape[1])) @ V


def wrong_signed_distance(Q, K, V, slope):
    i = np.arange(len(Q))
    return _rows_softmax(Q @ K.T / np.sqrt(Q.shape[1]) - slope * (i[:, None] - i[None, :])) @ V


def wrong_no_scale(Q, K, V, slope):
    return _rows_softmax(Q @ K.T - slope * _dist(len(Q))) @ V


def wrong_axis(Q, K, V, slope):
    S = Q @ K.T / np.sqrt(Q.shape[1]) - slope * _dist(len(Q))
    E = np.exp(S - S.max(axis=0, keepdims=True))
    return (E / E.sum(axis=0, keepdims=True)) @ V


def wrong_global_max(Q, K, V, slope):
    S = Q @ K.T / np.sqrt(Q.shape[1]) - slope * _dist(len(Q))
    E = np.exp(S - S.max())                    # global max: rows far below it underflow to 0/0
    return (E / E.sum(axis=1, keepdims=True)) @ V


def wrong_bias_after_softmax(Q, K, V, slope):
    A = _rows_softmax(Q @ K.T / np.sqrt(Q.shape[1])) - slope * _dist(len(Q))
    return A @ V


def wrong_ignores_slope(Q, K, V, slope):
    return _rows_softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V


test_accepts_correct_variants, test_rejects_classic_wrong_answers = check_table(
    check_distance_bias_attention, [correct, correct_multiplicative, correct_loops],
    [wrong_plus, wrong_bias_scaled_too, wrong_signed_distance, wrong_no_scale, wrong_axis, wrong_bias_after_softmax,
     wrong_ignores_slope, wrong_global_max], ok_says=["通过"], wrong_says=["提示"])


# ---- checks review (issue 20, a novice's own answers): each classic slip is named, not the generic hint -----
test_review_accepts, test_review_names_the_mistake = check_table(
    check_distance_bias_attention, [lambda Q, K, V, s: correct(Q, K, V, s).astype(np.float32)], {
        "penalty added": (wrong_plus, "惩罚的符号反了"),
        "penalty scaled by sqrt(d_k) too": (wrong_bias_scaled_too, "距离惩罚也被除以了 √d_k"),
        "signed distance": (wrong_signed_distance, "距离要取绝对值"),
        "no scale": (wrong_no_scale, "点积没有除以 √d_k"),
        "penalty after the softmax": (wrong_bias_after_softmax, "惩罚放在了 softmax 之后"),
    })
