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

from .._validate import as_real_array, check_positive_int
from ._validate import check_encoder_sizes, check_hf_config, check_input_ids, check_layer_norm_inputs, check_pooled, \
    check_weight
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
        check_encoder_sizes(self)

    def multiply_adds(self, T: int) -> int:
        """Multiply-adds of the matrix products of one forward pass over ``T`` tokens.

        Per layer: the Q, K, V and output projections (4 T d^2), the scores and the weighted
        sum of every head (2 T^2 d in all) and the feed-forward block (2 T d d_ff).
        Layer norms, GELU and softmax are O(T d) and left out.
        """
        T = check_positive_int("T", T)
        d, d_ff = self.hidden, self.intermediate
        return self.n_layers * (4 * T * d * d + 2 * T * T * d + 2 * T * d * d_ff)

    @property
    def head_dim(self) -> int:
        """d_h = hidden / n_heads (32 for MiniLM)."""
        return self.hidden // self.n_heads

    @classmethod
    def from_hf_config(cls, cfg: Mapping) -> EncoderConfig:
        """Build from a Hugging Face BERT ``config.json`` dict (activation must be exact GELU)."""
        cfg = check_hf_config(cfg)
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


def erf(x) -> np.ndarray:
    """The error function, element-wise, via :func:`math.erf` (correctly rounded double precision).

    numpy has no ``erf``; this applies the standard library's to every element (through a flat
    list: about 2.5x faster than ``np.frompyfunc``, which builds an object array; same values).

    Parameters
    ----------
    x : array_like, shape (...)

    Returns
    -------
    numpy.ndarray, shape (...), float64
    """
    x = as_real_array("x", x, expected="(...)", allow_nonfinite=True)
    return np.fromiter(map(math.erf, x.astype(np.float64).ravel().tolist()), np.float64, x.size).reshape(x.shape)


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
    x, gamma, beta = check_layer_norm_inputs(x, gamma, beta)
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * gamma + beta


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
    ids, tt = check_input_ids(input_ids, token_type_ids, c)
    T = ids.size
    d, H = c.hidden, c.n_heads
    p = "embeddings."
    word = check_weight(p + "word_embeddings.weight", weights, (c.vocab_size, d))
    pos = check_weight(p + "position_embeddings.weight", weights, (c.max_positions, d))
    typ = check_weight(p + "token_type_embeddings.weight", weights, (c.type_vocab_size, d))
    dtype = np.result_type(pos.dtype, np.float32)
    x = word[ids].astype(dtype) + pos[:T] + typ[tt]
    x = layer_norm(x, check_weight(p + "LayerNorm.weight", weights, (d,)), check_weight(p + "LayerNorm.bias", weights, (d,)), c.layer_norm_eps)
    hidden, attn = [x], []
    for layer in range(c.n_layers):
        p = f"encoder.layer.{layer}."

        def W(name, shape, _p=p):
            return check_weight(_p + name, weights, shape)

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
    v = check_pooled(hidden).mean(axis=0)
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
