"""Benchmark cases of the fill-like and register-reading instructions: CreateVecIndex against ``np.arange``
and GetReduceRepeatMaxMinSpr (a per-call register read) against ``np.argmax``."""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def _core() -> tuple[ExitStack, asc.Core]:
    stack = ExitStack()
    return stack, stack.enter_context(asc.Core("A2"))


def create_vec_index_bench(repeats: int, strided: bool) -> Bench:
    """``asc.create_vec_index(dst, 0.0, 64, repeats, blk, rep)`` (float32, full repeats) vs ``np.arange``,
    strided: every other DataBlock (blk 2, rep 16), numpy writing the same layout."""
    count = repeats * 64
    blk, rep = (2, 16) if strided else (1, 8)
    stack, core = _core()
    dst = asc.LocalTensor(asc.float32, VECOUT, 0, count * blk)
    out = np.zeros(count * blk, dtype=np.float32)

    def numpy_fill():
        values = np.arange(count, dtype=np.float32)
        out.reshape(-1, blk, 8)[:, 0, :] = values.reshape(-1, 8)
        return out

    core.ub_write(0, out.tobytes())  # the gaps of the strided layout: zero on both sides
    return Bench(
        npusim=lambda: asc.create_vec_index(dst, 0.0, 64, repeats, blk, rep),
        numpy=numpy_fill,
        npusim_output=lambda: core.ub_read(0, 4 * count * blk),
        numpy_output=lambda: numpy_fill().tobytes(),
        resources=stack,
    )


def max_min_spr_bench() -> Bench:
    """``asc.get_reduce_repeat_max_min_spr(asc.float32)`` after a ReduceRepeat<MAX> vs ``np.argmax`` of the
    value it read (the read alone is timed)."""
    rng = np.random.default_rng(31)
    values = rng.standard_normal(128).astype(np.float32)
    stack, core = _core()
    core.ub_write(0, values.tobytes())
    src = asc.LocalTensor(asc.float32, VECIN, 0, 128)
    dst = asc.LocalTensor(asc.float32, VECOUT, 0x1000, 8)
    asc.whole_reduce_max(dst, src, 64, 2, 1, 1, 8)

    def read():
        value, index = asc.get_reduce_repeat_max_min_spr(asc.float32)
        return value.tobytes() + index.tobytes()

    def numpy_read():
        where = int(np.argmax(values))
        return values[where].tobytes() + np.array([where], np.uint32).tobytes()

    return Bench(npusim=read, numpy=numpy_read, npusim_output=read, numpy_output=numpy_read, resources=stack)


def vector_padding_bench(repeats: int, strided: bool) -> Bench:
    """``asc.vector_padding(dst, src, 1, False, 128, repeats, params)`` (half, 310P, full repeats: each DataBlock
    reversed) vs numpy's reversal of each 16-element row; strided: the destination every other DataBlock."""
    rng = np.random.default_rng(32)
    count = repeats * 128
    values = rng.integers(0, 1 << 16, count).astype(np.uint16)
    blk, rep = (2, 16) if strided else (1, 8)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("310P"))
    core.ub_write(0, values.tobytes())
    src = asc.LocalTensor(asc.float16, VECIN, 0, count)
    dst = asc.LocalTensor(asc.float16, VECOUT, 0x14000, count * blk)
    out = np.zeros(count * blk, dtype=np.uint16)
    core.ub_write(0x14000, out.tobytes())
    params = asc.UnaryRepeatParams(blk, 1, rep, 8)

    def numpy_pad():
        out.reshape(-1, blk, 16)[:, 0, :] = values.reshape(-1, 16)[:, ::-1]
        return out

    return Bench(
        npusim=lambda: asc.vector_padding(dst, src, 1, False, 128, repeats, params),
        numpy=numpy_pad,
        npusim_output=lambda: core.ub_read(0x14000, 2 * count * blk),
        numpy_output=lambda: numpy_pad().tobytes(),
        resources=stack,
    )
