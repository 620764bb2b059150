"""The machine line printed above every figure, and the thread settings used.

Nothing here is timed; it only reports what the numbers were measured on.
"""

from __future__ import annotations

import os
import platform
import sys

import numpy as np

__all__ = ["THREADS", "cpu_model", "blas_info", "limit_threads", "machine_line"]

# Both numpy's BLAS and PyTorch use this many threads, so the comparison is fair.
THREADS = 2


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else ``platform.processor()``."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def blas_info() -> str:
    """numpy's BLAS library, version, kernel and thread count (threadpoolctl if installed)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    if threadpool_info is not None:
        for pool in threadpool_info():
            if pool.get("user_api") == "blas":
                arch = pool.get("architecture") or "?"
                return f"{pool.get('internal_api')} {pool.get('version')} (kernel {arch}, {pool.get('num_threads')} threads)"
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{cfg.get('name')} {cfg.get('version')} (threadpoolctl not installed: kernel and threads unknown)"
    except Exception:  # numpy < 2 or an unusual build
        return "unknown BLAS"


def limit_threads(n: int = THREADS) -> list[str]:
    """Limit numpy's BLAS and (if importable) PyTorch to ``n`` threads; return what was done."""
    done = []
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=n, user_api="blas")
        done.append(f"numpy BLAS {n} threads (threadpoolctl)")
    except ImportError:
        done.append(f"numpy BLAS default threads (install threadpoolctl to pin {n})")
    try:
        import torch

        torch.set_num_threads(n)
        done.append(f"torch {n} threads")
    except ImportError:
        pass
    return done


def machine_line() -> str:
    """One line: CPU model, cores, numpy + BLAS, Python, and any OpenBLAS override in force."""
    env = {k: os.environ[k] for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                                       "OMP_NUM_THREADS") if k in os.environ}
    try:
        import torch

        torch_txt = f", torch {torch.__version__}"
    except ImportError:
        torch_txt = ", torch not installed"
    line = (
        f"machine: {cpu_model()}, {os.cpu_count()} cores | numpy {np.__version__} + {blas_info()}"
        f"{torch_txt} | Python {platform.python_version()} ({sys.platform})"
    )
    if env:
        line += " | env " + " ".join(f"{k}={v}" for k, v in env.items())
    return line
