"""The building blocks of SoftMax on dav_c220, as npusim instruction calls (docs/softmax.md §1.3, §1.5).

Files under ``impl/adv_api/detail/activation/softmax/`` of asc-devkit @0da921b9:
``membase/v220/softmax_common_impl/softmax_common_nd_reduce.h`` (the row reductions),
``softmax_common/softmax_common_reduce.h`` (BigBlockReduce*), ``softmax_common/softmax_common_arithmetic.h``
(the chunk adds, Sub/Div with a broadcast block), ``membase/v220/softmax_common_impl/softmax_common_broadcast.h``
(AlignedBroadCastImpl).  Every working tensor here is float; a row's reduced value ends as
``dst_k`` copies (8: one float block; 16: the 64-byte block a half sum/max is cast from).
"""

from __future__ import annotations

from ...dtypes import DTYPES
from ..ops.brcb import brcb
from ..ops.data_copy import data_copy
from ..ops.elementwise import add, max_
from ..ops.reduce import block_reduce_max, block_reduce_sum, whole_reduce_max, whole_reduce_sum
from ..ops.registers import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from ..ops.sync import pipe_barrier
from ..ops.vector_copy import copy
from ..types import (
    BinaryRepeatParams,
    BrcbRepeatParams,
    CopyRepeatParams,
    DataCopyParams,
    MaskMode,
    PipeID,
    ReduceOrder,
)

__all__ = ["MAX", "SUM", "broadcast_op", "row_reduce"]

FLOAT = 4
LANES = 64  # FLOAT_REPEAT_SIZE: float lanes of one repeat
PER_BLOCK = 8  # FLOAT_NUM_PER_BLK
MAX_REPEAT = 255  # MAX_REPEAT_TIMES
BIG_ROW = 512  # SOFTMAX_FLOAT_SPECIAL_BLOCKREDUCE_LEN
TWO_CHUNKS = 128  # HALF_REPEAT_SIZE
SUB_DIV_ROW = 192  # SOFTMAX_SUB_DIV_ROW_COLUMN_SIZE
FULL = 0  # MASK_PLACEHOLDER: with is_set_mask=False the mask register (full after ResetMask) decides
F32 = DTYPES["float32"]
V = PipeID.PIPE_V


class Reduction:
    """Sum or max: the lane-wise op, the DataBlock reduction and the repeat reduction of one kind."""

    def __init__(self, lanewise, per_block, per_repeat, order=None) -> None:
        self.lanewise, self.per_block, self.per_repeat, self.order = lanewise, per_block, per_repeat, order

    def whole(self, dst, src, mask, repeat, dst_rep, src_blk, src_rep, is_set_mask=True) -> None:
        if self.order is None:
            self.per_repeat(dst, src, mask, repeat, dst_rep, src_blk, src_rep, is_set_mask)
        else:
            self.per_repeat(dst, src, mask, repeat, dst_rep, src_blk, src_rep, self.order, is_set_mask)


SUM = Reduction(add, block_reduce_sum, whole_reduce_sum)
MAX = Reduction(max_, block_reduce_max, whole_reduce_max, ReduceOrder.ORDER_ONLY_VALUE)


def _row_groups(rows: int):
    for first in range(0, rows, MAX_REPEAT):
        yield first, min(MAX_REPEAT, rows - first)


def _accumulate(kind: Reduction, tmp, x, chunk: int, rows: int, stride: int, chunk_first: bool, mask=FULL,
                is_set_mask=False) -> None:
    """tmp row r (64 lanes) op= x[r * stride + 64 * chunk ...], one repeat per row, the rows in groups of 255.

    The vendor's accumulating calls (one repeat per chunk, destination repeat stride 0) become one call
    per chunk over the rows (§1.5); the operand order is the vendor's.
    """
    rep_stride = stride // PER_BLOCK
    if rep_stride > MAX_REPEAT:  # a repeat stride is 8 bits (TailAddImpl L89-93): one call per row
        groups = [(row, 1) for row in range(rows)]
        rep_stride = PER_BLOCK
    else:
        groups = list(_row_groups(rows))
    for first, count in groups:
        acc, chunk_view = tmp[first * LANES], x[first * stride + chunk * LANES]
        params = BinaryRepeatParams(1, 1, 1, PER_BLOCK, rep_stride if chunk_first else PER_BLOCK,
                                    PER_BLOCK if chunk_first else rep_stride)
        first_op, second_op = (chunk_view, acc) if chunk_first else (acc, chunk_view)
        kind.lanewise(acc, first_op, second_op, mask, count, params, is_set_mask)


def _lanes(kind: Reduction, x, tmp, rows: int, stride: int, original_k: int) -> None:
    """The 64 lanes of every row in ``tmp`` (NewReduce*LastNDImpl L192-213, for original_k >= 64)."""
    chunks, tail = divmod(original_k, LANES)
    rep_stride = stride // PER_BLOCK
    if original_k >= BIG_ROW:  # BigBlockReduce*: 8 block results per repeat of the first 512 elements
        for row in range(rows):
            kind.per_block(tmp[row * LANES], x[row * stride], PER_BLOCK, FULL, 1, 1, PER_BLOCK, False)
        if chunks > PER_BLOCK:
            pipe_barrier(V)
            for chunk in range(PER_BLOCK, chunks):
                _accumulate(kind, tmp, x, chunk, rows, stride, chunk_first=True)
    elif original_k >= TWO_CHUNKS:  # chunk 0 op chunk 1, then NextBlock*Impl
        for first, count in _row_groups(rows):
            kind.lanewise(tmp[first * LANES], x[first * stride], x[first * stride + LANES], FULL, count,
                          BinaryRepeatParams(1, 1, 1, PER_BLOCK, rep_stride, rep_stride), False)
        for chunk in range(2, chunks):
            pipe_barrier(V)
            _accumulate(kind, tmp, x, chunk, rows, stride, chunk_first=rows <= chunks)
    else:  # FirstBlockCopyImpl
        for first, count in _row_groups(rows):
            copy(tmp[first * LANES], x[first * stride], FULL, count, CopyRepeatParams(1, 1, PER_BLOCK, rep_stride),
                 False)
    if tail:  # Tail*Impl: the partial last chunk, its first `tail` lanes
        pipe_barrier(V)
        _accumulate(kind, tmp, x, chunks, rows, stride, chunk_first=False, mask=tail, is_set_mask=True)
        reset_mask()


def row_reduce(kind: Reduction, out, x, tmp, part, rows: int, stride: int, original_k: int, dst_k: int) -> None:
    """NewReduce{Sum,Max}LastNDImpl (softmax_common_nd_reduce.h L183-223, L296-336): out = dst_k copies a row.

    ``tmp`` holds 64 floats a row; ``part`` 8 floats a row, apart from ``tmp`` and ``out`` (the
    vendor reduces ``tmp`` in place there, §1.5).
    """
    if original_k < LANES:  # Reduce*LastNDSplitImpl: one WholeReduce per row, the first original_k lanes
        for first, count in _row_groups(rows):
            kind.whole(out[first], x[first * stride], original_k, count, 1, 1, stride // PER_BLOCK)
        reset_mask()
    else:
        _lanes(kind, x, tmp, rows, stride, original_k)
        pipe_barrier(V)
        if rows == 1:  # BasicBlockReduce*Impl: 8 repeats of the same 64 lanes -> 8 copies
            kind.whole(out, tmp, FULL, PER_BLOCK, 1, 1, 0, False)
            if dst_k == 2 * PER_BLOCK:
                pipe_barrier(V)
                data_copy(out[PER_BLOCK], out, DataCopyParams(1, 1, 0, 0))
        else:
            set_mask_count()
            set_vector_mask(0, rows * LANES, F32, MaskMode.COUNTER)
            kind.per_block(part, tmp, 1, FULL, 1, 1, PER_BLOCK, False)
            pipe_barrier(V)
            set_vector_mask(0, rows * PER_BLOCK, F32, MaskMode.COUNTER)
            kind.per_block(out, part, 1, FULL, 1, 1, PER_BLOCK, False)
            set_mask_norm()
            reset_mask()
    if rows != 1 or original_k <= LANES:
        pipe_barrier(V)
        _broadcast(out, tmp, rows, dst_k)


def _broadcast(out, tmp, rows: int, dst_k: int) -> None:
    """AlignedBroadCastImpl (softmax_common_broadcast.h L110-136): out[r] -> dst_k copies, through tmp."""
    groups = -(-rows // PER_BLOCK)
    # Brcb reads whole groups of 8 values: past `rows` it reads whatever out holds there, bytes the Copy
    # below overwrites and whose copies it never takes.  They count as written, so that reading them is
    # not reported as a read of never-written memory (docs/softmax.md §1.3).
    out.core.ub.mark_written(out.addr + rows * FLOAT, out.addr + groups * PER_BLOCK * FLOAT)
    if dst_k == PER_BLOCK:
        brcb(tmp, out, groups, BrcbRepeatParams(1, PER_BLOCK))
    elif rows != 1:  # 64 bytes a row: two Brcb, each filling every other block
        brcb(tmp, out, groups, BrcbRepeatParams(2, 2 * PER_BLOCK))
        brcb(tmp[PER_BLOCK], out, groups, BrcbRepeatParams(2, 2 * PER_BLOCK))
    else:
        brcb(tmp, out, groups, BrcbRepeatParams(1, PER_BLOCK))
        pipe_barrier(V)
        data_copy(tmp[PER_BLOCK], tmp, DataCopyParams(1, 1, 0, 0))
    pipe_barrier(V)
    set_mask_count()
    set_vector_mask(0, rows * dst_k, F32, MaskMode.COUNTER)
    copy(out, tmp, FULL, 1, CopyRepeatParams(1, 1, PER_BLOCK, PER_BLOCK), False)
    set_mask_norm()
    reset_mask()


def broadcast_op(op, dst, src0, block, rows: int, stride: int, dst_k: int) -> None:
    """GenericSubNDImpl / GenericDivNDImpl (softmax_common_arithmetic.h L218-276): dst = src0 op block, per row."""
    set_mask_count()
    if stride < SUB_DIV_ROW:  # one DataBlock column of every row per call
        column_blocks = stride // PER_BLOCK
        set_vector_mask(0, rows * PER_BLOCK, F32, MaskMode.COUNTER)
        params = BinaryRepeatParams(column_blocks, column_blocks, dst_k // PER_BLOCK, stride, stride, dst_k)
        for column in range(column_blocks):
            op(dst[column * PER_BLOCK], src0[column * PER_BLOCK], block, FULL, 1, params, False)
    else:  # one row per call, the row's block read again for every DataBlock
        set_vector_mask(0, stride, F32, MaskMode.COUNTER)
        params = BinaryRepeatParams(1, 1, 0, PER_BLOCK, PER_BLOCK, 0)
        for row in range(rows):
            op(dst[row * stride], src0[row * stride], block[row * dst_k], FULL, 1, params, False)
    set_mask_norm()
    reset_mask()
