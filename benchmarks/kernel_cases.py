"""End-to-end kernel benchmarks: a launch, its data copies and its vector instructions.

``nchw_to_nc1hwc0`` is seed 002's recipe ("将NCHW格式转换成NC1HWC0格式", ref §4.4) as a
pyasc-style kernel tiled through UB: for each batch item, each group of C0 = 16
channels and each tile of ``TILE`` positions, CopyIn moves the tile's 16 channel runs
from GM into UB with one strided ``data_copy``, Compute runs one ``trans_data_to_5hd``
(srcList: the 16 channel rows, dstList: 16 consecutive DataBlocks, repeat TILE / 16,
dstRepStride 16, srcRepStride 1) and CopyOut moves the (TILE, 16) result back to GM in
one contiguous ``data_copy``.  Queues are double-buffered, as in the Ascend samples.
The numpy side is ``x.reshape(N, C1, C0, H, W).transpose(0, 1, 3, 4, 2)`` copied into a
new array.
"""

from __future__ import annotations

import numpy as np
from registry import Bench

from npusim import ascend as asc

__all__ = ["nchw_to_nc1hwc0_bench"]

C0 = 16  # half: one 32-byte DataBlock holds 16 channels
TILE = 784  # positions per UB tile: 16 x 784 half = 24.5 KiB in, the same out
BLOCK = 32


class KernelNchwToNc1hwc0:
    """Init / Process = (CopyIn, Compute, CopyOut) per tile, as the Ascend C samples are written."""

    def __init__(self, x_gm: asc.GlobalAddress, y_gm: asc.GlobalAddress, shape: tuple[int, int, int, int]) -> None:
        self.n, self.c, self.h, self.w = shape
        self.hw = self.h * self.w
        self.x_global, self.y_global = asc.GlobalTensor(), asc.GlobalTensor()
        self.x_global.set_global_buffer(x_gm)
        self.y_global.set_global_buffer(y_gm)
        self.pipe = asc.TPipe()
        self.in_queue = asc.TQue(asc.TPosition.VECIN, 2)
        self.out_queue = asc.TQue(asc.TPosition.VECOUT, 2)
        tile_bytes = C0 * TILE * asc.half.sizeof()
        self.pipe.init_buffer(self.in_queue, 2, tile_bytes)
        self.pipe.init_buffer(self.out_queue, 2, tile_bytes)
        gap = (self.hw - TILE) * asc.half.sizeof() // BLOCK  # GM DataBlocks between two channel runs
        self.copy_in_params = asc.DataCopyParams(C0, TILE * asc.half.sizeof() // BLOCK, gap, 0)
        self.trans_params = asc.TransDataTo5HDParams(False, False, TILE // C0, C0, 1)

    def process(self) -> None:
        for n in range(self.n):
            for group in range(self.c // C0):
                for tile in range(self.hw // TILE):
                    self.copy_in(n, group, tile)
                    self.compute()
                    self.copy_out(n, group, tile)

    def copy_in(self, n: int, group: int, tile: int) -> None:
        x_local = self.in_queue.alloc_tensor(asc.half)
        start = (n * self.c + group * C0) * self.hw + tile * TILE
        asc.data_copy(x_local, self.x_global[start:], self.copy_in_params)
        self.in_queue.enque(x_local)

    def compute(self) -> None:
        x_local = self.in_queue.deque(asc.half)
        y_local = self.out_queue.alloc_tensor(asc.half)
        src_list = [x_local.get_phy_addr(channel * TILE) for channel in range(C0)]
        dst_list = [y_local.get_phy_addr(block * C0) for block in range(C0)]
        asc.trans_data_to_5hd(dst_list, src_list, self.trans_params, dtype=asc.half)
        self.out_queue.enque(y_local)
        self.in_queue.free_tensor(x_local)

    def copy_out(self, n: int, group: int, tile: int) -> None:
        y_local = self.out_queue.deque(asc.half)
        start = ((n * (self.c // C0) + group) * self.hw + tile * TILE) * C0
        asc.data_copy(self.y_global[start:], y_local, TILE * C0)
        self.out_queue.free_tensor(y_local)


@asc.jit
def nchw_to_nc1hwc0(x_gm: asc.GlobalAddress, y_gm: asc.GlobalAddress,
                    shape: asc.ConstExpr[tuple[int, int, int, int]]) -> None:
    KernelNchwToNc1hwc0(x_gm, y_gm, shape).process()


def nchw_to_nc1hwc0_bench(shape: tuple[int, int, int, int] = (1, 64, 56, 56)) -> Bench:
    """One launch on one A2 block (a fresh core: plans are compiled inside the timed call)."""
    n, c, h, w = shape
    assert c % C0 == 0 and (h * w) % TILE == 0, "the benchmark tiles whole channel groups and positions"
    x = np.random.default_rng(40).standard_normal(shape).astype(np.float16)
    y = np.zeros(n * c * h * w, np.float16)

    def numpy_copy() -> np.ndarray:
        return x.reshape(n, c // C0, C0, h, w).transpose(0, 1, 3, 4, 2).copy()

    return Bench(
        npusim=lambda: nchw_to_nc1hwc0.launch(1, (x, y, shape), chip="A2"),
        numpy=numpy_copy,
        npusim_output=lambda: y.tobytes(),
        numpy_output=lambda: numpy_copy().tobytes(),
    )
