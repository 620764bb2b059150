"""The softmax-saturation explorer (chapter 2.5): its numbers, extremes and widget."""

import itertools
import math
import warnings

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

from helpers.gradcheck import numerical_gradient, relative_error
from helpers.saturation import (
    D_K_OPTIONS,
    MAGNITUDE_RANGE,
    SaturationFigure,
    compute,
    jacobian_norm,
    learning_trials,
    naive_figure_png,
    query_loss_and_grad,
    saturation_explorer,
    saturation_table,
    small_multiples,
    train_query,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------- compute: the numbers


def test_compute_shapes_and_sample_are_what_the_docstring_says():
    v = compute(64, 1.0, False, seed=3, T=10)
    assert v.query.shape == (64,) and v.keys.shape == (10, 64)
    assert v.raw_scores.shape == v.scores.shape == v.weights.shape == (10,)
    assert v.jacobian.shape == (10, 10)
    # the sample is np.random.default_rng(seed): query first, then the keys
    rng = np.random.default_rng(3)
    q = rng.standard_normal(64)
    K = rng.standard_normal((10, 64))
    np.testing.assert_allclose(v.query, q)
    np.testing.assert_allclose(v.keys, K)
    # raw scores are plain dot products, computed independently here
    np.testing.assert_allclose(v.raw_scores, [sum(K[i, j] * q[j] for j in range(64)) for i in range(10)])


def test_scaling_and_magnitude_rescale_the_same_scores():
    raw = compute(256, 1.0, False, seed=1)
    scaled = compute(256, 1.0, True, seed=1)
    big = compute(256, 2.5, True, seed=1)
    np.testing.assert_allclose(scaled.raw_scores, raw.raw_scores)
    np.testing.assert_allclose(scaled.scores, raw.scores / 16.0)  # sqrt(256) = 16
    np.testing.assert_allclose(big.scores, 2.5 * raw.scores / 16.0)
    assert raw.score_std == 16.0 and scaled.score_std == 1.0 and big.score_std == 2.5


def test_weights_readouts_and_jacobian_match_hand_formulas():
    v = compute(16, 0.7, True, seed=5, T=6)
    e = np.exp(v.scores - v.scores.max())
    a = e / e.sum()
    np.testing.assert_allclose(v.weights, a)
    assert v.max_weight == pytest.approx(a.max())
    assert v.argmax == int(np.argmax(a))
    assert v.entropy == pytest.approx(-np.sum(a * np.log(a)))
    J = np.array([[a[i] * ((i == j) - a[j]) for j in range(6)] for i in range(6)])
    np.testing.assert_allclose(v.jacobian, J, atol=1e-15)
    assert v.jacobian_norm == pytest.approx(math.sqrt((J**2).sum()))


def test_jacobian_norm_known_values():
    # two keys sharing equally: J = [[1/4, -1/4], [-1/4, 1/4]], Frobenius norm 1/2
    assert float(jacobian_norm([0.5, 0.5])) == pytest.approx(0.5)
    # one-hot: nothing moves
    assert float(jacobian_norm([0.0, 1.0, 0.0])) == 0.0
    # uniform over n: diagonal (1/n - 1/n^2), off-diagonal -1/n^2
    n = 8
    expected = math.sqrt(n * (1 / n - 1 / n**2) ** 2 + n * (n - 1) / n**4)
    assert float(jacobian_norm(np.full(n, 1 / n))) == pytest.approx(expected)


def test_magnitude_zero_is_uniform():
    v = compute(1024, 0.0, False, seed=0)
    np.testing.assert_allclose(v.weights, 1 / v.T)
    assert v.entropy == pytest.approx(math.log(v.T))


@pytest.mark.parametrize("d_k", [1, 1024])
@pytest.mark.parametrize("magnitude", [0.0, MAGNITUDE_RANGE[0], 1.0, MAGNITUDE_RANGE[1], 1000.0])
@pytest.mark.parametrize("scaled", [False, True])
def test_extremes_are_finite_and_silent(d_k, magnitude, scaled):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise", under="ignore"):
            for seed in (0, 1, 99):
                v = compute(d_k, magnitude, scaled, seed=seed)
                for arr in (v.raw_scores, v.scores, v.weights, v.jacobian):
                    assert np.all(np.isfinite(arr))
                assert np.all(v.weights >= 0) and v.weights.sum() == pytest.approx(1.0)
                assert 0 <= v.entropy <= math.log(v.T) + 1e-12
                assert 1 / v.T - 1e-12 <= v.max_weight <= 1.0
                assert 0 <= v.jacobian_norm <= 0.5 + 1e-12


def test_huge_unscaled_scores_saturate_completely():
    v = compute(1024, MAGNITUDE_RANGE[1], False, seed=0)
    assert v.max_weight == pytest.approx(1.0, abs=1e-12)
    assert v.jacobian_norm < 1e-12


@pytest.mark.parametrize("bad, exc", [
    (dict(d_k=0), ValueError), (dict(d_k=2.0), TypeError), (dict(magnitude=-1.0), ValueError),
    (dict(magnitude=float("nan")), ValueError), (dict(magnitude="big"), TypeError),
    (dict(seed=-1), ValueError), (dict(seed=1.5), TypeError), (dict(T=1), ValueError), (dict(scaled="yes"), TypeError),
])
def test_compute_rejects_bad_settings(bad, exc):
    kwargs = dict(d_k=16, magnitude=1.0, scaled=True, seed=0, T=8) | bad
    with pytest.raises(exc):
        compute(**kwargs)


# ------------------------------------------------- the statistical claim of section 2.5


def test_jacobian_norm_falls_unscaled_and_stays_put_scaled():
    # 400 samples of 16 keys per d_k; fixed seed. The margins are far wider than the
    # sampling error (the per-sample norm is bounded by 0.5, so the standard error of
    # a 400-sample mean is below 0.5 / 20 = 0.025).
    rows = saturation_table((16, 64, 256, 1024), T=16, n_trials=400, seed=11)
    raw = [r["jac_norm_raw"] for r in rows]
    scaled = [r["jac_norm_scaled"] for r in rows]
    assert all(a > b for a, b in zip(raw, raw[1:])), raw  # monotone fall
    assert raw[-1] < 0.35 * raw[0]
    assert max(scaled) - min(scaled) < 0.05, scaled  # roughly constant ...
    assert min(scaled) > 0.25  # ... and far from 0
    medians = [r["jac_norm_median_raw"] for r in rows]
    assert medians[-1] < 1e-3  # the typical unscaled d_k=1024 sample is frozen
    # the measured spread of raw scores is sqrt(d_k), within 5 %
    for r in rows:
        assert r["std_raw"] == pytest.approx(r["std_theory"], rel=0.05)
    # saturation: unscaled max weight grows with d_k, scaled stays near its d_k=16 value
    assert rows[-1]["max_weight_raw"] > 0.9 > 0.3 > max(r["max_weight_scaled"] for r in rows)
    assert rows[-1]["frac_saturated_raw"] > 0.5 and max(r["frac_saturated_scaled"] for r in rows) == 0.0


# ------------------------------------------------------- the tiny learning problem


def test_query_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    K, V, q = rng.standard_normal((5, 8)), rng.standard_normal((5, 3)), rng.standard_normal(8)
    for scaled in (False, True):
        _, grad, _ = query_loss_and_grad(q, K, V, 2, scaled)
        fd = numerical_gradient(lambda x: query_loss_and_grad(x, K, V, 2, scaled)[0], q)
        assert relative_error(grad, fd, floor=1e-9) < 1e-5


def test_query_loss_is_the_definition_with_a_hand_computed_value():
    # two keys, d_k = 1, q = 0: uniform weights (1/2, 1/2); V = I, target 0:
    # o = (1/2, 1/2), g = (-1/2, 1/2), loss = 0.5 * (1/4 + 1/4) = 1/4
    loss, grad, a = query_loss_and_grad([0.0], [[1.0], [-1.0]], np.eye(2), 0, False)
    assert loss == pytest.approx(0.25)
    np.testing.assert_allclose(a, [0.5, 0.5])
    # dL/ds = J (V g) = 1/4 [[1, -1], [-1, 1]] (-1/2, 1/2) = (-1/4, 1/4); dL/dq = K^T dL/ds = -1/2
    np.testing.assert_allclose(grad, [-0.5])


def test_batched_problems_equal_one_at_a_time():
    rng = np.random.default_rng(4)
    K, q0, V = rng.standard_normal((3, 5, 16)), rng.standard_normal((3, 16)), rng.standard_normal((5, 2))
    targets = np.array([4, 0, 2])
    loss_b, grad_b, a_b = query_loss_and_grad(q0, K, V, targets, True)
    assert loss_b.shape == (3,) and grad_b.shape == (3, 16) and a_b.shape == (3, 5)
    run_b = train_query(K, V, targets, True, lr=0.5, steps=15, q0=q0)
    assert run_b.losses.shape == (3, 16) and run_b.grad_norms.shape == (3, 15) and run_b.query.shape == (3, 16)
    for i in range(3):
        loss, grad, a = query_loss_and_grad(q0[i], K[i], V, int(targets[i]), True)
        assert isinstance(loss, float) and loss == pytest.approx(loss_b[i])
        np.testing.assert_allclose(grad, grad_b[i], rtol=1e-12, atol=1e-15)
        run = train_query(K[i], V, int(targets[i]), True, lr=0.5, steps=15, q0=q0[i])
        np.testing.assert_allclose(run.losses, run_b.losses[i], rtol=1e-10)
        np.testing.assert_allclose(run.target_weight, run_b.target_weight[i], rtol=1e-10)
        np.testing.assert_allclose(run.query, run_b.query[i], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("target", [5, -1, 1.0, [0, 1]])
def test_query_loss_rejects_bad_targets(target):
    with pytest.raises(ValueError):
        query_loss_and_grad(np.zeros(4), np.ones((5, 4)), np.eye(5), target, False)


def test_scaled_training_equals_unscaled_with_rescaled_init_and_step():
    # softmax(K q / sqrt(d)) with q = sqrt(d) p: gradient descent on q with step lr
    # is gradient descent on p with step lr / d.
    rng = np.random.default_rng(1)
    d = 64
    K, q0 = rng.standard_normal((6, d)), rng.standard_normal(d)
    a = train_query(K, np.eye(6), 3, True, lr=1.0, steps=20, q0=q0)
    b = train_query(K, np.eye(6), 3, False, lr=1.0 / d, steps=20, q0=q0 / math.sqrt(d))
    np.testing.assert_allclose(a.losses, b.losses, rtol=1e-9)
    np.testing.assert_allclose(a.query / math.sqrt(d), b.query, rtol=1e-9, atol=1e-12)


def test_scaled_learns_where_unscaled_gets_stuck():
    # 20 random problems at d_k = 256 (fixed seed). Scaled: every run gets its
    # target weight close to 1. Unscaled: most runs start in a saturated softmax
    # and never move (a few lucky ones do learn - the claim is statistical).
    res = learning_trials(256, n_trials=20, T=16, lr=1.0, steps=300, seed=5)
    assert np.all(res["final_scaled"] < 0.05), res["final_scaled"]
    stuck = res["final_raw"] > 0.5
    assert np.mean(stuck) >= 0.6, res["final_raw"]
    assert np.median(res["gradlast_raw"][stuck]) < 1e-6  # stuck because the gradient is ~0
    assert np.min(res["gradlast_scaled"]) > 1e-4  # the scaled runs can still move
    assert res["curves_raw"].shape == (20, 301)


# -------------------------------------------------------------------- drawing / widget


def test_figure_renders_png_and_changes_with_the_view():
    fig = SaturationFigure(T=16)
    a = fig.render(compute(16, 1.0, True, 0))
    b = fig.render(compute(1024, 1.0, False, 0))
    assert a.startswith(PNG_MAGIC) and b.startswith(PNG_MAGIC) and a != b
    with pytest.raises(ValueError):
        fig.render(compute(16, 1.0, True, 0, T=8))


def test_figure_backgrounds_are_cached_per_axis_limit():
    fig = SaturationFigure(T=16)
    views = [compute(d, 1.0, True, 0) for d in D_K_OPTIONS]  # all scaled: one limit or two
    for v in views * 3:
        fig.render(v)
    assert fig.n_full_draws <= 3


def test_widget_slider_changes_update_the_image():
    ex = saturation_explorer(d_k=16, scaled=True, seed=0)
    before = bytes(ex.image.value)
    assert before.startswith(PNG_MAGIC)
    ex.d_k_slider.value = 1024
    assert ex.view.d_k == 1024 and bytes(ex.image.value) != before
    after_dk = bytes(ex.image.value)
    ex.scaled_checkbox.value = False
    assert ex.view.scaled is False and bytes(ex.image.value) != after_dk
    after_check = bytes(ex.image.value)
    ex.magnitude_slider.value = 5.0
    assert ex.view.magnitude == pytest.approx(5.0) and bytes(ex.image.value) != after_check
    ex.seed_input.value = 7
    assert ex.view.seed == 7
    assert "Jacobian" in ex.readout.value and f"{ex.view.max_weight:.4f}" in ex.readout.value
    assert list(ex.d_k_slider.options) == [2**i for i in range(11)]


def test_widget_rejects_values_off_the_sliders():
    with pytest.raises(ValueError):
        saturation_explorer(d_k=100)
    with pytest.raises(ValueError):
        saturation_explorer(magnitude=50.0)


def test_naive_and_small_multiples_draw():
    import matplotlib.pyplot as plt

    assert naive_figure_png(compute(64, 1.0, False, 0)).startswith(PNG_MAGIC)
    n_before = len(plt.get_fignums())
    naive_figure_png(compute(64, 1.0, False, 0))
    assert len(plt.get_fignums()) == n_before  # the naive path closes its figure
    fig = small_multiples((16, 1024), T=8)
    assert len(fig.axes) == 4
    # each panel's title carries the readouts of the same compute() view (in the title, so no bar is hidden)
    for ax, (d_k, scaled) in zip(fig.axes, [(16, False), (1024, False), (16, True), (1024, True)]):
        v = compute(d_k, 1.0, scaled, 0, T=8)
        assert f"max {v.max_weight:.3f}" in ax.get_title() and f"||J|| {v.jacobian_norm:.1e}" in ax.get_title()
        assert not ax.texts
    plt.close(fig)


def test_all_slider_positions_render_without_warnings():
    fig = SaturationFigure()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise", under="ignore"):
            for d_k, scaled, m in itertools.product(D_K_OPTIONS, (False, True), MAGNITUDE_RANGE):
                assert fig.render(compute(d_k, m, scaled, 0)).startswith(PNG_MAGIC)


# ------------------------------------------------------------------------ self-checks


def test_self_checks_accept_right_and_reject_wrong_answers(capsys):
    from helpers.checks.saturation import (
        check_dot_variance,
        check_is_attention_matrix,
        check_scaled_scores,
        check_softmax_jacobian,
    )

    assert check_dot_variance(lambda d, vq, vk: d * vq * vk)
    assert not check_dot_variance(lambda d, vq, vk: d * (vq + vk) / 2)  # sum instead of product
    assert not check_dot_variance(lambda d, vq, vk: math.sqrt(d) * vq * vk)  # the std, not the variance
    assert check_scaled_scores(lambda Q, K: Q @ K.T / math.sqrt(K.shape[-1]))
    assert not check_scaled_scores(lambda Q, K: Q @ K.T / K.shape[-1])
    assert check_softmax_jacobian(lambda a: np.diag(a) - np.outer(a, a))
    assert not check_softmax_jacobian(lambda a: np.diag(a * (1 - a)))  # diagonal only
    assert check_is_attention_matrix(lambda A: bool((A >= 0).all() and np.allclose(A.sum(axis=-1), 1, atol=1e-6)))
    assert not check_is_attention_matrix(lambda A: bool(np.allclose(A.sum(axis=0), 1)))  # wrong axis
    assert not check_is_attention_matrix(lambda A: bool(np.allclose(A.sum(axis=-1), 1)))  # forgets the sign

    def stub(*args):
        raise NotImplementedError

    assert not check_scaled_scores(stub)
    out = capsys.readouterr().out
    assert "not done yet" in out
