"""The left-padded causal mask check of 2.10 passes right answers and fails the classic wrong ones."""

import numpy as np

from helpers import scaled_dot_product_attention
from helpers.checks import check_left_padded_causal_mask
from check_verdicts import check_table, verdict_table


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

def _left_padded(T, n):
    a = np.tril(np.ones((T, T), bool))
    a[:, :n] = False
    a[np.arange(n), np.arange(n)] = True
    return a


REVIEW_MASKING = [
    (check_left_padded_causal_mask, lambda T, n: _left_padded(T, n).astype(int), False),        # 0/1 ints: a bool matrix is asked (issue 20)
    (check_left_padded_causal_mask, lambda T, n: np.where(_left_padded(T, n), 0.0, -np.inf), False),   # additive, not boolean
    (check_left_padded_causal_mask, lambda T, n: _left_padded(T, max(n - 1, 0)), False),               # one pad too few
    (check_left_padded_causal_mask, lambda T, n: _left_padded(T, n)[::-1, ::-1], False),               # right padding
]


test_review_masking_variants = verdict_table(REVIEW_MASKING)


# ---- fresh-eyes review: every plausible wrong mask is named (the check gave one generic hint for all) -------

_, test_left_padded_mistakes_are_named = check_table(check_left_padded_causal_mask, (), {
    "padding rows see nothing": (PAD_WRONG["padding rows see nothing (NaN rows)"], ["整行被屏蔽", "0/0 = NaN"]),
    "padding keys visible": (PAD_WRONG["plain causal, padding keys visible"], "填充的键没有挡住"),
    "padding rows see earlier padding": (lambda T, n: np.where(np.indices((T, T))[0] < n,
                                                              np.tril(np.ones((T, T), dtype=bool)), _left_padded(T, n)),
                                         "它前面的填充"),
    "not causal": (PAD_WRONG["not causal"], "因果那一半漏了"),
    "transposed": (PAD_WRONG["transposed"], "行和列对调了"),
    "right padding": (lambda T, n: np.where(np.indices((T, T))[0] >= T - n, np.eye(T, dtype=bool),
                                            np.tril(np.ones((T, T), dtype=bool)) & (np.arange(T) < T - n)),
                      "填充在左边"),
    "additive": (lambda T, n: np.where(_left_padded(T, n), 0.0, -np.inf), "加性掩码"),
    "inverted": (lambda T, n: ~_left_padded(T, n), "True 和 False 反了"),
})
