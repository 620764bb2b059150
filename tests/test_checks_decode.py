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
