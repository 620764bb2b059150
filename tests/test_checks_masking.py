"""The self-checks of 2.10 pass right answers, fail the classic wrong ones, and never leak the answer."""

import numpy as np

from helpers import scaled_dot_product_attention
from helpers.checks import check_causal_attention, check_left_padded_causal_mask
from helpers import softmax
from check_verdicts import check_table, verdict_table


def good_mask(T):
    return np.triu(np.full((T, T), -np.inf), k=1)


# ---- causal attention -----------------------------------------------------------------------

def _sm(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _future(T, k=1):
    return np.triu(np.ones((T, T), dtype=bool), k=k)


def _scores(Q, K, scale=None):
    return Q @ K.T / (np.sqrt(Q.shape[1]) if scale is None else scale)


def causal_attention(Q, K, V):
    return softmax(_scores(Q, K) + good_mask(Q.shape[0])) @ V


ATTN_OK = [
    causal_attention,
    lambda Q, K, V: _sm(np.where(_future(len(Q)), -1e9, _scores(Q, K))) @ V,       # large negative fill
    lambda Q, K, V: np.stack([_sm(_scores(Q[i:i + 1], K[:i + 1]))[0] @ V[:i + 1] for i in range(len(Q))]),
    lambda Q, K, V: scaled_dot_product_attention(Q, K, V, mask=~_future(len(Q))).output,
]


def _after(Q, K, V, renormalise):
    A = np.where(_future(len(Q)), 0.0, _sm(_scores(Q, K)))
    return (A / A.sum(axis=-1, keepdims=True) if renormalise else A) @ V


def _global_max(Q, K, V):
    S = np.where(_future(len(Q)), -np.inf, _scores(Q, K))
    e = np.exp(S - S.max())
    return e / e.sum(axis=-1, keepdims=True) @ V


def _no_max(Q, K, V):
    e = np.exp(np.where(_future(len(Q)), -np.inf, _scores(Q, K)))
    return e / e.sum(axis=-1, keepdims=True) @ V


ATTN_WRONG = {
    "no mask": lambda Q, K, V: _sm(_scores(Q, K)) @ V,
    "no scale": lambda Q, K, V: _sm(_scores(Q, K, 1.0) + good_mask(len(Q))) @ V,
    "/ d_k": lambda Q, K, V: _sm(_scores(Q, K, Q.shape[1]) + good_mask(len(Q))) @ V,
    "d_k from V": lambda Q, K, V: _sm(_scores(Q, K, np.sqrt(V.shape[1])) + good_mask(len(Q))) @ V,
    "mask the wrong way round": lambda Q, K, V: _sm(_scores(Q, K) + good_mask(len(Q)).T) @ V,
    "off by one: diagonal masked (-inf)": lambda Q, K, V: _sm(np.where(_future(len(Q), 0), -np.inf, _scores(Q, K))) @ V,
    "off by one: diagonal masked (-1e9)": lambda Q, K, V: _sm(np.where(_future(len(Q), 0), -1e9, _scores(Q, K))) @ V,
    "off by one: one future key visible": lambda Q, K, V: _sm(np.where(_future(len(Q), 2), -np.inf, _scores(Q, K))) @ V,
    "mask after softmax": lambda Q, K, V: _after(Q, K, V, renormalise=False),
    "mask after softmax, renormalised": lambda Q, K, V: _after(Q, K, V, renormalise=True),
    "global max": _global_max,
    "no max subtraction": _no_max,
    "softmax down the columns": lambda Q, K, V: _sm(_scores(Q, K) + good_mask(len(Q)), axis=0) @ V,
    "K @ Q.T": lambda Q, K, V: _sm((K @ Q.T) / np.sqrt(Q.shape[1]) + good_mask(len(Q))) @ V,
    "1.04 x": lambda Q, K, V: 1.04 * causal_attention(Q, K, V),
}


test_attention_check_passes_independent_implementations, test_attention_check_rejects = check_table(
    check_causal_attention, ATTN_OK, ATTN_WRONG, wrong_says=["提示（hint）"])


def test_mask_after_softmax_gets_the_order_hint(capsys):
    check_causal_attention(ATTN_WRONG["mask after softmax, renormalised"])
    assert "softmax 之前" in capsys.readouterr().out


def test_checks_never_print_the_expected_values(capsys):
    check_causal_attention(lambda Q, K, V: np.zeros((Q.shape[0], V.shape[1])))
    out = capsys.readouterr().out
    assert out.count("\u274c") == 1
    assert "-inf," not in out and "array(" not in out and "[[" not in out


# ---- left-padded causal mask ----------------------------------------------------------------

def left_padded(T, n_pad):
    i, j = np.indices((T, T))
    return np.where(i < n_pad, i == j, (j <= i) & (j >= n_pad))


def left_padded_loop(T, n_pad):
    return [[(i == j) if i < n_pad else (n_pad <= j <= i) for j in range(T)] for i in range(T)]


def test_left_padded_check_passes_and_the_mask_reproduces_the_unpadded_outputs(capsys):
    assert check_left_padded_causal_mask(left_padded)
    assert check_left_padded_causal_mask(left_padded_loop)
    # What the mask is for: the real tokens' outputs equal those of the sequence without padding.
    rng = np.random.default_rng(7)
    real = rng.normal(size=(4, 3))
    padded = np.vstack([rng.normal(size=(2, 3)), real])
    out = scaled_dot_product_attention(padded, padded, padded, mask=left_padded(6, 2)).output
    ref = scaled_dot_product_attention(real, real, real, mask=np.tril(np.ones((4, 4), dtype=bool))).output
    assert np.allclose(out[2:], ref)


PAD_WRONG = {
    "padding rows see nothing (NaN rows)": lambda T, n: (np.indices((T, T))[1] <= np.indices((T, T))[0])
    & (np.indices((T, T))[1] >= n),
    "plain causal, padding keys visible": lambda T, n: np.tril(np.ones((T, T), dtype=bool)),
    "off by one: n_pad < j": lambda T, n: np.where(np.indices((T, T))[0] < n, np.eye(T, dtype=bool),
                                                   (np.indices((T, T))[1] <= np.indices((T, T))[0])
                                                   & (np.indices((T, T))[1] > n)),
    "not causal": lambda T, n: np.where(np.indices((T, T))[0] < n, np.eye(T, dtype=bool), np.indices((T, T))[1] >= n),
    "transposed": lambda T, n: left_padded(T, n).T,
}


_, test_left_padded_check_rejects = check_table(check_left_padded_causal_mask, (), PAD_WRONG,
                                                wrong_says=["提示（hint）"])


def test_left_padded_hint_names_the_nan_row(capsys):
    check_left_padded_causal_mask(PAD_WRONG["padding rows see nothing (NaN rows)"])
    assert "0/0 = NaN" in capsys.readouterr().out


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

def _review_causal(Q, K, V, fill=-np.inf, scale=None):
    T = Q.shape[0]
    S = Q @ K.T / np.sqrt(K.shape[1] if scale is None else scale)
    S = np.where(np.tril(np.ones((T, T), bool)), S, fill)
    return softmax(S, axis=-1) @ V


def _left_padded(T, n):
    a = np.tril(np.ones((T, T), bool))
    a[:, :n] = False
    a[np.arange(n), np.arange(n)] = True
    return a


REVIEW_MASKING = [
    (check_causal_attention, lambda Q, K, V: _review_causal(Q, K, V, fill=np.finfo(float).min), True),
    (check_causal_attention, lambda Q, K, V: _review_causal(Q, K, V, scale=Q.shape[0]), False),   # sqrt(T)
    (check_causal_attention, lambda Q, K, V: softmax(Q @ K.T / np.sqrt(K.shape[1])
                                                     + np.tril(np.ones((len(Q), len(Q)))), axis=-1) @ V, False),  # 0/1 mask added
    (check_causal_attention, lambda Q, K, V: np.cumsum(V, 0) / np.arange(1, len(V) + 1)[:, None], False),  # ignores scores
    (check_left_padded_causal_mask, lambda T, n: _left_padded(T, n).astype(int), False),        # 0/1 ints: a bool matrix is asked (issue 20)
    (check_left_padded_causal_mask, lambda T, n: np.where(_left_padded(T, n), 0.0, -np.inf), False),   # additive, not boolean
    (check_left_padded_causal_mask, lambda T, n: _left_padded(T, max(n - 1, 0)), False),               # one pad too few
    (check_left_padded_causal_mask, lambda T, n: _left_padded(T, n)[::-1, ::-1], False),               # right padding
]


test_review_masking_variants = verdict_table(REVIEW_MASKING)
