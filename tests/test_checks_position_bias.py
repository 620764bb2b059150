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
