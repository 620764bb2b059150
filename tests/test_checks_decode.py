"""The 2.1 transfer check (check_nearest_word) accepts correct variants and rejects the classic wrong answers."""

import numpy as np

from helpers.checks import check_nearest_word
from check_verdicts import check_table


def test_stub_is_not_done(capsys):
    def stub(*args):
        raise NotImplementedError

    assert not check_nearest_word(stub).passed


# --- 2.1 nearest word -------------------------------------------------------------------------

def nearest_ok(c, E):
    sims = [np.dot(c, e) / (np.linalg.norm(c) * np.linalg.norm(e)) for e in E]
    return int(np.argmax(sims))


def nearest_ok_normalised(c, E):
    En = E / np.linalg.norm(E, axis=1, keepdims=True)
    return int(np.argmax(En @ (c / np.linalg.norm(c))))


OK = {
    "cosine": nearest_ok,
    "normalised rows": nearest_ok_normalised,
    # dividing by |c| does not change the argmax: leaving it out is still correct
    "without |c|": lambda c, E: int(np.argmax((E @ c) / np.linalg.norm(E, axis=1))),
}
WRONG = [
    lambda c, E: int(np.argmax(E @ c)),                                      # dot product, not cosine
    lambda c, E: int(np.argmin(np.linalg.norm(E - c, axis=1))),              # Euclidean distance
    lambda c, E: int(np.argmax(np.abs(E @ c) / np.linalg.norm(E, axis=1))),  # absolute cosine
    lambda c, E: int(np.argmin((E @ c) / np.linalg.norm(E, axis=1))),        # argmin
    lambda c, E: int(np.argmax((E @ c) / np.linalg.norm(c))),                # divides by the wrong norm
    lambda c, E: nearest_ok(c, E) + 1,                                       # 1-based index
    lambda c, E: int(np.argmax((E @ c) / np.linalg.norm(E, axis=0).sum())),  # norms down the wrong axis
    lambda c, E: float(np.max((E @ c) / np.linalg.norm(E, axis=1))),         # the best cosine, not its index
    lambda c, E: E[nearest_ok(c, E)],                                        # the word vector, not its index
]
test_nearest_word_accepts, test_nearest_word_rejects = check_table(check_nearest_word, OK, WRONG)


# ---- checks review (issue 20, a novice's own answers): the mistake actually made is named ----------------
# (before, every one of these got case 1's "a dot product prefers long vectors" hint)
test_nearest_word_review_accepts, test_nearest_word_review_names_the_mistake = check_table(
    check_nearest_word, [lambda c, E: np.argmax(E @ c / np.linalg.norm(E, axis=1))], {     # numpy's int is an int
        "1-based index": (lambda c, E: nearest_ok(c, E) + 1, "下标从 0 开始"),
        "the best cosine, not its index": (lambda c, E: float(np.max((E @ c) / np.linalg.norm(E, axis=1) / np.linalg.norm(c))),
                                           "最大的余弦值"),
        "the word vector": (lambda c, E: E[nearest_ok(c, E)], "词向量本身"),
        "argmin": (lambda c, E: int(np.argmin((E @ c) / np.linalg.norm(E, axis=1))), "余弦最小"),
        "index as a float": (lambda c, E: float(nearest_ok(c, E)), "只差返回值的类型"),
        # a dot product in disguise: must not be told "1-based" although it is off by one on case 1
        "norms down the wrong axis": (lambda c, E: int(np.argmax((E @ c) / np.linalg.norm(E, axis=0).sum())), "点积会偏向长向量"),
    })
