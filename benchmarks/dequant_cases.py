"""CastDequant benchmark on an emulated Atlas A2: int16 -> int8 per tensor (``cast_deq``), beside numpy.

A repeat converts 128 int16 lanes (256 bytes) into the upper halves of eight 32-byte dst blocks
(``half_block=True``, strides ``{1, 1, 8, 8}``): the scale 0.5 (already (1,8,10)), rint, the 9-bit clamp,
offset 3 and int8 saturation.  numpy computes the same steps on a flat array.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc

__all__ = ["cast_deq_bench"]

SRC_AT, DST_AT = 0x00000, 0x10000
SCALE, OFFSET = np.float32(0.5), 3


def _numpy(values: np.ndarray) -> np.ndarray:
    rounded = np.rint(values.astype(np.float32) * SCALE).astype(np.int32)
    return np.clip(np.clip(rounded, -256, 255) + OFFSET, -128, 127).astype(np.int8)


def cast_deq_bench(repeats: int) -> Bench:
    """``asc.cast_deq(dst, src, 128, repeats, {1, 1, 8, 8}, is_vec_deq=False)`` vs the numpy steps."""
    values = np.random.default_rng(23).integers(-(1 << 15), 1 << 15, repeats * 128).astype(np.int16)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, bytes(0x20000))
    core.ub_write(SRC_AT, values.tobytes())
    src = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, SRC_AT, repeats * 128)
    dst = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, DST_AT, repeats * 256)
    asc.set_deq_scale(float(SCALE), OFFSET, True)
    params = asc.UnaryRepeatParams(1, 1, 8, 8)

    def npusim_output() -> bytes:
        blocks = np.frombuffer(core.ub_read(DST_AT, repeats * 256), np.int8).reshape(-1, 32)
        return np.ascontiguousarray(blocks[:, 16:]).tobytes()

    return Bench(
        npusim=lambda: asc.cast_deq(dst, src, 128, repeats, params, True, False, True),
        numpy=lambda: _numpy(values),
        npusim_output=npusim_output,
        numpy_output=lambda: _numpy(values).tobytes(),
        resources=stack,
    )
