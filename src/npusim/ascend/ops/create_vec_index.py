"""CreateVecIndex (数据填充/CreateVecIndex.md): fill dst with an index sequence from ``first_value``.

Forms (pyasc has none; names as pyasc spells the elementwise forms)::

    create_vec_index(dst, first_value, count)                                                 # dst[i] = first + i
    create_vec_index(dst, first_value, mask, repeat_time, dst_blk_stride, dst_rep_stride)      # int or [lo, hi]

Lane ``l`` of repeat ``r`` (``E = 256 / sizeof(T)`` lanes, at the usual strided address, :mod:`..addressing`)
receives ``first + r * E + l``; the count form's element ``i`` is lane ``i % E`` of repeat ``i // E``, so it
gets ``first + i``.  Masked-off lanes keep their bytes.  Integers wrap modulo 2^bits (the page asks only
that ``first_value`` itself fits T).

How a value is rounded follows each product's lowering (docs/semantics.md §5.19):

* **scalar blocks** (A2/A3 ``dav_c220``, 310P ``dav_m200``): the scalar unit writes the first DataBlock's
  ``B = 32 / sizeof(T)`` lanes, ``T(float(first) + float(j))`` (dav_c220 computes integers in int64;
  dav_m200 computes every type in float, then converts to T truncating), then ``Adds`` builds each further
  DataBlock of the repeat as the previous one plus ``B``, and each further repeat as the previous one plus
  ``E``: a float lane is rounded after each of those adds.
* **one register** (310B ``dav_m300``, 950 ``dav_3510``): ``vci`` / ``Arange`` makes ``first + l`` in a
  register (npusim: the exact value rounded once to T, the documents do not say), stored per repeat and
  then increased by ``E`` with ``vadds``, rounded after each add.  The 950's int64 count form makes every
  ``first + i`` exactly.

Where every partial sum is an integer that T holds exactly (integral ``first`` and ``|first| + count``
below 2^11 for half, 2^24 for float) all lowerings give the page's ``np.arange``.

Rules: dst 32-byte aligned in UB; on the 310P an integer ``first_value`` whose float sums ``first + j``
leave T (the conversion back is undefined); T per product (数据类型; the 310P's from its ``dav_m200`` check, the page
lists none); ``first_value`` inside T's range (约束说明); count / repeat_time 0 a NOP on the A2/A3 and the
310P, rejected on the 950 ("不保证 ... NOP"); a dst block stride of 0 is rejected, and repeats may overlap
only when they coincide (dst_rep_stride 0: the last repeat wins), since the scalar-block lowering builds each
repeat from the previous one in memory.  Rejected as not modelled: the mask forms in counter mode, and on the
scalar-block products a contiguous mask below ``B`` (dav_c220 then adds the DataBlock *before* dst into dst) or
above ``E`` (dav_c220 takes it as a count of DataBlocks, where the mask APIs clamp it to E).

Registers left behind (the lowering's own mask settings): on the scalar-block products a count form (or a
contiguous mask) longer than one DataBlock issues count-form ``Adds`` (normal mode, the mask all ones
afterwards), and every later repeat an ``Adds`` with the call's mask (the mask register holds it); on the
950 and the 310B a bitwise mask goes into the mask register (``SetVectorMask``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...rounding import float_array_bits
from ...sources import semantics
from ...validate import require_int, require_uint
from .. import pages
from ..addressing import FULL_WORD, ActiveLanes, contiguous_mask_words, lanes_per_repeat
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, strided_footprint
from ..masking import MAX_REPEAT, MaskWords, checked_counter_lanes, lanes_from_mask_arg
from ..operands import OperandAccess, StridedOperand, choose_layout
from ..tensor import LocalTensor
from ..types import MaskMode
from . import arith
from .common import (
    is_int_arg,
    is_mask_arg,
    is_scalar,
    mask_registers_left,
    require_dtype,
    require_ub_tensor,
    scalar_bits_cached,
)

__all__ = ["COUNT_DTYPES", "LOWERINGS", "MASK_DTYPES", "create_vec_index", "index_values"]

NAME = "create_vec_index"
PAGE = pages.CREATE_VEC_INDEX
RULES = semantics("5.19")
_CLASSIC = frozenset({"int16", "float16", "int32", "float32"})
#: T per product and form (数据类型: the 950's int8/int64 only in the count form); products missing do not
#: have CreateVecIndex (产品支持情况: the 910 and the 310P Vector Core do not; Kirin is not listed)
COUNT_DTYPES: dict[str, frozenset[str]] = {"A2": _CLASSIC, "A3": _CLASSIC, "310B": _CLASSIC, "310P": _CLASSIC,
                                           "950": _CLASSIC | {"int8", "int64"}}
MASK_DTYPES: dict[str, frozenset[str]] = {chip: _CLASSIC for chip in COUNT_DTYPES}
SCALAR_BLOCKS, ONE_REGISTER = "scalar blocks", "one register"


@dataclass(frozen=True)
class Lowering:
    """How a product builds the sequence (module docstring).

    Attributes:
        kind: ``"scalar blocks"`` or ``"one register"``.
        scalar_in_float: the scalar unit computes ``first + j`` of every type in float (dav_m200).
        bitwise_sets_mask: a bitwise mask is left in the mask register (dav_m300 / dav_3510 ``SetVectorMask``).
    """

    kind: str
    scalar_in_float: bool = False
    bitwise_sets_mask: bool = False


LOWERINGS: dict[str, Lowering] = {
    "A2": Lowering(SCALAR_BLOCKS), "A3": Lowering(SCALAR_BLOCKS), "310P": Lowering(SCALAR_BLOCKS, True),
    "310B": Lowering(ONE_REGISTER, bitwise_sets_mask=True), "950": Lowering(ONE_REGISTER, bitwise_sets_mask=True),
}


def _any(_value) -> bool:
    return True


_HEAD = (Param("dst", _any), Param("first_value", is_scalar))
FORMS = (Form("count", (*_HEAD, Param("count", is_int_arg))),
         Form("mask", (*_HEAD, Param("mask", is_mask_arg), Param("repeat_time", is_int_arg),
                       Param("dst_blk_stride", is_int_arg), Param("dst_rep_stride", is_int_arg))))


# ------------------------------------------------------------------ the values
def index_values(lowering: Lowering, dtype: DType, first_bits: np.ndarray, repeats: int, saturate: bool,
                 int64_exact: bool = False) -> np.ndarray:
    """The raw value of every lane of every repeat, shape ``(repeats, E)``, as the lowering computes it."""
    lanes = lanes_per_repeat(dtype.itemsize)
    first = first_bits.view(dtype.np_dtype)[0]
    if not dtype.is_float:
        return _integer_values(lowering, dtype, int(first), repeats, lanes, int64_exact)
    if _all_exact(dtype, float(first), repeats * lanes):  # integers T holds: no rounding anywhere
        exact = float(first) + np.arange(repeats * lanes, dtype=np.float64)
        return exact.astype(dtype.np_dtype).view(dtype.raw).reshape(repeats, lanes)
    first_repeat = _float_first_repeat(lowering, dtype, first, lanes, saturate)
    return _chained(dtype, first_repeat, repeats, lanes, saturate)


def _integer_values(lowering: Lowering, dtype: DType, first: int, repeats: int, lanes: int,
                    int64_exact: bool) -> np.ndarray:
    """Wrapping integers: the chain of adds is ``v0 + b * B + r * E`` modulo 2^bits."""
    index = np.arange(repeats * lanes, dtype=np.int64)
    block = 32 // dtype.itemsize
    if int64_exact or lowering.kind == ONE_REGISTER or not lowering.scalar_in_float:
        start = first + index  # int64 on dav_c220, exact in vci / Arange; wrapped below
    else:  # dav_m200: T(float(first) + float(j)) for the first DataBlock, truncated toward zero
        within = index % block
        start = np.trunc(np.float32(first) + within.astype(np.float32)).astype(np.int64) + (index - within)
    bits = 8 * dtype.itemsize
    wrapped = start.astype(np.uint64) & np.uint64((1 << bits) - 1) if bits < 64 else start.astype(np.uint64)
    return wrapped.astype(dtype.raw).reshape(repeats, lanes)


def _all_exact(dtype: DType, first: float, count: int) -> bool:
    """Every partial sum an integer T holds exactly, so every lowering gives ``first + i`` unrounded."""
    digits = {"float16": 11, "float32": 24}[dtype.name]
    return first.is_integer() and abs(first) + count <= 2 ** digits


def _float_first_repeat(lowering: Lowering, dtype: DType, first, lanes: int, saturate: bool) -> np.ndarray:
    """The first repeat's raw lanes."""
    if lowering.kind == ONE_REGISTER:  # vci / Arange: first + l rounded once (npusim's reading)
        return float_array_bits(float(first) + np.arange(lanes, dtype=np.float64), dtype)
    block = 32 // dtype.itemsize
    # the scalar unit: float(first) + float(j) in float32, then to T
    sums = np.float32(first) + np.arange(block, dtype=np.float32)
    blocks = [float_array_bits(sums.astype(np.float64), dtype)]
    step = float_array_bits(np.array([float(block)]), dtype)
    for _ in range(1, lanes // block):  # Adds: each DataBlock is the previous one plus B
        blocks.append(arith.compute("add", dtype, [blocks[-1], step], saturate))
    return np.concatenate(blocks)


def _chained(dtype: DType, first_repeat: np.ndarray, repeats: int, lanes: int, saturate: bool) -> np.ndarray:
    """Each further repeat is the previous one plus E, rounded (Adds / vadds)."""
    out = np.empty((repeats, lanes), dtype=dtype.raw)
    out[0] = first_repeat
    step = float_array_bits(np.array([float(lanes)]), dtype)
    for r in range(1, repeats):
        out[r] = arith.compute("add", dtype, [out[r - 1], step], saturate)
    return out


# ---------------------------------------------------------------- planning
def _first_value_bits(core: Core, dtype: DType, value) -> np.ndarray:
    """``first_value`` as T's bits; it must lie inside T's range (约束说明)."""
    bits = scalar_bits_cached(NAME, "first_value", value, dtype)
    if dtype.is_float and not np.isfinite(bits.view(dtype.np_dtype)[0]):
        raise ParameterRangeError(NAME, "first_value", value, f"firstValue must lie inside the range of {dtype}",
                                  f"finite {dtype} values", f"{PAGE} 约束说明; {RULES}")
    return bits


def _compile(core: Core, form: str, bound: dict) -> CreateVecIndexPlan:
    dst = require_ub_tensor(NAME, "dst", bound["dst"], core)
    lowering = LOWERINGS.get(core.chip.name)
    table = COUNT_DTYPES if form == "count" else MASK_DTYPES
    if lowering is None:
        raise unsupported_on(core.chip, NAME, "CreateVecIndex", lambda c: c.name in LOWERINGS,
                             f"{PAGE} 产品支持情况; {RULES}")
    dtype = dst.dtype
    require_dtype(NAME, "dst", dtype, table[core.chip.name], f"CreateVecIndex does not support this data type in "
                  f"this form on {core.chip.product}", f"{PAGE} 数据类型; {RULES}")
    first_bits = _first_value_bits(core, dtype, bound["first_value"])  # checked now; the plan reads it per call
    if lowering.scalar_in_float and not dtype.is_float:
        _check_float_scalar_sums(dtype, int(first_bits.view(dtype.np_dtype)[0]))
    lanes_per = lanes_per_repeat(dtype.itemsize)
    block = 32 // dtype.itemsize
    if form == "count":
        count = require_uint(NAME, "count", bound["count"], 32, f"{PAGE} 函数原型; {semantics('1.4')}")
        if count == 0:
            return _nop(core, "count")
        dst.check_span(NAME, "dst", dst.addr, dst.addr + count * dtype.itemsize)
        lanes, blk, rep = checked_counter_lanes(NAME, count, lanes_per, "count"), 1, 8
        words_after, mode_after = _count_registers(lowering, count, block)
        registers: tuple[str, ...] = ()
    else:
        if core.mask_mode == MaskMode.COUNTER:
            raise UnsupportedError(NAME, "mask mode", "counter", "CreateVecIndex's mask forms in counter mode are "
                                   "not modelled (the page shows normal mode only; dav_c220 ignores the mode)",
                                   "normal mode", f"{PAGE} 函数原型; {RULES}")
        repeats = require_int(NAME, "repeat_time", bound["repeat_time"], 0, MAX_REPEAT, f"{PAGE} 参数说明 (repeatTime)")
        blk = require_uint(NAME, "dst_blk_stride", bound["dst_blk_stride"], 16, f"{PAGE} 函数原型; {semantics('1.2')}")
        rep = require_uint(NAME, "dst_rep_stride", bound["dst_rep_stride"], 8, f"{PAGE} 函数原型; {semantics('1.2')}")
        if repeats == 0:
            return _nop(core, "repeat_time")
        lanes, words = lanes_from_mask_arg(core, NAME, bound["mask"], repeats, dtype.itemsize)
        if blk == 0:
            raise ParameterRangeError(NAME, "dst_blk_stride", 0, "a destination block stride of 0 is undefined "
                                      "behaviour", "at least 1", f"{pages.HIGH_DIM} 地址间隔配置; {semantics('1.2')}")
        bitwise = isinstance(bound["mask"], (list, tuple))
        if lowering.kind == SCALAR_BLOCKS and not bitwise and not block <= int(bound["mask"]) <= lanes_per:
            raise UnsupportedError(NAME, "mask", int(bound["mask"]), f"a contiguous mask below one DataBlock "
                                   f"({block} elements) or above one repeat is not modelled on {core.chip.product}: "
                                   "its lowering (dav_c220 CreateVecIndexCalc) takes the raw mask as a count, and "
                                   "below one DataBlock adds the DataBlock before dst into dst",
                                   f"[{block}, {lanes_per}]", f"{PAGE} 函数原型; {RULES}")
        words_after, mode_after = _mask_registers(lowering, bitwise, int(bound["mask"]) if not bitwise else 0,
                                                  words, repeats, dtype.itemsize)
        registers = ("MASK_MODE",)
    if dtype.is_float and dtype.name in core.chip.float_saturation_dtypes:
        registers += ("CTRL",)  # the adds of the chain saturate per CTRL[48]
    footprint = strided_footprint("dst", 0, lanes, dtype.itemsize, blk, rep)
    _check_repeats_disjoint(footprint, rep)
    plan = CreateVecIndexPlan(dtype, lanes, footprint, lowering, words_after, mode_after, registers,
                              int64_exact=dtype.name == "int64", strides=(blk, rep))
    plan.placed(dst)
    return plan


def _check_float_scalar_sums(dtype: DType, first: int) -> None:
    """dav_m200 adds ``float(first) + float(j)`` and converts the float back to T: outside T that conversion is
    undefined in C++, so such a first_value is rejected."""
    info = np.iinfo(dtype.np_dtype)
    sums = (np.float32(first) + np.arange(32 // dtype.itemsize, dtype=np.float32)).astype(np.float64)
    if sums.max() > info.max or sums.min() < info.min:
        raise ParameterRangeError(NAME, "first_value", first, "the 310P's scalar unit computes first + j in float "
                                  f"and converting it back to {dtype} overflows (undefined)",
                                  f"values whose float sums stay in [{info.min}, {info.max}]",
                                  f"{PAGE} 约束说明; {RULES}")


def _count_registers(lowering: Lowering, count: int, block: int) -> tuple[MaskWords | None, MaskMode | None]:
    """A scalar-block count form longer than one DataBlock issues count-form Adds: normal mode, mask all ones."""
    if lowering.kind == SCALAR_BLOCKS and count > block:
        return (FULL_WORD, FULL_WORD, 0, 0), MaskMode.NORMAL
    return None, None


def _mask_registers(lowering: Lowering, bitwise: bool, mask: int, words: MaskWords, repeats: int,
                    itemsize: int) -> tuple[MaskWords | None, MaskMode | None]:
    """What the mask forms' lowering leaves in the mask registers (module docstring)."""
    block = 32 // itemsize
    if lowering.kind == ONE_REGISTER:
        return (words if bitwise and lowering.bitwise_sets_mask else None), None
    after: MaskWords | None = None
    mode: MaskMode | None = None
    if not bitwise and mask > block:  # count-form Adds for the DataBlocks after the first
        after, mode = (FULL_WORD, FULL_WORD, 0, 0), MaskMode.NORMAL
    if repeats > 1:  # Adds(..., mask, 1, params) per further repeat sets the mask register
        after = words if bitwise else (*contiguous_mask_words(mask, itemsize), 0, 0)
    return after, mode


def _check_repeats_disjoint(footprint: Footprint, rep: int) -> None:
    """Repeats touch disjoint bytes unless they coincide (dst_rep_stride 0): the scalar-block lowering reads
    each repeat back to build the next."""
    if rep == 0:
        return
    unique, counts = np.unique(footprint.addrs, return_counts=True)
    if (counts > 1).any():
        raise OverlapError(NAME, "dst", f"byte offset {int(unique[counts > 1][0])}", "two repeats write the same "
                           "element (partly overlapping repeats)", "repeats that do not overlap, or "
                           "dst_rep_stride 0", f"{PAGE} 约束说明 (通用地址重叠约束); {semantics('1.6')}")


def _nop(core: Core, operand: str) -> CreateVecIndexPlan:
    """count / repeat_time 0: a NOP on the A2/A3 (约束说明) and the 310P, not guaranteed one on the 950."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(NAME, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{PAGE} 约束说明; {semantics('1.9')}")
    return CreateVecIndexPlan(None, None, None, None, None, None, ())


# ---------------------------------------------------------- plan and binding
@dataclass(eq=False)
class CreateVecIndexPlan:
    """A checked CreateVecIndex, relative to dst's address (a NOP when ``lanes`` is None)."""

    dtype: DType | None
    lanes: ActiveLanes | None
    footprint: Footprint | None
    lowering: Lowering | None
    mask_words_after: MaskWords | None
    mask_mode_after: MaskMode | None
    registers: tuple[str, ...]
    int64_exact: bool = False
    strides: tuple[int, int] = (1, 8)  # dst block and repeat stride
    operands: tuple[str, ...] = ("dst",)
    first_value_at: int = 1

    def bind(self, core: Core, tensors: list[LocalTensor]) -> CreateVecIndexBinding:
        (dst,) = tensors
        require_ub_tensor(NAME, "dst", dst, core)
        if self.lanes is None:
            return CreateVecIndexBinding(self, None, None)
        footprint = self.placed(dst)
        operand = StridedOperand(dst.addr, footprint, *self.strides)
        layout = choose_layout(core.ub, [operand], self.lanes, operand)
        return CreateVecIndexBinding(self, footprint,
                                     OperandAccess.build(core.ub, operand, self.dtype.raw, self.lanes, layout))

    def placed(self, dst: LocalTensor) -> Footprint:
        footprint = self.footprint.moved(dst.addr)
        footprint.check_in(NAME, dst)
        return footprint


class CreateVecIndexBinding:
    def __init__(self, plan: CreateVecIndexPlan, footprint: Footprint | None, dst: OperandAccess | None) -> None:
        self.plan = plan
        self.footprint = footprint
        self.dst = dst
        self.registers_read = plan.registers
        self.registers_written = mask_registers_left(plan.mask_words_after, plan.mask_mode_after)
        self.last: tuple[bytes, bool, np.ndarray] | None = None  # (first_value bits, saturate, values): a loop

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return ()

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        if self.footprint is None:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.footprint.byte_addrs()[0]))

    def run(self, core: Core, values: tuple) -> None:
        """Compute every lane from this call's first_value, then commit (nothing changes before)."""
        plan = self.plan
        if plan.lanes is None:
            return
        first = _first_value_bits(core, plan.dtype, values[plan.first_value_at])
        saturate = core.float_saturation and plan.dtype.name in core.chip.float_saturation_dtypes
        key = (first.tobytes(), saturate)
        if self.last is None or self.last[:2] != key:  # the values depend on first_value and CTRL[48] only
            grid = index_values(plan.lowering, plan.dtype, first, plan.lanes.repeats, saturate, plan.int64_exact)
            in_layout = grid.reshape(self.dst.values.shape) if self.dst.layout == "view" else plan.lanes.select(grid)
            self.last = (*key, in_layout)
        self._commit(core, self.last[2])

    def _commit(self, core: Core, result: np.ndarray) -> None:
        self.dst.write(core.ub, result)
        if self.plan.mask_words_after is not None:
            core.set_mask_words(*self.plan.mask_words_after)
        if self.plan.mask_mode_after is not None:
            core.set_mask_mode(self.plan.mask_mode_after)


def _support(chip) -> frozenset[str] | None:
    return COUNT_DTYPES.get(chip.name)


create_vec_index = register(Instruction(
    NAME, "ascend", "fill", "V", FORMS, _compile, f"{PAGE} 功能说明, 约束说明; {RULES}", support=_support,
    exactness=IEEE_RNE,
    summary="dst lane l of repeat r = first_value + r * E + l (count form: dst[i] = first_value + i)",
    examples=(
        "z = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 0, 128)\n"
        "asc.create_vec_index(z, 0, 128)",
        "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 512)\n"
        "asc.create_vec_index(z, 0.5, 40, 3, 2, 16)",
        "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 256)\n"
        "asc.create_vec_index(z, -3.0, [0xFFFF0000FFFF0000, 0xFF], 2, 1, 8)",
    ),
    plan_context=lambda core, form, values: () if form == "count" else (int(core.mask_mode),),
    fast_context=lambda core: (int(core.mask_mode),),
    doc=f"``create_vec_index(dst, first_value, count)`` / ``(dst, first_value, mask, repeat_time, dst_blk_stride, "
        f"dst_rep_stride)`` ({PAGE}): an index sequence from first_value.",
))
