"""``asc.adv.softmax`` (SoftMax, ND, float, A2, 310P or 950) beside numpy's softmax of the same rows.

npusim runs the vendor's sequence of instructions (docs/softmax.md): on the A2 100 calls (57 vector
instructions, the rest mask registers and barriers) for 8 rows of 1024, on the 310P 110 (61: its
broadcast and the reciprocal, §1.7), with the framework's
temporary buffer and the tiling the kernel derives from a default ``SoftmaxTiling``.  On the 950 it is one
vector function (docs/softmax.md §2: one access record, after the row's values are computed in numpy) with a
``temp_buffer`` of GetSoftMaxMinTmpSize, which the 950 needs (§2.5).  numpy
computes ``exp(x - max) / sum`` per row in float32.  The two sum in different orders, so their
outputs are not compared byte for byte; the case checks once that they agree within 1e-6
(absolute) before timing.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc
from npusim.ascend import adv
from npusim.ascend.shape_info import ShapeInfo

__all__ = ["softmax_bench"]


def softmax_bench(rows: int = 8, width: int = 1024, chip: str = "A2") -> Bench:
    rng = np.random.default_rng(2025)
    x = (rng.random((rows, width), dtype=np.float32) * np.float32(5)).astype(np.float32)
    stack = ExitStack()
    stack.enter_context(asc.Core(chip))
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, rows * width)
    dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, rows * width * 4, rows * width)
    row_sum = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2 * rows * width * 4, rows * 8)
    row_max = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2 * rows * width * 4 + rows * 32, rows * 8)
    src.write(x.ravel())
    src.set_shape_info(ShapeInfo((rows, width)))
    tmp = None
    if chip == "950":  # GetSoftMaxMinTmpSize on DAV_3510 (docs/softmax.md §2.5)
        floats = max(rows * (8 + width) + 256 + -(-rows // 8) * 8, rows * (8 + width))
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2 * rows * width * 4 + rows * 64, floats * 4)

    def call() -> None:
        adv.softmax(dst, row_sum, row_max, src, adv.SoftmaxTiling(), tmp)

    def numpy_job() -> np.ndarray:
        shifted = np.exp(x - x.max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)

    call()
    assert np.abs(dst.read().reshape(rows, width) - numpy_job()).max() <= 1e-6
    return Bench(npusim=call, numpy=numpy_job, resources=stack)
