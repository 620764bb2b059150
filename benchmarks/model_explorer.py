"""Figure ``model_explorer``: 2.13's attention explorer live, beside a bare kernel's start (issue 33).

    python -m benchmarks.model_explorer            # needs the weights (python -m helpers.model fetch)

Measured on the widget itself (:class:`helpers.model.explorer.AttentionExplorer`), as a learner drives it:

* **re-encode + redraw**: Enter on a new sentence typed in the box (8 to 32 tokens, each new to the cache): tokenize,
  run the 6-layer encoder, new token labels, the figure's background painted once, the data drawn, JPEG into the
  ``ipywidgets.Image``, the Chinese readout. Target of issue 33: <= 150 ms.
* **move**: another layer or head or token of the same sentence (the cache answers, nothing re-encodes):
  blitted redraw + JPEG. Target: <= 50 ms.
* **bare kernel** (the floor a learner already waits for): start a fresh python3 kernel and run the series'
  imports in it (:func:`benchmarks.lecture.bare_kernel_s`).

Medians with p90 of wall time, and the CPU time of this process (which other processes on a shared machine
do not inflate). Re-encodes and moves take turns. Prints; asserts nothing.
"""

from __future__ import annotations

import statistics
import time

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

TARGET_REENCODE_MS = 150.0
TARGET_MOVE_MS = 50.0
WORDS = ("the animal didn't cross the street because it was too tired and the road was long wide busy quiet "
         "so a dog sat near an old tree while children played with red balls in warm evening light").split()


def sentences(n: int, seed: int = 0) -> list[str]:
    """``n`` distinct sentences of 6..30 words (8..32 tokens with [CLS]/[SEP] and the split of didn't)."""
    rng = np.random.default_rng(seed)
    out: list[str] = []
    while len(out) < n:
        k = int(rng.integers(6, 26))
        s = " ".join(rng.choice(WORDS, size=k)) + "."
        if s not in out:
            out.append(s)
    return out


def _timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return 1e3 * (time.perf_counter() - w), 1e3 * (time.process_time() - c)


def _summary(label: str, wall: list[float], cpu: list[float], target: float) -> str:
    med, p90, cpu_med = statistics.median(wall), float(np.percentile(wall, 90)), statistics.median(cpu)
    verdict = "met" if med <= target else f"NOT met (by CPU time: {'met' if cpu_med <= target else 'not met'})"
    return (f"{label}: median {med:.1f} ms (p90 {p90:.1f} ms, n={len(wall)}; CPU time {cpu_med:.1f} ms) "
            f"-> target <= {target:.0f} ms {verdict}")


def run(n_sentences: int = 20, moves_per_sentence: int = 4, kernels: int = 3) -> dict:
    import helpers as H
    from helpers.model.explorer import MAX_TOKENS, AttentionExplorer

    from .lecture import bare_kernel_s

    if not H.real_model.weights_present():
        print("MISSING: the all-MiniLM-L6-v2 weights (python -m helpers.model fetch); nothing measured")
        return {}
    model = H.real_model.load_minilm()
    texts = [s for s in sentences(4 * n_sentences) if len(model.tokenizer.encode(s).tokens) <= MAX_TOKENS][:n_sentences]
    ex = AttentionExplorer(model, "The animal didn't cross the street because it was too tired.", layer=4, head=2,
                           token=10)
    for _ in range(3):                                  # warm: glyph caches, the first JPEG
        ex.layer_menu.value = 1 + ex.layer_menu.value % 6
    rng = np.random.default_rng(1)
    enc_wall, enc_cpu, mv_wall, mv_cpu, kinds = [], [], [], [], {"layer": 0, "head": 0, "token": 0}
    tokens_seen = []
    for s in texts:
        ex.sentence_box.value = s                       # typed: the box's text reaches the kernel, nothing is drawn
        w, c = _timed(lambda: ex.sentence_box._handle_custom_msg({"event": "submit"}, []))   # Enter
        assert ex.view is not None and ex.view.sentence == s, ex.message.value
        enc_wall.append(w), enc_cpu.append(c), tokens_seen.append(len(ex.view.tokens))
        for _ in range(moves_per_sentence):
            kind = ("layer", "head", "token")[int(rng.integers(3))]
            menu = {"layer": ex.layer_menu, "head": ex.head_menu, "token": ex.token_menu}[kind]
            values = [v for _, v in menu.options if v != menu.value]
            value = values[int(rng.integers(len(values)))]
            encoded = ex.cache.n_encoded
            w, c = _timed(lambda menu=menu, value=value: setattr(menu, "value", value))
            assert ex.cache.n_encoded == encoded, "a move re-encoded"
            mv_wall.append(w), mv_cpu.append(c)
            kinds[kind] += 1
    bare = [bare_kernel_s() for _ in range(kernels)]
    return {"enc_wall": enc_wall, "enc_cpu": enc_cpu, "mv_wall": mv_wall, "mv_cpu": mv_cpu, "kinds": kinds,
            "tokens": tokens_seen, "bare_s": bare}


def main(n_sentences: int = 20, kernels: int = 3) -> dict:
    """Print the figure and return the numbers (empty without the weights)."""
    r = run(n_sentences=n_sentences, kernels=kernels)
    if not r:
        return r
    bare = statistics.median(r["bare_s"])
    print(f"sentences: {len(r['tokens'])}, {min(r['tokens'])}..{max(r['tokens'])} tokens (median "
          f"{statistics.median(r['tokens']):.0f}); moves: {sum(r['kinds'].values())} "
          f"({', '.join(f'{k} {v}' for k, v in r['kinds'].items())}), none re-encoded")
    print(_summary("re-encode + redraw (type a new sentence)", r["enc_wall"], r["enc_cpu"], TARGET_REENCODE_MS))
    print(_summary("move (layer / head / token, cached)     ", r["mv_wall"], r["mv_cpu"], TARGET_MOVE_MS))
    print(f"bare kernel start (python3 + the series' imports), median of {len(r['bare_s'])}: {1e3 * bare:.0f} ms "
          f"[{', '.join(f'{1e3 * b:.0f}' for b in r['bare_s'])}]; a re-encode is "
          f"{statistics.median(r['enc_wall']) / (1e3 * bare):.1%} of it")
    return r


if __name__ == "__main__":
    from benchmarks.results import measured

    measured("model_explorer", main)
