"""The self-check machinery: Chinese verdicts, hints, never revealing the answer, never raising."""

import numpy as np
import pytest

from helpers.checks import Case, check_array, check_log_softmax, run_check
from helpers import softmax
from check_verdicts import fails


def log_softmax(x, axis=-1):
    x = np.asarray(x)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def test_pass_fail_and_not_done(capsys):
    assert check_log_softmax(lambda x: log_softmax(x))
    out = capsys.readouterr().out
    assert out.startswith("\u2705") and "全部 8 个隐藏用例通过" in out

    def stub(x):
        raise NotImplementedError

    res = check_log_softmax(stub)
    assert not res and res.n_passed == 0
    out = capsys.readouterr().out
    assert out.startswith("\u23f3") and "尚未完成" in out and "\u274c" not in out


def test_naive_log_softmax_fails_on_far_apart_rows_with_the_max_hint(capsys):
    def naive(x):
        return x - np.log(np.exp(x).sum(axis=-1, keepdims=True))

    res = check_log_softmax(naive)
    out = capsys.readouterr().out
    # exp(-1000) already underflows to 0, so the row far below 0 is the first case to fail (log 0 = -inf)
    assert not res and res.n_passed == 4
    assert "相差很远的两行" in out and "先减每一行的最大值" in out and "不该是 ±inf 的位置给出了 inf" in out


def test_learner_float_warnings_are_silenced(recwarn, capsys):
    # A notebook cell must stay free of stderr output even when the learner's exp overflows.
    check_log_softmax(lambda x: x - np.log(np.exp(x).sum(axis=-1, keepdims=True)))
    capsys.readouterr()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_wrong_axis_fails_with_rowwise_hint(capsys):
    res = check_log_softmax(lambda x: log_softmax(x, axis=0) if np.ndim(x) > 1 else log_softmax(x))
    assert not res
    assert "每一行" in capsys.readouterr().out


def test_message_never_contains_expected_values(capsys):
    expected = np.array([[0.123456, 7.654321], [2.5, 9.75]])
    res = check_array("check_value", np.zeros((2, 2)), expected)
    out = capsys.readouterr().out
    assert not res
    assert "共 4 个元素中有 4 个数值不对" in out
    for v in expected.ravel():
        assert f"{v:g}" not in out and f"{v:.3g}" not in out


def test_exceptions_and_shape_mismatch_are_reported_not_raised(capsys):
    res = run_check("c", lambda x: 1 / 0, [Case("boom", (1,), 1.0, hint="看这里")])
    out = capsys.readouterr().out
    assert not res and "ZeroDivisionError" in out and "提示（hint）：看这里" in out
    res = run_check("c", lambda: np.zeros(3), [Case("shape", (), np.zeros(4))])
    assert not res and "形状（shape）是 (3,)，应为 (4,)" in capsys.readouterr().out
    res = run_check("c", lambda: None, [Case("none", (), 1.0)])
    assert not res and "返回了 None" in capsys.readouterr().out
    res = run_check("c", 42, [Case("x", (), 1.0)])
    assert not res and "需要传入一个函数" in capsys.readouterr().out
    res = run_check("c", lambda: (1.0,), [Case("tuple", (), (1.0, 2.0))])
    assert not res and "元组" in capsys.readouterr().out


def test_in_place_mutation_of_an_input_fails(capsys):
    x = np.array([1.0, 2.0, 3.0])

    def mutates(a):
        a -= a.max()
        return np.exp(a) / np.exp(a).sum()

    res = run_check("c", mutates, [Case("x", (x,), softmax(x))])
    out = capsys.readouterr().out
    assert not res and "原地修改" in out
    assert np.array_equal(x, [1.0, 2.0, 3.0])  # the hidden input itself is untouched
    assert run_check("c", lambda a: softmax(a), [Case("x", (x,), softmax(x))])


def test_per_case_tolerance_overrides_the_check_tolerance(capsys):
    cases = [Case("loose", (), 1.0, atol=0.1), Case("tight", (), 1.0)]
    assert not run_check("c", lambda: 1.05, cases, atol=1e-9, rtol=0.0)
    assert "第 2/2 个用例" in capsys.readouterr().out
    assert run_check("c", lambda: 1.0 + 1e-12, cases, atol=1e-9, rtol=0.0)


def test_nan_where_a_number_is_expected_and_finite_where_inf_is_expected(capsys):
    assert not run_check("c", lambda: np.array([np.nan, 1.0]), [Case("nan", (), np.array([0.5, 1.0]))])
    assert "NaN" in capsys.readouterr().out
    assert not run_check("c", lambda: np.array([-1e9, 0.0]), [Case("inf", (), np.array([-np.inf, 0.0]))], atol=0)
    assert "inf" in capsys.readouterr().out
    assert run_check("c", lambda: np.array([-np.inf, 0.0]), [Case("inf", (), np.array([-np.inf, 0.0]))], atol=0)


def test_wrong_arity_gets_a_chinese_message_not_a_python_type_error(capsys):
    from helpers.checks import check_batched_cross_attention, check_max_context, check_score_for_weight

    for check, fn in [(check_log_softmax, lambda: 1.0), (check_log_softmax, lambda x, y: x),
                      (check_batched_cross_attention, lambda X, W: X),
                      (check_max_context, lambda budget: budget),  # no itemsize, batch, heads
                      (check_score_for_weight, lambda: 0.45)]:                 # takes the target
        res = check(fn)
        out = capsys.readouterr().out
        assert not res and out.startswith("\u274c"), out
        assert "参数个数不对" in out and "TypeError" not in out and "positional argument" not in out, out
        assert "提示（hint）" not in out  # the case's hint is about the maths, not the signature


def test_builtins_without_a_signature_are_still_run(capsys):
    assert not check_log_softmax(np.negative)  # runs (no signature check possible) and is simply wrong
    assert "数值不对" in capsys.readouterr().out


def test_a_learner_who_set_numpy_errors_to_raise_still_gets_a_verdict(capsys):
    # np.seterr(all="raise") in the learner's session used to make the check's own reference
    # computation (an exp that underflows) raise FloatingPointError out of the check.
    from helpers.checks import check_batched_cross_attention, check_grouped_query_attention, check_high_temperature_drift

    old = np.seterr(all="raise")
    try:
        for check, fn in [(check_log_softmax, lambda x: log_softmax(x)), (check_high_temperature_drift, lambda *a: 0.0),
                          (check_batched_cross_attention, lambda *a: 0.0), (check_grouped_query_attention, lambda *a: 0.0)]:
            res = check(fn)
            assert res.message.startswith(("\u2705", "\u274c")), res.message
        assert check_log_softmax(lambda x: log_softmax(x))
        assert np.geterr()["under"] == "raise"  # the learner's setting is left as it was
    finally:
        np.seterr(**old)
    capsys.readouterr()


# ---- checks review (issue 20, a novice's own answers): the hint follows the reason it failed -------------

def test_printing_instead_of_returning_gets_the_return_hint_not_the_case_hint(capsys):
    from helpers.checks import check_cosine_matrix

    def prints(C):
        U = C / np.linalg.norm(C, axis=1, keepdims=True)
        print(U @ U.T)

    out = fails(capsys, check_cosine_matrix(prints))
    assert "return 把结果交回来" in out, out
    assert "对角线上是 1" not in out, out          # the first case's hint is about the maths: not the mistake


def test_a_right_value_of_the_wrong_type_gets_a_type_hint_not_the_case_hint(capsys):
    import math

    from helpers.checks import check_max_context
    out = fails(capsys, check_max_context(lambda budget, itemsize, batch=1, heads=1:
                                          float(math.isqrt(budget // (batch * heads * itemsize)))))
    assert "只差返回值的类型" in out, out
    assert "恰好" not in out.split("提示")[1], out       # the hint is about the type, not the first case's maths


def test_a_float16_answer_is_rejected_and_told_float16_is_why(capsys):
    from helpers.checks import check_batched_scores

    out = fails(capsys, check_log_softmax(lambda x: log_softmax(x).astype(np.float16)))
    assert "float16" in out and "float32 或 float64" in out, out
    out = fails(capsys, check_batched_scores(lambda Q, K: (Q @ np.swapaxes(K, -1, -2)).astype(np.float16)))
    assert "float16" in out, out


# ---- checks review: a function that ignores its arguments (the example's answer hard-coded, a notebook global) ----

@pytest.mark.parametrize("check_name, fn", [
    ("check_batched_scores", lambda Q, K: np.ones((2, 2, 4)) @ np.ones((2, 3, 4)).swapaxes(1, 2)),  # globals, not Q and K
    ("check_cross_attention_shape", lambda x_q, x_kv, w_q, w_k, w_v: (5, 4)),      # an example's answer
    ("check_centered_scores", lambda A: np.zeros((4, 4))),
    ("check_dot_variance", lambda d_k, var_q, var_k: 64),
    ("check_decode_mask", lambda T_new, T_past: np.tril(np.ones((3, 7), dtype=bool), k=4)),
    ("check_capstone", lambda X, W_Q, W_K, W_V, W_O, n_heads, n_prefix: np.zeros((2, 4, 6))),
], ids=["globals", "example answer", "fixed scores", "hard-coded 64", "example mask", "fixed zeros"])
def test_a_function_that_ignores_its_arguments_is_told_so(check_name, fn, capsys):
    import helpers.checks as C
    out = fails(capsys, getattr(C, check_name)(fn))
    assert "写死" in out and "全局变量" in out, out


def test_a_diagnosed_check_keeps_the_ignored_arguments_hint(capsys):
    # run_diagnosed does not replace it with a known wrong answer's hint
    from helpers.checks import check_padded_attention_weights
    out = fails(capsys, check_padded_attention_weights(lambda Q, K, lengths: np.full((4, 4, 4), 0.25)))
    assert "全局变量" in out, out


def test_a_known_wrong_answer_is_named_only_for_the_exception_it_raises(capsys):
    """Two ValueErrors are not the same mistake: the diagnosis compares the exception's text (its shapes), not
    only its type (fresh-eyes review: a missing keepdims was told "bare .T"). The same broadcast error with its
    operands in another order is still the same mistake."""
    from helpers.checks.diagnose import Wrong, run_diagnosed

    def transposed(x):
        return x @ x.T[:1]            # (n, d) @ (1, n): a matmul ValueError

    def flat(x):
        return x - x.sum(axis=1)                               # shapes (n, d) (n,): another broadcast ValueError

    def broadcast(x):
        return x + np.ones((3, x.shape[0]))                    # shapes (n, d) (3, n)

    def broadcast_swapped(x):
        return np.ones((3, x.shape[0])) + x                    # shapes (3, n) (n, d)

    x = np.arange(8.0).reshape(4, 2)
    cases = [Case(f"用例 {k}", (x + k,), x + k, "通用提示") for k in range(3)]
    wrong = [Wrong("矩阵乘法的形状对不上", transposed), Wrong("广播的形状对不上", broadcast)]
    assert not run_diagnosed("demo", flat, cases, wrong=wrong)
    out = capsys.readouterr().out
    assert "形状对不上" not in out and "通用提示" in out, out
    assert not run_diagnosed("demo", broadcast_swapped, cases, wrong=wrong)
    out = capsys.readouterr().out
    assert "广播的形状对不上" in out, out
    assert not run_diagnosed("demo", transposed, cases, wrong=wrong[::-1])
    assert "矩阵乘法的形状对不上" in capsys.readouterr().out


# ---- check_array's own arguments are the notebook author's: a wrong one raises, naming it (review) -----------

@pytest.mark.parametrize("kwargs, exc, arg", [
    (dict(atol="x"), TypeError, "atol"),
    (dict(atol=-1.0), ValueError, "atol"),
    (dict(rtol=None), TypeError, "rtol"),
    (dict(expected=None), TypeError, "expected"),
    (dict(expected="abc"), TypeError, "expected"),
    (dict(name=None), TypeError, "name"),
    (dict(name=""), ValueError, "name"),
    (dict(hint=3), TypeError, "hint"),
], ids=["atol str", "atol negative", "rtol None", "expected None", "expected str", "name None", "name empty", "hint int"])
def test_check_array_refuses_its_own_bad_arguments(kwargs, exc, arg, capsys):
    call = dict(name="check_value", got=np.zeros(3), expected=np.zeros(3)) | kwargs
    with pytest.raises(exc, match=rf"^{arg} must"):
        check_array(call.pop("name"), call.pop("got"), call.pop("expected"), **call)
    assert capsys.readouterr().out == ""          # no verdict blaming the learner


def test_check_array_pass_line_speaks_of_the_one_visible_value(capsys):
    assert check_array("check_value", np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    out = capsys.readouterr().out
    assert out.startswith("\u2705 check_value：") and "数值正确" in out
    assert "隐藏" not in out and "hidden" not in out and "1 cases" not in out and "1/1" not in out
    assert not check_array("check_value", np.array([1.0, 3.0]), np.array([1.0, 2.0]))
    out = capsys.readouterr().out
    assert out.startswith("\u274c check_value：你的数值：") and "隐藏" not in out and "1/1" not in out


def test_a_tuple_of_the_wrong_length_is_told_its_length(capsys):
    # fresh-eyes review: returning (Q, K) for (Q, K, V) was told "应返回 3 个结果组成的元组，你返回的是 tuple"
    res = run_check("c", lambda: (1.0, 2.0), [Case("three", (), (1.0, 2.0, 3.0))])
    out = capsys.readouterr().out
    assert not res and "应返回 3 个结果" in out and "你返回的是 2 个结果组成的 tuple" in out
    res = run_check("c", lambda: [1.0], [Case("two", (), (1.0, 2.0))])
    assert not res and "你返回的是 1 个结果组成的 list" in capsys.readouterr().out
    res = run_check("c", lambda: None, [Case("none", (), (1.0, 2.0))])
    assert not res and "返回了 None" in capsys.readouterr().out
