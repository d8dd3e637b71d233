"""Cast benchmarks on an emulated Atlas A2: float32 -> half (CAST_RINT), beside numpy's ``astype``; half ->
int4b_t (CAST_RINT), beside numpy's rint, clip and nibble packing.

A repeat converts 64 lanes (256 bytes of float32, 128 bytes of half).  Dense: the source's
repeat stride 8, the destination's 4 (Cast.md 约束说明); strided: block stride 2 for both
(repeat strides 16 and 8).  The data are normal values (no overflow or NaN, where the A2's
saturation and numpy differ); one case converts values whose half results are subnormal.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc
from npusim.dtypes import from_numpy

__all__ = ["cast_bench", "int4_bench", "tiny_cast_bench"]

BLOCK = 32
SRC_AT, DST_AT = 0x00000, 0x14000


def _view(buffer: np.ndarray, base: int, dtype, repeats: int, blocks: int, blk: int, rep: int) -> np.ndarray:
    per_block = BLOCK // np.dtype(dtype).itemsize
    return np.ndarray((repeats, blocks, per_block), dtype, buffer=buffer, offset=base,
                      strides=(rep * BLOCK, blk * BLOCK, np.dtype(dtype).itemsize))


def _conversion_bench(values: np.ndarray, dst_type, lanes: int, dst_blocks: int, dst_np, strided: bool,
                      numpy_result) -> Bench:
    """``asc.cast(dst, src, CAST_RINT, lanes, repeats, params)`` on ``values`` (``lanes`` a repeat, the source
    covering 8 DataBlocks and dst ``dst_blocks`` of each repeat) vs ``numpy_result(values)``."""
    repeats = values.size // lanes
    blk = 2 if strided else 1
    src_rep, dst_rep = 8 * blk, dst_blocks * blk
    image = np.zeros(0x20000, np.uint8)
    _view(image, SRC_AT, values.dtype, repeats, 8, blk, src_rep)[...] = values.reshape(repeats, 8, lanes // 8)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, image.tobytes())
    src = asc.LocalTensor(from_numpy(values.dtype), asc.TPosition.VECIN, SRC_AT)
    dst = asc.LocalTensor(dst_type, asc.TPosition.VECOUT, DST_AT)
    params = asc.UnaryRepeatParams(blk, blk, dst_rep, src_rep)

    def npusim_output() -> bytes:
        ub = np.frombuffer(core.ub_read(0, 0x20000), np.uint8)
        return np.ascontiguousarray(_view(ub, DST_AT, dst_np, repeats, dst_blocks, blk, dst_rep)).tobytes()

    return Bench(
        npusim=lambda: asc.cast(dst, src, asc.RoundMode.CAST_RINT, lanes, repeats, params),
        numpy=lambda: numpy_result(values),
        npusim_output=npusim_output,
        numpy_output=lambda: numpy_result(values).tobytes(),
        resources=stack,
    )


def cast_bench(repeats: int, strided: bool) -> Bench:
    """``asc.cast(dst_half, src_float, CAST_RINT, 64, repeats, params)`` vs ``src.astype(np.float16)``."""
    values = (np.random.default_rng(21).standard_normal(repeats * 64) * 100).astype(np.float32)
    return _conversion_bench(values, asc.float16, 64, 4, np.float16, strided, lambda v: v.astype(np.float16))


def tiny_cast_bench(repeats: int, strided: bool) -> Bench:
    """:func:`cast_bench` on values of magnitude about 1e-5, most of whose half results are subnormal and
    inexact: numpy's conversion raises its underflow flag element by element there (about 100x slower
    per element), which npusim's rounding steps around (docs/performance.md)."""
    values = (np.random.default_rng(23).standard_normal(repeats * 64) * 1e-5).astype(np.float32)
    return _conversion_bench(values, asc.float16, 64, 4, np.float16, strided, lambda v: v.astype(np.float16))


def _int4_numpy(values: np.ndarray) -> np.ndarray:
    codes = np.clip(np.rint(values), -8, 7).astype(np.int8).view(np.uint8) & 0xF
    return codes[0::2] | (codes[1::2] << 4)


def int4_bench(repeats: int, strided: bool) -> Bench:
    """``asc.cast(dst_int4, src_half, CAST_RINT, 128, repeats, params)``: 128 lanes a repeat, 64 dst bytes
    (Cast.md's {1, 1, 2, 8}; strided: block stride 2, repeat strides 4 and 16)."""
    values = (np.random.default_rng(22).standard_normal(repeats * 128) * 6).astype(np.float16)
    return _conversion_bench(values, asc.int4b_t, 128, 2, np.uint8, strided, _int4_numpy)
