"""The merge sorts (``vmrgsort4``): up to four sorted queues into one, largest score first; and VMS4_SR.

Forms (pyasc ``basic/proposal.py``; the C API ``vector_compute/asc_mrgsort4.md``, ``asc_get_vms4_sr.md``)::

    mrg_sort(dst, sort_list: MrgSortSrcList, params: MrgSort4Info)                    # MrgSort.md
    mrg_sort(dst, sort_list, element_count_list, sorted_num, valid_bit, repeat_time,
             is_exhausted_suspension=False)                                           # 高阶API MrgSort-93.md
    mrg_sort4(dst, src: MrgSortSrcList, params: MrgSort4Info)                         # MrgSort4.md
    get_mrg_sort_result() -> (n1, n2, n3, n4)                                         # GetMrgSortResult.md
    asc_mrgsort4(dst, src: [4 tensors], repeat, element_length_0 .. 3, if_exhausted_suspension, valid_bit)
    asc_get_vms4_sr(sorted_num: list of 4)                                            # fills the list

What a queue holds (MrgSort.md 功能说明, MrgSort4.md 功能说明, MrgSort-93.md 排布方式):

* MrgSort (A2, A3, 310B, 950): 8-byte (score, index) structures as Sort32 writes them, the score
  (half or float) in the low bytes;
* MrgSort4 (310P half / float, 910 half), and the element-count form on the 310P: region proposals of
  8 elements ``[x1, y1, x2, y2, score, label, rsv, rsv]``, the score element 4.

``validBit`` 3 / 7 / 15 makes the first 2 / 3 / 4 queues take part; the merge takes at each step the head
with the largest score, of equal heads the lower queue's (约束说明: the earlier input first), in the order of
:mod:`.sort_order`, and copies whole structures (every byte, reserved ones included, and whether they were
ever written).  ``ifExhaustedSuspension``: the merge stops right after it takes the last structure of a
queue (MrgSort-93.md: 该队列已经全部排序到目的操作数); a queue of length 0 stops it before the first
step.  Repeat ``r`` reads and writes ``4 * length`` structures further on; more than one repeat needs four
queues of one length, stored one after the other, validBit 15 and no suspension (参数说明), else
the call is rejected.

VMS4_SR: a suspending merge leaves in it the structures it took from each queue (``GetMrgSortResultImpl``:
16 bits per queue, 13 on the 310P, wide enough for lengths up to 4095); ``get_mrg_sort_result`` reads it.
GetMrgSortResult.md requires the merge before it to suspend; npusim keeps the register undefined after
a merge that does not, and rejects the read then (and before any merge).

Rules: dst 32-byte aligned, MrgSort's queues 8-byte aligned, MrgSort4's operands 16 (half) / 32 (float),
the C API's 32; queue lengths in [0, 4095]; repeats in [0, 255] (MrgSort, NOP at 0 on the A2/A3, not
guaranteed one on the 950) or [1, 255] (MrgSort4, the element-count form, the C API's uint8 from 0); dst
may not overlap a queue.  Bit-exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from ..masking import MAX_REPEAT
from ..tensor import LocalTensor
from ..types import MrgSort4Info, MrgSortSrcList
from .common import (
    c_api_page,
    is_bool_arg,
    is_int_arg,
    is_tensor,
    record_pipe_barrier,
    require_c_api,
    require_dtype,
    require_ub_tensor,
)
from .sort import SCORE_DTYPES, SORT32_CHIPS
from .sort_order import merge_order, rank

__all__ = ["MergeLayout", "asc_get_vms4_sr", "asc_mrgsort4", "asc_mrgsort4_sync", "get_mrg_sort_result",
           "mrg_sort", "mrg_sort4"]

MAX_LENGTH = 4095  # elementLengths ∈ [0, 4095] (MrgSort.md 表3)
VALID_BITS = {3: 2, 7: 3, 15: 4}  # validBit -> queues that take part
QUEUES = 4
ALL_WRITTEN_WORD = np.uint64(2**64 - 1)  # a shadow word of 8 written bytes


@dataclass(frozen=True)
class MergeLayout:
    """How a queue's structures look: their size, where the score is, and the operands' alignment."""

    record_bytes: int
    score_offset: int
    dst_align: int
    src_align: int


def _pairs(dtype: DType) -> MergeLayout:  # MrgSort: 8-byte (score, index), dst 32 B, queues 8 B (约束说明)
    return MergeLayout(8, 0, 32, 8)


def _proposals(dtype: DType) -> MergeLayout:  # MrgSort4: proposals of 8 elements, 16 B (half) / 32 B (float)
    size = 8 * dtype.itemsize
    return MergeLayout(size, 4 * dtype.itemsize, size, size)


def _c_pairs(dtype: DType) -> MergeLayout:  # asc_mrgsort4: dst and src 32-byte aligned (约束说明)
    return MergeLayout(8, 0, 32, 32)


MRG_SORT_CHIPS = SORT32_CHIPS  # A2, A3, 310B, 950 (MrgSort.md 产品支持情况)
MRG_SORT4_DTYPES = {"310P": SCORE_DTYPES, "910": frozenset({"float16"})}  # MrgSort4.md 表1
COUNTS_FORM_CHIPS = frozenset({"A2", "A3", "950", "310P"})  # MrgSort-93.md 产品支持情况
RESULT_CHIPS = MRG_SORT_CHIPS | {"310P"}  # GetMrgSortResult.md 产品支持情况


def _mrg_sort_support(chip) -> frozenset[str] | None:
    if chip.name in MRG_SORT_CHIPS or chip.name in COUNTS_FORM_CHIPS:
        return SCORE_DTYPES
    return None


def _mrg_sort4_support(chip) -> frozenset[str] | None:
    return MRG_SORT4_DTYPES.get(chip.name)


# ----------------------------------------------------------------- the plan
@dataclass(frozen=True)
class MergeCall:
    """A merge's parameters, checked: what every form of every API turns into."""

    name: str
    page: str
    dtype: DType
    layout: MergeLayout
    lengths: tuple[int, int, int, int]
    queues: int
    suspend: bool
    repeats: int


def check_merge(name: str, page: str, core: Core, dst, sources: tuple, dtype_label: DType | None,
                layout_of, lengths, valid_bit, repeats, suspend, allowed: frozenset[str], low_repeat: int,
                labels: tuple[str, ...]) -> tuple[MergeCall, LocalTensor, tuple]:
    """Every parameter rule of a merge; returns the call and its tensors (``labels``: the queues' names)."""
    if not isinstance(dst, LocalTensor):
        raise TypeError(f"{name}: dst must be a LocalTensor, got {type(dst).__name__}")
    layout = layout_of(dst.dtype) if dst.dtype.itemsize in (2, 4) else _pairs(dst.dtype)
    aligned = f"{page} 约束说明"
    dst = require_ub_tensor(name, "dst", dst, core, layout.dst_align, aligned)
    dtype = dst.dtype
    require_dtype(name, "dst", dtype, allowed, f"{name} sorts half or float scores on {core.chip.product}",
                  f"{page} {'函数原型' if page.startswith(pages.C_API) else '参数说明'}")
    if dtype_label is not None and dtype_label != dtype:
        raise UnsupportedError(name, "sort_list dtype", getattr(dtype_label, "name", dtype_label),
                               "the queues' element type is dst's", dtype.name, f"{page} 参数说明")
    if not isinstance(lengths, (list, tuple)) or len(lengths) != QUEUES:
        raise TypeError(f"{name}: the queue lengths must be a list of 4 ints, got {lengths!r}")
    lengths = tuple(require_int(name, f"element_lengths[{i}]", n, 0, MAX_LENGTH, f"{page} 参数说明",
                                rule="elementLengths ∈ [0, 4095]") for i, n in enumerate(lengths))
    valid_bit = require_int(name, "valid_bit", valid_bit, 0, 15, f"{page} 参数说明", rule="validBit is 3, 7 or 15")
    if valid_bit not in VALID_BITS:
        raise ParameterRangeError(name, "valid_bit", valid_bit, "validBit selects the first 2, 3 or 4 queues",
                                  "3, 7 or 15", f"{page} 参数说明")
    queues = VALID_BITS[valid_bit]
    suspend = require_bool(name, "if_exhausted_suspension", suspend)
    repeats = require_int(name, "repeat_times", repeats, low_repeat, MAX_REPEAT, f"{page} 参数说明",
                          rule=f"repeatTimes ∈ [{low_repeat}, 255]")
    tensors = []
    for q, (label, tensor) in enumerate(zip(labels, sources, strict=True)):
        if q < queues:
            if not isinstance(tensor, LocalTensor):
                raise TypeError(f"{name}: {label} must be a LocalTensor (queue {q + 1} takes part: valid_bit "
                                f"{valid_bit}), got {type(tensor).__name__}")
            tensor = require_ub_tensor(name, label, tensor, core, layout.src_align, aligned)
            if tensor.dtype != dtype:
                raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, "the queues have dst's dtype",
                                       dtype.name, f"{page} 参数说明")
        tensors.append(tensor)
    if repeats > 1:
        rule = None
        if queues != QUEUES:
            rule = "validBit = 15"
        elif len(set(lengths)) != 1:
            rule = "four queues of one length"
        elif suspend:
            rule = "ifExhaustedSuspension = false"
        if rule is not None:
            raise ParameterRangeError(name, "repeat_times", repeats, f"more than one repeat needs {rule}",
                                      "1, or the four conditions of the page", f"{page} 参数说明 (repeatTimes)")
    if repeats == 0 and not core.chip.zero_repeat_nop:
        raise ParameterRangeError(name, "repeat_times", 0, f"repeatTimes = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{page} 约束说明; {semantics('1.9')}")
    call = MergeCall(name, page, dtype, layout, lengths, queues, suspend, repeats)
    return call, dst, tuple(tensors)


@dataclass(eq=False)
class Merge:
    """A checked merge, relative to its operands.

    Attributes:
        call: the checked parameters.
        operands: the parameters that bind per call: dst and the queues (a MrgSortSrcList or a list).
        unpack: the queue tensors of the bound queue operand.
        labels: the queues' names in messages.
        counts_out: the parameter that receives the counts of a suspending merge (``sorted_num``), or None.
        synced: a ``*_sync`` C API call: a ``pipe_barrier(PIPE_ALL)`` follows.
    """

    call: MergeCall
    operands: tuple[str, ...]
    unpack: object
    labels: tuple[str, ...]
    counts_out: int | None = None
    synced: bool = False

    def bind(self, core: Core, values: list) -> MergeBinding:
        call = self.call
        aligned = f"{call.page} 约束说明"
        dst = require_ub_tensor(call.name, "dst", values[0], core, call.layout.dst_align, aligned)
        queues = self.unpack(values[1])[: call.queues]
        for label, tensor in zip(self.labels, queues, strict=False):
            require_ub_tensor(call.name, label, tensor, core, call.layout.src_align, aligned)
        return MergeBinding(self, dst, tuple(queues))


class MergeBinding:
    """A :class:`Merge` at one placement: the structure addresses of each queue, per repeat."""

    def __init__(self, plan: Merge, dst: LocalTensor, queues: tuple[LocalTensor, ...]) -> None:
        self.plan = plan
        call = plan.call
        rec = call.layout.record_bytes
        per_repeat = sum(call.lengths[: call.queues]) if call.repeats < 2 else QUEUES * call.lengths[0]
        stride = per_repeat * rec  # MrgSort.md 表3: each repeat skips the four queues' total length
        self.starts = [[t.addr + r * stride for t in queues] for r in range(call.repeats)]
        self.dst_starts = [dst.addr + r * stride for r in range(call.repeats)]
        spans = []
        for q, (label, tensor) in enumerate(zip(plan.labels, queues, strict=False)):
            stop = tensor.addr + (call.repeats - 1) * stride + call.lengths[q] * rec
            if call.repeats and call.lengths[q]:
                tensor.check_span(call.name, label, tensor.addr, stop)
                spans.append((label, tensor.addr, stop))
        self.sources = spans
        dst_stop = dst.addr + (call.repeats - 1) * stride + per_repeat * rec if call.repeats else dst.addr
        if dst_stop > dst.addr:
            dst.check_span(call.name, "dst", dst.addr, dst_stop)
        for label, start, stop in spans:
            if start < dst_stop and dst.addr < stop:
                raise OverlapError(call.name, "dst byte address", max(start, dst.addr), f"dst overlaps {label}",
                                   "disjoint byte ranges", f"{call.page} 约束说明")
        if call.repeats > 1:
            for q in range(1, QUEUES):
                want = queues[0].addr + q * call.lengths[0] * rec
                if queues[q].addr != want:
                    raise ParameterRangeError(call.name, "repeat_times", call.repeats, "more than one repeat "
                                              "needs the four queues stored one after the other",
                                              f"{plan.labels[q]} at {want:#x}", f"{call.page} 参数说明 (repeatTimes)")
        self.registers_read = ()
        self.registers_written = ("VMS4_SR",) if call.repeats else ()
        self.ranges_after_run = call.suspend
        self.taken = [per_repeat] * call.repeats

    @property
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges(("UB", start, stop) for _, start, stop in self.sources)

    @property
    def writes(self) -> tuple[ByteRange, ...]:
        rec = self.plan.call.layout.record_bytes
        return merge_ranges(("UB", start, start + n * rec) for start, n in zip(self.dst_starts, self.taken,
                                                                               strict=True))

    def ranges(self, values: tuple) -> tuple[tuple[ByteRange, ...], tuple[ByteRange, ...]]:
        return self.reads, self.writes

    def run(self, core: Core, values: tuple) -> None:
        call, ub = self.plan.call, core.ub
        if not call.repeats:
            return
        layout, itemsize = call.layout, call.dtype.itemsize
        words = layout.record_bytes // 8
        picked, placed, counts = [], [], (0,) * QUEUES
        for starts, dst in zip(self.starts, self.dst_starts, strict=True):
            lengths = call.lengths[: call.queues]
            score_index = [(s + layout.score_offset) // itemsize + layout.record_bytes // itemsize *
                           np.arange(n, dtype=np.int64) for s, n in zip(starts, lengths, strict=True)]
            for label, index in zip(self.plan.labels, score_index, strict=False):
                ub.check_initialized(call.name, label, index, itemsize)
            keys = [rank(ub.data.view(call.dtype.raw)[index], call.dtype) for index in score_index]
            queue, position = merge_order(keys, call.suspend)
            first_word = np.array([s // 8 for s in starts], np.int64)[queue] + position * words
            picked.append((first_word[:, None] + np.arange(words, dtype=np.int64)).reshape(-1))
            placed.append(dst // 8 + np.arange(first_word.size * words, dtype=np.int64))
            counts = tuple(int(np.count_nonzero(queue == q)) for q in range(QUEUES))
        source, target = np.concatenate(picked), np.concatenate(placed)
        data, written = ub.data.view(np.uint64), ub.written.view(np.uint64)
        moved, shadow = data[source], written[source]  # whether each byte was ever written travels with it
        unwritten = not bool((shadow == ALL_WRITTEN_WORD).all())
        self._commit(core, values, data, written, target, moved, shadow, unwritten, counts,
                     [p.size // words for p in placed])

    def _commit(self, core: Core, values: tuple, data, written, target, moved, shadow, unwritten: bool,
                counts: tuple, taken: list[int]) -> None:
        data[target] = moved
        written[target] = shadow
        if unwritten:
            core.ub.shadow_epoch += 1  # bytes became never-written: plans that remember a clean shadow look again
        self.taken = taken
        suspend = self.plan.call.suspend
        core.vms4_sr = counts if suspend else None
        if self.plan.counts_out is not None and suspend:
            values[self.plan.counts_out][:] = list(counts)
        if self.plan.synced:
            record_pipe_barrier(core)


def _source_list(sources: MrgSortSrcList) -> tuple:
    return sources.sources


def _source_seq(sources) -> tuple:
    return tuple(sources)


_LIST_LABELS = ("sort_list.src1", "sort_list.src2", "sort_list.src3", "sort_list.src4")


def _is_source_list(value) -> bool:
    return isinstance(value, MrgSortSrcList)


def _is_info(value) -> bool:
    return isinstance(value, MrgSort4Info)


def _is_int_list(value) -> bool:
    return isinstance(value, (list, tuple))


def _info_fields(name: str, info: MrgSort4Info, page: str) -> tuple:
    lengths, suspend, valid_bit, repeats = info.astuple()
    valid_bit = require_uint(name, "params.valid_bit", valid_bit, 16, MrgSort4Info.SOURCE)
    repeats = require_uint(name, "params.repeat_times", repeats, 16, MrgSort4Info.SOURCE)
    return lengths, suspend, valid_bit, repeats


# ----------------------------------------------------------------- mrg_sort / mrg_sort4
MRG_SORT_FORMS = (
    Form("info", (Param("dst", is_tensor), Param("sort_list", _is_source_list), Param("params", _is_info))),
    Form("counts", (Param("dst", is_tensor), Param("sort_list", _is_source_list),
                    Param("element_count_list", _is_int_list), Param("sorted_num", _is_int_list),
                    Param("valid_bit", is_int_arg), Param("repeat_time", is_int_arg),
                    Param("is_exhausted_suspension", is_bool_arg, False))),
)


def _compile_mrg_sort(core: Core, form: str, bound: dict) -> Merge:
    sources = bound["sort_list"]
    if form == "info":
        if core.chip.name not in MRG_SORT_CHIPS:
            raise unsupported_on(core.chip, "mrg_sort", "mrg_sort", lambda c: c.name in MRG_SORT_CHIPS,
                                 f"{pages.MRG_SORT} 产品支持情况")
        lengths, suspend, valid_bit, repeats = _info_fields("mrg_sort", bound["params"], pages.MRG_SORT)
        call, _, _ = check_merge("mrg_sort", pages.MRG_SORT, core, bound["dst"], sources.sources, sources.dtype,
                                 _pairs, lengths, valid_bit, repeats, suspend, SCORE_DTYPES, 0, _LIST_LABELS)
        return _planned(core, Merge(call, ("dst", "sort_list"), _source_list, _LIST_LABELS), bound, "sort_list")
    page = pages.MRG_SORT_HIGH_LEVEL
    if core.chip.name not in COUNTS_FORM_CHIPS:
        raise unsupported_on(core.chip, "mrg_sort", "mrg_sort (element counts)",
                             lambda c: c.name in COUNTS_FORM_CHIPS, f"{page} 产品支持情况")
    sorted_num = bound["sorted_num"]
    if not isinstance(sorted_num, list) or len(sorted_num) != QUEUES:
        raise TypeError(f"mrg_sort: sorted_num must be a list of 4 (it receives the counts), got {sorted_num!r}")
    layout = _proposals if core.chip.name == "310P" else _pairs  # 排布方式二 on the 310P (功能说明)
    call, _, _ = check_merge("mrg_sort", page, core, bound["dst"], sources.sources, sources.dtype, layout,
                             bound["element_count_list"], bound["valid_bit"], bound["repeat_time"],
                             bound["is_exhausted_suspension"], SCORE_DTYPES, 1, _LIST_LABELS)
    return _planned(core, Merge(call, ("dst", "sort_list"), _source_list, _LIST_LABELS, counts_out=3), bound,
                    "sort_list")


def _planned(core: Core, plan: Merge, bound: dict, sources: str) -> Merge:
    plan.bind(core, [bound["dst"], bound[sources]])  # the address rules at this call's addresses
    return plan


_PAIR_SETUP = ("s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)\n"
               "s.write([float((i * 53) % 128) for i in range(128)])\n"
               "ix = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 512, 128)\n"
               "ix.write(list(range(128)))\n"
               "w = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 256)\n"
               "asc.sort32(w, s, ix, 4)\n"
               "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 256)\n"
               "q = asc.MrgSortSrcList(asc.float32, w[0], w[64], w[128], w[192])\n")

mrg_sort = register(Instruction(
    "mrg_sort", "ascend", "sort", "V", MRG_SORT_FORMS, _compile_mrg_sort,
    f"{pages.MRG_SORT} 功能说明, 参数说明, 约束说明; {pages.MRG_SORT_HIGH_LEVEL}", support=_mrg_sort_support,
    exactness=BIT_EXACT,
    summary="merge 2-4 queues of (score, index) structures sorted by score into one, largest first, stable",
    examples=(_PAIR_SETUP + "asc.mrg_sort(z, q, asc.MrgSort4Info([32, 32, 32, 32], False, 15, 1))",
              _PAIR_SETUP + "asc.mrg_sort(z, q, asc.MrgSort4Info([32, 16, 8, 0], True, 7, 1))",
              _PAIR_SETUP + "asc.mrg_sort(z, q, [32, 32, 32, 32], [0, 0, 0, 0], 15, 1, True)"),
    fast_context=lambda core: (),
    doc=f"``mrg_sort(dst, sort_list, MrgSort4Info(...))`` ({pages.MRG_SORT} 函数原型) and ``mrg_sort(dst, sort_list, "
        f"element_count_list, sorted_num, valid_bit, repeat_time, is_exhausted_suspension)`` "
        f"({pages.MRG_SORT_HIGH_LEVEL} 函数原型; sorted_num receives the counts of a suspending merge); order: "
        f"{semantics('5.15')}.",
))

MRG_SORT4_FORMS = (Form("", (Param("dst", is_tensor), Param("src", _is_source_list), Param("params", _is_info))),)
_SRC_LABELS = ("src.src1", "src.src2", "src.src3", "src.src4")


def _compile_mrg_sort4(core: Core, form: str, bound: dict) -> Merge:
    allowed = _mrg_sort4_support(core.chip)
    if allowed is None:
        raise unsupported_on(core.chip, "mrg_sort4", "mrg_sort4", lambda c: _mrg_sort4_support(c) is not None,
                             f"{pages.MRG_SORT4} 产品支持情况")
    sources = bound["src"]
    lengths, suspend, valid_bit, repeats = _info_fields("mrg_sort4", bound["params"], pages.MRG_SORT4)
    call, _, _ = check_merge("mrg_sort4", pages.MRG_SORT4, core, bound["dst"], sources.sources, sources.dtype,
                             _proposals, lengths, valid_bit, repeats, suspend, allowed, 1, _SRC_LABELS)
    return _planned(core, Merge(call, ("dst", "src"), _source_list, _SRC_LABELS), bound, "src")


mrg_sort4 = register(Instruction(
    "mrg_sort4", "ascend", "sort", "V", MRG_SORT4_FORMS, _compile_mrg_sort4,
    f"{pages.MRG_SORT4} 功能说明, 参数说明, 约束说明", support=_mrg_sort4_support, exactness=BIT_EXACT,
    summary="merge 2-4 queues of region proposals sorted by score (element 4) into one, largest first, stable",
    examples=("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)\n"  # runs on its products (310P, 910)
              "x.write([float(100 - 8 * (i // 8)) if i % 8 == 4 else float(i % 8) for i in range(128)])\n"
              "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 128)\n"
              "asc.mrg_sort4(z, asc.MrgSortSrcList(asc.float16, x[0], x[32], x[64], x[96]), "
              "asc.MrgSort4Info([4, 4, 4, 4], False, 15, 1))",),
    fast_context=lambda core: (),
    doc=f"``mrg_sort4(dst, src, MrgSort4Info(...))``: region proposals, the Atlas inference AI Core and the "
        f"Atlas training series; order: {semantics('5.15')}; {pages.MRG_SORT4} 功能说明",
))


# ----------------------------------------------------------------- VMS4_SR
class MergeResult(SelfBinding):
    """``GetMrgSortResult``: the VMS4_SR register, the structures the last suspending merge took per queue."""

    registers_read = ("VMS4_SR",)

    def __init__(self, name: str, page: str, out: int | None = None) -> None:
        self.name, self.page, self.out = name, page, out

    def run(self, core: Core, values: tuple):
        counts = core.vms4_sr
        if counts is None:
            raise UnsupportedError(self.name, "VMS4_SR", "undefined", "the merge sort before it must run with "
                                   "ifExhaustedSuspension = true (no such merge since the core started, or a "
                                   "later one did not suspend)", "a suspending mrg_sort first",
                                   f"{self.page} 约束说明; {semantics('5.15')}")
        if self.out is None:
            return counts
        values[self.out][:] = list(counts)
        return None


_RESULT = MergeResult("get_mrg_sort_result", pages.GET_MRG_SORT_RESULT)


def _compile_result(core: Core, form: str, bound: dict) -> MergeResult:
    if core.chip.name not in RESULT_CHIPS:
        raise unsupported_on(core.chip, "get_mrg_sort_result", "get_mrg_sort_result",
                             lambda c: c.name in RESULT_CHIPS, f"{pages.GET_MRG_SORT_RESULT} 产品支持情况")
    return _RESULT


get_mrg_sort_result = register(Instruction(
    "get_mrg_sort_result", "ascend", "register", "S", (Form("", ()),), _compile_result,
    f"{pages.GET_MRG_SORT_RESULT} 功能说明, 约束说明",
    support=lambda chip: SCORE_DTYPES if chip.name in RESULT_CHIPS else None,
    summary="VMS4_SR: the structures the last suspending merge sort took from each of its 4 queues",
    examples=(_PAIR_SETUP + "asc.mrg_sort(z, q, asc.MrgSort4Info([32, 32, 32, 32], True, 15, 1))\n"
              "asc.get_mrg_sort_result()",),
    fast_context=lambda core: (),
    doc=f"``get_mrg_sort_result() -> (n1, n2, n3, n4)``: VMS4_SR after a suspending merge; "
        f"{pages.GET_MRG_SORT_RESULT} 功能说明",
))


# ----------------------------------------------------------------- the C API
C_FORMS = (Form("", (Param("dst", is_tensor), Param("src", _is_int_list), Param("repeat", is_int_arg),
                     *(Param(f"element_length_{i}", is_int_arg) for i in range(QUEUES)),
                     Param("if_exhausted_suspension", is_bool_arg), Param("valid_bit", is_int_arg))),)
_C_LABELS = ("src[0]", "src[1]", "src[2]", "src[3]")


def _c_api_support(chip) -> frozenset[str] | None:
    return SCORE_DTYPES if chip.c_api and chip.name in MRG_SORT_CHIPS else None


def _c_mrgsort4_entry(name: str):
    page = c_api_page(name)

    def compile_(core: Core, form: str, bound: dict) -> Merge:
        require_c_api(core, name)
        sources = bound["src"]
        if len(sources) != QUEUES:
            raise TypeError(f"{name}: src is an array of 4 queue addresses, got {len(sources)}")
        repeat = require_uint(name, "repeat", bound["repeat"], 8, f"{page} 函数原型")
        lengths = [bound[f"element_length_{i}"] for i in range(QUEUES)]
        valid_bit = require_uint(name, "valid_bit", bound["valid_bit"], 8, f"{page} 函数原型")
        call, _, _ = check_merge(name, page, core, bound["dst"], tuple(sources), None, _c_pairs, lengths, valid_bit,
                                 repeat, bound["if_exhausted_suspension"], SCORE_DTYPES, 0, _C_LABELS)
        return _planned(core, Merge(call, ("dst", "src"), _source_seq, _C_LABELS, synced=name.endswith("_sync")),
                        bound, "src")

    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if name.endswith("_sync") else ""
    return register(Instruction(
        name, "ascend", "sort", "V", C_FORMS, compile_, f"{page} 参数说明, 约束说明", support=_c_api_support,
        exactness=BIT_EXACT, summary="vmrgsort4: MrgSort of the C API", alias_of="mrg_sort",
        examples=(_PAIR_SETUP + f"asc.{name}(z, [w[0], w[64], w[128], w[192]], 1, 32, 32, 32, 32, False, 15)",),
        fast_context=lambda core: (),
        doc=f"``{name}(dst, src, repeat, element_length_0 .. 3, if_exhausted_suspension, valid_bit)``: MrgSort "
            f"({page}).{barrier}",
    ))


asc_mrgsort4 = _c_mrgsort4_entry("asc_mrgsort4")
asc_mrgsort4_sync = _c_mrgsort4_entry("asc_mrgsort4_sync")

_C_RESULT = MergeResult("asc_get_vms4_sr", c_api_page("asc_get_vms4_sr"), out=0)


def _compile_c_result(core: Core, form: str, bound: dict) -> MergeResult:
    require_c_api(core, "asc_get_vms4_sr")
    out = bound["sorted_num"]
    if not isinstance(out, list) or len(out) != QUEUES:
        raise TypeError(f"asc_get_vms4_sr: sorted_num must be a list of 4 (it receives the counts), got {out!r}")
    return _C_RESULT


asc_get_vms4_sr = register(Instruction(
    "asc_get_vms4_sr", "ascend", "register", "S", (Form("", (Param("sorted_num", _is_int_list),)),),
    _compile_c_result, f"{c_api_page('asc_get_vms4_sr')} 参数说明, 约束说明",
    support=lambda chip: SCORE_DTYPES if chip.c_api else None,
    summary="VMS4_SR into sorted_num[0 .. 4): the structures the last suspending merge took per queue",
    examples=(_PAIR_SETUP + "asc.mrg_sort(z, q, asc.MrgSort4Info([32, 32, 32, 32], True, 15, 1))\n"
              "asc.asc_get_vms4_sr([0, 0, 0, 0])",),
    fast_context=lambda core: (), alias_of="get_mrg_sort_result",
    doc="``asc_get_vms4_sr(sorted_num)``: fills the list with VMS4_SR's four counts.",
))
