"""Softmax saturation (chapter 2.5): the measured experiments.

- :func:`saturation_rates` — P(largest weight > 0.99), median largest weight and
  median ``||J||_F`` against d_k, unscaled and scaled, over the explorer's seeds;
- :func:`draw_scores` — the scores of one query against T keys drawn from their exact
  distribution without drawing the vectors (given q, the T scores ``q . k_j`` are i.i.d.
  ``N(0, ||q||^2)``, and ``||q||^2`` is chi-square with d_k degrees of freedom): cost
  independent of d_k, so many draws fit in a classroom kernel's time;
- :func:`sampled_saturation_rates` — P(largest weight > 0.99) from :func:`draw_scores`,
  precise enough (20 000 draws: standard error ~0.003) to see small differences;
- :func:`saturation_table` — the chapter's d_k table with measured columns;
- :func:`query_loss_and_grad`, :func:`train_query`, :func:`learning_trials` (:func:`learning_trials_many`:
  several d_k in one batch) — a tiny learning problem that shows the gradient vanish without the scaling.

Pure functions (arrays in, arrays out); every Monte Carlo temporary is (draws, T), whatever d_k,
so a classroom kernel stays small.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..._validate import as_int_array, as_real_array, check_flag, check_int, check_real, describe
from .view import (D_MAX, DEFAULT_T, SATURATED, bank_summary, jacobian_norm,
                   score_bank)
from ...core.softmax import entropy, softmax, softmax_of_checked

__all__ = ["saturation_rates", "draw_scores", "sampled_saturation_rates", "saturation_table", "TrainingRun",
           "query_loss_and_grad", "train_query", "learning_trials", "learning_trials_many"]


def saturation_rates(d_ks=(8, 32, 128, 512), inv_temp: float = 1.0, n_seeds: int = 300, T: int = DEFAULT_T) -> dict:
    """Saturation against d_k over ``n_seeds`` independent draws, unscaled and scaled.

    Uses the explorer's draws (:func:`helpers.lessons.saturation.view.fixed_draw` for seeds
    0 ... n_seeds - 1), so the notebook's rates and the explorer's curves agree.

    Returns
    -------
    dict
        ``d_ks`` (tuple), ``n_seeds``, and for ``mode`` in ``("unscaled", "scaled")``:
        ``frac_saturated_<mode>`` (P(max weight > 0.99)), ``median_max_weight_<mode>``,
        ``median_jacobian_norm_<mode>`` — numpy arrays of shape (len(d_ks),) — and
        ``stderr_<mode>``, the binomial standard error sqrt(p (1 - p) / n_seeds) of each rate.
    """
    d_ks = tuple(check_int("d_k", d, 1, D_MAX) for d in d_ks)
    n_seeds = check_int("n_seeds", n_seeds, 1)
    summary = bank_summary(score_bank(T, n_seeds, d_ks), d_ks, inv_temp)
    out = {"d_ks": d_ks, "n_seeds": n_seeds, "inv_temp": summary.inv_temp}
    for mode in ("unscaled", "scaled"):
        p = summary.frac_saturated[mode]
        out[f"frac_saturated_{mode}"] = p
        out[f"stderr_{mode}"] = _binomial_se(p, n_seeds)
        out[f"median_max_weight_{mode}"] = summary.median_max_weight[mode]
        out[f"median_jacobian_norm_{mode}"] = summary.median_jacobian_norm[mode]
    return out


def draw_scores(rng: np.random.Generator, n: int, T: int, d_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Raw scores ``K q`` of ``n`` independent draws (query and T keys with i.i.d. N(0, 1) components).

    Exact in distribution without drawing the vectors: given q, each ``q . k_j`` is a sum of
    d_k independent ``N(0, q_i^2)`` terms, i.e. ``N(0, ||q||^2)``, independently over j; and
    ``||q||^2`` is chi-square with d_k degrees of freedom. So ``scores = ||q|| * z`` with
    ``z ~ N(0, I_T)``. (``tests/test_saturation_experiment.py`` compares it with direct draws.)

    Returns
    -------
    scores : numpy.ndarray, shape (n, T)
    q_norm : numpy.ndarray, shape (n,)
        ``||q||`` of each draw; the scaled scores of a draw are ``(||q|| / sqrt(d_k)) * z``.
    """
    scores = np.empty((n, T))
    return scores, _draw_scores_into(rng, d_k, scores)


def _draw_scores_into(rng: np.random.Generator, d_k: int, out: np.ndarray) -> np.ndarray:
    """:func:`draw_scores` written into ``out`` (n, T), the same numbers from the same stream; returns ``q_norm`` (n,).

    Filling one buffer instead of returning new (n, T) arrays: at 20 000 draws a fresh 2.5 MB temporary costs
    more to allocate (page faults) than the arithmetic that fills it.
    """
    q_norm = np.sqrt(rng.chisquare(d_k, size=out.shape[0]))
    rng.standard_normal(out=out)                      # the values standard_normal((n, T)) would return
    np.multiply(q_norm[:, None], out, out=out)
    return q_norm


def _binomial_se(p: np.ndarray, n: int) -> np.ndarray:
    return np.sqrt(p * (1 - p) / n)


def sampled_saturation_rates(d_ks=(8, 32, 128, 512), inv_temp: float = 1.0, n_draws: int = 20_000,
                             T: int = DEFAULT_T, seed: int = 0) -> dict:
    """P(largest weight > 0.99) against d_k, unscaled and scaled, over ``n_draws`` draws per d_k.

    Each d_k gets its own independent draws (:func:`draw_scores`); unscaled and scaled use the
    same draws. Vectorised over the draws: the cost does not grow with d_k.

    Returns
    -------
    dict
        ``d_ks`` (tuple), ``n_draws``, ``inv_temp``; for ``mode`` in ``("unscaled", "scaled")``:
        ``frac_saturated_<mode>`` and ``stderr_<mode>`` (binomial standard error
        sqrt(p (1 - p) / n_draws)), arrays of shape (len(d_ks),); ``spread`` (n_draws, len(d_ks)),
        each draw's ``||q|| / sqrt(d_k)`` (the factor that multiplies its scaled scores: an inverse
        temperature of the query's own), and ``saturated_scaled`` (n_draws, len(d_ks)) bool.
    """
    d_ks = tuple(check_int("d_k", d, 1, D_MAX) for d in d_ks)
    inv_temp = check_real("inv_temp", inv_temp, 0.0, 1e3, note=" (1/tau)")
    n_draws = check_int("n_draws", n_draws, 1)
    T = check_int("T", T, 1)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    spread = np.empty((n_draws, len(d_ks)))
    sat = {mode: np.empty((n_draws, len(d_ks)), dtype=bool) for mode in ("unscaled", "scaled")}
    gap, e = np.empty((n_draws, T)), np.empty((n_draws, T))  # two buffers for every d_k: no fresh (n_draws, T) arrays
    for i, d_k in enumerate(d_ks):
        q_norm = _draw_scores_into(rng, d_k, gap)             # the raw scores
        spread[:, i] = q_norm / math.sqrt(d_k)
        np.subtract(gap, gap.max(axis=-1, keepdims=True), out=gap)   # <= 0, and 0 at each draw's largest score
        for mode, factor in (("unscaled", inv_temp), ("scaled", inv_temp / math.sqrt(d_k))):
            # the largest weight of softmax(factor * raw) is 1 / sum_j exp(factor * gap_j): no need for the others
            np.exp(np.multiply(factor, gap, out=e), out=e)
            sat[mode][:, i] = e.sum(axis=-1) < 1.0 / SATURATED
    out = {"d_ks": d_ks, "n_draws": n_draws, "inv_temp": inv_temp, "spread": spread, "saturated_scaled": sat["scaled"]}
    for mode in ("unscaled", "scaled"):
        p = sat[mode].mean(axis=0)
        out[f"frac_saturated_{mode}"] = p
        out[f"stderr_{mode}"] = _binomial_se(p, n_draws)
    return out


def saturation_table(d_ks=(16, 64, 256, 1024), T: int = DEFAULT_T, n_trials: int = 200, seed: int = 0) -> list[dict]:
    """Measure how saturated softmax is, unscaled vs scaled, for several d_k.

    For each ``d_k``, ``n_trials`` independent (query, T keys) samples with i.i.d. N(0, 1)
    components (their scores drawn exactly by :func:`draw_scores`, so a learner's T = 4096,
    d_k = 1024 costs no more than d_k = 16); summarise the largest weight, the entropy and
    ``||J||_F`` — once for the raw scores and once divided by ``sqrt(d_k)`` (same samples).

    Returns
    -------
    list of dict
        One dict per d_k with keys ``d_k``, ``std_theory`` (sqrt(d_k)), ``std_raw``
        (measured std of the raw scores), and for ``tag`` in ``("raw", "scaled")``:
        ``max_weight_<tag>``, ``entropy_<tag>``, ``jac_norm_<tag>`` (means over trials),
        ``jac_norm_median_<tag>`` and ``frac_saturated_<tag>`` (fraction with largest
        weight > 0.99); all floats.
    """
    T = check_int("T", T, 1)
    n_trials = check_int("n_trials", n_trials, 1)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    rows = []
    for d_k in d_ks:
        d_k = check_int("d_k", d_k, 1, D_MAX)
        raw, _ = draw_scores(rng, n_trials, T, d_k)  # (n_trials, T)
        row = {"d_k": d_k, "std_theory": math.sqrt(d_k), "std_raw": float(raw.std())}
        for tag, s in (("raw", raw), ("scaled", raw / math.sqrt(d_k))):
            a = softmax(s)
            jn = jacobian_norm(a)
            row[f"max_weight_{tag}"] = float(a.max(axis=-1).mean())
            row[f"entropy_{tag}"] = float(entropy(a).mean())
            row[f"jac_norm_{tag}"] = float(jn.mean())
            row[f"jac_norm_median_{tag}"] = float(np.median(jn))
            row[f"frac_saturated_{tag}"] = float(np.mean(a.max(axis=-1) > SATURATED))
        rows.append(row)
    return rows


@dataclass(frozen=True)
class TrainingRun:
    """Result of :func:`train_query` (``...`` is the batch shape; empty for one problem).

    Attributes
    ----------
    losses : numpy.ndarray, shape (..., steps + 1)
    grad_norms : numpy.ndarray, shape (..., steps)
        ``||dL/dq||`` at each step.
    target_weight : numpy.ndarray, shape (..., steps + 1)
    query : numpy.ndarray, shape (..., d_k)
        The final query.
    """

    losses: np.ndarray
    grad_norms: np.ndarray
    target_weight: np.ndarray
    query: np.ndarray


def query_loss_and_grad(q, K, V, target, scaled: bool):
    """Loss ``0.5 * ||softmax(c q K^T) V - V[target]||^2`` and its gradient in q (q a row vector).

    ``c = 1/sqrt(d_k)`` if ``scaled`` else 1. With ``s = c q K^T``, ``a = softmax(s)``,
    ``g = a V - V[target]`` (rows): ``dL/da = g V^T``, ``dL/ds = (dL/da) J = a * (dL/da - (dL/da) . a)``
    (J is symmetric), ``dL/dq = c (dL/ds) K``. Leading batch dimensions run many problems at once.

    Returns
    -------
    loss : float (one problem) or numpy.ndarray, shape (...)
    grad : numpy.ndarray, shape (..., d_k)
    weights : numpy.ndarray, shape (..., T)
    """
    q = as_real_array("q", q, min_ndim=1, expected="(..., d_k)")
    K = as_real_array("K", K, min_ndim=2, expected="(..., T, d_k)")
    V = as_real_array("V", V, min_ndim=2, expected="(..., T, d_v) or (T, d_v)")
    q, K, V, t, batch = _fit(q, K, V, target)
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    v_t = np.take_along_axis(Vb, t[..., None, None], axis=-2)[..., 0, :]
    loss, grad, a = _loss_and_grad(q, K, Vb, v_t, _scale(K, scaled))
    return (float(loss) if not batch else loss), grad, a


def _fit(q, K, V, target):
    """Shapes and target of already-converted arrays; returns ``q, K, V, target (batch shape), batch``."""
    batch = K.shape[:-2]
    if q.shape != batch + K.shape[-1:] or V.shape[-2] != K.shape[-2] or V.shape[:-2] not in ((), batch):
        raise ValueError(f"shapes do not fit: q {q.shape} (..., d_k), K {K.shape} (..., T, d_k), "
                         f"V {V.shape} (..., T, d_v) or (T, d_v).")
    t = as_int_array("target", target, low=0, high=K.shape[-2], note=" (the index of a key)")
    if t.shape not in ((), batch):
        raise ValueError(f"target must be an integer or an integer array of shape {batch}; got {describe(t)}.")
    return q, K, V, np.broadcast_to(t, batch), batch


def _scale(K: np.ndarray, scaled: bool) -> float:
    return 1.0 / math.sqrt(K.shape[-1]) if check_flag("scaled", scaled) else 1.0


def _loss_and_grad(q, K, Vb, v_t, c):
    """:func:`query_loss_and_grad` on checked arrays (Vb broadcast to the batch, v_t the target rows)."""
    s = c * (q[..., None, :] @ np.swapaxes(K, -1, -2))[..., 0, :]       # (..., T)
    a = softmax_of_checked(s)
    g = (a[..., None, :] @ Vb)[..., 0, :] - v_t                         # (..., d_v)
    u = (g[..., None, :] @ np.swapaxes(Vb, -1, -2))[..., 0, :]          # dL/da, (..., T)
    ds = a * (u - np.sum(a * u, axis=-1, keepdims=True))                # (dL/da) J
    grad = c * (ds[..., None, :] @ K)[..., 0, :]                        # (..., d_k)
    return 0.5 * np.sum(g * g, axis=-1), grad, a


def train_query(K, V, target, scaled: bool, *, lr: float = 0.5, steps: int = 200, q0=None) -> TrainingRun:
    """Learn a query that retrieves ``V[target]`` by plain gradient descent (batched over ``...``).

    Parameters
    ----------
    K : array_like, shape (..., T, d_k)
    V : array_like, shape (..., T, d_v) or (T, d_v)
    target : int or array_like of int, shape (...)
    scaled : bool
        Divide the scores by ``sqrt(d_k)``.
    lr, steps
        Step size on q and number of steps.
    q0 : array_like, shape (..., d_k), optional
        Starting query (default zeros: uniform attention).
    """
    K = as_real_array("K", K, min_ndim=2, expected="(..., T, d_k)")
    steps = check_int("steps", steps, 1)
    shape = K.shape[:-2] + K.shape[-1:]
    q = np.zeros(shape) if q0 is None else as_real_array("q0", q0, min_ndim=1, expected="(..., d_k)").astype(float)
    V = as_real_array("V", V, min_ndim=2, expected="(..., T, d_v) or (T, d_v)")
    q, K, V, t, batch = _fit(q, K, V, target)   # every input checked once; the loop runs unchecked
    Vb = np.broadcast_to(V, batch + V.shape[-2:])
    v_t = np.take_along_axis(Vb, t[..., None, None], axis=-2)[..., 0, :]
    c = _scale(K, scaled)
    # Every step moves q by a combination of the key rows (dL/dq = c (dL/ds) K), so q = q0 + gamma K
    # for a gamma of length T, and the loop runs in those T numbers: s = c q0 K^T + c gamma (K K^T),
    # ||dL/dq|| = c sqrt(ds (K K^T) ds^T). The same iterates as stepping q itself, at a cost that
    # does not grow with d_k (tests/test_saturation_experiment.py compares both).
    s0 = c * (q[..., None, :] @ np.swapaxes(K, -1, -2))[..., 0, :]       # (..., T)
    gamma, losses, norms, tw = _descend(s0, K @ np.swapaxes(K, -1, -2), c, Vb, v_t, t, lr, steps)
    q = q + (gamma[..., None, :] @ K)[..., 0, :]
    return TrainingRun(*(np.moveaxis(np.array(x, dtype=float), 0, -1) for x in (losses, norms, tw)), q)


def _descend(s0, G, c, Vb, v_t, t, lr, steps, *, target_weights: bool = True):
    """The loop of :func:`train_query` on checked arrays, in the T numbers gamma with q = q0 + gamma K.

    ``s0`` (..., T) the starting scores, ``G`` (..., T, T) the Gram matrices K K^T, ``c`` the score scale (a float,
    or one per problem, shape (...)). ``Vb`` (..., T, d_v) the values, or None for one-hot values (``V = I_T``):
    then ``a V = a`` and ``g V^T = g`` exactly (each sum adds exact zeros to one product by 1), so both products
    are skipped and the numbers are bit for bit those of ``Vb = I_T``. Returns gamma and the per-step lists of
    losses, gradient norms and target weights (empty when ``target_weights`` is False).
    """
    # Every step moves q by a combination of the key rows (dL/dq = c (dL/ds) K), so q = q0 + gamma K
    # for a gamma of length T, and the loop runs in those T numbers: s = c q0 K^T + c gamma (K K^T),
    # ||dL/dq|| = c sqrt(ds (K K^T) ds^T). The same iterates as stepping q itself, at a cost that
    # does not grow with d_k (tests/test_saturation_experiment.py compares both).
    c = np.asarray(c, dtype=float)
    c_row = c[..., None]                                                # multiplies the (..., T) arrays
    Vt = None if Vb is None else np.swapaxes(Vb, -1, -2)
    t_col = t[..., None]
    gamma = np.zeros(s0.shape)
    losses, norms, tw = [], [], []
    for step in range(steps + 1):
        a = softmax_of_checked(s0 + c_row * (gamma[..., None, :] @ G)[..., 0, :])
        g = (a if Vb is None else (a[..., None, :] @ Vb)[..., 0, :]) - v_t   # o - v_t, (..., d_v)
        losses.append(0.5 * np.sum(g * g, axis=-1))
        if target_weights:
            tw.append(np.take_along_axis(a, t_col, axis=-1)[..., 0])
        if step == steps:
            break
        u = g if Vb is None else (g[..., None, :] @ Vt)[..., 0, :]      # dL/da
        ds = a * (u - np.sum(a * u, axis=-1, keepdims=True))            # dL/ds = (dL/da) J
        norms.append(c * np.sqrt(np.maximum(np.sum((ds[..., None, :] @ G)[..., 0, :] * ds, axis=-1), 0.0)))
        gamma = gamma - lr * c_row * ds
    return gamma, losses, norms, tw


def learning_trials(d_k: int, n_trials: int = 20, T: int = DEFAULT_T, *, lr: float = 1.0, steps: int = 200,
                    seed: int = 0) -> dict:
    """Train the query unscaled and scaled on ``n_trials`` random problems (one batch).

    Each trial draws keys ``K`` (T, d_k) and a start ``q0`` (d_k,) with i.i.d. N(0, 1)
    components and a random target; values are one-hot (``V = I_T``), so the loss is
    ``0.5 * ||a - e_target||^2``. Both runs start from the same ``q0``.

    Returns
    -------
    dict
        ``final_<tag>`` (n_trials,) final losses; ``grad0_<tag>``, ``gradlast_<tag>``
        (n_trials,) ``||dL/dq||`` at the first and last step; ``curves_<tag>``
        (n_trials, steps + 1) loss curves; ``grads_<tag>`` (n_trials, steps) ``||dL/dq||`` at
        every step; ``tag`` in ``("raw", "scaled")``.
    """
    (res,) = learning_trials_many((d_k,), n_trials, T, lr=lr, steps=steps, seed=seed).values()
    return res


def learning_trials_many(d_ks, n_trials: int = 20, T: int = DEFAULT_T, *, lr: float = 1.0, steps: int = 200,
                         seed: int = 0) -> dict:
    """:func:`learning_trials` for several d_k at once: ``{d_k: learning_trials(d_k, ...)}``, same draws and numbers.

    Each d_k draws its problems from its own generator seeded with ``seed`` (as one call would); all of them,
    unscaled and scaled, then descend in one batched loop (the loop runs in T numbers per problem, whatever d_k).
    """
    d_ks = tuple(check_int("d_k", d, 1, D_MAX) for d in d_ks)
    n_trials = check_int("n_trials", n_trials, 1)
    T = check_int("T", T, 1)
    steps = check_int("steps", steps, 1)
    seed = check_int("seed", seed, 0)
    s0, G, c, targets = [], [], [], []
    for d_k in d_ks:
        rng = np.random.default_rng(seed)
        Ks, q0s, ts = [], [], []
        for _ in range(n_trials):
            Ks.append(rng.standard_normal((T, d_k)))
            q0s.append(rng.standard_normal(d_k))
            ts.append(int(rng.integers(T)))
        K, q0 = np.stack(Ks), np.stack(q0s)
        gram = K @ np.swapaxes(K, -1, -2)
        for scaled in (False, True):
            scale = _scale(K, scaled)
            s0.append(scale * (q0[..., None, :] @ np.swapaxes(K, -1, -2))[..., 0, :])
            G.append(gram)
            c.append(np.full(n_trials, scale))
            targets.append(np.array(ts))
        del Ks, q0s, K, q0
    s0, G, c, t = (np.concatenate(x) for x in (s0, G, c, targets))
    # one-hot values (V = I_T): the loop skips the products with V (exact), and nothing reads the target weights
    _, losses, norms, _ = _descend(s0, G, c, None, np.eye(T)[t], t, lr, steps, target_weights=False)
    losses, norms = np.stack(losses, axis=-1), np.stack(norms, axis=-1)   # (problems, steps + 1), (problems, steps)
    out = {}
    for i, d_k in enumerate(d_ks):
        res = {}
        for j, tag in enumerate(("raw", "scaled")):
            rows = slice((2 * i + j) * n_trials, (2 * i + j + 1) * n_trials)
            res[f"final_{tag}"] = losses[rows, -1]
            res[f"grad0_{tag}"] = norms[rows, 0]
            res[f"gradlast_{tag}"] = norms[rows, -1]
            res[f"curves_{tag}"] = losses[rows]
            res[f"grads_{tag}"] = norms[rows]
        out[d_k] = res
    return out
