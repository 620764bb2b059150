"""Print every benchmark figure of the series, each measured side by side in one run.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python -m benchmarks          # all figures (several minutes)
    python -m benchmarks --quick                                              # skip the slow ones (a smoke check)

Figures
  1  explorer update vs the naive new-figure-per-move pattern (benchmarks.explorer)
  2  validating every notebook vs the floor of starting their kernels (benchmarks.suite)
  3  float32 attention: plain path, blockwise path, PyTorch CPU (if installed), GEMM limit
  4  peak memory of each of the above
  classroom  peak kernel memory of every notebook vs the floor; N = 20 kernels at once
             (--quick: N = 4) (benchmarks.classroom; several minutes)
  browser edition  2.5 in the browser edition (JupyterLite + Pyodide): cold and warm seconds
             to its first live slider (benchmarks.browser_edition; needs the editions extra)
  lecture    lecture deck: first slide, first live widget, explorer live vs a bare kernel
             (benchmarks.lecture; needs playwright + chromium)
  model explorer  2.13's attention explorer: re-encode + redraw and a cached move vs a bare
             kernel's start (benchmarks.model_explorer; needs the weights: python -m helpers.model fetch;
             --quick: 5 sentences, 1 kernel)

Every figure measured is written to benchmarks/results.md (its section there is replaced; the
others are kept), with the date, this command, the machine line and the load average: prose
quotes no figure, it links there. --quick figures are a smoke check and are not written unless
--results names a file; --no-write writes nothing.

Ratios, not absolute times, are the result: both sides of each ratio run in the same
process, taking turns, on the same threads (numpy's BLAS and PyTorch pinned to 2).
Timings vary with machine load; no test ever asserts on them.

OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE, when set, force an OpenBLAS kernel (e.g. Haswell
on an AVX-512 CPU); unset them for this command alone to let OpenBLAS pick its best
kernel. The machine line shows which kernel ran.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from .results import RESULTS, measured


def _rss_mib() -> float:
    """Peak RSS of this process in MiB; NaN where the Unix-only ``resource`` module is missing (Windows)."""
    try:
        import resource  # Unix only: imported here so `python -m benchmarks --help` works on Windows
    except ImportError:
        return float("nan")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="skip figure 2 (the notebook suite) and use T <= 1024 in figure 3, T = 4096 in figure 4")
    parser.add_argument("--no-explorer", action="store_true", help="skip figure 1")
    parser.add_argument("--no-suite", action="store_true", help="skip figure 2")
    parser.add_argument("--no-attention", action="store_true", help="skip figures 3 and 4 (attention)")
    parser.add_argument("--no-classroom", action="store_true", help="skip the classroom figure")
    parser.add_argument("--no-browser-edition", action="store_true", help="skip the browser-edition figure")
    parser.add_argument("--no-lecture", action="store_true", help="skip the lecture figure (deck start-up)")
    parser.add_argument("--no-model-explorer", action="store_true", help="skip the model-explorer figure (2.13)")
    parser.add_argument("--full-memory", action="store_true",
                        help="really run the plain path at T = 16384 in figure 4 (~3 GiB, tens of seconds) "
                             "instead of extrapolating it from T = 4096")
    parser.add_argument("--results", type=Path, default=None, metavar="PATH",
                        help=f"write the measured figures here (default {RESULTS.relative_to(RESULTS.parents[1])}; "
                             "with --quick only when given)")
    parser.add_argument("--no-write", action="store_true", help="write no results file")
    args = parser.parse_args(argv)
    write = not args.no_write and (args.results is not None or not args.quick)
    command = "python -m benchmarks" + "".join(f" {a}" for a in (sys.argv[1:] if argv is None else argv))

    def figure(key, fn, *a, **kw):
        """Run one figure; when it measured something and writing is on, record what it printed."""
        return measured(key, fn, *a, command=command, path=args.results, write=write, **kw)

    from .machine import THREADS, limit_threads, machine_line

    threads = limit_threads(THREADS)
    start = time.perf_counter()
    print(machine_line())
    print(f"threads: {', '.join(threads)}; numpy's elementwise ufuncs are single-threaded; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} (1/5/15 min) at start")
    if "OPENBLAS_CORETYPE" in os.environ:
        print(f"note: OPENBLAS_CORETYPE={os.environ['OPENBLAS_CORETYPE']} forces that OpenBLAS kernel; "
              "run with `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE` for the CPU's own kernel")
    memory = []
    failed: list[str] = []

    if not args.no_explorer:
        print("\n== Figure 1: saturation-explorer update vs naive interact (new figure per move) ==", flush=True)
        try:
            from .explorer import main as explorer_main
        except ImportError as exc:
            print(f"MISSING: benchmarks.explorer.main is not available ({exc}); figure 1 not measured")
        else:
            before = _rss_mib()
            try:
                figure("explorer", explorer_main)
            except Exception as exc:  # one broken figure must not hide the others
                failed.append("1")
                print(f"FAILED: figure 1 raised {type(exc).__name__}: {exc}")
            else:
                memory.append(("explorer figure (whole process)", f"peak RSS grew {_rss_mib() - before:.0f} MiB "
                                                                   f"to {_rss_mib():.0f} MiB"))

    if not (args.no_suite or args.quick):
        from . import suite

        print("\n== Figure 2: validate every notebook (pytest notebooks/) vs kernel-start floor ==", flush=True)
        res = figure("suite", suite.main)
        if res:
            memory.append(("notebook suite, largest process", f"{res['suite']['maxrss'] / 2**20:.0f} MiB"))
            memory.append(("floor, largest process", f"{res['floor']['maxrss'] / 2**20:.0f} MiB"))

    if not args.no_attention:
        from . import attention

        print("\n== Figure 3: scaled dot-product attention, float32 ==", flush=True)
        res = figure("attention", attention.main, quick=args.quick, full_memory=args.full_memory)
        for r in res["rows"]:
            if r["T"] == max(x["T"] for x in res["rows"]) and r["path"] != "torch":
                memory.append((f"attention T={r['T']} {'causal' if r['causal'] else 'full'} {r['path']}",
                               f"{r['peak_bytes'] / 2**20:.1f} MiB (tracemalloc)"))
        for r in res["memory"]:
            memory.append((f"attention T={r['T']} {'causal' if r['causal'] else 'full'} {r['path']}",
                           f"{r['peak_bytes'] / 2**20:.1f} MiB ({r['how']})"))

    if not args.no_classroom:
        from . import classroom

        print("\n== Figure classroom: peak kernel memory per notebook vs the floor; kernels at once ==", flush=True)
        try:
            figure("classroom", classroom.main, quick=args.quick)
        except Exception as exc:  # one broken figure must not hide the others
            failed.append("classroom")
            print(f"FAILED: figure classroom raised {type(exc).__name__}: {exc}")

    if not args.no_browser_edition:
        print("\n== Figure browser edition: 2.5 to its first live slider, cold and warm ==", flush=True)
        try:
            from . import browser_edition

            figure("browser_edition", browser_edition.main)
        except Exception as exc:  # one broken figure must not hide the others
            failed.append("browser edition")
            print(f"FAILED: figure browser edition raised {type(exc).__name__}: {exc}")
    if not args.no_lecture:
        from . import lecture

        print("\n== Figure lecture: the lecture deck on the projector vs a bare kernel ==", flush=True)
        try:
            figure("lecture", lecture.main, rounds=1 if args.quick else 3, with_presentation_view=not args.quick)
        except Exception as exc:  # one broken figure must not hide the others
            failed.append("lecture")
            print(f"FAILED: figure lecture raised {type(exc).__name__}: {exc}")

    if not args.no_model_explorer:
        from . import model_explorer

        print("\n== Figure model explorer: 2.13's attention explorer, re-encode and move vs a bare kernel ==", flush=True)
        try:
            figure("model_explorer", model_explorer.main, **({"n_sentences": 5, "kernels": 1} if args.quick else {}))
        except Exception as exc:  # one broken figure must not hide the others
            failed.append("model explorer")
            print(f"FAILED: figure model explorer raised {type(exc).__name__}: {exc}")

    if memory:
        print("\n== Figure 4 (summary): peak memory ==")
        figure("memory", lambda: [print(f"{what:<42} {value}") for what, value in memory])
    print(f"\ntotal {time.perf_counter() - start:.0f} s; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    if failed:
        print(f"figures that failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
