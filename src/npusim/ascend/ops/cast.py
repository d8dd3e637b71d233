"""Cast (``vconv``): each element converted from the source's type to the destination's, and its
C API functions ``asc_<src>2<dst>[_rn|_rna|_rd|_ru|_rz|_ro][_sync]``.

Forms (pyasc ``basic/vec_vconv.py``; Memory矢量计算/类型转换/Cast.md 函数原型)::

    cast(dst, src, round_mode, count)
    cast(dst, src, round_mode, mask, repeat_times, repeat_params, is_set_mask=True)  # UnaryRepeatParams
    asc_float2half_rn(dst, src, count)                                                # C API, A2/A3
    asc_float2half_rn(dst, src, repeat, dst_block_stride, src_block_stride, dst_repeat_stride, src_repeat_stride)

What a lane computes is :mod:`.conversion`; which (src, dst, RoundMode) a product takes is
:mod:`..cast_dtypes`.  The geometry (Cast.md 参数说明 and 约束说明): a repeat has as many lanes
as 256 bytes of the **wider** type hold (half -> int32: 64), the mask selects among them, and
each operand addresses its lanes with its own element size and strides (the narrower one
covers fewer DataBlocks per repeat: contiguous half -> int32 needs ``dstRepStride = 8,
srcRepStride = 4``, which the count form uses).  Overlap follows the general rule: in place
only where both types have the same size, lane for lane.  An int4b_t operand (docs/semantics.md
§5.23) is accessed a byte (two lanes) at a time, :mod:`.packed_lanes`: the call's active lanes
must be whole bytes, and ``convert`` takes and gives its lanes packed.

The plan is relative to its tensors (docs/architecture.md): compile checks every rule,
bind checks the placement, run reads the source, converts, then commits the destination and
the mask registers the lowering leaves behind (as the element-wise instructions do).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES, DType
from ...engine.registry import IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int, require_uint
from .. import pages
from ..addressing import BLOCK_BYTES, ActiveLanes, counter_mode_lanes, lanes_per_repeat
from ..cast_dtypes import DEQ_SCALE, cast_modes, cast_pairs, compound_cast_pairs, conversion_saturates
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, check_overlap, strided_footprint
from ..masking import MaskWords, lanes_from_register, mask_form_lanes
from ..operands import OperandAccess, StridedOperand
from ..scalars import is_scalar
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode, RoundMode, UnaryRepeatParams
from . import arith
from .common import (
    c_api_page,
    count_form_context,
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    is_tensor,
    mask_fast_context,
    mask_plan_context,
    mask_registers_left,
    record_pipe_barrier,
    require_repeat_params,
    require_ub_tensor,
    scalar_bits_cached,
)
from .conversion import convert, lane_raw
from .deq_conversion import DEQ, deq_int32_lanes
from .elementwise import (
    DST,
    DST_STRIDE_SOURCE,
    INT32_MAX,
    _binary_forms,
    _count_form_registers,
    _unary_params,
)
from .packed_lanes import lane_bytes, operand_lanes, packed_side, require_even_count, require_whole_bytes
from .round_modes import MODE_NAMES, require_round_mode
from .scalar_cast import float2int32_plan

__all__ = ["C_API_CASTS", "CastBinding", "CastPlan", "add_relu_cast", "cast", "mul_cast", "sub_relu_cast"]

CAST_PAGE = pages.CAST
# "complex32/complex64/double数据类型仅支持tensor前n个数据计算接口"
COUNT_ONLY_950 = frozenset({"float64", "complex32", "complex64"})

CAST_FORMS = (
    Form("mask", (DST, Param("src", is_tensor), Param("round_mode", lambda _v: True), Param("mask", is_mask_arg),
                  Param("repeat_times", is_int_arg), Param("repeat_params", _unary_params),
                  Param("is_set_mask", is_bool_arg, True))),
    Form("count", (DST, Param("src", is_tensor), Param("round_mode", lambda _v: True), Param("count", is_int_arg))),
)
_C_STRIDES = ("dst_block_stride", "src_block_stride", "dst_repeat_stride", "src_repeat_stride")
C_API_FORMS = (
    Form("count", (DST, Param("src", is_tensor), Param("count", is_int_arg))),
    Form("repeat", (DST, Param("src", is_tensor), Param("repeat", is_int_arg),
                    *(Param(n, is_int_arg) for n in _C_STRIDES))),
)
C_API_SYNC_FORMS = C_API_FORMS[:1]
#: the 950's scalar asc_float2int32_rn / _rna / _rd / _ru(float value) (C-API/scalar_compute/asc_float2int32.md)
SCALAR_FORM = Form("scalar", (Param("value", is_scalar),))
SCALAR_FORM_FUNCTIONS = {"asc_float2int32" + suffix for suffix in ("_rn", "_rna", "_rd", "_ru")}


# ----------------------------------------------------------------- checks
def require_conversion(name: str, core: Core, dst: LocalTensor, src: LocalTensor, mode: RoundMode,
                       count_form: bool, page: str = CAST_PAGE) -> str:
    """The product converts ``src``'s type to ``dst``'s with ``mode`` (Cast.md 数据类型): the
    rounding-mode name to use."""
    fp4 = "float4_e2m1fn" in (dst.dtype.name, src.dtype.name)  # the 950's fp4x2_e2m1_t: its own section too
    source = f"{CAST_PAGE} 数据类型; {semantics('5.8', '5.33') if fp4 else semantics('5.8')}"
    pairs = cast_pairs(core.chip)
    if pairs is None:
        raise unsupported_on(core.chip, name, "Cast", lambda c: cast_pairs(c) is not None,
                             f"{page} 产品支持情况; {semantics('5.8')}")
    pair = (src.dtype.name, dst.dtype.name)
    modes = cast_modes(core.chip, *pair)
    if modes is None:
        raise UnsupportedError(name, "src/dst dtypes", f"{pair[0]} -> {pair[1]}",
                               f"Cast does not convert this pair on {core.chip.product}",
                               ", ".join(f"{s} -> {d}" for s, d in sorted(pairs)), source)
    if modes == DEQ_SCALE:
        return DEQ  # int32 -> half through SetDeqScale's half scale, roundMode ignored (Cast.md 数据类型; §5.21)
    if not count_form and core.chip.name == "950" and COUNT_ONLY_950 & set(pair):
        raise UnsupportedError(name, "src/dst dtypes", f"{pair[0]} -> {pair[1]}",
                               "double and complex types convert only in the count form on the 950",
                               "the count form",
                               f"{CAST_PAGE} 约束说明; {semantics('5.8')}")
    if mode not in modes:
        raise UnsupportedError(name, "round_mode", mode.name,
                               f"{pair[0]} -> {pair[1]} on {core.chip.product} takes other rounding modes",
                               ", ".join(RoundMode(m).name for m in sorted(modes)), source)
    return MODE_NAMES[mode]


# ----------------------------------------------------------------- planning
@dataclass(frozen=True)
class CastGeometry:
    """What a call converts: types, rounding, active lanes (per the wider type) and each operand's strides."""

    name: str
    dst_dtype: DType
    src_dtype: DType
    mode: str
    lanes: ActiveLanes | None
    strides: tuple[tuple[int, int], ...]  # dst's, then each source's (block stride, repeat stride)
    mask_words_after: MaskWords | None
    mask_mode_after: MaskMode | None
    registers: tuple[str, ...]
    sync: bool = False
    sources: tuple[str, ...] = ("src",)
    operation: str | None = None  # the compound casts: what the sources give before the conversion
    scalar_at: int | None = None  # MulsCast: where its scalar operand sits among the call's values
    scalar_name: str = "scalar"  # ... and the parameter's name
    in_dst_type: bool = False  # ExpSub: the sources converted (exactly) to dst's type, the operation computed there
    post: str | None = None  # AddDeqRelu: an operation on the converted lanes, in dst's type ("relu")


def _compile_cast(core: Core, form: str, bound: dict) -> CastPlan:
    """``cast``: every rule of Cast.md, in the order the documents' checks come."""
    name = "cast"
    dst = require_ub_tensor(name, "dst", bound["dst"], core, packed=True)
    src = require_ub_tensor(name, "src", bound["src"], core, packed=True)
    mode = require_conversion(name, core, dst, src, require_round_mode(name, bound["round_mode"]), form == "count")
    return _planned(name, core, form, bound, mode, dst, {"src": src}, CAST_PAGE, UnaryRepeatParams)


def _planned(name: str, core: Core, form: str, bound: dict, mode: str, dst: LocalTensor,
             sources: dict[str, LocalTensor], page: str, params_class, operation: str | None = None,
             post: str | None = None) -> CastPlan:
    """The lanes (per the wider type), strides and register effects of a count or mask form, then the plan."""
    src = next(iter(sources.values()))
    labels = tuple(sources)
    wide = _wide_bytes(dst.dtype, src.dtype)
    packed = packed_side(dst.dtype, src.dtype)
    native = core.chip.vector_lowering == "native"
    words_after: MaskWords | None = None
    mode_after: MaskMode | None = None
    registers: tuple[str, ...] = ()
    if form == "count":
        count = require_int(name, "count", bound["count"], 0, INT32_MAX, f"{page} 函数原型; {semantics('1.4')}",
                            rule="count is an int32_t")
        if count == 0:
            return _nop(name, core, "count", dst, src, page, labels)
        require_even_count(name, count, packed, f"{page} 约束说明")
        _check_spans(name, count, {"dst": dst, **sources})
        lanes = counter_mode_lanes(count, lanes_per_repeat(wide))
        strides = _contiguous(lanes, dst.dtype, src.dtype, len(sources))
        if native:
            words_after, mode_after = _count_form_registers(core, count, wide)
    else:
        fields = require_repeat_params(name, bound["repeat_params"], params_class)
        half = len(fields) // 2  # (dst, *sources) block strides, then their repeat strides
        strides = tuple(zip(fields[:half], fields[half:], strict=True))
        lanes, words_after, registers = mask_form_lanes(core, name, bound, wide, native)
        if lanes.repeats == 0:
            return _nop(name, core, "repeat_times", dst, src, page, labels)
        by_argument = bound["is_set_mask"]
        if by_argument and is_int_arg(bound["mask"]):
            require_even_count(name, int(bound["mask"]), packed, f"{page} 约束说明", "mask", "a contiguous mask")
        require_whole_bytes(name, "mask" if by_argument else "vector mask register",
                            bound["mask"] if by_argument else core.mask_words, lanes, packed, f"{page} 约束说明")
    if operation is not None and src.dtype.name in core.chip.float_saturation_dtypes:
        registers += ("CTRL",)
    geometry = CastGeometry(name, dst.dtype, src.dtype, mode, lanes, strides, words_after, mode_after,
                            tuple(dict.fromkeys(registers + _ctrl(core, dst.dtype) + _deq(mode))), sources=labels,
                            operation=operation, post=post)
    return CastPlan.checked(geometry, dst, *sources.values())


def _wide_bytes(dst: DType, src: DType) -> int:
    """The bytes of the wider type, whose lanes a repeat has (Cast.md 约束说明; an int4b_t side is never it)."""
    return max(dst.bits, src.bits) // 8


def _check_spans(name: str, count: int, tensors: dict[str, LocalTensor]) -> None:
    """The first ``count`` elements of every tensor lie inside it (before any lane is planned)."""
    for label, tensor in tensors.items():
        tensor.check_span(name, label, tensor.addr, tensor.addr + tensor.dtype.nbytes(count))


def _contiguous(lanes: ActiveLanes, dst: DType, src: DType, sources: int = 1) -> tuple[tuple[int, int], ...]:
    """Block stride 1 and a repeat stride of one repeat's lanes, per operand (the count forms' {1, 1, 8, 4};
    half <-> int4b_t: {1, 1, 2, 8} and {1, 1, 8, 2})."""
    source = (1, lanes.lanes * src.bits // (8 * BLOCK_BYTES))
    return ((1, lanes.lanes * dst.bits // (8 * BLOCK_BYTES)),) + (source,) * sources


def _deq(mode: str) -> tuple[str, ...]:
    return ("DEQSCALE",) if mode == DEQ else ()  # int32 -> half reads the half scale per call


def _ctrl(core: Core, dst: DType) -> tuple[str, ...]:
    return ("CTRL",) if conversion_saturates(core.chip, dst.name) else ()  # the saturation switch, read per call


def _nop(name: str, core: Core, operand: str, dst: LocalTensor, src: LocalTensor, page: str = CAST_PAGE,
         sources: tuple[str, ...] = ("src",)) -> CastPlan:
    """count = 0 or repeat_times = 0: a NOP on the A2/A3 ..., not guaranteed on the 950 (Cast.md 约束说明)."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{page} 约束说明; {semantics('1.9')}")
    strides = ((1, 8),) * (1 + len(sources))
    return CastPlan(CastGeometry(name, dst.dtype, src.dtype, "rint", None, strides, None, None, (),
                                 sources=sources), [], ("dst", *sources))


# ---------------------------------------------------------- plan and binding
@dataclass(eq=False)
class CastPlan:
    """A checked conversion, relative to its tensors' addresses (a NOP when ``geometry.lanes`` is None).

    Attributes:
        geometry: types, rounding mode, lanes, strides and register effects.
        footprints: dst's and src's element accesses relative to each tensor's address.
        operands: ``("dst", "src")``, bound per call in this order.
    """

    geometry: CastGeometry
    footprints: list[Footprint]
    operands: tuple[str, ...] = ("dst", "src")

    @classmethod
    def checked(cls, geometry: CastGeometry, dst: LocalTensor, *sources: LocalTensor) -> CastPlan:
        """The plan, its bounds and overlap checked at this call's addresses."""
        d_blk = geometry.strides[0][0]
        if d_blk == 0:
            raise ParameterRangeError(geometry.name, "dst block stride", 0, "a destination block stride of 0 is "
                                      "undefined behaviour", "at least 1", DST_STRIDE_SOURCE)
        labels = ("dst", *geometry.sources)
        dtypes = (geometry.dst_dtype,) + (geometry.src_dtype,) * len(geometry.sources)
        footprints = [strided_footprint(label, 0, operand_lanes(dtype, geometry.lanes), lane_bytes(dtype), blk, rep)
                      for label, dtype, (blk, rep) in zip(labels, dtypes, geometry.strides, strict=True)]
        plan = cls(geometry, footprints, labels)
        plan.placed([dst, *sources])
        return plan

    def placed(self, tensors: list[LocalTensor]) -> list[Footprint]:
        """The footprints at these tensors' addresses, checked for bounds and overlap (docs/semantics.md §1.6)."""
        name = self.geometry.name
        footprints = [fp.moved(tensor.addr) for fp, tensor in zip(self.footprints, tensors, strict=True)]
        for fp, tensor in zip(footprints, tensors, strict=True):
            fp.check_in(name, tensor)
        converting = len(footprints) == 2  # Cast itself, not the compound casts (AddReluCast ...)
        for source in footprints[1:]:
            check_overlap(name, footprints[0], source, converts_in_place=converting)
        return footprints

    def bind(self, core: Core, tensors: list[LocalTensor]) -> CastBinding:
        """The per-placement checks, in the plan step's order, then the operands' accesses."""
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.geometry.name, label, tensor, core, packed=True)  # compile checked the types
        if self.geometry.lanes is None:
            return CastBinding(self, core, [])
        return CastBinding(self, core, self.placed(tensors))


class CastBinding:
    """A :class:`CastPlan` at one placement: the operands' accesses (by element index) and what it touches."""

    def __init__(self, plan: CastPlan, core: Core, footprints: list[Footprint]) -> None:
        self.plan = plan
        self.footprints = footprints
        geometry = plan.geometry
        self.registers_read = geometry.registers
        self.registers_written = mask_registers_left(geometry.mask_words_after, geometry.mask_mode_after)
        dtypes = (geometry.dst_dtype,) + (geometry.src_dtype,) * len(geometry.sources)
        self.accesses = [OperandAccess.build(core.ub, StridedOperand(fp.lo, fp, blk, rep), lane_raw(dtype),
                                             operand_lanes(dtype, geometry.lanes), "flat")
                         for fp, dtype, (blk, rep) in zip(footprints, dtypes, geometry.strides, strict=True)
                         ] if footprints else []

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges(r for fp in self.footprints[1:] for r in ranges_of_addresses("UB", fp.byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return merge_ranges(ranges_of_addresses("UB", self.footprints[0].byte_addrs()[0])) if self.footprints else ()

    def run(self, core: Core, values: tuple) -> None:
        """Read the source lanes, convert them, then commit (nothing changes before)."""
        geometry = self.plan.geometry
        if self.accesses:
            ub = core.ub
            dst, *sources = self.accesses
            for src in sources:
                if src.seen_written != ub.shadow_epoch:
                    src.check_initialized(ub, geometry.name)
            if geometry.operation is None and not geometry.in_dst_type:  # Cast: convert reads them into a new array
                lanes = [src.read(ub, lane_raw(geometry.src_dtype)) for src in sources]
            else:
                lanes = [src.gather(ub, lane_raw(geometry.src_dtype)) for src in sources]
            if geometry.scalar_at is not None:  # MulsCast: the scalar, in the sources' type, read per call
                lanes.append(scalar_bits_cached(geometry.name, geometry.scalar_name, values[geometry.scalar_at],
                                                geometry.src_dtype))
            if geometry.in_dst_type:  # ExpSub: half -> float is exact; the operation rounds once, to dst's type
                if geometry.src_dtype != geometry.dst_dtype:
                    lanes = [convert(geometry.src_dtype, geometry.dst_dtype, lane, "rint", False) for lane in lanes]
                own = core.float_saturation and geometry.dst_dtype.name in core.chip.float_saturation_dtypes
                result = arith.compute(geometry.operation, geometry.dst_dtype, lanes, own)
            else:
                if geometry.operation is not None:  # the compound casts: the sources' result in their own type first
                    own = core.float_saturation and geometry.src_dtype.name in core.chip.float_saturation_dtypes
                    lanes = [arith.compute(geometry.operation, geometry.src_dtype, lanes, own)]
                result = self.converted(core, lanes[0])
            self._commit(core, dst, result)
        if geometry.sync:
            record_pipe_barrier(core)

    def converted(self, core: Core, lanes: np.ndarray) -> np.ndarray:
        """The source lanes (the compound casts': the operation's result) in dst's type, then ``post``."""
        geometry = self.plan.geometry
        if geometry.mode == DEQ:  # int32 -> half: through DEQSCALE's half scale (deq_conversion); AddDeqRelu's relu
            return deq_int32_lanes(core, geometry.name, lanes, geometry.post == "relu")
        saturate = core.float_saturation and conversion_saturates(core.chip, geometry.dst_dtype.name)
        result = convert(geometry.src_dtype, geometry.dst_dtype, lanes, geometry.mode, saturate)
        return result if geometry.post is None else arith.compute(geometry.post, geometry.dst_dtype, [result])

    def _commit(self, core: Core, dst: OperandAccess, result: np.ndarray) -> None:
        """The destination lanes, then the mask registers the lowering leaves behind."""
        geometry = self.plan.geometry
        dst.write(core.ub, result)
        if geometry.mask_words_after is not None:
            core.set_mask_words(*geometry.mask_words_after)
        if geometry.mask_mode_after is not None:
            core.set_mask_mode(geometry.mask_mode_after)


# ------------------------------------------------------------------ the C API
C_API_SUFFIXES = {"": RoundMode.CAST_NONE, "_rn": RoundMode.CAST_RINT, "_rna": RoundMode.CAST_ROUND,
                  "_rd": RoundMode.CAST_FLOOR, "_ru": RoundMode.CAST_CEIL, "_rz": RoundMode.CAST_TRUNC,
                  "_ro": RoundMode.CAST_ODD}  # asc_float2half.md 函数原型
_C_TYPES = {"half": "float16", "float": "float32", "bfloat16": "bfloat16", "int8": "int8", "uint8": "uint8",
            "int16": "int16", "int32": "int32", "int64": "int64", "int4": "int4"}
# vector_compute/asc_<src>2<dst>.md: the suffixes each page has (the deq and mul_cast pages are not here)
_ALL = ("_rd", "_rn", "_rna", "_ru", "_rz")
C_API_CASTS = {
    "asc_bfloat162float": ("",), "asc_bfloat162int32": _ALL, "asc_float2bfloat16": _ALL, "asc_float2float": _ALL,
    "asc_float2half": ("", "_rd", "_rn", "_rna", "_ro", "_ru", "_rz"), "asc_float2int16": _ALL,
    "asc_float2int32": _ALL, "asc_float2int64": _ALL, "asc_half2float": ("",), "asc_half2int16": _ALL,
    "asc_half2int32": _ALL, "asc_half2int4": ("", *_ALL), "asc_half2int8": ("", *_ALL),
    "asc_half2uint8": ("", *_ALL), "asc_int162float": ("",),
    "asc_int162half": ("", *_ALL), "asc_int322float": ("", *_ALL), "asc_int322int16": ("",),
    "asc_int322int64": ("",), "asc_int42half": ("",), "asc_int642float": _ALL, "asc_int642int32": ("",),
    "asc_int82half": ("",),
    "asc_uint82half": ("",),
}
# 函数原型: the repeat strides' C type where a page does not give uint16_t (asc_int42half: uint8_t)
C_API_REPEAT_STRIDE_BITS = {"asc_int42half": 8}


def _c_types(page: str) -> tuple[str, str]:
    """The (src, dst) dtype names of a C API page: ``asc_half2int32`` -> ("float16", "int32")."""
    body = page.removeprefix("asc_")
    src = next(t for t in sorted(_C_TYPES, key=len, reverse=True) if body.startswith(t + "2"))
    return _C_TYPES[src], _C_TYPES[body[len(src) + 1:]]


def _compile_c_api(name: str, page: str, mode: RoundMode, types: tuple[str, str] | None = None):
    src_type, dst_type = types or _c_types(page)

    def compile(core: Core, form: str, bound: dict) -> CastPlan:
        """``asc_<src>2<dst>*``: the bare ``vconv`` (repeat form, under the vector mask register), or the
        count form: ``set_mask_count(); set_vector_mask(0, count)``, the ``vconv``, ``set_mask_norm()``
        (``impl/c_api/instr_impl/npu_arch_2201/vector_compute_impl/vconv``); the 950's scalar form of
        asc_float2int32_* is the scalar unit's (docs/semantics.md §5.35)."""
        if form == "scalar":
            return float2int32_plan(core, name, mode, bound["value"])
        if not core.chip.c_api:
            raise unsupported_on(core.chip, name, "the asc_* C API", lambda c: c.c_api,
                                 f"{c_api_page(page)} 产品支持情况; {semantics('5.8')}")
        source = f"{c_api_page(page)} 参数说明; {semantics('5.8')}"
        dst = require_ub_tensor(name, "dst", bound["dst"], core, packed=True)
        src = require_ub_tensor(name, "src", bound["src"], core, packed=True)
        for label, tensor, wanted in (("dst", dst, dst_type), ("src", src, src_type)):
            if tensor.dtype.name != wanted:
                raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, f"{name} takes a {wanted} {label}",
                                       wanted, f"{c_api_page(page)} 函数原型")
        rounding = require_conversion(name, core, dst, src, mode, form == "count", c_api_page(page))
        wide = _wide_bytes(dst.dtype, src.dtype)
        packed = packed_side(dst.dtype, src.dtype)
        sync = name.endswith("_sync")
        if form == "count":
            count = require_uint(name, "count", bound["count"], 32, source)
            if count == 0:
                return _nop(name, core, "count", dst, src)
            require_even_count(name, count, packed, f"{c_api_page(page)} 约束说明")
            _check_spans(name, count, {"dst": dst, "src": src})
            lanes = counter_mode_lanes(count, lanes_per_repeat(wide))
            geometry = CastGeometry(name, dst.dtype, src.dtype, rounding, lanes,
                                    _contiguous(lanes, dst.dtype, src.dtype), (count, 0, 0, 0), MaskMode.NORMAL,
                                    ("MASK_MODE",) + _ctrl(core, dst.dtype) + _deq(rounding), sync)
            return CastPlan.checked(geometry, dst, src)
        widths = (16, 16) + (C_API_REPEAT_STRIDE_BITS.get(page, 16),) * 2
        d_blk, s_blk, d_rep, s_rep = (require_uint(name, n, bound[n], bits, source)
                                      for n, bits in zip(_C_STRIDES, widths, strict=True))
        repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
        lanes = lanes_from_register(core, name, repeat, wide)
        if lanes.repeats == 0:
            return _nop(name, core, "repeat", dst, src)
        require_whole_bytes(name, "vector mask register", core.mask_words, lanes, packed,
                            f"{CAST_PAGE} 约束说明")
        geometry = CastGeometry(name, dst.dtype, src.dtype, rounding, lanes, ((d_blk, d_rep), (s_blk, s_rep)),
                                None, None, ("MASK", "MASK_MODE") + _ctrl(core, dst.dtype) + _deq(rounding), sync)
        return CastPlan.checked(geometry, dst, src)

    return compile


def _c_api_support(chip):
    return cast_pairs(chip) if chip.c_api else None


def _float2int32_support(chip):
    """The vector forms' products (A2/A3), and the 950's scalar form."""
    return _c_api_support(chip) or ("c_api_float2int32" in chip.scalar_compute or None)


# ------------------------------------------------------------------ registration
_SETUP = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
          "z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 1024, 512)\n")
CAST_EXAMPLES = (
    _SETUP + "asc.cast(z, x, asc.RoundMode.CAST_RINT, 300)",
    _SETUP + "asc.cast(z, x, asc.RoundMode.CAST_CEIL, 64, 8, asc.UnaryRepeatParams(1, 1, 8, 4))",
    _SETUP + "asc.cast(z, x, asc.RoundMode.CAST_FLOOR, [0x00FF00FF00FF00FF, 0], 2, asc.UnaryRepeatParams(1, 2, 8, 8))",
    _SETUP.replace("asc.int32", "asc.int4b_t") + "asc.cast(z, x, asc.RoundMode.CAST_CEIL, 128, 2, "
                                                 "asc.UnaryRepeatParams(1, 1, 2, 8))",  # Cast.md's int4b_t example
)


def _example(src: str, dst: str, call: str) -> str:
    return (f"x = asc.LocalTensor(asc.{src}, asc.TPosition.VECIN, 0, 512)\n"
            f"z = asc.LocalTensor(asc.{dst}, asc.TPosition.VECOUT, 4096, 512)\n" + f"asc.cast(z, x, {call})")


_MODE = "asc.RoundMode."
#: the 950's own lines (docs/semantics.md §5.29 complex, §5.31 int4b_t, §5.32 hifloat8_t, §5.33 fp4x2_e2m1_t),
#: count and mask forms; int4b_t <-> half too, which the A2 has, as the 950 lowers them its own way (§5.31:
#: vector functions)
CAST_EXAMPLES_950 = (
    _example("complex32", "complex64", f"{_MODE}CAST_NONE, 100"),
    _example("complex64", "complex32", f"{_MODE}CAST_RINT, 100"),
    _example("complex64", "complex64", f"{_MODE}CAST_TRUNC, 100"),
    _example("int4b_t", "int16", f"{_MODE}CAST_NONE, 300"),
    _example("int4b_t", "float16", f"{_MODE}CAST_NONE, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 2)"),
    _example("int4b_t", "bfloat16",
             f"{_MODE}CAST_NONE, [0x0F0F0F0F0F0F0F0F, 0xFF], 1, asc.UnaryRepeatParams(1, 1, 8, 2)"),
    _example("int16", "int4b_t", f"{_MODE}CAST_NONE, 256"),
    _example("float16", "int4b_t", f"{_MODE}CAST_RINT, 300"),
    _example("hifloat8", "float16", f"{_MODE}CAST_NONE, 300"),
    _example("hifloat8", "float32", f"{_MODE}CAST_NONE, 64, 2, asc.UnaryRepeatParams(1, 1, 8, 2)"),
    _example("float16", "hifloat8",
             f"{_MODE}CAST_ROUND, [0x5555555555555555, 0], 2, asc.UnaryRepeatParams(1, 1, 4, 8)"),
    _example("float32", "hifloat8", f"{_MODE}CAST_HYBRID, 200"),
    # fp4x2_e2m1_t <-> bfloat16_t (§5.33): count, mask and bitwise-mask forms
    _example("bfloat16", "fp4x2_e2m1_t", f"{_MODE}CAST_RINT, 300"),
    _example("bfloat16", "fp4x2_e2m1_t", f"{_MODE}CAST_FLOOR, 128, 2, asc.UnaryRepeatParams(1, 1, 2, 8)"),
    "z = asc.LocalTensor(asc.fp4x2_e2m1_t, asc.TPosition.VECIN, 0, 512)\n"
    "x = asc.LocalTensor(asc.bfloat16, asc.TPosition.VECOUT, 4096, 512)\n"
    f"asc.cast(x, z, {_MODE}CAST_NONE, [0x3333, 0xC0], 3, asc.UnaryRepeatParams(1, 1, 8, 2))",
)
_SUMMARY = ("dst = src converted to dst's type per lane, rounded by round_mode (integers saturate; "
            "floats saturate inf/NaN where the product's CTRL[48] says)")

cast = register(Instruction(
    "cast", "ascend", "cast", "V", CAST_FORMS, _compile_cast, f"{CAST_PAGE} 功能说明; {semantics('5.8')}",
    support=cast_pairs, exactness=IEEE_RNE, summary=_SUMMARY, examples=CAST_EXAMPLES,
    examples_on={"950": CAST_EXAMPLES_950},
    plan_context=mask_plan_context, fast_context=mask_fast_context,
    doc=f"``{_SUMMARY}`` ({CAST_PAGE}).\n\nInteger results are bit-exact; float results are the exact value "
        "rounded once in the documented RoundMode (CAST_NONE = CAST_RINT where the value does not fit).  A "
        "repeat has 256 bytes' worth of lanes of the wider type; ``mask`` counts those lanes.  int32 -> half on "
        "the A2/A3, 310P and 950 dequantises with set_deq_scale's half scale (roundMode ignored), an accuracy "
        "model (docs/numerics.md, \"Ascend: dequantisation\"; docs/semantics.md §5.21).  int4b_t <-> half "
        "(A2/A3; half -> int4b_t on the 310P) packs two lanes a byte; counts and masks cover whole bytes "
        "(docs/semantics.md §5.23); so do the 950's int4b_t lines (§5.31) and its fp4x2_e2m1_t <-> bfloat16_t "
        "lines (§5.33).",
))


# ------------------------------------------------------------------ the compound casts
COMPOUND_OPERATIONS = {"add_relu_cast": ("add_relu", "AddReluCast", "max(src0 + src1, 0)"),
                       "sub_relu_cast": ("sub_relu", "SubReluCast", "max(src0 - src1, 0)"),
                       "mul_cast": ("mul", "MulCast", "src0 * src1")}


def _compile_compound(name: str):
    operation, page_name, _ = COMPOUND_OPERATIONS[name]
    page = f"{pages.COMPOUND}/{page_name}.md"

    def compile(core: Core, form: str, bound: dict) -> CastPlan:
        """AddReluCast / SubReluCast / MulCast: the sources' result in their type U (rounded, relu'd, with U's
        saturation), then converted to T as CAST_NONE (RINT when lossy) with T's saturation (复合计算 pages)."""
        dst = require_ub_tensor(name, "dst", bound["dst"], core)
        src0 = require_ub_tensor(name, "src0", bound["src0"], core)
        src1 = require_ub_tensor(name, "src1", bound["src1"], core)
        if src1.dtype != src0.dtype:
            raise UnsupportedError(name, "src1 dtype", src1.dtype.name, "src1 must have src0's dtype",
                                   src0.dtype.name, f"{page} 参数说明")
        pairs = compound_cast_pairs(name, core.chip)
        if pairs is None:
            raise unsupported_on(core.chip, name, page_name, lambda c: compound_cast_pairs(name, c) is not None,
                                 f"{page} 产品支持情况; {semantics('5.8')}")
        pair = (src0.dtype.name, dst.dtype.name)
        if pair not in pairs:
            raise UnsupportedError(name, "src0/dst dtypes", f"{pair[0]} -> {pair[1]}",
                                   f"{page_name} does not convert this pair on {core.chip.product}",
                                   ", ".join(f"{s} -> {d}" for s, d in sorted(pairs)), f"{page} 数据类型")
        if form != "count" and core.chip.name == "950":
            raise UnsupportedError(name, "form", "mask", "on the 950 the mask forms use 8 KB of UB as scratch, "
                                   "which npusim does not model", "the count form", f"{page} 约束说明")
        return _planned(name, core, form, bound, "rint", dst, {"src0": src0, "src1": src1}, page,
                        BinaryRepeatParams, operation)

    return compile


_BINARY_SETUP = {"mul_cast": ("float16", "int8"), "add_relu_cast": ("float32", "float16"),
                 "sub_relu_cast": ("float16", "int8")}


def _compound_examples(name: str) -> tuple[str, ...]:
    src, dst = (DTYPES[t] for t in _BINARY_SETUP[name])
    lanes = lanes_per_repeat(max(src.itemsize, dst.itemsize))
    setup = (f"x = asc.LocalTensor(asc.{src}, asc.TPosition.VECIN, 0, 512)\n"
             f"y = asc.LocalTensor(asc.{src}, asc.TPosition.VECIN, 4096, 512)\n"
             f"z = asc.LocalTensor(asc.{dst}, asc.TPosition.VECOUT, 8192, 512)\n")
    d_rep, s_rep = lanes * dst.itemsize // BLOCK_BYTES, lanes * src.itemsize // BLOCK_BYTES
    return (setup + f"asc.{name}(z, x, y, 300)",
            setup + f"asc.{name}(z, x, y, {lanes}, 2, asc.BinaryRepeatParams(1, 1, 1, {d_rep}, {s_rep}, {s_rep}))",
            setup + f"asc.{name}(z, x, y, [0xFF00FF, 0], 2, asc.BinaryRepeatParams(1, 2, 1, {d_rep}, "
                    f"{2 * s_rep}, {s_rep}))")


def _register_compound(name: str):
    operation, page_name, formula = COMPOUND_OPERATIONS[name]
    summary = f"dst = cast({formula}) per lane: the result rounded in the sources' type, then CAST_NONE to dst's"
    return register(Instruction(
        name, "ascend", "compound", "V", _binary_forms(), _compile_compound(name),
        f"{pages.COMPOUND}/{page_name}.md 功能说明; {semantics('5.8')}",
        support=lambda chip: compound_cast_pairs(name, chip), exactness=IEEE_RNE, summary=summary,
        examples=_compound_examples(name), plan_context=mask_plan_context, fast_context=mask_fast_context,
        doc=f"``{summary}`` ({pages.COMPOUND}/{page_name}.md).\n\nThe lanes per repeat are those of the wider "
            "type; the 950 runs only the count form in npusim (its mask forms use UB scratch).",
    ))


add_relu_cast = _register_compound("add_relu_cast")
sub_relu_cast = _register_compound("sub_relu_cast")
mul_cast = _register_compound("mul_cast")


def _asc_name(dtype: DType) -> str:
    return "int4b_t" if dtype.name == "int4" else dtype.name  # npusim.ascend's name of the packed type


def _c_api_examples(page: str, function: str) -> tuple[str, ...]:
    src, dst = (DTYPES[t] for t in _c_types(page))
    setup = (f"x = asc.LocalTensor(asc.{_asc_name(src)}, asc.TPosition.VECIN, 0, 256)\n"
             f"z = asc.LocalTensor(asc.{_asc_name(dst)}, asc.TPosition.VECOUT, 2048, 256)\n")
    examples = (setup + f"asc.{function}(z, x, 200)",)
    if not function.endswith("_sync"):
        lanes = lanes_per_repeat(_wide_bytes(dst, src))
        reps = (lanes * dst.bits // (8 * BLOCK_BYTES), lanes * src.bits // (8 * BLOCK_BYTES))
        examples += (setup + f"asc.{function}(z, x, 2, 1, 1, {reps[0]}, {reps[1]})",)
    return examples


def _sections(*dtypes: str) -> str:
    return semantics("5.8", "5.23") if "int4" in dtypes else semantics("5.8")  # int4b_t: its own section too


def _register_c_api(page: str, suffix: str, sync: bool):
    function = page + suffix + ("_sync" if sync else "")
    mode = C_API_SUFFIXES[suffix]
    src, dst = _c_types(page)
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if sync else ""
    forms = C_API_SYNC_FORMS if sync else C_API_FORMS
    scalar = function in SCALAR_FORM_FUNCTIONS
    extra = {}
    if scalar:  # the 950's scalar form besides the A2/A3 vector forms
        forms += (SCALAR_FORM,)
        extra = {"examples_on": {"950": (f"asc.{function}(3.5)", f"asc.{function}(-2.5)")},
                 "per_call": frozenset({"value"})}
    return register(Instruction(
        function, "ascend", "cast", "V", forms,
        _compile_c_api(function, page, mode), f"{c_api_page(page)}; {_sections(src, dst)}",
        support=_float2int32_support if scalar else _c_api_support,
        exactness=IEEE_RNE, summary=f"dst = src ({src} -> {dst}) per lane, {mode.name}" + (
            "; on the 950 a float scalar's int32 (the scalar unit)" if scalar else ""), examples=_c_api_examples(
            page, function), plan_context=count_form_context, fast_context=mask_fast_context, alias_of="cast",
        doc=f"``cast`` from {src} to {dst} with ``{mode.name}`` ({page}.md): a count, or ``repeat`` repeats "
            f"under the vector mask register with the four strides.{barrier}" + (
                f"  On the 950 ``{function}(value)`` converts a float scalar instead (scalar_compute/"
                "asc_float2int32.md, pipe S; docs/semantics.md §5.35)." if scalar else ""),
        **extra,
    ))


_C_API_FUNCTIONS = {page + suffix + sync: _register_c_api(page, suffix, bool(sync))
                    for page, suffixes in C_API_CASTS.items() for suffix in suffixes for sync in ("", "_sync")}
globals().update(_C_API_FUNCTIONS)
__all__ += sorted(_C_API_FUNCTIONS)
