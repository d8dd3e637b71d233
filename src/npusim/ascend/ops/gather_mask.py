"""GatherMask (比较与选择/GatherMask.md, ``vreducev2``): keep the source elements a bit pattern selects,
packed from the start of dst, and count them.

Forms (pyasc ``basic/vec_gather_mask.py``; both return the count, ``rsvdCnt``)::

    gather_mask(dst, src0, src1_pattern: LocalTensor, reduce_mode, mask, GatherMaskParams(...))  # user pattern
    gather_mask(dst, src0, src1_pattern: int, reduce_mode, mask, GatherMaskParams(...))          # built-in 1..7
    get_gather_mask_remain_count()                                                               # RSVD_CNT

Which elements a call looks at (功能说明, 参数说明): element ``i`` of repeat ``r`` lies at
``src0 + r * src0_repeat_stride * 32 + (i // B) * src0_block_stride * 32 + (i % B) * sizeof(T)``;

* ``reduce_mode=False`` (Normal): ``repeat_times`` repeats of 256 bytes (``E`` elements); the mask is unused;
* ``reduce_mode=True`` (Counter), 配置方式一 (every product but the 310P): ``mask`` elements in each of
  ``repeat_times`` repeats (more than ``E`` continue the DataBlock sequence, as Copy's counter mode);
* 配置方式二 (the Atlas inference AI Core, npusim's 310P): ``mask`` elements in all, ``ceil(mask / E)``
  repeats of ``E``, ``repeat_times`` unused.

Element ``i`` of repeat ``r`` is kept when its pattern bit is 1: built-in patterns, the same in every
repeat (1: even ``i``, 2: odd, 3-6: ``i % 4 == 0 .. 3``, 7: all; 1-6 on the 310P), or bit ``i`` (LSB
first) of the user tensor from byte ``r * src1_repeat_stride * 32`` (the bits are consumed contiguously
inside a repeat).  The kept elements are written to ``dst[0 .. count)`` in issue order; the rest of dst
keeps its bytes.  Bit-exact.

Lowering (``dav_c220 GatherMaskImpl``): ``SetMaskCount()`` or ``SetMaskNorm()``, ``set_vector_mask(0,
mask)``, ``vreducev2``, ``rsvdCnt = get_rsvd_cnt()``, ``SetMaskNorm()``: the call leaves normal mode and
the mask register ``(mask, 0)`` (the 950's Reg-API lowering leaves the mask alone), and RSVD_CNT.
Not modelled: the 8 KB of UB the 950's built-in patterns use as temporary space (约束说明).

Overlap: dst may not overlap the pattern, and may overlap src0 only where no later repeat reads what an
earlier one wrote (the page's own example compacts src0 in place).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError, UnsupportedError
from ...overloads import Form, Param
from ...validate import require_bool, require_int
from .. import pages
from ..addressing import BLOCK_BYTES, elems_per_block, lanes_per_repeat
from ..chips import unsupported_on
from ..core import Core
from ..footprint import element_bytes, first_common
from ..masking import COUNTER_MAX, MAX_REPEAT
from ..operands import NEVER
from ..tensor import LocalTensor
from ..types import GatherMaskMode, GatherMaskParams, MaskMode
from .common import (
    RangesAfterRun,
    is_bool_arg,
    is_int_arg,
    is_tensor,
    require_dtype,
    require_pair,
    require_repeat_params,
    require_ub_tensor,
)
from .elementwise import DST

__all__ = ["GATHER_MASK_DTYPES", "REMAIN", "gather_mask", "get_gather_mask_remain_count", "masked_gather"]

NAME = "gather_mask"
PAGE = pages.GATHER_MASK
_B16_B32 = frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"})
#: T per product (数据类型组合情况); the pattern tensor is uint8 / uint16 / uint32 by the width of T
GATHER_MASK_DTYPES: dict[str, frozenset[str]] = {
    "950": _B16_B32 | {"bfloat16", "int8", "uint8"},
    "A2": _B16_B32 | {"bfloat16"}, "A3": _B16_B32 | {"bfloat16"}, "310B": _B16_B32, "310P": _B16_B32,
}
TOTAL_COUNT = frozenset({"310P"})  # 配置方式二: the mask is the total element count
SIX_PATTERNS = frozenset({"310P"})  # 支持模式1-6
PATTERN_DTYPES = {1: "uint8", 2: "uint16", 4: "uint32"}
BUILT_IN = {  # element i of a repeat is kept when ...
    1: lambda i: i % 2 == 0, 2: lambda i: i % 2 == 1, 3: lambda i: i % 4 == 0, 4: lambda i: i % 4 == 1,
    5: lambda i: i % 4 == 2, 6: lambda i: i % 4 == 3, 7: lambda i: np.ones_like(i, dtype=bool),
}


def _is_pattern_value(value) -> bool:
    return is_int_arg(value)


def _is_params(value) -> bool:
    return isinstance(value, GatherMaskParams)


def _is_mode(value) -> bool:
    return isinstance(value, GatherMaskMode) or is_int_arg(value)


_TAIL = (Param("reduce_mode", is_bool_arg), Param("mask", is_int_arg), Param("params", _is_params),
         Param("gather_mask_mode", _is_mode, GatherMaskMode.DEFAULT))
FORMS = (
    Form("tensor", (DST, Param("src0", is_tensor), Param("src1_pattern", is_tensor), *_TAIL)),
    Form("pattern", (DST, Param("src0", is_tensor), Param("src1_pattern", _is_pattern_value), *_TAIL)),
)


def _support(chip) -> frozenset[str] | None:
    return GATHER_MASK_DTYPES.get(chip.name)


# ----------------------------------------------------------------- planning
def _compile(core: Core, form: str, bound: dict) -> MaskedGather:
    dst, src0 = require_pair(NAME, core, bound["dst"], bound["src0"], f"{PAGE} 参数说明", "src0")
    allowed = _support(core.chip)
    if allowed is None:
        raise unsupported_on(core.chip, NAME, NAME, lambda c: _support(c) is not None, f"{PAGE} 产品支持情况")
    dtype = dst.dtype
    require_dtype(NAME, "dst", dtype, allowed, f"gather_mask does not support this data type on "
                  f"{core.chip.product}", f"{PAGE} 数据类型")
    itemsize = dtype.itemsize
    pattern_id = 0
    if form == "tensor":
        pattern = require_ub_tensor(NAME, "src1_pattern", bound["src1_pattern"], core)
        want = PATTERN_DTYPES[itemsize]
        if pattern.dtype.name != want:
            raise UnsupportedError(NAME, "src1_pattern dtype", pattern.dtype.name, f"the pattern of a {dtype} "
                                   f"gather is {want}", want, f"{PAGE} 数据类型")
    else:
        top = 6 if core.chip.name in SIX_PATTERNS else 7
        pattern_id = require_int(NAME, "src1_pattern", bound["src1_pattern"], 1, top, f"{PAGE} 功能说明",
                                 rule=f"the built-in patterns on {core.chip.product}")
    if int(bound["gather_mask_mode"]) != GatherMaskMode.DEFAULT:
        raise UnsupportedError(NAME, "gather_mask_mode", int(bound["gather_mask_mode"]), "a reserved parameter "
                               "(预留参数)", "GatherMaskMode.DEFAULT", f"{PAGE} 参数说明")
    counter = require_bool(NAME, "reduce_mode", bound["reduce_mode"])
    blk, repeats, src0_rep, src1_rep = require_repeat_params(NAME, bound["params"], GatherMaskParams, "params")
    repeats = require_int(NAME, "params.repeat_times", repeats, 0, MAX_REPEAT, f"{PAGE} 参数说明",
                          rule="repeatTimes ∈ [0, 255]")
    low = 1 if counter else 0
    mask = require_int(NAME, "mask", bound["mask"], low, COUNTER_MAX, f"{PAGE} 参数说明",
                       rule="Counter mode: mask ∈ [1, 2^32 - 1]" if counter else "a uint32_t")
    native = core.chip.vector_lowering == "native"
    return masked_gather(NAME, core, dst, src0, pattern if form == "tensor" else None, pattern_id, counter, mask,
                         (blk, repeats, src0_rep, src1_rep), (mask, 0, 0, 0) if native else None, MaskMode.NORMAL)


def masked_gather(name: str, core: Core, dst: LocalTensor, src0: LocalTensor, pattern: LocalTensor | None,
                  pattern_id: int, counter: bool, mask: int, params: tuple[int, int, int, int],
                  words_after, mode_after: MaskMode | None, pattern_label: str = "src1_pattern") -> MaskedGather:
    """The plan of a checked GatherMask (``name``: the API called); ``pattern`` None: built-in ``pattern_id``;
    ``pattern_label``: the pattern tensor's parameter name."""
    blk, repeats, src0_rep, src1_rep = params
    itemsize = dst.dtype.itemsize
    lanes = lanes_per_repeat(itemsize)
    if not counter:
        full, per, tail = repeats, lanes, 0
    elif core.chip.name in TOTAL_COUNT:
        full, per, tail = mask // lanes, lanes, mask % lanes
    else:
        full, per, tail = repeats, mask, 0
    span = max(_src0_end(r, n, itemsize, blk, src0_rep) for r, n in ((full - 1, per), (full, tail)))
    src0.check_span(name, "src0", src0.addr, src0.addr + span)  # from the sizes alone, before any index array
    per_repeat = [per] * full + ([tail] if tail else [])
    total = sum(per_repeat)
    repeat_of = np.repeat(np.arange(len(per_repeat), dtype=np.int64), per_repeat)
    starts = np.cumsum([0, *per_repeat[:-1]]) if per_repeat else np.empty(0, np.int64)
    i = np.arange(total, dtype=np.int64) - np.repeat(starts, per_repeat).astype(np.int64)
    per_block = elems_per_block(itemsize)
    src0_offsets = repeat_of * (src0_rep * BLOCK_BYTES) + (i // per_block) * (blk * BLOCK_BYTES) + \
        (i % per_block) * itemsize
    if pattern is not None:
        bits = repeat_of * (src1_rep * BLOCK_BYTES * 8) + i
        if bits.size:
            pattern.check_span(name, pattern_label, pattern.addr, pattern.addr + int(bits.max()) // 8 + 1)
        keep = None
    else:
        bits, keep = None, BUILT_IN[pattern_id](i)
    rows = (full, per // 8, src1_rep * BLOCK_BYTES) if pattern is not None and total and not tail and per % 8 == 0 \
        else None
    plan = MaskedGather(dst.dtype, src0_offsets, repeat_of, bits, keep, words_after,
                        ("dst", "src0", pattern_label) if pattern is not None else ("dst", "src0"), name, mode_after,
                        rows)
    plan.bind(core, [dst, src0] + ([pattern] if pattern is not None else []))  # the checks at this call's addresses
    return plan


def _src0_end(repeat: int, n: int, itemsize: int, blk: int, rep: int) -> int:
    """One past the last src0 byte repeat ``repeat`` reads with ``n`` elements (0 when there is none), relative
    to src0: the largest address of all, the strides being non-negative."""
    if repeat < 0 or n == 0:
        return 0
    per_block = elems_per_block(itemsize)
    last_block = repeat * rep + ((n - 1) // per_block) * blk
    return last_block * BLOCK_BYTES + ((n - 1) % per_block + 1) * itemsize


def _rows(ub, pattern: LocalTensor | None, rows: tuple[int, int, int] | None) -> np.ndarray | None:
    """The pattern bytes as a ``(repeats, bytes per repeat)`` view of UB, or None (no such layout)."""
    if pattern is None or rows is None or ub is None:
        return None
    count, width, stride = rows
    try:
        return np.ndarray((count, width), np.uint8, ub.data, pattern.addr, (stride, 1))
    except ValueError:  # not representable over the buffer: the bytes are gathered by index instead
        return None


def _span(starts: np.ndarray, size: int) -> tuple[int, int]:
    """``[first byte, one past the last)`` of elements of ``size`` bytes at ``starts``; ``(0, 0)`` for none."""
    return (int(starts.min()), int(starts.max()) + size) if starts.size else (0, 0)


@dataclass(eq=False)
class MaskedGather:
    """A checked GatherMask, relative to its tensors.

    Attributes:
        dtype: the element type.
        src0_offsets, repeat_of: every element looked at (bytes from src0) and its repeat, in issue order.
        bits: user pattern: each element's bit, counted from the pattern tensor's first byte; else None.
        keep: built-in pattern: which elements are kept; else None.
        mask_words_after: the mask register value the lowering leaves (None: untouched).
        operands: the tensors that bind per call.
        name: the API called, for messages.
        mask_mode_after: the mask mode the call leaves (None: untouched).
        rows: user pattern with every repeat looking at the same whole number of bytes of bits: ``(repeats,
            bytes per repeat, byte stride between repeats)``, read as a 2-D view of UB; else None.
    """

    dtype: DType
    src0_offsets: np.ndarray
    repeat_of: np.ndarray
    bits: np.ndarray | None
    keep: np.ndarray | None
    mask_words_after: tuple[int, int, int, int] | None
    operands: tuple[str, ...]
    name: str = NAME
    mask_mode_after: MaskMode | None = MaskMode.NORMAL
    rows: tuple[int, int, int] | None = None

    def bind(self, core: Core, tensors: list[LocalTensor]) -> MaskedGatherBinding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.name, label, tensor, core)
        binding = MaskedGatherBinding(self, *tensors, ub=core.ub)
        if self.keep is not None:
            binding.check_writes(self.keep)  # known now: checked before any call runs
        return binding


class MaskedGatherBinding(RangesAfterRun):
    """A :class:`MaskedGather` at one placement; each call reads the pattern, then packs the kept elements."""


    def __init__(self, plan: MaskedGather, dst: LocalTensor, src0: LocalTensor,
                 pattern: LocalTensor | None = None, *, ub=None) -> None:
        self.plan, self.dst, self.pattern = plan, dst, pattern
        itemsize = plan.dtype.itemsize
        self.src_index = (src0.addr + plan.src0_offsets) // itemsize
        # the bytes each operand spans, for a quick test that dst cannot overlap it (the usual case)
        self.src_span = _span(self.src_index * itemsize, itemsize)
        self.pattern_bytes = self.pattern_read = self.bit_shifts = None
        self.pattern_span = (0, 0)
        if pattern is not None:
            self.pattern_bytes = pattern.addr + plan.bits // 8
            self.pattern_read = np.unique(self.pattern_bytes)  # the bytes read, each once
            self.bit_shifts = (plan.bits % 8).astype(np.uint8)
            self.pattern_span = _span(self.pattern_read, 1)
        self.pattern_rows = _rows(ub, pattern, plan.rows)
        self.seen_written = NEVER  # the shadow epoch at which every byte this binding reads was found written
        self.registers_read = ()
        self.registers_written = (("MASK",) if plan.mask_words_after else ()) + (
            ("MASK_MODE",) if plan.mask_mode_after is not None else ()) + ("RSVD_CNT",)
        self.last = 0

    def check_writes(self, selected: np.ndarray) -> None:
        """dst holds the ``selected`` elements; it overlaps neither the pattern nor a src0 element that a
        later repeat reads than the one writing over it."""
        itemsize, dst, name = self.plan.dtype.itemsize, self.dst, self.plan.name
        count = int(np.count_nonzero(selected))
        lo, hi = dst.addr, dst.addr + count * itemsize
        dst.check_span(name, "dst", lo, hi)
        if not count:
            return
        touches_pattern = self.pattern_span[0] < hi and lo < self.pattern_span[1]
        if not touches_pattern and not (self.src_span[0] < hi and lo < self.src_span[1]):
            return  # dst lies clear of both byte spans: nothing to compare
        chosen = np.flatnonzero(selected)
        written = dst.addr // itemsize + np.arange(count, dtype=np.int64)
        if touches_pattern:
            shared = first_common(element_bytes(written, itemsize), self.pattern_read)
            if shared is not None:
                raise OverlapError(name, "dst byte address", shared, f"dst must not overlap {self.plan.operands[2]}",
                                   "disjoint byte ranges", f"{PAGE} 约束说明")
        write_repeat = self.plan.repeat_of[chosen]  # the repeat that writes written[k]
        where = np.searchsorted(written, self.src_index)
        inside = (where < written.size) & (written[np.minimum(where, written.size - 1)] == self.src_index)
        last_read = np.full(written.size, -1, dtype=np.int64)
        np.maximum.at(last_read, where[inside], self.plan.repeat_of[inside])
        late = np.flatnonzero(last_read > write_repeat)
        if late.size:
            raise OverlapError(name, "dst byte address", int(written[late[0]]) * itemsize, "a later repeat reads "
                               "src0 bytes an earlier repeat wrote to dst", "dst clear of src0, or behind its reads",
                               f"{PAGE} 约束说明; {pages.GENERAL} 通用地址重叠约束")

    def run(self, core: Core, values: tuple) -> int:
        plan, ub = self.plan, core.ub
        itemsize = plan.dtype.itemsize
        if self.seen_written != ub.shadow_epoch:  # written bytes stay written until the epoch changes
            clean = ub.check_initialized(plan.name, "src0", self.src_index, itemsize)
            if self.pattern_read is not None:
                clean = ub.check_initialized(plan.name, plan.operands[2], self.pattern_read, 1) and clean
            if clean:
                self.seen_written = ub.shadow_epoch
        if plan.keep is not None:
            selected = plan.keep
        else:
            if self.pattern_rows is not None:  # each repeat's bits are whole bytes: unpacked as rows
                selected = np.unpackbits(self.pattern_rows, axis=1, bitorder="little").reshape(-1).view(bool)
            else:
                selected = ((ub.data[self.pattern_bytes] >> self.bit_shifts) & 1).astype(bool)
            self.check_writes(selected)
        self._commit(core, ub.data.view(plan.dtype.raw)[self.src_index[selected]])
        return self.last

    def _commit(self, core: Core, kept: np.ndarray) -> None:
        """The kept elements packed from dst's start, then the registers the lowering leaves."""
        plan = self.plan
        core.ub.store_run(self.dst.addr // plan.dtype.itemsize, kept)
        if plan.mask_words_after is not None:
            core.set_mask_words(*plan.mask_words_after)
        if plan.mask_mode_after is not None:
            core.set_mask_mode(plan.mask_mode_after)
        core.rsvd_cnt = self.last = int(kept.size)

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        itemsize = self.plan.dtype.itemsize
        reads = list(ranges_of_addresses("UB", element_bytes(self.src_index, itemsize)))
        if self.pattern_bytes is not None:
            reads += ranges_of_addresses("UB", self.pattern_bytes)
        start = self.dst.addr
        return merge_ranges(reads), merge_ranges([("UB", start, start + self.last * itemsize)])




_SETUP = ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
          "x.write(list(range(1, 257)))\n")

gather_mask = register(Instruction(
    NAME, "ascend", "compare_select", "V", FORMS, _compile, f"{PAGE} 功能说明, 参数说明",
    support=_support, exactness=BIT_EXACT,
    summary="dst[0 .. n) = the src0 elements whose pattern bit is 1 (built-in 1..7 or a bit tensor); returns n",
    examples=(
        _SETUP + "asc.gather_mask(x, x, 2, False, 0, asc.GatherMaskParams(1, 4, 8, 0))",
        _SETUP + "p = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 8)\n"
                 "p.write([0x99999999] * 8)\n"
                 "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)\n"
                 "asc.gather_mask(z, x, p, True, 70, asc.GatherMaskParams(1, 2, 4, 0))",
    ),
    fast_context=lambda core: (),
    doc=f"``gather_mask``: compaction by a built-in or a user bit pattern, Normal or Counter mode; returns the "
        f"count and leaves it in RSVD_CNT ({PAGE}).",
))


class RemainCount(SelfBinding):
    """``GetGatherMaskRemainCount``: the RSVD_CNT register."""

    registers_read = ("RSVD_CNT",)

    def run(self, core: Core, values: tuple) -> int:
        return core.rsvd_cnt


REMAIN = RemainCount()

get_gather_mask_remain_count = register(Instruction(
    "get_gather_mask_remain_count", "ascend", "register", "S", (Form("", ()),), lambda core, form, values: REMAIN,
    f"{PAGE} 参数说明 (rsvdCnt)", support=lambda chip: _support(chip) is not None,
    summary="The elements the last gather_mask kept (the RSVD_CNT register)",
    examples=("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 128)\nx.write(list(range(128)))\n"
              "asc.gather_mask(x, x, 3, False, 0, asc.GatherMaskParams(1, 1, 8, 0))\n"
              "asc.get_gather_mask_remain_count()",),
    fast_context=lambda core: (),
    doc="``get_gather_mask_remain_count()``: RSVD_CNT, the count the last gather_mask returned.",
))
