"""Static vs contextual vectors (helpers.contextual), with hand-derived expectations."""

import numpy as np
import pytest

from helpers import is_distribution
from helpers.lessons.contextual import (
    AXES,
    contextual_mix,
    static_embeddings,
    tokenize,
    toy_vocabulary,
)

TIRED = "The animal didn't cross the street because it was too tired."
WIDE = "The animal didn't cross the street because it was too wide."


def test_axes_are_named_and_match_vector_length():
    vocab = toy_vocabulary()
    assert len(AXES) == len(set(AXES)) == 7
    assert all(v.shape == (len(AXES),) for v in vocab.values())
    # Every word of both sentences is in the toy vocabulary.
    assert set(w.lower() for w in tokenize(TIRED) + tokenize(WIDE)) <= set(vocab)


def test_vocabulary_is_fresh_each_call():
    v1 = toy_vocabulary()
    v1["it"][:] = 99.0
    assert toy_vocabulary()["it"][AXES.index("pronoun")] == 1.0


def test_tokenize_keeps_apostrophes_and_drops_punctuation():
    assert tokenize(TIRED) == ["The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired"]
    with pytest.raises(TypeError, match="sentence must be a str"):
        tokenize(["a"])


def test_static_embedding_of_it_is_identical_in_both_sentences():
    t1, t2 = tokenize(TIRED), tokenize(WIDE)
    X1, X2 = static_embeddings(t1), static_embeddings(t2)
    assert X1.shape == X2.shape == (11, 7)
    assert np.array_equal(X1[t1.index("it")], X2[t2.index("it")])
    # Case-insensitive: "The" and "the" are the same static word.
    assert np.array_equal(X1[0], X1[4])
    # Only the last word differs between the sentences.
    assert np.array_equal(X1[:-1], X2[:-1]) and not np.array_equal(X1[-1], X2[-1])


def test_static_embeddings_errors():
    with pytest.raises(ValueError, match="'giraffe' \\(position 1\\) is not in the vocabulary"):
        static_embeddings(["the", "giraffe"])
    with pytest.raises(TypeError, match="not one string"):
        static_embeddings("the animal")
    with pytest.raises(ValueError, match="empty"):
        static_embeddings([])
    with pytest.raises(ValueError, match="differ in length"):
        static_embeddings(["a", "b"], {"a": np.zeros(2), "b": np.zeros(3)})


def test_chapter_row_mixes_to_hand_computed_vector():
    # The chapter's weights for "it" (tired sentence), with "it" itself at weight 0.
    w = np.array([0.05, 0.45, 0.02, 0.05, 0.03, 0.10, 0.05, 0.0, 0.05, 0.05, 0.15])
    assert np.isclose(w.sum(), 1.0)
    c = contextual_mix(w, static_embeddings(tokenize(TIRED)))
    # By hand: animate = 0.45*1 + 0.15*0.5, can_tire = 0.45 + 0.15, place = 0.10,
    # width = 0.10*0.5, motion = 0.05 (cross), pronoun = 0, function = the 6 function-word weights.
    expected = dict(animate=0.525, can_tire=0.60, place=0.10, width=0.05, motion=0.05, pronoun=0.0,
                    function=0.05 + 0.02 + 0.03 + 0.05 + 0.05 + 0.05)
    assert np.allclose(c, [expected[a] for a in AXES])


def test_mix_of_one_hot_and_uniform_rows():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    assert np.allclose(contextual_mix([0, 1, 0], X), [0.0, 1.0])
    assert np.allclose(contextual_mix(np.full(3, 1 / 3), X), [1.0, 1.0])
    # Several query rows at once: C = A X.
    A = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])
    assert np.allclose(contextual_mix(A, X), [[0.5, 0.5], [2.0, 2.0]])


@pytest.mark.parametrize(
    "w, match",
    [
        ([0.5, 0.6, -0.1], "min weight -0.1"),
        ([0.5, 0.4, 0.0], "row sums \\[0.9\\]"),
        ([0.5, 0.5], "weights has 2 per row .* vectors has 3 rows"),
        (np.full((2, 2, 3), 1 / 3), "must be \\(T,\\) or \\(T_q, T\\)"),
    ],
)
def test_mix_rejects_non_distributions_and_bad_shapes(w, match):
    with pytest.raises(ValueError, match=match):
        contextual_mix(w, np.eye(3))


def test_is_distribution():
    assert is_distribution([0.2, 0.8]) and is_distribution([[1.0, 0.0], [0.5, 0.5]])
    assert not is_distribution([0.5, 0.6]) and not is_distribution([1.5, -0.5])
    assert not is_distribution(np.zeros(0))
