"""2.10's exercise that replaced the re-typed causal mask (issue 20): the mask of one decoding step with a
key cache, (T_new, T_past + T_new) booleans. Correct variants it must accept, the classic wrong answers (the
top-left aligned triangle first of all) with the words of the hint that must name each mistake."""

import numpy as np
from check_verdicts import check_table

from helpers.checks import check_decode_mask


def decode_tril(T_new, T_past):
    return np.tril(np.ones((T_new, T_past + T_new), dtype=bool), k=T_past)


def decode_indices(T_new, T_past):
    i, j = np.indices((T_new, T_past + T_new))
    return j <= i + T_past


def decode_slice_of_full(T_new, T_past):
    T = T_past + T_new
    return np.tril(np.ones((T, T), dtype=bool))[T_past:]


def decode_loops(T_new, T_past):
    return np.array([[j <= T_past + i for j in range(T_past + T_new)] for i in range(T_new)])


test_decode_mask_accepts, test_decode_mask_rejects = check_table(
    check_decode_mask,
    [decode_tril, decode_indices, decode_slice_of_full, decode_loops],
    {"top-left triangle": (lambda n, p: np.tril(np.ones((n, p + n), dtype=bool)), "左上角"),
     "diagonal hidden": (lambda n, p: np.tril(np.ones((n, p + n), dtype=bool), k=p - 1), "对角线"),
     "one future key": (lambda n, p: np.tril(np.ones((n, p + n), dtype=bool), k=p + 1), "多看了一个"),
     "no causality among new": (lambda n, p: np.ones((n, p + n), dtype=bool), "彼此之间"),
     "additive mask": (lambda n, p: np.where(decode_tril(n, p), 0.0, -np.inf), "加性掩码"),
     "inverted": (lambda n, p: ~decode_tril(n, p), "反了"),
     "new keys only": (lambda n, p: np.tril(np.ones((n, n), dtype=bool)), "T_past + T_new"),
     "0/1 ints": (lambda n, p: decode_tril(n, p).astype(int), "布尔"),
     "raises": (lambda n, p: np.tril(np.ones(n, p)), "异常")})


# ---- checks review (issue 20, a novice's own answers): two more slips named (were the generic hint) --------
test_decode_mask_review_accepts, test_decode_mask_review_names_the_mistake = check_table(
    check_decode_mask, [lambda n, p: [[j <= p + i for j in range(p + n)] for i in range(n)]], {
        "cache hidden": (lambda n, p: np.hstack([np.zeros((n, p), dtype=bool), np.tril(np.ones((n, n), dtype=bool))]),
                         "缓存里的键被挡住了"),
        "upper triangle": (lambda n, p: np.triu(np.ones((n, p + n), dtype=bool), k=p), "三角形朝向反了"),
    })
