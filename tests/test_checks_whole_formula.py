"""The 2.7 exercise self-checks: the five steps and the parameter count."""

import numpy as np

from helpers.checks import check_five_steps, check_qkv_parameter_count


def _five_steps(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max(axis=1, keepdims=True))
    return (E / E.sum(axis=1, keepdims=True)) @ V


def test_correct_five_steps_pass():
    assert check_five_steps(_five_steps)


def test_common_mistakes_fail(capsys):
    def no_scale(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        E = np.exp(Q @ K.T)
        return (E / E.sum(axis=1, keepdims=True)) @ V

    def column_softmax(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        E = np.exp(Q @ K.T / np.sqrt(K.shape[1]))
        return (E / E.sum(axis=0, keepdims=True)) @ V

    def d_k_from_v(X, W_Q, W_K, W_V):
        Q, K, V = X @ W_Q, X @ W_K, X @ W_V
        E = np.exp(Q @ K.T / np.sqrt(V.shape[1]))
        return (E / E.sum(axis=1, keepdims=True)) @ V

    assert not check_five_steps(no_scale)
    assert not check_five_steps(column_softmax)
    assert not check_five_steps(d_k_from_v)
    assert "d_v != d_k" in capsys.readouterr().out.splitlines()[-2]


def test_parameter_count_check():
    assert check_qkv_parameter_count(lambda d_model, d_k, d_v: d_model * (2 * d_k + d_v))
    assert not check_qkv_parameter_count(lambda d_model, d_k, d_v: 3 * d_model * d_k)  # ignores d_v
    assert not check_qkv_parameter_count(lambda d_model, d_k, d_v: d_model * d_k + d_k * d_v)


# ---- more wrong answers, and correct variants ------------------------------------------------

from check_verdicts import check_table, verdict_table  # noqa: E402


def _sm(S, axis=-1):
    E = np.exp(S - S.max(axis=axis, keepdims=True))
    return E / E.sum(axis=axis, keepdims=True)


def _attn(X, W_Q, W_K, W_V, scale=None, transpose=False):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = (K @ Q.T if transpose else Q @ K.T) / (np.sqrt(K.shape[1]) if scale is None else scale)
    return _sm(S) @ V


def _global_max(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1])
    E = np.exp(S - S.max())
    return E / E.sum(axis=1, keepdims=True) @ V


FIVE_OK = [_five_steps, _attn,
           lambda X, W_Q, W_K, W_V: _attn(X.astype(np.float64), W_Q, W_K, W_V).tolist()]
FIVE_WRONG = {
    "/ d_k": lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, scale=W_Q.shape[1]),
    "sqrt(d_model)": lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, scale=np.sqrt(X.shape[1])),
    "sqrt(T)": lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, scale=np.sqrt(X.shape[0])),
    "K @ Q.T": lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, transpose=True),
    "global max": _global_max,
    "1.04 x": lambda X, W_Q, W_K, W_V: 1.04 * _attn(X, W_Q, W_K, W_V),
    "weights instead of output": lambda X, W_Q, W_K, W_V: _sm((X @ W_Q) @ (X @ W_K).T / np.sqrt(W_K.shape[1])),
}


test_five_steps_correct_variants_pass, test_five_steps_rejects = check_table(
    check_five_steps, FIVE_OK, FIVE_WRONG, wrong_says=["提示（hint）"])


def test_parameter_count_rejects_bias_and_constant_factors():
    assert not check_qkv_parameter_count(lambda d_model, d_k, d_v: d_model * (2 * d_k + d_v) + 2 * d_k + d_v)
    assert not check_qkv_parameter_count(lambda d_model, d_k, d_v: round(1.04 * d_model * (2 * d_k + d_v)))
    assert check_qkv_parameter_count(lambda d_model, d_k, d_v: d_model * d_k * 2 + d_model * d_v)
    assert not check_qkv_parameter_count(lambda d_model, d_k, d_v: float(d_model * d_k * 2 + d_model * d_v))  # an int is asked


# ---- reviewer's extra wrong answers and correct variants (issue 12 review) ---------------------

def _review_att(X, W_Q, W_K, W_V, scale_dim=None, causal=False):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    S = Q @ K.T / np.sqrt(K.shape[1] if scale_dim is None else scale_dim(X, W_Q, W_V))
    if causal:
        S = np.where(np.tril(np.ones(S.shape, bool)), S, -np.inf)
    e = np.exp(S - S.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ V


REVIEW_WHOLE_FORMULA = [
    (check_five_steps, lambda *a: _review_att(*a, scale_dim=lambda X, Wq, Wv: Wq.shape[0]), False),  # d_model
    (check_five_steps, lambda *a: _review_att(*a, scale_dim=lambda X, Wq, Wv: 2), False),             # book's d_k hard-coded
    (check_five_steps, lambda *a: _review_att(*a, causal=True), False),                               # causal mask not asked
    (check_five_steps, lambda *a: _review_att(*a).tolist(), True),
    (check_qkv_parameter_count, lambda d, k, v: d * (2 * k + v) + 2 * k + v, False),                 # biases
    (check_qkv_parameter_count, lambda d, k, v: d * (2 * k + v) + v * d, False),                     # + W_O
    (check_qkv_parameter_count, lambda d, k, v: float(d * (k + k + v)), False),                     # an int is asked (issue 20)
]
test_review_whole_formula_variants = verdict_table(REVIEW_WHOLE_FORMULA)


# ---- checks review (issue 20, a novice's own answers): the five steps name the mistake actually made ------

def _float32_then_float64(X, W_Q, W_K, W_V):
    X, W_Q, W_K, W_V = (np.asarray(a, dtype=np.float32) for a in (X, W_Q, W_K, W_V))
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return _sm(Q @ K.T / np.sqrt(K.shape[1])) @ V     # np.sqrt of an int is float64: the result is float64


FIVE_NAMED = {
    "sqrt(d_v)": (lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, scale=np.sqrt(W_V.shape[1])), "缩放用了值的宽度 d_v"),
    "sqrt(d_model)": (lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, scale=np.sqrt(X.shape[1])), "缩放用了 d_model"),
    "no scale": (lambda X, W_Q, W_K, W_V: _attn(X, W_Q, W_K, W_V, scale=1.0), "分数没有缩放"),
    "softmax over queries": (lambda X, W_Q, W_K, W_V: _sm((X @ W_Q) @ (X @ W_K).T / np.sqrt(W_K.shape[1]), axis=0)
                             @ (X @ W_V), "查询轴"),
    "A.T @ V": (lambda X, W_Q, W_K, W_V: _sm((X @ W_Q) @ (X @ W_K).T / np.sqrt(W_K.shape[1])).T @ (X @ W_V),
                "权重矩阵被转置"),
    "weights instead of output": (FIVE_WRONG["weights instead of output"], "你返回的是注意力权重"),
    "global max": (_global_max, "整个分数矩阵的最大值"),
    "float32 work, float64 result": (_float32_then_float64, ["float32 的精度量级", "保持 float32"]),
}
test_five_steps_review_accepts, test_five_steps_review_names_the_mistake = check_table(
    check_five_steps, [lambda *a: _float32_then_float64(*a).astype(np.float32)], FIVE_NAMED)
