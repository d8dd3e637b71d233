"""Sort (高阶API/排序操作/Sort.md), the form without SortConfig: pyasc ``asc.sort(dst, concat, index, tmp,
repeat_time, is_full_sort=False)``, the C++ ``Sort<T, isFullSort>``.

A composition of npusim's own instructions in the vendor's order
(``impl/basic_api/kernel_operator_proposal_intf_impl.h`` ``Sort``, and ``DoFullSort`` / ``FullSortInnerLoop`` /
``FullSortInnerLoopTail`` of ``dav_c220`` and ``dav_3510``, ``ComSortInnerLoopTail`` of
``kernel_operator_proposal_base_impl.h``), on the products whose sorted data are
(score, index) structures (排布方式一: A2, A3, 950):

1. ``Sort32(dst, concat, index, repeatTime)``: each run of 32 scores sorted (the whole call when not full sort);
2. full sort only: ``DataCopy(tmp, dst, n)`` (n: the structures' elements), then per merge level (``loop``: how
   often ``repeatTime`` queues are divided by 4, rounding up, until one is left): a MrgSort of the groups of four
   queues of ``L`` structures from tmp into dst (repeats = the whole groups), the tail group of 2 or 3 queues (or
   4 with a shorter last) merged alone, or a lone tail queue copied (``DataCopy``), then ``DataCopy(tmp, dst, n)``;
   ``L`` grows fourfold per level.

Every merge is stable with the earlier queue first, so the result is the stable descending sort of all
``32 * repeatTime`` (score, index) pairs, and tmp ends holding a copy of dst.  Each step is an instruction call:
its rules, access record and exactness are that instruction's (bit-exact).  The page's rules and those the
later steps would check (tmp's size and place) are checked before the first instruction, so a rejected call
changes nothing.  A copy of no elements (repeatTime 0) is left out.

Not modelled: the Atlas inference AI Core (排布方式二, region proposals: ProposalConcat, RpSort16, MrgSort4), the
Kirin products, and the forms with SortConfig (950 only).
"""

from __future__ import annotations

from ...errors import OverlapError, UnsupportedError
from ...validate import require_bool, require_int
from .. import pages
from ..chips import unsupported_on
from ..core import current_core
from ..masking import MAX_REPEAT
from ..tensor import LocalTensor
from ..types import MrgSort4Info, MrgSortSrcList
from .common import require_dtype, require_ub_tensor
from .data_copy import data_copy
from .merge_sort import QUEUES, mrg_sort
from .sort import SCORE_DTYPES, SORTED_PER_REPEAT, STRUCTURE_BYTES, sort32

__all__ = ["SORT_CHIPS", "merge_levels", "sort"]

NAME = "sort"
PAGE = pages.SORT_HIGH_LEVEL
SORT_CHIPS = frozenset({"A2", "A3", "950"})  # 排布方式一 on a product npusim has Sort32 for (产品支持情况)


def merge_levels(repeats: int) -> int:
    """``GetFullSortInnerLoopTimes``: how many merge levels bring ``repeats`` sorted queues down to one."""
    levels, queues = 0, repeats
    while queues > 1:
        queues = -(-queues // QUEUES)
        levels += 1
    return levels


def sort(dst: LocalTensor, concat: LocalTensor, index: LocalTensor, tmp: LocalTensor, repeat_time: int,
         is_full_sort: bool = False) -> None:
    """``Sort<T, is_full_sort>(dst, concat, index, tmp, repeat_time)`` (module docstring)."""
    core = current_core(NAME)
    if core.chip.name not in SORT_CHIPS:
        raise unsupported_on(core.chip, NAME, "sort (排布方式一)", lambda c: c.name in SORT_CHIPS,
                             f"{PAGE} 产品支持情况")
    full = require_bool(NAME, "is_full_sort", is_full_sort)
    for label, tensor in (("dst", dst), ("concat", concat), ("index", index), ("tmp", tmp)):
        require_ub_tensor(NAME, label, tensor, core)
    require_dtype(NAME, "dst", dst.dtype, SCORE_DTYPES, "T is half or float", f"{PAGE} 参数说明")
    for label, tensor in (("concat", concat), ("tmp", tmp)):
        if tensor.dtype != dst.dtype:
            raise UnsupportedError(NAME, f"{label} dtype", tensor.dtype.name, f"{label} has dst's dtype",
                                   dst.dtype.name, f"{PAGE} 参数说明")
    if index.dtype.name != "uint32":
        raise UnsupportedError(NAME, "index dtype", index.dtype.name, "the indices are uint32_t", "uint32",
                               f"{PAGE} 参数说明")
    repeats = require_int(NAME, "repeat_time", repeat_time, 0, MAX_REPEAT, f"{PAGE} 参数说明",
                          rule="repeatTime ∈ [0, 255]")
    nbytes = repeats * SORTED_PER_REPEAT * STRUCTURE_BYTES
    if full and nbytes:
        tmp.check_span(NAME, "tmp", tmp.addr, tmp.addr + nbytes)
        if tmp.addr < dst.addr + nbytes and dst.addr < tmp.addr + nbytes:  # MrgSort's rule, checked up front
            raise OverlapError(NAME, "tmp byte address", max(tmp.addr, dst.addr), "tmp overlaps dst: the merges "
                               "read tmp while they write dst", "disjoint byte ranges",
                               f"{PAGE} 参数说明 (tmp); {pages.MRG_SORT} 约束说明")
    sort32(dst, concat, index, repeats)
    if full and nbytes:
        _full_sort(dst, tmp, repeats)


def _full_sort(dst: LocalTensor, tmp: LocalTensor, repeats: int) -> None:
    """``DoFullSort``: merge the ``repeats`` sorted queues of 32 structures into one, level by level."""
    per_structure = STRUCTURE_BYTES // dst.dtype.itemsize  # elements of T per structure
    total = repeats * SORTED_PER_REPEAT  # structures
    elements = total * per_structure
    length = SORTED_PER_REPEAT
    queues = repeats
    tail_queues = repeats % QUEUES
    groups = repeats // QUEUES
    data_copy(tmp, dst, elements)
    for _ in range(merge_levels(repeats)):
        base = length * per_structure  # a queue's elements
        if groups > 0:
            sources = MrgSortSrcList(dst.dtype, tmp[0], tmp[base], tmp[2 * base], tmp[3 * base])
            mrg_sort(dst, sources, MrgSort4Info([length] * QUEUES, False, 15, groups))
        tail = total % length or length
        if tail_queues > 0:
            first = QUEUES * base * groups
            if tail_queues > 1:
                lengths = [length] * QUEUES
                lengths[tail_queues - 1] = tail
                lengths[tail_queues:] = [0] * (QUEUES - tail_queues)
                starts = [first + q * base if q < tail_queues else 0 for q in range(QUEUES)]
                sources = MrgSortSrcList(dst.dtype, *(tmp[s] for s in starts))
                mrg_sort(dst[first], sources, MrgSort4Info(lengths, False, (1 << tail_queues) - 1, 1))
            else:
                data_copy(dst[first], tmp[first], tail * per_structure)
        data_copy(tmp, dst, elements)
        length *= QUEUES
        queues = -(-queues // QUEUES)
        tail_queues = queues % QUEUES
        if tail_queues == 0 and tail != length:
            tail_queues = QUEUES
        groups = (queues - tail_queues) // QUEUES
