"""Masked fill on Ascend: replace every element equal to a value, with ``asc_ne_scalar`` + ``select``.

``y = x if x != value else fill`` for a half tensor in GM, here ``value = 0.0`` and
``fill = -1.0``, split over the blocks of the launch.  Each block:

1. copies its slice GM -> UB (``data_copy``);
2. ``asc_ne_scalar(mask, x, value, repeat, 1, 1, 8, 8)``: one bit per element, 1 where
   ``x != value`` (asc_ne_scalar.md; the C API bitmask is LSB first, 16 bytes per 128-half repeat);
3. ``select(y, mask, x, fill, VSEL_TENSOR_SCALAR_MODE, count)``: ``x`` where the bit is 1,
   else the scalar ``fill`` (Select.md, mode 1: the bit stream is consumed 16 bytes per repeat,
   exactly as the compare wrote it);
4. copies the result UB -> GM.

Float semantics.  The golden is numpy's ``np.where(x != value, x, fill)``, i.e. IEEE-754:
``NaN != value`` is true (NaNs are kept, payload and sign unchanged), and ``+0 == -0`` (both
zeros are replaced); subnormals and infinities compare by value.  This is the behaviour npusim
models for the A2 compare (docs/semantics.md §3.7: documented for the 950's ``asc_ne_scalar`` — "涉及nan时比较结果为1"
— and assumed for A2, not confirmed on hardware).  The input contains NaNs with several
payloads, ±0, ±inf, subnormals and the value's neighbours so that each rule is exercised.
"""

from __future__ import annotations

import numpy as np

from npusim import ascend as asc

from . import Outcome

ELEMENTS_PER_REPEAT = 128  # half lanes of one 256-byte repeat
LENGTH = 8192
BLOCK_DIM = 2


class KernelMaskedFill:
    """One block: its ``length`` elements of x go through UB in one tile."""

    def __init__(self, length: int, value: float, fill: float) -> None:
        self.length = length // asc.get_block_num()
        self.value, self.fill = value, fill

    def init(self, x: asc.GlobalAddress, y: asc.GlobalAddress) -> None:
        offset = asc.get_block_idx() * self.length
        self.x_gm, self.y_gm = asc.GlobalTensor(), asc.GlobalTensor()
        self.x_gm.set_global_buffer(x + offset, self.length)
        self.y_gm.set_global_buffer(y + offset, self.length)
        self.pipe = asc.TPipe()
        self.in_queue = asc.TQue(asc.TPosition.VECIN, 1)
        self.out_queue = asc.TQue(asc.TPosition.VECOUT, 1)
        self.mask_buf = asc.TBuf(asc.TPosition.VECCALC)
        self.pipe.init_buffer(self.in_queue, 1, self.length * asc.float16.sizeof())
        self.pipe.init_buffer(self.out_queue, 1, self.length * asc.float16.sizeof())
        self.pipe.init_buffer(self.mask_buf, self.length // 8)

    def process(self) -> None:
        x_local = self.in_queue.alloc_tensor(asc.float16)
        asc.data_copy(x_local, self.x_gm, self.length)
        self.in_queue.enque(x_local)

        x_local = self.in_queue.deque(asc.float16)
        mask = self.mask_buf.get(asc.uint8)
        y_local = self.out_queue.alloc_tensor(asc.float16)
        asc.asc_ne_scalar(mask, x_local, self.value, self.length // ELEMENTS_PER_REPEAT, 1, 1, 8, 8)
        asc.select(y_local, mask, x_local, self.fill, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, self.length)
        self.out_queue.enque(y_local)
        self.in_queue.free_tensor(x_local)

        y_local = self.out_queue.deque(asc.float16)
        asc.data_copy(self.y_gm, y_local, self.length)
        self.out_queue.free_tensor(y_local)


@asc.jit
def masked_fill_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, length: asc.ConstExpr[int],
                       value: asc.ConstExpr[float], fill: asc.ConstExpr[float]) -> None:
    op = KernelMaskedFill(length, value, fill)
    op.init(x, y)
    op.process()


def masked_fill(x: np.ndarray, value: float, fill: float, block_dim: int = BLOCK_DIM) -> np.ndarray:
    """Run the kernel on an emulated Atlas A2 (the ``asc_*`` C API exists on A2/A3 only)."""
    y = np.zeros_like(x)
    masked_fill_kernel.launch(block_dim, (x, y, x.size, value, fill), chip="A2")
    return y


def golden(x: np.ndarray, value: float, fill: float) -> np.ndarray:
    """IEEE-754: ``x != value`` is true for NaN, false for ``-0`` against ``0``."""
    return np.where(x != np.float16(value), x, np.float16(fill))


def example_input(seed: int = 0) -> np.ndarray:
    """Random halves with many exact zeros, both signed zeros, NaN payloads, infinities, subnormals."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(LENGTH).astype(np.float16)
    x[rng.random(LENGTH) < 0.2] = 0.0
    specials = np.array([0x0000, 0x8000, 0x7E00, 0xFE00, 0x7C01, 0x7FFF, 0x7C00, 0xFC00, 0x0001, 0x8001,
                         0x03FF, 0xBC00, 0x3C00, 0x0400], np.uint16).view(np.float16)
    x[rng.choice(LENGTH, 600, replace=False)] = np.resize(specials, 600)
    return x


def run() -> list[Outcome]:
    x = example_input()
    got, want = masked_fill(x, 0.0, -1.0), golden(x, 0.0, -1.0)
    differ = int(np.count_nonzero(got.view(np.uint16) != want.view(np.uint16)))
    zeros = int(np.count_nonzero(x == 0))
    nans = int(np.count_nonzero(np.isnan(x)))
    detail = (f"{x.size} half on {BLOCK_DIM} cores, {zeros} zeros (+0 and -0) replaced, {nans} NaNs kept: "
              f"{differ} differ from numpy's IEEE np.where")
    return [Outcome("masked fill 0.0 -> -1.0 (asc_ne_scalar + select, data_copy)", got.tobytes() == want.tobytes(),
                    detail)]
