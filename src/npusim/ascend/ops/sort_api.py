"""Sort (高阶API/排序操作/Sort.md), the form without SortConfig: pyasc ``asc.sort(dst, concat, index, tmp,
repeat_time, is_full_sort=False)``, the C++ ``Sort<T, isFullSort>``.

A composition of npusim's own instructions in the vendor's order (``impl/basic_api/
kernel_operator_proposal_intf_impl.h`` ``Sort``; :mod:`.sort_api_steps` lists the steps), per product in
one of the page's two arrangements (功能说明; :data:`SORT_LAYOUTS`):

* 排布方式一 (A2, A3, 950): ``Sort32(dst, concat, index, repeatTime)`` sorts each 32 scores with their uint32
  indices into 8-byte (score, index) structures; full sort merges them with ``MrgSort``
  (``DoFullSort`` of ``dav_c220`` / ``dav_3510``);
* 排布方式二 (the Atlas inference AI Core, ``__NPU_ARCH__`` 2002): concat holds region proposals
  ``[x1, y1, x2, y2, score, label, rsv, rsv]`` (Concat puts the scores at element 4); unless index is empty
  (``GetSize() == 0``) the indices are written into concat first: half: GatherMask (pattern 1, then 2) of the
  index's low and high 16-bit halves into dst, each then ``ProposalConcat`` to y1 (element 1) and label
  (element 5); float: the index bits ``ProposalConcat`` to label.  Then ``RpSort16(dst, concat, repeatTime)``
  sorts each 16 proposals, moving whole proposals; full sort merges them with ``MrgSort4`` (``DoFullSort`` of
  ``dav_m200``, whose level count comes from ``concat.GetSize()``).

Every merge is stable with the earlier queue first, so a full sort is the stable descending sort of all
records, and tmp ends holding a copy of dst.  Each step is an instruction call: its rules, access record
and exactness are that instruction's (bit-exact).  The page's rules, and every rule of every step (each step
is planned and bound, :func:`npusim.engine.dispatch.check_call`), are checked before the first instruction
runs, so a rejected call changes nothing (docs/semantics.md §5.15); under a raising never-written policy
the caller's bytes the region-proposal steps read are checked up front too.

Not modelled: the Kirin products.  The forms with SortConfig (950 only) are :mod:`.sort_config`'s
``sort_with_config``: same-shaped calls cannot share this name (docs/semantics.md §5.28).
"""

from __future__ import annotations

import numpy as np

from ...engine.dispatch import check_call
from ...errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError
from ...sources import semantics
from ...validate import require_bool, require_int
from .. import pages
from ..chips import unsupported_on
from ..core import current_core
from ..masking import MAX_REPEAT
from ..tensor import LocalTensor
from .common import require_dtype, require_ub_tensor
from .proposal import PROPOSAL_ELEMENTS, SCORE
from .sort import SCORE_DTYPES
from .sort_api_steps import (
    BARRIER,
    LABEL,
    PROPOSALS,
    STRUCTURES,
    Y1,
    Layout,
    Step,
    full_sort_steps,
    gather_repeats,
    index_steps,
    merge_levels,
    sort_steps,
)

__all__ = ["SORT_CHIPS", "SORT_LAYOUTS", "merge_levels", "sort"]

NAME = "sort"
PAGE = pages.SORT_HIGH_LEVEL
#: the arrangement per product npusim sorts on (产品支持情况, 功能说明)
SORT_LAYOUTS: dict[str, Layout] = {"A2": STRUCTURES, "A3": STRUCTURES, "950": STRUCTURES, "310P": PROPOSALS}
SORT_CHIPS = frozenset(SORT_LAYOUTS)
#: dav_m200 DoFullSort: from this concat.GetSize() on, its 7th level's uint16 queue length is 16 * 4**6 = 0
TOO_MANY_LEVELS = 17 * 4 ** 6
GATHER_REPEAT_BYTES = 256


def sort(dst: LocalTensor, concat: LocalTensor, index: LocalTensor, tmp: LocalTensor, repeat_time: int,
         is_full_sort: bool = False) -> None:
    """``Sort<T, is_full_sort>(dst, concat, index, tmp, repeat_time)`` (module docstring)."""
    core = current_core(NAME)
    layout = SORT_LAYOUTS.get(core.chip.name)
    if layout is None:
        raise unsupported_on(core.chip, NAME, "sort", lambda c: c.name in SORT_LAYOUTS, f"{PAGE} 产品支持情况")
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
    nbytes = repeats * layout.per_repeat * layout.record_elements(dst.dtype.itemsize) * dst.dtype.itemsize
    if full and nbytes:
        _check_tmp(dst, tmp, nbytes)
    levels = layout.levels(repeats, concat) if full else 0
    steps: list[Step] = []
    halves = None
    if layout.proposals:
        if full:
            _check_levels(concat, repeats, levels)
        halves = _index_halves(core, dst, index, repeats) if index.get_size() else None
        if index.get_size():
            steps += index_steps(dst, concat, index, halves, repeats)
    steps += sort_steps(layout, dst, concat, index, repeats)
    if full:
        steps += [BARRIER, *full_sort_steps(layout, dst, tmp, repeats, levels)]
    for function, args in steps:  # every step's rules, before the first step runs
        check_call(function, *args)
    if layout.proposals and core.ub.raises_on_uninitialized():
        _check_reads(core, concat, index if index.get_size() else None, halves, repeats, full)
    for function, args in steps:
        function(*args)


def _check_tmp(dst: LocalTensor, tmp: LocalTensor, nbytes: int) -> None:
    """tmp holds the sorted records (GetSortTmpSize: elemCount x 8 x sizeof(T) on the region-proposal
    products, 8 bytes per element on the others) and lies clear of dst (MrgSort's rule, checked up front)."""
    tmp.check_span(NAME, "tmp", tmp.addr, tmp.addr + nbytes)
    if tmp.addr < dst.addr + nbytes and dst.addr < tmp.addr + nbytes:
        raise OverlapError(NAME, "tmp byte address", max(tmp.addr, dst.addr), "tmp overlaps dst: the merges "
                           "read tmp while they write dst", "disjoint byte ranges",
                           f"{PAGE} 参数说明 (tmp); {pages.MRG_SORT} 约束说明")


def _check_levels(concat: LocalTensor, repeats: int, levels: int) -> None:
    """dav_m200 DoFullSort counts its levels from concat.GetSize(): two calls it cannot run (§5.15)."""
    source = f"{semantics('5.15')} (dav_m200 DoFullSort); {PAGE} 参数说明"
    if concat.get_size() >= TOO_MANY_LEVELS:
        raise ParameterRangeError(NAME, "concat size", concat.get_size(), "the full sort's level count comes from "
                                  "concat.GetSize(); from 69632 elements on, its 7th level's 16-bit queue length "
                                  "wraps to 0 and the vendor divides by it", f"< {TOO_MANY_LEVELS} elements", source)
    if repeats == 0 and levels >= 2:
        raise ParameterRangeError(NAME, "repeat_time", 0, f"a full sort of no proposals with concat of "
                                  f"{concat.get_size()} elements ({levels} levels): the vendor's second level "
                                  "merges four queues at a negative offset",
                                  "repeat_time >= 1, or concat.GetSize() < 68", source)


def _check_reads(core, concat: LocalTensor, index: LocalTensor | None, halves: LocalTensor | None, repeats: int,
                 full: bool) -> None:
    """Under a raising never-written policy, the bytes of the caller's tensors that the steps read, up front (a
    later step's raise would leave the earlier steps' writes): the indices (as far as the half gathers read),
    concat's scores (RpSort16), and with full sort every element of concat's proposals but y1 and label when
    the indices go there (the DataCopy steps copy whole proposals)."""
    ub, itemsize = core.ub, concat.dtype.itemsize
    if index is not None:
        stop = halves.end if halves is not None else index.addr + repeats * PROPOSALS.per_repeat * 4
        ub.check_initialized_span(NAME, "index", index.addr, stop)
    fields = [SCORE] if not full else [k for k in range(PROPOSAL_ELEMENTS) if index is None or k not in (Y1, LABEL)]
    proposal = np.arange(repeats * PROPOSALS.per_repeat, dtype=np.int64)[:, None] * PROPOSAL_ELEMENTS
    elements = concat.addr // itemsize + proposal + np.array(fields, dtype=np.int64)
    ub.check_initialized(NAME, "concat", elements.reshape(-1), itemsize)


def _index_halves(core, dst: LocalTensor, index: LocalTensor, repeats: int) -> LocalTensor | None:
    """The index's bytes as half, as far as the half path's GatherMasks read them (they take the address, so
    up to 256-byte repeats past the indices; §5.15), after index holds the ``16 * repeats`` indices (参数说明:
    index shape [n]); None for float."""
    count = repeats * PROPOSALS.per_repeat
    index.check_span(NAME, "index", index.addr, index.addr + count * index.dtype.itemsize)
    if dst.dtype.itemsize != 2:
        return None
    span = gather_repeats(repeats) * GATHER_REPEAT_BYTES
    if index.addr + span > core.ub.size_bytes:
        raise OutOfBoundsError(NAME, "index byte range", f"[{index.addr:#x}, {index.addr + span:#x})",
                               "the half path's GatherMask reads the indices in whole repeats of 256 bytes",
                               f"inside UB [0x0, {core.ub.size_bytes:#x})", f"{semantics('5.15')}; {PAGE} 参数说明")
    return LocalTensor.over_checked_bytes(core, dst.dtype, index.position, index.addr,
                                          span // dst.dtype.itemsize, index.lease)

