"""NCHW -> NC1HWC0 with TransDataTo5HD: a multi-core Ascend kernel, tiled through the Unified Buffer.

The layout conversion of TransDataTo5HD.md ("将NCHW格式转换成NC1HWC0格式"; ``examples/.../transpose``
scenario 3 of the vendor samples),
written as a pyasc-style kernel::

    y[n, c1, h, w, c0] = x[n, c1 * 16 + c0, h, w]        (C0 = 16 for half)

The ``N * C1`` channel groups are split between the blocks (cores) of the launch, each block
taking a contiguous run of groups.  A group is 16 channel planes of ``H * W`` elements; it
goes through UB in tiles of ``tile`` positions (a multiple of 16 dividing ``H * W``), each
tile in three documented calls:

* CopyIn: one ``data_copy`` with ``DataCopyParams``: 16 blocks (one per channel) of
  ``tile * 2 / 32`` DataBlocks, the GM gap between them ``(H*W - tile) * 2 / 32`` DataBlocks;
* Compute: one ``trans_data_to_5hd`` over the tile, in the document's recommended form (16
  UB addresses from ``GetPhyAddr``): ``src_list[i]`` = channel ``i``'s row, ``dst_list[e]`` =
  16 consecutive elements, ``tile / 16`` repeats, ``dst_rep_stride = 16``,
  ``src_rep_stride = 1`` (the documented recipe; with a single repeat both strides must be
  0, because one repeat is already offset by one stride, docs/semantics.md §4.3);
* CopyOut: ``data_copy`` of the ``tile * 16`` contiguous output elements.

:class:`PlainKernelNchwToNc1hwc0` is the same kernel written the way the documents' samples
read, with nothing shaped for the emulator: CopyIn is one ``data_copy`` per channel row
(16 per tile, each at a GM offset of its own), and Compute passes ``trans_data_to_5hd``
two lists of 16 LocalTensors (``x_local[channel * tile:]``, ``y_local[16 * block:]``).
:func:`convert_plain` runs it; the benchmark table times both.

The tile is the largest one the repeat limit (255) and the TPipe pool allow.  The queues
hold one buffer each (``BUFFER_NUM = 1``): double buffering only lets the hardware overlap
the copy and vector pipes, which an emulator running calls in order does not model, and
one buffer per queue lets a tile be twice as large, halving the calls per launch.

:func:`convert` runs it for any ``(N, C, H, W)`` half tensor with ``C % 16 == 0`` and
``H * W % 16 == 0``; the demo checks the documented (2, 32, 16, 16) case on two cores and a
benchmark-sized (1, 64, 56, 56) tensor, each against numpy's
``x.reshape(N, C // 16, 16, H, W).transpose(0, 1, 3, 4, 2)``.  The benchmark table times
:func:`convert` on one core (``benchmarks/kernel_cases.py``).
"""

from __future__ import annotations

import numpy as np

from npusim import ascend as asc

from . import Outcome

C0 = 16  # channels per group for 16-bit types (TransDataTo5HD.md, NCHW -> NC1HWC0)
BLOCK_ELEMS = 16  # half elements per 32-byte DataBlock
BLOCK_BYTES = 32
BUFFER_NUM = 1  # buffers per queue (see the module docstring)
MAX_REPEAT = 255  # TransDataTo5HDParams.repeatTimes is a uint8


def tile_length(hw: int, ub_bytes: int, buffers: int = 2) -> int:
    """The largest tile (positions per channel) that divides ``hw``, is a multiple of 16, needs at most
    255 repeats, and lets 2 queues x ``buffers`` buffers of ``16 * tile`` halves fit in ``ub_bytes``
    (the kernel passes its ``BUFFER_NUM``; 2 is the vendor samples' double buffering)."""
    blocks = hw // BLOCK_ELEMS
    fitting = ub_bytes // (2 * buffers * C0 * BLOCK_ELEMS * 2)  # most repeats whose buffers fit
    for k in range(min(blocks, MAX_REPEAT, fitting), 0, -1):  # repeats per tile, largest first
        if blocks % k == 0:
            return k * BLOCK_ELEMS
    raise ValueError(f"no tile of H*W = {hw} fits {ub_bytes} bytes of UB")


class KernelNchwToNc1hwc0:
    """One block's share of the conversion: Init, then CopyIn / Compute / CopyOut per tile."""

    def __init__(self, n: int, c: int, h: int, w: int) -> None:
        self.c1 = c // C0
        self.hw = h * w
        groups = n * self.c1
        per_block = -(-groups // asc.get_block_num())
        self.first_group = min(groups, asc.get_block_idx() * per_block)
        self.group_count = min(groups, self.first_group + per_block) - self.first_group

    def init(self, x: asc.GlobalAddress, y: asc.GlobalAddress) -> None:
        self.x_gm = asc.GlobalTensor()
        self.y_gm = asc.GlobalTensor()
        self.x_gm.set_global_buffer(x + self.first_group * C0 * self.hw, self.group_count * C0 * self.hw)
        self.y_gm.set_global_buffer(y + self.first_group * C0 * self.hw, self.group_count * C0 * self.hw)
        self.pipe = asc.TPipe()
        self.tile = tile_length(self.hw, self.pipe.capacity_bytes, BUFFER_NUM)
        self.in_queue = asc.TQue(asc.TPosition.VECIN, BUFFER_NUM)
        self.out_queue = asc.TQue(asc.TPosition.VECOUT, BUFFER_NUM)
        self.pipe.init_buffer(self.in_queue, BUFFER_NUM, C0 * self.tile * asc.float16.sizeof())
        self.pipe.init_buffer(self.out_queue, BUFFER_NUM, C0 * self.tile * asc.float16.sizeof())
        # The same parameters serve every tile.
        gap = (self.hw - self.tile) // BLOCK_ELEMS
        self.copy_in_params = asc.DataCopyParams(C0, self.tile // BLOCK_ELEMS, gap, 0)
        repeat = self.tile // BLOCK_ELEMS
        strides = (C0, 1) if repeat > 1 else (0, 0)
        self.trans_params = asc.TransDataTo5HDParams(False, False, repeat, *strides)

    def process(self) -> None:
        for group in range(self.group_count):
            for start in range(0, self.hw, self.tile):
                self.copy_in(group, start)
                self.compute()
                self.copy_out(group, start)

    def copy_in(self, group: int, start: int) -> None:
        x_local = self.in_queue.alloc_tensor(asc.float16)
        asc.data_copy(x_local, self.x_gm[group * C0 * self.hw + start :], self.copy_in_params)
        self.in_queue.enque(x_local)

    def compute(self) -> None:
        x_local = self.in_queue.deque(asc.float16)
        y_local = self.out_queue.alloc_tensor(asc.float16)
        src, dst = x_local.get_phy_addr(), y_local.get_phy_addr()
        row_bytes = self.tile * asc.float16.sizeof()
        src_list = [src + row_bytes * channel for channel in range(C0)]  # the 16 channel rows
        dst_list = [dst + BLOCK_BYTES * block for block in range(C0)]  # 16 consecutive DataBlocks
        asc.trans_data_to_5hd(dst_list, src_list, self.trans_params, dtype=asc.float16)
        self.out_queue.enque(y_local)
        self.in_queue.free_tensor(x_local)

    def copy_out(self, group: int, start: int) -> None:
        y_local = self.out_queue.deque(asc.float16)
        asc.data_copy(self.y_gm[group * C0 * self.hw + start * C0 :], y_local, C0 * self.tile)
        self.out_queue.free_tensor(y_local)


class PlainKernelNchwToNc1hwc0(KernelNchwToNc1hwc0):
    """The same kernel written plainly (module docstring): a copy per channel row, tensor lists."""

    def copy_in(self, group: int, start: int) -> None:
        x_local = self.in_queue.alloc_tensor(asc.float16)
        first = group * C0 * self.hw + start
        for channel in range(C0):
            asc.data_copy(x_local[channel * self.tile :], self.x_gm[first + channel * self.hw :], self.tile)
        self.in_queue.enque(x_local)

    def compute(self) -> None:
        x_local = self.in_queue.deque(asc.float16)
        y_local = self.out_queue.alloc_tensor(asc.float16)
        src_list = [x_local[self.tile * channel :] for channel in range(C0)]  # the 16 channel rows
        dst_list = [y_local[C0 * block :] for block in range(C0)]  # 16 consecutive DataBlocks
        asc.trans_data_to_5hd(dst_list, src_list, self.trans_params)
        self.out_queue.enque(y_local)
        self.in_queue.free_tensor(x_local)


@asc.jit
def nchw_to_nc1hwc0_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int],
                           c: asc.ConstExpr[int], h: asc.ConstExpr[int], w: asc.ConstExpr[int]) -> None:
    op = KernelNchwToNc1hwc0(n, c, h, w)
    op.init(x, y)
    op.process()


@asc.jit
def plain_nchw_to_nc1hwc0_kernel(x: asc.GlobalAddress, y: asc.GlobalAddress, n: asc.ConstExpr[int],
                                 c: asc.ConstExpr[int], h: asc.ConstExpr[int], w: asc.ConstExpr[int]) -> None:
    op = PlainKernelNchwToNc1hwc0(n, c, h, w)
    op.init(x, y)
    op.process()


def convert(x: np.ndarray, block_dim: int = 1, chip: str = "A2", kernel=nchw_to_nc1hwc0_kernel,
            sync: str | None = None) -> np.ndarray:
    """Run the kernel on ``block_dim`` cores; return ``y`` of shape ``(N, C // 16, H, W, 16)``.

    ``sync``: the launch's sync-checker policy (default: the launch default, ``"warn"``).
    """
    n, c, h, w = x.shape
    if x.dtype != np.float16 or c % C0 or (h * w) % BLOCK_ELEMS:
        raise ValueError("convert needs a float16 (N, C, H, W) tensor with C % 16 == 0 and H * W % 16 == 0")
    y = np.zeros((n, c // C0, h, w, C0), np.float16)
    kernel.launch(block_dim, (x, y, n, c, h, w), chip=chip, sync=sync)
    return y


def convert_plain(x: np.ndarray, block_dim: int = 1, chip: str = "A2") -> np.ndarray:
    """:func:`convert` with the plainly written kernel (:class:`PlainKernelNchwToNc1hwc0`)."""
    return convert(x, block_dim, chip, plain_nchw_to_nc1hwc0_kernel)


def golden(x: np.ndarray) -> np.ndarray:
    """The vendor sample's golden (TransDataTo5HD.md): ``x.reshape(N, C1, 16, H, W).transpose(0, 1, 3, 4, 2)``."""
    n, c, h, w = x.shape
    return np.ascontiguousarray(x.reshape(n, c // C0, C0, h, w).transpose(0, 1, 3, 4, 2))


def example_input(shape: tuple[int, int, int, int], seed: int = 0) -> np.ndarray:
    """Random half data with every bit pattern class: NaN payloads, infinities, ±0, subnormals."""
    bits = np.random.default_rng(seed).integers(0, 1 << 16, shape, dtype=np.uint32).astype(np.uint16)
    return bits.view(np.float16)


def run() -> list[Outcome]:
    outcomes = []
    for shape, block_dim in (((2, 32, 16, 16), 2), ((1, 64, 56, 56), 4)):
        x = example_input(shape)
        want = golden(x)
        for how, run_kernel in (("", convert), (", written plainly", convert_plain)):
            got = run_kernel(x, block_dim)
            differ = int(np.count_nonzero(got.view(np.uint16) != want.view(np.uint16)))
            detail = f"{x.size} half elements on {block_dim} cores: {differ} differ from numpy's reshape/transpose"
            outcomes.append(Outcome(f"NCHW -> NC1HWC0 {shape} (TransDataTo5HD, data_copy{how})",
                                    got.tobytes() == want.tobytes(), detail))
    return outcomes
