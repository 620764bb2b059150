"""Figure ``ci``: the wall time of ``bash .ci/run`` on a fresh clone, this commit beside a baseline commit.

    python -m benchmarks.ci --baseline 5bb892c          # baseline first, then HEAD (about half an hour)
    python -m benchmarks.ci --baseline 5bb892c --order head-first
    python -m benchmarks.ci --baseline c4fe8d0 --baseline-log base.log   # the baseline run earlier in this sitting

``--baseline-log`` reads the log of the baseline's ``.ci/run`` made earlier in the same sitting on this machine
(``time bash .ci/run > base.log 2>&1; echo "EXIT $?" >> base.log`` on a fresh clone of it) instead of running it
again; ``--keep-log`` keeps the head run's log.

Each commit is cloned from this repository into a fresh temporary folder and its own ``.ci/run`` runs
there exactly as CI runs it (``CI=true``, no standard input), one after the other on this machine, so
both numbers come from one sitting. Printed: each run's wall time, its exit code, the time of each step
``.ci/run`` announces (``== ...``) and pytest's closing line; then the ratio. Nothing is asserted: the
target (HEAD <= 50 % of the baseline, issue 29) is read here. The load average is written beside the
figure: a busy machine stretches both runs.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLOSING = re.compile(r"^=+ .*\b(passed|failed)\b.* in [\d.]+s.*=+$", re.MULTILINE)


def read_log(commit: str, text: str) -> dict:
    """What :func:`run_ci` returns, from the log of ``time bash .ci/run`` (wall: bash's ``real`` line; exit: ``EXIT n``)."""
    real = re.search(r"^real\s+(\d+)m([\d.]+)s$", text, re.MULTILINE)
    rc = re.search(r"^EXIT (\d+)$", text, re.MULTILINE)
    if not (real and rc):
        raise SystemExit("the baseline log needs bash's `time` output (real ...) and an `EXIT n` line")
    return {"commit": commit, "rc": int(rc.group(1)), "wall_s": int(real.group(1)) * 60 + float(real.group(2)),
            "steps": [ln for ln in text.splitlines() if ln.startswith("== ")],
            "closing": [m.group(0).strip("= ") for m in CLOSING.finditer(text)], "tail": text[-3000:]}


def run_ci(commit: str, keep_log: Path | None = None) -> dict:
    """Clone ``commit`` into a fresh folder, run its ``.ci/run``; wall time, exit code, steps, closing lines."""
    with tempfile.TemporaryDirectory(prefix="ch02-ci-bench-") as tmp:
        clone = Path(tmp) / "repo"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        sha = subprocess.run(["git", "-C", str(clone), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        log = Path(tmp) / "ci.log"
        env = {**os.environ, "CI": "true"}
        start = time.perf_counter()
        with open(log, "w") as out:
            rc = subprocess.run(["bash", ".ci/run"], check=False, cwd=clone, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT).returncode
        wall = time.perf_counter() - start
        text = log.read_text(errors="replace")
        if keep_log:
            keep_log.write_text(text)
    steps = [ln for ln in text.splitlines() if ln.startswith("== ")]
    return {"commit": sha, "rc": rc, "wall_s": wall, "steps": steps,
            "closing": [m.group(0).strip("= ") for m in CLOSING.finditer(text)], "tail": text[-3000:]}


def report(runs: dict[str, dict]) -> str:
    lines = []
    for label, r in runs.items():
        lines.append(f"{label:<9} {r['commit']}: bash .ci/run {r['wall_s']:7.0f} s  (exit {r['rc']})")
        lines += [f"            {s}" for s in r["steps"] if "[" in s]
        lines += [f"            pytest: {c}" for c in r["closing"]]
    if {"baseline", "head"} <= set(runs):
        ratio = runs["head"]["wall_s"] / runs["baseline"]["wall_s"]
        lines.append(f"head / baseline = {ratio:.2f}  (target <= 0.50)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ci", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--baseline", required=True, help="the commit to compare with (e.g. the last landed main)")
    parser.add_argument("--head", default="HEAD", help="the commit measured (default: HEAD)")
    parser.add_argument("--order", choices=["baseline-first", "head-first"], default="baseline-first")
    parser.add_argument("--baseline-log", type=Path, help="the baseline's .ci/run log from earlier in this sitting")
    parser.add_argument("--keep-log", type=Path, help="where to keep the head run's log")
    args = parser.parse_args(argv)
    order = [("baseline", args.baseline), ("head", args.head)]
    if args.order == "head-first":
        order.reverse()
    runs = {}
    if args.baseline_log:
        runs["baseline"] = read_log(args.baseline, args.baseline_log.read_text(errors="replace"))
        order = [("head", args.head)]
    for label, commit in order:
        print(f"running .ci/run of {commit} ({label}) ...", file=sys.stderr, flush=True)
        runs[label] = run_ci(commit, args.keep_log if label == "head" else None)
        if runs[label]["rc"]:
            print(runs[label]["tail"], file=sys.stderr)
    runs = {k: runs[k] for k in ("baseline", "head")}
    print(report(runs), flush=True)
    return runs


if __name__ == "__main__":
    from benchmarks.results import measured

    measured("ci", main)
