"""The measured experiments of 2.5 (helpers.saturation_experiment): rates, table, learning problem."""

import math

import numpy as np
import pytest

from helpers.lessons.gradcheck import numerical_gradient, relative_error
from helpers.lessons.saturation.experiment import (learning_trials, query_loss_and_grad, saturation_rates, saturation_table,
                                           train_query)


def test_scaled_rates_do_not_depend_on_d_k_unscaled_rates_rise():
    # the property 2.5 states, over 300 seeds: at 1/tau = 10 the scaled rate of saturated rows
    # stays in a band (within 4 binomial standard errors of the rates' mean), the unscaled rate rises
    r = saturation_rates((8, 32, 128, 512), inv_temp=10.0, n_seeds=300)
    sc, un = r["frac_saturated_scaled"], r["frac_saturated_unscaled"]
    band = 4 * np.sqrt(sc.mean() * (1 - sc.mean()) / 300)
    assert np.all(np.abs(sc - sc.mean()) < band), sc
    assert np.all(np.diff(un) > 0) and np.all(un > sc), un
    r1 = saturation_rates((8, 32, 128, 512), inv_temp=1.0, n_seeds=300)
    assert np.all(r1["frac_saturated_scaled"] == 0)
    assert np.all(np.diff(r1["frac_saturated_unscaled"]) > 0)
    assert np.all(np.diff(r1["median_jacobian_norm_unscaled"]) < 0)


def test_table_unscaled_sharpens_scaled_stays_put():
    rows = saturation_table((16, 64, 256, 1024), T=16, n_trials=400, seed=11)
    raw = [r["jac_norm_raw"] for r in rows]
    scaled = [r["jac_norm_scaled"] for r in rows]
    assert all(a > b for a, b in zip(raw, raw[1:])), raw
    assert max(scaled) - min(scaled) < 0.05 and min(scaled) > 0.25, scaled
    assert rows[-1]["jac_norm_median_raw"] < 1e-3
    for r in rows:
        assert r["std_raw"] == pytest.approx(r["std_theory"], rel=0.05)
    assert rows[-1]["max_weight_raw"] > 0.9 > 0.3 > max(r["max_weight_scaled"] for r in rows)
    assert rows[-1]["frac_saturated_raw"] > 0.5 and max(r["frac_saturated_scaled"] for r in rows) == 0.0


def test_query_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    K, V, q = rng.standard_normal((5, 8)), rng.standard_normal((5, 3)), rng.standard_normal(8)
    for scaled in (False, True):
        _, grad, _ = query_loss_and_grad(q, K, V, 2, scaled)
        fd = numerical_gradient(lambda x: query_loss_and_grad(x, K, V, 2, scaled)[0], q)
        assert relative_error(grad, fd, floor=1e-9) < 1e-5


def test_query_loss_hand_computed_value():
    loss, grad, a = query_loss_and_grad([0.0], [[1.0], [-1.0]], np.eye(2), 0, False)
    assert loss == pytest.approx(0.25)
    np.testing.assert_allclose(a, [0.5, 0.5])
    np.testing.assert_allclose(grad, [-0.5])


def test_batched_problems_equal_one_at_a_time():
    rng = np.random.default_rng(4)
    K, q0, V = rng.standard_normal((3, 5, 16)), rng.standard_normal((3, 16)), rng.standard_normal((5, 2))
    targets = np.array([4, 0, 2])
    run_b = train_query(K, V, targets, True, lr=0.5, steps=15, q0=q0)
    for i in range(3):
        run = train_query(K[i], V, int(targets[i]), True, lr=0.5, steps=15, q0=q0[i])
        np.testing.assert_allclose(run.losses, run_b.losses[i], rtol=1e-10)
        np.testing.assert_allclose(run.query, run_b.query[i], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("target", [5, -1, 1.0, [0, 1]])
def test_query_loss_rejects_bad_targets(target):
    with pytest.raises(ValueError):
        query_loss_and_grad(np.zeros(4), np.ones((5, 4)), np.eye(5), target, False)


def test_scaled_training_equals_unscaled_with_rescaled_init_and_step():
    rng = np.random.default_rng(1)
    d = 64
    K, q0 = rng.standard_normal((6, d)), rng.standard_normal(d)
    a = train_query(K, np.eye(6), 3, True, lr=1.0, steps=20, q0=q0)
    b = train_query(K, np.eye(6), 3, False, lr=1.0 / d, steps=20, q0=q0 / math.sqrt(d))
    np.testing.assert_allclose(a.losses, b.losses, rtol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_scaled_learns_where_unscaled_gets_stuck(seed):
    res = learning_trials(256, n_trials=20, T=16, lr=1.0, steps=300, seed=seed)
    assert np.all(res["final_scaled"] < 0.05), res["final_scaled"]
    stuck = res["final_raw"] > 0.5
    assert np.mean(stuck) >= 0.6, res["final_raw"]
    assert np.median(res["gradlast_raw"][stuck]) < 1e-6
    assert res["curves_raw"].shape == (20, 301) and res["grads_scaled"].shape == (20, 300)
    np.testing.assert_array_equal(res["grads_raw"][:, -1], res["gradlast_raw"])


def test_saturation_table_memory_stays_bounded_for_the_try_it_extremes():
    # the try-it knob allows T = 4096 with d_k = 1024: chunks of 50 trials would draw 800 MiB of keys
    import tracemalloc

    from helpers.lessons.saturation.experiment import saturation_table

    tracemalloc.start()
    rows = saturation_table((1024,), T=4096, n_trials=3, seed=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200 * 2**20 and 0 < rows[0]["max_weight_raw"] <= 1
