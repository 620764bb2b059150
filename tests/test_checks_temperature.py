"""2.2's derivative checks: the (graded) transfer check_temperature_gradient accepts correct variants and rejects the
classic wrong answers; it and exercise 2's check_output_key_jacobian reject a finite difference and name it."""

import numpy as np

from helpers.checks import check_output_key_jacobian, check_temperature_gradient
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


def dtau_centred(q, K, V, tau):
    s = K @ q
    a = np.exp(s / tau - (s / tau).max())
    a /= a.sum()
    return -((a * (s - a @ s)) @ (V - a @ V)) / tau**2


def dtau_zeros_loop(q, K, V, tau):
    s = K @ q
    z = s / tau
    a = np.exp(z - np.max(z))
    a = a / np.sum(a)
    s_bar = np.sum(a * s)
    out = np.zeros(V.shape[1])
    for i in range(K.shape[0]):
        out += a[i] * (s[i] - s_bar) * V[i]
    return -out / tau**2


def dtau_loops(q, K, V, tau):
    n, d_v = V.shape
    s = [sum(K[i, b] * q[b] for b in range(len(q))) for i in range(n)]
    e = [np.exp((s_i - max(s)) / tau) for s_i in s]
    a = [e_i / sum(e) for e_i in e]
    out = np.zeros(d_v, dtype=np.result_type(q, K, V))
    for c in range(d_v):
        for i in range(n):
            for k in range(n):
                out[c] += V[k, c] * a[k] * ((k == i) - a[i]) * (-s[i] / tau**2)
    return out


def dtau_einsum(q, K, V, tau):
    s = np.einsum("nd,d->n", K, q)
    a = np.exp(s / tau - (s / tau).max())
    a /= a.sum()
    J = np.einsum("i,ij->ij", a, np.eye(len(a), dtype=a.dtype)) - np.einsum("i,j->ij", a, a)
    return np.einsum("nv,nm,m->v", V, J, -s / tau**2)


def _f32(fn):
    """The same answer computed in float32 throughout."""
    return lambda q, K, V, tau: fn(*(np.asarray(x).astype(np.float32) for x in (q, K, V)), tau)


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
    check_temperature_gradient, [dtau_ok], WRONG)


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


# ---- a finite difference is not the analytic derivative (the task asks for the formula, numpy only) -------------
# Before this, a numpy-only central difference (dtau_fd above, h = 1e-6 tau) passed the graded transfer exercise:
# both its float64 cases and its tolerance (rtol 1e-5) let any central step from 1e-3 to 1e-7 through.

def _difference(kind, h, relative=False):
    def dtau(q, K, V, tau):
        step = h * tau if relative else h
        if kind == "central":
            return (_soft(q, K, V, tau + step) - _soft(q, K, V, tau - step)) / (2 * step)
        return (_soft(q, K, V, tau + step) - _soft(q, K, V, tau)) / step
    return dtau


DIFFERENCES = {f"{kind} h={h:g}{' * tau' if rel else ''}": (_difference(kind, h, rel), ["数值差分", "解析导数"])
               for kind in ("central", "forward") for h in (1e-3, 1e-4, 1e-5, 1e-6, 1e-7) for rel in (False, True)}
DIFFERENCES["central h=1e-6 * tau (accepted before)"] = (dtau_fd, ["数值差分", "解析导数"])


def _stencil(kind, rel_step):
    """Fourth-order differences in float64 with a step proportional to tau (passed at tau = 1e4: fresh-eyes review)."""
    def dtau(q, K, V, tau):
        q, K, V = (np.asarray(x, dtype=float) for x in (q, K, V))
        f = lambda t: _soft(q, K, V, t)
        five = lambda h: (f(tau - 2 * h) - 8 * f(tau - h) + 8 * f(tau + h) - f(tau + 2 * h)) / (12 * h)
        central = lambda h: (f(tau + h) - f(tau - h)) / (2 * h)
        h = rel_step * tau
        return five(h) if kind == "five-point" else (4 * central(h / 2) - central(h)) / 3
    return dtau


for _kind in ("five-point", "richardson"):
    for _rel in (1e-3, 2e-3, 4e-3, 7e-3, 1e-2):
        DIFFERENCES[f"{_kind} h={_rel:g} * tau, float64"] = (_stencil(_kind, _rel), ["数值差分", "解析导数"])
DIFFERENCES["central, float64 work, input dtype kept"] = (
    lambda q, K, V, tau: _difference("central", 1e-5)(*(np.asarray(x, dtype=float) for x in (q, K, V)), tau)
    .astype(np.result_type(q, K, V)), ["数值差分", "解析导数"])

test_analytic_variants_accepted, test_finite_differences_rejected = check_table(
    check_temperature_gradient,
    {"diag minus outer": dtau_ok, "centred covariance": dtau_centred, "loops": dtau_loops, "einsum": dtau_einsum,
     "float32 throughout": _f32(dtau_ok), "float32 loops": _f32(dtau_loops), "float32 einsum": _f32(dtau_einsum),
     "float64 work, float32 result": lambda q, K, V, tau: dtau_centred(q, K, V, tau).astype(np.float32),
     # a novice's loop: the accumulator np.zeros(d_v) is float64 even for float32 inputs (fresh-eyes review)
     "loop into np.zeros": dtau_zeros_loop},
    {**DIFFERENCES,
     # the house rule: a float64 result of float32 work is rejected, and told why
     "float32 work, float64 result": (lambda q, K, V, tau: _f32(dtau_ok)(q, K, V, tau).astype(np.float64),
                                      ["float32 的精度量级", "保持 float32"])},
    min_cases=8)


def test_difference_hints_show_no_answer_code(capsys):
    for fn, _ in DIFFERENCES.values():
        check_temperature_gradient(fn)
        out = capsys.readouterr().out
        for code in ("np.", "diag", "outer", "V.T", "@", "sum("):
            assert code not in out, (code, out)


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


# ---- the sign hint is true on 2.2's own data: the direction depends on tau (review) ---------------------------

def test_sign_hint_is_true_on_the_notebooks_data(capsys):
    # 2.2's example: scores K q = (2, 0.4, -2, 1.52), the top value is 5. At tau = 0.3 the output moves away from it
    # as tau grows, at tau = 3 back towards it (3.50 -> 3.80 -> 3.98 for tau = 3, 10, 100): the sign changes.
    K = np.array([[2.0, 0.0], [0.0, 2.0], [-2.0, 0.0], [1.2, 1.6]])
    v = np.array([[5.0], [3.0], [7.0], [1.0]])
    q = np.array([1.0, 0.2])

    def out(tau):
        s = K @ q / tau
        a = np.exp(s - s.max())
        return float(a @ v[:, 0] / a.sum())

    h = 1e-6
    slope = {tau: (out(tau + h) - out(tau - h)) / (2 * h) for tau in (0.3, 3.0)}
    assert slope[0.3] < -1 and slope[3.0] > 0.05                 # away from 5 at tau = 0.3, towards it at tau = 3
    assert out(3) < out(10) < out(100) < 5

    assert not check_temperature_gradient(lambda q, K, V, tau: -dtau_ok(q, K, V, tau))
    said = capsys.readouterr().out
    assert "符号反了" in said and "取决于 τ 和数据" in said, said
    assert "离得分最高的值更远" not in said
