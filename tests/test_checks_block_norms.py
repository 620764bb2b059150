"""The 2.11 transfer exercise: RMSNorm. Correct variants pass; LayerNorm, wrong axis, eps outside the root, std, no gain fail."""

import numpy as np
import pytest

from helpers.checks import check_rms_norm
from check_verdicts import check_table


def rms(x, g, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps) * g


def rms_variant(x, g, eps):
    return g * x * (np.square(x).sum(axis=-1, keepdims=True) / x.shape[-1] + eps) ** -0.5


def layer_norm(x, g, eps):
    c = x - x.mean(axis=-1, keepdims=True)
    return c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps) * g


def wrong_axis(x, g, eps):
    return x / np.sqrt(np.mean(x**2, axis=0, keepdims=True) + eps) * g


def eps_outside(x, g, eps):
    return x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps) * g


def std_instead(x, g, eps):
    return x / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * g


def no_gain(x, g, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)


def no_eps(x, g, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) * g


test_correct_variants_pass, test_classic_mistakes_fail = check_table(
    check_rms_norm, [rms, rms_variant], [layer_norm, wrong_axis, eps_outside, std_instead, no_gain, no_eps],
    wrong_says=["提示"])


def no_keepdims(x, g, eps):
    r = np.sqrt(np.mean(x**2, axis=-1) + eps)
    return (x.reshape(-1, x.shape[-1]) / np.resize(r, x.shape[-1])[None, :]).reshape(x.shape) * g


def mean_over_last_two_axes(x, g, eps):
    axes = (-1, -2) if x.ndim == 3 else -1
    return x / np.sqrt(np.mean(x**2, axis=axes, keepdims=True) + eps) * g


def eps_fixed_at_1e6(x, g, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + 1e-6) * g


@pytest.mark.parametrize("fn", [layer_norm, wrong_axis, eps_outside, std_instead, no_gain, no_eps, no_keepdims,
                                mean_over_last_two_axes, eps_fixed_at_1e6])
def test_hints_never_show_code(capsys, fn):
    # review (CONVENTIONS): a hint says it in words; the old hints showed axis=-1/keepdims and sqrt(mean(x^2) + eps)
    check_rms_norm(fn)
    out = capsys.readouterr().out
    for code in ("axis=", "keepdims", "sqrt(", "mean(", "x^2", "x**2", "np."):
        assert code not in out, (code, out)


# ---- checks review (issue 20, a novice's own answers): the mistake is named, a float32 slip is told apart ----

def sum_not_mean(x, g, eps):
    return x / np.sqrt(np.sum(x**2, axis=-1, keepdims=True) + eps) * g


def float32_then_float64_gain(x, g, eps):
    x = x.astype(np.float32)                       # float32 work, then the float64 gain makes it float64 again
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * g


test_review_mistakes_are_named_accepts, test_review_mistakes_are_named = check_table(
    check_rms_norm, [lambda x, g, eps: float32_then_float64_gain(x, g, eps).astype(np.float32)], {
        "eps outside the root": (eps_outside, "eps 加在了开平方之后"),      # was the generic "不减均值" hint
        "no eps": (no_eps, "eps 没有用上"),
        "LayerNorm": (layer_norm, "LayerNorm"),
        "sum instead of mean": (sum_not_mean, "平方和"),
        "mean over axis 0": (wrong_axis, "平均沿错了轴"),
        "no gain": (no_gain, "增益 g"),
        "float32 work, float64 result": (float32_then_float64_gain, ["float32 的精度量级", "保持 float32"]),
    })


# ---- fresh-eyes review (blind reveals, warm-ups): a mistake the case's own hint (about eps) misnamed --------

def no_root(x, g, eps):
    return x / (np.mean(x**2, axis=-1, keepdims=True) + eps) * g


def axis_dropped(x, g, eps):
    return x / np.sqrt(np.mean(x**2, axis=-1) + eps) * g       # raises: (..., d) against (...,)


_, test_misnamed_mistakes_are_named = check_table(check_rms_norm, (), {
    "no square root": (no_root, "没有开平方根"),
    "the averaged axis dropped (a broadcast error)": (axis_dropped, "保留最后一个轴"),
})


@pytest.mark.parametrize("fn", [no_root, axis_dropped])
def test_the_eps_hint_is_not_given_for_another_mistake(fn, capsys):
    check_rms_norm(fn)
    out = capsys.readouterr().out
    assert "eps 应该先加到均方值上" not in out, out          # the first case's hint: about eps, which they got right
    for code in ("axis=", "keepdims", "sqrt(", "mean(", "np."):
        assert code not in out.split("提示（hint）")[1], (code, out)
