"""Cast benchmarks on an emulated Atlas A2: float32 -> half (CAST_RINT), beside numpy's ``astype``; half ->
int4b_t (CAST_RINT), beside numpy's rint, clip and nibble packing.

A repeat converts 64 lanes (256 bytes of float32, 128 bytes of half).  Dense: the source's
repeat stride 8, the destination's 4 (Cast.md 约束说明); strided: block stride 2 for both
(repeat strides 16 and 8).  The data are normal values (no overflow or NaN, where the A2's
saturation and numpy differ).
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc

__all__ = ["cast_bench", "int4_bench"]

BLOCK = 32
SRC_AT, DST_AT = 0x00000, 0x14000


def _view(buffer: np.ndarray, base: int, dtype, repeats: int, blocks: int, blk: int, rep: int) -> np.ndarray:
    per_block = BLOCK // np.dtype(dtype).itemsize
    return np.ndarray((repeats, blocks, per_block), dtype, buffer=buffer, offset=base,
                      strides=(rep * BLOCK, blk * BLOCK, np.dtype(dtype).itemsize))


def cast_bench(repeats: int, strided: bool) -> Bench:
    """``asc.cast(dst_half, src_float, CAST_RINT, 64, repeats, params)`` vs ``src.astype(np.float16)``."""
    blk = 2 if strided else 1
    src_rep, dst_rep = 8 * blk, 4 * blk
    values = (np.random.default_rng(21).standard_normal(repeats * 64) * 100).astype(np.float32)
    image = np.zeros(0x20000, np.uint8)
    _view(image, SRC_AT, np.float32, repeats, 8, blk, src_rep)[...] = values.reshape(repeats, 8, 8)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, image.tobytes())
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC_AT, 0x14000 // 4)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST_AT, 0xA000 // 2)
    params = asc.UnaryRepeatParams(blk, blk, dst_rep, src_rep)

    def npusim_output() -> bytes:
        ub = np.frombuffer(core.ub_read(0, 0x20000), np.uint8)
        return np.ascontiguousarray(_view(ub, DST_AT, np.float16, repeats, 4, blk, dst_rep)).tobytes()

    return Bench(
        npusim=lambda: asc.cast(dst, src, asc.RoundMode.CAST_RINT, 64, repeats, params),
        numpy=lambda: values.astype(np.float16),
        npusim_output=npusim_output,
        numpy_output=lambda: values.astype(np.float16).tobytes(),
        resources=stack,
    )


def _int4_numpy(values: np.ndarray) -> bytes:
    codes = np.clip(np.rint(values), -8, 7).astype(np.int8).view(np.uint8) & 0xF
    return (codes[0::2] | (codes[1::2] << 4)).tobytes()


def int4_bench(repeats: int, strided: bool) -> Bench:
    """``asc.cast(dst_int4, src_half, CAST_RINT, 128, repeats, params)``: 128 lanes a repeat, 64 dst bytes
    (Cast.md's {1, 1, 2, 8}; strided: block stride 2, repeat strides 4 and 16)."""
    blk = 2 if strided else 1
    src_rep, dst_rep = 8 * blk, 2 * blk
    values = (np.random.default_rng(22).standard_normal(repeats * 128) * 6).astype(np.float16)
    image = np.zeros(0x20000, np.uint8)
    _view(image, SRC_AT, np.float16, repeats, 8, blk, src_rep)[...] = values.reshape(repeats, 8, 16)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, image.tobytes())
    src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC_AT, 0x14000 // 2)
    dst = asc.LocalTensor(asc.int4b_t, asc.TPosition.VECOUT, DST_AT, 0xA000 * 2)
    params = asc.UnaryRepeatParams(blk, blk, dst_rep, src_rep)

    def npusim_output() -> bytes:
        ub = np.frombuffer(core.ub_read(0, 0x20000), np.uint8)
        return np.ascontiguousarray(_view(ub, DST_AT, np.uint8, repeats, 2, blk, dst_rep)).tobytes()

    return Bench(
        npusim=lambda: asc.cast(dst, src, asc.RoundMode.CAST_RINT, 128, repeats, params),
        numpy=lambda: _int4_numpy(values),
        npusim_output=npusim_output,
        numpy_output=lambda: _int4_numpy(values),
        resources=stack,
    )
