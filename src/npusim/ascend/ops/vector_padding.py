"""VectorPadding (数据填充/VectorPadding(ISASI).md, ``vpadding``; the Atlas inference AI Core only): each
destination DataBlock is a padding made from the source DataBlock at the same position.

Forms (pyasc has none; the names of the elementwise unary forms)::

    vector_padding(dst, src, pad_mode, pad_side, count)
    vector_padding(dst, src, pad_mode, pad_side, mask, repeat_times, repeat_params, is_set_mask=True)

Within a DataBlock of ``B = 32 / sizeof(T)`` elements ``s[0 .. B)`` (功能说明's ``a .. p``), destination element
``k`` is, by ``pad_mode`` and ``pad_side`` (False: the left, towards ``s[0]``; True: the right)::

    mode 0 (邻近数)        left: s[0]                       right: s[B - 1]            "aaa|abc", "nop|ppp"
    mode 1 (对称)          left: s[B - 1 - k]               right: s[B - 1 - k]        "cba|abc", "nop|pon"
    mode 2 (偏移一个数对称) left: 0 at k = 0, else s[B - k]  right: s[B - 2 - k], 0 at k = B - 1   "xcb", "onx"

npusim's reading of the page (docs/semantics.md §5.20): the whole destination DataBlock is the padding on that
side of the source DataBlock, the sketches' padded part ending (left) or starting (right) at the block's edge;
the page's one printed output (mode 0, left: a block of 16 halves all ``6.938``, its ``s[0]``) agrees.  The
zero of mode 2 is the all-zero bit pattern of T.  Elements move unchanged otherwise: bit-exact.

Operands (约束说明): the mask (or ``count``) selects which dst elements are written; the source is read
independently of it, so npusim reads every element of each repeat's 8 source DataBlocks (the count form:
``ceil(count / E)`` repeats, contiguous).  dst and src: UB, 32-byte aligned, T int16, uint16, half, int32,
uint32, float (表1); ``pad_mode`` in [0, 2]; a dst block stride of 0 is rejected (§1.2); overlap as §1.6.
Registers (dav_m200 ``VectorPaddingImpl``): the mask forms set the mask register with ``is_set_mask``; the
count form runs in counter mode and leaves normal mode with the mask all ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_bool, require_int
from .. import pages
from ..addressing import FULL_WORD, ActiveLanes, counter_mode_lanes, lanes_per_repeat
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, check_overlap, strided_footprint
from ..masking import MaskWords, mask_form_lanes
from ..operands import OperandAccess, StridedOperand, choose_layout
from ..tensor import LocalTensor
from ..types import MaskMode, UnaryRepeatParams
from .common import (
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    is_unary_params,
    mask_fast_context,
    mask_plan_context,
    mask_registers_left,
    require_dtype,
    require_pair,
    require_repeat_params,
)
from .elementwise import INT32_MAX

__all__ = ["PAD_DTYPES", "pad_source_lanes", "vector_padding"]

NAME = "vector_padding"
PAGE = pages.VECTOR_PADDING
RULES = semantics("5.20")
#: T per product (表1); the only product with VectorPadding is the Atlas inference AI Core (产品支持情况)
PAD_DTYPES: dict[str, frozenset[str]] = {
    "310P": frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"}),
}
ZERO = -1  # a source position meaning "the zero of T" (mode 2)


def _any(_value) -> bool:
    return True


_HEAD = (Param("dst", _any), Param("src", _any), Param("pad_mode", is_int_arg), Param("pad_side", is_bool_arg))
FORMS = (Form("count", (*_HEAD, Param("count", is_int_arg))),
         Form("mask", (*_HEAD, Param("mask", is_mask_arg), Param("repeat_times", is_int_arg),
                       Param("repeat_params", is_unary_params), Param("is_set_mask", is_bool_arg, True))))


def pad_source_lanes(mode: int, right: bool, block: int) -> np.ndarray:
    """For each destination position ``k`` of a DataBlock, the source position it takes (:data:`ZERO`: 0)."""
    k = np.arange(block, dtype=np.int64)
    if mode == 0:
        return np.full(block, block - 1 if right else 0, dtype=np.int64)
    if mode == 1:
        return block - 1 - k
    if right:
        return np.where(k == block - 1, ZERO, block - 2 - k)
    return np.where(k == 0, ZERO, block - k)


# ------------------------------------------------------------------ planning
@dataclass(frozen=True)
class BlockRecipe:
    """A padding pattern as slices of the last axis of ``(repeats, 8, B)`` blocks: ``out[..., into] =
    src[..., take]`` (a broadcast for mode 0), then ``out[..., zero] = 0`` where mode 2 has its zero."""

    into: slice
    take: slice
    zero: int | None


def block_recipe(mode: int, right: bool, block: int) -> BlockRecipe:
    """:func:`pad_source_lanes` as slices (module docstring's table)."""
    if mode == 0:
        return BlockRecipe(slice(None), slice(block - 1, block) if right else slice(0, 1), None)
    if mode == 1:
        return BlockRecipe(slice(None), slice(None, None, -1), None)
    if right:
        return BlockRecipe(slice(0, block - 1), slice(block - 2, None, -1), block - 1)
    return BlockRecipe(slice(1, None), slice(block - 1, 0, -1), 0)


def _compile(core: Core, form: str, bound: dict) -> PaddingPlan:
    dst, src = require_pair(NAME, core, bound["dst"], bound["src"], f"{PAGE} 参数说明")
    allowed = PAD_DTYPES.get(core.chip.name)
    if allowed is None:
        raise unsupported_on(core.chip, NAME, "VectorPadding", lambda c: c.name in PAD_DTYPES,
                             f"{PAGE} 产品支持情况; {RULES}")
    require_dtype(NAME, "dst", dst.dtype, allowed, f"VectorPadding does not support this data type on "
                  f"{core.chip.product}", f"{PAGE} 参数说明 (表1); {RULES}")
    mode = require_int(NAME, "pad_mode", bound["pad_mode"], 0, 2, f"{PAGE} 参数说明 (padMode)")
    right = require_bool(NAME, "pad_side", bound["pad_side"])
    itemsize = dst.dtype.itemsize
    lanes_per = lanes_per_repeat(itemsize)
    if form == "count":
        count = require_int(NAME, "count", bound["count"], 0, INT32_MAX, f"{PAGE} 函数原型; {semantics('1.4')}",
                            rule="count is a uint32_t; npusim takes at most INT32_MAX")
        if count == 0:
            return PaddingPlan(None, None, None, None, None, None, None, ())
        lanes = counter_mode_lanes(count, lanes_per)
        (d_blk, d_rep), (s_blk, s_rep) = (1, 8), (1, 8)
        words_after, mode_after = (FULL_WORD, FULL_WORD, 0, 0), MaskMode.NORMAL  # set_mask_norm; mask all ones
        registers: tuple[str, ...] = ()
    else:
        d_blk, s_blk, d_rep, s_rep = require_repeat_params(NAME, bound["repeat_params"], UnaryRepeatParams)
        lanes, words_after, registers = mask_form_lanes(core, NAME, bound, itemsize, True)
        mode_after = None
        if lanes.repeats == 0:
            return PaddingPlan(None, None, None, None, None, words_after, None, registers)
    if d_blk == 0:
        raise ParameterRangeError(NAME, "dst block stride", 0, "a destination block stride of 0 is undefined "
                                  "behaviour", "at least 1", f"{pages.HIGH_DIM} 地址间隔配置; {semantics('1.2')}")
    every_lane = ActiveLanes(lanes.repeats, lanes_per, None, lanes.repeats * lanes_per)  # reads ignore the mask
    dst_fp = strided_footprint("dst", 0, lanes, itemsize, d_blk, d_rep)
    src_fp = strided_footprint("src", 0, every_lane, itemsize, s_blk, s_rep)
    plan = PaddingPlan(dst.dtype, lanes, dst_fp, src_fp, _lane_sources(mode, right, itemsize, lanes),
                       words_after, mode_after, registers, ((d_blk, d_rep), (s_blk, s_rep)),
                       block_recipe(mode, right, 32 // itemsize), every_lane)
    plan.placed([dst, src])
    return plan


def _lane_sources(mode: int, right: bool, itemsize: int, lanes: ActiveLanes) -> np.ndarray:
    """For each written dst element (repeat-major), the index of its source element in the src read order
    (:data:`ZERO`: the zero of T)."""
    block = 32 // itemsize
    per_block = pad_source_lanes(mode, right, block)
    lane = np.arange(lanes.lanes, dtype=np.int64)
    within = per_block[lane % block]
    source = np.where(within == ZERO, ZERO, lane - lane % block + within)
    grid = np.arange(lanes.repeats, dtype=np.int64)[:, None] * lanes.lanes + source[None, :]
    grid = np.where(source[None, :] == ZERO, ZERO, grid)
    return lanes.select(np.ascontiguousarray(np.broadcast_to(grid, (lanes.repeats, lanes.lanes))))


# ---------------------------------------------------------- plan and binding
@dataclass(eq=False)
class PaddingPlan:
    """A checked VectorPadding, relative to its tensors (a NOP when ``lanes`` is None)."""

    dtype: DType | None
    lanes: ActiveLanes | None
    dst_fp: Footprint | None
    src_fp: Footprint | None
    sources: np.ndarray | None
    mask_words_after: MaskWords | None
    mask_mode_after: MaskMode | None
    registers: tuple[str, ...]
    strides: tuple[tuple[int, int], tuple[int, int]] | None = None  # (block, repeat) of dst and src
    recipe: BlockRecipe | None = None
    every_lane: ActiveLanes | None = None  # the src lanes: every lane of each repeat (reads ignore the mask)
    operands: tuple[str, ...] = ("dst", "src")

    def bind(self, core: Core, tensors: list[LocalTensor]) -> PaddingBinding:
        dst, src = require_pair(NAME, core, *tensors, f"{PAGE} 参数说明")
        if self.lanes is None:
            return PaddingBinding(self, None, None)
        return PaddingBinding(self, self.placed([dst, src]), self._accesses(core, dst, src))

    def _accesses(self, core: Core, dst: LocalTensor, src: LocalTensor) -> list[OperandAccess] | None:
        """Both operands as ``(repeats, 8, B)`` views over UB, or ``None`` where the view layout does not fit
        (a view past UB's end, a dst writing an element twice): then the lanes are moved one by one."""
        dst_fp, src_fp = self.dst_fp.moved(dst.addr), self.src_fp.moved(src.addr)
        (d_blk, d_rep), (s_blk, s_rep) = self.strides
        operands = [StridedOperand(dst.addr, dst_fp, d_blk, d_rep), StridedOperand(src.addr, src_fp, s_blk, s_rep)]
        if choose_layout(core.ub, operands, self.lanes, operands[0]) != "view":
            return None
        raw = self.dtype.raw
        return [OperandAccess.build(core.ub, operands[0], raw, self.lanes, "view"),
                OperandAccess.build(core.ub, operands[1], raw, self.every_lane, "view")]

    def placed(self, tensors: list[LocalTensor]) -> tuple[Footprint, Footprint]:
        """Bounds and overlap at these tensors' addresses (docs/semantics.md §1.6)."""
        dst, src = tensors
        dst_fp, src_fp = self.dst_fp.moved(dst.addr), self.src_fp.moved(src.addr)
        dst_fp.check_in(NAME, dst)
        src_fp.check_in(NAME, src)
        check_overlap(NAME, dst_fp, src_fp)
        return dst_fp, src_fp


class PaddingBinding:
    def __init__(self, plan: PaddingPlan, footprints: tuple[Footprint, Footprint] | None,
                 accesses: list[OperandAccess] | None) -> None:
        self.plan = plan
        self.footprints = footprints
        self.accesses = accesses
        self.result = None if accesses is None else np.empty(accesses[1].values.shape, plan.dtype.raw)
        self.registers_read = plan.registers
        self.registers_written = mask_registers_left(plan.mask_words_after, plan.mask_mode_after)

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        if self.footprints is None:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.footprints[1].byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        if self.footprints is None:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.footprints[0].byte_addrs()[0]))

    def run(self, core: Core, values: tuple) -> None:
        """Read every source element of the repeats, pick each written lane's, then commit."""
        plan = self.plan
        if self.footprints is None:
            self._commit_registers(core)
            return
        if self.accesses is not None:
            self._run_blocks(core)
            self._commit_registers(core)
            return
        dst_fp, src_fp = self.footprints
        raw = plan.dtype.raw
        core.ub.check_initialized(NAME, "src", src_fp.elem_index, plan.dtype.itemsize)
        source = np.append(core.ub.gather(src_fp.elem_index, raw), raw.type(0))  # index -1: the zero of T
        result = source[plan.sources]
        core.ub.scatter(dst_fp.elem_index, result)
        self._commit_registers(core)

    def _run_blocks(self, core: Core) -> None:
        """The view layout: every source block read first, each padded by the plan's slices, then written."""
        ub, recipe, result = core.ub, self.plan.recipe, self.result
        dst, src = self.accesses
        if src.seen_written != ub.shadow_epoch:
            src.check_initialized(ub, NAME)
        result[..., recipe.into] = src.gather(ub, self.plan.dtype.raw)[..., recipe.take]
        if recipe.zero is not None:
            result[..., recipe.zero] = 0
        dst.write(ub, result)

    def _commit_registers(self, core: Core) -> None:
        if self.plan.mask_words_after is not None:
            core.set_mask_words(*self.plan.mask_words_after)
        if self.plan.mask_mode_after is not None:
            core.set_mask_mode(self.plan.mask_mode_after)


def _support(chip) -> frozenset[str] | None:
    return PAD_DTYPES.get(chip.name)


vector_padding = register(Instruction(
    NAME, "ascend", "fill", "V", FORMS, _compile, f"{PAGE} 功能说明, 约束说明; {RULES}", support=_support,
    exactness=BIT_EXACT,
    summary="each dst DataBlock = the padding (pad_mode 0/1/2, left/right) of the src DataBlock at its place",
    examples=(
        "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
        "x.write([float(i % 37) for i in range(512)])\n"
        "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 512)\n"
        "asc.vector_padding(z, x, 0, False, 512)",
        "x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
        "x.write([float(i) for i in range(256)])\n"
        "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 512)\n"
        "asc.vector_padding(z, x, 2, True, [0xFF00FF00FF00FF0F, 0], 2, asc.UnaryRepeatParams(2, 1, 16, 8))",
    ),
    plan_context=mask_plan_context, fast_context=mask_fast_context,
    doc=f"``vector_padding(dst, src, pad_mode, pad_side, count)`` / ``(..., mask, repeat_times, repeat_params, "
        f"is_set_mask=True)`` ({PAGE}): DataBlock-wise padding, Atlas inference AI Core only.",
))
