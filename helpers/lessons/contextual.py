"""Static vs contextual word vectors, on a tiny hand-made vocabulary (chapter 2.1).

A *static* embedding gives a word one vector, whatever the sentence. A
*contextual* representation of token i mixes the vectors of the whole sentence
with a row of attention weights:

    c_i = sum_j alpha_ij x_j        (alpha_i. >= 0, sum_j alpha_ij = 1)

which for all tokens at once is ``C = A @ X``. (Compare such vectors with
:func:`helpers.lessons.geometry.cosine_similarity`.) The toy vocabulary below is
invented for teaching: every axis has a name, so a mixed vector can be read off
axis by axis. Real embeddings have hundreds of unnamed axes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from .._validate import as_real_array, check_text, describe

__all__ = [
    "AXES",
    "toy_vocabulary",
    "tokenize",
    "static_embeddings",
    "contextual_mix",
]

#: Names of the toy vocabulary's axes, in order (d = 7).
AXES: tuple[str, ...] = ("animate", "can_tire", "place", "width", "motion", "pronoun", "function")

# Invented coordinates along AXES. Function words share the single "function"
# axis: this toy has no way to tell "the" from "because", and does not need one.
_TABLE: dict[str, tuple[float, ...]] = {
    #          animate can_tire place width motion pronoun function
    "the":     (0.0,    0.0,     0.0,  0.0,  0.0,   0.0,    1.0),
    "animal":  (1.0,    1.0,     0.0,  0.0,  0.0,   0.0,    0.0),
    "didn't":  (0.0,    0.0,     0.0,  0.0,  0.0,   0.0,    1.0),
    "cross":   (0.0,    0.0,     0.0,  0.0,  1.0,   0.0,    0.0),
    "street":  (0.0,    0.0,     1.0,  0.5,  0.0,   0.0,    0.0),
    "because": (0.0,    0.0,     0.0,  0.0,  0.0,   0.0,    1.0),
    "it":      (0.0,    0.0,     0.0,  0.0,  0.0,   1.0,    0.0),
    "was":     (0.0,    0.0,     0.0,  0.0,  0.0,   0.0,    1.0),
    "too":     (0.0,    0.0,     0.0,  0.0,  0.0,   0.0,    1.0),
    "tired":   (0.5,    1.0,     0.0,  0.0,  0.0,   0.0,    0.0),
    "wide":    (0.0,    0.0,     0.5,  1.0,  0.0,   0.0,    0.0),
}


def toy_vocabulary() -> dict[str, np.ndarray]:
    """The invented static embedding table, as a fresh dict of fresh arrays.

    Returns
    -------
    dict of str -> numpy.ndarray, each of shape (d,) with d = len(AXES) = 7
        Keys are lower-case words; coordinate k of a vector is its value on
        axis ``AXES[k]``. Modifying the result never changes later calls.
    """
    return {word: np.array(vec, dtype=np.float64) for word, vec in _TABLE.items()}


def tokenize(sentence: str) -> list[str]:
    """Split a sentence into word tokens, dropping ``.,!?;:`` punctuation.

    Apostrophes stay inside words (``"didn't"`` is one token); case is kept,
    so labels read as in the sentence.

    Parameters
    ----------
    sentence : str

    Returns
    -------
    list of str
    """
    check_text("sentence", sentence)
    tokens = [re.sub(r"[.,!?;:]", "", w) for w in sentence.split()]
    return [t for t in tokens if t]


def static_embeddings(tokens: Sequence[str], vocab: Mapping[str, np.ndarray] | None = None) -> np.ndarray:
    """Look every token up in a static table (case-insensitive): one row per token.

    Parameters
    ----------
    tokens : sequence of str, length T
    vocab : mapping of lower-case str -> array of shape (d,), optional
        Default: :func:`toy_vocabulary`.

    Returns
    -------
    numpy.ndarray, shape (T, d)
        Row t is ``vocab[tokens[t].lower()]``: the same word always gets the
        same row, whatever its neighbours - that is what "static" means.

    Raises
    ------
    TypeError
        If ``tokens`` is a bare string or holds non-strings.
    ValueError
        If a token is not in the vocabulary, or the table's vectors differ in length.
    """
    vocab = toy_vocabulary() if vocab is None else vocab
    if isinstance(tokens, str) or not np.iterable(tokens):
        what = "one string" if isinstance(tokens, str) else type(tokens).__name__
        raise TypeError(f"tokens must be a sequence of words, not {what}; use tokenize(sentence) first.")
    rows, seen = [], {}
    for t, tok in enumerate(tokens):
        key = check_text(f"tokens[{t}]", tok).lower()
        if key not in vocab:
            raise ValueError(f"token {tok!r} (position {t}) is not in the vocabulary; known words: {sorted(vocab)}.")
        if key not in seen:  # each distinct word's vector checked once, however often it occurs
            seen[key] = as_real_array(f"vocab[{key!r}]", vocab[key], ndim=1, expected="(d,)")
        rows.append(seen[key])
    if not rows or len({r.shape for r in rows}) != 1:
        raise ValueError("tokens is empty" if not rows else
                         f"the vocabulary's vectors differ in length: {sorted({r.shape for r in rows})}.")
    return np.stack(rows)


def contextual_mix(weights, vectors) -> np.ndarray:
    """Weighted sum of token vectors: ``weights @ vectors``.

    Parameters
    ----------
    weights : array_like, shape (T,) or (T_q, T)
        One attention row (or one per query); each row must be a probability
        distribution over the T tokens (non-negative, summing to 1 within 1e-6).
    vectors : array_like, shape (T, d)
        One vector per token (static embeddings here; value vectors in 2.3+).

    Returns
    -------
    numpy.ndarray, shape (d,) or (T_q, d)
        ``sum_j weights[..., j] * vectors[j]``.

    Raises
    ------
    ValueError
        If the number of weights differs from the number of vectors, or a row
        is not a distribution (a negative weight, or a sum other than 1).
    """
    w = as_real_array("weights", weights, min_ndim=1, expected="(T,) or (T_q, T)")
    X = as_real_array("vectors", vectors, ndim=2, expected="(T, d)")
    if w.ndim > 2:
        raise ValueError(f"weights must be (T,) or (T_q, T); got {describe(w)}.")
    if w.shape[-1] != X.shape[0]:
        raise ValueError(f"one weight per token: weights has {w.shape[-1]} per row ({describe(w)}) but vectors has "
                         f"{X.shape[0]} rows ({describe(X)}).")
    # the row test of helpers.is_distribution (atol 1e-6), on the array already checked here
    if w.shape[-1] == 0 or not (np.all(w >= -1e-6) and np.allclose(w.sum(axis=-1), 1.0, rtol=0.0, atol=1e-6)):
        sums = np.round(np.atleast_1d(w.sum(axis=-1)), 6)
        raise ValueError(f"each weight row must be a distribution (all >= 0, sum 1); got min weight {w.min():.4g} "
                         f"and row sums {sums[:4].tolist()}.")
    return w @ X

