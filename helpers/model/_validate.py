"""The argument checks of helpers.model (tokenizer, encoder, attention measurements of 2.13).

One validator per public call's inputs; messages name the argument and the shapes received. What is
*not* here, on purpose: a missing, truncated or corrupt model file (``cache.verify``, the safetensors
reader, ``load_vocab``) and a failed download are conditions of the machine, not bad arguments; they
raise where they are found.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._validate import as_real_array

__all__ = [
    "check_vocab",
    "check_encoder_sizes",
    "check_hf_config",
    "check_layer_norm_inputs",
    "check_weight",
    "check_input_ids",
    "check_pooled",
    "check_attn",
    "check_token_index",
    "check_token_positions",
    "check_whole_tokens",
    "check_run",
    "check_margins",
]


# ---- tokenizer ----------------------------------------------------------------------------------------

def check_vocab(vocab) -> Mapping:
    """A mapping token -> id holding ``[CLS]``, ``[SEP]`` and ``[UNK]``."""
    if not isinstance(vocab, Mapping):
        raise TypeError(f"vocab must be a mapping token -> id; got {type(vocab).__name__}.")
    missing = [t for t in ("[CLS]", "[SEP]", "[UNK]") if t not in vocab]
    if missing:
        raise ValueError(f"vocab lacks the special token(s) {missing}.")
    return vocab


# ---- encoder ------------------------------------------------------------------------------------------

_SIZES = ("vocab_size", "hidden", "n_layers", "n_heads", "intermediate", "max_positions", "type_vocab_size")


def check_encoder_sizes(config) -> None:
    """The fields of an ``EncoderConfig``: positive int sizes, ``n_heads`` dividing ``hidden``, eps > 0."""
    for name in _SIZES:
        v = getattr(config, name)
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"EncoderConfig.{name} must be a positive int; got {v!r}.")
    if config.hidden % config.n_heads:
        raise ValueError(f"hidden ({config.hidden}) must be divisible by n_heads ({config.n_heads}).")
    if not config.layer_norm_eps > 0:
        raise ValueError(f"layer_norm_eps must be > 0; got {config.layer_norm_eps!r}.")


def check_hf_config(cfg: Mapping) -> Mapping:
    """A Hugging Face BERT ``config.json`` dict this encoder implements (exact GELU, absolute positions)."""
    if cfg.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"only hidden_act='gelu' (exact erf form) is implemented; got {cfg.get('hidden_act')!r}.")
    if cfg.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError(f"only absolute position embeddings are implemented; got {cfg.get('position_embedding_type')!r}.")
    return cfg


def check_layer_norm_inputs(x, gamma, beta) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x (..., d), gamma (d,), beta (d,)."""
    x = as_real_array("x", x, min_ndim=1, expected="(..., d)")
    d = x.shape[-1]
    gamma = as_real_array("gamma", gamma, ndim=1, expected=f"({d},)")
    beta = as_real_array("beta", beta, ndim=1, expected=f"({d},)")
    if gamma.shape != (d,) or beta.shape != (d,):
        raise ValueError(f"gamma and beta must have shape ({d},) to match x {x.shape}; got {gamma.shape} and {beta.shape}.")
    return x, gamma, beta


def check_weight(name: str, weights: Mapping, shape: tuple) -> np.ndarray:
    """``weights[name]`` as an array of ``shape`` (``KeyError`` if absent, as a mapping would raise)."""
    if name not in weights:
        raise KeyError(f"weights lack {name!r} (expected shape {shape}).")
    w = np.asarray(weights[name])
    if w.shape != shape:
        raise ValueError(f"weights[{name!r}] has shape {w.shape}; expected {shape}.")
    return w


def check_input_ids(input_ids, token_type_ids, config) -> tuple[np.ndarray, np.ndarray]:
    """Token ids (T,) in the vocabulary, T <= max_positions, and segment ids (T,) (default all 0)."""
    c = config
    ids = np.asarray(input_ids)
    if ids.ndim != 1 or ids.size == 0 or not np.issubdtype(ids.dtype, np.integer):
        raise ValueError(f"input_ids must be a non-empty 1-D array of ints with shape (T,); got shape {ids.shape}, dtype {ids.dtype}.")
    T = ids.size
    if ids.min() < 0 or ids.max() >= c.vocab_size:
        raise ValueError(f"input_ids must lie in [0, {c.vocab_size}); got min {ids.min()}, max {ids.max()}.")
    if T > c.max_positions:
        raise ValueError(f"sequence of {T} tokens is longer than max_positions={c.max_positions}.")
    tt = np.zeros(T, dtype=np.int64) if token_type_ids is None else np.asarray(token_type_ids)
    if tt.shape != (T,) or not np.issubdtype(tt.dtype, np.integer) or tt.min() < 0 or tt.max() >= c.type_vocab_size:
        raise ValueError(f"token_type_ids must be ints in [0, {c.type_vocab_size}) with shape ({T},); got shape {tt.shape}.")
    return ids, tt


def check_pooled(hidden) -> np.ndarray:
    """Token vectors (T, d) of one sentence whose mean is not the zero vector (it gets normalised)."""
    hidden = as_real_array("hidden", hidden, ndim=2, expected="(T, d)")
    if np.linalg.norm(hidden.mean(axis=0)) == 0:
        raise ValueError("the mean token vector is zero; it has no direction to normalise.")
    return hidden


# ---- attention measurements (real_model) --------------------------------------------------------------

def check_attn(attn) -> np.ndarray:
    """Attention weights (n_layers, n_heads, T, T)."""
    a = as_real_array("attn", attn, ndim=4, expected="(n_layers, n_heads, T, T)")
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"attn must be square in its last two axes (T, T); got shape {a.shape}.")
    return a


def check_token_index(name: str, i, T: int) -> int:
    """``i`` as int if it is a token index in [0, T)."""
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not 0 <= i < T:
        raise ValueError(f"{name} must be a token index in [0, {T}); got {i!r}.")
    return int(i)


def check_token_positions(positions, T: int) -> list[int]:
    """Sorted distinct token indices in [0, T) (each entry checked as ``positions``)."""
    out = set()
    for p in positions:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 0 <= p < T:
            raise ValueError(f"positions must be a token index in [0, {T}); got {p!r}.")
        out.add(int(p))
    return sorted(out)


def check_whole_tokens(words: Mapping[str, str], text: str, tokens: list[str]) -> list[int]:
    """The index of the first occurrence in ``tokens`` of each word (name -> word), which must be a whole token."""
    idx = []
    for name, word in words.items():
        if word not in tokens:
            raise ValueError(f"{name}={word!r} is not a whole token of {text!r}; its tokens are {tokens}.")
        idx.append(tokens.index(word))
    return idx


def check_run(run, text: str, tokens: list[str]) -> tuple:
    """``run``: the pair (tokens, EncoderOutput) that ``MiniLM.run(text)`` returns, whose tokens are ``tokens``."""
    if not (isinstance(run, tuple) and len(run) == 2 and hasattr(run[1], "attentions")):
        raise TypeError(f"run must be the pair (tokens, EncoderOutput) that model.run(text) returns; got "
                        f"{type(run).__name__}{f' of length {len(run)}' if isinstance(run, tuple) else ''}.")
    if list(run[0]) != tokens:
        raise ValueError(f"run holds the tokens {list(run[0])}, not those of {text!r} ({tokens}): pass what "
                         f"model.run(text) returned for this text.")
    return run


def check_margins(margin_a, margin_b, threshold) -> tuple[np.ndarray, np.ndarray]:
    """Two margins (n_layers, n_heads) of one shape and a threshold >= 0."""
    ma = as_real_array("margin_a", margin_a, ndim=2, expected="(n_layers, n_heads)")
    mb = as_real_array("margin_b", margin_b, ndim=2, expected="(n_layers, n_heads)")
    if ma.shape != mb.shape:
        raise ValueError(f"margin_a and margin_b must have the same shape; got {ma.shape} and {mb.shape}.")
    if not threshold >= 0:
        raise ValueError(f"threshold must be >= 0; got {threshold!r}.")
    return ma, mb
