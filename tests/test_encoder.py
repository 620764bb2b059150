"""The numpy BERT encoder (helpers.encoder) against an independent loop-by-loop reference."""

import math
import warnings

import numpy as np
import pytest

import helpers as H
from helpers.model.encoder import (EncoderConfig, encoder_forward, erf, gelu, layer_norm, mean_pool_normalize,
                             random_encoder_weights)

SMALL = EncoderConfig(vocab_size=23, hidden=8, n_layers=2, n_heads=2, intermediate=12, max_positions=10,
                      type_vocab_size=2, layer_norm_eps=1e-12)


# --- an independent reference: plain loops, scalar math, no helper reused ------------------------

def _ref_layer_norm(v, g, b, eps):
    n = len(v)
    mu = sum(v) / n
    var = sum((x - mu) ** 2 for x in v) / n
    return [(v[k] - mu) / math.sqrt(var + eps) * g[k] + b[k] for k in range(n)]


def _ref_linear(v, W, b):
    return [sum(W[o][i] * v[i] for i in range(len(v))) + b[o] for o in range(len(W))]


def _ref_forward(w, ids, cfg, types=None):
    T, d, nh = len(ids), cfg.hidden, cfg.n_heads
    dh = d // nh
    types = types or [0] * T
    e = "embeddings."
    x = []
    for t in range(T):
        v = [w[e + "word_embeddings.weight"][ids[t]][k] + w[e + "position_embeddings.weight"][t][k]
             + w[e + "token_type_embeddings.weight"][types[t]][k] for k in range(d)]
        x.append(_ref_layer_norm(v, w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], cfg.layer_norm_eps))
    hidden, attn = [x], []
    for layer in range(cfg.n_layers):
        p = f"encoder.layer.{layer}."
        lin = {n: (w[p + n + ".weight"].tolist(), w[p + n + ".bias"].tolist()) for n in
               ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
                "intermediate.dense", "output.dense")}
        q = [_ref_linear(x[t], *lin["attention.self.query"]) for t in range(T)]
        k = [_ref_linear(x[t], *lin["attention.self.key"]) for t in range(T)]
        v = [_ref_linear(x[t], *lin["attention.self.value"]) for t in range(T)]
        A = np.zeros((nh, T, T))
        ctx = [[0.0] * d for _ in range(T)]
        for h in range(nh):
            sl = range(h * dh, (h + 1) * dh)
            for i in range(T):
                s = [sum(q[i][c] * k[j][c] for c in sl) / math.sqrt(dh) for j in range(T)]
                m = max(s)
                ex = [math.exp(z - m) for z in s]
                tot = sum(ex)
                for j in range(T):
                    A[h, i, j] = ex[j] / tot
                for c in sl:
                    ctx[i][c] = sum(A[h, i, j] * v[j][c] for j in range(T))
        new = []
        for t in range(T):
            a = _ref_linear(ctx[t], *lin["attention.output.dense"])
            y = _ref_layer_norm([x[t][c] + a[c] for c in range(d)], w[p + "attention.output.LayerNorm.weight"],
                                w[p + "attention.output.LayerNorm.bias"], cfg.layer_norm_eps)
            f = [0.5 * z * (1 + math.erf(z / math.sqrt(2))) for z in _ref_linear(y, *lin["intermediate.dense"])]
            f = _ref_linear(f, *lin["output.dense"])
            new.append(_ref_layer_norm([y[c] + f[c] for c in range(d)], w[p + "output.LayerNorm.weight"],
                                       w[p + "output.LayerNorm.bias"], cfg.layer_norm_eps))
        x = new
        hidden.append(x)
        attn.append(A)
    return np.array(hidden), np.array(attn)


@pytest.fixture(scope="module")
def weights():
    return random_encoder_weights(SMALL, np.random.default_rng(7))


@pytest.mark.parametrize("ids,types", [([1, 5, 9, 2], None), ([0, 22, 3, 3, 17, 8, 1], [0, 0, 0, 1, 1, 1, 1]), ([4], None)])
def test_forward_matches_loop_reference(weights, ids, types):
    out = encoder_forward(weights, np.array(ids), SMALL, token_type_ids=None if types is None else np.array(types))
    ref_hidden, ref_attn = _ref_forward(weights, ids, SMALL, types)
    T = len(ids)
    assert out.hidden_states.shape == (SMALL.n_layers + 1, T, SMALL.hidden)
    assert out.attentions.shape == (SMALL.n_layers, SMALL.n_heads, T, T)
    np.testing.assert_allclose(out.attentions, ref_attn, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out.hidden_states, ref_hidden, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(out.last_hidden, ref_hidden[-1], rtol=1e-9, atol=1e-10)


def test_attention_rows_are_distributions(weights):
    A = encoder_forward(weights, np.arange(9), SMALL).attentions
    assert (A >= 0).all()
    np.testing.assert_allclose(A.sum(-1), 1.0, atol=1e-12)


def test_causal_mask_hides_the_future_and_default_does_not(weights):
    a, b = np.array([3, 7, 11, 2, 5]), np.array([3, 7, 11, 19, 20])   # differ from position 3 on
    causal = H.causal_mask(5)
    ha = encoder_forward(weights, a, SMALL, mask=causal).hidden_states
    hb = encoder_forward(weights, b, SMALL, mask=causal).hidden_states
    np.testing.assert_allclose(ha[:, :3], hb[:, :3], rtol=0, atol=1e-12)      # the past cannot see the change
    ua = encoder_forward(weights, a, SMALL).hidden_states
    ub = encoder_forward(weights, b, SMALL).hidden_states
    assert np.abs(ua[1:, :3] - ub[1:, :3]).max() > 1e-3                      # bidirectional: it can
    A = encoder_forward(weights, a, SMALL, mask=causal).attentions
    assert np.all(A[..., np.triu_indices(5, 1)[0], np.triu_indices(5, 1)[1]] == 0)


def test_position_embeddings_break_permutation_equivariance(weights):
    ids = np.array([1, 4, 9, 16])
    perm = np.array([2, 0, 3, 1])
    h = encoder_forward(weights, ids, SMALL).last_hidden
    hp = encoder_forward(weights, ids[perm], SMALL).last_hidden
    assert np.abs(hp - h[perm]).max() > 1e-3


def test_erf_and_gelu_known_values():
    # erf values from Abramowitz & Stegun table 7.1 (to 16 digits); Phi(1) = 0.8413447460685429.
    x = np.array([0.0, 0.5, 1.0, 2.0, -1.5])
    want = np.array([0.0, 0.5204998778130465, 0.8427007929497149, 0.9953222650189527, -0.9661051464753108])
    np.testing.assert_allclose(erf(x), want, rtol=1e-15, atol=1e-16)
    np.testing.assert_allclose(gelu(np.array([0.0, 1.0, -1.0])), [0.0, 0.8413447460685429, -0.15865525393145707], rtol=1e-14)
    assert gelu(np.float32([1.0])).dtype == np.float32
    # the tanh approximation is a different function: largest gap about 4.7e-4
    z = np.linspace(-6, 6, 24001)
    tanh_form = 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))
    assert 4.0e-4 < np.abs(gelu(z) - tanh_form).max() < 5.0e-4


def test_erf_matches_math_erf_to_1e_15_everywhere():
    # Cody's rational approximations against the correctly rounded math.erf: a fine grid, random points,
    # tiny to huge magnitudes, both sides of the range ends 0.46875 and 4 (a few ulps each way), the tails
    # where erf rounds to +-1, subnormals, +-0 and +-inf.
    rng = np.random.default_rng(20)
    ends = np.array([b + k * np.spacing(b) for b in (0.46875, 4.0) for k in range(-300, 301)])
    x = np.concatenate([np.linspace(-7, 7, 140_001), rng.normal(0, 3, 100_000), rng.uniform(-30, 30, 20_000),
                        rng.choice([-1.0, 1.0], 50_000) * 10 ** rng.uniform(-300, 1.5, 50_000), ends, -ends,
                        [0.0, -0.0, 5e-324, -5e-324, 2.2250738585072014e-308, 1e-17, 1e300, -1.7976931348623157e308,
                         np.inf, -np.inf]])
    want = np.array([math.erf(v) for v in x.tolist()])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                       # no overflow or invalid-value warning at the extremes
        got = erf(x)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    assert np.array_equal(np.signbit(got), np.signbit(want))   # erf(-0.0) is -0.0, as in math.erf
    assert np.isnan(erf(np.array([np.nan, -np.nan]))).all() and erf(np.zeros((2, 0, 3))).shape == (2, 0, 3)
    grid = rng.normal(0, 2, size=(3, 4, 5))
    assert erf(grid).shape == grid.shape and np.array_equal(erf(grid.astype(np.float32)), erf(grid.astype(np.float32).astype(np.float64)))


def test_layer_norm_standardises_rows():
    x = np.random.default_rng(1).normal(3.0, 5.0, size=(4, 6))
    y = layer_norm(x, np.ones(6), np.zeros(6), eps=1e-12)
    np.testing.assert_allclose(y.mean(-1), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(-1), 1, atol=1e-9)
    with pytest.raises(ValueError, match="gamma"):
        layer_norm(x, np.ones(5), np.zeros(6))


def test_mean_pool_normalize():
    h = np.array([[3.0, 0.0], [1.0, 4.0]])
    np.testing.assert_allclose(mean_pool_normalize(h), [2 / math.sqrt(8), 2 / math.sqrt(8)])
    with pytest.raises(ValueError, match="zero"):
        mean_pool_normalize(np.array([[1.0, -1.0], [-1.0, 1.0]]))


def test_input_validation(weights):
    with pytest.raises(ValueError, match="input_ids"):
        encoder_forward(weights, np.array([1, 99]), SMALL)
    with pytest.raises(ValueError, match="input_ids"):
        encoder_forward(weights, np.array([[1, 2]]), SMALL)
    with pytest.raises(ValueError, match="max_positions"):
        encoder_forward(weights, np.arange(11) % 5, SMALL)
    with pytest.raises(ValueError, match="token_type_ids"):
        encoder_forward(weights, np.array([1, 2]), SMALL, token_type_ids=np.array([0, 2]))
    broken = dict(weights)
    del broken["encoder.layer.1.output.dense.bias"]
    with pytest.raises(KeyError, match="encoder.layer.1.output.dense.bias"):
        encoder_forward(broken, np.array([1, 2]), SMALL)
    broken = dict(weights, **{"embeddings.LayerNorm.weight": np.ones(7)})
    with pytest.raises(ValueError, match="shape"):
        encoder_forward(broken, np.array([1, 2]), SMALL)


def test_config_validation_and_hf_config():
    with pytest.raises(ValueError, match="divisible"):
        EncoderConfig(hidden=10, n_heads=3)
    with pytest.raises(ValueError, match="n_layers"):
        EncoderConfig(n_layers=0)
    cfg = {"vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
           "intermediate_size": 1536, "max_position_embeddings": 512, "type_vocab_size": 2,
           "layer_norm_eps": 1e-12, "hidden_act": "gelu"}
    c = EncoderConfig.from_hf_config(cfg)
    assert (c.hidden, c.n_layers, c.n_heads, c.head_dim) == (384, 6, 12, 32)
    with pytest.raises(ValueError, match="gelu"):
        EncoderConfig.from_hf_config(dict(cfg, hidden_act="relu"))


def test_after_layer_is_called_once_per_layer_and_changes_nothing():
    rng = np.random.default_rng(0)
    cfg = EncoderConfig(vocab_size=50, hidden=8, n_layers=3, n_heads=2, intermediate=16, max_positions=10)
    w = random_encoder_weights(cfg, rng)
    ids = np.array([1, 5, 7, 2])
    seen = []
    out = encoder_forward(w, ids, cfg, after_layer=seen.append)
    assert seen == [0, 1, 2]
    np.testing.assert_array_equal(out.attentions, encoder_forward(w, ids, cfg).attentions)


def test_multiply_adds_count_every_matrix_product_of_a_forward_pass():
    # An independent count: the shapes of every product in one layer, via helpers.cost (2 flops = 1 multiply-add).
    from helpers.lessons.cost import matmul_flops

    cfg = EncoderConfig(vocab_size=50, hidden=24, n_layers=3, n_heads=4, intermediate=40, max_positions=32)
    T, d, dh, h, f = 7, cfg.hidden, cfg.head_dim, cfg.n_heads, cfg.intermediate
    per_layer = (4 * matmul_flops(T, d, d)                                # Q, K, V, output projections
                 + h * (matmul_flops(T, dh, T) + matmul_flops(T, T, dh))  # every head: Q K^T, then A V
                 + matmul_flops(T, d, f) + matmul_flops(T, f, d))         # the feed-forward block
    assert cfg.multiply_adds(T) == cfg.n_layers * per_layer // 2
    assert EncoderConfig().multiply_adds(16) > 0
    with pytest.raises(TypeError, match="T"):
        cfg.multiply_adds(2.5)
