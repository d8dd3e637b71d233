"""Per-repeat, per-DataBlock and per-pair reductions: WholeReduceSum/Max/Min (ReduceRepeat),
BlockReduceSum/Max/Min (ReduceDataBlock), PairReduceSum (ReducePairElem) and RepeatReduceSum.

pyasc keeps the legacy names (``basic/vec_reduce.py``), so these are the entry points; the
current pages (归约计算/ReduceRepeat.md, ReduceDataBlock.md, ReducePairElem.md) and the legacy
ones (removed in asc-devkit 3825d1c98) state the rules, the current page winning where they differ.
Forms (one each; ``mask`` is an int (contiguous) or a list of uint64 words (bitwise), and with
``is_set_mask=False`` the mask register set beforehand applies)::

    whole_reduce_sum(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride, is_set_mask=True)
    whole_reduce_max(dst, src, mask, repeat_time, dst_rep_stride, src_blk_stride, src_rep_stride,
                     order=ReduceOrder.ORDER_VALUE_INDEX, is_set_mask=True)              # and whole_reduce_min
    block_reduce_sum(dst, src, repeat, mask, dst_rep_stride, src_blk_stride, src_rep_stride, is_set_mask=True)
    pair_reduce_sum(dst, src, repeat_time, mask, dst_rep_stride, src_blk_stride, src_rep_stride, is_set_mask=True)
    repeat_reduce_sum(dst, src, repeat_time, mask, dst_blk_stride, src_blk_stride, dst_rep_stride,
                      src_rep_stride, is_set_mask=True)                                    # int mask only

A repeat reads its ``E = 256 / sizeof(src)`` lanes at the usual strided addresses
(:mod:`..addressing`) and splits them into *groups* that each give one result: the whole repeat
(whole_reduce_*, repeat_reduce_sum), each 32-byte DataBlock (block_reduce_*: 8 results per repeat,
written contiguously) or each pair of adjacent lanes (pair_reduce_sum: E/2 results).

* **SUM** is the adjacent-pair binary tree the pages draw (ReduceDataBlock.md 关键特性说明;
  ReduceRepeat.md "二叉树"; legacy WholeReduceSum.md / RepeatReduceSum.md, the 128-half example):
  level 1 adds ``(x0 + x1), (x2 + x3), ...``, level 2 adds adjacent level-1 results, until one
  value remains; every add is rounded to T (:func:`.arith.compute`, so CTRL[48]'s saturation of
  half applies at each node, the pages' ``[60000, 60000, -30000, 100] -> 35604``).  The vendor's
  lowering is one ``vcadd`` / ``vcgadd`` / ``vcpadd`` (implementation_notes §3.3,
  ``dav_c220/kernel_operator_vec_reduce_impl.h``).  Masked-off lanes enter the tree as +0.  Sources too
  small for any node to overflow are summed by numpy's own adds (:mod:`.reduce_tree`, the same bits).  The 950's
  integer sums (int16 -> int32, uint16 -> uint32, int32, uint32) wrap modulo 2^32, in any order.
* **MAX / MIN** give the IEEE maximum / minimum of the active lanes (a NaN wins, -0 < +0) and the
  lane of its *first* occurrence (ReduceRepeat.md 约束说明: the smallest index on ties; a NaN's
  index is the first NaN's, Reg矢量计算/归约计算/Reduce.md).  The index occupies a T-sized slot as an
  integer bit pattern (uint16 for 16-bit T, uint32 for 32-bit T); ``ORDER_ONLY_INDEX`` writes a
  uint32 (表3).  A NaN result is the canonical quiet NaN, as in :mod:`.arith`.
* **Groups with no active lane** (a DataBlock or pair wholly masked off): left unchanged on the
  A2/A3 and the 310P (the pages' 约束说明) and, by the legacy pages' "other products", on the 910
  and Kirin; the 310B and the 950 write a default: SUM and pairs 0, MAX -inf (310B half -65504),
  MIN +inf (310B half 65504).

``dst_rep_stride`` counts one repeat's result: whole_reduce_* 表3 (an element, two for value and
index, 4 bytes for ``ORDER_ONLY_INDEX``), block_reduce_* 8 elements (16 B half, 32 B float),
pair_reduce_sum 128 bytes, repeat_reduce_sum one element.  The dst start address needs that
alignment only (表3; block: 16 B half / 32 B float; pair and repeat_reduce_sum 32 B).

Overlap: the general rule (ReduceRepeat.md 约束说明, 通用地址重叠约束): within one repeat dst and src
share no byte, and no repeat reads what an earlier one wrote.  The legacy pages' looser "in place
with care" is not followed.  Not modelled: the 950's 8 KB UB scratch of the high-dimensional forms
(C008; where it lies is not documented).  WholeReduceMax/Min (and their C API forms) also leave the
extremum over all repeats and its first index in MAX_MIN_CNT where the product has it
(:mod:`.reduce_max_min_spr`, docs/semantics.md §5.18).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...memory import run_start
from ...overloads import Form, Param
from ...rounding import float_array_bits, float_format
from ...sources import semantics
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..addressing import ActiveLanes, lanes_per_repeat
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, check_overlap, strided_footprint
from ..masking import MaskWords, checked_counter_lanes, lanes_from_mask_arg, lanes_from_register
from ..operands import NEVER
from ..tensor import LocalTensor
from ..types import MaskMode, ReduceOrder
from . import arith
from .common import (
    c_api_page,
    count_form_context,
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    mask_fast_context,
    mask_plan_context,
    record_pipe_barrier,
    require_dtype,
    require_ub_tensor,
)
from .reduce_max_min_spr import REGISTER as MAX_MIN_CNT
from .reduce_max_min_spr import MaxMinCntWrite, max_min_cnt_write
from .reduce_tree import PairTree, bounded_tree_sum

__all__ = [
    "REDUCE_OPS", "ReduceBinding", "ReduceOp", "ReducePlan", "block_reduce_max", "block_reduce_min",
    "block_reduce_sum", "pair_reduce_sum", "repeat_reduce_sum", "whole_reduce_max", "whole_reduce_min",
    "whole_reduce_sum",
]

SUM, MAX, MIN = "sum", "max", "min"
REPEAT, BLOCK, PAIR = "repeat", "block", "pair"
DOC_DIR, LEGACY_DIR = pages.REDUCE, pages.REDUCE_LEGACY
REPEAT_PAGE = f"{DOC_DIR}/ReduceRepeat.md"
BLOCK_PAGE = f"{DOC_DIR}/ReduceDataBlock.md"
PAIR_PAGE = f"{DOC_DIR}/ReducePairElem.md"
REPEAT_SUM_PAGE = f"{LEGACY_DIR}/RepeatReduceSum.md"
INDEX_SLOT_BYTES = 4  # ORDER_ONLY_INDEX: a uint32_t index (表3)


def _is_order(v) -> bool:
    return v is None or isinstance(v, ReduceOrder) or is_int_arg(v)  # pyasc: Optional[ReduceOrder]


def _any(_value) -> bool:
    return True


DST, SRC = Param("dst", _any), Param("src", _any)  # checked by the plan step, naming the operand
MASK = Param("mask", is_mask_arg)
IS_SET_MASK = Param("is_set_mask", is_bool_arg, True)
_STRIDES = (Param("dst_rep_stride", is_int_arg), Param("src_blk_stride", is_int_arg),
            Param("src_rep_stride", is_int_arg))

WHOLE_SUM_FORMS = (Form("mask", (DST, SRC, MASK, Param("repeat_time", is_int_arg), *_STRIDES, IS_SET_MASK)),)
WHOLE_EXTREMUM_FORMS = (Form("mask", (DST, SRC, MASK, Param("repeat_time", is_int_arg), *_STRIDES,
                                      Param("order", _is_order, ReduceOrder.ORDER_VALUE_INDEX), IS_SET_MASK)),)
BLOCK_FORMS = (Form("mask", (DST, SRC, Param("repeat", is_int_arg), MASK, *_STRIDES, IS_SET_MASK)),)
PAIR_FORMS = (Form("mask", (DST, SRC, Param("repeat_time", is_int_arg), MASK, *_STRIDES, IS_SET_MASK)),)
REPEAT_SUM_FORMS = (Form("mask", (DST, SRC, Param("repeat_time", is_int_arg), Param("mask", is_int_arg),
                                  Param("dst_blk_stride", is_int_arg), Param("src_blk_stride", is_int_arg),
                                  Param("dst_rep_stride", is_int_arg), Param("src_rep_stride", is_int_arg),
                                  IS_SET_MASK)),)


# ------------------------------------------------------------ products and dtypes
def _same(*names: str) -> frozenset[tuple[str, str]]:
    return frozenset((name, name) for name in names)


_HALF_FLOAT = _same("float16", "float32")
_HALF = _same("float16")
_SUM_950 = _HALF_FLOAT | {("int32", "int16"), ("int32", "int32"), ("uint32", "uint16"), ("uint32", "uint32")}
_EXTREMUM_950 = _same("int16", "uint16", "float16", "int32", "uint32", "float32")
_CLASSIC = ("A2", "A3", "310B", "310P", "KirinX90", "Kirin9030")


def _rows(chips: tuple[str, ...], pairs: frozenset, **more: frozenset) -> dict[str, frozenset[tuple[str, str]]]:
    return {**{chip: pairs for chip in chips}, **more}


# (dst, src) dtype pairs per product, from each page's 数据类型 / 产品支持情况 (a product missing does not
# have the instruction): ReduceRepeat.md, ReduceDataBlock.md, ReducePairElem.md; legacy RepeatReduceSum.md.
DTYPES_BY_PRODUCT: dict[str, dict[str, frozenset[tuple[str, str]]]] = {
    "whole_reduce_sum": _rows(_CLASSIC, _HALF_FLOAT, **{"910": _HALF, "950": _SUM_950}),
    "whole_reduce_max": _rows(_CLASSIC, _HALF_FLOAT, **{"910": _HALF, "950": _EXTREMUM_950}),
    "whole_reduce_min": _rows(_CLASSIC, _HALF_FLOAT, **{"910": _HALF, "950": _EXTREMUM_950}),
    "block_reduce_sum": _rows(_CLASSIC + ("950",), _HALF_FLOAT, **{"910": _HALF}),
    "block_reduce_max": _rows(_CLASSIC + ("950",), _HALF_FLOAT, **{"910": _HALF}),
    "block_reduce_min": _rows(_CLASSIC + ("950",), _HALF_FLOAT, **{"910": _HALF}),
    "pair_reduce_sum": _rows(("A2", "A3", "310B", "310P", "950"), _HALF_FLOAT, **{"910": _HALF}),
    "repeat_reduce_sum": _rows(("A2", "A3", "310P", "910"), _HALF_FLOAT, **{"950": _SUM_950}),
}

_ALL_ORDERS = frozenset(ReduceOrder)
_VI, _IV, _OV = ReduceOrder.ORDER_VALUE_INDEX, ReduceOrder.ORDER_INDEX_VALUE, ReduceOrder.ORDER_ONLY_VALUE
# ReduceRepeat.md 约束说明: the orders each product supports
ORDERS_BY_PRODUCT: dict[str, frozenset[ReduceOrder]] = {
    "950": _ALL_ORDERS, "A2": _ALL_ORDERS, "A3": _ALL_ORDERS, "310B": frozenset({_VI, _OV}),
    "310P": frozenset({_VI, _IV}), "KirinX90": frozenset({_VI, _IV}), "Kirin9030": frozenset({_VI, _IV}),
    "910": frozenset({_VI}),
}
# products that write a default for a DataBlock / pair with no active lane (ReduceDataBlock.md,
# ReducePairElem.md 约束说明); the others leave it unchanged
WRITES_EMPTY_GROUPS = frozenset({"310B", "950"})
NO_ZERO_DST_STRIDE = frozenset({"910"})  # "Atlas 训练系列产品不支持配置0" (dstRepStride, all three pages)


@dataclass(frozen=True)
class ReduceOp:
    """One reduction instruction.

    Attributes:
        name: pyasc name.
        kind: what one result reduces: ``"repeat"``, ``"block"`` (a DataBlock) or ``"pair"``.
        operation: ``"sum"``, ``"max"`` or ``"min"``.
        page: the page its rules come from.
        forms: its call form.
        summary: what it computes, in one line.
        alias_of: for a C API function, the instruction it is (``asc_repeat_reduce_sum``: whole_reduce_sum).
        order: the ReduceOrder a C API max/min function's name fixes.
        sync: a ``*_sync`` C API function (a full pipe barrier follows).
    """

    name: str
    kind: str
    operation: str
    page: str
    forms: tuple[Form, ...]
    summary: str
    alias_of: str | None = None
    order: ReduceOrder | None = None
    sync: bool = False

    @property
    def types_source(self) -> str:
        """Where the page lists its dtypes (the legacy RepeatReduceSum.md in its 参数说明, a C API page in
        its 函数原型)."""
        if self.alias_of is not None:
            return f"{self.page} 函数原型"
        return f"{self.page} {'参数说明' if self.page == REPEAT_SUM_PAGE else '数据类型'}"

    @property
    def exactness(self) -> str:
        return IEEE_RNE if self.operation == SUM else BIT_EXACT


REDUCE_OPS: dict[str, ReduceOp] = {op.name: op for op in (
    ReduceOp("whole_reduce_sum", REPEAT, SUM, REPEAT_PAGE, WHOLE_SUM_FORMS,
             "dst[r] = adjacent-pair tree sum of repeat r's active lanes, each add rounded to T"),
    ReduceOp("whole_reduce_max", REPEAT, MAX, REPEAT_PAGE, WHOLE_EXTREMUM_FORMS,
             "dst[r] = (max, index of its first occurrence) of repeat r's active lanes, laid out by order"),
    ReduceOp("whole_reduce_min", REPEAT, MIN, REPEAT_PAGE, WHOLE_EXTREMUM_FORMS,
             "dst[r] = (min, index of its first occurrence) of repeat r's active lanes, laid out by order"),
    ReduceOp("block_reduce_sum", BLOCK, SUM, BLOCK_PAGE, BLOCK_FORMS,
             "dst[8r + b] = adjacent-pair tree sum of DataBlock b of repeat r, each add rounded to T"),
    ReduceOp("block_reduce_max", BLOCK, MAX, BLOCK_PAGE, BLOCK_FORMS,
             "dst[8r + b] = max of the active lanes of DataBlock b of repeat r"),
    ReduceOp("block_reduce_min", BLOCK, MIN, BLOCK_PAGE, BLOCK_FORMS,
             "dst[8r + b] = min of the active lanes of DataBlock b of repeat r"),
    ReduceOp("pair_reduce_sum", PAIR, SUM, PAIR_PAGE, PAIR_FORMS,
             "dst[(E/2)r + k] = src lane 2k + lane 2k+1 of repeat r, rounded once"),
    ReduceOp("repeat_reduce_sum", REPEAT, SUM, REPEAT_SUM_PAGE, REPEAT_SUM_FORMS,
             "dst[r] = adjacent-pair tree sum of repeat r's active lanes (legacy RepeatReduceSum)"),
)}


# ------------------------------------------------------------------ the layout
@dataclass(frozen=True)
class Layout:
    """Where one call's results go: per repeat ``groups`` results of ``width`` source lanes each,
    result ``g`` of repeat ``r`` at byte ``r * unit + g * pitch``, made of ``slots`` (``("value" |
    "index", bytes)`` in address order)."""

    width: int
    groups: int
    unit: int
    pitch: int
    slots: tuple[tuple[str, int], ...]

    @property
    def result_bytes(self) -> int:
        return sum(size for _kind, size in self.slots)


def _slots(op: ReduceOp, dst: DType, order: ReduceOrder | None) -> tuple[tuple[str, int], ...]:
    """The value and index slots of one result (ReduceRepeat.md 表3)."""
    size = dst.itemsize
    if op.operation == SUM or op.kind != REPEAT:
        return (("value", size),)
    return {
        ReduceOrder.ORDER_VALUE_INDEX: (("value", size), ("index", size)),
        ReduceOrder.ORDER_INDEX_VALUE: (("index", size), ("value", size)),
        ReduceOrder.ORDER_ONLY_VALUE: (("value", size),),
        ReduceOrder.ORDER_ONLY_INDEX: (("index", INDEX_SLOT_BYTES),),
    }[order]


def _layout(op: ReduceOp, dst: DType, src: DType, order: ReduceOrder | None, dst_rep_stride: int) -> Layout:
    lanes = lanes_per_repeat(src.itemsize)
    slots = _slots(op, dst, order)
    if op.kind == REPEAT:
        width, groups, unit = lanes, 1, sum(size for _kind, size in slots)
    elif op.kind == BLOCK:
        width, groups, unit = lanes // 8, 8, 8 * dst.itemsize  # ReduceDataBlock.md: 16 B half, 32 B float
    else:
        width, groups, unit = 2, lanes // 2, 128  # ReducePairElem.md: "即128字节"
    return Layout(width, groups, unit * dst_rep_stride, dst.itemsize, slots)


def _dst_alignment(op: ReduceOp, dst: DType, order: ReduceOrder | None) -> int:
    """The dst start alignment: ReduceRepeat.md 表3, ReduceDataBlock.md 约束说明 (16 B half, 32 B
    float), 32 B for ReducePairElem and the legacy RepeatReduceSum (the general rule)."""
    if op.alias_of is not None and op.operation != SUM and op.kind == REPEAT:
        return 2 * dst.itemsize  # asc_repeat_reduce_max.md / _min.md 约束说明: 4 B half, 8 B float, every order
    if op.kind == BLOCK:
        return 32 if op.alias_of is not None else 8 * dst.itemsize  # asc_datablock_reduce_*.md: 32 B
    if op.kind == PAIR or op.name == "repeat_reduce_sum":
        return 32
    return sum(size for _kind, size in _slots(op, dst, order))


# ----------------------------------------------------------------- planning
def _order(op: ReduceOp, bound: dict) -> ReduceOrder | None:
    if op.order is not None:
        return op.order
    if "order" not in bound:
        return None
    if bound["order"] is None:  # pyasc's Optional[ReduceOrder]: the default
        return ReduceOrder.ORDER_VALUE_INDEX
    value = require_int(op.name, "order", bound["order"], 0, len(ReduceOrder) - 1, f"{op.page} 参数说明",
                        rule="a ReduceOrder")
    return ReduceOrder(value)


def _compile(op: ReduceOp, core: Core, form: str, bound: dict) -> ReducePlan:
    """Check every rule of one call and plan it (relative to the tensors' addresses)."""
    name = op.name
    order = _order(op, bound)
    dst_arg, src_arg = bound["dst"], bound["src"]
    if not isinstance(dst_arg, LocalTensor):
        raise TypeError(f"{name}: dst must be a LocalTensor, got {type(dst_arg).__name__}")
    dst = require_ub_tensor(name, "dst", dst_arg, core, _dst_alignment(op, dst_arg.dtype, order),
                            f"{op.page} 约束说明 (目的操作数地址对齐); {semantics('1.5')}")
    src = require_ub_tensor(name, "src", src_arg, core)
    table = DTYPES_BY_PRODUCT[name]
    pairs = table.get(core.chip.name)
    if pairs is None:
        raise unsupported_on(core.chip, name, name, lambda chip: chip.name in table, f"{op.page} 产品支持情况")
    allowed_dst = frozenset(d for d, _s in pairs)
    require_dtype(name, "dst", dst.dtype, allowed_dst, f"{name} does not support this data type on "
                  f"{core.chip.product}", op.types_source)
    allowed_src = frozenset(s for d, s in pairs if d == dst.dtype.name)
    if src.dtype.name not in allowed_src:
        raise UnsupportedError(name, "src dtype", src.dtype.name, f"src with a {dst.dtype.name} dst",
                               ", ".join(sorted(allowed_src)), op.types_source)
    if order is not None and order not in ORDERS_BY_PRODUCT[core.chip.name]:
        allowed = ", ".join(o.name for o in sorted(ORDERS_BY_PRODUCT[core.chip.name]))
        raise UnsupportedError(name, "order", order.name, f"ReduceOrder on {core.chip.product}", allowed,
                               f"{op.page} 约束说明")
    strides = _strides(op, core, bound)
    native = core.chip.vector_lowering == "native"
    itemsize = src.dtype.itemsize
    words_after: MaskWords | None = None
    registers: tuple[str, ...] = ("MASK_MODE",)
    if "count" in bound:  # a C API count form: counter mode over the first count elements
        count = require_uint(name, "count", bound["count"], 32, f"{op.page} 参数说明")
        if count == 0:
            return _nop(op, core, "count")
        lanes = checked_counter_lanes(name, count, lanes_per_repeat(itemsize), "count")
        registers = ()
    elif "is_set_mask" in bound and require_bool(name, "is_set_mask", bound["is_set_mask"]):
        lanes, words = lanes_from_mask_arg(core, name, bound["mask"], bound[_repeat_param(op)], itemsize,
                                           lowering_counts_raw=not native)
        if native:
            words_after = words
    else:
        lanes = lanes_from_register(core, name, bound[_repeat_param(op)], itemsize)
        registers = ("MASK", "MASK_MODE")
    if lanes.repeats == 0 or lanes.count == 0:
        return _nop(op, core, "mask" if lanes.repeats else _repeat_param(op))
    if op.operation == SUM and dst.dtype.name in core.chip.float_saturation_dtypes:
        registers += ("CTRL",)  # the saturation switch, read per call
    layout = _layout(op, dst.dtype, src.dtype, order, strides["dst_rep_stride"])
    src_fp = strided_footprint("src", 0, lanes, itemsize, strides["src_blk_stride"], strides["src_rep_stride"])
    written = _written_groups(op, core, lanes, layout)
    spr = None
    if op.operation != SUM and op.kind == REPEAT:
        contiguous = strides["src_blk_stride"] == 1 and strides["src_rep_stride"] == 8
        counter = "count" in bound or core.mask_mode == MaskMode.COUNTER
        spr = max_min_cnt_write(core, op.operation, src.dtype, lanes, contiguous=contiguous, counter=counter,
                                exact_index=True)
    plan = ReducePlan(op, dst.dtype, src.dtype, lanes, layout, written, src_fp, _dst_footprint(layout, written),
                      words_after, registers, core.chip.name in WRITES_EMPTY_GROUPS, spr,
                      src_strides=(strides["src_blk_stride"], strides["src_rep_stride"]))
    plan.placed([dst, src])
    return plan


def _repeat_param(op: ReduceOp) -> str:
    return "repeat" if op.kind == BLOCK or op.alias_of is not None else "repeat_time"


_C_API_STRIDES = {"dst_repeat_stride": "dst_rep_stride", "src_block_stride": "src_blk_stride",
                  "src_repeat_stride": "src_rep_stride"}
_CONTIGUOUS = {"dst_rep_stride": 1, "src_blk_stride": 1, "src_rep_stride": 8}


def _strides(op: ReduceOp, core: Core, bound: dict) -> dict[str, int]:
    """The stride fields, each a uint16 (the pages' [0, 2^16 - 1]); dst_rep_stride 0 is rejected on the 910."""
    source = f"{op.page} 参数说明; {semantics('1.2')}"
    names = [p.name for p in op.forms[0].params if p.name.endswith("_stride")]
    if op.alias_of is not None:  # the C API: the count form is contiguous, the repeat form names them its way
        if "count" in bound:
            return dict(_CONTIGUOUS)
        return {_C_API_STRIDES[name]: require_uint(op.name, name, bound[name], 16, source) for name in names}
    strides = {name: require_uint(op.name, name, bound[name], 16, source) for name in names}
    if strides["dst_rep_stride"] == 0 and core.chip.name in NO_ZERO_DST_STRIDE:
        raise ParameterRangeError(op.name, "dst_rep_stride", 0, f"{core.chip.product} does not support a "
                                  "dst repeat stride of 0", "[1, 65535]", f"{op.page} 参数说明 (dstRepStride)")
    return strides


def _written_groups(op: ReduceOp, core: Core, lanes: ActiveLanes, layout: Layout) -> np.ndarray:
    """``(repeats, groups)``: which results are written (a group with no active lane only where the
    product writes a default)."""
    if lanes.mask is None or core.chip.name in WRITES_EMPTY_GROUPS:
        return np.ones((lanes.repeats, layout.groups), dtype=bool)
    return lanes.mask.reshape(lanes.repeats, layout.groups, layout.width).any(axis=2)


def _dst_footprint(layout: Layout, written: np.ndarray) -> Footprint:
    """The bytes of every written result, repeat-major, relative to dst (one access per byte)."""
    repeats = written.shape[0]
    starts = (np.arange(repeats, dtype=np.int64)[:, None] * layout.unit
              + np.arange(layout.groups, dtype=np.int64)[None, :] * layout.pitch)
    addrs = starts[written][:, None] + np.arange(layout.result_bytes, dtype=np.int64)[None, :]
    rows = np.broadcast_to(np.arange(repeats, dtype=np.int64)[:, None], written.shape)[written]
    return Footprint("dst", addrs.reshape(-1), np.repeat(rows, layout.result_bytes), 1)


def _nop(op: ReduceOp, core: Core, operand: str) -> ReducePlan:
    """mask = 0 or repeat_time = 0: a NOP on the A2/A3 (约束说明), not guaranteed to be one on the 950."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(op.name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{op.page} 约束说明; {semantics('1.9')}")
    return ReducePlan(op, None, None, None, None, None, None, None, None, (), False)


# ---------------------------------------------------------- plan and binding
@dataclass(eq=False)
class ReducePlan:
    """A checked reduction, relative to its tensors' addresses (a NOP when ``lanes`` is None).

    Attributes:
        op, dst_dtype, src_dtype, lanes, layout: the instruction, its types, active lanes and result layout.
        written: ``(repeats, groups)`` results written.
        src_fp, dst_fp: the source lanes read and the result bytes written, relative to each tensor.
        mask_words_after: what the lowering leaves in the mask register (native, ``is_set_mask``).
        registers: the registers a call reads.
        fills_empty: a group with no active lane is written with a default (310B, 950).
        max_min_cnt: how the call writes MAX_MIN_CNT (WholeReduceMax/Min where the product has it), or None.
        src_strides: src's ``(block stride, repeat stride)``, as ``src_fp`` places its lanes (the views draw the
            masked-off lanes there too).
    """

    op: ReduceOp
    dst_dtype: DType | None
    src_dtype: DType | None
    lanes: ActiveLanes | None
    layout: Layout | None
    written: np.ndarray | None
    src_fp: Footprint | None
    dst_fp: Footprint | None
    mask_words_after: MaskWords | None
    registers: tuple[str, ...]
    fills_empty: bool
    max_min_cnt: MaxMinCntWrite | None = None
    operands: tuple[str, ...] = ("dst", "src")
    src_strides: tuple[int, int] = (1, 8)

    def bind(self, core: Core, tensors: list[LocalTensor]) -> ReduceBinding:
        """The per-placement checks, in the plan step's order: usable tensors, bounds, overlap."""
        if self.lanes is None:
            for label, tensor in zip(self.operands, tensors, strict=True):
                require_ub_tensor(self.op.name, label, tensor, core)
            return ReduceBinding(self, None, None)
        dst, src = tensors
        alignment = _dst_alignment(self.op, self.dst_dtype, self._order())
        require_ub_tensor(self.op.name, "dst", dst, core, alignment,
                          f"{self.op.page} 约束说明 (目的操作数地址对齐); {semantics('1.5')}")
        require_ub_tensor(self.op.name, "src", src, core)
        return ReduceBinding(self, *self.placed(tensors))

    def _order(self) -> ReduceOrder | None:
        slots = self.layout.slots
        if self.op.operation == SUM or self.op.kind != REPEAT:
            return None
        if len(slots) == 2:
            return ReduceOrder.ORDER_VALUE_INDEX if slots[0][0] == "value" else ReduceOrder.ORDER_INDEX_VALUE
        return ReduceOrder.ORDER_ONLY_VALUE if slots[0][0] == "value" else ReduceOrder.ORDER_ONLY_INDEX

    def placed(self, tensors: list[LocalTensor]) -> tuple[Footprint, Footprint]:
        """The footprints at these tensors' addresses, checked for bounds and overlap (docs/semantics.md §1.6)."""
        dst, src = tensors
        dst_fp, src_fp = self.dst_fp.moved(dst.addr), self.src_fp.moved(src.addr)
        dst_fp.check_in(self.op.name, dst)
        src_fp.check_in(self.op.name, src)
        check_overlap(self.op.name, dst_fp, src_fp)
        return dst_fp, src_fp


class ReduceBinding:
    """A :class:`ReducePlan` at one placement: what it reads and writes, and the computation."""

    def __init__(self, plan: ReducePlan, dst_fp: Footprint | None, src_fp: Footprint | None) -> None:
        self.plan = plan
        self.dst_fp = dst_fp
        self.src_fp = src_fp
        self.registers_read = plan.registers
        self.registers_written = (("MASK",) if plan.mask_words_after is not None else ()) + \
            ((MAX_MIN_CNT,) if plan.max_min_cnt is not None else ())
        self.src_run_values = None  # a dense source's (repeats, lanes) elements: a view of UB, made by the first call
        if src_fp is not None:  # the source's element indices, and a dense source's first: computed once
            self.src_index = src_fp.elem_index
            self.src_run = run_start(self.src_index)
        self.src_seen = NEVER  # the shadow epoch in which every source element was seen written
        self.every_slot = plan.written is not None and bool(plan.written.all())  # no result slot left out
        # results that fill one run of dst bytes are stored as a slice (a float sum's by the tree's last add)
        self.dst_run = run_start(dst_fp.addrs) if dst_fp is not None and self.every_slot else None
        self.dst_marked = NEVER  # the shadow epoch in which dst_run's bytes were marked written
        self.tree: PairTree | None = None  # a float sum in T: the tree's buffers, made by the first call
        self.tree_route = (plan.lanes is not None and plan.op.operation == SUM and plan.dst_dtype == plan.src_dtype
                           and plan.dst_dtype.np_dtype in (_HALF, _SINGLE))
        # a max / min of one repeat of every lane, of half or float32: one result, found on Python integers
        self.one_extremum = (plan.lanes is not None and plan.op.operation != SUM and plan.lanes.mask is None
                             and plan.lanes.repeats == 1 and plan.layout.groups == 1
                             and plan.src_dtype.np_dtype in (_HALF, _SINGLE) and self.dst_run is not None)

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        if self.src_fp is None:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.src_fp.byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        if self.dst_fp is None:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.dst_fp.addrs))

    def run(self, core: Core, values: tuple) -> None:
        """Read the active source lanes, reduce every group, then commit (nothing changes before)."""
        plan = self.plan
        if plan.lanes is None:
            return
        ub, lanes, src_dtype = core.ub, plan.lanes, plan.src_dtype
        index = self.src_index
        if self.src_seen != ub.shadow_epoch:  # written bytes stay written until the epoch changes
            ub.check_initialized(plan.op.name, "src", index, src_dtype.itemsize)
            self.src_seen = ub.shadow_epoch
        if lanes.mask is None:
            if self.src_run is not None:
                grid = self.src_run_values
                if grid is None:
                    run = ub.data.view(src_dtype.raw)[self.src_run : self.src_run + index.size]
                    grid = self.src_run_values = run.reshape(lanes.repeats, lanes.lanes)
            else:
                grid = ub.gather(index, src_dtype.raw).reshape(lanes.repeats, lanes.lanes)
        else:
            grid = np.zeros((lanes.repeats, lanes.lanes), dtype=src_dtype.raw)  # inactive lanes: +0
            grid[lanes.mask] = ub.gather(index, src_dtype.raw)
        if self.tree_route and self._tree_sum(core, grid):
            return
        if self.one_extremum and self._one_extremum(core, grid[0]):
            return
        spr_state = extrema = None
        if plan.max_min_cnt is not None:  # over every repeat at once: the first extremum of all active lanes
            active = None if lanes.mask is None else lanes.mask.reshape(1, -1)
            value, index = extremum(grid.reshape(1, -1), active, src_dtype, plan.op.operation == MAX)
            spr_state = plan.max_min_cnt.state(value[0], index[0])
            if grid.shape[0] == 1 and plan.layout.groups == 1:  # one repeat, one group: the same extremum
                extrema = value, index
        self._commit(core, reduce_groups(plan, core, grid, extrema, self.every_slot), spr_state)

    def _tree_sum(self, core: Core, grid: np.ndarray) -> bool:
        """A float sum by :class:`.reduce_tree.PairTree`, committed; ``False`` (nothing done) when the
        sources are not all within its bound."""
        tree = self.tree
        if tree is None:
            tree = self.tree = self._make_tree(core.ub, grid)
        root = tree.sum(grid)
        if root is None:
            return False
        if self.dst_run is None:
            value = root.view(self.plan.dst_dtype.raw).reshape(-1)
            self._commit(core, result_bytes(self.plan, value, None, self.every_slot))
        else:  # the root is dst's bytes
            self._commit(core, None)
        return True

    def _one_extremum(self, core: Core, row: np.ndarray) -> bool:
        """A max / min of one repeat of every lane by :func:`compared_lane`, committed (MAX_MIN_CNT gets the
        same extremum: the call's only repeat); ``False`` (nothing done) for a zero or NaN extremum."""
        plan = self.plan
        found = compared_lane(row, plan.src_dtype, plan.op.operation == MAX)
        if found is None:
            return False
        lane, bits = found
        spr_state = None if plan.max_min_cnt is None else plan.max_min_cnt.state(bits, lane)
        slots = [(bits if kind == "value" else lane).to_bytes(size, "little") for kind, size in plan.layout.slots]
        self._commit(core, np.frombuffer(b"".join(slots), np.uint8), spr_state)
        return True

    def _make_tree(self, ub, grid: np.ndarray) -> PairTree:
        layout, dtype = self.plan.layout, self.plan.dst_dtype
        rows = grid.shape[0] * layout.groups
        root = None
        if self.dst_run is not None:
            root = ub.data[self.dst_run : self.dst_run + rows * dtype.itemsize].view(dtype.np_dtype).reshape(rows, 1)
        return PairTree(rows, layout.width, dtype, grid if grid is self.src_run_values else None, root)

    def _commit(self, core: Core, result: np.ndarray | None, spr_state=None) -> None:
        """Store the results' bytes (``None``: in dst's run already, by the tree), then MAX_MIN_CNT, then the
        mask the lowering leaves behind."""
        ub, run = core.ub, self.dst_run
        if run is None:
            ub.scatter(self.dst_fp.addrs, result)
        else:
            if result is not None:
                ub.data[run : run + result.size] = result
            if self.dst_marked != ub.shadow_epoch:  # marked since, and nothing unmarked (that moves the epoch)
                ub.mark_written(run, run + self.dst_fp.addrs.size)
                self.dst_marked = ub.shadow_epoch
        if spr_state is not None:
            core.max_min_cnt = spr_state
        if self.plan.mask_words_after is not None:
            core.set_mask_words(*self.plan.mask_words_after)
        if self.plan.op.sync:
            record_pipe_barrier(core)


# ---------------------------------------------------------------- computing
def reduce_groups(plan: ReducePlan, core: Core, grid: np.ndarray,
                  extrema: tuple[np.ndarray, np.ndarray] | None = None, every_slot: bool = False) -> np.ndarray:
    """The bytes of every written result, in the dst footprint's order (``extrema``: the groups'
    :func:`extremum`, when the caller has it already; ``every_slot``: the plan writes every result slot)."""
    layout, dst_dtype = plan.layout, plan.dst_dtype
    repeats = grid.shape[0]
    groups = grid.reshape(repeats * layout.groups, layout.width)
    active = None if plan.lanes.mask is None else plan.lanes.mask.reshape(groups.shape)
    index = None
    if plan.op.operation == SUM:
        saturate = core.float_saturation and dst_dtype.name in core.chip.float_saturation_dtypes
        value = tree_sum(groups, plan.src_dtype, dst_dtype, saturate)
    else:
        value, index = extrema or extremum(groups, active, plan.src_dtype, plan.op.operation == MAX)
        if active is not None and plan.fills_empty:
            empty = ~active.any(axis=1)
            value = np.where(empty, _empty_value(core, dst_dtype, plan.op.operation == MAX), value)
    return result_bytes(plan, value, index, every_slot)


def result_bytes(plan: ReducePlan, value: np.ndarray, index: np.ndarray | None, every_slot: bool) -> np.ndarray:
    """Every written result's bytes, in the dst footprint's order, from each group's value and index."""
    parts = []
    for kind, size in plan.layout.slots:
        if kind == "value":
            parts.append(value.astype(plan.dst_dtype.raw).view(np.uint8).reshape(-1, size))
        else:
            parts.append(index.astype(np.dtype(f"<u{size}")).view(np.uint8).reshape(-1, size))
    result = np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
    return result.reshape(-1) if every_slot else result[plan.written.reshape(-1)].reshape(-1)


def tree_sum(groups: np.ndarray, src: DType, dst: DType, saturate: bool) -> np.ndarray:
    """Each row's adjacent-pair binary tree sum: ``(x0 + x1), (x2 + x3), ...`` then adjacent results
    again, every add rounded to T (:func:`.arith.compute`); integer rows (the 950's) summed modulo
    2^32 after widening, where the order does not matter."""
    if not dst.is_float:
        wide = groups.view(src.np_dtype).astype(np.int64).sum(axis=1)
        return (wide & 0xFFFFFFFF).astype(np.uint32).view(dst.raw)
    if src == dst and dst.np_dtype in (_HALF, _SINGLE):
        bounded = bounded_tree_sum(groups, dst)  # sources too small for any node to overflow
        if bounded is not None:
            return bounded
        finite = _finite_tree_sum(groups, dst)
        if finite is not None:
            return finite
    level = groups
    while level.shape[1] > 1:
        level = arith.compute("add", dst, [level[:, 0::2], level[:, 1::2]], saturate)
    return level[:, 0]


def _finite_tree_sum(groups: np.ndarray, dtype: DType) -> np.ndarray | None:
    """:func:`tree_sum` of half or float32 rows in IEEE arithmetic (each node's float32 sum rounded to
    nearest even T, as :func:`.arith.compute` rounds it), or ``None`` if some row's sum is not finite.

    A node that is infinite or NaN makes every node above it infinite or NaN (the tree only adds), so a
    finite root means no node met the products' infinity, NaN or saturation rules: the IEEE results are
    theirs.  Otherwise the caller computes the tree node by node with those rules.

    Half nodes are rounded by numpy's float32 -> half conversion, which is IEEE's but some hundred times
    slower for an element whose result is an inexact subnormal (:func:`~npusim.rounding.float_array_bits`
    says why): when more than a few sources are subnormal (such nodes are then likely), the nodes are
    rounded by ``float_array_bits`` instead, which steps around that."""
    if dtype.np_dtype == _HALF:
        level = groups.view(_HALF)
        # the subnormal sources: magnitudes 1 to 0x3FF (a zero wraps below: a zero node converts fast)
        magnitude = groups.view(np.uint16) & np.uint16(0x7FFF)
        normal = np.count_nonzero(magnitude - np.uint16(1) < np.uint16(0x03FF)) <= _FEW_SUBNORMALS
    elif dtype.np_dtype == _SINGLE:
        level = groups.view(_SINGLE)
    else:
        return None
    with np.errstate(all="ignore"):  # an overflow shows in the root, which sends the call to the exact path
        while level.shape[1] > 1:
            pairs = level[:, 0::2].astype(_SINGLE) + level[:, 1::2]
            if dtype.np_dtype == _SINGLE:
                level = pairs
            elif normal:  # few subnormal nodes: each costs numpy some 0.25 µs, and its result is exact
                level = pairs.astype(_HALF)
            else:
                level = float_array_bits(pairs, dtype).view(_HALF)
    root = level[:, 0]
    if not np.logical_and.reduce(np.isfinite(root), axis=None):
        return None
    return root.view(dtype.raw)


_HALF, _SINGLE = np.dtype(np.float16), np.dtype(np.float32)
_FEW_HALVES = 512  # numpy's half argmax costs about 2 µs for 1024 elements, the keys 4 µs whatever the size
_FEW_SUBNORMALS = 32  # what numpy's slow elements may cost (about 8 µs) before float_array_bits is cheaper


def _order_keys(groups: np.ndarray, dtype: DType, maximum: bool,
                active: np.ndarray | None) -> tuple[np.ndarray, bool]:
    """Integer keys ordered as the values, for a first-occurrence argmax/argmin: -0 below +0, a NaN
    above everything for max (below for min), so that a NaN wins, and an inactive lane (``active``
    False) never chosen; and whether some lane holds a NaN.

    A float's bits read as a signed integer ``s`` order the non-negative values; flipping every bit
    but the sign of a negative one (``s ^ 0x7F..F``) orders the negatives below them, -0 just under
    +0.  The keys keep the element's width; only a NaN or an inactive lane, rare, widens them to
    int64 for a key outside every value's.
    """
    any_nan = False
    if not dtype.is_float:
        keys = groups.view(dtype.np_dtype)
    else:
        fmt = float_format(dtype)
        signed = groups.view(_SIGNED[dtype.itemsize])
        below_sign = signed.dtype.type(fmt.sign_bit - 1)
        keys = signed ^ ((signed >> (8 * dtype.itemsize - 1)) & below_sign)
        magnitude = signed & below_sign
        any_nan = magnitude.size and int(np.maximum.reduce(magnitude, axis=None)) > fmt.exponent_all_ones
        if any_nan:
            keys = np.where(magnitude > fmt.exponent_all_ones, np.int64(1 << 40) * (1 if maximum else -1),
                            keys.astype(np.int64))
    if active is not None:
        keys = np.where(active, keys.astype(np.int64), np.int64(1 << 41) * (-1 if maximum else 1))
    return keys, bool(any_nan)


_SIGNED = {1: np.dtype(np.int8), 2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def extremum(groups: np.ndarray, active: np.ndarray | None, dtype: DType,
             maximum: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each row's maximum (or minimum) over its active lanes and the lane of its first occurrence."""
    if active is None and (dtype.np_dtype == _SINGLE or (dtype.np_dtype == _HALF and groups.size <= _FEW_HALVES)):
        found = _compared_extremum(groups, dtype, maximum)
        if found is not None:
            return found
    keys, any_nan = _order_keys(groups, dtype, maximum, active)
    lane = keys.argmax(axis=1) if maximum else keys.argmin(axis=1)
    value = groups[np.arange(groups.shape[0]), lane]
    if any_nan:  # the chosen NaN (a NaN wins wherever a row has one) becomes the canonical quiet NaN
        fmt = float_format(dtype)
        raw = dtype.raw.type
        nan = (value & raw(fmt.sign_bit - 1)) > raw(fmt.exponent_all_ones)
        value = np.where(nan, raw(fmt.quiet_nan), value).astype(dtype.raw)
    return value, lane


def _compared_extremum(groups: np.ndarray, dtype: DType, maximum: bool) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`extremum` of every lane by numpy's own float comparison (argmax / argmin), or ``None`` where that
    may differ from the keys' order: when some row's extremum is a zero (-0 and +0 compare equal, while the
    keys order -0 first) or a NaN (numpy stops at the first NaN; the keys make any NaN win, then canonical).
    Otherwise the extremum is a nonzero number, equal values have equal bits, and numpy's first occurrence
    of it is the keys' (half and float32 only: numpy compares them exactly; halves some 5 ns each, against
    the keys' fixed 3-4 µs: only :data:`_FEW_HALVES` of them)."""
    if groups.shape[0] == 1:  # one row (a repeat-1 call)
        found = compared_lane(groups[0], dtype, maximum)
        return None if found is None else (groups[0, found[0] : found[0] + 1].copy(), np.array([found[0]]))
    fmt = float_format(dtype)
    values = groups.view(dtype.np_dtype)
    lane = values.argmax(axis=1) if maximum else values.argmin(axis=1)
    value = groups[np.arange(groups.shape[0]), lane]
    magnitude = value & dtype.raw.type(fmt.sign_bit - 1)
    if np.logical_or.reduce((magnitude == 0) | (magnitude > dtype.raw.type(fmt.exponent_all_ones)), axis=None):
        return None
    return value, lane


def compared_lane(row: np.ndarray, dtype: DType, maximum: bool) -> tuple[int, int] | None:
    """:func:`_compared_extremum` of one row of every lane active, as Python integers: the lane of the first
    extremum and its bits, or ``None`` (a zero or NaN extremum)."""
    lane = int(row.view(dtype.np_dtype).argmax() if maximum else row.view(dtype.np_dtype).argmin())
    bits = int(row[lane])
    fmt = float_format(dtype)
    magnitude = bits & (fmt.sign_bit - 1)
    if magnitude == 0 or magnitude > fmt.exponent_all_ones:
        return None
    return lane, bits


def _empty_value(core: Core, dtype: DType, maximum: bool):
    """What a DataBlock with no active lane gets on the 310B / 950 (ReduceDataBlock.md 约束说明):
    MAX -inf, MIN +inf; on the 310B half -65504 / +65504."""
    fmt = float_format(dtype)
    magnitude = fmt.max_finite if core.chip.name == "310B" and dtype.name == "float16" else fmt.exponent_all_ones
    return dtype.raw.type(magnitude | (fmt.sign_bit if maximum else 0))


# ------------------------------------------------------------------ the API
_SETUP = {"float32": "x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)\n"
                     "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 64)\n",
          "float16": "x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
                     "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 256)\n"}
_CALLS = {
    "whole_reduce_sum": ("float16", ("asc.whole_reduce_sum(z, x, 128, 4, 1, 1, 8)",
                                     "asc.whole_reduce_sum(z, x, [0xFFFF0000FFFF, 0xFF], 2, 2, 1, 8)")),
    "whole_reduce_max": ("float32", ("asc.whole_reduce_max(z, x, 64, 8, 1, 1, 8)",
                                     "asc.whole_reduce_max(z, x, [0xF0F0F0F0F0F0F0F0, 0], 4, 1, 1, 8, "
                                     "asc.ReduceOrder.ORDER_ONLY_INDEX)")),
    "whole_reduce_min": ("float16", ("asc.whole_reduce_min(z, x, 100, 4, 1, 1, 8, asc.ReduceOrder.ORDER_INDEX_VALUE)",
                                     "asc.whole_reduce_min(z, x, [0xFFFF, 0xFFFF], 2, 1, 2, 16)")),
    "block_reduce_sum": ("float16", ("asc.block_reduce_sum(z, x, 4, 128, 1, 1, 8)",
                                     "asc.block_reduce_sum(z, x, 2, [0x00FF00FF00FF00FF, 0], 2, 1, 8)")),
    "block_reduce_max": ("float32", ("asc.block_reduce_max(z, x, 8, 64, 1, 1, 8)",
                                     "asc.block_reduce_max(z, x, 2, [0x0F0F0F0F0F0F0F0F, 0], 1, 2, 16)")),
    "block_reduce_min": ("float16", ("asc.block_reduce_min(z, x, 4, 100, 1, 1, 8)",)),
    "pair_reduce_sum": ("float32", ("asc.pair_reduce_sum(z, x, 1, 64, 1, 1, 8)",
                                    "asc.pair_reduce_sum(z, x, 2, [0x5555555555555555, 0], 1, 1, 8)")),
    "repeat_reduce_sum": ("float16", ("asc.repeat_reduce_sum(z, x, 4, 128, 0, 1, 1, 8)",
                                      "asc.repeat_reduce_sum(z, x, 2, 77, 0, 2, 3, 16)")),
}


def _examples(op: ReduceOp) -> tuple[str, ...]:
    dtype, calls = _CALLS[op.name]
    return tuple(_SETUP[dtype] + call for call in calls)


def _register(op: ReduceOp):
    return register(Instruction(
        op.name, "ascend", "reduce", "V", op.forms,
        lambda core, form, values, op=op: _compile(op, core, form, values), op.page,
        support=lambda chip, name=op.name: DTYPES_BY_PRODUCT[name].get(chip.name), exactness=op.exactness,
        summary=op.summary, examples=_examples(op), plan_context=mask_plan_context, fast_context=mask_fast_context,
        doc=f"``{op.summary}`` ({op.page}).",
    ))


whole_reduce_sum = _register(REDUCE_OPS["whole_reduce_sum"])
whole_reduce_max = _register(REDUCE_OPS["whole_reduce_max"])
whole_reduce_min = _register(REDUCE_OPS["whole_reduce_min"])
block_reduce_sum = _register(REDUCE_OPS["block_reduce_sum"])
block_reduce_max = _register(REDUCE_OPS["block_reduce_max"])
block_reduce_min = _register(REDUCE_OPS["block_reduce_min"])
pair_reduce_sum = _register(REDUCE_OPS["pair_reduce_sum"])
repeat_reduce_sum = _register(REDUCE_OPS["repeat_reduce_sum"])



# ------------------------------------------------------------------ the C API
C_API_COUNT = Form("count", (DST, SRC, Param("count", is_int_arg)))
C_API_REPEAT = Form("repeat", (DST, SRC, Param("repeat", is_int_arg), Param("dst_repeat_stride", is_int_arg),
                               Param("src_block_stride", is_int_arg), Param("src_repeat_stride", is_int_arg)))
_C_API_PRODUCTS = ("A2", "A3")  # every asc_*reduce* page: A2/A3 only


def _c_api_ops() -> list[ReduceOp]:
    """``asc_datablock_reduce_*``, ``asc_pair_reduce_sum``, ``asc_repeat_reduce_sum`` and
    ``asc_repeat_reduce_{max,min}_{value_index,index_value,only_value,only_index}``
    (C-API/vector_compute/, capi_aliases.json), each also as ``*_sync`` (count form only)."""
    plain = [(f"asc_datablock_reduce_{op}", f"block_reduce_{op}", None) for op in (SUM, MAX, MIN)]
    plain += [("asc_pair_reduce_sum", "pair_reduce_sum", None), ("asc_repeat_reduce_sum", "whole_reduce_sum", None)]
    for extremum_op in ("max", "min"):
        for order in ReduceOrder:
            suffix = order.name.removeprefix("ORDER_").lower()
            plain.append((f"asc_repeat_reduce_{extremum_op}_{suffix}", f"whole_reduce_{extremum_op}", order))
    ops = []
    for name, base, order in plain:
        target = REDUCE_OPS[base]
        for sync in (False, True):
            full = f"{name}_sync" if sync else name
            forms = (C_API_COUNT,) if sync else (C_API_REPEAT, C_API_COUNT)
            page = c_api_page(full if order is None else f"asc_repeat_reduce_{target.operation}")
            ops.append(ReduceOp(full, target.kind, target.operation, page, forms,
                                f"C API {target.summary}" + (" (then a full pipe barrier)" if sync else ""),
                                alias_of=base, order=order, sync=sync))
    return ops


C_API_OPS = {op.name: op for op in _c_api_ops()}
DTYPES_BY_PRODUCT.update({name: {chip: _HALF_FLOAT for chip in _C_API_PRODUCTS} for name in C_API_OPS})


def _c_api_examples(op: ReduceOp) -> tuple[str, ...]:
    setup = _SETUP["float16"]
    count = f"asc.{op.name}(z, x, 300)"
    if op.sync:
        return (setup + count,)
    return (setup + f"asc.set_vector_mask(0xFFFF, 0xFF)\nasc.{op.name}(z, x, 2, 1, 1, 8)", setup + count)


def _register_c_api(op: ReduceOp):
    return register(Instruction(
        op.name, "ascend", "reduce", "V", op.forms,
        lambda core, form, values, op=op: _compile(op, core, form, values), f"{op.page} 功能说明",
        support=lambda chip, name=op.name: DTYPES_BY_PRODUCT[name].get(chip.name), exactness=op.exactness,
        summary=op.summary, examples=_c_api_examples(op), plan_context=count_form_context,
        fast_context=mask_fast_context,
        alias_of=op.alias_of, doc=f"``{op.summary}`` ({op.page}).  The repeat form reads the lanes from the vector "
        "mask register; the count form reduces the first ``count`` elements in counter mode, contiguously.",
    ))


globals().update({name: _register_c_api(op) for name, op in C_API_OPS.items()})
