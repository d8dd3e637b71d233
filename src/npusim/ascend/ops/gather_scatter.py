"""Gather and Scatter (离散与聚合/Gather.md, Scatter(ISASI).md): elements moved by byte offsets read from UB.

Forms (pyasc ``basic/vec_gather.py``, ``vec_scatter.py``)::

    gather(dst, src, src_offset, src_base, count)
    gather(dst, src, src_offset, src_base, mask, repeat_times, dst_rep_stride)      # mask: int or words
    scatter(dst, src, dst_offset, dst_base, count)
    scatter(dst, src, dst_offset, dst_base, mask, repeat_times, src_rep_stride)

The pages' pseudo-code: ``dst[i] = src[(srcBaseAddr + srcOffset[i]) / sizeof(T)]`` and
``dst[(dstBaseAddr + dstOffset[i]) / sizeof(T)] = src[i]``: the offsets are uint32 *bytes* from
the tensor's start plus the base (``GatherImpl``: ``offsetAddr = src + srcBaseOffset``).  Lane ``j``
of repeat ``r`` of the mask forms uses offset ``r * E + j`` and the dense side at
``base + r * rep_stride * 32 + j * sizeof(T)``.  Elements move unchanged: bit-exact.

The offsets are data: each call reads them, checks every one (element-aligned, inside the
tensor they index, within the product's range; for Scatter distinct), and only then moves
anything; its access records are known after it ran (``ranges_after_run``).

Not modelled: the 8-bit mask forms of the 950 and the 310B (4 DataBlocks per repeat; the 950's
page allows 8-bit in the count form only, which npusim models on both).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...memory import run_start
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int, require_uint
from .. import pages
from ..addressing import contiguous_mask_words, counter_mode_lanes, lanes_per_repeat
from ..chips import OpDtypes, unsupported_on
from ..core import Core
from ..footprint import Footprint, element_bytes, first_common, strided_footprint
from ..masking import MaskWords, lanes_from_mask_arg
from ..operands import NEVER
from ..tensor import LocalTensor
from ..types import MaskMode
from .common import (
    RangesAfterRun,
    is_int_arg,
    is_mask_arg,
    is_tensor,
    mask_registers_left,
    require_dtype,
    require_pair,
    require_ub_tensor,
)
from .elementwise import DST, INT32_MAX

__all__ = ["GATHER", "GATHER_DTYPES", "SCATTER", "SCATTER_DTYPES", "count_lanes", "gather", "indexed_plan", "scatter"]

_B16_B32 = frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"})
_B8 = frozenset({"int8", "uint8"})
#: T per product and form (数据类型); the 8-bit types in the count form only (see the module doc).
GATHER_DTYPES: dict[str, OpDtypes] = {
    "950": OpDtypes(_B16_B32 | {"bfloat16", "int64", "uint64"}, _B8),
    "A2": OpDtypes(_B16_B32 | {"bfloat16"}), "A3": OpDtypes(_B16_B32 | {"bfloat16"}),
    "310B": OpDtypes(_B16_B32, _B8), "310P": OpDtypes(_B16_B32),
}
SCATTER_DTYPES: dict[str, OpDtypes] = {
    "950": OpDtypes(_B16_B32 | {"bfloat16", "int64", "uint64"}, _B8),
    "310B": OpDtypes(_B16_B32, _B8), "310P": OpDtypes(frozenset({"uint16", "float16", "uint32", "float32"})),
}
#: the products whose offsets are limited by the element width (约束说明): 8-bit [0, 2^16 - 1],
#: 16-bit [0, 2^17 - 1], wider: uint32; elsewhere any uint32
NARROW_OFFSETS = frozenset({"950", "310B"})
#: the products whose count form issues mask forms (SetMask<T>) and so leaves the last mask set
MASKED_COUNT_FORM = frozenset({"A2", "A3", "310P"})


@dataclass(frozen=True)
class Kind:
    """What tells Gather and Scatter apart: which side is indexed."""

    name: str
    page: str
    offsets: str  # "src_offset" / "dst_offset"
    base: str  # "src_base" / "dst_base"
    indexed: str  # the tensor the offsets index: "src" / "dst"
    dense: str  # the other one: "dst" / "src"
    rep_stride: str  # "dst_rep_stride" / "src_rep_stride"
    stride_bits: int
    dtypes: dict[str, OpDtypes]


GATHER = Kind("gather", pages.GATHER, "src_offset", "src_base", "src", "dst", "dst_rep_stride", 16, GATHER_DTYPES)
SCATTER = Kind("scatter", pages.SCATTER, "dst_offset", "dst_base", "dst", "src", "src_rep_stride", 8, SCATTER_DTYPES)


def _forms(kind: Kind) -> tuple[Form, ...]:
    head = (DST, Param("src", is_tensor), Param(kind.offsets, is_tensor), Param(kind.base, is_int_arg))
    return (Form("count", (*head, Param("count", is_int_arg))),
            Form("mask", (*head, Param("mask", is_mask_arg), Param("repeat_times", is_int_arg),
                          Param(kind.rep_stride, is_int_arg))))


# ----------------------------------------------------------------- planning
def _compile(kind: Kind, core: Core, form: str, bound: dict) -> IndexedPlan:
    name, page = kind.name, kind.page
    dst, src = require_pair(name, core, bound["dst"], bound["src"], f"{page} 参数说明")
    offsets = require_ub_tensor(name, kind.offsets, bound[kind.offsets], core)
    if offsets.dtype.name != "uint32":
        raise UnsupportedError(name, f"{kind.offsets} dtype", offsets.dtype.name, "the offsets are a "
                               "LocalTensor<uint32_t>", "uint32", f"{page} 函数原型")
    support = kind.dtypes.get(core.chip.name)
    if support is None:
        raise unsupported_on(core.chip, name, name, lambda c: c.name in kind.dtypes, f"{page} 产品支持情况")
    dtype = dst.dtype
    require_dtype(name, "dst", dtype, support.for_form(form == "count"),
                  f"{name} does not support this data type in this form on {core.chip.product}", f"{page} 数据类型")
    itemsize = dtype.itemsize
    indexed = src if kind is GATHER else dst
    base = require_uint(name, kind.base, bound[kind.base], 32, f"{page} 参数说明")
    if base % itemsize or base >= indexed.nbytes:
        raise ParameterRangeError(name, kind.base, base, f"the base must be a multiple of sizeof(T) = {itemsize} "
                                  f"inside {kind.indexed} (else the data is silently misaligned)",
                                  f"multiples of {itemsize} in [0, {indexed.nbytes - 1}]", f"{page} 约束说明")
    lanes_in_repeat = lanes_per_repeat(itemsize)
    words_after: MaskWords | None = None
    registers: tuple[str, ...] = ()
    if form == "count":
        count = require_int(name, "count", bound["count"], 0, INT32_MAX, f"{page} 参数说明",
                            rule="count is a uint32_t element count")
        if count == 0:
            return _nothing(kind, core, "count")
        lanes = count_lanes(kind, name, dst, src, offsets, count)
        rep = 8
        if core.chip.name in MASKED_COUNT_FORM:  # full repeats with SetMask<T>(E), then the tail's SetMask
            low, high = contiguous_mask_words(count % lanes_in_repeat or lanes_in_repeat, itemsize)
            words_after = (low, high, 0, 0)
    else:
        rep = require_uint(name, kind.rep_stride, bound[kind.rep_stride], kind.stride_bits, f"{page} 函数原型")
        lanes, words = lanes_from_mask_arg(core, name, bound["mask"], bound["repeat_times"], itemsize,
                                           lowering_counts_raw=core.chip.vector_lowering != "native")
        registers = ("MASK_MODE",)
        if core.chip.vector_lowering == "native":
            words_after = words
        if lanes.repeats == 0:
            return _nothing(kind, core, "repeat_times")
    return indexed_plan(kind, kind.name, core, dst, src, offsets, base, lanes, rep, words_after, registers)


def count_lanes(kind: Kind, name: str, dst: LocalTensor, src: LocalTensor, offsets: LocalTensor, count: int):
    """The lanes of ``count`` elements, once the dense side and the offsets are known to hold them (checked
    from the count alone: a count past UB is rejected before any array of that size exists)."""
    dense = dst if kind is GATHER else src
    dense.check_span(name, kind.dense, dense.addr, dense.addr + count * dense.dtype.itemsize)
    offsets.check_span(name, kind.offsets, offsets.addr, offsets.addr + count * 4)
    return counter_mode_lanes(count, lanes_per_repeat(dense.dtype.itemsize))


def indexed_plan(kind: Kind, name: str, core: Core, dst: LocalTensor, src: LocalTensor, offsets: LocalTensor,
                 base: int, lanes, rep: int, words_after: MaskWords | None, registers: tuple[str, ...],
                 mode_after: MaskMode | None = None) -> IndexedPlan:
    """The plan of a checked Gather or Scatter (``name``: the API called) over these lanes."""
    itemsize = dst.dtype.itemsize
    dense = strided_footprint(kind.dense, 0, lanes, itemsize, 1, rep)
    grid = np.arange(lanes.repeats * lanes.lanes, dtype=np.int64).reshape(lanes.repeats, lanes.lanes)
    offset_fp = Footprint(kind.offsets, lanes.select(grid) * 4, dense.repeats, 4)
    limit = (1 << (15 + itemsize)) - 1 if core.chip.name in NARROW_OFFSETS and itemsize <= 2 else (1 << 32) - 1
    plan = IndexedPlan(kind, dst.dtype, dense, offset_fp, base, limit, words_after, registers, name, mode_after)
    plan.placed(dst, src, offsets)
    return plan


def _nothing(kind: Kind, core: Core, operand: str) -> IndexedPlan:
    """count = 0 or repeat_times = 0: a NOP on the A2/A3 (约束说明), not guaranteed on the 950."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(kind.name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{kind.page} 约束说明; {semantics('1.9')}")
    return IndexedPlan(kind, None, None, None, 0, 0, None, (), kind.name)


@dataclass(eq=False)
class IndexedPlan:
    """A checked Gather or Scatter, relative to its tensors (a NOP when ``dense`` is None).

    Attributes:
        kind: Gather or Scatter.
        dense: the lanes of the side addressed by the repeat formula (dst of a Gather, src of a Scatter).
        offsets: the offset tensor's elements each lane reads (in the dense side's order).
        base: the base in bytes added to every offset.
        limit: the largest offset the product takes.
        mask_words_after: what the call leaves in the mask register.
        registers: registers a call reads.
        name: the API called (``gather``, ``asc_gather`` ...), for messages.
        mask_mode_after: the mask mode the call leaves, ``None`` if untouched.
    """

    kind: Kind
    dtype: DType | None
    dense: Footprint | None
    offsets: Footprint | None
    base: int
    limit: int
    mask_words_after: MaskWords | None
    registers: tuple[str, ...]
    name: str = ""
    mask_mode_after: MaskMode | None = None

    @property
    def operands(self) -> tuple[str, ...]:
        return "dst", "src", self.kind.offsets

    def bind(self, core: Core, tensors: list[LocalTensor]) -> IndexedBinding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.name, label, tensor, core)
        return IndexedBinding(self, *self.placed(*tensors))

    def placed(self, dst: LocalTensor, src: LocalTensor, offsets: LocalTensor):
        """The dense lanes and the offsets at these tensors' addresses, checked for bounds; the dense
        destination of a Gather must not overlap the offsets it reads."""
        if self.dense is None:
            return None, None, dst, src
        dense_tensor = dst if self.kind is GATHER else src
        dense, offset_fp = self.dense.moved(dense_tensor.addr), self.offsets.moved(offsets.addr)
        dense.check_in(self.name, dense_tensor)
        offset_fp.check_in(self.name, offsets)
        if self.kind is GATHER:
            _require_disjoint(self, dense.byte_addrs()[0], offset_fp.byte_addrs()[0], self.kind.offsets)
        return dense, offset_fp, dst, src


def _require_disjoint(plan: IndexedPlan, written: np.ndarray, read: np.ndarray, what: str, unit: int = 1) -> None:
    """No element (of ``unit`` bytes; 1: byte addresses) both written and read."""
    shared = first_common(written, read)
    if shared is not None:
        raise OverlapError(plan.name, "dst byte address", shared * unit, f"dst must not overlap {what}",
                           "disjoint byte ranges", f"{plan.kind.page} 约束说明")


class IndexedBinding(RangesAfterRun):
    """An :class:`IndexedPlan` at one placement; each call reads and checks the offsets, then moves."""


    def __init__(self, plan: IndexedPlan, dense: Footprint | None, offsets: Footprint | None, dst: LocalTensor,
                 src: LocalTensor) -> None:
        self.plan = plan
        self.dense, self.offsets = dense, offsets
        self.indexed = src if plan.kind is GATHER else dst
        if dense is not None:  # the element indices and bytes a call always touches, computed once
            self.dense_index, self.offset_index = dense.elem_index, offsets.elem_index
            self.dense_bytes, self.offset_bytes = dense.byte_addrs()[0], offsets.byte_addrs()[0]
            # a count form's dense lanes and offsets are runs of consecutive elements: sliced, not indexed
            self.dense_run, self.offset_run = run_start(self.dense_index), run_start(self.offset_index)
            self.dense_bounds = (int(self.dense_index.min()), int(self.dense_index.max())) \
                if self.dense_index.size else (0, -1)
            size = plan.dtype.itemsize
            self.dense_span = (self.dense_bounds[0] * size, (self.dense_bounds[1] + 1) * size)  # a run's bytes
        self.registers_read = plan.registers
        self.registers_written = mask_registers_left(plan.mask_words_after, plan.mask_mode_after)
        # the element indices read and written by the last call, and the element the reads count from (a Gather
        # inside src keeps them relative to src + base: ranges() makes them absolute; else None)
        self.last: tuple[np.ndarray, np.ndarray, int | None] | None = None
        self.offsets_seen = self.src_seen = NEVER  # the shadow epoch in which they were seen all written
        self.dst_marked = NEVER  # the shadow epoch in which a Gather's dst run was marked written
        if dense is not None and plan.kind is GATHER:  # a Gather's per-call arithmetic, fixed by the placement
            itemsize = plan.dtype.itemsize
            self.shift = itemsize.bit_length() - 1  # byte offset -> element: offset >> shift
            # the elements the offsets may reach: from src + base to the last whole element of src
            self.first = (self.indexed.addr + plan.base) // itemsize
            self.stop = self.indexed.end // itemsize
            # only where src's elements from the base can meet dst's lanes must a call look for a shared one
            self.may_overlap = self.first <= self.dense_bounds[1] and self.dense_bounds[0] < self.stop
        self.views: tuple | None = None  # views of this core's UB a call uses (_views)

    def _views(self, ub) -> tuple:
        """(UB's bytes, the offsets as a uint32 run or None, a Gather's src elements from the base and its dst
        run or None), made once per binding: its core's UB stays the same array."""
        words, elements = ub.data.view(np.uint32), ub.data.view(self.plan.dtype.raw)
        offsets = None if self.offset_run is None else words[self.offset_run : self.offset_run + self.offset_index.size]
        if self.plan.kind is not GATHER:
            return ub.data, offsets
        dst = None if self.dense_run is None else elements[self.dense_run : self.dense_run + self.dense_index.size]
        return ub.data, offsets, elements[self.first : self.stop], dst

    def run(self, core: Core, values: tuple) -> None:
        plan = self.plan
        if self.dense is None:
            self.last = (np.empty(0, np.int64), np.empty(0, np.int64), None)
            return
        ub, name, itemsize = core.ub, plan.name, plan.dtype.itemsize
        if self.offsets_seen != ub.shadow_epoch:
            ub.check_initialized(name, plan.kind.offsets, self.offset_index, 4)
            self.offsets_seen = ub.shadow_epoch
        views = self.views
        if views is None or views[0] is not ub.data:
            views = self.views = self._views(ub)
        offsets = views[1] if views[1] is not None else ub.data.view(np.uint32)[self.offset_index]
        if plan.kind is GATHER and self._gathered_inside_src(core, offsets, views):
            return
        indexed, indexed_bounds = self._indexed_elements(offsets)
        dense = self.dense_index
        read, written = (indexed, dense) if plan.kind is GATHER else (dense, indexed)
        read_bounds, written_bounds = (indexed_bounds, self.dense_bounds) if plan.kind is GATHER else \
            (self.dense_bounds, indexed_bounds)
        # dst and src have one element size and aligned addresses: elements overlap exactly where bytes do
        if read_bounds[0] <= written_bounds[1] and written_bounds[0] <= read_bounds[1]:  # else disjoint
            _require_disjoint(plan, written, read, "src", itemsize)
        if plan.kind is SCATTER and self.offsets.lo < (written_bounds[1] + 1) * itemsize and \
                written_bounds[0] * itemsize < self.offsets.hi:
            _require_disjoint(plan, element_bytes(written, itemsize), self.offset_bytes, "dst_offset", 1)
        self._check_src(ub, read, read_bounds)
        elements = ub.data.view(plan.dtype.raw)
        if plan.kind is SCATTER and self.dense_run is not None:
            values_moved = elements[self.dense_run : self.dense_run + read.size]  # scatter copies it
        else:
            values_moved = elements[read]
        if plan.kind is GATHER and self.dense_run is not None:
            ub.store_run(self.dense_run, values_moved)
        else:
            ub.scatter(written, values_moved)
        if plan.mask_words_after is not None:
            core.set_mask_words(*plan.mask_words_after)
        if plan.mask_mode_after is not None:
            core.set_mask_mode(plan.mask_mode_after)
        self.last = (read, written, None)

    def _gathered_inside_src(self, core: Core, offsets: np.ndarray, views: tuple) -> bool:
        """A Gather whose every read lies inside src, with fewer passes over the offsets than the general path
        below :meth:`run`'s call of it: one maximum and one OR clear the usual call (no minimum: src's own extent
        from the base tells whether a read can meet dst at all), the element indices stay relative to src + base
        until an overlap or never-written check, or the access records (:meth:`ranges`), need them absolute.
        The same checks, in the same order and with the same errors, as the general path; ``False`` (nothing
        done) when an offset reaches past src, which the general path rejects or, under the hardware policy,
        reads past src (UbPastTensorEndWarning)."""
        plan, ub = self.plan, core.ub
        itemsize = plan.dtype.itemsize
        if not offsets.size:  # a mask of no lane (continuous mask 0): nothing to reduce, the general path moves none
            return False
        high = int(np.maximum.reduce(offsets))
        if high > plan.limit or (itemsize > 1 and int(np.bitwise_or.reduce(offsets)) & (itemsize - 1)):
            self._reject_offset(offsets)
        if self.first + (high >> self.shift) >= self.stop:  # every offset is aligned now: high is an element's
            return False
        # element indices relative to src + base (a copy, never a view of UB: the access records keep it)
        relative = offsets >> self.shift if self.shift else offsets.astype(np.intp)
        read = None
        if self.may_overlap:  # src from the base reaches dst's lanes: look for an element both read and written
            read = self._absolute(relative)
            if int(read.min()) <= self.dense_bounds[1] and self.dense_bounds[0] <= int(read.max()):
                _require_disjoint(plan, self.dense_index, read, "src", itemsize)
        if self.src_seen != ub.shadow_epoch:  # every read lies in src
            src = self.indexed
            if ub.written[src.addr:src.end].all():
                self.src_seen = ub.shadow_epoch
            else:
                ub.check_initialized(plan.name, "src", self._absolute(relative) if read is None else read, itemsize)
        self._commit_gathered(core, relative, views)
        return True

    def _commit_gathered(self, core: Core, relative: np.ndarray, views: tuple) -> None:
        """Move the checked elements: src's, from src + base, at ``relative``, to dst's lanes (every index is
        inside src, checked, so ``take`` never wraps; src and dst share no element, checked), then the mask
        registers.  One ``take`` straight into a dst run, without an intermediate array."""
        plan, ub = self.plan, core.ub
        _, _, src, dst = views
        if dst is not None:
            src.take(relative, out=dst, mode="wrap")
            if self.dst_marked != ub.shadow_epoch:  # marked written once, dst stays so until the epoch moves
                ub.mark_written(*self.dense_span)
                self.dst_marked = ub.shadow_epoch
        else:
            ub.scatter(self.dense_index, src.take(relative, mode="wrap"))
        if plan.mask_words_after is not None:
            core.set_mask_words(*plan.mask_words_after)
        if plan.mask_mode_after is not None:
            core.set_mask_mode(plan.mask_mode_after)
        self.last = (relative, self.dense_index, self.first)

    def _absolute(self, relative: np.ndarray) -> np.ndarray:
        """UB element indices (int64) of a Gather's reads, from their indices relative to src + base."""
        read = relative.astype(np.int64)
        read += self.first
        return read

    def _reject_offset(self, offsets: np.ndarray) -> None:
        """Raise for the first offset that is misaligned or above the product's limit."""
        plan = self.plan
        itemsize = plan.dtype.itemsize
        k = int(np.flatnonzero((offsets % itemsize != 0) | (offsets > plan.limit))[0])
        raise ParameterRangeError(plan.name, f"{plan.kind.offsets}[{k}]", int(offsets[k]), f"an offset must be a "
                                  f"multiple of sizeof(T) = {itemsize} and at most {plan.limit} on this product",
                                  f"multiples of {itemsize} in [0, {plan.limit}]", f"{plan.kind.page} 约束说明")

    def _reject_bounds(self, offsets: np.ndarray) -> None:
        """Raise for the first (aligned) offset whose element lies past the end of the tensor it indexes."""
        plan, tensor = self.plan, self.indexed
        itemsize = plan.dtype.itemsize
        addrs = tensor.addr + plan.base + offsets.astype(np.int64)
        k = int(np.flatnonzero(addrs + itemsize > tensor.end)[0])
        tensor.check_span(plan.name, plan.kind.indexed, int(addrs[k]), int(addrs[k]) + itemsize)

    def _check_src(self, ub, read: np.ndarray, bounds: tuple[int, int]) -> None:
        """Report a never-written source element; skipped while the whole src tensor is known written
        (a Gather's reads move with its offsets, but stay inside src).  ``bounds``: the lowest and
        highest element of ``read``."""
        if self.src_seen == ub.shadow_epoch:
            return
        src = self.indexed if self.plan.kind is GATHER else None
        itemsize = self.plan.dtype.itemsize
        inside = src is not None and read.size and src.addr <= bounds[0] * itemsize and \
            (bounds[1] + 1) * itemsize <= src.end  # (the hardware policy lets reads run past src)
        if inside and ub.written[src.addr:src.end].all():
            self.src_seen = ub.shadow_epoch
            return
        ub.check_initialized(self.plan.name, "src", read, self.plan.dtype.itemsize)
        if self.plan.kind is SCATTER:  # its reads are the dense lanes: the same every call
            self.src_seen = ub.shadow_epoch

    def _indexed_elements(self, offsets: np.ndarray) -> tuple[np.ndarray, tuple[int, int]]:
        """The element indices the offsets (uint32) point at, after every documented check on them, and
        the lowest and highest of them.  Two reductions clear the usual call (the largest offset, and the
        offsets' OR, whose low bits show a misaligned one); the failing offset is looked for only then."""
        plan, tensor = self.plan, self.indexed
        name, page, label, itemsize = plan.name, plan.kind.page, plan.kind.offsets, plan.dtype.itemsize
        if not offsets.size:
            return offsets.astype(np.int64), (0, -1)
        low, high = int(offsets.min()), int(offsets.max())
        if high > plan.limit or int(np.bitwise_or.reduce(offsets)) % itemsize:
            self._reject_offset(offsets)
        start = tensor.addr + plan.base  # a multiple of sizeof(T), as every offset now is
        if start + high + itemsize > tensor.end:
            self._reject_bounds(offsets)
        first = start // itemsize
        elements = offsets.astype(np.int64)
        if itemsize > 1:
            elements >>= itemsize.bit_length() - 1
        elements += first
        if plan.kind is SCATTER:
            ordered = np.sort(elements)
            repeated = np.flatnonzero(ordered[1:] == ordered[:-1])
            if repeated.size:
                k = int(np.flatnonzero(elements == ordered[repeated[0]])[1])
                raise ParameterRangeError(name, f"{label}[{k}]", int(offsets[k]), "the offsets must be distinct "
                                          "(a repeated one gives an unpredictable result)", "distinct offsets",
                                          f"{page} 约束说明")
        return elements, (first + low // itemsize, first + high // itemsize)

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        read, written, first = self.last
        if first is not None:
            read = read.astype(np.int64) + first
        itemsize = self.plan.dtype.itemsize if self.plan.dtype else 1
        offsets = self.offset_bytes if self.offsets is not None else np.empty(0, np.int64)
        return (merge_ranges((*ranges_of_addresses("UB", element_bytes(read, itemsize)),
                              *ranges_of_addresses("UB", offsets))),
                merge_ranges(ranges_of_addresses("UB", element_bytes(written, itemsize))))




# ------------------------------------------------------------------ the API
_REVERSE = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)\n"
            "x.write(list(range(128)))\n"
            "off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 128)\n"
            "off.write([254 - 2 * i for i in range(128)])\n"
            "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 128)\n")


def _register(kind: Kind, summary: str, examples: tuple[str, ...]):
    return register(Instruction(
        kind.name, "ascend", "gather_scatter", "V", _forms(kind),
        lambda core, form, values: _compile(kind, core, form, values), f"{kind.page} 功能说明, 约束说明",
        support=lambda chip: kind.dtypes.get(chip.name), exactness=BIT_EXACT, summary=summary, examples=examples,
        plan_context=lambda core, form, values: () if form == "count" else (int(core.mask_mode),),
        fast_context=lambda core: (int(core.mask_mode),),
        doc=f"``{summary}`` ({kind.page}); the offsets are uint32 bytes, read and checked on every call.",
    ))


gather = _register(GATHER, "dst[i] = src[(src_base + src_offset[i]) / sizeof(T)]", (
    _REVERSE + "asc.gather(z, x, off, 0, 128)",
    _REVERSE + "asc.gather(z, x, off, 0, 64, 1, 8)",
    _REVERSE + "asc.gather(z, x, off, 0, [0xFF00FF00FF00FF00, 0xF], 1, 8)",
))
scatter = _register(SCATTER, "dst[(dst_base + dst_offset[i]) / sizeof(T)] = src[i]", (
    _REVERSE + "asc.scatter(z, x, off, 0, 128)",
    _REVERSE + "asc.scatter(z, x, off, 0, [0xFFFF, 0xFFFF0000], 1, 8)",
))
