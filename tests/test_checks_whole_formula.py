"""The 2.7 exercise self-checks: the five steps and the parameter count."""

import numpy as np

from helpers.checks.whole_formula import check_five_steps, check_qkv_parameter_count


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
