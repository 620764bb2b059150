"""Benchmark: one saturation-explorer update vs a new figure per slider move.

    python -m benchmarks.explorer

Both paths do the same work per simulated slider move: recompute the numbers
(:func:`helpers.saturation.compute`) and produce the PNG the learner receives,
for the same two panels (scores and softmax weights, 16 keys).

- **explorer**: the widget itself — set a control's value, which triggers
  ``compute``, a blitted redraw of one cached figure, PNG encoding and the
  assignment to the ``ipywidgets.Image``.
- **naive**: what ``ipywidgets.interact`` with a plotting function costs — a new
  pyplot figure per move, drawn and encoded with ``bbox_inches="tight"`` as the
  inline backend does, then closed.

The moves are a seeded random walk of single-control moves (d_k one notch,
magnitude one notch, or the checkbox), so the explorer also pays for its
background redraws when the score axis changes. The two paths are
interleaved in one run so machine load affects both alike. Prints medians and
the ratio; asserts nothing.
"""

from __future__ import annotations

import platform
import statistics
import time

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

from helpers.saturation import D_K_OPTIONS, compute, naive_figure_png, saturation_explorer  # noqa: E402

TARGET_MS = 33.0
TARGET_RATIO = 8.0


def _moves(n: int, seed: int = 0) -> list[tuple[str, object]]:
    """A deterministic random walk of single-control moves: (control name, new value).

    A learner moves one control at a time: d_k one notch up or down, the
    magnitude one notch, or the checkbox toggled.
    """
    rng = np.random.default_rng(seed)
    mags = [round(10 ** (k / 10), 4) for k in range(-10, 11)]  # 0.1 ... 10 in the slider's log steps
    i_dk, i_mag, scaled = 6, 10, False  # d_k = 64, magnitude = 1, unscaled (the explorer's start)
    moves = []
    for _ in range(n):
        what = rng.choice(["d_k", "d_k", "magnitude", "scaled"])
        if what == "d_k":
            i_dk = min(max(i_dk + int(rng.choice([-1, 1])), 0), len(D_K_OPTIONS) - 1)
            moves.append(("d_k", D_K_OPTIONS[i_dk]))
        elif what == "magnitude":
            i_mag = min(max(i_mag + int(rng.choice([-1, 1])), 0), len(mags) - 1)
            moves.append(("magnitude", mags[i_mag]))
        else:
            scaled = not scaled
            moves.append(("scaled", scaled))
    return moves


def run(n_moves: int = 40, warmup: int = 5) -> dict:
    """Time ``n_moves`` slider moves both ways, interleaved; medians in ms and the ratio.

    Returns
    -------
    dict
        ``explorer_ms``, ``naive_ms`` (medians), ``explorer_p90_ms``, ``ratio``
        (naive / explorer), ``n_moves``, ``full_draws`` (explorer background redraws),
        ``explorer_peak_kib``, ``naive_peak_kib`` (tracemalloc peak of one move).
    """
    ex = saturation_explorer(d_k=64, magnitude=1.0, scaled=False, seed=0)
    controls = {"d_k": ex.d_k_slider, "magnitude": ex.magnitude_slider, "scaled": ex.scaled_checkbox}
    fast, slow = [], []
    for k, (name, value) in enumerate(_moves(n_moves + warmup)):
        before = ex.view
        t0 = time.perf_counter()
        controls[name].value = value  # the observer runs compute + redraw + PNG -> Image
        t_fast = time.perf_counter() - t0
        if ex.view is before:  # clamped at an end of the slider: no update happened
            continue
        v = ex.view
        t0 = time.perf_counter()
        png = naive_figure_png(compute(v.d_k, v.magnitude, v.scaled, v.seed, v.T))
        t_slow = time.perf_counter() - t0
        assert png[:8] == bytes(ex.image.value[:8]) == b"\x89PNG\r\n\x1a\n"
        if k >= warmup:
            fast.append(t_fast)
            slow.append(t_slow)
    f, s = statistics.median(fast), statistics.median(slow)
    mem_fast, mem_slow = _peak_memory(ex)
    return {
        "explorer_peak_kib": mem_fast / 1024,
        "naive_peak_kib": mem_slow / 1024,
        "explorer_ms": 1e3 * f,
        "explorer_p90_ms": 1e3 * float(np.percentile(fast, 90)),
        "naive_ms": 1e3 * s,
        "ratio": s / f,
        "n_moves": len(fast),
        "full_draws": ex.figure.n_full_draws,
    }


def _peak_memory(ex) -> tuple[int, int]:
    """Peak bytes allocated (tracemalloc: Python objects and numpy buffers) by one move each way.

    Measured after the timing loop, because tracing slows allocation down.
    Matplotlib's C++ Agg buffers are not seen by tracemalloc.
    """
    import tracemalloc

    peaks = []
    for fn in (lambda: setattr(ex.d_k_slider, "value", 256 if ex.d_k_slider.value != 256 else 128),
               lambda: naive_figure_png(compute(256, 1.0, False, 0))):
        tracemalloc.start()
        tracemalloc.reset_peak()
        fn()
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return peaks[0], peaks[1]


def main() -> dict:
    """Print the explorer-update figure (issue 9, figure 1) and return the numbers."""
    r = run()
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"matplotlib {matplotlib.__version__}")
    print(f"explorer update (compute + blitted redraw + PNG into ipywidgets.Image), median of {r['n_moves']} moves: "
          f"{r['explorer_ms']:.1f} ms (p90 {r['explorer_p90_ms']:.1f} ms, {r['full_draws']} background draws)")
    print(f"naive interact pattern (new figure + savefig bbox_inches='tight' per move), median: {r['naive_ms']:.1f} ms")
    print(f"peak memory of one move (tracemalloc, Python + numpy): explorer {r['explorer_peak_kib']:.0f} KiB, "
          f"naive {r['naive_peak_kib']:.0f} KiB")
    print(f"ratio naive / explorer: {r['ratio']:.1f}x   "
          f"(targets: >= {TARGET_RATIO:.0f}x -> {'met' if r['ratio'] >= TARGET_RATIO else 'NOT met'}; "
          f"< {TARGET_MS:.0f} ms -> {'met' if r['explorer_ms'] < TARGET_MS else 'NOT met'})")
    return r


if __name__ == "__main__":
    main()
