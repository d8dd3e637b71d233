"""Copy: UB -> UB by the vector unit (``vcopy``), with a mask and DataBlock strides, or the first n.

Forms (pyasc ``basic/vec_copy.py``; UBToUB掩码式高维数据搬运(Copy).md, UBToUB连续数据搬运(Copy).md)::

    copy(dst, src, mask, repeat_time, CopyRepeatParams(dst_stride, src_stride, dst_repeat_size,
         src_repeat_size), is_set_mask=True)        # mask: an int (contiguous) or a list of uint64 words
    copy(dst, src, count)                          # the 950 only

Lane ``j`` of repeat ``r`` moves from ``src + r * src_repeat_size * 32 + (j // B) * src_stride * 32
+ (j % B) * sizeof(T)`` to the same place relative to ``dst`` with the dst strides (the address
formula of :mod:`..addressing`); masked-off lanes keep dst.  The bit pattern moves unchanged, so
Copy is bit-exact for every type.  The lowering is the one of the element-wise instructions
(``CopyImpl``: ``SetMask<T>(mask)`` then ``vcopy``, ``impl/basic_api/dav_c220``), so a call leaves
its mask in the register and the plan is an element-wise :class:`~.elementwise.VectorPlan`.

**Counter mode** differs from every other vector instruction (the page's 约束说明 and 图1): the
mask register's count is the number of elements of *each* repeat, and ``repeat_time`` counts; a
repeat covers ``N = ceil(count * sizeof(T) / 32)`` DataBlocks, which may be more than 8 (the
page's scenario 3 copies 144 int32 in one repeat, one DataBlock from each of 18 rows).  Up to one
repeat's worth of lanes this is a normal-mode plan with the first ``count`` lanes active; beyond
it, an :class:`~.index_move.IndexMove` over the same address formula with ``count`` lanes.
"""

from __future__ import annotations

import numpy as np

from ...engine.registry import BIT_EXACT, Instruction, register
from ...errors import ParameterRangeError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_bool, require_int
from .. import pages
from ..addressing import (
    BLOCK_BYTES,
    contiguous_mask_words,
    counter_mode_lanes,
    elems_per_block,
    lanes_per_repeat,
    normal_mode_lanes,
)
from ..chips import OpDtypes, unsupported_on
from ..core import Core
from ..footprint import Footprint, strided_footprint
from ..masking import COUNTER_MAX, MAX_REPEAT, lanes_from_mask_arg, lanes_from_register, mask_arg_words
from ..tensor import LocalTensor
from ..types import CopyRepeatParams, MaskMode
from .common import (
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    is_tensor,
    mask_fast_context,
    mask_plan_context,
    require_dtype,
    require_pair,
    require_repeat_params,
)
from .elementwise import DST, DST_STRIDE_SOURCE, INT32_MAX, VectorOp, VectorPlan
from .index_move import IndexMove

__all__ = ["COPY_DTYPES", "COPY_OP", "copy", "counter_plan", "vector_plan"]

NAME = "copy"
SOURCE = f"{pages.COPY} 函数原型, 约束说明"
COUNT_SOURCE = f"{pages.COPY_COUNT} 产品支持情况"
COUNTER_SOURCE = f"{pages.COPY} 约束说明 (Copy高维切分计算API的Counter模式, 图1)"

_B16_B32 = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
#: T per product (数据类型).  The 950's 8-bit types (int8, uint8, the fp8 types npusim has) are
#: modelled in the count form only: how ``SetMask`` spreads a contiguous mask over 256 8-bit
#: lanes is not documented.  The 950's fp4 types are not modelled (fp4x2_e2m1_t: Copy's vector function counts it
#: in bytes while its tensors count 4-bit values, docs/semantics.md §5.33); hifloat8 (§5.32) and fp8_e8m0_t
#: (float8_e8m0fnu, §5.34) are 8-bit types like int8: their codes move as bytes, in the count form.
COPY_DTYPES: dict[str, OpDtypes] = {
    **{chip: OpDtypes(_B16_B32) for chip in ("A2", "A3", "310B")},
    **{chip: OpDtypes(_B16_B32 - {"bfloat16"}) for chip in ("KirinX90", "Kirin9030")},
    "950": OpDtypes(_B16_B32 | {"int64", "uint64"},
                    frozenset({"int8", "uint8", "float8_e4m3fn", "float8_e5m2", "hifloat8", "float8_e8m0fnu"})),
}
COUNT_FORM_CHIPS = frozenset({"950"})  # UBToUB连续数据搬运(Copy).md: the 950 only

COPY_OP = VectorOp(NAME, pages.COPY, ("src",), "copy", False, False, (), "dst = src at every active lane",
                   BIT_EXACT, "data_movement")


def _is_copy_params(value) -> bool:
    return isinstance(value, CopyRepeatParams)


FORMS = (
    Form("mask", (DST, Param("src", is_tensor), Param("mask", is_mask_arg), Param("repeat_time", is_int_arg),
                  Param("repeat_params", _is_copy_params), Param("is_set_mask", is_bool_arg, True))),
    Form("count", (DST, Param("src", is_tensor), Param("count", is_int_arg))),
)


def _support(chip) -> OpDtypes | None:
    return COPY_DTYPES.get(chip.name)


def _compile(core: Core, form: str, bound: dict) -> VectorPlan | IndexMove:
    dst, src = require_pair(NAME, core, bound["dst"], bound["src"], f"{pages.COPY} 数据类型")
    dtype = dst.dtype
    support = _support(core.chip)
    if support is None:
        raise unsupported_on(core.chip, NAME, NAME, lambda c: _support(c) is not None, f"{pages.COPY} 产品支持情况")
    if form == "count" and core.chip.name not in COUNT_FORM_CHIPS:
        raise unsupported_on(core.chip, NAME, "copy(dst, src, count)", lambda c: c.name in COUNT_FORM_CHIPS,
                             COUNT_SOURCE)
    require_dtype(NAME, "dst", dtype, support.for_form(form == "count"),
                  f"copy does not support this data type in this form on {core.chip.product}",
                  f"{pages.COPY_COUNT if form == 'count' else pages.COPY} 数据类型")
    if form == "count":
        return _compile_count(core, dst, src, bound["count"])
    return _compile_mask(core, dst, src, bound)


def _compile_count(core: Core, dst: LocalTensor, src: LocalTensor, count) -> VectorPlan:
    count = require_int(NAME, "count", count, 0, INT32_MAX, f"{pages.COPY_COUNT} 函数原型",
                        rule="count is a uint32_t element count handed on as int32_t")
    if count == 0:
        return _nop(core, "count")
    itemsize = dst.dtype.itemsize
    for tensor, label in ((dst, "dst"), (src, "src")):
        tensor.check_span(NAME, label, tensor.addr, tensor.addr + count * itemsize)
    lanes = counter_mode_lanes(count, lanes_per_repeat(itemsize))
    return vector_plan(COPY_OP, dst, src, lanes, ((1, 8), (1, 8)), None, ())


def _compile_mask(core: Core, dst: LocalTensor, src: LocalTensor, bound: dict) -> VectorPlan | IndexMove:
    itemsize = dst.dtype.itemsize
    d_blk, s_blk, d_rep, s_rep = require_repeat_params(NAME, bound["repeat_params"], CopyRepeatParams)
    if d_blk == 0:
        raise ParameterRangeError(NAME, "repeat_params.dst_stride", 0, "a destination block stride of 0 is "
                                  "undefined behaviour", "at least 1", DST_STRIDE_SOURCE)
    strides = ((d_blk, d_rep), (s_blk, s_rep))
    repeats = require_int(NAME, "repeat_time", bound["repeat_time"], 0, MAX_REPEAT, f"{pages.COPY} 参数说明")
    native = core.chip.vector_lowering == "native"
    set_mask = require_bool(NAME, "is_set_mask", bound["is_set_mask"])
    registers = ("MASK_MODE",) if set_mask else ("MASK", "MASK_MODE")
    if core.mask_mode == MaskMode.COUNTER:
        return _compile_counter(core, dst, src, bound["mask"], repeats, strides, set_mask, native, registers)
    if set_mask:
        lanes, words = lanes_from_mask_arg(core, NAME, bound["mask"], repeats, itemsize,
                                           lowering_counts_raw=not native)
    else:
        lanes, words = lanes_from_register(core, NAME, repeats, itemsize), None
    if lanes.repeats == 0:
        return _nop(core, "repeat_time")
    return vector_plan(COPY_OP, dst, src, lanes, strides, words if set_mask and native else None, registers)


def _compile_counter(core: Core, dst: LocalTensor, src: LocalTensor, mask, repeats: int, strides, set_mask: bool,
                     native: bool, registers: tuple[str, ...]) -> VectorPlan | IndexMove:
    """Counter mode: the count is per repeat and ``repeat_time`` counts (the page's 图1)."""
    itemsize = dst.dtype.itemsize
    if set_mask:
        words = mask_arg_words(NAME, mask, itemsize, not native, True, core.tolerance)
        words_after = words if native else None
    else:
        words, words_after = core.mask_words, None
    per_repeat = require_int(NAME, "mask (counter-mode count per repeat)", words[0], 0, COUNTER_MAX,
                             COUNTER_SOURCE, rule="the mask register's low word is the element count")
    if per_repeat == 0 or repeats == 0:
        return _nop(core, "repeat_time" if repeats == 0 else "mask (counter-mode count per repeat)")
    return counter_plan(COPY_OP, dst, src, per_repeat, repeats, strides, words_after, registers)


def counter_plan(op: VectorOp, dst: LocalTensor, src: LocalTensor, per_repeat: int, repeats: int, strides,
                 words_after, registers: tuple[str, ...], mode_after: MaskMode | None = None) -> VectorPlan | IndexMove:
    """``per_repeat`` elements in each of ``repeats`` repeats (Copy's counter mode), as a plan of ``op``."""
    itemsize = dst.dtype.itemsize
    lanes = lanes_per_repeat(itemsize)
    if per_repeat <= lanes:
        low, high = contiguous_mask_words(per_repeat, itemsize)
        return vector_plan(op, dst, src, normal_mode_lanes((low, high, 0, 0), lanes, repeats), strides, words_after,
                           registers, mode_after)
    (d_blk, d_rep), _ = strides
    per_block, final = elems_per_block(itemsize), per_repeat - 1
    last = ((repeats - 1) * d_rep + (final // per_block) * d_blk) * BLOCK_BYTES + (final % per_block) * itemsize
    dst.check_span(op.name, "dst", dst.addr, dst.addr + last + itemsize)  # dst's last byte, before any index array
    footprints = [_counter_footprint(label, repeats, per_repeat, itemsize, blk, rep)
                  for label, (blk, rep) in (("dst", strides[0]), ("src", strides[1]))]
    plan = IndexMove(op.name, dst.dtype, *footprints, "repeats", registers=registers, mask_words_after=words_after,
                     mask_mode_after=mode_after)
    plan.placed(dst, src)
    return plan


def _counter_offsets(repeats: int, per_repeat: int, itemsize: int, blk: int, rep: int) -> np.ndarray:
    """Byte offset of element ``i`` of repeat ``r`` (``i < per_repeat``), flattened in issue order:
    the formula of :mod:`..addressing` with ``per_repeat`` lanes instead of one repeat's worth."""
    per_block = elems_per_block(itemsize)
    i = np.arange(per_repeat, dtype=np.int64)
    in_repeat = (i // per_block) * (blk * BLOCK_BYTES) + (i % per_block) * itemsize
    r = np.arange(repeats, dtype=np.int64)[:, None]
    return (r * (rep * BLOCK_BYTES) + in_repeat[None, :]).reshape(-1)


def _counter_footprint(name: str, repeats: int, per_repeat: int, itemsize: int, blk: int, rep: int) -> Footprint:
    offsets = _counter_offsets(repeats, per_repeat, itemsize, blk, rep)
    return Footprint(name, offsets, np.repeat(np.arange(repeats, dtype=np.int64), per_repeat), itemsize)


def vector_plan(op: VectorOp, dst: LocalTensor, src: LocalTensor, lanes, strides, words_after, registers,
                mode_after: MaskMode | None = None) -> VectorPlan:
    """The element-wise plan of a copy (``op``: copy or a C API alias) of these lanes."""
    relative = [strided_footprint(label, 0, lanes, dst.dtype.itemsize, blk, rep)
                for label, (blk, rep) in zip(("dst", "src"), strides, strict=True)]
    plan = VectorPlan(op, dst.dtype, lanes, tuple(strides), relative, words_after, mode_after, registers,
                      ("dst", "src"), None)
    plan.placed(op.name, [dst, src])  # bounds and overlap at this call's addresses
    return plan


def _nop(core: Core, operand: str) -> VectorPlan:
    """repeat_time = 0 (or a count of 0): a NOP on the A2/A3 (约束说明), not guaranteed on the 950."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(NAME, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{pages.COPY} 约束说明; {semantics('1.9')}")
    return VectorPlan(COPY_OP, None, None, (), [], None, None, (), ("dst", "src"), None)


_SETUP = ("core.ub_write(0, bytes(range(256)) * 32)\n"
          "x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1152)\n"
          "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 8192, 1152)\n")

copy = register(Instruction(
    NAME, "ascend", "data_movement", "V", FORMS, _compile, SOURCE, support=_support, exactness=BIT_EXACT,
    summary="dst = src at every active lane, UB -> UB by the vector unit, DataBlock strides per "
            "CopyRepeatParams (counter mode: the count is per repeat)",
    examples=(
        _SETUP + "asc.copy(z, x, 64, 4, asc.CopyRepeatParams(1, 1, 8, 8))",
        _SETUP + "asc.copy(z, x, [0x0F0F0F0F0F0F0F0F, 0], 3, asc.CopyRepeatParams(2, 1, 16, 8))",
        _SETUP + "asc.copy(z, x, 8, 18, asc.CopyRepeatParams(1, 1, 1, 8))",
        _SETUP + "asc.set_mask_count()\nasc.set_vector_mask(144, dtype=asc.int32, mode=asc.MaskMode.COUNTER)\n"
                 "asc.copy(z, x, 0, 1, asc.CopyRepeatParams(1, 8, 8, 8), False)",
    ),
    examples_on={"950": (  # the count form, of hifloat8_t codes (docs/semantics.md §5.32)
        "x = asc.LocalTensor(asc.hifloat8, asc.TPosition.VECIN, 0, 1024)\n"
        "z = asc.LocalTensor(asc.hifloat8, asc.TPosition.VECOUT, 8192, 1024)\n"
        "asc.copy(z, x, 600)",)},
    plan_context=mask_plan_context, fast_context=mask_fast_context,
    doc="``copy``: UB -> UB with a mask (an int or uint64 words) and CopyRepeatParams(dst_stride, src_stride, "
        "dst_repeat_size, src_repeat_size) in DataBlocks; the count form on the 950. In counter mode the mask "
        f"register's count is per repeat and repeat_time counts: {pages.COPY} 约束说明",
))
