"""Figures 3 and 4: the attention helper in float32, against PyTorch and the GEMM limit.

    python -m benchmarks.attention            # this figure alone

Paths, measured side by side (taking turns in blocks of calls; median and best call):

* ``plain``     ``helpers.scaled_dot_product_attention`` (builds the T x T matrix; the
                causal case passes the boolean ``causal_mask``),
* ``blockwise`` the same function with ``block_size=1024`` (online softmax, implemented in
                ``helpers.core.blockwise``; ``causal=True``), run with numpy's BLAS limited to one
                thread (threadpoolctl): its products are small tiles, which a multi-threaded BLAS
                on a busy machine slows down many times over (the tiled path itself runs its
                query blocks one after another; it has no thread pool of its own),
* ``torch``     ``torch.nn.functional.scaled_dot_product_attention`` on CPU with
                (1, 1, T, d) tensors (``is_causal``), only when PyTorch is importable.
                PyTorch is a benchmark-only tool, never a dependency.

GFLOP/s counts the useful work, 4 T^2 d for the two products (half of it, plus the
diagonal, when causal), against the rate of a large float32 matmul on the same
threads: the machine's limit for this kind of work.
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np

from helpers import causal_mask, scaled_dot_product_attention

__all__ = ["gemm_rate", "measure", "memory_at", "main"]

BLOCK_SIZE = 1024  # keys per block of the blockwise path

SIZES = (512, 1024, 2048, 4096)
D_K = 64
_BLOCKS = 3  # turns per path
_SETTLE = 0.1  # seconds of pause before each block


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _inputs(T: int, d_k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((T, d_k), dtype=np.float32) for _ in range(3))


def _one_blas_thread(fn):
    """``fn`` with numpy's BLAS limited to one thread while it runs (unchanged without threadpoolctl)."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # a declared dependency; the benchmark still runs without it
        return fn
    controller = ThreadpoolController()  # made once: entering its limit then costs microseconds

    def run():
        with controller.limit(limits=1, user_api="blas"):
            return fn()

    return run


def _paths(Q, K, V, causal: bool, torch_too: bool):
    T = Q.shape[0]
    mask = causal_mask(T, boolean=True) if causal else None
    paths = {
        "plain": lambda: scaled_dot_product_attention(Q, K, V, mask=mask).output,
        "blockwise": _one_blas_thread(
            lambda: scaled_dot_product_attention(Q, K, V, causal=causal, block_size=BLOCK_SIZE).output),
    }
    torch = _torch() if torch_too else None
    if torch is not None:
        tq, tk, tv = (torch.from_numpy(x)[None, None] for x in (Q, K, V))
        sdpa = torch.nn.functional.scaled_dot_product_attention

        def run_torch():
            with torch.inference_mode():
                return sdpa(tq, tk, tv, is_causal=causal)

        paths["torch"] = run_torch
    return paths


def _flops(T: int, d_k: int, causal: bool) -> float:
    pairs = T * (T + 1) / 2 if causal else T * T
    return 4.0 * pairs * d_k


def _traced_peak(fn) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def gemm_rate(n: int = 2048, repeats: int = 5) -> float:
    """Best GFLOP/s of an n x n x n float32 matmul (numpy's BLAS, current threads)."""
    rng = np.random.default_rng(1)
    A, B = (rng.standard_normal((n, n), dtype=np.float32) for _ in range(2))
    out = np.empty_like(A)
    np.matmul(A, B, out=out)
    best = min(_time(lambda: np.matmul(A, B, out=out)) for _ in range(repeats))
    return 2.0 * n**3 / best / 1e9


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def measure(sizes=SIZES, d_k: int = D_K, repeats: int = 7, torch_too: bool = True) -> list[dict]:
    """Time every path at every size, with and without the causal mask (``repeats`` calls each).

    Returns
    -------
    list of dict
        One row per (T, causal, path): ``seconds`` (median of ``repeats``
        calls, in blocks taking turns), ``best`` (their minimum), ``gflops`` (useful GFLOP/s at the best time), ``peak_bytes`` (tracemalloc peak of one call;
        None for torch, whose allocations tracemalloc does not see), ``max_abs_err`` vs plain.
    """
    rows = []
    for T in sizes:
        Q, K, V = _inputs(T, d_k)
        for causal in (False, True):
            paths = _paths(Q, K, V, causal, torch_too)
            ref = np.asarray(paths["plain"]())
            errs = {}
            for name, fn in paths.items():  # warm up, and check every path agrees
                out = fn()
                out = out.numpy()[0, 0] if name == "torch" else out
                errs[name] = float(np.abs(out - ref).max())
                assert out.dtype == np.float32, (name, out.dtype)
            times = {name: [] for name in paths}
            # Blocks of consecutive calls, the paths taking turns (A B C A B C ...): turns share
            # out any drift in the machine's load; the settle pause before each block lets the
            # previous path's idle threads stop spinning (OpenBLAS spins ~0.1 s after a call),
            # so no path is timed while another path's threads still hold a core.
            per_block = max(1, repeats // _BLOCKS)
            for _ in range(_BLOCKS if repeats >= _BLOCKS else 1):
                for name, fn in paths.items():
                    time.sleep(_SETTLE)
                    for _ in range(per_block):
                        times[name].append(_time(fn))
            for name, fn in paths.items():
                sec, best = statistics.median(times[name]), min(times[name])
                rows.append(dict(T=T, causal=causal, path=name, seconds=sec, best=best,
                                 gflops=_flops(T, d_k, causal) / best / 1e9,
                                 peak_bytes=None if name == "torch" else _traced_peak(fn), max_abs_err=errs[name]))
    return rows


_TORCH_MEM = """
import os, threading, time, numpy as np, torch
torch.set_num_threads({threads})
T, d, causal = {T}, {d}, {causal}
page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * page
rng = np.random.default_rng(0)
q, k, v = (torch.from_numpy(rng.standard_normal((T, d), dtype=np.float32))[None, None] for _ in range(3))
with torch.inference_mode():  # warm-up at a small size: thread pools, kernels
    torch.nn.functional.scaled_dot_product_attention(q[..., :256, :], k[..., :256, :], v[..., :256, :])
before, peak, done = rss(), [0], threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.0005)
th = threading.Thread(target=sample)
th.start()
with torch.inference_mode():
    torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
done.set()
th.join()
print(max(peak[0], rss()) - before)
"""


def _torch_peak(T: int, d_k: int, causal: bool, threads: int) -> int | None:
    """Peak RSS growth (bytes) of one torch SDPA call, in a fresh subprocess (RSS sampled every 0.5 ms)."""
    if _torch() is None:
        return None
    code = _TORCH_MEM.format(T=T, d=d_k, causal=causal, threads=threads)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        return None
    return int(res.stdout.strip().splitlines()[-1])


def memory_at(T: int = 16384, d_k: int = D_K, run_plain: bool = False, plain_ref: dict | None = None,
              threads: int = 2) -> list[dict]:
    """Peak extra memory of one call at a long sequence (figure 4).

    ``plain`` is only run when ``run_plain`` (it needs ~3 GiB and tens of seconds at
    T = 16384); otherwise its peak is extrapolated as (T / T_ref)^2 times a measured
    ``plain_ref = {"T": T_ref, "peak_bytes": ...}`` (its memory is exactly quadratic).
    """
    Q, K, V = _inputs(T, d_k)
    rows = []
    for causal in (False, True):
        t = time.perf_counter()
        peak = _traced_peak(lambda: scaled_dot_product_attention(Q, K, V, causal=causal, block_size=BLOCK_SIZE))
        rows.append(dict(T=T, causal=causal, path="blockwise", peak_bytes=peak, how="tracemalloc",
                         seconds=time.perf_counter() - t))
        if run_plain:
            mask = causal_mask(T, boolean=True) if causal else None
            t = time.perf_counter()
            peak = _traced_peak(lambda: scaled_dot_product_attention(Q, K, V, mask=mask))
            rows.append(dict(T=T, causal=causal, path="plain", peak_bytes=peak, how="tracemalloc",
                             seconds=time.perf_counter() - t))
        elif plain_ref is not None:
            est = plain_ref[causal]["peak_bytes"] * (T / plain_ref[causal]["T"]) ** 2
            rows.append(dict(T=T, causal=causal, path="plain", peak_bytes=int(est),
                             how=f"extrapolated x{(T / plain_ref[causal]['T']) ** 2:.0f} from T={plain_ref[causal]['T']}",
                             seconds=None))
        tp = _torch_peak(T, d_k, causal, threads)
        if tp is not None:
            rows.append(dict(T=T, causal=causal, path="torch", peak_bytes=tp, how="RSS growth sampled every 0.5 ms, subprocess (not traced by tracemalloc)",
                             seconds=None))
    return rows


def _mib(b) -> str:
    return "-" if b is None else f"{b / 2**20:8.1f}"


def report(rows: list[dict], gemm: float, d_k: int = D_K) -> str:
    """Figure 3 as a text table: ms, ratio to torch (or to plain), GFLOP/s, % of GEMM, peak MiB."""
    have_torch = any(r["path"] == "torch" for r in rows)
    base = "torch" if have_torch else "plain"
    lines = [f"float32, d_k = {d_k}; large-matmul limit {gemm:.0f} GFLOP/s. Paths take turns in blocks of calls "
             f"(A B C A B C ...); ms = median call, best = fastest call (least disturbed by other load); "
             f"x {base} = ratio to {base}; GFLOP/s at the best time; peak = tracemalloc (numpy allocations; "
             f"torch not traced, see figure 4)",
             f"{'T':>5} {'mask':>6} {'path':>9} {'ms':>8} {'x ' + base:>8} {'best ms':>8} {'best x':>7} "
             f"{'GFLOP/s':>8} {'% GEMM':>7} {'peak MiB':>9} {'max|err|':>9}"]
    for (T, causal) in dict.fromkeys((r["T"], r["causal"]) for r in rows):
        group = {r["path"]: r for r in rows if r["T"] == T and r["causal"] == causal}
        for name, r in group.items():
            lines.append(f"{T:>5} {'causal' if causal else 'none':>6} {name:>9} {r['seconds'] * 1e3:8.2f} "
                         f"{r['seconds'] / group[base]['seconds']:8.2f} {r['best'] * 1e3:8.2f} "
                         f"{r['best'] / group[base]['best']:7.2f} {r['gflops']:8.1f} "
                         f"{100 * r['gflops'] / gemm:6.1f}% {_mib(r['peak_bytes']):>9} {r['max_abs_err']:9.1e}")
    return "\n".join(lines)


def report_memory(rows: list[dict]) -> str:
    lines = [f"{'T':>6} {'mask':>6} {'path':>9} {'peak MiB':>9}  how"]
    for r in rows:
        lines.append(f"{r['T']:>6} {'causal' if r['causal'] else 'none':>6} {r['path']:>9} "
                     f"{_mib(r['peak_bytes']):>9}  {r['how']}")
    return "\n".join(lines)


def main(quick: bool = False, full_memory: bool = False, as_json: bool = False) -> dict:
    """Print figures 3 and 4; return the raw rows."""
    sizes = SIZES[:2] if quick else SIZES
    gemm = gemm_rate()
    rows = measure(sizes=sizes, repeats=6 if quick else 9)
    gemm = max(gemm, gemm_rate())  # before and after: the better one is closer to the machine's limit
    print(report(rows, gemm), flush=True)
    ref = {c: next(r for r in rows if r["T"] == sizes[-1] and r["causal"] == c and r["path"] == "plain")
           for c in (False, True)}
    T_mem = 4096 if quick else 16384
    print(f"\nFigure 4 (memory): peak extra memory of one call at T = {T_mem}, d_k = {D_K}, float32 "
          f"(the T x T float32 matrix alone is {T_mem * T_mem * 4 / 2**20:.0f} MiB)", flush=True)
    mem = memory_at(T=T_mem, run_plain=full_memory, plain_ref=ref)
    print(report_memory(mem), flush=True)
    result = {"gemm_gflops": gemm, "rows": rows, "memory": mem}
    if as_json:
        print(json.dumps(result, default=float))
    return result


if __name__ == "__main__":
    from benchmarks.results import measured

    quick = "--quick" in sys.argv  # a smoke check: its figures are not written to the results file
    measured("attention", main, quick=quick, full_memory="--full" in sys.argv, write=not quick)
