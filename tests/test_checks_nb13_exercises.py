"""2.13's exercises (issue 30): the share of attention every head gives to the previous token, on (L, H, T, T)
tensors, and the mean attention distance of a head that attends uniformly (the chance baseline for the real
heads). Correct variants (loops, diagonals, closed forms, float32) pass; the classic wrong answers are named.
Expected values are computed here by plain loops, never by the check's own reference."""

import numpy as np
from check_verdicts import check_table

import helpers
from helpers.checks import check_previous_token_share, check_uniform_distance


def previous_diagonal(attn):
    return np.diagonal(np.asarray(attn), offset=-1, axis1=-2, axis2=-1).mean(axis=-1)


def previous_loops(attn):
    L, H, T, _ = np.shape(attn)
    return [[sum(attn[l, h, i, i - 1] for i in range(1, T)) / (T - 1) for h in range(H)] for l in range(L)]


def previous_fancy_index(attn):
    A = np.asarray(attn)
    i = np.arange(1, A.shape[-1])
    return A[..., i, i - 1].mean(axis=-1)


def previous_mask(attn):
    A = np.asarray(attn, dtype=np.float32)
    T = A.shape[-1]
    below = np.eye(T, k=-1, dtype=bool)
    return (A * below).sum(axis=(-1, -2)) / (T - 1)


test_previous_token_accepts, test_previous_token_rejects = check_table(
    check_previous_token_share, [previous_diagonal, previous_loops, previous_fancy_index, previous_mask], {
        "the next token": (lambda A: np.diagonal(A, 1, -2, -1).mean(-1), "后一个 token"),
        "itself (the diagonal)": (lambda A: np.diagonal(A, 0, -2, -1).mean(-1), "分给自己"),
        "divided by T": (lambda A: np.diagonal(A, -1, -2, -1).sum(-1) / A.shape[-1], "T − 1 个查询"),
        "the first token wraps round": (lambda A: np.stack([A[..., i, i - 1] for i in range(A.shape[-1])], -1).mean(-1),
                                        "绕回去"),
        "sum over queries": (lambda A: np.diagonal(A, -1, -2, -1).sum(-1), "不是它们的和"),
        "1.04x": lambda A: 1.04 * previous_diagonal(A),
        "a string": (lambda A: "previous", "字符串"),
    })


def test_a_perfect_previous_token_head_scores_one():
    # the property the task describes, on a tensor built here: head 1 always looks one token back, head 2 never
    A = np.zeros((1, 2, 6, 6))
    A[0, 0, np.arange(6), np.maximum(np.arange(6) - 1, 0)] = 1.0
    A[0, 1] = np.eye(6)
    assert np.allclose(previous_diagonal(A), [[1.0, 0.0]])
    assert check_previous_token_share(previous_diagonal)


def uniform_loops(T):
    return sum(abs(i - j) for i in range(T) for j in range(T)) / T / T


def uniform_closed_form(T):
    return (T * T - 1) / (3 * T)


def uniform_from_a_matrix(T):
    A = np.full((T, T), 1.0 / T)
    d = np.abs(np.subtract.outer(np.arange(T), np.arange(T)))
    return np.float32((A * d).sum(axis=1).mean())


def uniform_per_query(T):
    return float(np.mean([np.mean([abs(i - j) for j in range(T)]) for i in range(T)]))


test_uniform_accepts, test_uniform_rejects = check_table(
    check_uniform_distance, [uniform_loops, uniform_closed_form, uniform_from_a_matrix, uniform_per_query], {
        "one query only": (lambda T: (T - 1) / 2, "第 1 个（或最后一个）查询"),
        "itself left out": (lambda T: (T + 1) / 3, "分给了自己"),
        "T/3": (lambda T: T / 3, "近似"),
        "summed over queries": (lambda T: (T * T - 1) / 3, "不是求和"),
        "integer division": (lambda T: (T * T - 1) // (3 * T), "整数除法"),
        "half the sentence": (lambda T: T / 2, "一半远"),
        "None": (lambda T: None, "return"),
    })


def test_uniform_distance_refuses_the_helper_the_page_calls():
    # the cell below the exercise measures the model's heads with H.real_model.attention_distance; handing it a
    # uniform matrix gives the right number without computing anything, which the task rules out
    def via_helper(T):
        return float(helpers.real_model.attention_distance(np.full((T, T), 1.0 / T)))

    assert np.isclose(via_helper(3), 8 / 9)              # the right value, so only the rule can refuse it
    res = check_uniform_distance(via_helper)
    assert not res and "要求你自己按定义算出这个距离" in res.message and "helpers" in res.message


def test_the_uniform_value_for_small_t_by_hand():
    # T = 2: each query is 0 from itself and 1 from the other, weight 1/2 each -> 0.5; T = 3: (1 + 2/3 + 1) / 3 = 8/9
    assert uniform_loops(2) == 0.5 and np.isclose(uniform_loops(3), 8 / 9)
    assert np.isclose(uniform_closed_form(3), 8 / 9)
