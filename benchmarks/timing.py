"""Timing: warm up, then take the median of several runs, npusim and numpy interleaved.

Each *run* times a batch of calls sized so that the batch lasts at least
``MIN_BATCH_SECONDS`` (timer resolution and loop overhead stay negligible) and
reports seconds per call.  Time is this process's CPU time (``time.process_time``):
on a shared machine the wall clock also counts the time other processes hold the
CPU, the CPU time does not.  npusim and numpy runs alternate, so what load remains
(shared caches, memory bandwidth) hits both sides of a ratio alike.  The garbage
collector is off while a batch runs, as in :mod:`timeit`.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable

__all__ = ["MIN_BATCH_SECONDS", "Timing", "time_pair", "time_self_timed"]

MIN_BATCH_SECONDS = 0.02
clock = time.process_time
WARMUP_CALLS = 3


class Timing:
    """Per-call seconds of every run, and their median."""

    def __init__(self, runs: list[float]) -> None:
        self.runs = runs

    @property
    def median(self) -> float:
        return statistics.median(self.runs)


def _batch_size(fn: Callable[[], object]) -> int:
    """Calls per batch: enough for one batch to last ``MIN_BATCH_SECONDS``."""
    calls = 1
    while True:
        start = clock()
        for _ in range(calls):
            fn()
        elapsed = clock() - start
        if elapsed >= MIN_BATCH_SECONDS / 4 or calls >= 1 << 20:
            return max(1, int(calls * MIN_BATCH_SECONDS / max(elapsed, 1e-9)))
        calls *= 4


def _run(fn: Callable[[], object], calls: int) -> float:
    gc.disable()
    try:
        start = clock()
        for _ in range(calls):
            fn()
        return (clock() - start) / calls
    finally:
        gc.enable()


def time_pair(npusim: Callable[[], object], numpy: Callable[[], object], runs: int) -> tuple[Timing, Timing]:
    """Median-ready timings of two callables, measured alternately after a warm-up."""
    for fn in (npusim, numpy):
        for _ in range(WARMUP_CALLS):
            fn()
    sizes = (_batch_size(npusim), _batch_size(numpy))
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        a.append(_run(npusim, sizes[0]))
        b.append(_run(numpy, sizes[1]))
    return Timing(a), Timing(b)


def time_self_timed(npusim: Callable[[], float], numpy: Callable[[], float], runs: int) -> tuple[Timing, Timing]:
    """Like :func:`time_pair` for callables that measure themselves (e.g. in a fresh interpreter)."""
    npusim()
    numpy()
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        a.append(npusim())
        b.append(numpy())
    return Timing(a), Timing(b)
