"""Moves by a fixed index map: destination element ``k`` takes source element ``k``.

Several data-movement instructions compute nothing; they only put each source element at a
place that depends on the call's parameters alone: Transpose (16 x 16, and NCHW <-> NHWC),
Brcb (one element to a whole DataBlock), and Copy in counter mode with more than one
repeat's worth of elements per repeat.  Their plans are an :class:`IndexMove`: two
:class:`~..footprint.Footprint` s of equal length, relative to the operands' addresses, in
issue order.

* **bind** places the footprints at the tensors' addresses, checks bounds (each inside UB and
  inside its tensor) and overlap, by one of three rules (:data:`Overlap`).
* **run** reads every source element, then writes them; an element written twice keeps the
  value that comes last in issue order (``Memory.scatter``).

A move whose API works through a shared temporary buffer (the NCHW <-> NHWC Transpose) names it
as a third operand; the first ``scratch_bytes`` of it are in the call's writes and are left
*undefined* (``Memory.mark_undefined``): the vendor's intermediate values are not modelled, so a
later read of them is reported like a read of never-written bytes.  An API scratch at a fixed
place of UB (``fixed_scratch``, the 310P's Brcb) is treated alike, and no operand may lie in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ...dtypes import DType
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError
from ...lazy import cached_attribute
from ..core import Core
from ..footprint import OVERLAP_SOURCE, Footprint, check_clear_of_scratch, check_overlap, first_common
from ..masking import MaskWords
from ..operands import NEVER
from ..tensor import LocalTensor
from ..types import MaskMode
from .common import mask_registers_left, require_ub_tensor

__all__ = ["IndexMove", "IndexMoveBinding", "Overlap"]

#: ``"disjoint"``: dst and src share no byte (Brcb, the NCHW <-> NHWC transposes);
#: ``"in_place"``: disjoint, or dst is src exactly (the 16 x 16 Transpose);
#: ``"repeats"``: the general rules of docs/semantics.md §1.6, repeat by repeat (Copy).
Overlap = Literal["disjoint", "in_place", "repeats"]


@dataclass(eq=False)
class IndexMove:
    """A checked move, relative to its operands' addresses.

    Attributes:
        instruction: the instruction's name, for messages.
        dtype: the element type moved.
        dst, src: where element ``k`` goes to and comes from, relative to dst's and src's address.
        overlap: the overlap rule between dst and src (:data:`Overlap`).
        source: the page stating the overlap rule (``"disjoint"`` and ``"in_place"``).
        registers: registers a call reads.
        mask_words_after: the mask register value the call leaves, ``None`` if untouched.
        operands: the tensors that bind per call, in checking order (dst, src, then a tmp buffer).
        scratch_bytes: bytes at the start of the tmp buffer the call leaves undefined.
        scratch_source: the page that asks for the tmp buffer (or reserves the fixed scratch).
        fixed_scratch: ``[start, stop)`` of UB the API uses as scratch and leaves undefined.
        mask_mode_after: the mask mode the call leaves, ``None`` if untouched.
    """

    instruction: str
    dtype: DType
    dst: Footprint
    src: Footprint
    overlap: Overlap
    source: str = OVERLAP_SOURCE
    registers: tuple[str, ...] = ()
    mask_words_after: MaskWords | None = None
    operands: tuple[str, ...] = ("dst", "src")
    scratch_bytes: int = 0
    scratch_source: str = ""
    fixed_scratch: tuple[int, int] | None = None
    mask_mode_after: MaskMode | None = None

    def bind(self, core: Core, tensors: list[LocalTensor]) -> IndexMoveBinding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.instruction, label, tensor, core)
        dst, src = self.placed(*tensors)
        scratch = (tensors[2].addr, tensors[2].addr + self.scratch_bytes) if self.scratch_bytes else self.fixed_scratch
        return IndexMoveBinding(self, dst, src, scratch)

    def placed(self, dst_tensor: LocalTensor, src_tensor: LocalTensor,
               tmp: LocalTensor | None = None) -> tuple[Footprint, Footprint]:
        """The footprints at these tensors' addresses, checked for bounds and overlap."""
        dst, src = self.dst.moved(dst_tensor.addr), self.src.moved(src_tensor.addr)
        dst.check_in(self.instruction, dst_tensor)
        src.check_in(self.instruction, src_tensor)
        if self.overlap == "repeats":
            check_overlap(self.instruction, dst, src)
        elif dst.lo < src.hi and src.lo < dst.hi and not (self.overlap == "in_place" and dst.lo == src.lo):
            self._check_disjoint(dst, src)
        if tmp is not None and self.scratch_bytes:
            check_clear_of_scratch(self.instruction, tmp.addr, self.scratch_bytes, [dst, src], "shared_tmp_buffer",
                                   "that this call uses for its intermediate results", self.scratch_source)
        if self.fixed_scratch:
            start, stop = self.fixed_scratch
            check_clear_of_scratch(self.instruction, start, stop - start, [dst, src], "API scratch",
                                   "that this call overwrites (reserve the top 8 KiB of UB: 需要预留8KB)",
                                   self.scratch_source)
        return dst, src

    def _check_disjoint(self, dst: Footprint, src: Footprint) -> None:
        shared = first_common(dst.byte_addrs()[0], src.byte_addrs()[0])
        if shared is not None:
            rule = ("src and dst must be the same tensor exactly or not overlap" if self.overlap == "in_place"
                    else "src and dst must not overlap")
            raise OverlapError(self.instruction, "dst byte address", shared, f"{rule} (src reads it too)",
                               "disjoint byte ranges" + (" or dst is src" if self.overlap == "in_place" else ""),
                               self.source)


class IndexMoveBinding:
    """An :class:`IndexMove` at one placement: the element indices it reads and writes."""

    def __init__(self, plan: IndexMove, dst: Footprint, src: Footprint,
                 scratch: tuple[int, int] | None = None) -> None:
        self.plan = plan
        self.dst, self.src = dst, src
        self.scratch = scratch
        self.src_index = src.elem_index
        unique, first = np.unique(dst.elem_index[::-1], return_index=True)  # the last write of each element wins
        self.dst_index, self.pick = unique, dst.elem_index.size - 1 - first
        self.registers_read = plan.registers
        self.registers_written = mask_registers_left(plan.mask_words_after, plan.mask_mode_after)
        self.seen_written = NEVER

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges(ranges_of_addresses("UB", self.src.byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        scratch = [("UB", *self.scratch)] if self.scratch else []
        return merge_ranges([*ranges_of_addresses("UB", self.dst.byte_addrs()[0]), *scratch])

    def run(self, core: Core, values: tuple) -> None:
        """Read every source element, then write them (nothing changes before every read)."""
        ub, plan = core.ub, self.plan
        if self.seen_written != ub.shadow_epoch:
            ub.check_initialized(plan.instruction, "src", self.src_index, plan.dtype.itemsize)
            self.seen_written = ub.shadow_epoch
        moved = ub.data.view(plan.dtype.raw)[self.src_index]
        ub.scatter(self.dst_index, moved[self.pick])
        if self.scratch:
            ub.mark_undefined(np.arange(*self.scratch))
        if plan.mask_words_after is not None:
            core.set_mask_words(*plan.mask_words_after)
        if plan.mask_mode_after is not None:
            core.set_mask_mode(plan.mask_mode_after)
