"""Where the NCHW -> NC1HWC0 kernel's time goes, against numpy's golden and the data-movement floor.

    python benchmarks/kernel_breakdown.py [--launches 200] [--runs 7]

The table row "NCHW->NC1HWC0 kernel" (``kernel_cases.py``) gives one ratio; this script
splits that time, to tell which part a speed-up can still win:

* **floor** -- the kernel's data movement alone, written here in plain numpy without
  npusim: per tile the strided copy from ``x`` into a UB-sized byte array, the
  16-channel transposition inside it, and the contiguous copy out to ``y``; the same
  3 passes over the same bytes that any emulator keeping the Unified Buffer's contents
  must make, with no checks and no calls;
* **moving bytes inside npusim** -- the time spent in the plans' ``run`` methods
  (``CopyBinding.run``, ``TransPlan.run``): the floor's work plus the per-call bounds
  and written-shadow checks;
* **core and kernel set-up** -- ``Core(...)`` for the block, and the kernel's ``init``
  (TPipe, TQues, GlobalTensors, parameters);
* **the rest** -- the per-call Python of the 88 runtime calls of a launch (queue
  calls, GM views, the plan lookups and argument checks of ``data_copy`` and
  ``trans_data_to_5hd``) and the launch itself.

The split wraps those methods with timers, which adds a little time to each part; the
"whole launch" line is measured without them, "whole launch, timed parts" with them
(the rest is that minus the parts).  Times are medians over ``--runs`` runs of
``--launches`` launches of wall-clock time (``time.perf_counter``, the cheapest clock
to read inside the wrappers): run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from contextlib import contextmanager

import numpy as np

from npusim.ascend.chips import get_chip
from npusim.ascend.core import Core
from npusim.ascend.ops.data_copy import CopyBinding
from npusim.ascend.ops.transpose import Transposition
from npusim.examples import nchw_to_nc1hwc0 as kernel

SHAPE = (1, 64, 56, 56)
clock = time.perf_counter
A2 = get_chip("A2")  # the kernel's default product: UB size, and the TPipe pool below the API scratch


def floor_convert(x: np.ndarray, tile: int) -> np.ndarray:
    """The kernel's per-tile data movement in plain numpy (module docstring, "floor")."""
    n, c, h, w = x.shape
    hw, c0 = h * w, kernel.C0
    y = np.zeros((n, c // c0, h, w, c0), np.float16)
    ub = np.zeros(A2.ub_bytes // 2, np.uint16)
    tile_in = ub[: c0 * tile].reshape(c0, tile)  # the input queue's buffer: 16 channel rows
    tile_out = ub[c0 * tile : 2 * c0 * tile].reshape(tile, c0)  # the output queue's buffer
    planes = x.view(np.uint16).reshape(n * c // c0, c0, hw)
    out = y.view(np.uint16).reshape(n * c // c0, hw, c0)
    for group in range(planes.shape[0]):
        for start in range(0, hw, tile):
            tile_in[...] = planes[group, :, start : start + tile]  # copy in: 16 strided rows
            tile_out[...] = tile_in.T  # trans_data_to_5hd: D[e][k] = S[k][e]
            out[group, start : start + tile] = tile_out  # copy out: contiguous
    return y


@contextmanager
def timed_methods(totals: Counter, methods: dict[str, tuple[type, str]]):
    """Add the seconds spent in each ``(class, method)`` to ``totals[label]`` while active."""
    originals = {label: getattr(cls, name) for label, (cls, name) in methods.items()}

    def wrap(label, original):
        def timed(*args, **kwargs):
            start = clock()
            try:
                return original(*args, **kwargs)
            finally:
                totals[label] += clock() - start
        return timed

    for label, (cls, name) in methods.items():
        setattr(cls, name, wrap(label, originals[label]))
    try:
        yield totals
    finally:
        for label, (cls, name) in methods.items():
            setattr(cls, name, originals[label])


def median_per_launch(fn, launches: int, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = clock()
        for _ in range(launches):
            fn()
        samples.append((clock() - start) / launches)
    return statistics.median(samples)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args(argv)
    x = kernel.example_input(SHAPE, seed=40)
    tile = kernel.tile_length(SHAPE[2] * SHAPE[3], A2.vec_local_bytes, kernel.BUFFER_NUM)
    golden = kernel.golden(x).tobytes()
    if kernel.convert(x, 1).tobytes() != golden or floor_convert(x, tile).tobytes() != golden:
        raise AssertionError("the kernel or the floor differs from the golden")

    def measure(fn):
        return median_per_launch(fn, args.launches, args.runs)

    whole, numpy_golden = measure(lambda: kernel.convert(x, 1)), measure(lambda: kernel.golden(x))
    floor = measure(lambda: floor_convert(x, tile))
    parts: Counter = Counter()
    methods = {"moving bytes inside npusim (plan run methods)": (CopyBinding, "run"),
               "  of which trans_data_to_5hd": (Transposition, "run"),
               "core and kernel set-up: Core()": (Core, "__init__"),
               "core and kernel set-up: kernel init": (kernel.KernelNchwToNc1hwc0, "init")}
    with timed_methods(parts, methods):
        wrapped = measure(lambda: kernel.convert(x, 1))
    scale = 1 / (args.runs * args.launches)  # the parts are totals over every run
    parts = Counter({label: seconds * scale for label, seconds in parts.items()})
    parts["moving bytes inside npusim (plan run methods)"] += parts["  of which trans_data_to_5hd"]
    accounted = sum(v for k, v in parts.items() if not k.startswith("  "))

    def row(label: str, seconds: float) -> str:
        return f"| {label} | {seconds * 1e6:.0f} µs | {seconds / numpy_golden:.2f}x |"

    print(f"NCHW->NC1HWC0 {SHAPE} half on one A2 block, tile {tile} positions, "
          f"{SHAPE[1] // kernel.C0 * SHAPE[2] * SHAPE[3] // tile} tiles; wall time per launch")
    print("| part | time | x numpy golden |\n|---|---|---|")
    print(row("numpy golden (reshape + transpose + copy)", numpy_golden))
    print(row("floor: the kernel's copies in plain numpy", floor))
    print(row("whole launch (npusim)", whole))
    print(row("whole launch, timed parts", wrapped))
    for label, seconds in parts.items():
        print(row(label, seconds))
    print(row("the rest: per-call Python of the runtime calls, and the launch", wrapped - accounted))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
