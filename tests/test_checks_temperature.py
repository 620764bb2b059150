"""2.2's derivative and limit checks: exercise 2's check_output_key_jacobian and the (graded) transfer
check_high_temperature_drift accept correct variants, reject the classic wrong answers and name a finite stand-in
(a finite difference, one large finite temperature) as such."""

import numpy as np

import helpers as H
from helpers.checks import check_high_temperature_drift, check_output_key_jacobian
from check_verdicts import check_table


def _soft(q, K, V, tau):
    s = K @ q / tau
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def test_stubs_are_not_done(capsys):
    def stub(*args):
        raise NotImplementedError

    assert not check_output_key_jacobian(stub).passed
    assert not check_high_temperature_drift(stub).passed


def test_a_central_difference_around_the_helper_is_refused(capsys):
    """Exercise 2 asks for the derivative written in numpy: wrapping H.soft_lookup in a central difference passed
    (fresh-eyes review); now it refuses helpers."""
    def dkey_by_fd(q, K, V, tau, j, h=1e-6):
        cols = []
        for b in range(K.shape[1]):
            Kp, Km = K.astype(float).copy(), K.astype(float).copy()
            Kp[j, b] += h
            Km[j, b] -= h
            cols.append((H.soft_lookup.soft_lookup(q, Kp, V, tau).output
                         - H.soft_lookup.soft_lookup(q, Km, V, tau).output) / (2 * h))
        return np.stack(cols, axis=-1)

    assert not check_output_key_jacobian(dkey_by_fd).passed
    assert "只用 numpy" in capsys.readouterr().out


# ---- exercise 2 (d output / d k_j, numpy only) : the same for a finite difference in the key -----------------------

def _key_difference(kind, h):
    def dkey(q, K, V, tau, j):
        cols = []
        for b in range(K.shape[1]):
            Kp = K.copy()
            Kp[j, b] += h
            if kind == "central":
                Km = K.copy()
                Km[j, b] -= h
                cols.append((_soft(q, Kp, V, tau) - _soft(q, Km, V, tau)) / (2 * h))
            else:
                cols.append((_soft(q, Kp, V, tau) - _soft(q, K, V, tau)) / h)
        return np.stack(cols, axis=-1)
    return dkey


def dkey_zeros_loop(q, K, V, tau, j):
    """A novice's loop: the accumulator np.zeros is float64 even on the float32 case."""
    s = K @ q / tau
    a = np.exp(s - np.max(s))
    a = a / np.sum(a)
    out = np.zeros(V.shape[1])
    for i in range(V.shape[0]):
        out += a[i] * V[i]
    J = np.zeros((V.shape[1], K.shape[1]))
    for r in range(V.shape[1]):
        for c in range(K.shape[1]):
            J[r, c] = a[j] * (V[j, r] - out[r]) * q[c] / tau
    return J


def dkey_ok(q, K, V, tau, j):
    s = K @ q / tau
    a = np.exp(s - s.max())
    a /= a.sum()
    return a[j] * np.outer(V[j] - a @ V, q) / tau


def dkey_einsum(q, K, V, tau, j):
    s = np.einsum("nd,d->n", K, q) / tau
    a = np.exp(s - s.max())
    a /= a.sum()
    return np.einsum("v,d->vd", a[j] * (V[j] - np.einsum("n,nv->v", a, V)), q / tau)


def dkey_loops(q, K, V, tau, j):
    s = [sum(K[i, b] * q[b] for b in range(len(q))) / tau for i in range(len(K))]
    e = [np.exp(s_i - max(s)) for s_i in s]
    a = [e_i / sum(e) for e_i in e]
    J = np.zeros((V.shape[1], len(q)), dtype=np.result_type(q, K, V))
    for r in range(V.shape[1]):
        out_r = sum(a[i] * V[i, r] for i in range(len(a)))
        for c in range(len(q)):
            J[r, c] = a[j] * (V[j, r] - out_r) * q[c] / tau
    return J


def _f32_key(fn):
    return lambda q, K, V, tau, j: fn(*(np.asarray(x).astype(np.float32) for x in (q, K, V)), tau, j)


test_key_analytic_variants_accepted, test_key_finite_differences_rejected = check_table(
    check_output_key_jacobian,
    {"outer product": dkey_ok, "einsum": dkey_einsum, "loops": dkey_loops, "float32 throughout": _f32_key(dkey_ok),
     "float32 loops": _f32_key(dkey_loops), "float64 work, float32 result": lambda *a: dkey_ok(*a).astype(np.float32),
     "loop into np.zeros": dkey_zeros_loop},
    {**{f"{kind} h={h:g}": (_key_difference(kind, h), ["数值差分", "解析导数"])
        for kind in ("central", "forward") for h in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7)},
     "central, float64 work, input dtype kept": (
         lambda q, K, V, tau, j: _key_difference("central", 1e-6)(*(np.asarray(x, dtype=float) for x in (q, K, V)), tau, j)
         .astype(np.result_type(q, K, V)), ["数值差分", "解析导数"]),
     # a step proportional to tau passed the 1e12 case, which is scale-invariant for it (fresh-eyes review)
     **{f"central h={r:g} * tau, float64 work": (
         lambda q, K, V, tau, j, r=r: _key_difference("central", r * tau)(*(np.asarray(x, dtype=float) for x in (q, K, V)), tau, j),
         ["数值差分", "解析导数"]) for r in (3e-3, 5e-3, 1e-2, 1e-5)},
     # a float64 accumulator on float32 inputs is float32 work, accepted below; this is not float32 precision
     "loops, off by 1e-6": (lambda *a: dkey_loops(*a) * (1 + 1e-6), ["数值"])},
    min_cases=6)


# ---- the transfer (graded): D = lim tau -> inf of tau (output - mean of V), numpy only ---------------------------
# Derivation (independent of the check's code): with eps = 1/tau, alpha = softmax(eps s); at eps = 0 alpha = 1/n, and
# d alpha / d eps = (diag(alpha) - alpha^T alpha) s, so D = V^T (I/n - 11^T/n^2) s = (1/n) sum_i (s_i - sbar) v_i.

def drift_jacobian(q, K, V):
    s = K @ q
    n = len(s)
    J = np.eye(n, dtype=s.dtype) / n - np.ones((n, n), dtype=s.dtype) / n**2
    return V.T @ J @ s


def drift_covariance(q, K, V):
    s = K @ q
    return ((s - s.mean())[:, None] * (V - V.mean(axis=0))).mean(axis=0)


def drift_loops(q, K, V):
    n, d_v = V.shape
    s = [sum(K[i, b] * q[b] for b in range(len(q))) for i in range(n)]
    s_bar = sum(s) / n
    out = np.zeros(d_v, dtype=np.result_type(q, K, V))
    for i in range(n):
        out += (s[i] - s_bar) * V[i] / n
    return out


def drift_einsum(q, K, V):
    s = np.einsum("nd,d->n", K, q)
    return np.einsum("n,nv->v", s - s.mean(), V) / len(s)


def _f32_drift(fn):
    return lambda q, K, V: fn(*(np.asarray(x).astype(np.float32) for x in (q, K, V)))


def _finite_tau(tau):
    return lambda q, K, V: tau * (_soft(np.asarray(q, float), np.asarray(K, float), np.asarray(V, float), tau)
                                  - np.asarray(V, float).mean(axis=0))


test_drift_accepts, test_drift_names_the_mistake = check_table(
    check_high_temperature_drift,
    {"softmax Jacobian at uniform weights": drift_jacobian, "covariance": drift_covariance, "loops": drift_loops,
     "einsum": drift_einsum, "float32 throughout": _f32_drift(drift_jacobian), "float32 loops": _f32_drift(drift_loops),
     "float64 work, float32 result": lambda q, K, V: drift_covariance(q, K, V).astype(np.float32)},
    {"scores not centred": (lambda q, K, V: (K @ q) @ V / len(K), "平均分数"),
     "a sum, not a mean": (lambda q, K, V: len(K) * drift_einsum(q, K, V), "少了 1/n"),
     "divided by n - 1": (lambda q, K, V: drift_einsum(q, K, V) * len(K) / max(len(K) - 1, 1), "n−1"),
     "sign flipped": (lambda q, K, V: -drift_einsum(q, K, V), "符号反了"),
     "divided by n twice": (lambda q, K, V: drift_einsum(q, K, V) / len(K), "多除了一次 n"),
     "the limit itself": (lambda q, K, V: V.mean(axis=0), "极限本身"),
     "scaled by sqrt(d_k)": (lambda q, K, V: drift_einsum(q, K, V) / np.sqrt(len(q)), "√d_k"),
     **{f"one finite tau = {t:g}": (_finite_tau(t), ["有限", "解析式"]) for t in (1e4, 1e6, 1e8)},
     "float32 work, float64 result": (lambda q, K, V: _f32_drift(drift_jacobian)(q, K, V).astype(np.float64),
                                      ["float32 的精度量级", "保持 float32"]),
     "the helper's soft lookup at a large tau": (
         lambda q, K, V: 1e6 * (H.soft_lookup.soft_lookup(q, K, V, 1e6).output - V.mean(axis=0)), "只用 numpy")},
    min_cases=6)


def test_the_answer_is_the_limit_it_claims():
    """tau (output(tau) - mean V) approaches the accepted formula as tau grows, with an error falling like 1/tau."""
    rng = np.random.default_rng(7)
    q, K, V = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=(6, 2))
    D = drift_covariance(q, K, V)
    errors = [np.abs(_finite_tau(t)(q, K, V) - D).max() for t in (1e2, 1e3, 1e4)]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-3 * np.abs(D).max()
    assert 5 < errors[0] / errors[1] < 20 and 5 < errors[1] / errors[2] < 20     # first order in 1/tau
