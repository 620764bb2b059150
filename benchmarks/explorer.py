"""Benchmark: one saturation-explorer update vs a new figure per slider move.

    python -m benchmarks.explorer

Both paths do the same work per simulated slider move: recompute the numbers
(:func:`helpers.saturation_view.saturation_state` and the many-seed medians) and
produce the image the learner receives, for the same four panels (scores with
ghost bars and bands, weights, median curves against d_k, Jacobian heatmap).

- **explorer**: the widget itself — set a control's value, which triggers the
  pure computation, a blitted redraw of one cached figure, JPEG encoding and the
  assignment to the ``ipywidgets.Image``.
- **naive**: what ``ipywidgets.interact`` with a plotting function costs — a new
  pyplot figure per move (:func:`naive_figure_png`, benchmark-only), drawn and
  encoded with ``bbox_inches="tight"`` as the inline backend does, then closed.

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

from helpers.ui.plotting import DIVERGING_CMAP  # noqa: E402
from helpers.lessons.saturation.view import D_K_OPTIONS, bank_summary, saturation_state  # noqa: E402
from helpers.lessons.saturation.widget import (FIGSIZE, HALF_WIDTH, J_LIMIT, SCALED_COLOR, UNSCALED_COLOR,  # noqa: E402
                                       saturation_explorer, score_limit)


def naive_figure_png(view, summary) -> bytes:
    """The slow pattern: a brand-new pyplot figure per slider move, the same four panels.

    What ``ipywidgets.interact`` with a plotting function does: build everything
    from scratch, encode it the way the inline backend does
    (``savefig(..., format="png", bbox_inches="tight")``), close the figure.
    """
    import io

    import matplotlib.pyplot as plt

    T = view.T
    x = np.arange(1, T + 1)
    shown, ghost = view.shown, view.ghost
    c_shown, c_ghost = (SCALED_COLOR, UNSCALED_COLOR) if view.divide else (UNSCALED_COLOR, SCALED_COLOR)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    fig, ((ax_s, ax_w), (ax_c, ax_j)) = plt.subplots(2, 2, figsize=FIGSIZE, dpi=100)
    for mode, color in ((view.unscaled, UNSCALED_COLOR), (view.scaled, SCALED_COLOR)):
        if mode is shown:
            ax_s.axhspan(-mode.std_theory, mode.std_theory, color=color, alpha=0.18, lw=0)
        else:
            ax_s.axhspan(-mode.std_theory, mode.std_theory, facecolor="none", edgecolor=color, ls="--")
    for ax, g, s in ((ax_s, ghost.scores, shown.scores), (ax_w, ghost.weights, shown.weights)):
        ax.bar(x, g, width=2 * HALF_WIDTH, facecolor="none", edgecolor=c_ghost)
        ax.bar(x, s, width=0.5, color=c_shown)
        ax.set_xlabel("key j")
    top = max(np.abs(shown.scores).max(), shown.std_theory)
    lim = score_limit(float(top))
    ax_s.set_ylim(-lim, lim)
    ax_s.set_ylabel("score")
    ax_w.set_ylim(0, 1.05)
    ax_w.axhline(1.0 / T, color="0.5", ls=":")
    ax_w.set_ylabel("weight")
    for mode, color in (("unscaled", UNSCALED_COLOR), ("scaled", SCALED_COLOR)):
        ax_c.plot(summary.d_ks, summary.median_max_weight[mode], color=color)
        ax_c.plot(summary.d_ks, summary.median_jacobian_norm[mode], color=color, ls="--")
    ax_c.axvline(view.d_k, color="0.3")
    ax_c.set_xscale("log", base=2)
    ax_c.set_xlabel(r"$d_k$")
    ax_c.set_ylabel("median over seeds")
    mesh = ax_j.pcolormesh(shown.jacobian, cmap=DIVERGING_CMAP, vmin=-J_LIMIT, vmax=J_LIMIT)
    fig.colorbar(mesh, ax=ax_j, label=r"$J_{ij}$")
    for ax, title in ((ax_s, r"scores (band: $\pm$ theory std)"), (ax_w, "softmax weights"),
                      (ax_c, r"max weight (solid), $\|J\|_F$ (dashed)"), (ax_j, "Jacobian of the shown mode")):
        ax.set_title(title)
    fig.legend(handles=[Patch(color=UNSCALED_COLOR, label="unscaled"),
                        Patch(color=SCALED_COLOR, label=r"divided by $\sqrt{d_k}$"),
                        Patch(facecolor="none", edgecolor="0.3", label="hollow: the other mode"),
                        Line2D([], [], color="0.5", ls=":", label="uniform $1/T$")],
               loc="upper center", ncol=4, frameon=False)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    out = io.BytesIO()
    fig.savefig(out, format="png", bbox_inches="tight")
    plt.close(fig)
    return out.getvalue()

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
        (naive / explorer), ``explorer_cpu_ms``, ``naive_cpu_ms`` (median CPU time of this
        process, which machine load does not inflate), ``cpu_ratio``, ``n_moves``, ``full_draws`` (explorer background redraws),
        ``explorer_peak_kib``, ``naive_peak_kib`` (tracemalloc peak of one move).
    """
    ex = saturation_explorer(d_k=64, inv_temp=1.0, divide=False, seed=0)
    controls = {"d_k": ex.d_k_slider, "magnitude": ex.inv_temp_slider, "scaled": ex.divide_checkbox}
    fast, slow, fast_cpu, slow_cpu = [], [], [], []
    for k, (name, value) in enumerate(_moves(n_moves + warmup)):
        before = ex.view
        c0, t0 = time.process_time(), time.perf_counter()
        controls[name].value = value  # the observer runs the computation + redraw + JPEG -> Image
        t_fast, c_fast = time.perf_counter() - t0, time.process_time() - c0
        if ex.view is before:  # clamped at an end of the slider: no update happened
            continue
        v = ex.view
        c0, t0 = time.process_time(), time.perf_counter()
        png = naive_figure_png(saturation_state(v.d_k, v.inv_temp, v.divide, v.seed, v.T),
                               bank_summary(ex.bank, D_K_OPTIONS, v.inv_temp))
        t_slow, c_slow = time.perf_counter() - t0, time.process_time() - c0
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and bytes(ex.image.value[:2]) == b"\xff\xd8"  # PNG, JPEG
        if k >= warmup:
            fast.append(t_fast)
            fast_cpu.append(c_fast)
            slow.append(t_slow)
            slow_cpu.append(c_slow)
    f, s = statistics.median(fast), statistics.median(slow)
    mem_fast, mem_slow = _peak_memory(ex)
    return {
        "explorer_peak_kib": mem_fast / 1024,
        "naive_peak_kib": mem_slow / 1024,
        "explorer_ms": 1e3 * f,
        "explorer_p90_ms": 1e3 * float(np.percentile(fast, 90)),
        "explorer_cpu_ms": 1e3 * statistics.median(fast_cpu),
        "naive_ms": 1e3 * s,
        "naive_cpu_ms": 1e3 * statistics.median(slow_cpu),
        "ratio": s / f,
        "cpu_ratio": statistics.median(slow_cpu) / statistics.median(fast_cpu),
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
               lambda: naive_figure_png(saturation_state(256, 1.0, False, 0), bank_summary(ex.bank, D_K_OPTIONS, 1.0))):
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
    print(f"explorer update (compute + blitted redraw + JPEG into ipywidgets.Image), median of {r['n_moves']} moves: "
          f"{r['explorer_ms']:.1f} ms (p90 {r['explorer_p90_ms']:.1f} ms, {r['full_draws']} background draws; "
          f"CPU time of this process {r['explorer_cpu_ms']:.1f} ms, which machine load does not inflate)")
    print(f"naive interact pattern (new figure + savefig bbox_inches='tight' per move), median: {r['naive_ms']:.1f} ms "
          f"(CPU time {r['naive_cpu_ms']:.1f} ms)")
    print(f"peak memory of one move (tracemalloc, Python + numpy): explorer {r['explorer_peak_kib']:.0f} KiB, "
          f"naive {r['naive_peak_kib']:.0f} KiB")
    print(f"ratio naive / explorer: {r['ratio']:.1f}x   "
          f"(targets: >= {TARGET_RATIO:.0f}x -> {'met' if r['ratio'] >= TARGET_RATIO else 'NOT met'}; "
          f"< {TARGET_MS:.0f} ms -> {'met' if r['explorer_ms'] < TARGET_MS else 'NOT met'}); "
          f"CPU-time ratio {r['cpu_ratio']:.1f}x")
    return r


if __name__ == "__main__":
    from benchmarks.results import measured

    measured("explorer", main)
