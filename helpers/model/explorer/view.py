"""The explorer's numbers (pure, apart from the per-sentence cache): what the figure of :mod:`.widget` shows.

Layers and heads are numbered from 1, as the notebook prints them ("layer 4 head 2"); token indices from 0, as
the notebook's ``tokens.index("it")``.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import NamedTuple

import numpy as np

from ..._validate import check_flag, check_int, check_text
from ...core.masking import causal_mask

__all__ = ["MAX_TOKENS", "ExplorerInputError", "SentenceCache", "AttentionView", "attention_view"]

#: The explorer shows sentences of at most this many tokens ([CLS] and [SEP] included): every label stays
#: legible and a re-encode stays well under the 150 ms of a live view (the model itself takes 512).
MAX_TOKENS = 32


class ExplorerInputError(ValueError):
    """Input the explorer cannot show (an empty sentence, too many tokens, a token index out of range).

    ``str(exc)`` is English (a helper's error); ``exc.zh`` is the Chinese message the widget shows.
    """

    def __init__(self, message: str, zh: str):
        super().__init__(message)
        self.zh = zh


class SentenceCache:
    """Encode each sentence once: ``(tokens, attentions)`` per ``(sentence, causal)``, the last ``size`` kept.

    Moving to another layer, head or token reads the cached attentions (shape (n_layers, n_heads, T, T));
    only a new sentence, or the causal switch, runs the encoder. ``n_encoded`` counts the encoder runs.

    Parameters
    ----------
    model : helpers.model.real_model.MiniLM
        Anything with ``.tokenizer.encode(text).tokens`` and ``.run(text, mask=None)``.
    size : int, optional
    """

    def __init__(self, model, size: int = 8):
        if not (hasattr(model, "run") and hasattr(model, "tokenizer")):
            raise TypeError(f"model must be a loaded MiniLM (H.real_model.ensure_minilm()); got {type(model).__name__}.")
        self.model, self.size, self.n_encoded = model, check_int("size", size, 1), 0
        self._store: OrderedDict = OrderedDict()

    def get(self, sentence: str, causal: bool = False) -> tuple[list[str], np.ndarray]:
        """The tokens of ``sentence`` and the attention of every head, encoding it only the first time.

        Raises
        ------
        ExplorerInputError
            The sentence is empty, or has more than :data:`MAX_TOKENS` tokens.
        """
        sentence, causal = check_text("sentence", sentence), check_flag("causal", causal)
        key = (sentence, causal)
        if key in self._store:
            self._store.move_to_end(key)
            return self._store[key]
        if not sentence.strip():
            raise ExplorerInputError("sentence is empty.", "句子是空的：请在输入框里写一句英文，再按回车。")
        tokens = self.model.tokenizer.encode(sentence).tokens
        if len(tokens) > MAX_TOKENS:
            raise ExplorerInputError(
                f"sentence has {len(tokens)} tokens with [CLS] and [SEP]; the explorer shows at most {MAX_TOKENS}.",
                f"这句话切分后有 {len(tokens)} 个 token（含 [CLS]、[SEP]），探索器最多显示 {MAX_TOKENS} 个"
                f"（模型本身最多读 512 个）：请换一句短一些的。")
        mask = causal_mask(len(tokens)) if causal else None
        tokens, out = self.model.run(sentence, mask=mask)
        self.n_encoded += 1
        self._store[key] = (list(tokens), out.attentions)
        if len(self._store) > self.size:
            self._store.popitem(last=False)
        return self._store[key]


class AttentionView(NamedTuple):
    """What the explorer draws for one choice of controls.

    Attributes
    ----------
    sentence : str
    tokens : list of str, length T
        As the tokenizer split the sentence, with [CLS] first and [SEP] last.
    layer : int
        1-based.
    head : int or None
        1-based; None = every head of the layer (their mean in ``matrix`` and ``row``).
    token : int
        0-based index of the query token.
    causal : bool
        Every layer ran with 2.10's causal mask (the model was not trained so: a thought experiment).
    matrix : numpy.ndarray, shape (T, T)
        The head's attention (rows: queries, columns: keys); the layer's mean over heads when ``head`` is None.
    row : numpy.ndarray, shape (T,)
        ``matrix[token]``: where the chosen token looks. Sums to 1.
    all_heads : numpy.ndarray, shape (n_layers, n_heads, T)
        The chosen token's row in every head of every layer (the small multiples).
    sinks : float
        Weight of ``row`` on [CLS] and [SEP] together.
    future : float
        Weight of ``row`` on keys after the token (0 under the causal mask).
    """

    sentence: str
    tokens: list
    layer: int
    head: int | None
    token: int
    causal: bool
    matrix: np.ndarray
    row: np.ndarray
    all_heads: np.ndarray
    sinks: float
    future: float


def attention_view(cache: SentenceCache, sentence: str, layer: int, head: int | None, token: int,
                   causal: bool = False) -> AttentionView:
    """Where token ``token`` of ``sentence`` looks in head ``head`` of layer ``layer`` (pure, apart from the cache).

    Parameters
    ----------
    cache : SentenceCache
        Encodes the sentence the first time only.
    sentence : str
    layer : int
        1..n_layers.
    head : int or None
        1..n_heads, or None for the layer's mean over its heads.
    token : int
        0..T-1 (0 is [CLS]).
    causal : bool, optional

    Returns
    -------
    AttentionView

    Raises
    ------
    ExplorerInputError
        Empty sentence, more than :data:`MAX_TOKENS` tokens, or ``token`` outside 0..T-1 (``.zh``: in Chinese).
    TypeError, ValueError
        ``layer`` or ``head`` not an integer in range.
    """
    if not isinstance(cache, SentenceCache):
        raise TypeError(f"cache must be a SentenceCache(model); got {type(cache).__name__}.")
    tokens, attn = cache.get(sentence, causal)
    L, H, T = attn.shape[0], attn.shape[1], attn.shape[-1]
    layer = check_int("layer", layer, 1, L)
    head = None if head is None else check_int("head", head, 1, H, note=" (or None: every head of the layer)")
    if isinstance(token, bool) or not isinstance(token, (int, np.integer)):
        raise TypeError(f"token must be an integer index 0..{T - 1}; got {token!r} (type {type(token).__name__}).")
    if not 0 <= token < T:
        raise ExplorerInputError(
            f"token must be an index 0..{T - 1} of the {T} tokens; got {token}.",
            f"token 的下标 {token} 超出范围：这句话有 {T} 个 token，下标只能是 0 到 {T - 1}（0 是 [CLS]）。")
    token = int(token)
    matrix = attn[layer - 1].mean(axis=0) if head is None else attn[layer - 1, head - 1]
    row = matrix[token]
    return AttentionView(sentence, list(tokens), layer, head, token, bool(causal), matrix, row, attn[:, :, token],
                         float(row[0] + row[-1]), float(row[token + 1:].sum()))
