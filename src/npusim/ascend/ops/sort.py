"""Sort32 (排序组合/Sort32.md, ``vbitsort``): sort 32 scores per repeat, largest first, with their indices.

Forms (pyasc ``basic/proposal.py``; the C API ``asc_bitsort``, ``vector_compute/asc_bitsort.md``)::

    sort32(dst, src0, src1, repeat_time)
    asc_bitsort(dst, src0, src1, repeat)        asc_bitsort_sync(...)   # + pipe_barrier(PIPE_ALL)

Repeat ``r`` reads the 32 scores ``src0[32r .. 32r + 32)`` (half or float) and the 32 uint32 indices
``src1[32r .. 32r + 32)``, and writes 32 structures of 8 bytes at ``dst + 256 r``, in score order
(:mod:`.sort_order`: largest first, ties in input order; NaN and signed zero: docs/semantics.md §5.15).
Structure ``k``: the score in bytes 0-3 (float) or 0-1 (half), the index in bytes 4-7 (功能说明).
Bytes 2-3 of a half structure are reserved (保留): the device writes whole structures, and what it puts there
is not documented; npusim leaves their content as it was and counts them written (in the call's writes and
its written-shadow), so that moving whole structures later (MrgSort, DataCopy) reads no never-written byte.

Strides: the parameter table says src0 advances 128 bytes per repeat; the C API page says 32
elements, and the constraint section 128 B for float, 64 B for half.  32 half scores are 64 bytes,
so src0 advances 32 elements (errata: docs/numerics.md).  The constraint "每次迭代输入src0要求128B(float)/
64B(half)对齐，src1要求128B对齐，输出dst要求256B对齐" is read as those per-repeat sizes: the start
addresses are 32-byte aligned (参数说明, and asc_bitsort.md 约束说明).

Rules: ``repeat_time`` in [0, 255]; 0 is a NOP on the A2/A3 and not guaranteed one on the 950
(rejected there); dst may not overlap a source within a repeat, nor a source a later repeat reads
(通用地址重叠约束, docs/semantics.md §1.6).  Products: A2, A3, 310B, 950 (产品支持情况); the C API on
the A2/A3 (the page lists the 950 too, npusim's C API is A2/A3 only, docs/semantics.md §2.6).
Sorting moves bytes: bit-exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES, DType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int, require_uint
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from ..footprint import bytes_footprint, check_overlap
from ..masking import MAX_REPEAT
from ..operands import NEVER
from ..tensor import LocalTensor
from .common import c_api_page, is_int_arg, is_tensor, require_c_api, require_dtype, require_ub_tensor
from .move_c_api import Synced
from .sort_order import rank, stable_descending
from .vector_transpose import Nothing

__all__ = ["SCORE_DTYPES", "SORTED_PER_REPEAT", "STRUCTURE_BYTES", "asc_bitsort", "asc_bitsort_sync",
           "get_sort_len", "get_sort_offset", "sort32", "sort32_plan", "sorted_elements"]

NAME = "sort32"
PAGE = pages.SORT32
SORTED_PER_REPEAT = 32
STRUCTURE_BYTES = 8  # (score, index): 8 bytes for half and float alike (功能说明)
SCORE_DTYPES = frozenset({"float16", "float32"})
SORT32_CHIPS = frozenset({"A2", "A3", "310B", "950"})
FLOAT32 = DTYPES["float32"]


def _support(chip) -> frozenset[str] | None:
    return SCORE_DTYPES if chip.name in SORT32_CHIPS else None


FORMS = (Form("", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                   Param("repeat_time", is_int_arg))),)
C_FORMS = (Form("", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                     Param("repeat", is_int_arg))),)


def _compile(core: Core, form: str, bound: dict):
    return sort32_plan(NAME, core, bound["dst"], bound["src0"], bound["src1"], bound["repeat_time"], "repeat_time",
                       PAGE)


def sort32_plan(name: str, core: Core, dst, src0, src1, repeats, repeat_label: str, page: str):
    """The checked plan of a Sort32 call (``name``: the API called, ``page`` its page)."""
    if _support(core.chip) is None:
        raise unsupported_on(core.chip, name, name, lambda c: _support(c) is not None, f"{page} 产品支持情况")
    dst = require_ub_tensor(name, "dst", dst, core)
    src0 = require_ub_tensor(name, "src0", src0, core)
    src1 = require_ub_tensor(name, "src1", src1, core)
    types = f"{page} 数据类型" if page == PAGE else f"{page} 函数原型"
    require_dtype(name, "dst", dst.dtype, SCORE_DTYPES, "the scores are half or float", types)
    if src0.dtype != dst.dtype:
        raise UnsupportedError(name, "src0 dtype", src0.dtype.name, "src0 must have dst's dtype", dst.dtype.name,
                               types)
    if src1.dtype.name != "uint32":
        raise UnsupportedError(name, "src1 dtype", src1.dtype.name, "the indices are uint32_t", "uint32",
                               types if page != PAGE else f"{page} 参数说明")
    repeats = require_int(name, repeat_label, repeats, 0, MAX_REPEAT, f"{page} 参数说明",
                          rule="repeatTime ∈ [0, 255]")
    if repeats == 0:
        if not core.chip.zero_repeat_nop:
            raise ParameterRangeError(name, repeat_label, 0, f"repeatTime = 0 is not guaranteed to be a NOP on "
                                      f"{core.chip.product}", "at least 1", f"{page} 约束说明; {semantics('1.9')}")
        return Nothing(("dst", "src0", "src1"), name)
    plan = Sort32(name, dst.dtype, repeats)
    plan.bind(core, [dst, src0, src1])  # the address rules at this call's addresses
    return plan


@dataclass(eq=False)
class Sort32:
    """A checked Sort32 of ``repeats`` repeats of ``dtype`` scores, relative to its tensors."""

    name: str
    dtype: DType
    repeats: int
    operands: tuple[str, ...] = ("dst", "src0", "src1")

    def bind(self, core: Core, tensors: list[LocalTensor]) -> Sort32Binding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.name, label, tensor, core)
        dst, src0, src1 = tensors
        n = self.repeats * SORTED_PER_REPEAT
        footprints = (bytes_footprint("dst", dst.addr, SORTED_PER_REPEAT * STRUCTURE_BYTES, self.repeats),
                      bytes_footprint("src0", src0.addr, SORTED_PER_REPEAT * self.dtype.itemsize, self.repeats),
                      bytes_footprint("src1", src1.addr, SORTED_PER_REPEAT * 4, self.repeats))
        for footprint, tensor in zip(footprints, tensors, strict=True):
            footprint.check_in(self.name, tensor)
        check_overlap(self.name, footprints[0], footprints[1])
        check_overlap(self.name, footprints[0], footprints[2])
        return Sort32Binding(self, core, dst.addr, src0.addr, src1.addr, n)


class Sort32Binding:
    """A :class:`Sort32` at one placement: views of this core's UB at its operands."""

    registers_read = ()
    registers_written = ()

    def __init__(self, plan: Sort32, core: Core, dst: int, src0: int, src1: int, n: int) -> None:
        self.plan, self.dst, self.src0, self.src1, self.n = plan, dst, src0, src1, n
        ub, itemsize = core.ub, plan.dtype.itemsize
        self.scores = ub.data[src0:src0 + n * itemsize].view(plan.dtype.raw)
        self.score_rows = self.scores.reshape(plan.repeats, SORTED_PER_REPEAT)
        self.indices = ub.data[src1:src1 + n * 4].view(np.uint32)
        self.block_start = (np.arange(plan.repeats, dtype=np.int64) * SORTED_PER_REPEAT)[:, None]
        structures = ub.data[dst:dst + n * STRUCTURE_BYTES]
        self.marks = ub.written[dst:dst + n * STRUCTURE_BYTES]  # every byte, the reserved ones too (module docstring)
        if itemsize == 4:
            words = structures.view(np.uint32)
            self.out_scores, self.out_indices = words[0::2], words[1::2]
        else:  # bytes 2-3 reserved: their content stays
            self.out_scores = structures.view(np.uint16)[0::4]
            self.out_indices = structures.view(np.uint32)[1::2]
        self.seen_written = self.marked = NEVER

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges([("UB", self.src0, self.src0 + self.n * self.plan.dtype.itemsize),
                             ("UB", self.src1, self.src1 + self.n * 4)])

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return merge_ranges([("UB", self.dst, self.dst + self.n * STRUCTURE_BYTES)])

    def run(self, core: Core, values: tuple) -> None:
        plan, ub = self.plan, core.ub
        if self.seen_written != ub.shadow_epoch:  # a written byte stays written until the epoch moves
            ub.check_initialized_span(plan.name, "src0", self.src0, self.src0 + self.n * plan.dtype.itemsize)
            ub.check_initialized_span(plan.name, "src1", self.src1, self.src1 + self.n * 4)
            self.seen_written = ub.shadow_epoch
        order = stable_descending(rank(self.score_rows, plan.dtype))
        taken = order[0] if plan.repeats == 1 else (order + self.block_start).reshape(-1)
        self._commit(ub, self.scores[taken], self.indices[taken])  # every read before any write

    def _commit(self, ub, sorted_scores: np.ndarray, sorted_indices: np.ndarray) -> None:
        self.out_scores[:] = sorted_scores
        self.out_indices[:] = sorted_indices
        if self.marked != ub.shadow_epoch:  # marked since, and nothing unmarked (that moves the epoch)
            self.marks[...] = 1
            self.marked = ub.shadow_epoch


_SETUP = ("s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)\n"
          "s.write([(i * 37) % 64 - 20.5 for i in range(64)])\n"
          "ix = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 64)\n"
          "ix.write(list(range(64)))\n"
          "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 128)\n")
_HALF_SETUP = ("s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 32)\n"
               "s.write([float((i * 7) % 5) for i in range(32)])\n"
               "ix = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 32)\n"
               "ix.write(list(range(100, 132)))\n"
               "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 128)\n")

sort32 = register(Instruction(
    NAME, "ascend", "sort", "V", FORMS, _compile, f"{PAGE} 功能说明, 参数说明, 约束说明", support=_support,
    exactness=BIT_EXACT,
    summary="per repeat: 32 (score, index) structures of 8 bytes, scores largest first, ties in input order",
    examples=(_SETUP + "asc.sort32(z, s, ix, 2)", _HALF_SETUP + "asc.sort32(z, s, ix, 1)"),
    fast_context=lambda core: (),
    doc=f"``sort32(dst, src0, src1, repeat_time)``: 32 scores (half / float) and their uint32 indices per repeat "
        f"into (score, index) structures, largest score first, stable ({PAGE}; order: {semantics('5.15')}).",
))


def _c_api_support(chip) -> frozenset[str] | None:
    return _support(chip) if chip.c_api else None


def _c_api_entry(name: str):
    def compile_(core: Core, form: str, bound: dict):
        require_c_api(core, name)
        plan = sort32_plan(name, core, bound["dst"], bound["src0"], bound["src1"], bound["repeat"], "repeat",
                           c_api_page(name))
        return Synced(plan) if name.endswith("_sync") else plan

    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if name.endswith("_sync") else ""
    return register(Instruction(
        name, "ascend", "sort", "V", C_FORMS, compile_, f"{c_api_page(name)} 参数说明", support=_c_api_support,
        exactness=BIT_EXACT, summary="vbitsort: Sort32 of the C API", alias_of=NAME,
        examples=(_SETUP + f"asc.{name}(z, s, ix, 2)",), fast_context=lambda core: (),
        doc=f"``{name}(dst, src0, src1, repeat)``: Sort32 ({c_api_page(name)}).{barrier}",
    ))


asc_bitsort = _c_api_entry("asc_bitsort")
asc_bitsort_sync = _c_api_entry("asc_bitsort_sync")


# ----------------------------------------------------------------- GetSortLen / GetSortOffset
#: ``__NPU_ARCH__`` of the products whose sorted data are (score, index) structures of 8 bytes, and of those
#: whose sorted data are region proposals of 8 elements (``GetSortLen`` / ``GetSortOffset`` in
#: ``impl/basic_api/kernel_operator_proposal_intf_impl.h``)
STRUCTURE_ARCHS = frozenset({2201, 3002, 3102, 5102, 3003, 3113, 3510})
PROPOSAL_ARCHS = frozenset({1001, 2002})


def sorted_elements(chip, dtype: DType) -> int:
    """How many elements of ``dtype`` one sorted element takes on ``chip``: 8 bytes of half (4) or float (2),
    or a region proposal of 8 elements (the Atlas training series, the Atlas inference AI Core)."""
    return 8 if chip.npu_arch in PROPOSAL_ARCHS else STRUCTURE_BYTES // dtype.itemsize


def _length_support(chip) -> frozenset[str] | None:
    return SCORE_DTYPES if chip.npu_arch in STRUCTURE_ARCHS | PROPOSAL_ARCHS else None


def _is_dtype(value) -> bool:
    return isinstance(value, DType)


@dataclass(eq=False)
class SortLength(SelfBinding):
    """``GetSortLen<T>`` / ``GetSortOffset<T>``: ``n`` sorted elements in elements of T (a scalar, no memory)."""

    name: str
    page: str
    factor: int

    def run(self, core: Core, values: tuple) -> int:
        n = require_uint(self.name, self.label, values[0], 32, f"{self.page} 参数说明")
        return n * self.factor

    @property
    def label(self) -> str:
        return "elem_count" if self.name == "get_sort_len" else "elem_offset"


def _length_entry(name: str, label: str, page: str, what: str):
    def compile_(core: Core, form: str, bound: dict) -> SortLength:
        if _length_support(core.chip) is None:
            raise unsupported_on(core.chip, name, name, lambda c: _length_support(c) is not None,
                                 f"{page} 功能说明; {semantics('5.15')}")
        dtype = bound["dtype"]
        if not (isinstance(dtype.name, str) and DTYPES.get(dtype.name) is dtype):
            raise TypeError(f"{name}: dtype must be one of npusim's element types (asc.float16, asc.float32), "
                            f"got {dtype!r}")
        require_dtype(name, "T", dtype, SCORE_DTYPES, "T is half or float", f"{page} 参数说明")
        require_uint(name, label, bound[label], 32, f"{page} 参数说明")
        return SortLength(name, page, sorted_elements(core.chip, dtype))

    return register(Instruction(
        name, "ascend", "sort", "S", (Form("", (Param(label, is_int_arg), Param("dtype", _is_dtype, FLOAT32))),),
        compile_, f"{page} 功能说明, 返回值说明; impl/basic_api/kernel_operator_proposal_intf_impl.h",
        support=_length_support, per_call=frozenset({label}), exactness=BIT_EXACT,
        summary=f"{what} in elements of dtype (default float, as pyasc emits GetSortLen<float>): 2 per float, "
                f"4 per half, 8 on the region-proposal products",
        examples=(f"asc.{name}(100)", f"asc.{name}(128, asc.float16)"), fast_context=lambda core: (),
        doc=f"``{name}({label}, dtype=float32)`` ({page}; the unit is elements of T, not bytes: "
            f"docs/numerics.md errata).",
    ))


get_sort_len = _length_entry("get_sort_len", "elem_count", pages.GET_SORT_LEN, "the size of elem_count sorted elements")
get_sort_offset = _length_entry("get_sort_offset", "elem_offset", pages.GET_SORT_OFFSET,
                                "where sorted element elem_offset starts")
