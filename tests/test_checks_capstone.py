"""The capstone self-checks (2.12): batched multi-head attention with a prefix-LM mask from scratch, and the learner's own test.

Part 1: a correct numpy-only solution passes; the classic mistakes fail with the right (Chinese) hint;
any route into ``helpers`` is refused. Part 2: a good learner test is accepted; a weak one (shapes only,
causality only, ...) is reported as not good enough; a test that rejects the correct implementation fails.
"""

import functools
import types

import numpy as np
import pytest

import helpers as H
from helpers.checks import check_attention_test, check_capstone
from check_verdicts import check_table
from helpers.checks.nb12_capstone import _cases, _diagnose, _reference, helpers_references
from helpers.checks.nb12_capstone_test import _make_impl, _weights
from helpers import multi_head_self_attention


# ---- part 1: solutions ------------------------------------------------------------------------

def _softmax(S, axis=-1):
    e = np.exp(S - S.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _blocked(T, n_prefix, k=1, prefix="right"):
    """(T, T) bool, True where query i must not see key j: after it (k=1; k=0 also hides the diagonal) and
    outside the prefix (the first n_prefix tokens, which every query sees). Written here, not taken from the check."""
    i, j = np.indices((T, T))
    P = {"right": n_prefix, "ignored": 0, "one more": n_prefix + 1}.get(prefix, n_prefix)
    in_prefix = (j < P) | ((i < P) if prefix == "sees all" else False)
    return (j - i >= k) & ~in_prefix


def _mha(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix, *, scale="head", axis=-1, k=1, fill=-np.inf, after=False,
         split="right", transpose="swap", stable=True, project=True, prefix="right"):
    B, T, _ = X.shape

    def heads(Y):
        d = Y.shape[-1] // n_heads
        if split == "right":
            return Y.reshape(B, T, n_heads, d).transpose(0, 2, 1, 3)
        return Y.reshape(B, n_heads, T, d)

    Q, K, V = heads(X @ W_Q), heads(X @ W_K), heads(X @ W_V)
    d_k = Q.shape[-1]
    Kt = np.swapaxes(K, -1, -2) if transpose == "swap" else K.T
    S = Q @ Kt / {"head": np.sqrt(d_k), "total": np.sqrt(n_heads * d_k), "none": 1.0, "d_k": d_k}[scale]
    future = _blocked(T, n_prefix, k, prefix) if k is not None else np.zeros((T, T), bool)
    with np.errstate(all="ignore"):
        if after == "renormalise":
            A = np.where(future, 0.0, _softmax(S, axis))
            A = A / A.sum(axis=axis, keepdims=True)
        elif after:
            A = np.where(future, 0.0, _softmax(S, axis))
        elif stable:
            A = _softmax(np.where(future, fill, S), axis)
        else:
            e = np.exp(np.where(future, fill, S))
            A = e / e.sum(axis=axis, keepdims=True)
        out = A @ V
    if split in ("right", "split only"):                 # "split only": heads reshaped wrongly, moved back right
        out = out.transpose(0, 2, 1, 3)
    return out.reshape(B, T, -1) @ W_O if project else out.reshape(B, T, -1)


def good(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    """An independent correct solution: numpy only."""
    return _mha(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix)


def good_loop(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    """Another correct variant: loop over heads, mask with a large negative number, no batch reshape."""
    d_k, d_v = W_Q.shape[1] // n_heads, W_V.shape[1] // n_heads
    T = X.shape[-2]
    penalty = np.triu(np.full((T, T), -1e30), k=1)
    penalty[:, :n_prefix] = 0.0                                  # every query sees the whole prefix
    outs = []
    for h in range(n_heads):
        q, k, v = X @ W_Q[:, h * d_k:(h + 1) * d_k], X @ W_K[:, h * d_k:(h + 1) * d_k], X @ W_V[:, h * d_v:(h + 1) * d_v]
        s = np.einsum("bid,bjd->bij", q, k) / np.sqrt(d_k) + penalty
        outs.append(_softmax(s) @ v)
    return np.concatenate(outs, axis=-1) @ W_O


def test_reference_equals_helpers_multi_head():
    # no prefix (or a prefix of one token): the helpers' causal multi-head attention; the whole sequence: bidirectional;
    # any prefix: the helpers' attention per head with the mask written out here
    for case in _cases():
        X, W_Q, W_K, W_V, W_O, h, P = case.args
        T = X.shape[1]
        if P <= 1 or P == T:
            ref = multi_head_self_attention(X, W_Q, W_K, W_V, W_O, n_heads=h, causal=P < T).output
            assert np.allclose(case.expected, ref, rtol=1e-9, atol=1e-9), case.label
        split = lambda Y: Y.reshape(*Y.shape[:-1], h, -1).swapaxes(-2, -3)            # (B, h, T, d)
        out = H.scaled_dot_product_attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V),
                                             mask=~_blocked(T, P)).output
        ref = out.swapaxes(-2, -3).reshape(X.shape[0], T, -1) @ W_O
        assert np.allclose(case.expected, ref, rtol=1e-9, atol=1e-9), case.label


def test_the_hidden_cases_cover_the_promised_situations():
    cases = _cases()
    assert cases[0].args[0].shape[:2] == (1, 1), "first case: one sequence, one token"
    assert all(c.args[0].ndim == 3 for c in cases), "every case is batched (B, T, d_model)"
    assert any(c.args[0].shape[0] >= 3 for c in cases)
    assert {c.args[5] for c in cases} >= {1, 2, 3, 4}, "one head and several heads"
    prefixes = [(c.args[6], c.args[0].shape[1]) for c in cases]
    assert (0, 5) in prefixes and any(P == T for P, T in prefixes) and any(1 < P < T for P, T in prefixes), \
        "no prefix, the whole sequence, and a prefix in between"
    assert any(c.args[1].shape[1] // c.args[5] != c.args[3].shape[1] // c.args[5] for c in cases), "d_v != d_k"
    assert any(c.args[4].shape[1] != c.args[0].shape[-1] for c in cases), "d_out != d_model"
    huge = next(c for c in cases if "上溢" in c.label)
    X, W_Q, W_K, _, _, h, _ = huge.args
    S = (X @ W_Q[:, :3]) @ np.swapaxes(X @ W_K[:, :3], -1, -2) / np.sqrt(3)
    assert np.abs(S).max() > 710, "the large case must really overflow np.exp"


WRONG = {
    "no scaling": (functools.partial(_mha, scale="none"), ["平方根"]),
    "scale by total width": (functools.partial(_mha, scale="total"), ["总宽度"]),
    "softmax down the columns": (functools.partial(_mha, axis=-2), ["沿列", "最后一个轴"]),
    "mask after softmax": (functools.partial(_mha, after=True), ["softmax 之后", "之前"]),
    "off by one (-inf)": (functools.partial(_mha, k=0), ["看见自己"]),
    "off by one (-1e9)": (functools.partial(_mha, k=0, fill=-1e9), ["对角线", "看见自己"]),
    "no mask": (functools.partial(_mha, k=None), ["未来"]),
    "the prefix ignored (plain causal)": (functools.partial(_mha, prefix="ignored"), ["没有前缀"]),
    "the prefix sees the whole sequence": (functools.partial(_mha, prefix="sees all"), ["看见了整个序列"]),
    "a prefix one token too long": (functools.partial(_mha, prefix="one more"), ["多算了一个词"]),
    "wrong head split": (functools.partial(_mha, split="wrong"), ["(B, T, h, d)"]),
    "divided by d_k, not its root": (functools.partial(_mha, scale="d_k"), ["d_k 本身", "平方根"]),   # fresh-eyes review
    "no output projection": (functools.partial(_mha, project=False), ["W_O"]),                      # fresh-eyes review
    "wrong head split, merged with the transpose": (functools.partial(_mha, split="split only"),   # fresh-eyes review
                                                    ["切头时", "(B, T, h, d)"]),
    "naive exp": (functools.partial(_mha, stable=False), ["最大值"]),
    "softmax, zero the future, renormalise": (functools.partial(_mha, after="renormalise"),
                                              ["未来的键根本不该参加 softmax", "0/0"]),
    "K.T on a batch": (functools.partial(_mha, transpose="T"), ["最后两个轴"]),
}


test_correct_solutions_pass, test_classic_mistakes_fail_with_a_chinese_hint = check_table(
    check_capstone, [good, good_loop], WRONG, min_cases=6)


def test_diagnoses_are_distinct():
    assert _diagnose(good) is None and _diagnose(good_loop) is None
    kinds = ["no scaling", "scale by total width", "softmax down the columns", "mask after softmax",
             "off by one (-inf)", "no mask", "wrong head split", "the prefix ignored (plain causal)",
             "the prefix sees the whole sequence", "a prefix one token too long"]
    names = {_diagnose(WRONG[k][0]) for k in kinds}
    assert None not in names and len(names) == len(kinds)


def test_not_done_yet_and_not_a_function(capsys):
    def stub(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
        raise NotImplementedError

    r = check_capstone(stub)
    assert not r and r.n_passed == 0
    assert "NotImplementedError" in capsys.readouterr().out
    assert not check_capstone(good(*_cases()[1].args))


def test_never_prints_expected_values(capsys):
    check_capstone(lambda X, W_Q, W_K, W_V, W_O, n_heads, n_prefix: np.zeros((*X.shape[:-1], W_O.shape[1])))
    check_capstone(WRONG["no scaling"][0])
    out = capsys.readouterr().out
    assert "[[" not in out and "array(" not in out
    for case in _cases():
        for v in np.ravel(case.expected)[:5]:
            assert f"{v:.3f}" not in out


# ---- part 1: numpy only --------------------------------------------------------------------------

def uses_H(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    return multi_head_self_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=True).output


def uses_H_softmax(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    B, T, _ = X.shape
    d = W_Q.shape[1] // n_heads
    sp = lambda Y: Y.reshape(B, T, n_heads, -1).transpose(0, 2, 1, 3)
    Q, K, V = sp(X @ W_Q), sp(X @ W_K), sp(X @ W_V)
    A = H.softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(d) + H.causal_mask(T))
    return (A @ V).transpose(0, 2, 1, 3).reshape(B, T, -1) @ W_O


softmax_from_helpers = H.softmax


def my_softmax(S):            # the learner's own function... which delegates to helpers
    return softmax_from_helpers(S)


def uses_own_wrapper(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    B, T, _ = X.shape
    d = W_Q.shape[1] // n_heads
    sp = lambda Y: Y.reshape(B, T, n_heads, -1).transpose(0, 2, 1, 3)
    Q, K, V = sp(X @ W_Q), sp(X @ W_K), sp(X @ W_V)
    S = np.where(_blocked(T, n_prefix), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(d))
    return (my_softmax(S) @ V).transpose(0, 2, 1, 3).reshape(B, T, -1) @ W_O


def _closure_version():
    sm = H.softmax

    def fn(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
        return good(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix) + 0 * sm(np.zeros(2))[0]
    return fn


def uses_default(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix, sm=H.softmax):
    return good(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix) + 0 * sm(np.zeros(2))[0]


def uses_import(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    import helpers  # noqa: F401
    return good(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix)


def uses_dunder_import(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    return __import__("helpers").heads.multi_head_self_attention(X, W_Q, W_K, W_V, W_O, n_heads, causal=True).output


TOOLBOX = {"mha": multi_head_self_attention}


def uses_a_dict(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    return TOOLBOX["mha"](X, W_Q, W_K, W_V, W_O, n_heads, causal=True).output


HIDDEN = types.SimpleNamespace(lib=H)


def uses_a_namespace(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    """Invisible to the static scan (an attribute of a plain object); the tripwire sees the call."""
    return HIDDEN.lib.self_attention(X[..., :1, :], W_Q, W_K, W_V).output.sum() * 0 + good(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix)


@pytest.mark.parametrize("fn", [uses_H, uses_H_softmax, uses_own_wrapper, _closure_version(), uses_default, uses_import,
                                uses_dunder_import, uses_a_dict, uses_a_namespace],
                         ids=lambda f: getattr(f, "__name__", "fn"))
def test_a_function_that_uses_helpers_is_refused(capsys, fn):
    result = check_capstone(fn)
    out = capsys.readouterr().out
    assert not result
    assert "helpers" in out and "numpy" in out, out
    assert "\u2705" not in out


def test_static_scan_is_silent_on_numpy_only_code():
    assert helpers_references(good) == [] and helpers_references(good_loop) == []
    assert helpers_references(uses_a_namespace) == []          # ... which is why there is also a tripwire


def test_tripwire_restores_helpers():
    before = H.softmax, H.self_attention
    check_capstone(uses_a_namespace)
    assert (H.softmax, H.self_attention) == before
    assert np.allclose(H.softmax(np.zeros(2)), 0.5)


# ---- part 2: the learner's test ---------------------------------------------------------------

def _rand(T=6, d=4, seed=0):
    return np.random.default_rng(seed).normal(size=(T, d))


def learner_shapes_only(attn_fn):
    X = _rand()
    return attn_fn(X).shape == X.shape


def learner_causality_only(attn_fn):
    X = _rand()
    out = attn_fn(X)
    for k in range(X.shape[0]):
        X2 = X.copy()
        X2[k] += 1.0
        if not np.allclose(attn_fn(X2)[:k], out[:k]):
            return False
    return True


def learner_shuffle_only(attn_fn):
    X = _rand()
    perm = np.r_[np.random.default_rng(1).permutation(X.shape[0] - 1), X.shape[0] - 1]
    return bool(np.allclose(attn_fn(X[perm])[-1], attn_fn(X)[-1]))


def learner_good(attn_fn):
    return learner_causality_only(attn_fn) and learner_shuffle_only(attn_fn)


def learner_good_with_asserts(attn_fn):
    for seed in range(3):
        X = _rand(5, 3, seed)
        out = attn_fn(X)
        X2 = X.copy()
        X2[-1] = 9.0
        assert np.array_equal(attn_fn(X2)[:-1], out[:-1]) or False
        for k in range(1, 5):
            X3 = X.copy()
            X3[k] -= 2.0
            np.testing.assert_allclose(attn_fn(X3)[:k], out[:k])
        perm = np.r_[np.random.default_rng(seed).permutation(4), 4]
        np.testing.assert_allclose(attn_fn(X[perm])[-1], out[-1])


def learner_too_strict(attn_fn):
    X = _rand()
    perm = np.r_[np.random.default_rng(1).permutation(X.shape[0] - 1), X.shape[0] - 1]
    return learner_causality_only(attn_fn) and np.array_equal(attn_fn(X[perm])[-1] * 1e15, attn_fn(X)[-1] * 1e15) \
        and np.array_equal(attn_fn(X[perm]), attn_fn(X))      # also demands the whole output stays: wrong


def test_good_learner_tests_are_accepted(capsys):
    for t in (learner_good, learner_good_with_asserts):
        result = check_attention_test(t)
        assert result and result.n_passed == result.n_cases == 6, capsys.readouterr().out


@pytest.mark.parametrize("weak, n_missed", [(learner_shapes_only, 5), (learner_shuffle_only, 3), (learner_causality_only, 1)],
                         ids=["shapes only", "shuffle only", "causality only"])
def test_weak_learner_tests_are_not_good_enough(capsys, weak, n_missed):
    result = check_attention_test(weak)
    out = capsys.readouterr().out
    assert not result
    assert "不够好" in out and f"有 {n_missed} 个被放过了" in out, out
    assert result.n_passed == 6 - n_missed


def test_causality_only_misses_exactly_the_position_bias(capsys):
    check_attention_test(learner_causality_only)
    out = capsys.readouterr().out
    assert "位置" in out.split("被放过了")[1].splitlines()[1]


def learner_both_properties_on_saturating_input(attn_fn):
    """Tests both properties, but on integers in order: the scores are so large that softmax gives one
    token nearly all the weight, and the hidden position bias no longer shows within np.allclose."""
    X = np.arange(12.0).reshape(6, 2)
    out = attn_fn(X)
    for k in range(1, 6):
        assert np.allclose(attn_fn(X[:k]), out[:k])
    assert np.allclose(attn_fn(X[[4, 3, 2, 1, 0, 5]])[-1], out[-1])
    return True


def test_a_test_of_both_properties_on_saturating_input_is_told_about_its_input(capsys):
    # review (exercise rewrite, issue 30): such a test was only asked "did your test check that property?",
    # which it did; what hides the bias is its input
    assert learner_both_properties_on_saturating_input(_make_impl("correct"))
    with pytest.raises(AssertionError):                                   # it does test the position property:
        learner_both_properties_on_saturating_input(_make_impl("no mask"))
    result = check_attention_test(learner_both_properties_on_saturating_input)
    out = capsys.readouterr().out
    assert not result and "有 1 个被放过了" in out and "位置" in out.split("被放过了")[1].splitlines()[1], out
    assert "输入" in out.split("提示")[1] and "随机" in out, out
    check_attention_test(learner_causality_only)          # not to a test whose random inputs would show the bias:
    out = capsys.readouterr().out                         # it misses the bias because it never tests that property
    assert "有 1 个被放过了" in out and "位置" in out.split("被放过了")[1] and "随机" not in out and "按顺序" not in out, out
    check_attention_test(learner_shuffle_only)            # the input advice follows a missed position bias only
    out = capsys.readouterr().out
    assert "被放过了" in out and "位置" not in out.split("被放过了")[1] and "随机" not in out, out
    check_attention_test(learner_shapes_only)             # not to a test that catches nothing (2.12's weak example)
    out = capsys.readouterr().out
    assert "有 5 个被放过了" in out and "随机" not in out, out


def test_a_test_that_rejects_the_correct_implementation_fails(capsys):
    result = check_attention_test(learner_too_strict)
    assert not result and result.n_passed == 0
    assert "正确" in capsys.readouterr().out
    assert not check_attention_test(lambda attn_fn: False)
    assert not check_attention_test(lambda attn_fn: attn_fn(np.zeros(3)))       # the test itself errors out


def test_attention_test_not_done_yet_and_not_a_function(capsys):
    def stub(attn_fn):
        raise NotImplementedError

    assert not check_attention_test(stub)
    assert "尚未完成" in capsys.readouterr().out
    assert not check_attention_test(True)
    assert "不要加括号" in capsys.readouterr().out


def test_the_implementations_are_what_they_claim():
    X = _rand(6, 4, 3)
    correct = _make_impl("correct")(X)
    assert np.allclose(correct, _reference(X[None], *_weights(4), np.eye(4), 1, 0)[0])   # no prefix: causal
    for kind in ("off by one", "no mask", "mask after softmax", "wrong axis", "position bias"):
        assert not np.allclose(_make_impl(kind)(X), correct), kind


# ---- part 2: review findings (issue 12) -----------------------------------------------------------

def learner_truncated_allclose(attn_fn):
    X = _rand(6, 4, 2)
    return all(np.allclose(attn_fn(X)[:k], attn_fn(X[:k])) for k in range(1, 7)) and learner_good(attn_fn)


def learner_same_length_bitwise(attn_fn):
    """What the hint allows: earlier rows bit-for-bit equal when only later tokens change and T stays."""
    X = _rand(6, 4, 4)
    out = attn_fn(X)
    for k in range(1, 6):
        X2 = X.copy()
        X2[k:] += 3.0
        if not np.array_equal(attn_fn(X2)[:k], out[:k]):
            return False
    return learner_shuffle_only(attn_fn)


def test_what_the_hint_allows_is_accepted(capsys):
    for t in (learner_truncated_allclose, learner_same_length_bitwise):
        assert check_attention_test(t), capsys.readouterr().out


def test_the_hint_says_when_bitwise_equality_holds(capsys, monkeypatch):
    # review: the old hint ("earlier rows may be required bit-for-bit equal") led learners to
    # compare f(X)[:k] with f(X[:k]) exactly, which rejects the correct implementation wherever the
    # matrix products of a shorter sequence round differently. Whether they do is the machine's BLAS's
    # business (on some they happen to agree to the bit), so the correct implementation here rounds by
    # construction in a way that depends on T -- right to the last bit but one, as a real BLAS may be.
    import helpers.checks.nb12_capstone_test as capstone_test

    real = capstone_test._make_impl

    def make(kind):
        f = real(kind)
        return (lambda X: f(X) * (1 + (X.shape[0] % 2) * 2.0**-52)) if kind == "correct" else f

    monkeypatch.setattr(capstone_test, "_make_impl", make)

    def truncated_bitwise(attn_fn):
        X = _rand(6, 4, 0)
        return all(np.array_equal(attn_fn(X)[:k], attn_fn(X[:k])) for k in range(1, 7))

    assert not truncated_bitwise(make("correct")) and truncated_bitwise(make("exact"))
    assert not check_attention_test(truncated_bitwise)
    out = capsys.readouterr().out
    assert "形状不变" in out and "截短" in out, out
    # ... and the claim the hint makes is true for the correct implementation on a grid of shapes
    f = real("correct")
    for T in (2, 5, 9, 17):
        for d in (1, 3, 8, 33):
            X = _rand(T, d, T * d)
            out_ = f(X)
            for k in range(1, T):
                X2 = X.copy()
                X2[k:] -= 1.5
                assert np.array_equal(f(X2)[:k], out_[:k]), (T, d, k)


def test_a_bitwise_comparison_after_a_shuffle_is_named_as_such(capsys, monkeypatch):
    # review: a test that compares the last row bit for bit after shuffling the tokens before it was told about
    # truncating the sequence, which it never did. Its mistake is exact equality after reordering a float sum.
    import helpers.checks.nb12_capstone_test as capstone_test

    real = capstone_test._make_impl

    def make(kind):   # the correct implementation rounds its last bit by the order of the tokens, as a BLAS may
        f = real(kind)
        return (lambda X: f(X) * (1 + float(X[0, 0] > X[-2, 0]) * 2.0**-52)) if kind == "correct" else f

    monkeypatch.setattr(capstone_test, "_make_impl", make)

    def shuffled_bitwise(attn_fn):
        X = _rand(6, 4, 2)
        perm = np.r_[np.arange(X.shape[0] - 1)[::-1], X.shape[0] - 1]
        return learner_causality_only(attn_fn) and np.array_equal(attn_fn(X[perm])[-1], attn_fn(X)[-1])

    assert not shuffled_bitwise(make("correct")) and shuffled_bitwise(make("exact"))
    assert not check_attention_test(shuffled_bitwise)
    out = capsys.readouterr().out
    assert "打乱了词的顺序" in out and "np.allclose" in out and "截短" not in out, out


def test_a_test_without_the_argument_is_told_so(capsys):
    def no_arg():
        return True

    result = check_attention_test(no_arg)
    out = capsys.readouterr().out
    assert not result
    assert "参数个数" in out and "attn_fn" in out and "正确" not in out, out


def test_the_implementations_do_not_reveal_which_is_broken(capsys):
    def reads_closure(attn_fn):
        return attn_fn.__closure__[0].cell_contents == "correct"

    def reads_attributes(attn_fn):
        return "correct" in repr(attn_fn) or "correct" in str(getattr(attn_fn, "__dict__", ""))

    for cheat in (reads_closure, reads_attributes):
        assert not check_attention_test(cheat), cheat.__name__
    capsys.readouterr()
    f, g = _make_impl("correct"), _make_impl("no mask")
    assert type(f) is type(g) and repr(f) == repr(g)
    assert not hasattr(f, "__dict__") and getattr(f, "__closure__", None) is None


def test_not_done_uses_the_hourglass(capsys):
    def stub(attn_fn):
        X = np.ones((3, 2))
        attn_fn(X)
        raise NotImplementedError("your test here")

    check_attention_test(stub)
    out = capsys.readouterr().out
    assert out.startswith("\u23f3") and "\u274c" not in out, out


# ---- part 1: review findings (issue 12) -----------------------------------------------------------

_CODE = ("np.", "K.T", "swapaxes", "triu", "//", ".shape", "X @", "sqrt(", "axis=", "exp(")


@pytest.mark.parametrize("label", list(WRONG))
def test_hints_and_diagnoses_never_show_code(capsys, label):
    # review: hints showed "np.swapaxes(K, -1, -2)", "W_Q.shape[1] // n_heads", "np.triu(..., k=1)", "S = Q K^T / sqrt(d_k)"
    check_capstone(WRONG[label][0])
    out = capsys.readouterr().out
    for code in _CODE:
        assert code not in out, (label, code, out)


def test_every_hint_and_diagnosis_text_is_code_free():
    from helpers.checks import nb12_capstone as capstone
    texts = [c.hint for c in _cases()] + [d for _, d in capstone._DIAGNOSES] + [capstone._RENORMALISED]
    for t in texts:
        for code in _CODE:
            assert code not in t, (code, t)


def test_verdict_survives_seterr_raise(capsys):
    old = np.seterr(all="raise")
    try:
        assert check_capstone(good)
        assert not check_capstone(WRONG["no mask"][0])
    finally:
        np.seterr(**old)
    assert "Traceback" not in capsys.readouterr().out


def test_a_test_that_accepts_by_call_count_is_caught(capsys):
    # cheat: the check used to call the correct implementation first, then only broken ones
    calls = []

    def first_call_only(attn_fn):
        calls.append(1)
        return len(calls) == 1

    for _ in range(5):
        calls.clear()
        assert not check_attention_test(first_call_only)
    assert "\u2705" not in capsys.readouterr().out


def test_unseeded_flaky_test_is_told_about_seeds(capsys):
    state = {"n": 0}

    def flaky(attn_fn):
        state["n"] += 1
        return learner_good(attn_fn) and state["n"] == 1

    assert not check_attention_test(flaky)
    out = capsys.readouterr().out
    assert "先接受、后拒绝" in out and "种子" in out, out


def test_heads_concatenated_in_reverse_order_are_rejected_with_a_relevant_hint(capsys):
    def reversed_heads(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
        B, T, _ = X.shape
        sp = lambda Y: Y.reshape(B, T, n_heads, -1).transpose(0, 2, 1, 3)
        Q, K, V = sp(X @ W_Q), sp(X @ W_K), sp(X @ W_V)
        S = np.where(_blocked(T, n_prefix), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
        out = (_softmax(S) @ V)[:, ::-1]
        return out.transpose(0, 2, 1, 3).reshape(B, T, -1) @ W_O

    assert not check_capstone(reversed_heads)
    assert "拼回去的顺序" in capsys.readouterr().out


# ---- checks review (issue 20): a learner's test that demands a property causal attention lacks is told so ----
# even when it also checks causality (so it rejects the unmasked attention too): before, it got the float hint

def _causal_and_full_permutation(attn_fn):
    X = np.random.default_rng(0).normal(size=(6, 4))
    Y = X.copy()
    Y[4:] += 3.0
    perm = [4, 2, 0, 1, 5, 3]
    return bool(np.allclose(attn_fn(X)[:4], attn_fn(Y)[:4]) and np.allclose(attn_fn(X[perm]), attn_fn(X)[perm]))


def _bitwise_prefix_permutation(attn_fn):
    X = np.random.default_rng(0).normal(size=(6, 4))
    Y = X.copy()
    Y[4:] += 3.0
    P = X.copy()
    P[[0, 1, 2]] = X[[2, 0, 1]]
    return bool(np.allclose(attn_fn(X)[:4], attn_fn(Y)[:4]) and np.array_equal(attn_fn(X)[3:], attn_fn(P)[3:]))


def test_a_test_of_a_property_causal_attention_lacks_is_not_given_the_float_hint(capsys):
    from check_verdicts import fails
    out = fails(capsys, check_attention_test(_causal_and_full_permutation))
    assert "问题不在浮点比较" in out and "allclose" not in out, out


def test_a_test_demanding_bit_identical_rows_after_a_permutation_still_gets_the_float_hint(capsys):
    from check_verdicts import fails
    out = fails(capsys, check_attention_test(_bitwise_prefix_permutation))
    assert "allclose" in out and "问题不在浮点比较" not in out, out


# ---- checks review (issue 20, a novice's own answers): two head-handling slips are diagnosed by name ----------

def _strided_heads(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    B, T, _ = X.shape
    Q, K, V = ((X @ W).reshape(B, T, -1, n_heads).transpose(0, 3, 1, 2) for W in (W_Q, W_K, W_V))
    S = np.where(_blocked(T, n_prefix), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    return (_softmax(S, -1) @ V).transpose(0, 2, 1, 3).reshape(B, T, -1) @ W_O


def _heads_not_moved_back(X, W_Q, W_K, W_V, W_O, n_heads, n_prefix):
    B, T, _ = X.shape
    Q, K, V = ((X @ W).reshape(B, T, n_heads, -1).transpose(0, 2, 1, 3) for W in (W_Q, W_K, W_V))
    S = np.where(_blocked(T, n_prefix), -np.inf, Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))
    return (_softmax(S, -1) @ V).reshape(B, T, -1) @ W_O          # (B, h, T, d) read as (B, T, h*d)


test_review_capstone_accepts, test_review_capstone_diagnoses = check_table(
    check_capstone, [good], {
        "strided head split": (_strided_heads, "每隔 n_heads 列取一列"),
        "heads not moved back before concatenating": (_heads_not_moved_back, "没有把头这一维挪回 T 后面"),
    })


# ---- a learner's test that crashes is told about its error, not about a property (review) --------------------

@pytest.mark.parametrize("crashing, says", [
    (lambda attn_fn: attn_fn(1, 2) is None, "attn_fn() takes 1 positional argument but 2 were given"),
    (lambda attn_fn: attn_fn() is None, "attn_fn() missing 1 required positional argument"),
    (lambda attn_fn: attn_fn(np.zeros(3)) is None, "attn_fn expects X of shape (T, d); got shape (3,)"),
    (lambda attn_fn: attn_fn(np.zeros((3, 2)))[5] is None, "IndexError"),
], ids=["two arguments", "no argument", "1-D X", "index past the end"])
def test_a_crashing_test_gets_a_hint_about_its_error(crashing, says, capsys):
    result = check_attention_test(crashing)
    out = capsys.readouterr().out
    assert not result and out.startswith("\u274c") and "自己出错了" in out and says in out, out
    assert "attn_fn 只接受一个参数 X，形状 (T, d)" in out
    assert "_AttnFn" not in out and "__call__" not in out and "**" not in out and "排列等变" not in out
    assert "Traceback" not in out


def test_no_markdown_asterisks_in_plain_text_verdicts(capsys):
    check_attention_test(learner_too_strict)
    out = capsys.readouterr().out
    assert "拒绝了一个正确的因果自注意力" in out and "**" not in out


def test_renormalised_after_softmax_is_not_told_to_subtract_the_row_max(capsys):
    # review: this learner did subtract the row max; the huge case fails because the max sits on a future key
    assert not check_capstone(functools.partial(_mha, after="renormalise"))
    out = capsys.readouterr().out
    assert "分数很大" in out and "未来的键根本不该参加 softmax" in out, out
    assert "取指数之前先减去每一行自己的最大值" not in out
    assert not check_capstone(functools.partial(_mha, stable=False))       # the real missing row max keeps its hint
    assert "取指数之前先减去每一行自己的最大值" in capsys.readouterr().out
