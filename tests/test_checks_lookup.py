"""The 2.1/2.2 self-checks pass correct solutions and fail wrong ones with a hint, never the answer."""

import numpy as np

from helpers.checks import check_contextual_mix, check_cosine, check_soft_lookup, check_soft_lookup_jacobian
from check_verdicts import check_table, verdict_table


def _ok(capsys, result, name):
    out = capsys.readouterr().out
    assert result.passed and bool(result)
    assert name in out and "隐藏用例通过" in out


def _fails_with(capsys, result, hint_words):
    out = capsys.readouterr().out
    assert not result.passed
    assert "提示（hint）" in out and hint_words in out
    return out


# --- correct solutions, written independently of the helpers ---------------------------------

def cosine_ok(a, b):
    return float(np.dot(a, b) / np.sqrt(np.dot(a, a) * np.dot(b, b)))


def mix_ok(weights, vectors):
    return sum(w * v for w, v in zip(weights, vectors))


def soft_ok(q, K, V, temperature):
    s = np.array([np.dot(q, k) for k in K]) / temperature
    e = np.exp(s - s.max())
    return (e / e.sum()) @ V


def jac_ok(q, K, V, temperature):
    s = K @ q / temperature
    a = np.exp(s - s.max())
    a /= a.sum()
    o = a @ V
    kbar = a @ K
    return sum(ai * np.outer(v - o, k - kbar) for ai, v, k in zip(a, V, K)) / temperature


def test_correct_solutions_pass(capsys):
    _ok(capsys, check_cosine(cosine_ok), "check_cosine")
    _ok(capsys, check_contextual_mix(mix_ok), "check_contextual_mix")
    _ok(capsys, check_soft_lookup(soft_ok), "check_soft_lookup")
    _ok(capsys, check_soft_lookup_jacobian(jac_ok), "check_soft_lookup_jacobian")


def test_not_done_yet(capsys):
    def stub(*args):
        raise NotImplementedError

    for check in (check_cosine, check_contextual_mix, check_soft_lookup, check_soft_lookup_jacobian):
        assert not check(stub).passed
        assert "尚未完成" in capsys.readouterr().out


def test_cosine_has_five_cases_including_long_vectors(capsys):
    result = check_cosine(cosine_ok)
    capsys.readouterr()
    assert result.n_cases == result.n_passed == 5
    # a solution that only works for short vectors (it clips the dot product) fails the last case
    def short_only(a, b):
        return float(np.clip(np.dot(a, b), -100, 100) / np.sqrt(np.dot(a, a) * np.dot(b, b)))
    out = _fails_with(capsys, check_cosine(short_only), "两个（BOTH）向量的长度")
    assert "第 5/5 个用例" in out


def test_cosine_without_normalising_by_both_lengths(capsys):
    _fails_with(capsys, check_cosine(lambda a, b: float(np.dot(a, b) / np.linalg.norm(a))), "两个（BOTH）向量的长度")
    _fails_with(capsys, check_cosine(lambda a, b: abs(cosine_ok(a, b))), "negative cosine")


COSINE_WRONG = dict([
    ("dot product only", lambda a, b: float(np.dot(a, b))),
    ("divided by squared norms", lambda a, b: float(np.dot(a, b) / (np.dot(a, a) * np.dot(b, b)))),
    ("1 - cosine (distance)", lambda a, b: 1 - cosine_ok(a, b)),
    ("angle", lambda a, b: float(np.arccos(np.clip(cosine_ok(a, b), -1, 1)))),
    ("1.04 x", lambda a, b: 1.04 * cosine_ok(a, b)),
    ("in place normalisation", lambda a, b: float(np.dot(a.__itruediv__(np.linalg.norm(a)), b / np.linalg.norm(b)))),
])
COSINE_OK = [
    lambda a, b: float(np.dot(a / np.linalg.norm(a), b / np.linalg.norm(b))),
    lambda a, b: sum(x * y for x, y in zip(a, b)) / (sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5,
]
test_cosine_accepts_variants, test_cosine_rejects = check_table(check_cosine, COSINE_OK, COSINE_WRONG,
                                                                wrong_says=["提示（hint）"])


def test_mix_transposed_or_mean(capsys):
    _fails_with(capsys, check_contextual_mix(lambda w, X: X.mean(axis=0)), "ROW j")
    _fails_with(capsys, check_contextual_mix(lambda w, X: (w[:, None] * X).sum(axis=1)), "")   # one number per token
    _fails_with(capsys, check_contextual_mix(lambda w, X: 1.04 * (w @ X)), "")
    # X @ w contracts the wrong axis: numpy raises, the check reports it and hints, the notebook goes on.
    out = _fails_with(capsys, check_contextual_mix(lambda w, X: X @ w), "ROW j")
    assert "抛出了异常 ValueError" in out


def test_soft_lookup_common_mistakes(capsys):
    # multiplies by the temperature instead of dividing
    _fails_with(capsys, check_soft_lookup(lambda q, K, V, t: soft_ok(q, K, V, 1 / t)), "temperature divides")
    _fails_with(capsys, check_soft_lookup(lambda q, K, V, t: soft_ok(q, K, V, t * np.sqrt(len(q)))), "")  # extra sqrt(d)
    _fails_with(capsys, check_soft_lookup(lambda q, K, V, t: 1.04 * soft_ok(q, K, V, t)), "")
    # the chapter's ratio normalisation on raw dot products
    def ratio(q, K, V, t):
        s = K @ q / t
        return (s / s.sum()) @ V
    _fails_with(capsys, check_soft_lookup(ratio), "")
    # no max subtraction: overflow on the tiny-temperature case
    def naive(q, K, V, t):
        with np.errstate(over="ignore", invalid="ignore"):
            e = np.exp(K @ q / t)
            return (e / e.sum()) @ V
    _fails_with(capsys, check_soft_lookup(naive), "subtract the largest score")
    assert check_soft_lookup(lambda q, K, V, t: soft_ok(q, K, V, t).tolist())  # a list is fine
    # returns the weights instead of the output
    def weights_only(q, K, V, t):
        s = K @ q / t
        e = np.exp(s - s.max())
        return e / e.sum()
    _fails_with(capsys, check_soft_lookup(weights_only), "")


def test_jacobian_missing_temperature_or_transposed(capsys):
    _fails_with(capsys, check_soft_lookup_jacobian(lambda q, K, V, t: jac_ok(q, K, V, t) * t), "1 / temperature")
    _fails_with(capsys, check_soft_lookup_jacobian(lambda q, K, V, t: jac_ok(q, K, V, t).T), "")
    _fails_with(capsys, check_soft_lookup_jacobian(lambda q, K, V, t: 1.04 * jac_ok(q, K, V, t)), "")
    _fails_with(capsys, check_soft_lookup_jacobian(lambda q, K, V, t: jac_ok(q, K, V, t) / t), "1 / temperature")


def test_messages_never_reveal_expected_values(capsys):
    seen = []

    def spy(q, K, V, t):  # records the hidden case, answers wrongly
        seen.append((q, K, V, t))
        return np.zeros(V.shape[1])

    assert not check_soft_lookup(spy).passed
    out = capsys.readouterr().out
    expected = soft_ok(*seen[0])
    assert np.abs(expected).max() > 1e-3  # the case is non-trivial, so zeros really are wrong
    for x in expected:
        for fmt in ("{:.2f}", "{:.3f}", "{:.4f}", "{:.3g}"):
            assert fmt.format(x) not in out, out


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

def _sm(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


REVIEW_LOOKUP = [
    # (check, fn, should_pass)
    (check_cosine, lambda a, b: round(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))), 4), False),
    (check_cosine, lambda a, b: float(np.corrcoef(a, b)[0, 1]), False),           # Pearson: centres first
    (check_cosine, lambda a, b: a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-3), False),
    (check_cosine, lambda a, b: 1 - np.linalg.norm(a / np.linalg.norm(a) - b / np.linalg.norm(b)) ** 2 / 2, True),
    (check_contextual_mix, lambda w, X: _sm(w) @ X, False),                       # softmax applied again
    (check_contextual_mix, lambda w, X: np.einsum("t,td->d", w, X), True),
    (check_contextual_mix, lambda w, X: (X.T @ w).tolist(), True),
    (check_soft_lookup, lambda q, K, V, t: _sm(K @ q / t / np.sqrt(len(q))) @ V, False),   # extra 1/sqrt(d_k)
    (check_soft_lookup, lambda q, K, V, t: _sm(K @ q * t) @ V, False),                     # multiplies by t
    (check_soft_lookup, lambda q, K, V, t: (lambda e: e / e.sum())(np.exp(np.clip(K @ q / t, -700, 700))) @ V, False),
    (check_soft_lookup, lambda q, K, V, t: _sm((K / np.linalg.norm(K, axis=1, keepdims=True)) @ (q / np.linalg.norm(q)) / t) @ V, False),
    (check_soft_lookup, lambda q, K, V, t: V.T @ _sm(K @ q / t), True),
    (check_soft_lookup_jacobian,
     lambda q, K, V, t: (lambda w: -V.T @ np.outer(w, w) @ K / t)(_sm(K @ q / t)), False),  # diagonal part lost
    (check_soft_lookup_jacobian,
     lambda q, K, V, t: (lambda w: (K.T @ (np.diag(w) - np.outer(w, w)) @ V / t).T)(_sm(K @ q / t)), True),
]


test_review_lookup_variants = verdict_table(REVIEW_LOOKUP)


# ---- checks review (issue 20, a novice's own answers): the mistake actually made is named ----------------

def _sm_review(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def _jac_review(q, K, V, t):
    a = _sm_review(K @ q / t)
    return V.T @ (np.diag(a) - np.outer(a, a)) @ K / t


test_cosine_review_accepts, test_cosine_review_names_the_mistake = check_table(
    check_cosine, [lambda a, b: np.einsum("i,i->", a, b) / np.sqrt(np.einsum("i,i->", a, a) * np.einsum("i,i->", b, b))], {
        "angle (was: the norms hint)": (lambda a, b: float(np.arccos(np.clip(cosine_ok(a, b), -1, 1))), "夹角本身"),
        "1 - cosine": (lambda a, b: 1 - cosine_ok(a, b), "余弦距离"),
        "rounded to 3 decimals": (lambda a, b: round(cosine_ok(a, b), 3), "四舍五入"),
        "a.b / |a|^2": (lambda a, b: float(np.dot(a, b) / np.dot(a, a)), "长度的平方"),
        "abs": (lambda a, b: abs(cosine_ok(a, b)), ["不要取绝对值", "negative cosine"]),
    })
test_mix_review_accepts, test_mix_review_names_the_mistake = check_table(
    check_contextual_mix, [lambda w, X: (w @ X) / w.sum()], {
        "mean of the weighted vectors": (lambda w, X: np.mean(w[:, None] * X, axis=0), "求的是平均而不是和"),
        "sum over the d axis": (lambda w, X: np.sum(w[:, None] * X, axis=1), "求和沿错了轴"),
    })
test_jacobian_review_accepts, test_jacobian_review_names_the_mistake = check_table(
    check_soft_lookup_jacobian, [lambda q, K, V, t: _jac_review(q, K, V, t).astype(np.float32)], {
        "transposed (d_k, d_v)": (lambda q, K, V, t: _jac_review(q, K, V, t).T, "形状转置了"),
        "sign flipped": (lambda q, K, V, t: -_jac_review(q, K, V, t), "符号反了"),
        "diag(a) without -aa^T": (lambda q, K, V, t: V.T @ np.diag(_sm_review(K @ q / t)) @ K / t, "对角矩阵"),
        "only the diagonal a(1-a)": (lambda q, K, V, t: (lambda a: V.T @ np.diag(a * (1 - a)) @ K / t)(_sm_review(K @ q / t)),
                                     "只保留了对角元"),
    })
