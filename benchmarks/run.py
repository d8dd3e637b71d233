"""Print npusim's speed table: every case against plain numpy, as ratios measured in one run.

    python3 dev.py bench                  # every case (the usual entry point)
    python benchmarks/run.py -k select    # only cases whose name contains "select"
    python benchmarks/run.py --runs 9     # more runs per median (default 7, at least 5)
    python benchmarks/run.py --check      # exit status 1 if a target is missed

Each case first checks once that npusim's output equals numpy's byte for byte, then
times both sides alternately: a warm-up, then ``--runs`` runs, each a batch of calls
lasting at least 20 ms; the table shows the median CPU seconds per call.  See
docs/performance.md for what each ratio means.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import warnings

import numpy as np
from cases import CASES
from registry import Case, Pending
from table import Row, render
from timing import time_pair, time_self_timed

MIN_RUNS = 5


class OutputMismatch(AssertionError):
    """npusim and numpy disagree on a case's output bytes."""


def verify(case: Case, bench) -> None:
    """npusim's output must equal numpy's byte for byte, or the timing means nothing."""
    if bench.npusim_output is None:
        return
    bench.npusim()
    bench.numpy()
    got, want = bench.npusim_output(), bench.numpy_output()
    if got != want:
        first = next((i for i, (x, y) in enumerate(zip(got, want, strict=False)) if x != y), min(len(got), len(want)))
        raise OutputMismatch(f"{case.name}: npusim output differs from numpy at byte {first} "
                             f"({len(got)} vs {len(want)} bytes)")


def measure(case: Case | Pending, runs: int) -> Row:
    target = "—" if case.target is None else case.target.describe()
    if isinstance(case, Pending):
        return Row(case.name, None, None, target, f"pending: {case.reason}")
    bench = case.build()
    with bench.resources:
        verify(case, bench)
        timer = time_self_timed if bench.self_timed else time_pair
        npusim, numpy = timer(bench.npusim, bench.numpy, runs)
    ratio = npusim.median / numpy.median
    met = "n/a" if case.target is None else ("yes" if case.target.met(npusim.median, ratio) else "NO")
    return Row(case.name, npusim.median, numpy.median, target, met)


def _load() -> str:
    """The 1-minute load average: other processes on the machine share its CPUs and caches."""
    return f"{os.getloadavg()[0]:.2f}" if hasattr(os, "getloadavg") else "unknown"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="match", default="", help="only cases whose name contains this text")
    parser.add_argument("--runs", type=int, default=7, help=f"runs per median (at least {MIN_RUNS})")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a measured case misses its target")
    args = parser.parse_args(argv)
    runs = max(args.runs, MIN_RUNS)
    chosen = [c for c in CASES if args.match.lower() in c.name.lower()]
    print(f"npusim speed table: {platform.python_implementation()} {platform.python_version()}, numpy "
          f"{np.__version__}, {platform.machine()}, {os.cpu_count()} CPUs, load average {_load()}; "
          f"median CPU time of {runs} runs per side after warm-up", flush=True)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an uninitialised read or numpy warning is a benchmark bug
        for case in chosen:
            rows.append(measure(case, runs))
            print(f"  measured {case.name}", file=sys.stderr, flush=True)
    print(render(rows))
    print(f"load average at the end: {_load()}")
    missed = [r.case for r in rows if r.met == "NO"]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
