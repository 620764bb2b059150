"""The 2.2 transfer check (check_temperature_gradient) accepts correct variants and rejects the classic wrong answers."""

import numpy as np

from helpers.checks import check_temperature_gradient
from check_verdicts import check_table, fails as _fails


def test_stub_is_not_done(capsys):
    def stub(*args):
        raise NotImplementedError

    assert not check_temperature_gradient(stub).passed


# --- 2.2 derivative with respect to the temperature ------------------------------------------

def _soft(q, K, V, tau):
    s = K @ q / tau
    a = np.exp(s - s.max())
    return (a / a.sum()) @ V


def dtau_ok(q, K, V, tau):
    s = K @ q
    a = np.exp(s / tau - (s / tau).max())
    a /= a.sum()
    J = np.diag(a) - np.outer(a, a)
    return V.T @ J @ (-s / tau**2)


def dtau_fd(q, K, V, tau):
    h = 1e-6 * tau
    return (_soft(q, K, V, tau + h) - _soft(q, K, V, tau - h)) / (2 * h)


WRONG = [
    lambda q, K, V, tau: -dtau_ok(q, K, V, tau),                  # sign
    lambda q, K, V, tau: dtau_ok(q, K, V, tau) * tau,             # 1/tau instead of 1/tau^2
    lambda q, K, V, tau: dtau_ok(q, K, V, tau) / tau,             # 1/tau^3
    lambda q, K, V, tau: 1.05 * dtau_ok(q, K, V, tau),            # constant factor
    lambda q, K, V, tau: -((np.exp(K @ q / tau) / np.exp(K @ q / tau).sum()) * (K @ q)) @ V / tau**2,  # not centred
    lambda q, K, V, tau: V.T @ (np.diag(np.exp(K @ q / tau) / np.exp(K @ q / tau).sum())) @ (-(K @ q) / tau**2),  # diag only
    lambda q, K, V, tau: dtau_ok(q, K, V, tau) / tau,             # d(s/tau)/dtau written with the scaled scores
    lambda q, K, V, tau: dtau_ok(q, K, V, 1.0) / tau**2,          # softmax weights taken at tau = 1
    lambda q, K, V, tau: -dtau_ok(q, K, V, tau) * tau**2,         # derivative with respect to 1/tau
    lambda q, K, V, tau: (_soft(q, K, V, tau + 1e-5) - _soft(q, K, V, tau)) / 1e-5,  # crude forward difference
    lambda q, K, V, tau: np.zeros(np.shape(V)[1]),                # "the output does not depend on tau"
]
test_temperature_gradient_accepts, test_temperature_gradient_rejects = check_table(
    check_temperature_gradient, [dtau_ok, dtau_fd], WRONG)


def test_temperature_gradient_rejects_unstable_softmax(capsys):
    def unstable(q, K, V, tau):
        s = K @ q
        a = np.exp(s / tau)
        a /= a.sum()
        return V.T @ (np.diag(a) - np.outer(a, a)) @ (-s / tau**2)

    with np.errstate(over="ignore", invalid="ignore"):
        _fails(capsys, check_temperature_gradient(unstable))


# ---- checks review (issue 20, a novice's own answers): the mistake actually made is named ----------------

def _q_jacobian_times_q(q, K, V, tau):
    s = K @ q / tau
    a = np.exp(s - s.max())
    a /= a.sum()
    return V.T @ (np.diag(a) - np.outer(a, a)) @ K @ q / tau


test_temperature_review_accepts, test_temperature_review_names_the_mistake = check_table(
    check_temperature_gradient, [lambda q, K, V, tau: dtau_ok(q, K, V, tau).astype(np.float32)], {
        "sign flipped": (lambda q, K, V, tau: -dtau_ok(q, K, V, tau), "符号反了"),
        "1/tau instead of 1/tau^2": (lambda q, K, V, tau: dtau_ok(q, K, V, tau) * tau, "只除了一次 τ"),
        "1/tau^3": (lambda q, K, V, tau: dtau_ok(q, K, V, tau) / tau, "除了三次 τ"),
        "the q-Jacobian times q": (_q_jacobian_times_q, "对查询的导数"),
    })


def test_a_central_difference_around_the_helper_is_refused(capsys):
    """2.2's exercise 2 and its (graded) transfer ask for the derivative written in numpy: wrapping
    H.soft_lookup in a central difference passed both (fresh-eyes review); now both refuse helpers."""
    import helpers as H
    from helpers.checks import check_output_key_jacobian

    def dtau_by_fd(q, K, V, tau, h=1e-5):
        return (H.soft_lookup.soft_lookup(q, K, V, tau + h).output
                - H.soft_lookup.soft_lookup(q, K, V, tau - h).output) / (2 * h)

    def dkey_by_fd(q, K, V, tau, j, h=1e-6):
        cols = []
        for b in range(K.shape[1]):
            Kp, Km = K.astype(float).copy(), K.astype(float).copy()
            Kp[j, b] += h
            Km[j, b] -= h
            cols.append((H.soft_lookup.soft_lookup(q, Kp, V, tau).output
                         - H.soft_lookup.soft_lookup(q, Km, V, tau).output) / (2 * h))
        return np.stack(cols, axis=-1)

    for check, fn in ((check_temperature_gradient, dtau_by_fd), (check_output_key_jacobian, dkey_by_fd)):
        assert not check(fn).passed
        assert "只用 numpy" in capsys.readouterr().out
