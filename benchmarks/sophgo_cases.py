"""Sophgo benchmarks: ``tpu_bdc_greater_select`` (and its maximum form) beside ``np.where``.

The reference row is BM1684X, shape (4, 64, 56, 56) in the aligned local-memory layout,
src0 / src1 / src2 TENSOR operands and a SCALAR src3: ``dst = src2 if src0 > src1 else
src3``, FP32 (target: within 2x of numpy) or FP16.  The other rows, reported without a
target, take the costlier paths: channels starting at lane 5 (three channel runs), several
channel slots per lane, a VECTOR src1, BF16, the maximum form (two outputs) and BM1688.
The numpy side is ``np.where(a > b, c, d)`` on the same arrays (the emulator's output is
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


def greater_select_bench(dtype: tpu.data_type_t, chip: str = "BM1684X", shape: tuple[int, ...] = SHAPE,
                         start_lane: int = 0, vector_src1: bool = False, maximum: bool = False) -> Bench:
    """``tpu_bdc_greater_select`` (``maximum``: ``tpu_bdc_maximum_greater_select``) vs ``np.where``."""
    storage = tpu.types.storage_dtype(dtype, "bench", "dtype").np_dtype
    rng = np.random.default_rng(50)
    a, b, c = (rng.standard_normal(shape).astype(np.float32).astype(storage) for _ in range(3))
    d = np.array(SCALAR, storage)
    if vector_src1:
        b = b[:1, :, :1, :1]  # one value per channel
    stack = ExitStack()
    core = stack.enter_context(tpu.Core(chip))
    dims = tpu.dim4(*shape)
    stride = local_stride("aligned", dims, start_lane, 8 * d.itemsize, core.chip)
    span = align_up(dims.n * stride.n * d.itemsize, core.chip.align_bytes)
    a_addr, b_addr, c_addr, dst0, dst1 = (start_lane * core.chip.local_mem_bytes + k * span for k in range(5))
    for addr, array in ((a_addr, a), (b_addr, b), (c_addr, c)):
        core.write_local(addr, array, dtype)
    sources = (
        tpu.variable_t(type=tpu.TENSOR, addr=a_addr),
        tpu.variable_t(type=tpu.VECTOR if vector_src1 else tpu.TENSOR, addr=b_addr),
        tpu.variable_t(type=tpu.TENSOR, addr=c_addr),
        tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=int(d.view(f"<u{d.itemsize}")))),
    )

    def emulated() -> None:
        if maximum:
            tpu.tpu_bdc_maximum_greater_select(dst0, dst1, *sources, dims, dtype, dtype)
        else:
            tpu.tpu_bdc_greater_select(dst0, *sources, dims, dtype, dtype)

    def numpy():
        greater = a > b
        return (np.where(greater, a, b), np.where(greater, c, d)) if maximum else np.where(greater, c, d)

    def emulated_output() -> bytes:
        selected = core.read_local(dst0 if not maximum else dst1, dims, dtype).tobytes()
        return (core.read_local(dst0, dims, dtype).tobytes() + selected) if maximum else selected

    def numpy_output() -> bytes:
        result = numpy()
        return (result[0].tobytes() + result[1].tobytes()) if maximum else result.tobytes()

    return Bench(npusim=emulated, numpy=numpy, npusim_output=emulated_output, numpy_output=numpy_output,
                 resources=stack)
