"""The BERT basic + WordPiece tokenizer (helpers.wordpiece) on a tiny hand-made vocabulary."""

import pytest

from helpers.model.wordpiece import WordPieceTokenizer, basic_tokenize, load_vocab, wordpiece

VOCAB = {t: i for i, t in enumerate(
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "##aff", "##able", "the", "cafe", "didn", "'", "t", ".", "!", ",",
     "did", "##n", "it", "##s", "人", "a", "##b"])}


def test_basic_tokenize_splits_punctuation_and_lowercases():
    assert basic_tokenize("The animal didn't cross.") == ["the", "animal", "didn", "'", "t", "cross", "."]
    assert basic_tokenize("  Hello,\tWORLD!!\n") == ["hello", ",", "world", "!", "!"]
    assert basic_tokenize("Café") == ["cafe"]                            # accents stripped when lowercasing
    assert basic_tokenize("Café", lowercase=False) == ["Café"]
    assert basic_tokenize("a$b^c`d") == ["a", "$", "b", "^", "c", "`", "d"]  # ASCII symbols count as punctuation
    assert basic_tokenize("机器人ok") == ["机", "器", "人", "ok"]           # CJK characters stand alone
    assert basic_tokenize("x\x00y\u200bz") == ["xyz"]                      # NUL and format characters dropped
    assert basic_tokenize("a\ue000b\U000e0001c\x7fd") == ["abcd"]         # private-use, tag and DEL characters too
    assert basic_tokenize("a\u00a0b\u3000c") == ["a", "b", "c"]             # Unicode space separators split
    with pytest.raises(TypeError, match="text"):
        basic_tokenize(b"bytes")


def test_wordpiece_is_greedy_longest_match_first():
    assert wordpiece("unaffable", VOCAB) == ["un", "##aff", "##able"]
    assert wordpiece("didn", VOCAB) == ["didn"]                           # whole word wins over did + ##n
    assert wordpiece("its", VOCAB) == ["it", "##s"]
    assert wordpiece("unx", VOCAB) == ["[UNK]"]                           # one uncuttable piece -> whole word UNK
    assert wordpiece("a" + "b" * 200, VOCAB) == ["[UNK]"]                  # longer than max_chars


def test_encode_adds_special_tokens():
    tok = WordPieceTokenizer(VOCAB)
    enc = tok.encode("Unaffable, didn't it!")
    assert enc.tokens == ["[CLS]", "un", "##aff", "##able", ",", "didn", "'", "t", "it", "!", "[SEP]"]
    assert enc.ids == [2, 4, 5, 6, 14, 9, 10, 11, 17, 13, 3]
    with pytest.raises(ValueError, match=r"\[CLS\]"):
        WordPieceTokenizer({"[UNK]": 0})


def test_load_vocab(tmp_path):
    p = tmp_path / "vocab.txt"
    p.write_text("[PAD]\n[UNK]\nhello\n", encoding="utf-8")
    assert load_vocab(p) == {"[PAD]": 0, "[UNK]": 1, "hello": 2}
    p.write_text("a\nb\na\n", encoding="utf-8")
    with pytest.raises(ValueError, match="twice"):
        load_vocab(p)
