"""Sort32 on an emulated Atlas A2, beside numpy doing the same job: a stable descending argsort of each
block of 32 scores, then the (score, index) pairs interleaved.

The scores are normal float32 values (no NaN, whose place numpy's argsort and Sort32 do not share);
the indices 0 .. n-1.  src0 at 0x0, src1 at 0x8000, dst at 0x10000: at repeat 160, 20 KiB, 20 KiB, 40 KiB.
"""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np
from registry import Bench

from npusim import ascend as asc

__all__ = ["radix_sort_bench", "sort_proposals_bench", "sort32_bench"]

SRC0, SRC1, DST = 0x00000, 0x08000, 0x10000


def sort32_bench(repeats: int, strided: bool = False) -> Bench:
    """``asc.sort32(dst, scores, indices, repeats)`` vs ``np.argsort(-scores per 32, kind="stable")``."""
    n = repeats * 32
    scores = np.random.default_rng(31).standard_normal(n).astype(np.float32)
    indices = np.arange(n, dtype=np.uint32)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("A2"))
    core.ub_write(SRC0, scores.tobytes())
    core.ub_write(SRC1, indices.tobytes())
    src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC0, n)
    src1 = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, SRC1, n)
    dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 2 * n)
    out = np.empty(2 * n, np.uint32)

    def numpy_sort32() -> np.ndarray:
        blocks = scores.reshape(repeats, 32)
        order = np.argsort(-blocks, axis=1, kind="stable")
        out[0::2] = np.take_along_axis(blocks, order, axis=1).reshape(-1).view(np.uint32)
        out[1::2] = (order + 32 * np.arange(repeats, dtype=np.int64)[:, None]).reshape(-1)
        return out

    return Bench(
        npusim=lambda: asc.sort32(dst, src0, src1, repeats),
        numpy=numpy_sort32,
        npusim_output=lambda: core.ub_read(DST, 8 * n),
        numpy_output=lambda: numpy_sort32().tobytes(),
        resources=stack,
    )


def sort_proposals_bench(repeats: int = 64) -> Bench:
    """The high-level ``asc.sort(dst, concat, index, tmp, repeats, True)`` on the 310P (half region proposals:
    the indices into y1 / label, RpSort16, the MrgSort4 levels) vs numpy: the index halves written into the
    proposals' columns 1 and 5, then the rows in ``np.argsort(-scores, kind="stable")`` order."""
    n = repeats * 16
    rng = np.random.default_rng(17)
    proposals = rng.integers(0, 2**16, (n, 8), dtype=np.uint16)
    proposals[:, 4] = rng.standard_normal(n).astype(np.float16).view(np.uint16)
    indices = rng.permutation(n).astype(np.uint32)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("310P"))
    core.ub_write(SRC0, proposals.tobytes())
    core.ub_write(0x18000, indices.tobytes())
    concat = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC0, 8 * n)
    index = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 0x18000, n)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0x20000, 8 * n)
    tmp = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0x30000, 8 * n)

    def numpy_sort() -> np.ndarray:
        rows = proposals.copy()
        rows[:, 1] = indices & 0xFFFF
        rows[:, 5] = indices >> 16
        return rows[np.argsort(-rows[:, 4].view(np.float16), kind="stable")]

    return Bench(
        npusim=lambda: asc.sort(dst, concat, index, tmp, repeats, True),
        numpy=numpy_sort,
        npusim_output=lambda: core.ub_read(0x20000, 16 * n),
        numpy_output=lambda: numpy_sort().tobytes(),
        resources=stack,
    )


SORTED_SRC, SORTED_INDEX, SORTED_DST = 0x00000, 0x01000, 0x02000


def radix_sort_bench(count: int = 1024) -> Bench:
    """``asc.sort_with_config(dst, dst_index, src, count)`` (RADIX_SORT, ascending, the 950) vs ``np.argsort(kind=
    "stable")`` and a gather: normal halves (no NaN, no -0, where the radix order is numpy's)."""
    values = np.random.default_rng(37).standard_normal(count).astype(np.float16)
    stack = ExitStack()
    core = stack.enter_context(asc.Core("950"))
    core.ub_write(SORTED_SRC, values.tobytes())
    src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SORTED_SRC, count)
    index = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, SORTED_INDEX, count)
    dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, SORTED_DST, count)

    def numpy_sort() -> bytes:
        order = np.argsort(values, kind="stable")
        return values[order].tobytes() + order.astype(np.uint32).tobytes()

    return Bench(
        npusim=lambda: asc.sort_with_config(dst, index, src, count),
        numpy=numpy_sort,
        npusim_output=lambda: core.ub_read(SORTED_DST, 2 * count) + core.ub_read(SORTED_INDEX, 4 * count),
        numpy_output=numpy_sort,
        resources=stack,
    )
