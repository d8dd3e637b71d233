"""The instruction sequences of the high-level Sort (:mod:`.sort_api`), one list of ``(instruction, args)``
per call, in the vendor's order (``impl/basic_api/kernel_operator_proposal_intf_impl.h`` ``Sort``;
``DoFullSort`` of ``dav_c220`` / ``dav_3510`` and of ``dav_m200``), for the two arrangements of the page
(Sort.md 功能说明):

* 排布方式一 (A2, A3, 950): 8-byte (score, index) structures, 32 per repeat: ``Sort32``, merged by ``MrgSort``;
* 排布方式二 (the Atlas inference AI Core): region proposals of 8 elements, 16 per repeat: the indices
  written into concat's proposals (:func:`index_steps`), ``RpSort16``, merged by ``MrgSort4``.

Full sort (:func:`full_sort_steps`, the same state machine on both): ``DataCopy(tmp, dst, n)`` (n: the
elements of all sorted records), then per merge level a merge of the whole groups of four queues of ``L``
records from tmp into dst, the tail group (2 or 3 queues, or 4 with a shorter last) merged alone or a lone
tail queue copied, and ``DataCopy(tmp, dst, n)``; ``L`` grows fourfold per level.  ``PipeBarrier<PIPE_V>``
where the vendor has one; a copy of no elements (repeatTime 0) is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..tensor import LocalTensor
from ..types import GatherMaskParams, MrgSort4Info, MrgSortSrcList, PipeID
from .data_copy import data_copy
from .gather_mask import gather_mask
from .merge_sort import QUEUES, mrg_sort, mrg_sort4
from .proposal import PER_REPEAT, PROPOSAL_ELEMENTS, proposal_concat, rp_sort16
from .sort import SORTED_PER_REPEAT, STRUCTURE_BYTES, sort32
from .sync import pipe_barrier

__all__ = ["PROPOSALS", "STRUCTURES", "Layout", "Step", "full_sort_steps", "gather_repeats", "index_steps",
           "merge_levels", "proposal_levels", "sort_steps"]

Step = tuple[Callable, tuple]
BARRIER: Step = (pipe_barrier, (PipeID.PIPE_V,))
#: kernel_operator_proposal_intf_impl.h: the fields the indices go to, and the GatherMask patterns that pick
#: the low (even) and high (odd) 16-bit halves of each uint32 index
Y1, LABEL = 1, 5
EVEN_HALVES, ODD_HALVES = 1, 2
GATHERED_PER_REPEAT = 64  # uint32 indices per GatherMask repeat of 256 bytes (128 halves, every second kept)
PROPOSAL_LOOP_STOP = 16  # dav_m200 GetFullSortInnerLoopTimes: divide by 4 while the count exceeds 16


def merge_levels(repeats: int) -> int:
    """``GetFullSortInnerLoopTimes(repeatTime)`` (dav_c220, dav_3510): how many merge levels bring
    ``repeats`` sorted queues down to one."""
    levels, queues = 0, repeats
    while queues > 1:
        queues = -(-queues // QUEUES)
        levels += 1
    return levels


def proposal_levels(concat_elements: int) -> int:
    """``GetFullSortInnerLoopTimes(concat.GetSize(), 16)`` (dav_m200): the levels come from concat's size in
    elements (not from repeatTime): divide by 4, rounding down, while more than 16 are left."""
    levels = 0
    while concat_elements > PROPOSAL_LOOP_STOP:
        concat_elements //= QUEUES
        levels += 1
    return levels


@dataclass(frozen=True)
class Layout:
    """One of the page's arrangements: its sorted records, the instructions and the merge-level count."""

    arrangement: str
    per_repeat: int  # records sorted per repeat
    proposals: bool  # region proposals of 8 elements (else 8-byte structures)
    merge: Callable

    def record_elements(self, itemsize: int) -> int:
        """Elements of T per sorted record."""
        return PROPOSAL_ELEMENTS if self.proposals else STRUCTURE_BYTES // itemsize

    def levels(self, repeats: int, concat: LocalTensor) -> int:
        return proposal_levels(concat.get_size()) if self.proposals else merge_levels(repeats)


STRUCTURES = Layout("排布方式一", SORTED_PER_REPEAT, False, mrg_sort)
PROPOSALS = Layout("排布方式二", PER_REPEAT, True, mrg_sort4)


def gather_repeats(repeats: int) -> int:
    """The half path's GatherMask repeats: the ``16 * repeats`` indices rounded up to 64 per repeat."""
    return -(-repeats * PER_REPEAT // GATHERED_PER_REPEAT)


def index_steps(dst: LocalTensor, concat: LocalTensor, index: LocalTensor, index_halves: LocalTensor | None,
                repeats: int) -> list[Step]:
    """排布方式二: the indices into concat's proposals.  half: each index's low half to y1 and its high half to
    label, gathered into dst first (``index_halves``: index's bytes as half, as far as the gathers read);
    float: the index bits to label."""
    if index_halves is None:
        return [(proposal_concat, (concat, index.reinterpret_cast(dst.dtype), repeats, LABEL)), BARRIER]
    params = (1, gather_repeats(repeats), 8, 0)  # src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride
    steps: list[Step] = []
    for pattern, field in ((EVEN_HALVES, Y1), (ODD_HALVES, LABEL)):
        if steps:
            steps.append(BARRIER)
        steps += [(gather_mask, (dst, index_halves, pattern, False, 0, GatherMaskParams(*params))), BARRIER,
                  (proposal_concat, (concat, dst, repeats, field))]
    return [*steps, BARRIER]


def sort_steps(layout: Layout, dst: LocalTensor, concat: LocalTensor, index: LocalTensor, repeats: int) -> list[Step]:
    """The per-repeat sort: Sort32 (排布方式一) or RpSort16 (排布方式二, after :func:`index_steps`)."""
    if layout.proposals:
        return [(rp_sort16, (dst, concat, repeats))]
    return [(sort32, (dst, concat, index, repeats))]


def full_sort_steps(layout: Layout, dst: LocalTensor, tmp: LocalTensor, repeats: int, levels: int) -> list[Step]:
    """``DoFullSort`` (module docstring): the merges of ``repeats`` sorted queues over ``levels`` levels."""
    dtype = dst.dtype
    per_record = layout.record_elements(dtype.itemsize)
    copy_per_record = STRUCTURE_BYTES // dtype.itemsize  # the lone tail's copy: 4 (half) / 2 (float) on both
    records = repeats * layout.per_repeat
    elements = records * per_record
    whole_copy = [(data_copy, (tmp, dst, elements))] if elements else []
    steps: list[Step] = [*whole_copy, BARRIER]
    length = layout.per_repeat
    queues, tail_queues, groups = repeats, repeats % QUEUES, repeats // QUEUES
    for _ in range(levels):
        base = length * per_record  # a queue's elements
        if groups > 0:
            sources = MrgSortSrcList(dtype, tmp[0], tmp[base], tmp[2 * base], tmp[3 * base])
            steps.append((layout.merge, (dst, sources, MrgSort4Info([length] * QUEUES, False, 15, groups))))
        steps.append(BARRIER)
        tail = records % length or length
        if tail_queues > 0:
            first = QUEUES * base * groups
            if tail_queues > 1:
                lengths = [length] * QUEUES
                lengths[tail_queues - 1] = tail
                lengths[tail_queues:] = [0] * (QUEUES - tail_queues)
                starts = [first + q * base if q < tail_queues else 0 for q in range(QUEUES)]
                sources = MrgSortSrcList(dtype, *(tmp[s] for s in starts))
                info = MrgSort4Info(lengths, False, (1 << tail_queues) - 1, 1)
                steps.append((layout.merge, (dst[first], sources, info)))
            else:
                steps.append((data_copy, (dst[first], tmp[first], tail * copy_per_record)))
        steps += [BARRIER, *whole_copy, BARRIER]
        length *= QUEUES
        queues = -(-queues // QUEUES)
        tail_queues = queues % QUEUES
        if tail_queues == 0 and tail != length:
            tail_queues = QUEUES
        groups = (queues - tail_queues) // QUEUES
    return steps
