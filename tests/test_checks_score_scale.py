"""check_score_scale (2.5 transfer): accepts correct variants, rejects the classic wrong answers."""

import math

import numpy as np

from helpers.checks import check_score_scale
from check_verdicts import check_table


OK = [
    lambda d, vq, vk: 1 / math.sqrt(d * vq * vk),
    lambda d, vq, vk: (d * vq * vk) ** -0.5,
    lambda d, vq, vk: 1 / (math.sqrt(d) * math.sqrt(vq) * math.sqrt(vk)),
    lambda d, vq, vk: float(1 / np.sqrt(np.float32(d) * vq * vk)),
]
WRONG = [
    lambda d, vq, vk: 1 / d,                                   # divide by d_k, not sqrt(d_k)
    lambda d, vq, vk: 1 / math.sqrt(d),                        # ignores the variances
    lambda d, vq, vk: 1 / math.sqrt(d * (vq + vk)),            # sum instead of product
    lambda d, vq, vk: 1 / math.sqrt(d * (vq + vk) / 2),        # mean of the variances
    lambda d, vq, vk: 1 / (math.sqrt(d) * vq * vk),            # no square root on the variances
    lambda d, vq, vk: 1 / (d * vq * vk),                       # the variance, not the std
    lambda d, vq, vk: math.sqrt(d * vq * vk),                  # the std itself, not its inverse
    lambda d, vq, vk: 1.04 / math.sqrt(d * vq * vk),           # a constant-factor error
    lambda d, vq, vk: 1.01 / math.sqrt(d * vq * vk),           # ... even a small one
    lambda d, vq, vk: 1 / math.sqrt(d * vq),                   # ignores var_k
    lambda d, vq, vk: 1 / math.sqrt(d * max(vq, vk)),          # the larger variance only
    lambda d, vq, vk: 1 / math.sqrt(d + vq * vk),              # adds the variance product to d_k
    lambda d, vq, vk: None,                                    # forgot return
]
test_accepts_correct_variants, test_rejects_classic_wrong_answers = check_table(check_score_scale, OK, WRONG)


def test_messages_are_chinese_and_never_show_the_answer(capsys):
    check_score_scale(lambda d, vq, vk: 1 / d)
    out = capsys.readouterr().out
    assert any("\u4e00" <= ch <= "\u9fff" for ch in out)
    assert "sqrt(d_k * var_q * var_k)" not in out and "1/√" not in out

    def stub(*args):
        raise NotImplementedError

    assert not check_score_scale(stub)


# ---- checks review (issue 20, a novice's own answers): the slip actually made is named ---------------------
# (before, they all got case 1's "standard deviation or variance?" question, true of only one of them)
test_review_accepts, test_review_names_the_slip = check_table(check_score_scale, [
    lambda d, a, b: (d * a * b) ** -0.5,
    lambda d, a, b: np.float32(1) / np.sqrt(np.float32(d * a * b)),
], {
    "1/sqrt(d_k) whatever the variances": (lambda d, a, b: 1 / math.sqrt(d), "只对单位方差成立"),
    "1 / Var": (lambda d, a, b: 1 / (d * a * b), "乘的是方差的倒数"),
    "the standard deviation": (lambda d, a, b: math.sqrt(d * a * b), "你返回的是标准差本身"),
    "sum of the variances": (lambda d, a, b: 1 / math.sqrt(d * (a + b)), "不是它们的和"),
    # fresh-eyes review (r2): it equals 1/d_k on the one case with var_q * var_k = 4, and was told "divide by d_k"
    "no square root on the variances": (lambda d, a, b: 1 / (math.sqrt(d) * a * b), "var_q·var_k 却没有开"),
})


def test_review_dot_variance_names_the_slip(capsys):
    from check_verdicts import fails
    from helpers.checks import check_dot_variance
    for fn, words in [(lambda d, a, b: d * (a + b), "不是它们的和"), (lambda d, a, b: a * b, "漏了 d_k"),
                      (lambda d, a, b: d * d * a * b, "不是 d_k 的平方"), (lambda d, a, b: math.sqrt(d) * a * b, "不是随 √d_k"),
                      (lambda d, a, b: d * math.sqrt(a * b), "不要再开平方")]:
        out = fails(capsys, check_dot_variance(fn))
        assert words in out, (words, out)
    assert check_dot_variance(lambda d, a, b: sum(a * b for _ in range(int(d))))


# ---- fresh-eyes review of 2.5: the negative root is named (it squares to the same variance, but reverses the
# order of the scores); it used to get case 1's "standard deviation or variance?" question
test_negative_factor_accepts, test_negative_factor_is_named = check_table(check_score_scale, [
    lambda d, a, b: 1 / math.sqrt(d * a * b),
], {
    "c = -1 / sqrt(d_k var_q var_k)": (lambda d, a, b: -1 / math.sqrt(d * a * b), ["取正的那个", "大小顺序反过来"]),
})


def test_negative_factor_is_not_asked_about_the_variance(capsys):
    from check_verdicts import fails
    out = fails(capsys, check_score_scale(lambda d, a, b: -1 / math.sqrt(d * a * b)))
    assert "方差的倒数" not in out, out
