"""The self-checks of 2.10 pass right answers, fail the classic wrong ones, and never leak the answer."""

import numpy as np

from helpers import scaled_dot_product_attention
from helpers.checks.masking import check_causal_attention, check_left_padded_causal_mask, check_make_causal_mask
from helpers.softmax import softmax


def good_mask(T):
    return np.triu(np.full((T, T), -np.inf), k=1)


def test_mask_check_passes_a_correct_mask(capsys):
    assert check_make_causal_mask(good_mask)
    assert "all 3 hidden cases pass" in capsys.readouterr().out


def test_mask_check_rejects_classic_mistakes(capsys):
    wrong = {
        "anti-causal": lambda T: good_mask(T).T,
        "large negative instead of -inf": lambda T: np.triu(np.full((T, T), -1e9), k=1),
        "diagonal masked too": lambda T: np.triu(np.full((T, T), -np.inf), k=0),
        "boolean mask": lambda T: np.tril(np.ones((T, T), dtype=bool)),
        "wrong shape": lambda T: good_mask(T + 1),
    }
    for name, fn in wrong.items():
        assert not check_make_causal_mask(fn), name
    out = capsys.readouterr().out
    assert "shape (5, 5), expected shape (4, 4)" in out or "expected shape" in out


def test_mask_check_reports_not_done_and_keeps_running(capsys):
    def stub(T):
        raise NotImplementedError

    assert not check_make_causal_mask(stub)
    assert "not done yet" in capsys.readouterr().out


def causal_attention(Q, K, V):
    T, d_k = Q.shape
    S = Q @ K.T / np.sqrt(d_k) + good_mask(T)
    return softmax(S) @ V


def test_attention_check_passes_an_independent_implementation(capsys):
    assert check_causal_attention(causal_attention)
    assert "all 4 hidden cases pass" in capsys.readouterr().out


def test_attention_check_rejects_classic_mistakes(capsys):
    def no_mask(Q, K, V):
        return softmax(Q @ K.T / np.sqrt(Q.shape[1])) @ V

    def no_scale(Q, K, V):
        return softmax(Q @ K.T + good_mask(Q.shape[0])) @ V

    def upper(Q, K, V):
        return softmax(Q @ K.T / np.sqrt(Q.shape[1]) + good_mask(Q.shape[0]).T) @ V

    def naive_exp(Q, K, V):
        with np.errstate(all="ignore"):
            e = np.exp(Q @ K.T / np.sqrt(Q.shape[1]) + good_mask(Q.shape[0]))
            return (e / e.sum(axis=1, keepdims=True)) @ V

    def column_softmax(Q, K, V):
        return softmax(Q @ K.T / np.sqrt(Q.shape[1]) + good_mask(Q.shape[0]), axis=0) @ V

    for fn in (no_mask, no_scale, upper, naive_exp, column_softmax):
        assert not check_causal_attention(fn), fn.__name__
    out = capsys.readouterr().out
    assert "huge scores" in out  # the naive exp fails on the overflow case
    assert "sqrt(d_k)" in out    # the unscaled one gets the scaling hint


def test_checks_never_print_the_expected_values(capsys):
    check_make_causal_mask(lambda T: np.zeros((T, T)))
    check_causal_attention(lambda Q, K, V: np.zeros((Q.shape[0], V.shape[1])))
    out = capsys.readouterr().out
    assert "-inf," not in out and "array(" not in out and "[[" not in out


def left_padded(T, n_pad):
    i, j = np.indices((T, T))
    return np.where(i < n_pad, i == j, (j <= i) & (j >= n_pad))


def test_left_padded_check_passes_and_the_mask_reproduces_the_unpadded_outputs(capsys):
    assert check_left_padded_causal_mask(left_padded)
    assert "all 4 hidden cases pass" in capsys.readouterr().out
    # What the mask is for: the real tokens' outputs equal those of the sequence without padding.
    rng = np.random.default_rng(7)
    real = rng.normal(size=(4, 3))
    padded = np.vstack([rng.normal(size=(2, 3)), real])
    out = scaled_dot_product_attention(padded, padded, padded, mask=left_padded(6, 2)).output
    ref = scaled_dot_product_attention(real, real, real, mask=np.tril(np.ones((4, 4), dtype=bool))).output
    assert np.allclose(out[2:], ref)


def test_left_padded_check_rejects_classic_mistakes(capsys):
    def dead_rows(T, n_pad):  # padding queries see nothing -> NaN rows
        i, j = np.indices((T, T))
        return (j <= i) & (j >= n_pad)

    def sees_padding(T, n_pad):  # plain causal mask, padding keys visible
        return np.tril(np.ones((T, T), dtype=bool))

    assert not check_left_padded_causal_mask(dead_rows)
    assert not check_left_padded_causal_mask(sees_padding)
    out = capsys.readouterr().out
    assert "0/0 = NaN" in out and "n_pad <= j <= i" in out
