"""Sophgo benchmark: ``tpu_bdc_greater_select`` on BM1684X beside ``np.where``.

Shape (4, 64, 56, 56) in the aligned local-memory layout, src0 / src1 / src2 TENSOR
operands and a SCALAR src3, FP32 or FP16: ``dst = src2 if src0 > src1 else src3``.  The
numpy side is ``np.where(a > b, c, d)`` on the same arrays (the emulator's output is
read back through ``read_local`` and compared byte for byte once).
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import sophgo as tpu
from npusim.sophgo.layout import align_up, local_stride

__all__ = ["greater_select_bench"]

SHAPE = (4, 64, 56, 56)
SCALAR = 1.5


def greater_select_bench(dtype: tpu.data_type_t, chip: str = "BM1684X") -> Bench:
    storage = np.float32 if dtype == tpu.DT_FP32 else np.float16
    rng = np.random.default_rng(50)
    a, b, c = (rng.standard_normal(SHAPE).astype(storage) for _ in range(3))
    d = np.array(SCALAR, storage)
    stack = ExitStack()
    core = stack.enter_context(tpu.Core(chip))
    shape = tpu.dim4(*SHAPE)
    stride = local_stride("aligned", shape, 0, 8 * d.itemsize, core.chip)
    span = align_up(shape.n * stride.n * d.itemsize, core.chip.align_bytes)
    a_addr, b_addr, c_addr, dst = (k * span for k in range(4))
    for addr, array in ((a_addr, a), (b_addr, b), (c_addr, c)):
        core.write_local(addr, array, dtype)
    sources = (
        tpu.variable_t(type=tpu.TENSOR, addr=a_addr),
        tpu.variable_t(type=tpu.TENSOR, addr=b_addr),
        tpu.variable_t(type=tpu.TENSOR, addr=c_addr),
        tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=int(d.view(f"<u{d.itemsize}")))),
    )
    return Bench(
        npusim=lambda: tpu.tpu_bdc_greater_select(dst, *sources, shape, dtype, dtype),
        numpy=lambda: np.where(a > b, c, d),
        npusim_output=lambda: core.read_local(dst, shape, dtype).tobytes(),
        numpy_output=lambda: np.where(a > b, c, d).tobytes(),
        resources=stack,
    )
