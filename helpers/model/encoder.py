"""A numpy-only BERT encoder forward pass (chapter 2.13, the real-model notebook).

This is the architecture of all-MiniLM-L6-v2 (and of BERT): token + position +
token-type embeddings, LayerNorm, then ``n_layers`` identical blocks of

    A   = MultiHead(X)                    # per head: softmax(Q K^T / sqrt(d_h)) V
    X   = LayerNorm(X + A W_O + b_O)      # residual, then LayerNorm ("post-LN")
    F   = GELU(X W_1 + b_1) W_2 + b_2     # feed-forward, d -> 4d -> d
    X   = LayerNorm(X + F)

Every head's attention is computed by this project's own
:func:`helpers.scaled_dot_product_attention` (batched over the head axis), so
the weights the notebook plots are exactly the chapter's formula.

Weights are a flat mapping with the Hugging Face ``BertModel`` names
(``"encoder.layer.0.attention.self.query.weight"``...); a dense layer's weight
has shape (out, in) and computes ``y = x W^T + b``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .._validate import as_int_array, as_real_array, check_choice, check_int, check_real
from ..core.attention import scaled_dot_product_attention
from ..core.heads import merge_heads, split_heads

__all__ = [
    "EncoderConfig",
    "EncoderOutput",
    "erf",
    "gelu",
    "layer_norm",
    "encoder_forward",
    "mean_pool_normalize",
    "random_encoder_weights",
]

@dataclass(frozen=True)
class EncoderConfig:
    """Sizes of a BERT encoder (defaults: all-MiniLM-L6-v2's ``config.json``).

    Attributes
    ----------
    vocab_size, hidden, n_layers, n_heads, intermediate, max_positions, type_vocab_size : int
    layer_norm_eps : float
    """

    vocab_size: int = 30522
    hidden: int = 384
    n_layers: int = 6
    n_heads: int = 12
    intermediate: int = 1536
    max_positions: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12

    def __post_init__(self):
        for name in ("vocab_size", "hidden", "n_layers", "n_heads", "intermediate", "max_positions", "type_vocab_size"):
            check_int(f"EncoderConfig.{name}", getattr(self, name), 1)
        if self.hidden % self.n_heads:
            raise ValueError(f"hidden ({self.hidden}) must be divisible by n_heads ({self.n_heads}).")
        check_real("layer_norm_eps", self.layer_norm_eps, 0.0, strict=True)

    def multiply_adds(self, T: int) -> int:
        """Multiply-adds of the matrix products of one forward pass over ``T`` tokens.

        Per layer: the Q, K, V and output projections (4 T d^2), the scores and the weighted
        sum of every head (2 T^2 d in all) and the feed-forward block (2 T d d_ff).
        Layer norms, GELU and softmax are O(T d) and left out.
        """
        T = check_int("T", T, 1)
        d, d_ff = self.hidden, self.intermediate
        return self.n_layers * (4 * T * d * d + 2 * T * T * d + 2 * T * d * d_ff)

    @property
    def head_dim(self) -> int:
        """d_h = hidden / n_heads (32 for MiniLM)."""
        return self.hidden // self.n_heads

    @classmethod
    def from_hf_config(cls, cfg: Mapping) -> EncoderConfig:
        """Build from a Hugging Face BERT ``config.json`` dict (activation must be exact GELU)."""
        check_choice("hidden_act", cfg.get("hidden_act", "gelu"), ("gelu",), note=" (the exact erf form is implemented)")
        check_choice("position_embedding_type", cfg.get("position_embedding_type", "absolute"), ("absolute",))
        return cls(vocab_size=cfg["vocab_size"], hidden=cfg["hidden_size"], n_layers=cfg["num_hidden_layers"],
                   n_heads=cfg["num_attention_heads"], intermediate=cfg["intermediate_size"],
                   max_positions=cfg["max_position_embeddings"], type_vocab_size=cfg["type_vocab_size"],
                   layer_norm_eps=float(cfg["layer_norm_eps"]))


class EncoderOutput(NamedTuple):
    """What :func:`encoder_forward` returns.

    Attributes
    ----------
    hidden_states : numpy.ndarray, shape (n_layers + 1, T, hidden)
        ``hidden_states[0]`` is the embedding output, ``hidden_states[l]`` the output of layer l.
    attentions : numpy.ndarray, shape (n_layers, n_heads, T, T)
        ``attentions[l, h, i, j]``: how much token i attends to token j in layer l+1, head h+1.
        Every row sums to 1.
    """

    hidden_states: np.ndarray
    attentions: np.ndarray

    @property
    def last_hidden(self) -> np.ndarray:
        """shape (T, hidden): the final layer's token vectors."""
        return self.hidden_states[-1]


# W. J. Cody's rational Chebyshev approximations of erf and erfc (Math. Comp. 23, 1969, 631-637; the
# coefficients of his SPECFUN routine CALERF), each polynomial written highest power first.
_ERF_SMALL = ((1.85777706184603153e-1, 3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
               3.20937758913846947e03),
              (1.0, 2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03))
_ERFC_MID = ((2.15311535474403846e-8, 5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
              2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03,
              1.23033935479799725e03),
             (1.0, 1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
              3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03))
_ERFC_TAIL = ((1.63153871373020978e-2, 3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
               1.60837851487422766e-2, 6.58749161529837803e-4),
              (1.0, 2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
               2.33520497626869185e-3))


def _ratio(coefficients, t: np.ndarray) -> np.ndarray:
    """P(t) / Q(t) by Horner's rule, for ``coefficients = (P, Q)`` (highest power first)."""
    num, den = (np.full_like(t, c[0]) for c in coefficients)
    for r, c in zip((num, den), coefficients):
        for k in c[1:]:
            r *= t
            r += k
    return num / den


def erf(x) -> np.ndarray:
    """The error function, element-wise, in float64: W. J. Cody's rational approximations, vectorised.

    numpy has no ``erf``. Three ranges of ``y = |x|``: ``y <= 0.46875``: ``erf = y P(y^2) / Q(y^2)``;
    ``0.46875 < y <= 4``: ``erf = 1 - exp(-y^2) P(y) / Q(y)``; ``y > 4``:
    ``erf = 1 - exp(-y^2) / y (1/sqrt(pi) - z P(z) / Q(z))`` with ``z = 1 / y^2``; then the sign of ``x``.
    It agrees with the correctly rounded :func:`math.erf` to a relative 1e-15 (a few units in the last
    place; ``tests/test_encoder.py`` compares millions of points, tails, the range ends, +-0, +-inf and NaN),
    and, unlike mapping :func:`math.erf` over the elements, makes no Python float per element.

    Parameters
    ----------
    x : array_like, shape (...)

    Returns
    -------
    numpy.ndarray, shape (...), float64
    """
    x = as_real_array("x", x, expected="(...)", allow_nonfinite=True).astype(np.float64)
    y = np.abs(x).ravel()
    out = np.empty_like(y)
    small, tail = y <= 0.46875, ~(y <= 4.0)              # NaN goes to the tail branch and stays NaN
    mid = ~(small | tail)
    ys = y[small]
    out[small] = ys * _ratio(_ERF_SMALL, ys * ys)
    ym = y[mid]
    out[mid] = 1.0 - np.exp(-ym * ym) * _ratio(_ERFC_MID, ym)
    yt = np.minimum(y[tail], 8.0)                        # erf(y) rounds to 1.0 from y ~ 5.93 on; no overflow in y*y
    z = 1.0 / (yt * yt)
    out[tail] = 1.0 - np.exp(-yt * yt) * (1.0 / math.sqrt(math.pi) - z * _ratio(_ERFC_TAIL, z)) / yt
    return np.copysign(out, x.ravel()).reshape(x.shape)


def gelu(x) -> np.ndarray:
    """GELU in BERT's exact form: x * Phi(x) = x * (1 + erf(x / sqrt 2)) / 2.

    Not the tanh approximation (which differs from it by up to 4.7e-4, near |x| = 2.7).

    Parameters
    ----------
    x : array_like, shape (...)

    Returns
    -------
    numpy.ndarray, shape (...), the dtype of ``x`` (float64 for integer input)
    """
    x = as_real_array("x", x, expected="(...)")
    out = 0.5 * x.astype(np.float64) * (1.0 + erf(x.astype(np.float64) / math.sqrt(2.0)))
    return out.astype(x.dtype if np.issubdtype(x.dtype, np.floating) else np.float64)


def layer_norm(x, gamma, beta, eps: float = 1e-12) -> np.ndarray:
    """LayerNorm over the last axis: (x - mean) / sqrt(var + eps) * gamma + beta (biased variance).

    Parameters
    ----------
    x : array_like, shape (..., d)
    gamma, beta : array_like, shape (d,)
    eps : float, optional

    Returns
    -------
    numpy.ndarray, shape (..., d)
    """
    x = as_real_array("x", x, min_ndim=1, expected="(..., d)")
    gamma = as_real_array("gamma", gamma, shape=x.shape[-1:], expected="(d,)")
    beta = as_real_array("beta", beta, shape=x.shape[-1:], expected="(d,)")
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


def _weight(weights: Mapping, name: str, shape: tuple) -> np.ndarray:
    """``weights[name]`` as an array of ``shape`` (``KeyError`` if absent, as a mapping would raise)."""
    if name not in weights:
        raise KeyError(f"weights lack {name!r} (expected shape {shape}).")
    w = np.asarray(weights[name])
    if w.shape != shape:
        raise ValueError(f"weights[{name!r}] has shape {w.shape}; expected {shape}.")
    return w


def _dense(x, w, b):
    return x @ w.T + b


def encoder_forward(weights: Mapping[str, np.ndarray], input_ids, config: EncoderConfig = EncoderConfig(),
                    token_type_ids=None, mask=None, after_layer=None) -> EncoderOutput:
    """Run one sequence through a BERT encoder; return every layer's hidden states and attention.

    Parameters
    ----------
    weights : mapping str -> numpy.ndarray
        Hugging Face ``BertModel`` names without the ``bert.`` prefix (see module docstring).
        Computation runs in the dtype of the layer weights.
    input_ids : array_like of int, shape (T,)
        Token ids, e.g. ``[101, ..., 102]`` from :class:`helpers.model.wordpiece.WordPieceTokenizer`.
    config : EncoderConfig, optional
    token_type_ids : array_like of int, shape (T,), optional
        Segment ids (default all 0: one sentence).
    mask : array_like, shape (T, T), optional
        Passed to :func:`helpers.scaled_dot_product_attention` in every layer (boolean,
        True = may attend). None (default) = bidirectional, as the model was trained.
        ``helpers.causal_mask(T)`` shows what the model could see with a decoder's mask.
    after_layer : callable, optional
        Called as ``after_layer(l)`` once layer ``l`` (0-based) is done; :mod:`helpers.model.real_model`
        uses it to let the operating system drop the pages of memory-mapped weights it has read.

    Returns
    -------
    EncoderOutput
        ``hidden_states`` (n_layers + 1, T, hidden) and ``attentions`` (n_layers, n_heads, T, T).
    """
    c = config
    ids = as_int_array("input_ids", input_ids, ndim=1, low=0, high=c.vocab_size, expected="(T,)")
    T = ids.size
    if not 1 <= T <= c.max_positions:
        raise ValueError(f"input_ids must hold 1 .. max_positions={c.max_positions} tokens; got {T}.")
    tt = np.zeros(T, dtype=np.int64) if token_type_ids is None else as_int_array(
        "token_type_ids", token_type_ids, shape=(T,), low=0, high=c.type_vocab_size, expected="(T,)")
    d, H = c.hidden, c.n_heads
    p = "embeddings."
    word = _weight(weights, p + "word_embeddings.weight", (c.vocab_size, d))
    pos = _weight(weights, p + "position_embeddings.weight", (c.max_positions, d))
    typ = _weight(weights, p + "token_type_embeddings.weight", (c.type_vocab_size, d))
    dtype = np.result_type(pos.dtype, np.float32)
    x = word[ids].astype(dtype) + pos[:T] + typ[tt]
    x = layer_norm(x, _weight(weights, p + "LayerNorm.weight", (d,)), _weight(weights, p + "LayerNorm.bias", (d,)), c.layer_norm_eps)
    hidden, attn = [x], []
    for layer in range(c.n_layers):
        p = f"encoder.layer.{layer}."

        def W(name, shape, _p=p):
            return _weight(weights, _p + name, shape)

        def heads(name, _W=W, _x=x):  # (T, d) -> (H, T, d_h)
            y = _dense(_x, _W(f"attention.self.{name}.weight", (d, d)), _W(f"attention.self.{name}.bias", (d,)))
            return split_heads(y, H)

        res = scaled_dot_product_attention(heads("query"), heads("key"), heads("value"), mask=mask)
        context = merge_heads(res.output)          # concatenate the heads: (H, T, d_h) -> (T, d)
        a = _dense(context, W("attention.output.dense.weight", (d, d)), W("attention.output.dense.bias", (d,)))
        x = layer_norm(x + a, W("attention.output.LayerNorm.weight", (d,)), W("attention.output.LayerNorm.bias", (d,)),
                       c.layer_norm_eps)
        f = gelu(_dense(x, W("intermediate.dense.weight", (c.intermediate, d)), W("intermediate.dense.bias", (c.intermediate,))))
        f = _dense(f, W("output.dense.weight", (d, c.intermediate)), W("output.dense.bias", (d,)))
        x = layer_norm(x + f, W("output.LayerNorm.weight", (d,)), W("output.LayerNorm.bias", (d,)), c.layer_norm_eps)
        hidden.append(x)
        attn.append(res.weights)
        if after_layer is not None:
            after_layer(layer)
    return EncoderOutput(np.stack(hidden), np.stack(attn))


def mean_pool_normalize(hidden) -> np.ndarray:
    """Sentence embedding of all-MiniLM-L6-v2: mean over tokens (incl. [CLS]/[SEP]), then L2-normalise.

    Parameters
    ----------
    hidden : array_like, shape (T, d)
        The last layer's token vectors of one unpadded sentence.

    Returns
    -------
    numpy.ndarray, shape (d,), unit Euclidean norm
    """
    v = as_real_array("hidden", hidden, ndim=2, expected="(T, d)").mean(axis=0)
    if np.linalg.norm(v) == 0:
        raise ValueError("the mean token vector is zero; it has no direction to normalise.")
    return v / np.linalg.norm(v)


def random_encoder_weights(config: EncoderConfig, rng: np.random.Generator, scale: float = 0.5) -> dict[str, np.ndarray]:
    """Random weights with the right names and shapes (float64), for tests and toy demos.

    Parameters
    ----------
    config : EncoderConfig
    rng : numpy.random.Generator
    scale : float, optional
        Standard deviation of the dense weights is ``scale / sqrt(fan_in)``.

    Returns
    -------
    dict str -> numpy.ndarray
    """
    c, d = config, config.hidden
    w = {
        "embeddings.word_embeddings.weight": rng.normal(size=(c.vocab_size, d)),
        "embeddings.position_embeddings.weight": rng.normal(size=(c.max_positions, d)),
        "embeddings.token_type_embeddings.weight": rng.normal(size=(c.type_vocab_size, d)),
        "embeddings.LayerNorm.weight": 1 + 0.1 * rng.normal(size=d),
        "embeddings.LayerNorm.bias": 0.1 * rng.normal(size=d),
    }
    shapes = {"attention.self.query": (d, d), "attention.self.key": (d, d), "attention.self.value": (d, d),
              "attention.output.dense": (d, d), "intermediate.dense": (c.intermediate, d), "output.dense": (d, c.intermediate)}
    for layer in range(c.n_layers):
        p = f"encoder.layer.{layer}."
        for name, (o, i) in shapes.items():
            w[p + name + ".weight"] = rng.normal(size=(o, i)) * scale / math.sqrt(i)
            w[p + name + ".bias"] = 0.1 * rng.normal(size=o)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[p + ln + ".weight"] = 1 + 0.1 * rng.normal(size=d)
            w[p + ln + ".bias"] = 0.1 * rng.normal(size=d)
    return w
