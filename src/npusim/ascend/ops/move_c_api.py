"""The C API forms of copy, transpose, brcb, gather and gather_mask (``asc_*``, Atlas A2/A3 only).

From ``include/c_api/vector_compute/vector_compute.h`` and the 2201 implementation
(``impl/c_api/instr_impl/npu_arch_2201/vector_compute_impl``); each is a registry alias of the
Memory API it lowers like:

* ``asc_copy(dst, src, repeat, dst_block_stride, src_block_stride, dst_repeat_stride, src_repeat_stride)``:
  the bare ``vcopy`` under the vector mask register as it is (``copy(..., is_set_mask=False)``);
  ``asc_copy(dst, src, count)``: ``set_mask_count(); set_vector_mask(0, count)``, one ``vcopy`` repeat
  with the default strides (Copy's counter mode: ``count`` elements), ``set_mask_norm()`` — so the
  call leaves normal mode and the mask ``(count, 0)``.  T: int16, uint16, int32, uint32.
* ``asc_transpose(dst, src)``: ``vtranspose``, the 16 x 16 transpose of int16 / uint16.
* ``asc_brcb(dst, src, dst_block_stride, dst_repeat_stride, repeat)``: the bare ``vbrcb`` (no
  ``ResetMask``: the registers stay), uint16 / uint32.
* ``asc_gather(dst, src, src_offset, dst_repeat_stride, repeat)``: the bare ``vgather`` (base 0) under the
  vector mask register; ``asc_gather(dst, src, src_offset, count)``: in counter mode (``count`` elements in
  all), then normal mode with the mask ``(count, 0)``.
* ``asc_reduce`` (GatherMask's ``vreducev2``, not a reduction): ``(dst, src0, src1, repeat,
  src0_block_stride, pattern_mode, src0_repeat_stride, src1_repeat_stride)`` bare, ``pattern_mode`` 0 the
  bits of ``src1``, 1-7 the built-in patterns, Counter when the core is in counter mode (the register's
  count per repeat); ``(dst, src0, src1, count)``: counter mode, one repeat of ``count`` elements by
  ``src1``'s bits, then normal mode with the mask ``(count, 0)``.  Both leave RSVD_CNT.
* ``asc_get_rsvd_count()``: RSVD_CNT, as ``get_gather_mask_remain_count``.
* ``asc_squeeze(dst, src0, src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride,
  dst_repeat_stride, src0_repeat_stride, src1_repeat_stride)``: the bare ``vreduce`` (GatherMask's
  instruction on the 310P) by ``src1``'s bits, under the mask mode as it is, as ``asc_reduce``'s repeat form;
  the strides that place the packed result (``dst_*``) and ``src1_block_stride`` are modelled at the values
  GatherMask's own ``vreduce`` lowering passes (1, 8, 1: docs/semantics.md §5.24).  Leaves RSVD_CNT.
* ``asc_gather_datablock(dst, src, src_offset, dst_repeat_stride, dst_block_stride, repeat)``: the bare
  ``vgatherb`` (Gatherb without its ``ResetMask``: the registers stay), uint16 / uint32.

``*_sync`` adds ``pipe_barrier(PIPE_ALL)`` after the instruction, which npusim records.
"""

from __future__ import annotations

import dataclasses

from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import is_integer, require_int, require_uint
from .. import pages
from ..addressing import lanes_per_repeat
from ..core import Core
from ..masking import COUNTER_MAX, checked_counter_lanes, lanes_from_register
from ..types import MaskMode
from .brcb import brcb_move
from .common import (
    ALIGN_SOURCE,
    c_api_page,
    count_form_context,
    is_tensor,
    record_pipe_barrier,
    require_c_api,
    require_dtype,
    require_pair,
    require_ub_tensor,
)
from .gather_mask import REMAIN, masked_gather
from .gather_scatter import GATHER, count_lanes, indexed_plan
from .gatherb import gatherb_plan
from .vector_copy import COPY_OP, counter_plan, vector_plan
from .vector_transpose import block_transpose

__all__ = ["asc_brcb", "asc_brcb_sync", "asc_copy", "asc_copy_sync", "asc_gather", "asc_gather_datablock",
           "asc_gather_datablock_sync", "asc_gather_sync",
           "asc_get_rsvd_count", "asc_reduce", "asc_reduce_sync", "asc_squeeze", "asc_transpose", "asc_transpose_sync"]

_B16_B32_INT = frozenset({"int16", "uint16", "int32", "uint32"})
_U16_U32 = frozenset({"uint16", "uint32"})
_GATHER_T = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
_I16_U16 = frozenset({"int16", "uint16"})


class Synced:
    """A plan followed by ``pipe_barrier(PIPE_ALL)`` (a ``*_sync`` C API function): the same checks and
    accesses, and the barrier recorded after the instruction ran."""

    def __init__(self, plan) -> None:
        self.plan = plan
        self.operands = plan.operands

    def bind(self, core: Core, tensors) -> SyncedBinding:
        return SyncedBinding(self.plan.bind(core, tensors))


class DelegatingBinding:
    """A binding wrapped around an instruction's own: its accesses and registers, and (by ``__getattr__``)
    everything else (``pipe``, and ``ranges`` of a copy whose GM operand moves per call) are the wrapped one's;
    a subclass changes what ``run`` does around it."""

    def __init__(self, binding) -> None:
        self.binding = binding
        self.registers_read = binding.registers_read
        self.registers_written = binding.registers_written

    @property
    def reads(self):
        return self.binding.reads

    @property
    def writes(self):
        return self.binding.writes

    def run(self, core: Core, values: tuple):
        return self.binding.run(core, values)

    def __getattr__(self, name: str):
        if name == "binding":  # not set yet (a copy under construction): no delegation loop
            raise AttributeError(name)
        return getattr(self.binding, name)


class SyncedBinding(DelegatingBinding):
    """The instruction's binding, then ``pipe_barrier(PIPE_ALL)`` recorded."""

    def run(self, core: Core, values: tuple):
        result = self.binding.run(core, values)
        record_pipe_barrier(core)
        return result


def _finished(name: str, plan):
    return Synced(plan) if name.endswith("_sync") else plan


def _tensors(name: str, core: Core, bound: dict, allowed: frozenset[str]):
    require_c_api(core, name)
    page = c_api_page(name)
    dst, src = require_pair(name, core, bound["dst"], bound["src"], f"{page} 函数原型")
    require_dtype(name, "dst", dst.dtype, allowed, f"{name} has no overload for this type", f"{page} 函数原型")
    return dst, src, page


def _uint(value) -> bool:
    return is_integer(value)


# ------------------------------------------------------------------ asc_copy
COPY_FORMS = (
    Form("repeat", (Param("dst", is_tensor), Param("src", is_tensor), Param("repeat", _uint),
                    *(Param(n, _uint) for n in ("dst_block_stride", "src_block_stride", "dst_repeat_stride",
                                                 "src_repeat_stride")))),
    Form("count", (Param("dst", is_tensor), Param("src", is_tensor), Param("count", _uint))),
)


def _compile_copy(name: str, core: Core, form: str, bound: dict):
    dst, src, page = _tensors(name, core, bound, _B16_B32_INT)
    op = dataclasses.replace(COPY_OP, name=name, doc=page)
    source = f"{page} 参数说明"
    if form == "count":
        count = _count(name, bound, source)
        plan = counter_plan(op, dst, src, count, 1, ((1, 8), (1, 8)), (count, 0, 0, 0), (), MaskMode.NORMAL)
        return _finished(name, plan)
    repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
    d_blk, s_blk, d_rep, s_rep = (require_uint(name, n, bound[n], 16, source) for n in (
        "dst_block_stride", "src_block_stride", "dst_repeat_stride", "src_repeat_stride"))
    if d_blk == 0:
        raise ParameterRangeError(name, "dst_block_stride", 0, "a destination block stride of 0 is undefined "
                                  "behaviour", "at least 1", f"{pages.HIGH_DIM} 地址间隔配置")
    strides = ((d_blk, d_rep), (s_blk, s_rep))
    registers = ("MASK", "MASK_MODE")
    if repeat == 0:
        raise ParameterRangeError(name, "repeat", 0, "a bare vcopy of 0 repeats", "[1, 255]", source)
    if core.mask_mode == MaskMode.COUNTER:  # Copy's counter mode: the register's count per repeat
        return _finished(name, counter_plan(op, dst, src, _counter_count(name, core), repeat, strides, None,
                                            registers))
    lanes = lanes_from_register(core, name, repeat, dst.dtype.itemsize)
    return _finished(name, vector_plan(op, dst, src, lanes, strides, None, registers))


def _count(name: str, bound: dict, source: str) -> int:
    """The count form's ``count``: it goes to the mask register in counter mode, so [1, 2^32 - 1]."""
    return require_int(name, "count", bound["count"], 1, COUNTER_MAX, source,
                       rule="the count of asc_set_mask_count_begin (a uint32_t; 0 is no counter-mode count)")


def _counter_count(name: str, core: Core) -> int:
    count = core.mask_words[0]
    if not 1 <= count <= COUNTER_MAX:
        raise ParameterRangeError(name, "vector mask register (counter)", count, "the counter-mode count must be "
                                  "in [1, 2^32 - 1]", f"[1, {COUNTER_MAX}]", f"{pages.MASK_IN_API} Counter模式")
    return count


# ------------------------------------------------------------- transpose, brcb
TRANSPOSE_FORMS = (Form("", (Param("dst", is_tensor), Param("src", is_tensor))),)
BRCB_FORMS = (Form("", (Param("dst", is_tensor), Param("src", is_tensor), Param("dst_block_stride", _uint),
                        Param("dst_repeat_stride", _uint), Param("repeat", _uint))),)


def _compile_transpose(name: str, core: Core, form: str, bound: dict):
    dst, src, _page = _tensors(name, core, bound, _I16_U16)
    return _finished(name, block_transpose(dst, src, ("dst", "src"), name))


def _compile_brcb(name: str, core: Core, form: str, bound: dict):
    dst, src, page = _tensors(name, core, bound, _U16_U32)
    source = f"{page} 参数说明"
    blk = require_uint(name, "dst_block_stride", bound["dst_block_stride"], 16, source)
    rep = require_uint(name, "dst_repeat_stride", bound["dst_repeat_stride"], 16, source)
    repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
    if blk == 0:
        raise ParameterRangeError(name, "dst_block_stride", 0, "dstBlkStride = 0 may give undefined behaviour",
                                  "at least 1", f"{pages.BRCB} 约束说明")
    if repeat == 0:
        raise ParameterRangeError(name, "repeat", 0, "a bare vbrcb of 0 repeats", "[1, 255]", source)
    plan = brcb_move(core, name, dst, src, repeat, blk, rep)
    return _finished(name, dataclasses.replace(plan, mask_words_after=None))  # the bare vbrcb: no ResetMask


# ------------------------------------------------------------ gather, reduce
GATHER_FORMS = (
    Form("repeat", (Param("dst", is_tensor), Param("src", is_tensor), Param("src_offset", is_tensor),
                    Param("dst_repeat_stride", _uint), Param("repeat", _uint))),
    Form("count", (Param("dst", is_tensor), Param("src", is_tensor), Param("src_offset", is_tensor),
                   Param("count", _uint))),
)
REDUCE_FORMS = (
    Form("repeat", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                    Param("repeat", _uint), Param("src0_block_stride", _uint), Param("pattern_mode", _uint),
                    Param("src0_repeat_stride", _uint), Param("src1_repeat_stride", _uint))),
    Form("count", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                   Param("count", _uint))),
)


def _compile_gather(name: str, core: Core, form: str, bound: dict):
    dst, src, page = _tensors(name, core, bound, _GATHER_T)
    offsets = require_ub_tensor(name, "src_offset", bound["src_offset"], core)
    if offsets.dtype.name != "uint32":
        raise UnsupportedError(name, "src_offset dtype", offsets.dtype.name, "the offsets are uint32_t", "uint32",
                               f"{page} 函数原型")
    source, itemsize = f"{page} 参数说明", dst.dtype.itemsize
    if form == "count":
        count = _count(name, bound, source)
        lanes = count_lanes(GATHER, name, dst, src, offsets, count)
        plan = indexed_plan(GATHER, name, core, dst, src, offsets, 0, lanes, 8, (count, 0, 0, 0), (),
                            MaskMode.NORMAL)
        return _finished(name, plan)
    rep = require_uint(name, "dst_repeat_stride", bound["dst_repeat_stride"], 16, source)
    repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
    if core.mask_mode == MaskMode.COUNTER:
        lanes = checked_counter_lanes(name, _counter_count(name, core), lanes_per_repeat(itemsize),
                                      "vector mask register (counter)")
    else:
        if repeat == 0:
            raise ParameterRangeError(name, "repeat", 0, "a bare vgather of 0 repeats", "[1, 255]", source)
        lanes = lanes_from_register(core, name, repeat, itemsize)
    return _finished(name, indexed_plan(GATHER, name, core, dst, src, offsets, 0, lanes, rep, None,
                                        ("MASK", "MASK_MODE")))


def _compile_reduce(name: str, core: Core, form: str, bound: dict):
    bound = {**bound, "src": bound["src0"]}
    dst, src0, page = _tensors(name, core, bound, _U16_U32)
    pattern = require_ub_tensor(name, "src1", bound["src1"], core)
    if pattern.dtype != dst.dtype:
        raise UnsupportedError(name, "src1 dtype", pattern.dtype.name, "src1 has dst's type", dst.dtype.name,
                               f"{page} 函数原型")
    source = f"{page} 参数说明"
    if form == "count":
        count = _count(name, bound, source)
        return _finished(name, masked_gather(name, core, dst, src0, pattern, 0, True, count, (1, 1, 8, 8),
                                             (count, 0, 0, 0), MaskMode.NORMAL, "src1"))
    repeat = require_int(name, "repeat", bound["repeat"], 0, 255, f"{source}; {pages.GATHER_MASK} 参数说明",
                         rule="a uint16_t, repeatTimes ∈ [0, 255]")
    blk = require_uint(name, "src0_block_stride", bound["src0_block_stride"], 8, source)
    mode = require_uint(name, "pattern_mode", bound["pattern_mode"], 8, source)
    if mode > 7:
        raise ParameterRangeError(name, "pattern_mode", mode, "0 (src1's bits) or a built-in pattern 1-7", "[0, 7]",
                                  source)
    src0_rep = require_uint(name, "src0_repeat_stride", bound["src0_repeat_stride"], 16, source)
    src1_rep = require_uint(name, "src1_repeat_stride", bound["src1_repeat_stride"], 8, source)
    counter = core.mask_mode == MaskMode.COUNTER
    mask = _counter_count(name, core) if counter else 0
    return _finished(name, masked_gather(name, core, dst, src0, pattern if mode == 0 else None, mode, counter, mask,
                                         (blk, repeat, src0_rep, src1_rep), None, None, "src1"))


SQUEEZE_FORMS = (Form("", (Param("dst", is_tensor), Param("src0", is_tensor), Param("src1", is_tensor),
                           *(Param(n, _uint) for n in ("repeat", "dst_block_stride", "src0_block_stride",
                                                        "src1_block_stride", "dst_repeat_stride",
                                                        "src0_repeat_stride", "src1_repeat_stride")))),)
#: the strides npusim models at one value (docs/semantics.md §5.24): GatherMask's vreduce lowering passes these
SQUEEZE_FIXED = {"dst_block_stride": 1, "src1_block_stride": 1, "dst_repeat_stride": 8}


def _compile_squeeze(name: str, core: Core, form: str, bound: dict):
    require_c_api(core, name)
    page = c_api_page(name)
    align = f"{page} 约束说明; {ALIGN_SOURCE}"
    dst, src0, src1 = (require_ub_tensor(name, n, bound[n], core, align_source=align) for n in ("dst", "src0", "src1"))
    require_dtype(name, "dst", dst.dtype, _U16_U32, f"{name} has no overload for this type", f"{page} 函数原型")
    for label, tensor in (("src0", src0), ("src1", src1)):
        if tensor.dtype != dst.dtype:
            raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, f"{label} has dst's type",
                                   dst.dtype.name, f"{page} 函数原型")
    source = f"{page} 参数说明"
    repeat, blk, src0_rep, src1_rep = (require_uint(name, n, bound[n], 8, source) for n in (
        "repeat", "src0_block_stride", "src0_repeat_stride", "src1_repeat_stride"))
    for label, fixed in SQUEEZE_FIXED.items():
        value = require_uint(name, label, bound[label], 8, source)
        if value != fixed:
            raise UnsupportedError(name, label, value, "not modelled: the page does not say how this stride "
                                   "places the packed elements or the mask bits", str(fixed),
                                   f"{source}; {semantics('5.24')}")
    counter = core.mask_mode == MaskMode.COUNTER
    mask = _counter_count(name, core) if counter else 0
    return masked_gather(name, core, dst, src0, src1, 0, counter, mask, (blk, repeat, src0_rep, src1_rep), None, None,
                         "src1")


# ------------------------------------------------------------------ register
def _c_api_support(base):
    return lambda chip: base(chip) if chip.c_api else None


def _register(name: str, alias_of: str, forms, compile_, support, summary: str, examples: tuple[str, ...],
              plan_context=None):
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if name.endswith("_sync") else ""
    family = {"copy": "data_movement", "transpose": "layout", "brcb": "fill", "gather": "gather_scatter",
              "gatherb": "gather_scatter", "gather_mask": "compare_select"}[alias_of]
    return register(Instruction(
        name, "ascend", family,
        "V", forms, lambda core, form, values: compile_(name, core, form, values), f"{c_api_page(name)} 参数说明",
        support=support, exactness=BIT_EXACT, summary=summary, examples=examples, plan_context=plan_context,
        fast_context=(lambda core: (int(core.mask_mode), core.mask_words)) if plan_context else (lambda core: ()),
        alias_of=alias_of, doc=f"``{name}``: {summary} ({c_api_page(name)}).{barrier}",
    ))


_COPY_SETUP = ("core.ub_write(0, bytes(range(256)) * 8)\n"
               "x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 512)\n"
               "z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 4096, 512)\n")
_B16_SETUP = ("core.ub_write(0, bytes(range(256)) * 4)\n"
              "x = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 0, 256)\n"
              "z = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 1024, 256)\n")


def _copy_entry(name: str):
    return _register(name, "copy", COPY_FORMS, _compile_copy, _c_api_support(lambda chip: _B16_B32_INT),
                     "vcopy under the vector mask register, or count elements (counter mode, then normal)",
                     (_COPY_SETUP + f"asc.{name}(z, x, 2, 1, 1, 8, 8)", _COPY_SETUP + f"asc.{name}(z, x, 300)"),
                     count_form_context)


def _transpose_entry(name: str):
    return _register(name, "transpose", TRANSPOSE_FORMS, _compile_transpose,
                     _c_api_support(lambda chip: _I16_U16), "vtranspose: dst = src.T, 16 x 16 of 2-byte data",
                     (_B16_SETUP + f"asc.{name}(z, x)",))


def _brcb_entry(name: str):
    return _register(name, "brcb", BRCB_FORMS, _compile_brcb, _c_api_support(lambda chip: _U16_U32),
                     "vbrcb: each of 8 source elements per repeat fills a DataBlock",
                     (_B16_SETUP + f"asc.{name}(z, x, 1, 8, 2)",))


_GATHER_SETUP = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)\n"
                 "x.write(list(range(128)))\n"
                 "off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 128)\n"
                 "off.write([254 - 2 * i for i in range(128)])\n"
                 "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 128)\n")
_REDUCE_SETUP = ("x = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 0, 256)\n"
                 "x.write(list(range(256)))\n"
                 "p = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 1024, 16)\n"
                 "p.write([0x99999999] * 16)\n"
                 "z = asc.LocalTensor(asc.uint32, asc.TPosition.VECOUT, 2048, 256)\n")

_SQUEEZE_SETUP = ("x = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 0, 4096)\n"
                  "x.write(list(range(4096)))\n"
                  "p = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 8192, 1024)\n"
                  "p.write([0x9999, 0x0F0F] * 512)\n"
                  "z = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 16384, 4096)\n")


def _gather_entry(name: str):
    return _register(name, "gather", GATHER_FORMS, _compile_gather, _c_api_support(lambda chip: _GATHER_T),
                     "vgather: dst[i] = src[src_offset[i] / sizeof(T)] (byte offsets), under the register or count",
                     (_GATHER_SETUP + f"asc.{name}(z, x, off, 8, 1)", _GATHER_SETUP + f"asc.{name}(z, x, off, 100)"),
                     count_form_context)


def _reduce_entry(name: str):
    return _register(name, "gather_mask", REDUCE_FORMS, _compile_reduce, _c_api_support(lambda chip: _U16_U32),
                     "vreducev2 (GatherMask): pack the src0 elements src1's bits or a built-in pattern select",
                     (_REDUCE_SETUP + f"asc.{name}(z, x, p, 2, 1, 0, 8, 0)",
                      _REDUCE_SETUP + f"asc.{name}(z, x, p, 100)"),
                     count_form_context)


asc_copy = _copy_entry("asc_copy")
asc_copy_sync = _copy_entry("asc_copy_sync")
asc_transpose = _transpose_entry("asc_transpose")
asc_transpose_sync = _transpose_entry("asc_transpose_sync")
asc_brcb = _brcb_entry("asc_brcb")
asc_brcb_sync = _brcb_entry("asc_brcb_sync")
asc_gather = _gather_entry("asc_gather")
asc_gather_sync = _gather_entry("asc_gather_sync")
asc_squeeze = _register("asc_squeeze", "gather_mask", SQUEEZE_FORMS, _compile_squeeze,
                        _c_api_support(lambda chip: _U16_U32),
                        "vreduce: pack the src0 elements src1's bits select to the start of dst (GatherMask by a "
                        "bit tensor)",
                        (_SQUEEZE_SETUP + "asc.asc_squeeze(z, x, p, 2, 1, 1, 1, 8, 8, 1)",),
                        count_form_context)
asc_reduce = _reduce_entry("asc_reduce")
asc_reduce_sync = _reduce_entry("asc_reduce_sync")


# ------------------------------------------------------------ asc_gather_datablock (Gatherb)
GATHERB_FORMS = (Form("", (Param("dst", is_tensor), Param("src", is_tensor), Param("src_offset", is_tensor),
                           Param("dst_repeat_stride", _uint), Param("dst_block_stride", _uint),
                           Param("repeat", _uint))),)


def _compile_gather_datablock(name: str, core: Core, form: str, bound: dict):
    dst, src, page = _tensors(name, core, bound, _U16_U32)
    source = f"{page} 参数说明"
    rep = require_uint(name, "dst_repeat_stride", bound["dst_repeat_stride"], 16, source)
    blk = require_uint(name, "dst_block_stride", bound["dst_block_stride"], 8, source)
    repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
    plan = gatherb_plan(name, core, dst, src, bound["src_offset"], repeat, blk, rep, None, "src", "src_offset",
                        one_for_zero=True)  # the A2/A3 hardware takes a block stride of 0 as 1 (Gatherb 约束说明)
    return _finished(name, plan)


def _gather_datablock_entry(name: str):
    return _register(name, "gatherb", GATHERB_FORMS, _compile_gather_datablock,
                     _c_api_support(lambda chip: _U16_U32),
                     "vgatherb: dst block r*8+j = the 32 bytes at src + src_offset[r*8+j]",
                     ("x = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 0, 128)\n"
                      "x.write(list(range(128)))\n"
                      "off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 256, 8)\n"
                      "off.write([0, 64, 32, 96, 128, 160, 224, 192])\n"
                      "z = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 1024, 256)\n"
                      f"asc.{name}(z, x, off, 8, 2, 1)",))


asc_gather_datablock = _gather_datablock_entry("asc_gather_datablock")
asc_gather_datablock_sync = _gather_datablock_entry("asc_gather_datablock_sync")


def _compile_rsvd(core: Core, form: str, values: dict):
    require_c_api(core, "asc_get_rsvd_count")
    return REMAIN


asc_get_rsvd_count = register(Instruction(
    "asc_get_rsvd_count", "ascend", "register", "S", (Form("", ()),), _compile_rsvd,
    f"{c_api_page('asc_get_rsvd_count')} 返回值说明", support=_c_api_support(lambda chip: True),
    summary="RSVD_CNT: the elements the last asc_reduce / asc_squeeze / gather_mask kept",
    examples=("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 128)\nx.write(list(range(128)))\n"
              "asc.gather_mask(x, x, 1, False, 0, asc.GatherMaskParams(1, 1, 8, 0))\n"
              "asc.asc_get_rsvd_count()",),
    fast_context=lambda core: (), alias_of="get_gather_mask_remain_count",
    doc="``asc_get_rsvd_count()``: RSVD_CNT, the count the last gather_mask (asc_reduce, asc_squeeze) kept.",
))
