"""Region proposals (排序组合/ProposalConcat.md, ProposalExtract.md, RpSort16.md): the Atlas inference AI Core
(half, float) and the Atlas training series (half).

A region proposal is 8 consecutive elements ``[x1, y1, x2, y2, score, label, reserved_0, reserved_1]`` (16 bytes
of half, 32 of float; 功能说明).  Forms (pyasc ``basic/proposal.py``)::

    proposal_concat(dst, src, repeat_time, mode_number)    # dst[(16r + k) * 8 + mode] = src[16r + k]
    proposal_extract(dst, src, repeat_time, mode_number)   # dst[16r + k] = src[(16r + k) * 8 + mode]
    rp_sort16(dst, src, repeat_time)                       # each 16 proposals sorted by score, largest first

``mode_number`` is the field: 0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label ([0, 5]); the other elements of dst
keep their bytes.  RpSort16 moves whole proposals (every byte, the reserved elements too, and whether they
were ever written) in the order of :mod:`.sort_order` (约束说明: equal scores keep input order); it may sort
in place (the page's example: ``RpSort16(dstLocal, dstLocal, 2)``).  ``repeat_time`` in [0, 255], 0 a NOP;
operands 32-byte aligned; dst and src follow the general overlap rules (docs/semantics.md §1.6).  Bit-exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, Instruction, register
from ...engine.trace import ByteRange, merge_ranges
from ...errors import ParameterRangeError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, bytes_footprint, check_overlap
from ..masking import MAX_REPEAT
from ..tensor import LocalTensor
from .common import is_int_arg, is_tensor, require_dtype, require_pair, require_ub_tensor
from .index_move import IndexMove
from .sort_order import rank, stable_descending
from .vector_transpose import Nothing

__all__ = ["PROPOSAL_DTYPES", "PROPOSAL_ELEMENTS", "proposal_concat", "proposal_extract", "rp_sort16"]

PROPOSAL_ELEMENTS = 8
PER_REPEAT = 16  # proposals (and elements) per repeat
SCORE = 4  # the score's element in a proposal
#: T per product (表1 模板参数说明)
PROPOSAL_DTYPES: dict[str, frozenset[str]] = {"310P": frozenset({"float16", "float32"}), "910": frozenset({"float16"})}


def _support(chip) -> frozenset[str] | None:
    return PROPOSAL_DTYPES.get(chip.name)


def _checked(name: str, page: str, core: Core, bound: dict, repeat_label: str = "repeat_time"):
    """dst, src, the repeats (None: a NOP) after the rules every proposal instruction shares."""
    allowed = _support(core.chip)
    if allowed is None:
        raise unsupported_on(core.chip, name, name, lambda c: _support(c) is not None, f"{page} 产品支持情况")
    dst, src = require_pair(name, core, bound["dst"], bound["src"], f"{page} 参数说明")
    require_dtype(name, "dst", dst.dtype, allowed, f"{name} takes half or float proposals on {core.chip.product}",
                  f"{page} 参数说明")
    repeats = require_int(name, repeat_label, bound[repeat_label], 0, MAX_REPEAT, f"{page} 参数说明",
                          rule="repeatTime ∈ [0, 255]")
    if repeats == 0 and not core.chip.zero_repeat_nop:
        raise ParameterRangeError(name, repeat_label, 0, f"repeatTime = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{page} 参数说明; {semantics('1.9')}")
    return dst, src, repeats or None


def _mode(name: str, page: str, value) -> int:
    return require_int(name, "mode_number", value, 0, 5, f"{page} 参数说明",
                       rule="modeNumber: 0 x1, 1 y1, 2 x2, 3 y2, 4 score, 5 label")


def _field_move(name: str, page: str, dtype: DType, repeats: int, mode: int, into_proposals: bool) -> IndexMove:
    """The fixed map of one field: element ``16r + k`` <-> element ``(16r + k) * 8 + mode`` (relative addresses)."""
    itemsize = dtype.itemsize
    element = np.arange(repeats * PER_REPEAT, dtype=np.int64)
    repeat_of = element // PER_REPEAT
    packed = Footprint("src" if into_proposals else "dst", element * itemsize, repeat_of, itemsize)
    spread = (element * PROPOSAL_ELEMENTS + mode) * itemsize
    fields = Footprint("dst" if into_proposals else "src", spread, repeat_of, itemsize)
    dst, src = (fields, packed) if into_proposals else (packed, fields)
    return IndexMove(name, dtype, dst, src, "repeats")


def _register_field_move(name: str, page: str, into_proposals: bool, summary: str, example: str):
    def compile_(core: Core, form: str, bound: dict):
        dst, src, repeats = _checked(name, page, core, bound)
        mode = _mode(name, page, bound["mode_number"])
        if repeats is None:
            return Nothing(("dst", "src"), name)
        plan = _field_move(name, page, dst.dtype, repeats, mode, into_proposals)
        plan.placed(dst, src)  # bounds (约束说明: dst / src must hold what the repeats need) and overlap
        return plan

    return register(Instruction(
        name, "ascend", "sort", "V",
        (Form("", (Param("dst", is_tensor), Param("src", is_tensor), Param("repeat_time", is_int_arg),
                   Param("mode_number", is_int_arg))),),
        compile_, f"{page} 功能说明, 参数说明, 约束说明", support=_support, exactness=BIT_EXACT, summary=summary,
        examples=(example,), fast_context=lambda core: (),
        doc=f"``{name}(dst, src, repeat_time, mode_number)`` ({page}).",
    ))


_SETUP = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
          "x.write([float(i % 37) - 9.5 for i in range(256)])\n")

proposal_concat = _register_field_move(
    "proposal_concat", pages.PROPOSAL_CONCAT, True,
    "dst[(16r + k) * 8 + mode] = src[16r + k]: one field of 16 region proposals per repeat",
    _SETUP + "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 512)\nasc.proposal_concat(z, x, 2, 4)")
proposal_extract = _register_field_move(
    "proposal_extract", pages.PROPOSAL_EXTRACT, False,
    "dst[16r + k] = src[(16r + k) * 8 + mode]: one field of 16 region proposals per repeat",
    _SETUP + "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 64)\nasc.proposal_extract(z, x, 2, 5)")


# ----------------------------------------------------------------- RpSort16
def _compile_rp_sort16(core: Core, form: str, bound: dict):
    dst, src, repeats = _checked("rp_sort16", pages.RP_SORT16, core, bound)
    if repeats is None:
        return Nothing(("dst", "src"), "rp_sort16")
    plan = RpSort16(dst.dtype, repeats)
    plan.bind(core, [dst, src])
    return plan


@dataclass(eq=False)
class RpSort16:
    """A checked RpSort16 of ``repeats`` groups of 16 proposals of ``dtype``, relative to its tensors."""

    dtype: DType
    repeats: int
    operands: tuple[str, ...] = ("dst", "src")
    name: str = "rp_sort16"

    @property
    def record_bytes(self) -> int:
        return PROPOSAL_ELEMENTS * self.dtype.itemsize

    def bind(self, core: Core, tensors: list[LocalTensor]) -> RpSort16Binding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.name, label, tensor, core)
        dst, src = tensors
        per_repeat = PER_REPEAT * self.record_bytes
        footprints = (bytes_footprint("dst", dst.addr, per_repeat, self.repeats),
                      bytes_footprint("src", src.addr, per_repeat, self.repeats))
        for footprint, tensor in zip(footprints, tensors, strict=True):
            footprint.check_in(self.name, tensor)
        check_overlap(self.name, *footprints)  # in place, or apart
        return RpSort16Binding(self, core, dst.addr, src.addr)


class RpSort16Binding:
    """A :class:`RpSort16` at one placement: views of this core's UB as (repeat, proposal, 8-byte word)."""

    registers_read = ()
    registers_written = ()

    def __init__(self, plan: RpSort16, core: Core, dst: int, src: int) -> None:
        self.plan, self.dst, self.src = plan, dst, src
        ub, rec = core.ub, plan.record_bytes
        nbytes = plan.repeats * PER_REPEAT * rec
        shape = (plan.repeats, PER_REPEAT, rec // 8)
        self.scores = ub.data[src:src + nbytes].view(plan.dtype.raw).reshape(
            plan.repeats, PER_REPEAT, PROPOSAL_ELEMENTS)[:, :, SCORE]
        self.score_index = (src // plan.dtype.itemsize + SCORE
                            + PROPOSAL_ELEMENTS * np.arange(plan.repeats * PER_REPEAT, dtype=np.int64))
        self.src_words = ub.data[src:src + nbytes].view(np.uint64).reshape(shape)
        self.src_marks = ub.written[src:src + nbytes].view(np.uint64).reshape(shape)
        self.dst_words = ub.data[dst:dst + nbytes].view(np.uint64).reshape(shape)
        self.dst_marks = ub.written[dst:dst + nbytes].view(np.uint64).reshape(shape)
        self.nbytes = nbytes

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges([("UB", self.src, self.src + self.nbytes)])

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return merge_ranges([("UB", self.dst, self.dst + self.nbytes)])

    def run(self, core: Core, values: tuple) -> None:
        plan, ub = self.plan, core.ub
        ub.check_initialized(plan.name, "src", self.score_index, plan.dtype.itemsize)
        order = stable_descending(rank(self.scores, plan.dtype))[:, :, None]
        moved = np.take_along_axis(self.src_words, order, axis=1)
        marks = np.take_along_axis(self.src_marks, order, axis=1)  # whether each byte was written travels along
        self._commit(ub, moved, marks, not bool((marks == np.uint64(2**64 - 1)).all()))

    def _commit(self, ub, moved: np.ndarray, marks: np.ndarray, unwritten: bool) -> None:
        self.dst_words[...] = moved
        self.dst_marks[...] = marks
        if unwritten:
            ub.shadow_epoch += 1  # bytes became never-written: plans that remember a clean shadow look again


rp_sort16 = register(Instruction(
    "rp_sort16", "ascend", "sort", "V",
    (Form("", (Param("dst", is_tensor), Param("src", is_tensor), Param("repeat_time", is_int_arg))),),
    _compile_rp_sort16, f"{pages.RP_SORT16} 功能说明, 参数说明, 约束说明", support=_support, exactness=BIT_EXACT,
    summary="each 16 region proposals sorted by score (element 4), largest first, ties in input order",
    examples=(_SETUP + "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 256)\nasc.rp_sort16(z, x, 2)",
              _SETUP + "asc.rp_sort16(x, x, 2)"),
    fast_context=lambda core: (),
    doc=f"``rp_sort16(dst, src, repeat_time)``: whole proposals moved, in place allowed ({pages.RP_SORT16} 调用示例; "
        f"order: {semantics('5.15')}).",
))
