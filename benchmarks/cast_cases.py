"""Cast benchmarks on an emulated Atlas A2: float32 -> half (CAST_RINT), beside numpy's ``astype``.

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

__all__ = ["cast_bench"]

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
