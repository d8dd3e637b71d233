#!/usr/bin/env python3
"""Speed of the Sophgo select instructions, as a ratio to plain numpy doing the same selection.

    python benchmarks/sophgo_select.py

The reference row (design target: within 2x of numpy) is ``tpu_bdc_greater_select`` on
BM1684X, shape (4, 64, 56, 56), FP32, TENSOR src0/src1/src2 and a SCALAR src3, against
``np.where(a > b, c, d)`` on the same arrays.  The other rows show the costlier paths:
channels wrapping past the last lane (three channel runs), several channel slots per
lane, a VECTOR operand, BF16, maximum (FTZ of dst0) and BM1688.  Numbers vary with the
machine; only the ratio is meaningful.
"""

from __future__ import annotations

import timeit
from dataclasses import dataclass

import numpy as np

from npusim import sophgo as tpu
from npusim.sophgo.layout import align_up, local_stride


@dataclass(frozen=True)
class Row:
    label: str
    chip: str
    shape: tuple[int, int, int, int]
    dtype: tpu.data_type_t = tpu.DT_FP32
    start_lane: int = 0
    vector_src1: bool = False
    maximum: bool = False


ROWS = [
    Row("greater fp32 (4,64,56,56), T T T S  [target]", "BM1684X", (4, 64, 56, 56)),
    Row("greater fp32 (2,64,56,56), lane 5: 3 runs", "BM1684X", (2, 64, 56, 56), start_lane=5),
    Row("greater fp32 (1,256,28,28), 4 slots per lane", "BM1684X", (1, 256, 28, 28)),
    Row("greater fp32 (4,64,56,56), VECTOR src1", "BM1684X", (4, 64, 56, 56), vector_src1=True),
    Row("greater bf16 (4,64,56,56)", "BM1684X", (4, 64, 56, 56), dtype=tpu.DT_BFP16),
    Row("maximum_greater fp32 (2,64,56,56)", "BM1684X", (2, 64, 56, 56), maximum=True),
    Row("greater fp32 (2,32,56,56), BM1688", "BM1688", (2, 32, 56, 56)),
]


def best_ms(fn, number: int = 5, repeat: int = 7) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number * 1e3


def prepare(row: Row):
    """(npusim call, numpy call) performing the same selection on the same data."""
    rng = np.random.default_rng(0)
    storage = tpu.types.storage_dtype(row.dtype, "bench", "dtype").np_dtype
    a, b, c = (rng.standard_normal(row.shape).astype(np.float32).astype(storage) for _ in range(3))
    d = np.array(1.5, storage)
    if row.vector_src1:
        b = b[:1, :, :1, :1]
    core = tpu.Core(row.chip)
    chip, shape = core.chip, tpu.dim4(*row.shape)
    stride = local_stride("aligned", shape, row.start_lane, 8 * storage.itemsize, chip)
    span = align_up(shape.n * stride.n * storage.itemsize, chip.align_bytes)
    a_addr, b_addr, c_addr, dst0, dst1 = (row.start_lane * chip.local_mem_bytes + k * span for k in range(5))
    with core:
        core.write_local(a_addr, a, row.dtype)
        core.write_local(b_addr, b, row.dtype)
        core.write_local(c_addr, c, row.dtype)
    srcs = (
        tpu.variable_t(type=tpu.TENSOR, addr=a_addr),
        tpu.variable_t(type=tpu.VECTOR if row.vector_src1 else tpu.TENSOR, addr=b_addr),
        tpu.variable_t(type=tpu.TENSOR, addr=c_addr),
        tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=int(d.view(f"<u{d.itemsize}")))),
    )

    def emulated() -> None:
        with core:
            if row.maximum:
                tpu.tpu_bdc_maximum_greater_select(dst0, dst1, *srcs, shape, row.dtype, row.dtype)
            else:
                tpu.tpu_bdc_greater_select(dst0, *srcs, shape, row.dtype, row.dtype)

    def numpy():
        greater = a > b
        return (np.where(greater, a, b), np.where(greater, c, d)) if row.maximum else np.where(greater, c, d)

    return emulated, numpy


def main() -> list[tuple[str, float, float]]:
    results = []
    print(f"{'case':48s} {'npusim ms':>10s} {'numpy ms':>10s} {'ratio':>7s}")
    for row in ROWS:
        emulated, numpy = prepare(row)
        emulated()  # warms the plan cache
        t_emulated, t_numpy = best_ms(emulated), best_ms(numpy)
        results.append((row.label, t_emulated, t_numpy))
        print(f"{row.label:48s} {t_emulated:10.2f} {t_numpy:10.2f} {t_emulated / t_numpy:7.2f}")
    return results


if __name__ == "__main__":
    main()
