"""The building blocks of SoftMax on dav_c220 and dav_m200, as npusim instruction calls (docs/softmax.md §1.3-§1.7).

Files under ``impl/adv_api/detail/activation/softmax/`` of asc-devkit @0da921b9:
``membase/v220/softmax_common_impl/softmax_common_nd_reduce.h`` (the row reductions, A2/A3),
``membase/v200/softmax_common_impl.h`` (the row reductions and their broadcast, 310P),
``softmax_common/softmax_common_reduce.h`` (BigBlockReduce*), ``softmax_common/softmax_common_arithmetic.h``
(the chunk adds, Sub/Div/Mul with a broadcast block, TransDivToMulImpl),
``membase/v220/softmax_common_impl/softmax_common_broadcast.h`` (AlignedBroadCastImpl),
``softmax_common/softmax_common_broadcast.h`` (BroadCastLastCompute, 310P).  Where the two products'
code differs, :class:`Arch` says which branch runs.  Every working tensor here is float; a row's
reduced value ends as ``dst_k`` copies (8: one float block; 16: the 64-byte block a half sum/max is cast from).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...dtypes import DTYPES
from ..ops.brcb import brcb
from ..ops.data_copy import data_copy
from ..ops.elementwise import add, adds, div, duplicate, max_, mul, muls
from ..ops.reduce import block_reduce_max, block_reduce_sum, whole_reduce_max, whole_reduce_sum
from ..ops.registers import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from ..ops.sync import pipe_barrier, set_flag, wait_flag
from ..ops.transpose import trans_data_to_5hd
from ..ops.vector_copy import copy
from ..types import (
    BinaryRepeatParams,
    BrcbRepeatParams,
    CopyRepeatParams,
    DataCopyParams,
    HardEvent,
    MaskMode,
    PipeID,
    ReduceOrder,
    RoundMode,
    TransDataTo5HDParams,
    UnaryRepeatParams,
)

__all__ = ["MAX", "SUM", "V200", "V220", "Arch", "broadcast_op", "divide", "row_reduce"]

FLOAT = 4
LANES = 64  # FLOAT_REPEAT_SIZE: float lanes of one repeat
PER_BLOCK = 8  # FLOAT_NUM_PER_BLK
MAX_REPEAT = 255  # MAX_REPEAT_TIMES
BIG_ROW = 512  # SOFTMAX_FLOAT_SPECIAL_BLOCKREDUCE_LEN
TWO_CHUNKS = 128  # HALF_REPEAT_SIZE
SUB_DIV_ROW = 192  # SOFTMAX_SUB_DIV_ROW_COLUMN_SIZE
SCALAR_STACK_DEPTH = 8  # softmax_common_utils.h: scalars read before their Duplicates
TRANSPOSE_BLOCKS = 16  # NCHW_CONV_ADDR_LIST_SIZE
FULL = 0  # MASK_PLACEHOLDER: with is_set_mask=False the mask register (full after ResetMask) decides
F32 = DTYPES["float32"]
V = PipeID.PIPE_V


@dataclass(frozen=True)
class Arch:
    """The vendor's SoftMax code of one ``__NPU_ARCH__``: the points where dav_c220 and dav_m200 differ.

    ``max_order``: the WholeReduceMax order (ONLY_VALUE on 2201; 2002 has only value-index pairs,
    WholeReduceMax.md); ``v200_broadcasts``: a reduced value reaches its block as on 2002 — by a
    scalar read and a Duplicate (``BroadCastLastImpl``; ``BasicBlockReduce*Impl`` with one row), or
    for several rows by Muls, TransDataTo5HD and Adds (``BroadCastNDImpl``) — not by Brcb and Copy
    (v220); ``first_block_adds``: rows of 64 to 127 elements start from Adds of 0 (v200
    ``FirstBlockCopyImpl``) instead of Copy; ``reciprocal``: the division is a multiply by ``1 / sum``
    (``TransDivToMulImpl``, softmax_generic_nd_impl.h L46-48); ``half_round``:
    ``FLOAT2HALF_ROUND_MODE`` (v220/v200 ``softmax_common_impl.h`` L31 / L29).
    """

    npu_arch: int
    max_order: ReduceOrder
    v200_broadcasts: bool
    first_block_adds: bool
    reciprocal: bool
    half_round: RoundMode


V220 = Arch(2201, ReduceOrder.ORDER_ONLY_VALUE, False, False, False, RoundMode.CAST_ROUND)
V200 = Arch(2002, ReduceOrder.ORDER_VALUE_INDEX, True, True, True, RoundMode.CAST_NONE)


class Reduction:
    """Sum or max: the lane-wise op, the DataBlock reduction and the repeat reduction of one kind."""

    def __init__(self, lanewise, per_block, per_repeat, ordered: bool) -> None:
        self.lanewise, self.per_block, self.per_repeat, self.ordered = lanewise, per_block, per_repeat, ordered

    def whole(self, arch: Arch, dst, src, mask, repeat, dst_rep, src_blk, src_rep, is_set_mask=True) -> None:
        if not self.ordered:
            self.per_repeat(dst, src, mask, repeat, dst_rep, src_blk, src_rep, is_set_mask)
        else:
            self.per_repeat(dst, src, mask, repeat, dst_rep, src_blk, src_rep, arch.max_order, is_set_mask)

    def result_elements(self, arch: Arch) -> int:
        """Elements one WholeReduce repeat writes (its dst_rep_stride unit, whole_reduce_* 表3)."""
        return 2 if self.ordered and arch.max_order != ReduceOrder.ORDER_ONLY_VALUE else 1


SUM = Reduction(add, block_reduce_sum, whole_reduce_sum, False)
MAX = Reduction(max_, block_reduce_max, whole_reduce_max, True)


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


def _lanes(arch: Arch, kind: Reduction, x, tmp, rows: int, stride: int, original_k: int) -> None:
    """The 64 lanes of every row in ``tmp`` (NewReduce*LastNDImpl L192-213, v200 L319-335, for original_k >= 64)."""
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
    elif arch.first_block_adds:  # FirstBlockCopyImpl, v200 L198-208: Adds of 0 in counter mode
        set_mask_count()
        set_vector_mask(0, rows * LANES, F32, MaskMode.COUNTER)
        adds(tmp, x, 0.0, FULL, 1, UnaryRepeatParams(1, 1, PER_BLOCK, rep_stride), False)
        set_mask_norm()
        reset_mask()
    else:  # FirstBlockCopyImpl
        for first, count in _row_groups(rows):
            copy(tmp[first * LANES], x[first * stride], FULL, count, CopyRepeatParams(1, 1, PER_BLOCK, rep_stride),
                 False)
    if tail:  # Tail*Impl: the partial last chunk, its first `tail` lanes
        pipe_barrier(V)
        _accumulate(kind, tmp, x, chunks, rows, stride, chunk_first=False, mask=tail, is_set_mask=True)
        reset_mask()


def row_reduce(kind: Reduction, out, x, tmp, part, rows: int, stride: int, original_k: int, dst_k: int,
               arch: Arch = V220) -> None:
    """NewReduce{Sum,Max}LastNDImpl (v220 softmax_common_nd_reduce.h L183-223, L296-336; v200 softmax_common_impl.h
    L304-415): out = dst_k copies a row.

    ``tmp`` holds 64 floats a row; ``part`` 8 floats a row, apart from ``tmp`` and ``out`` (the
    vendor reduces ``tmp`` in place there, §1.5).
    """
    if arch.v200_broadcasts:  # v200 begins with ResetMask (L308, L383)
        reset_mask()
    if original_k < LANES:  # Reduce*LastNDSplitImpl: one WholeReduce per row, the first original_k lanes
        # v220 packs the rows' values for Brcb; v200 writes each row's value at the start of its block
        step, dst_rep = (dst_k, dst_k // kind.result_elements(arch)) if arch.v200_broadcasts else (1, 1)
        for first, count in _row_groups(rows):
            kind.whole(arch, out[first * step], x[first * stride], original_k, count, dst_rep, 1, stride // PER_BLOCK)
        if not arch.v200_broadcasts:
            reset_mask()
        pipe_barrier(V)
        if arch.v200_broadcasts:
            _scalar_broadcast(out, rows, dst_k)
        else:
            _broadcast(out, tmp, rows, dst_k)
        return
    _lanes(arch, kind, x, tmp, rows, stride, original_k)
    pipe_barrier(V)
    if arch.v200_broadcasts:
        _basic_block_reduce_v200(arch, kind, out, tmp, part, rows, dst_k)
        return
    if rows == 1:  # BasicBlockReduce*Impl: 8 repeats of the same 64 lanes -> 8 copies
        kind.whole(arch, out, tmp, FULL, PER_BLOCK, 1, 1, 0, False)
        if dst_k == 2 * PER_BLOCK:
            pipe_barrier(V)
            data_copy(out[PER_BLOCK], out, DataCopyParams(1, 1, 0, 0))
    else:
        _two_block_reductions(kind, out, tmp, part, rows)
    if rows != 1 or original_k <= LANES:
        pipe_barrier(V)
        _broadcast(out, tmp, rows, dst_k)


def _two_block_reductions(kind: Reduction, out, tmp, part, rows: int) -> None:
    """64 lanes -> 8 partials (into ``part``, §1.5) -> 1 value per row, out[r] (BasicBlockReduce*Impl, rows > 1)."""
    set_mask_count()
    set_vector_mask(0, rows * LANES, F32, MaskMode.COUNTER)
    kind.per_block(part, tmp, 1, FULL, 1, 1, PER_BLOCK, False)
    pipe_barrier(V)
    set_vector_mask(0, rows * PER_BLOCK, F32, MaskMode.COUNTER)
    kind.per_block(out, part, 1, FULL, 1, 1, PER_BLOCK, False)
    set_mask_norm()
    reset_mask()


def _basic_block_reduce_v200(arch: Arch, kind: Reduction, out, tmp, part, rows: int, dst_k: int) -> None:
    """BasicBlockReduce{Max,Add}Impl of v200 (softmax_common_impl.h L267-303, L341-378)."""
    if rows == 1:  # one WholeReduce of the 64 lanes, then its value read by the scalar unit and duplicated
        kind.whole(arch, out, tmp, FULL, 1, 1, 1, PER_BLOCK, False)
        if kind is SUM:
            pipe_barrier(V)
        set_flag(HardEvent.V_S, 0)
        wait_flag(HardEvent.V_S, 0)
        value = out.get_value(0)
        _scalar_then_vector()
        duplicate(out, value, dst_k, 1, 1, PER_BLOCK)
        reset_mask()
        return
    _two_block_reductions(kind, out, tmp, part, rows)
    pipe_barrier(V)
    _transpose_broadcast(tmp, out, rows)
    pipe_barrier(V)
    if dst_k == PER_BLOCK:  # every other block of the 16 copies a row
        set_mask_count()
        set_vector_mask(0, rows * PER_BLOCK, F32, MaskMode.COUNTER)
        adds(out, tmp, 0.0, FULL, 1, UnaryRepeatParams(1, 2, PER_BLOCK, 2 * PER_BLOCK), False)
        set_mask_norm()
        reset_mask()
    else:
        adds(out, tmp, 0.0, rows * dst_k)


def _mark_group_tail(out, rows: int) -> None:
    """The broadcasts read whole groups of 8 values: past `rows` whatever ``out`` holds there, bytes a later
    step overwrites and whose copies it never takes.  They count as written, so that reading them is not
    reported as a read of never-written memory (docs/softmax.md §1.3)."""
    groups = -(-rows // PER_BLOCK)
    out.core.ub.mark_written(out.addr + rows * FLOAT, out.addr + groups * PER_BLOCK * FLOAT)


def _transpose_broadcast(tmp, out, rows: int) -> None:
    """BroadCastNDImpl (v200 softmax_common_impl.h L240-265): 16 copies of out[r] at tmp[16 r].

    Per group of 8 rows, Muls by 1 writes the group's 8 values into 16 DataBlocks; the in-place b32
    TransDataTo5HD then turns value ``e`` of them into DataBlocks ``2e`` and ``2e + 1``.
    """
    groups = -(-rows // PER_BLOCK)
    _mark_group_tail(out, rows)
    for group in range(groups):
        muls(tmp[group * 2 * LANES], out[group * PER_BLOCK], 1.0, FULL, 2, UnaryRepeatParams(1, 0, PER_BLOCK, 0),
             False)
    pipe_barrier(V)
    blocks = [tmp[index * PER_BLOCK] for index in range(TRANSPOSE_BLOCKS)]
    stride = TRANSPOSE_BLOCKS if groups > 1 else 0
    trans_data_to_5hd(blocks, list(blocks), TransDataTo5HDParams(False, False, groups, stride, stride))


def _scalar_then_vector() -> None:
    """The S_V order between a GetValue and the Duplicate that overwrites the bytes it read.

    The vendor's code writes none: the compiler's automatic sync inserts it (docs/semantics.md §11.5),
    and npusim's sync checker, which sees the calls and not the compiled code, needs it.
    """
    set_flag(HardEvent.S_V, 0)
    wait_flag(HardEvent.S_V, 0)


def _scalar_broadcast(out, rows: int, dst_k: int) -> None:
    """BroadCastLastImpl (v200 softmax_common_impl.h L31-47, BroadCastLastCompute softmax_common_broadcast.h
    L152-178): per 8 rows, the scalar unit reads each row's value, then a Duplicate fills the row's block."""
    set_flag(HardEvent.V_S, 0)
    wait_flag(HardEvent.V_S, 0)
    for first in range(0, rows, SCALAR_STACK_DEPTH):
        count = min(SCALAR_STACK_DEPTH, rows - first)
        values = [out[(first + row) * dst_k].get_value(0) for row in range(count)]
        _scalar_then_vector()
        for row, value in enumerate(values):
            duplicate(out[(first + row) * dst_k], value, dst_k, 1, 1, PER_BLOCK)


def _broadcast(out, tmp, rows: int, dst_k: int) -> None:
    """AlignedBroadCastImpl (softmax_common_broadcast.h L110-136): out[r] -> dst_k copies, through tmp."""
    groups = -(-rows // PER_BLOCK)
    _mark_group_tail(out, rows)
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


def divide(arch: Arch, dst, total, tmp, rows: int, stride: int, dst_k: int) -> None:
    """dst = dst / total per row: GenericDivNDImpl (2201), or TransDivToMulImpl (2002, softmax_common_arithmetic.h
    L311-321): ``tmp = 1.0`` (Duplicate), ``tmp = tmp / total`` (Div), ``dst = dst * tmp``."""
    if not arch.reciprocal:
        broadcast_op(div, dst, dst, total, rows, stride, dst_k)
        return
    size = rows * dst_k
    duplicate(tmp, 1.0, size)
    pipe_barrier(V)
    div(tmp, tmp, total, size)
    pipe_barrier(V)
    broadcast_op(mul, dst, dst, tmp, rows, stride, dst_k)
