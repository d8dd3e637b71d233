"""MulAddDst with half sources and a float dst (docs/semantics.md §5.26), on an emulated A2, beside numpy.

A repeat has 64 lanes; a source repeat is its first four DataBlocks, so the dense layout is
``{1, 1, 1, 8, 4, 4}`` and the strided one doubles every stride.  numpy widens the halves and computes
``a * b + d`` in float32: the product of two halves is exact there, so its bytes are the emulator's (the
inputs are normal values).  The call updates dst, so the outputs are compared after the first call.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from ascend_cases import UB_USED, VECIN, VECOUT
from registry import Bench
from ub_image import Placement, read_back

from npusim import ascend as asc

__all__ = ["mixed_mul_add_dst_bench"]

LANES = 64
DENSE = {"dst": Placement(0x00000), "src0": Placement(0x0A000, 1, 4), "src1": Placement(0x14000, 1, 4)}
STRIDED = {"dst": Placement(0x00000, 2, 16), "src0": Placement(0x00020, 2, 8), "src1": Placement(0x14000, 2, 8)}


def _place_half(image: np.ndarray, where: Placement, values: np.ndarray, repeats: int) -> None:
    """Half lanes at the mixed form's addresses: 4 DataBlocks of 16 a repeat."""
    view = np.ndarray((repeats, 4, 16), np.float16, buffer=image, offset=where.base,
                      strides=(where.rep * 32, where.blk * 32, 2))
    view[...] = values.reshape(repeats, 4, 16)


def _place_float(image: np.ndarray, where: Placement, values: np.ndarray, repeats: int) -> None:
    view = np.ndarray((repeats, 8, 8), np.float32, buffer=image, offset=where.base,
                      strides=(where.rep * 32, where.blk * 32, 4))
    view[...] = values.reshape(repeats, 8, 8)


def mixed_mul_add_dst_bench(repeats: int, strided: bool) -> Bench:
    """``asc.mul_add_dst(dst_f32, a_f16, b_f16, 64, repeats, params)`` vs ``a.astype(f32) * b.astype(f32) + d``."""
    rng = np.random.default_rng(31)
    layout = STRIDED if strided else DENSE
    n = repeats * LANES
    a, b = (rng.standard_normal(n).astype(np.float16) for _ in range(2))
    old = rng.standard_normal(n).astype(np.float32)
    image = np.zeros(UB_USED, np.uint8)
    _place_half(image, layout["src0"], a, repeats)
    _place_half(image, layout["src1"], b, repeats)
    _place_float(image, layout["dst"], old, repeats)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(0, image.tobytes())
    d, s0, s1 = layout["dst"], layout["src0"], layout["src1"]
    dst = asc.LocalTensor(asc.float32, VECOUT, d.base, d.span(repeats) // 4)
    src0, src1 = (asc.LocalTensor(asc.float16, VECIN, s.base, s.span(repeats) // 2) for s in (s0, s1))
    params = asc.BinaryRepeatParams(d.blk, s0.blk, s1.blk, d.rep, s0.rep, s1.rep)

    def numpy_call():
        return a.astype(np.float32) * b.astype(np.float32) + old

    return Bench(
        npusim=lambda: asc.mul_add_dst(dst, src0, src1, LANES, repeats, params),
        numpy=numpy_call,
        npusim_output=lambda: read_back(core.ub_read(0, UB_USED), d, np.float32, repeats),
        numpy_output=lambda: numpy_call().tobytes(),
        resources=stack,
    )
