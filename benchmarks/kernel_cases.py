"""End-to-end kernel benchmarks: a launch, its data copies and its vector instructions.

The NCHW -> NC1HWC0 case times the example kernel itself,
:func:`npusim.examples.nchw_to_nc1hwc0.convert` (seed 002's recipe, ref §4.4, tiled
through UB: per tile a strided ``data_copy`` in, one ``trans_data_to_5hd``, a contiguous
``data_copy`` out), on one block: a whole launch with a fresh core, its queues and the
output array.  The numpy side is the example's golden,
``x.reshape(N, C1, C0, H, W).transpose(0, 1, 3, 4, 2)`` copied into a new array.  The plain case
times :func:`~npusim.examples.nchw_to_nc1hwc0.convert_plain`, the same kernel written without
shaping it for the emulator (a ``data_copy`` per channel row, LocalTensor lists).
"""

from __future__ import annotations

from registry import Bench

from npusim.examples import nchw_to_nc1hwc0 as kernel

__all__ = ["checked_nchw_to_nc1hwc0_bench", "nchw_to_nc1hwc0_bench", "plain_nchw_to_nc1hwc0_bench"]


def nchw_to_nc1hwc0_bench(shape: tuple[int, int, int, int] = (1, 64, 56, 56)) -> Bench:
    """One launch of the example kernel on one A2 block, against the example's numpy golden."""
    x = kernel.example_input(shape, seed=40)  # every half bit pattern class: the copy must be bit exact
    return Bench(
        npusim=lambda: kernel.convert(x, 1),
        numpy=lambda: kernel.golden(x),
        npusim_output=lambda: kernel.convert(x, 1).tobytes(),
        numpy_output=lambda: kernel.golden(x).tobytes(),
    )


def plain_nchw_to_nc1hwc0_bench(shape: tuple[int, int, int, int] = (1, 64, 56, 56)) -> Bench:
    """One launch of the plainly written kernel on one A2 block, against the same golden."""
    x = kernel.example_input(shape, seed=40)
    return Bench(
        npusim=lambda: kernel.convert_plain(x, 1),
        numpy=lambda: kernel.golden(x),
        npusim_output=lambda: kernel.convert_plain(x, 1).tobytes(),
        numpy_output=lambda: kernel.golden(x).tobytes(),
    )


def checked_nchw_to_nc1hwc0_bench(shape: tuple[int, int, int, int] = (1, 64, 56, 56)) -> Bench:
    """The cost of the sync checker: the example kernel with the checker on (``sync="raise"``) in the
    npusim column, the same launch with it off (``sync="off"``) in the numpy column."""
    x = kernel.example_input(shape, seed=40)
    return Bench(
        npusim=lambda: kernel.convert(x, 1, sync="raise"),
        numpy=lambda: kernel.convert(x, 1, sync="off"),
        npusim_output=lambda: kernel.convert(x, 1, sync="raise").tobytes(),
        numpy_output=lambda: kernel.golden(x).tobytes(),
    )
