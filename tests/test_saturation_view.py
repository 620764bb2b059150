"""The pure numbers behind the 2.5 saturation explorer (helpers.saturation_view)."""

import math
import warnings

import numpy as np
import pytest

from helpers.lessons.saturation.view import (D_K_OPTIONS, D_MAX, INV_TEMP_RANGE, bank_summary, fixed_draw, jacobian_norm,
                                     saturation_state, score_bank)
from helpers.core.softmax import softmax, softmax_jacobian


def test_state_uses_a_prefix_of_one_fixed_draw():
    q, K = fixed_draw(3, T=10)
    assert q.shape == (D_MAX,) and K.shape == (10, D_MAX)
    rng = np.random.default_rng(3)  # query first, then the keys
    np.testing.assert_array_equal(q, rng.standard_normal(D_MAX))
    np.testing.assert_array_equal(K, rng.standard_normal((10, D_MAX)))
    for d_k in (1, 7, 64, 1024):
        v = saturation_state(d_k, 1.0, False, seed=3, T=10)
        np.testing.assert_allclose(v.raw_scores, [sum(K[i, j] * q[j] for j in range(d_k)) for i in range(10)])


def test_moving_d_k_does_not_redraw():
    # the first 64 components are the same whether we look at d_k = 64 or at d_k = 128:
    # the d_k = 128 scores are the d_k = 64 scores plus the contribution of components 64 ... 127
    q, K = fixed_draw(0)
    a, b = saturation_state(64, seed=0), saturation_state(128, seed=0)
    np.testing.assert_allclose(b.raw_scores - a.raw_scores, K[:, 64:128] @ q[64:128], atol=1e-12)
    np.testing.assert_array_equal(saturation_state(64, seed=0, draw=(q, K)).raw_scores, a.raw_scores)


def test_both_modes_rescale_the_same_scores():
    v = saturation_state(256, 2.5, True, seed=1)
    np.testing.assert_allclose(v.unscaled.scores, 2.5 * v.raw_scores)
    np.testing.assert_allclose(v.scaled.scores, 2.5 * v.raw_scores / 16.0)  # sqrt(256) = 16
    assert v.unscaled.std_theory == 2.5 * 16 and v.scaled.std_theory == 2.5
    assert v.shown is v.scaled and v.ghost is v.unscaled
    w = saturation_state(256, 2.5, False, seed=1)
    assert w.shown is w.unscaled and w.ghost is w.scaled


def test_readouts_and_jacobian_match_hand_formulas():
    v = saturation_state(16, 0.7, True, seed=5, T=6)
    for m in (v.unscaled, v.scaled):
        e = np.exp(m.scores - m.scores.max())
        a = e / e.sum()
        np.testing.assert_allclose(m.weights, a)
        assert m.max_weight == pytest.approx(a.max())
        assert m.entropy == pytest.approx(-np.sum(a * np.log(a)))
        J = np.array([[a[i] * ((i == j) - a[j]) for j in range(6)] for i in range(6)])
        np.testing.assert_allclose(m.jacobian, J, atol=1e-15)
        assert m.jacobian_norm == pytest.approx(math.sqrt((J**2).sum()))


def test_jacobian_norm_known_values_and_accuracy_near_one_hot():
    assert float(jacobian_norm([0.5, 0.5])) == pytest.approx(0.5)
    assert float(jacobian_norm([0.0, 1.0, 0.0])) == 0.0
    n = 8
    expected = math.sqrt(n * (1 / n - 1 / n**2) ** 2 + n * (n - 1) / n**4)
    assert float(jacobian_norm(np.full(n, 1 / n))) == pytest.approx(expected)
    # two keys: ||J||_F = 2 a_1 a_2 exactly, even when a_2 is 1e-40 (no cancellation)
    for gap in (1.0, 20.0, 90.0):
        a = softmax(np.array([gap, 0.0]))
        assert float(jacobian_norm(a)) == pytest.approx(2 * a[0] * a[1], rel=1e-12)
    # agrees with building J wherever J itself is accurate
    rng = np.random.default_rng(0)
    w = softmax(3 * rng.standard_normal((50, 16)))
    ref = np.sqrt((softmax_jacobian(w) ** 2).sum(axis=(-2, -1)))
    np.testing.assert_allclose(jacobian_norm(w), ref, rtol=1e-9)


def test_inverse_temperature_zero_is_uniform():
    v = saturation_state(1024, 0.0, False)
    np.testing.assert_allclose(v.unscaled.weights, 1 / v.T)
    assert v.unscaled.entropy == pytest.approx(math.log(v.T))


@pytest.mark.parametrize("d_k", [D_K_OPTIONS[0], D_K_OPTIONS[-1]])
@pytest.mark.parametrize("inv_temp", [0.0, INV_TEMP_RANGE[0], 1.0, INV_TEMP_RANGE[1], 1000.0])
@pytest.mark.parametrize("seed", [0, 10**6])
def test_slider_extremes_are_finite_and_silent(d_k, inv_temp, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise", under="ignore"):
            v = saturation_state(d_k, inv_temp, True, seed=seed)
            for m in (v.unscaled, v.scaled):
                for arr in (m.scores, m.weights, m.jacobian):
                    assert np.all(np.isfinite(arr))
                assert m.weights.sum() == pytest.approx(1.0) and np.all(m.weights >= 0)
                assert 0 <= m.entropy <= math.log(v.T) + 1e-12
                assert 1 / v.T - 1e-12 <= m.max_weight <= 1.0
                assert 0 <= m.jacobian_norm <= 0.5 + 1e-12
                assert math.isfinite(m.std_theory)
            s = bank_summary(score_bank(16, 20), D_K_OPTIONS, inv_temp)
            for table in (s.median_max_weight, s.median_jacobian_norm, s.frac_saturated):
                for arr in table.values():
                    assert arr.shape == (len(D_K_OPTIONS),) and np.all(np.isfinite(arr))


@pytest.mark.parametrize("bad, exc", [
    (dict(d_k=0), ValueError), (dict(d_k=2.0), TypeError), (dict(d_k=D_MAX + 1), ValueError),
    (dict(inv_temp=-1.0), ValueError), (dict(inv_temp=float("nan")), ValueError), (dict(inv_temp="big"), TypeError),
    (dict(seed=-1), ValueError), (dict(seed=1.5), TypeError), (dict(T=1), ValueError), (dict(divide="yes"), TypeError),
])
def test_state_rejects_bad_settings(bad, exc):
    with pytest.raises(exc):
        saturation_state(**(dict(d_k=16, inv_temp=1.0, divide=True, seed=0, T=8) | bad))


def test_bank_rows_are_the_single_samples():
    d_ks = (1, 16, 1024)
    bank = score_bank(T=8, n_seeds=3, d_ks=d_ks, first_seed=5)
    assert bank.shape == (3, 3, 8)
    for s in range(3):
        for i, d in enumerate(d_ks):
            np.testing.assert_allclose(bank[s, i], saturation_state(d, seed=5 + s, T=8).raw_scores, atol=1e-10)


def test_bank_summary_matches_a_direct_computation():
    d_ks = (4, 256)
    bank = score_bank(T=16, n_seeds=30, d_ks=d_ks)
    s = bank_summary(bank, d_ks, 3.0)
    for i, d in enumerate(d_ks):
        views = [saturation_state(d, 3.0, True, seed=k) for k in range(30)]
        for mode in ("unscaled", "scaled"):
            top = np.array([getattr(v, mode).max_weight for v in views])
            jn = np.array([getattr(v, mode).jacobian_norm for v in views])
            assert s.median_max_weight[mode][i] == pytest.approx(np.median(top))
            assert s.median_jacobian_norm[mode][i] == pytest.approx(np.median(jn), rel=1e-9, abs=1e-300)
            assert s.frac_saturated[mode][i] == pytest.approx(np.mean(top > 0.99))
    with pytest.raises(ValueError):
        bank_summary(bank, (4, 16, 256), 1.0)
