"""The 2.7 transfer check: attention with a key-padding mask."""

import numpy as np

from helpers.checks import check_key_padding_attention
from check_verdicts import check_table


def _softmax(S):
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _padded(Q, K, V, valid):
    S = np.where(valid[None, :], Q @ K.T / np.sqrt(K.shape[1]), -np.inf)
    return _softmax(S) @ V


def _without_padding(Q, K, V, v):
    return _softmax(Q @ K[v].T / np.sqrt(K.shape[1])) @ V[v]


def big_negative(Q, K, V, valid):                # a finite -1e9 is fine while some key is valid
    S = Q @ K.T / np.sqrt(K.shape[1]) + np.where(valid, 0.0, -1e9)
    return _softmax(S) @ V


def ignore_mask(Q, K, V, valid):
    return _softmax(Q @ K.T / np.sqrt(K.shape[1])) @ V


def mask_after_softmax(Q, K, V, valid):
    return (_softmax(Q @ K.T / np.sqrt(K.shape[1])) * valid) @ V


def mask_on_queries(Q, K, V, valid):
    S = Q @ K.T / np.sqrt(K.shape[1])
    A = _softmax(S)
    return A @ V * valid[: len(Q), None] if len(Q) == len(valid) else A @ V


def mask_after_softmax_renormalised(Q, K, V, valid):   # exact in real numbers, not in floats
    with np.errstate(invalid="ignore"):
        A = _softmax(Q @ K.T / np.sqrt(K.shape[1])) * valid
        return A / A.sum(axis=-1, keepdims=True) @ V


def additive_01(Q, K, V, valid):                 # a float 0/1 mask *added* to the scores
    return _softmax(Q @ K.T / np.sqrt(K.shape[1]) + valid.astype(float)) @ V


def off_by_one(Q, K, V, valid):
    return _padded(Q, K, V, np.roll(valid, 1))


def no_scale(Q, K, V, valid):
    return _softmax(np.where(valid, Q @ K.T, -np.inf)) @ V


def scale_by_d_v(Q, K, V, valid):
    return _softmax(np.where(valid, Q @ K.T / np.sqrt(V.shape[1]), -np.inf)) @ V


OK = [_padded, _without_padding, big_negative]
WRONG = [ignore_mask, mask_after_softmax, mask_after_softmax_renormalised, mask_on_queries, additive_01, off_by_one,
         no_scale, scale_by_d_v]
test_correct_variants_pass, test_wrong_answers_fail = check_table(check_key_padding_attention, OK, WRONG)


def test_wrong_answers_talk_about_padding(capsys):
    for fn in WRONG:
        check_key_padding_attention(fn)
    assert "填充" in capsys.readouterr().out
