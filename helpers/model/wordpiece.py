"""A BERT WordPiece tokenizer in plain Python (chapter 2.13, the real-model notebook).

BERT-style models (all-MiniLM-L6-v2 among them) read text in two stages:

1. **Basic tokenization**: clean the text, lower-case it and strip accents
   (uncased models), put spaces around CJK characters, split on whitespace and
   split every punctuation character off as its own token:
   ``"didn't" -> ["didn", "'", "t"]``.
2. **WordPiece**: cut each word greedily into the longest pieces found in the
   vocabulary; a piece that continues a word is written with a ``##`` prefix:
   ``"didn" -> ["did", "##n"]``. A word that cannot be cut becomes ``[UNK]``.

The special tokens ``[CLS]`` (start) and ``[SEP]`` (end) are added by
:meth:`WordPieceTokenizer.encode`. No download, no third-party tokenizer: the
only input is the model's ``vocab.txt`` (one token per line, id = line number).
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Mapping
from typing import NamedTuple

from .._validate import check_flag, check_text

__all__ = ["load_vocab", "parse_vocab", "basic_tokenize", "wordpiece", "Encoding", "WordPieceTokenizer"]


def load_vocab(path: str | os.PathLike) -> dict[str, int]:
    """Read a BERT ``vocab.txt``: token on line k (0-based) has id k.

    Parameters
    ----------
    path : str or path-like
        The vocabulary file (UTF-8, one token per line).

    Returns
    -------
    dict[str, int]
        Token -> id.

    Raises
    ------
    ValueError
        If the file is empty or lists a token twice.
    """
    with open(path, encoding="utf-8") as fh:
        return parse_vocab(fh, f"vocab file {os.fspath(path)!r}")


def parse_vocab(lines, source: str = "vocab") -> dict[str, int]:
    """:func:`load_vocab` of lines already read (an open file, or ``text.splitlines(keepends=True)``);
    ``source`` names them in an error."""
    tokens = [line.rstrip("\n").rstrip("\r") for line in lines]
    if tokens and tokens[-1] == "":
        tokens.pop()
    if not tokens:
        raise ValueError(f"{source} is empty.")
    vocab = {tok: i for i, tok in enumerate(tokens)}
    if len(vocab) != len(tokens):
        raise ValueError(f"{source} lists {len(tokens) - len(vocab)} token(s) twice.")
    return vocab


def _is_whitespace(ch: str) -> bool:
    return ch in " \t\n\r" or unicodedata.category(ch) == "Zs"


def _is_control(ch: str) -> bool:
    # Every "other" category (Cc, Cf, Cn, Co, Cs) is dropped, as BERT's original tokenizer
    # and Hugging Face's BertNormalizer do; tab, newline and CR count as whitespace instead.
    if ch in "\t\n\r":
        return False
    return unicodedata.category(ch).startswith("C")


def _is_punctuation(ch: str) -> bool:
    # BERT treats every non-letter/number ASCII symbol ("$", "^", "`", ...) as punctuation,
    # plus every Unicode character of a P* category.
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokenize(text: str, lowercase: bool = True) -> list[str]:
    """BERT's basic tokenizer: clean, (lower-case + strip accents), split spaces and punctuation.

    Parameters
    ----------
    text : str
    lowercase : bool, optional
        Lower-case and strip accents (NFD, drop combining marks), as uncased BERT does.

    Returns
    -------
    list of str
        Words and single punctuation characters, e.g.
        ``basic_tokenize("Didn't!") == ["didn", "'", "t", "!"]``.
    """
    check_text("text", text)
    cleaned = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or _is_control(ch):
            continue
        if _is_whitespace(ch):
            cleaned.append(" ")
        elif _is_cjk(cp):
            cleaned.append(f" {ch} ")
        else:
            cleaned.append(ch)
    words = []
    for word in "".join(cleaned).split():
        if lowercase:
            word = "".join(c for c in unicodedata.normalize("NFD", word.lower()) if unicodedata.category(c) != "Mn")
        current = ""
        for ch in word:
            if _is_punctuation(ch):
                if current:
                    words.append(current)
                words.append(ch)
                current = ""
            else:
                current += ch
        if current:
            words.append(current)
    return words


def wordpiece(word: str, vocab: Mapping[str, int], unk: str = "[UNK]", max_chars: int = 100) -> list[str]:
    """Cut one word greedily into the longest vocabulary pieces (``##`` marks a continuation).

    Parameters
    ----------
    word : str
        One output of :func:`basic_tokenize`.
    vocab : mapping str -> int
    unk : str, optional
        Returned (alone) when the word cannot be cut, or is longer than ``max_chars``.
    max_chars : int, optional

    Returns
    -------
    list of str
    """
    if len(word) > max_chars:
        return [unk]
    pieces, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            piece = word[start:end] if start == 0 else "##" + word[start:end]
            if piece in vocab:
                break
            end -= 1
        if end == start:
            return [unk]
        pieces.append(piece)
        start = end
    return pieces


class Encoding(NamedTuple):
    """The result of :meth:`WordPieceTokenizer.encode`.

    Attributes
    ----------
    tokens : list of str, length T
        ``["[CLS]", ..., "[SEP]"]``.
    ids : list of int, length T
        Vocabulary ids of ``tokens``.
    """

    tokens: list[str]
    ids: list[int]


class WordPieceTokenizer:
    """Basic tokenization + WordPiece over a fixed vocabulary (uncased BERT by default).

    Parameters
    ----------
    vocab : mapping str -> int
        E.g. ``load_vocab("vocab.txt")``; must contain ``[CLS]``, ``[SEP]`` and ``[UNK]``.
    lowercase : bool, optional
    """

    def __init__(self, vocab: Mapping[str, int], lowercase: bool = True):
        if not isinstance(vocab, Mapping):
            raise TypeError(f"vocab must be a mapping token -> id; got {type(vocab).__name__}.")
        if missing := [t for t in ("[CLS]", "[SEP]", "[UNK]") if t not in vocab]:
            raise ValueError(f"vocab lacks the special token(s) {missing}.")
        self.vocab = dict(vocab)
        self.lowercase = check_flag("lowercase", lowercase)

    @classmethod
    def from_file(cls, path: str | os.PathLike, lowercase: bool = True) -> WordPieceTokenizer:
        """Build the tokenizer from a ``vocab.txt``."""
        return cls(load_vocab(path), lowercase=lowercase)

    def tokenize(self, text: str) -> list[str]:
        """Word pieces of ``text``, without special tokens."""
        return [p for w in basic_tokenize(text, self.lowercase) for p in wordpiece(w, self.vocab)]

    def encode(self, text: str) -> Encoding:
        """``[CLS] pieces [SEP]`` and their ids (one sentence, no truncation or padding)."""
        tokens = ["[CLS]", *self.tokenize(text), "[SEP]"]
        return Encoding(tokens, [self.vocab[t] for t in tokens])
