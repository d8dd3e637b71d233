"""Element-wise vector instructions: the binary, binary-scalar, unary and two-source compound
arithmetic, logic and shift instructions, and Duplicate (:data:`VECTOR_OPS`).

They differ only in their operands and in what a lane computes, so they share one table
(:data:`VECTOR_OPS`), one registration each, and one plan, on the engine (docs/architecture.md):

* **compile** (:func:`_compile`) — check every tensor (alive, on this core, in UB, 32-byte
  aligned), the product's dtypes, the scalar, the mask, the repeat parameters; turn them
  into the active lanes (:mod:`..masking`) and each operand's byte footprint relative to
  its tensor (:mod:`..footprint`); check bounds and overlap.  The :class:`VectorPlan`
  holds no address.
* **bind** (:meth:`VectorPlan.bind`) — the same checks that depend on where the tensors
  are (alignment, UB bounds, overlap between operands), and the operands' views over UB.
* **run** (:meth:`VectorBinding.run`) — read the sources, compute every active lane at
  once (:func:`.arith.compute`), then commit: the destination lanes and the registers the
  lowering leaves behind (mask forms: the mask; count forms: normal mode with the mask all
  ones, docs/semantics.md §1.4).

Forms (pyasc ``basic/vec_binary.py``, ``vec_binary_scalar.py``, ``vec_unary.py``,
``vec_duplicate.py``)::

    add(dst, src0, src1, count)
    add(dst, src0, src1, mask, repeat_times, repeat_params, is_set_mask=True)   # BinaryRepeatParams
    adds(dst, src, scalar, count)
    adds(dst, src, scalar, mask, repeat_times, repeat_params, is_set_mask=True) # UnaryRepeatParams
    abs(dst, src, count)
    abs(dst, src, mask, repeat_times, repeat_params, is_set_mask=True)
    shift_left(dst, src0, src1, count)                                         # the 950: amounts in src1
    duplicate(dst, scalar, count)
    duplicate(dst, scalar, mask, repeat_times, dst_block_stride, dst_repeat_stride, is_set_mask=True)

``mask`` is an int (contiguous mode) or a list of uint64 words (bitwise mode); with
``is_set_mask=False`` it is a placeholder and the mask set beforehand (``set_vector_mask``)
applies.

Overlap (docs/semantics.md §1.6): within a repeat a source and dst overlap completely or not at all; no
repeat may read what an earlier one wrote — except, for Add/Sub/Mul/Max/Min on half,
int32 and float, dst over **src1** when src1's or dst's repeat stride is 0.  That case
chains the repeats (``dst = src0[r] + dst`` accumulates), so those repeats run in order;
it is the one place a loop runs per repeat, each step still vectorised over its lanes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ...dtypes import DType
from ...engine.registry import ACCURACY_MODEL, BIT_EXACT, IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int, require_uint
from .. import pages
from ..addressing import FULL_WORD, ActiveLanes, contiguous_mask_words, counter_mode_lanes, lanes_per_repeat
from ..arith_dtypes import (
    FUSED_MULTIPLY_ADD,
    MIXED_SOURCES,
    SHIFT_BEYOND_WIDTH,
    complex_abs_pairs,
    not_modelled,
    vector_support,
)
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, check_overlap, strided_footprint, written_earlier
from ..masking import MaskWords, mask_form_lanes
from ..operands import OperandAccess, StridedOperand, choose_layout
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode, UnaryRepeatParams
from . import arith, complex_lanes, float32_lanes
from . import mixed_multiply_add as mixed
from .common import (
    DST,
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    is_scalar,
    is_tensor,
    is_unary_params,
    mask_fast_context,
    mask_plan_context,
    mask_registers_left,
    require_dtype,
    require_repeat_params,
    require_ub_tensor,
    scalar_bits,
    scalar_bits_cached,
)
from .flexible_scalar import (
    FLEX_PREFIX,
    FLEXIBLE_PRODUCTS,
    flexible_forms,
    flexible_plan_context,
    scalar_position,
    with_element,
)

__all__ = [
    "VECTOR_OPS", "VectorBinding", "VectorOp", "VectorPlan", "abs_", "add", "add_relu", "adds", "axpy",
    "bitwise_and", "bitwise_not", "bitwise_or", "div", "divs", "duplicate", "exp", "fused_mul_add",
    "fused_mul_add_relu", "leaky_relu", "ln", "max_", "maxs", "min_", "mins", "mul", "mul_add_dst", "muls",
    "reciprocal", "relu", "rsqrt", "shift_left", "shift_right", "sqrt", "sub", "sub_relu", "subs",
]

DOC_DIR = pages.ARITHMETIC
LOGIC_DIR = pages.LOGIC
COMPOUND_DIR = pages.COMPOUND
CHAIN_DTYPES = frozenset({"float16", "int32", "float32"})  # the dst/src1 exception's types (docs/semantics.md §1.6)
DST_STRIDE_SOURCE = f"{pages.HIGH_DIM} 地址间隔配置; {semantics('1.2')}"
INT32_MAX = (1 << 31) - 1  # count is an int32_t


def _binary_params(v) -> bool:
    return isinstance(v, BinaryRepeatParams)




def _binary_forms() -> tuple[Form, ...]:
    return (
        Form("mask", (DST, Param("src0", is_tensor), Param("src1", is_tensor), Param("mask", is_mask_arg),
                      Param("repeat_times", is_int_arg), Param("repeat_params", _binary_params),
                      Param("is_set_mask", is_bool_arg, True))),
        Form("count", (DST, Param("src0", is_tensor), Param("src1", is_tensor), Param("count", is_int_arg),
                       Param("is_set_mask", is_bool_arg, True))),
    )


_unary_params = is_unary_params  # (cast imports it under this name)


SCALAR_FORMS = (
    Form("mask", (DST, Param("src", is_tensor), Param("scalar", is_scalar), Param("mask", is_mask_arg),
                  Param("repeat_times", is_int_arg), Param("repeat_params", _unary_params),
                  Param("is_set_mask", is_bool_arg, True))),
    Form("count", (DST, Param("src", is_tensor), Param("scalar", is_scalar), Param("count", is_int_arg),
                   Param("is_set_mask", is_bool_arg, True))),
)
UNARY_FORMS = (
    Form("mask", (DST, Param("src", is_tensor), Param("mask", is_mask_arg), Param("repeat_times", is_int_arg),
                  Param("repeat_params", _unary_params), Param("is_set_mask", is_bool_arg, True))),
    Form("count", (DST, Param("src", is_tensor), Param("count", is_int_arg))),
)
AXPY_FORMS = (SCALAR_FORMS[0], Form("count", (DST, Param("src", is_tensor), Param("scalar", is_scalar),
                                              Param("count", is_int_arg))))
DUPLICATE_FORMS = (
    Form("mask", (DST, Param("scalar", is_scalar), Param("mask", is_mask_arg), Param("repeat_times", is_int_arg),
                  Param("dst_block_stride", is_int_arg), Param("dst_repeat_stride", is_int_arg),
                  Param("is_set_mask", is_bool_arg, True))),
    Form("count", (DST, Param("scalar", is_scalar), Param("count", is_int_arg),
                   Param("is_set_mask", is_bool_arg, True))),
)


# ShiftLeft/ShiftRight（左/右移位数为Tensor）(the 950): the amounts are src1's lanes, signed integers of T's size
SHIFT_TENSOR_FORM = Form("tensor", (DST, Param("src0", is_tensor), Param("src1", is_tensor),
                                    Param("count", is_int_arg)))


@dataclass(frozen=True)
class VectorOp:
    """One element-wise instruction.

    Attributes:
        name: pyasc name, also the key of ``AscendChip.vector_dtypes``.
        doc: the page it follows (``ascend.pages``); sources add a section heading.
        sources: names of its tensor sources, in call order.
        operation: what a lane computes (:data:`.arith.OPERATIONS`), ``None`` for a fill.
        scalar: it takes a scalar operand (after the tensors).
        src1_chain: the dst/src1 cross-repeat exception of docs/semantics.md §1.6 applies.
        forms: its call forms.
        summary: what a lane computes, in one line.
        exactness: its exactness class (docs/architecture.md, "Exactness").
        family: ``"arith"``, ``"logic"``, ``"compound"`` or ``"fill"`` (the documents' chapters).
        reads_dst: dst is also an input (the multiply-adds), read before it is written.
        scalar_name: the parameter that holds the scalar (``"src0"`` or ``"src1"`` for the
            flexible scalar position, :mod:`.flexible_scalar`).
        scalar_first: the scalar is the left operand (``dst = scalar - src``).
        support_name: the instruction whose dtype row it takes, when ``name`` is another one's C API
            function (``asc_add`` takes ``add``'s); ``None``: its own.
    """

    name: str
    doc: str
    sources: tuple[str, ...]
    operation: str | None
    scalar: bool
    src1_chain: bool
    forms: tuple[Form, ...]
    summary: str
    exactness: str = BIT_EXACT
    family: str = "arith"
    reads_dst: bool = False
    scalar_name: str = "scalar"
    scalar_first: bool = False
    support_name: str | None = None

    @property
    def shifts(self) -> bool:
        """Its scalar is a shift amount, not a value of T."""
        return self.operation in ("shift_left", "shift_right", "shift_right_round")


def _binary(name: str, doc: str, operation: str, summary: str, exactness: str = IEEE_RNE, family: str = "arith",
            chain: bool = False) -> VectorOp:
    return VectorOp(name, doc, ("src0", "src1"), operation, False, chain, _binary_forms(), summary, exactness, family)


def _unary(name: str, doc: str, operation: str, summary: str, exactness: str, family: str = "arith") -> VectorOp:
    return VectorOp(name, doc, ("src",), operation, False, False, UNARY_FORMS, summary, exactness, family)


def _with_scalar(name: str, doc: str, operation: str, summary: str, exactness: str,
                 family: str = "arith") -> VectorOp:
    return VectorOp(name, doc, ("src",), operation, True, False, SCALAR_FORMS, summary, exactness, family)


VECTOR_OPS: dict[str, VectorOp] = {op.name: op for op in (
    VectorOp("add", f"{DOC_DIR}/Add.md", ("src0", "src1"), "add", False, True, _binary_forms(),
             "dst = src0 + src1 per lane", IEEE_RNE),
    VectorOp("sub", f"{DOC_DIR}/Sub.md", ("src0", "src1"), "sub", False, True, _binary_forms(),
             "dst = src0 - src1 per lane", IEEE_RNE),
    VectorOp("mul", f"{DOC_DIR}/Mul.md", ("src0", "src1"), "mul", False, True, _binary_forms(),
             "dst = src0 * src1 per lane", IEEE_RNE),
    VectorOp("max", f"{DOC_DIR}/Max.md", ("src0", "src1"), "max", False, True, _binary_forms(),
             "dst = max(src0, src1) per lane (IEEE maximum: NaN wins, -0 < +0)"),
    VectorOp("min", f"{DOC_DIR}/Min.md", ("src0", "src1"), "min", False, True, _binary_forms(),
             "dst = min(src0, src1) per lane (IEEE minimum: NaN wins, -0 < +0)"),
    VectorOp("abs", f"{DOC_DIR}/Abs.md", ("src",), "abs", False, False, UNARY_FORMS,
             "dst = |src| per lane (the 950's count form also takes a complex32 / complex64 src: dst = sqrt(re^2 + "
             "im^2) in its component type, each step rounded)"),
    VectorOp("adds", f"{DOC_DIR}/Adds.md", ("src",), "add", True, False, SCALAR_FORMS,
             "dst = src + scalar per lane, the scalar rounded to T first", IEEE_RNE),
    VectorOp("muls", f"{DOC_DIR}/Muls.md", ("src",), "mul", True, False, SCALAR_FORMS,
             "dst = src * scalar per lane, the scalar rounded to T first", IEEE_RNE),
    VectorOp("duplicate", pages.DUPLICATE, (), None, True, False, DUPLICATE_FORMS,
             "dst = scalar at every active lane", family="fill"),
    _binary("div", f"{DOC_DIR}/Div.md", "div", "dst = src0 / src1 per lane"),
    _with_scalar("maxs", f"{DOC_DIR}/Maxs.md", "max", "dst = max(src, scalar) per lane, the scalar converted to T "
                 "first (IEEE maximum)", BIT_EXACT),
    _with_scalar("mins", f"{DOC_DIR}/Mins.md", "min", "dst = min(src, scalar) per lane, the scalar converted to T "
                 "first (IEEE minimum)", BIT_EXACT),
    _with_scalar("leaky_relu", f"{DOC_DIR}/LeakyRelu.md", "leaky_relu",
                 "dst = src if src >= 0 else src * scalar per lane (the product rounded once)", IEEE_RNE),
    _unary("relu", f"{DOC_DIR}/Relu.md", "relu", "dst = max(src, 0) per lane (NaN stays NaN, -0 gives +0)", BIT_EXACT),
    _unary("sqrt", f"{DOC_DIR}/Sqrt.md", "sqrt", "dst = sqrt(src) per lane, correctly rounded", IEEE_RNE),
    _unary("exp", f"{DOC_DIR}/Exp.md", "exp", "dst = e^src per lane (accuracy model: float64 exp rounded to T)",
           ACCURACY_MODEL),
    _unary("ln", f"{DOC_DIR}/Ln.md", "ln", "dst = ln(src) per lane (accuracy model: float64 log rounded to T)",
           ACCURACY_MODEL),
    _unary("reciprocal", f"{DOC_DIR}/Reciprocal.md", "reciprocal",
           "dst = 1 / src per lane (accuracy model: rounded to T from float64; the hardware is less accurate)",
           ACCURACY_MODEL),
    _unary("rsqrt", f"{DOC_DIR}/Rsqrt.md", "rsqrt",
           "dst = 1 / sqrt(src) per lane (accuracy model: rounded to T from float64; the hardware is less accurate)",
           ACCURACY_MODEL),
    _binary("bitwise_and", f"{LOGIC_DIR}/And.md", "and", "dst = src0 & src1 per lane", BIT_EXACT, "logic"),
    _binary("bitwise_or", f"{LOGIC_DIR}/Or.md", "or", "dst = src0 | src1 per lane", BIT_EXACT, "logic"),
    _unary("bitwise_not", f"{LOGIC_DIR}/Not.md", "not", "dst = ~src per lane (the bit pattern)", BIT_EXACT, "logic"),
    replace(_with_scalar("shift_left", f"{LOGIC_DIR}/ShiftLeft.md", "shift_left",
                         "dst = src << scalar per lane (signed types keep the sign bit); the 950 also takes "
                         "per-lane amounts from a tensor src1", BIT_EXACT, "logic"),
            forms=(*SCALAR_FORMS, SHIFT_TENSOR_FORM)),
    replace(_with_scalar("shift_right", f"{LOGIC_DIR}/ShiftRight.md", "shift_right",
                         "dst = src >> scalar per lane (arithmetic for signed types, logical for unsigned); the 950 "
                         "also takes per-lane amounts from a tensor src1", BIT_EXACT, "logic"),
            forms=(*SCALAR_FORMS, SHIFT_TENSOR_FORM)),
    _binary("add_relu", f"{COMPOUND_DIR}/AddRelu.md", "add_relu", "dst = max(src0 + src1, 0) per lane, the sum rounded "
            "first", family="compound", chain=True),
    _binary("sub_relu", f"{COMPOUND_DIR}/SubRelu.md", "sub_relu", "dst = max(src0 - src1, 0) per lane, the difference "
            "rounded first", family="compound", chain=True),
    VectorOp("fused_mul_add", f"{COMPOUND_DIR}/FusedMulAdd.md", ("src0", "src1"), "fused_mul_add", False, False,
             _binary_forms(), "dst = src0 * dst + src1 per lane (the product rounded to T first; one fused rounding "
             "on the 950)", IEEE_RNE, "compound", reads_dst=True),
    VectorOp("fused_mul_add_relu", f"{COMPOUND_DIR}/MulAddRelu.md", ("src0", "src1"), "fused_mul_add_relu", False,
             False, _binary_forms(), "dst = max(src0 * dst + src1, 0) per lane (rounded as fused_mul_add)", IEEE_RNE,
             "compound", reads_dst=True),
    VectorOp("mul_add_dst", f"{COMPOUND_DIR}/MulAddDst.md", ("src0", "src1"), "mul_add_dst", False, False,
             _binary_forms(), "dst = src0 * src1 + dst per lane (the product rounded to T first, by analogy with "
             "fused_mul_add; one fused rounding on the 950; half sources with a float dst: rounded once)", IEEE_RNE,
             "compound", reads_dst=True),
    VectorOp("axpy", f"{COMPOUND_DIR}/Axpy.md", ("src",), "axpy", True, False, AXPY_FORMS,
             "dst = src * scalar + dst per lane (the product rounded to T first, by analogy with fused_mul_add; "
             "a half src and scalar with a float dst: rounded once)", IEEE_RNE, "compound", reads_dst=True),
)}


# the shifts' tensor form: the same lane rules with one amount per lane (arith.SHIFT_BY_LANE)
SHIFT_BY_TENSOR = {name: VectorOp(name, arith.SHIFT_TENSOR_PAGES[name], ("src0", "src1"), f"{name}_by_lane", False,
                                  False, (SHIFT_TENSOR_FORM,), f"dst = src0 {sign} src1 per lane", BIT_EXACT, "logic")
                   for name, sign in (("shift_left", "<<"), ("shift_right", ">>"))}


def _compile_shift_by_tensor(op: VectorOp, core: Core, bound: dict) -> VectorPlan:
    """ShiftLeft/ShiftRight（左/右移位数为Tensor）: the 950 only (产品支持情况); T any integer type, the amounts
    in src1 of type U, the signed integer of T's size (数据类型; the vendor's static_assert pairs); then the
    element-wise plan of a two-source count form, src1 viewed as T (amounts are read as U when the call runs)."""
    name, page = op.name, arith.SHIFT_TENSOR_PAGES[op.name]
    support = vector_support(core.chip, f"{name}_by_tensor")
    if support is None:
        raise unsupported_on(core.chip, name, f"{name} with the amounts in a tensor",
                             lambda c: vector_support(c, f"{name}_by_tensor") is not None, f"{page} 产品支持情况")
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    require_dtype(name, "dst", dst.dtype, support.for_form(True), f"{name} shifts integers only", f"{page} 数据类型")
    amounts = require_ub_tensor(name, "src1", bound["src1"], core)
    wanted = f"int{8 * dst.dtype.itemsize}"
    if amounts.dtype.name != wanted:
        raise UnsupportedError(name, "src1 dtype", amounts.dtype.name, f"the shift amounts of a {dst.dtype} dst "
                               "are the signed integer of its size", wanted, f"{page} 数据类型")
    return _compile(SHIFT_BY_TENSOR[name], core, "count", dict(bound, src1=amounts.reinterpret_cast(dst.dtype)))


def _shift_plan_context(core: Core, form: str, values: tuple) -> tuple:
    return () if form == "tensor" else mask_plan_context(core, form, values)


# ----------------------------------------------------------------- planning
def _compile(op: VectorOp, core: Core, form: str, bound: dict,
             strides: list[tuple[int, int]] | None = None) -> VectorPlan:
    """Check every rule of one call, in the order the documents' checks come, and plan it.

    The plan's footprints are relative to each tensor's address; the checks that depend on
    the addresses are made here for this call's tensors and again by :meth:`VectorPlan.bind`
    for every other placement.  ``strides``: a mask form's (block, repeat) strides already
    checked by the caller (the C API passes them as separate arguments of its own widths).
    """
    if form == "tensor":
        return _compile_shift_by_tensor(op, core, bound)
    name = op.name
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    dtype = dst.dtype
    tensors = [require_ub_tensor(name, src, bound[src], core) for src in op.sources]
    row = op.support_name or name
    source_dtype = None
    if row in MIXED_SOURCES:  # Axpy, MulAddDst: half sources with a float dst (docs/semantics.md §5.26)
        source_dtype = mixed.mixed_source(name, row, op.doc, op.sources, core.chip, dst, tensors)
    elif op.operation == "abs" and tensors[0].dtype.is_complex:  # |z| of a complex source (§5.29)
        source_dtype = _complex_abs_source(op, core, form, dst, tensors[0])
    for src, tensor in zip(op.sources, tensors, strict=True):
        if tensor.dtype != dtype and source_dtype is None:
            raise UnsupportedError(name, f"{src} dtype", tensor.dtype.name, f"{src} must have dst's dtype",
                                   dtype.name, f"{op.doc} 数据类型; {semantics('5.3')}")
    support = vector_support(core.chip, row)
    if support is None:
        raise unsupported_on(core.chip, name, name, lambda c: vector_support(c, row) is not None,
                             f"{op.doc} 产品支持情况; {semantics('5.3')}")
    if dtype.name in not_modelled(core.chip, row):
        raise UnsupportedError(name, "dst dtype", dtype.name, f"{name} of {dtype} data on {core.chip.product} is not "
                               "modelled by npusim (the page lists it)",
                               ", ".join(sorted(support.for_form(form == "count"))), f"{op.doc} 数据类型")
    require_dtype(name, "dst", dtype, support.for_form(form == "count"),
                  f"{name} does not support this data type in this form on {core.chip.product}",
                  f"{op.doc} 数据类型; {semantics('5.3')}")
    if op.shifts:
        shift_bits(op, core, bound[op.scalar_name], dtype)  # rejected now; the plan reads it per call
    elif op.scalar:
        scalar_bits(name, op.scalar_name, bound[op.scalar_name], source_dtype or dtype)  # Axpy: U, the sources' type

    itemsize = dtype.itemsize
    complex_abs = source_dtype is not None and source_dtype.is_complex  # a repeat has the source's lanes
    native = core.chip.vector_lowering == "native"
    words_after: MaskWords | None = None
    mode_after: MaskMode | None = None
    registers: tuple[str, ...] = ()
    operands = ("dst", *op.sources)
    if form == "count":
        count = require_int(name, "count", bound["count"], 0, INT32_MAX, f"{op.doc} 函数原型; {semantics('1.4')}",
                            rule="count is an int32_t")
        if count == 0:
            return _nop(op, core, "count", operands)
        for tensor, label in ((dst, "dst"), *zip(tensors, op.sources, strict=True)):
            tensor.check_span(name, label, tensor.addr, tensor.addr + count * tensor.dtype.itemsize)
        lanes = counter_mode_lanes(count, lanes_per_repeat((source_dtype or dtype).itemsize if complex_abs
                                                           else itemsize))
        strides = [(1, 4), (1, 8)] if complex_abs else _default_strides(op, source_dtype is not None)
        if native:
            words_after, mode_after = _count_form_registers(core, count, itemsize)
    else:
        strides = _strides(op, bound) if strides is None else list(strides)
        if source_dtype is not None and "mask" in bound:  # (the C API's repeat form takes the register's)
            mixed.check_mask(name, row, core, bound)
        lanes, words_after, registers = mask_form_lanes(core, name, bound, itemsize, native)
        if lanes.repeats == 0:
            return _nop(op, core, "repeat_times", operands)
    dst_blk, dst_rep = strides[0]
    if dst_blk == 0:
        raise ParameterRangeError(name, "dst block stride", 0, "a destination block stride of 0 is undefined "
                                  "behaviour", "at least 1", DST_STRIDE_SOURCE)
    if saturation_name(dtype) in core.chip.float_saturation_dtypes:
        registers += ("CTRL",)  # the saturation switch, read per call
    sizes = (itemsize, *((source_dtype or dtype).itemsize for _ in op.sources))
    relative = [strided_footprint(label, 0, lanes, size, blk, rep)
                for label, size, (blk, rep) in zip(operands, sizes, strides, strict=True)]
    scalar_at = op.forms[0].names.index(op.scalar_name) if op.scalar else None  # the same place in both forms
    fused = op.operation in ("fused_mul_add", "fused_mul_add_relu", "mul_add_dst") and \
        core.chip.name in FUSED_MULTIPLY_ADD
    plan = VectorPlan(op, dtype, lanes, tuple(strides), relative, words_after, mode_after, registers, operands,
                      scalar_at, fused, source_dtype)
    plan.placed(name, [dst, *tensors])  # bounds and overlap at this call's addresses
    return plan


def saturation_name(dtype: DType) -> str | None:
    """The float type whose saturation rule a lane of ``dtype`` follows: its own, or a complex type's
    component's (§5.29); ``None`` for integers."""
    if dtype.is_complex:
        return dtype.component.name
    return dtype.name if dtype.is_float else None


def _complex_abs_source(op: VectorOp, core: Core, form: str, dst: LocalTensor, src: LocalTensor) -> DType:
    """Abs of a complex source (Abs.md, the 950's "tensor前n个复数计算" prototype): only the count form, only
    the (complex32, half) and (complex64, float) pairs (数据类型), only the 950 (函数原型)."""
    pairs = complex_abs_pairs(core.chip)
    if not pairs:
        raise unsupported_on(core.chip, op.name, f"{op.name} of a {src.dtype} source", complex_abs_pairs,
                             f"{op.doc} 函数原型; {semantics('5.29')}")
    if form != "count":
        raise UnsupportedError(op.name, "src dtype", src.dtype.name, "a complex source takes only the count form "
                               "(tensor前n个复数计算)", "abs(dst, src, count)",
                               f"{op.doc} 函数原型; {semantics('5.29')}")
    if (src.dtype.name, dst.dtype.name) not in pairs:
        wanted = dict(pairs)[src.dtype.name]
        raise UnsupportedError(op.name, "dst dtype", dst.dtype.name, f"the magnitude of a {src.dtype} source has "
                               "its component type", wanted, f"{op.doc} 数据类型; {semantics('5.29')}")
    return src.dtype


def shift_bits(op: VectorOp, core: Core, value, dtype: DType) -> np.ndarray:
    """A shift amount, checked against the page's range (ShiftLeft.md / ShiftRight.md scalarValue取值说明:
    [0, bits of T]; the 950 takes any amount T holds), as one raw element of T."""
    width = 8 * dtype.itemsize
    high = int(np.iinfo(dtype.np_dtype).max) if core.chip.name in SHIFT_BEYOND_WIDTH else width
    amount = require_int(op.name, "scalar", value, 0, high, f"{op.doc} scalarValue取值说明",
                         rule=f"the shift amount of a {dtype} lane")
    return np.array([amount], dtype=dtype.raw)


def _nop(op: VectorOp, core: Core, operand: str, operands: tuple[str, ...]) -> VectorPlan:
    """count = 0 or repeat_times = 0: a NOP where documented as one (A2/A3 ...), an error on the 950."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(op.name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{op.doc} 约束说明; {semantics('1.9')}")
    return VectorPlan(op, None, None, (), [], None, None, (), operands, None)


def _default_strides(op: VectorOp, mixed_precision: bool = False) -> list[tuple[int, int]]:
    """(block stride, repeat stride) of dst and each source for the count forms: contiguous (a half source
    of a float dst moves 4 DataBlocks a repeat, docs/semantics.md §5.26)."""
    source = (1, mixed.SOURCE_REPEAT_STRIDE if mixed_precision else 8)
    return [(1, 8)] + [source] * len(op.sources)


def _strides(op: VectorOp, bound: dict) -> list[tuple[int, int]]:
    """(block stride, repeat stride) of dst and then each source, checked against the C field widths."""
    name = op.name
    if op.name == "duplicate":
        source = f"{op.doc} 函数原型; {semantics('1.2')}"
        blk = require_uint(name, "dst_block_stride", bound["dst_block_stride"], 16, source)
        rep = require_uint(name, "dst_repeat_stride", bound["dst_repeat_stride"], 8, source)
        return [(blk, rep)]
    if len(op.sources) == 2:
        d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = require_repeat_params(name, bound["repeat_params"],
                                                                             BinaryRepeatParams)
        return [(d_blk, d_rep), (s0_blk, s0_rep), (s1_blk, s1_rep)]
    d_blk, s_blk, d_rep, s_rep = require_repeat_params(name, bound["repeat_params"], UnaryRepeatParams)
    return [(d_blk, d_rep), (s_blk, s_rep)]


def _count_form_registers(core: Core, count: int, itemsize: int) -> tuple[MaskWords, MaskMode | None]:
    """The mask state a native count form leaves behind (docs/semantics.md §1.4).

    With counter mode (A2/A3, 310P): ``set_mask_norm(); set_vector_mask(-1, -1)``.  Without
    it (910) the API issues full repeats and then a tail repeat with ``SetMask<T>(tail)``,
    so the register keeps the last mask it set (``dav_c100 BinaryCompute``).
    """
    if core.chip.counter_mode:
        return (FULL_WORD, FULL_WORD, 0, 0), MaskMode.NORMAL
    lanes = lanes_per_repeat(itemsize)
    low, high = contiguous_mask_words(count % lanes or lanes, itemsize)
    return (low, high, 0, 0), None


# ---------------------------------------------------------- plan and binding
@dataclass(eq=False)
class VectorPlan:
    """A checked element-wise call, relative to its tensors' addresses (a NOP when ``lanes`` is None).

    Attributes:
        op, dtype, lanes: the instruction, its element type and its active lanes.
        strides: ``(block stride, repeat stride)`` of dst, then of each source.
        footprints: each operand's element accesses relative to its tensor's address.
        mask_words_after, mask_mode_after: what the lowering leaves in the mask registers.
        registers: the registers a call reads (``"MASK"``, ``"MASK_MODE"``, ``"CTRL"``).
        operands: ``("dst", *sources)``, the tensors that bind per call, in checking order.
        scalar_at: where the scalar operand sits in the call's values (read per call).
        fused: a multiply-add rounds once (:func:`.arith.compute`).
        source_dtype: the sources' (and Axpy's scalar's) type where it is not dst's (half with a float dst,
            :mod:`.mixed_multiply_add`); ``None``: dst's.
    """

    op: VectorOp
    dtype: DType | None
    lanes: ActiveLanes | None
    strides: tuple[tuple[int, int], ...]
    footprints: list[Footprint]
    mask_words_after: MaskWords | None
    mask_mode_after: MaskMode | None
    registers: tuple[str, ...]
    operands: tuple[str, ...]
    scalar_at: int | None
    fused: bool = False
    source_dtype: DType | None = None

    def bind(self, core: Core, tensors: list[LocalTensor]) -> VectorBinding:
        """The per-placement checks, in the plan step's order, then the operands' views over UB."""
        name = self.op.name
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(name, label, tensor, core)
        if self.lanes is None:
            return VectorBinding(self, core, [], [], False)
        footprints, chained = self.placed(name, tensors)
        return VectorBinding(self, core, [t.addr for t in tensors], footprints, chained)

    def placed(self, name: str, tensors: list[LocalTensor]) -> tuple[list[Footprint], bool]:
        """The footprints at these tensors' addresses, checked for bounds and overlap (docs/semantics.md
        §1.6); also whether the dst/src1 exception chains the repeats."""
        footprints = [fp.moved(tensor.addr) for fp, tensor in zip(self.footprints, tensors, strict=True)]
        for fp, tensor in zip(footprints, tensors, strict=True):
            fp.check_in(name, tensor)
        dst, *sources = footprints
        if self.source_dtype is not None and not self.source_dtype.is_complex:  # the mixed form's own rule
            mixed.check_disjoint(name, self.op.support_name or self.op.name, dst, sources)
        dst_rep = self.strides[0][1]
        chained = False
        hardware = tensors[0].core.tolerance == "hardware"
        for fp, tensor, (_blk, rep) in zip(sources, tensors[1:], self.strides[1:], strict=True):
            allowed = (self.op.src1_chain and fp.name == "src1" and self.dtype.name in CHAIN_DTYPES
                       and (rep == 0 or dst_rep == 0))
            outside = ((tensors[0].addr, tensors[0].end), (tensor.addr, tensor.end)) if hardware else None
            chained |= check_overlap(name, dst, fp, cross_repeat_allowed=allowed, tolerated_outside=outside)
        if self.op.reads_dst:
            check_overlap(name, dst, dst)  # no repeat may read the dst an earlier one wrote
        return footprints, chained


class VectorBinding:
    """A :class:`VectorPlan` at one placement on one core: its operands' views, and what it touches."""

    def __init__(self, plan: VectorPlan, core: Core, bases: list[int], footprints: list[Footprint],
                 chained: bool) -> None:
        self.plan = plan
        self.footprints = footprints
        self.chained = chained
        self.registers_read = plan.registers
        self.registers_written = mask_registers_left(plan.mask_words_after, plan.mask_mode_after)
        self.accesses: list[OperandAccess] = []
        if footprints and not chained:
            ub, lanes = core.ub, plan.lanes
            operands = [StridedOperand(base, fp, blk, rep)
                        for base, fp, (blk, rep) in zip(bases, footprints, plan.strides, strict=True)]
            raws = [plan.dtype.raw] + [(plan.source_dtype or plan.dtype).raw] * (len(operands) - 1)
            # operands of two sizes have views of two shapes: gathered by index instead, as Cast's
            layout = choose_layout(ub, operands, lanes, operands[0]) if plan.source_dtype is None else "flat"
            self.accesses = [OperandAccess.build(ub, operand, raw, lanes, layout)
                             for operand, raw in zip(operands, raws, strict=True)]
        self.route = self._route(core)

    def _route(self, core: Core):
        """The float32 route of :mod:`.float32_lanes` for this binding, or ``None``: the view layout (whose reads
        return the same arrays every call), the route computing into dst's output when no source's view may share
        memory with it.  Only where no result saturates (float32 is no product's saturating type)."""
        plan = self.plan
        bind = float32_lanes.ROUTES.get(plan.op.operation)
        if (bind is None or not self.accesses or plan.dtype.name != "float32" or plan.source_dtype is not None
                or "float32" in core.chip.float_saturation_dtypes or self.accesses[0].layout != "view"):
            return None
        dst, a, b = self.accesses
        out = dst.output()
        shared = any(np.may_share_memory(out, source.values) for source in (a, b))
        raw = plan.dtype.raw
        self.gathered = [source for source in (a, b) if source.blocks is not None]  # copied in by each call
        return bind(a.gather(core.ub, raw), b.gather(core.ub, raw), None if shared else out)

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        read = self.footprints if self.plan.op.reads_dst else self.footprints[1:]
        return merge_ranges(r for fp in read for r in ranges_of_addresses("UB", fp.byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        if not self.footprints:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.footprints[0].byte_addrs()[0]))

    def run(self, core: Core, values: tuple) -> None:
        """Read the sources, compute every active lane, then commit (nothing changes before)."""
        plan = self.plan
        if plan.lanes is None:
            return
        if self.route is not None and self._routed(core):
            return
        op, dtype, ub, source_dtype = plan.op, plan.dtype, core.ub, plan.source_dtype
        name, operation = op.name, op.operation
        if plan.scalar_at is None:
            scalar = None
        elif op.shifts:
            scalar = shift_bits(op, core, values[plan.scalar_at], dtype)
        else:
            scalar = scalar_bits_cached(name, op.scalar_name, values[plan.scalar_at], source_dtype or dtype)
        saturate = core.float_saturation and saturation_name(dtype) in core.chip.float_saturation_dtypes
        if self.chained:
            self._check_chained_sources(ub)
            result = self._chained_results(ub, scalar, saturate)
        else:
            accesses = self.accesses
            dst, sources = accesses[0], accesses[1:]
            epoch = ub.shadow_epoch
            for access in sources:
                if access.seen_written != epoch:
                    access.check_initialized(ub, name)
            if operation is None:
                result = np.broadcast_to(scalar, dst.output().shape if dst.layout == "view" else dst.index.shape)
            else:
                raw = (source_dtype or dtype).raw
                # half sources of a float dst are widened into new arrays: a flat run is read as a view, not copied
                widening = source_dtype is not None and not source_dtype.is_complex
                operands = [access.read(ub, raw) if widening else access.gather(ub, raw) for access in sources]
                if source_dtype is not None and source_dtype.is_complex:  # |z| of a complex source
                    self._commit(core, complex_lanes.compute("abs", source_dtype, operands, saturate))
                    return
                if widening:  # half sources (and scalar) of a float dst, widened exactly
                    operands = [mixed.widened(o, source_dtype, dtype) for o in operands]
                    scalar = None if scalar is None else mixed.widened(scalar, source_dtype, dtype)
                if operation in arith.SHIFT_BY_LANE:  # a negative amount in an active lane rejects the call
                    arith.check_shift_amounts(name, dtype, sources[-1].active_values(operands[-1]))
                if op.reads_dst:
                    if dst.seen_written != epoch:
                        dst.check_initialized(ub, name)
                    operands.append(dst.read(ub, dtype.raw) if widening else dst.gather(ub, dtype.raw))
                if scalar is not None:
                    operands.insert(0 if op.scalar_first else len(operands), scalar)
                if dtype.is_complex:
                    result = complex_lanes.compute(operation, dtype, operands, saturate)
                elif widening and not saturate and (sums := mixed.finite_sums(operation, operands)) is not None:
                    result = sums
                else:
                    result = arith.compute(operation, dtype, operands, saturate, plan.fused)
        self._commit(core, result)

    def _routed(self, core: Core) -> bool:
        """Run the call by its float32 route (:meth:`_route`); ``False`` when the route gives up (a lane may be NaN
        or infinite), having written nothing but its own output, so that :func:`.arith.compute` runs it."""
        ub = core.ub
        epoch = ub.shadow_epoch
        _dst, a, b = self.accesses  # every route has two sources
        if a.seen_written != epoch or b.seen_written != epoch:
            a.check_initialized(ub, self.plan.op.name)
            b.check_initialized(ub, self.plan.op.name)
        for source in self.gathered:  # strided: the DataBlocks into the buffer the route reads
            source.gather(ub, self.plan.dtype.raw)
        bits = self.route()
        if bits is None:
            return False
        self._commit(core, bits)
        return True

    def _commit(self, core: Core, result: np.ndarray) -> None:
        """Store the computed lanes, then the mask registers the lowering leaves behind."""
        plan = self.plan
        if self.chained:
            core.ub.scatter(self.footprints[0].elem_index, result)
        else:
            self.accesses[0].write(core.ub, result)
        if plan.mask_words_after is not None:
            core.set_mask_words(*plan.mask_words_after)
        if plan.mask_mode_after is not None:
            core.set_mask_mode(plan.mask_mode_after)

    # ------------------------------------------------- the dst/src1 chain
    def _check_chained_sources(self, ub) -> None:
        dst, *sources = self.footprints
        for fp in sources:
            index = fp.elem_index[~written_earlier(dst, fp)]  # bytes an earlier repeat wrote are defined
            ub.check_initialized(self.plan.op.name, fp.name, index, self.plan.dtype.itemsize)

    def _chained_results(self, ub, scalar, saturate: bool) -> np.ndarray:
        """The dst/src1 chain (docs/semantics.md §1.6): repeat r reads what repeat r - 1 wrote, so repeats
        run in order, on a private copy of every element the call touches (each step still vectorised
        over its lanes); the destination lanes' values, in issue order, are returned for the commit."""
        plan = self.plan
        dst, *sources = self.footprints
        touched = [fp.elem_index for fp in sources] + [dst.elem_index]
        elements, where = np.unique(np.concatenate(touched), return_inverse=True)
        work = ub.data.view(plan.dtype.raw)[elements]
        ends = np.cumsum([index.size for index in touched])[:-1]
        *source_at, dst_at = np.split(where, ends)
        bounds = np.searchsorted(dst.repeats, np.arange(plan.lanes.repeats + 1))
        for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
            if start < stop:
                operands = [work[at[start:stop]] for at in source_at] + ([scalar] if scalar is not None else [])
                work[dst_at[start:stop]] = arith.compute(plan.op.operation, plan.dtype, operands, saturate)
        return work[dst_at]


# ------------------------------------------------------------------ the flexible scalar position (the 950)
FLEXIBLE_PAGES = {"adds": "Adds", "subs": "Subs", "muls": "Muls", "divs": "Divs", "maxs": "Maxs", "mins": "Mins"}


def flexible_ops(base: VectorOp, page: str) -> dict[str, VectorOp]:
    """``base`` with its vector as src0 (the scalar src1, after it) or as src1 (the scalar src0, before it)."""
    return {"src0": replace(base, doc=page, sources=("src0",), scalar_name="src1", forms=flexible_forms()),
            "src1": replace(base, doc=page, sources=("src1",), scalar_name="src0", forms=flexible_forms(),
                            scalar_first=True)}


def compile_flexible(ops: dict[str, VectorOp], core: Core, form: str, bound: dict):
    """A flexible-scalar call (:mod:`.flexible_scalar`): which source is the scalar, then the element-wise plan
    of the vector and that scalar (a number per call, or the element, read when the call runs)."""
    op = ops["src0"]
    position = scalar_position(op.name, bound, op.doc)
    op = ops[position.vector]
    values = dict(bound, **{position.scalar: 0}) if position.element else bound  # the element: read per call
    inner = _compile(op, core, form.removeprefix(FLEX_PREFIX), values)
    return with_element(inner, op.name, op.doc, position, bound, bound["dst"].dtype, core)


def _flexible_arith(name: str) -> dict[str, VectorOp]:
    page = f"{DOC_DIR}/{FLEXIBLE_PAGES[name]}（灵活标量位置）.md"
    operation = {"adds": "add", "subs": "sub", "muls": "mul", "divs": "div", "maxs": "max", "mins": "min"}[name]
    exactness = BIT_EXACT if name in ("maxs", "mins") else IEEE_RNE
    return flexible_ops(VectorOp(name, page, ("src",), operation, True, False, SCALAR_FORMS,
                                 f"dst = src {operation} scalar", exactness), page)


FLEXIBLE_ARITH = {name: _flexible_arith(name) for name in FLEXIBLE_PAGES}


def _compile_with_flexible(op: VectorOp, core: Core, form: str, bound: dict):
    """adds / muls / maxs / mins: their own forms, or (the 950) the flexible scalar position."""
    if not form.startswith(FLEX_PREFIX):
        return _compile(op, core, form, bound)
    page = FLEXIBLE_ARITH[op.name]["src0"].doc
    if core.chip.name not in FLEXIBLE_PRODUCTS:
        raise unsupported_on(core.chip, op.name, f"{op.name} with the scalar first or a tensor element",
                             lambda c: c.name in FLEXIBLE_PRODUCTS, f"{page} 产品支持情况")
    return compile_flexible(FLEXIBLE_ARITH[op.name], core, form, bound)


# ------------------------------------------------------------------ the API


_SNIPPETS = {
    "binary": ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
               "y = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)\n"
               "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)\n",
               ("asc.{name}(z, x, y, 256)", "asc.{name}(z, x, y, 64, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))",
                "asc.{name}(z, x, y, [0x00FF00FF00FF00FF, 0], 2, asc.BinaryRepeatParams(1, 2, 1, 8, 16, 8))")),
    "unary": ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
              "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 512)\n",
              ("asc.{name}(z, x, 300)", "asc.{name}(z, x, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8))",
               "asc.{name}(z, x, [0xF0F0F0F0F0F0F0F0, 0xFF], 1, asc.UnaryRepeatParams(2, 1, 8, 8))")),
    "scalar": ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
               "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)\n",
               ("asc.{name}(z, x, 1.5, 200)", "asc.{name}(z, x, -2.0, 32, 4, asc.UnaryRepeatParams(1, 1, 8, 8))")),
    "binary_int": ("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 512)\n"
                   "y = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 1024, 512)\n"
                   "z = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 2048, 512)\n",
                   ("asc.{name}(z, x, y, 500)",
                    "asc.{name}(z, x, y, 128, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))",
                    "asc.{name}(z, x, y, [0xFFFF0000FFFF0000, 0xFF], 2, asc.BinaryRepeatParams(1, 1, 2, 8, 8, 16))")),
    "unary_int": ("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 512)\n"
                  "z = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 1024, 512)\n",
                  ("asc.{name}(z, x, 300)", "asc.{name}(z, x, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8))",
                   "asc.{name}(z, x, [0xF0F0F0F0F0F0F0F0, 0xFF], 1, asc.UnaryRepeatParams(2, 1, 8, 8))")),
    "shift": ("x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)\n"
              "z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 1024, 256)\n",
              ("asc.{name}(z, x, 3, 200)", "asc.{name}(z, x, 31, 32, 4, asc.UnaryRepeatParams(1, 1, 8, 8))",
               "asc.{name}(z, x, 1, [0x00FF00FF00FF00FF, 0], 2, asc.UnaryRepeatParams(1, 2, 8, 16))")),
    "fill": ("z = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 0, 512)\n",
             ("asc.{name}(z, 7, 500)", "asc.{name}(z, -3, 96, 2, 1, 8)")),
}


def _examples(op: VectorOp) -> tuple[str, ...]:
    kind = "fill" if op.operation is None else "scalar" if op.scalar else "binary" if len(op.sources) == 2 else "unary"
    if op.shifts:
        kind = "shift"
    elif op.operation in arith.BITWISE:
        kind += "_int"
    setup, calls = _SNIPPETS[kind]
    examples = tuple(setup + call.format(name=op.name) for call in calls)
    if op.name in MIXED_SOURCES:
        examples += _mixed_examples(op)
    return examples


#: (element type, scalar) of the 950's complex count-form examples (docs/semantics.md §5.29): each instruction
#: one of the two types, half of them complex32 (whose steps saturate in half)
_COMPLEX_EXAMPLES = {"add": ("complex64", None), "sub": ("complex32", None), "mul": ("complex32", None),
                     "div": ("complex64", None), "adds": ("complex64", "1.5 - 2j"),
                     "muls": ("complex32", "0.5 + 0.25j"), "subs": ("complex32", "3 + 1j"),
                     "divs": ("complex64", "-0.75j")}


def _complex_example(name: str) -> str:
    """``name``'s count form on 100 complex elements; ``subs`` / ``divs`` with the scalar first."""
    dtype, scalar = _COMPLEX_EXAMPLES[name]
    setup = "".join(f"{t} = asc.LocalTensor(asc.{dtype}, asc.TPosition.{pos}, {addr}, 128)\n"
                    for t, pos, addr in (("x", "VECIN", 0), ("y", "VECIN", 1024), ("z", "VECOUT", 2048)))
    if scalar is None:
        return setup + f"asc.{name}(z, x, y, 100)"
    operands = f"{scalar}, x" if name in ("subs", "divs") else f"x, {scalar}"
    return setup + f"asc.{name}(z, {operands}, 100)"


def _examples_950(op: VectorOp) -> tuple[str, ...]:
    """The 950's own forms and dtype rows of an instruction other products have too (``examples_on["950"]``)."""
    examples: tuple[str, ...] = ()
    if op.shifts:  # the amounts in a tensor
        examples += ("x = asc.LocalTensor(asc.uint16, asc.TPosition.VECIN, 0, 512)\n"
                     "n = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 1024, 512)\n"
                     "n.write([i % 19 for i in range(512)])\n"
                     "z = asc.LocalTensor(asc.uint16, asc.TPosition.VECOUT, 2048, 512)\n"
                     f"asc.{op.name}(z, x, n, 300)",)
    if op.name in FLEXIBLE_ARITH:  # the scalar first, or a tensor's element
        examples += _flexible_examples(op.name)
    if op.name in _COMPLEX_EXAMPLES:
        examples += (_complex_example(op.name),)
    if op.name == "abs":  # |z|: complex32 -> half, complex64 -> float
        examples += tuple(f"x = asc.LocalTensor(asc.{src}, asc.TPosition.VECIN, 0, 128)\n"
                          f"z = asc.LocalTensor(asc.{dst}, asc.TPosition.VECOUT, 2048, 128)\n"
                          f"asc.{op.name}(z, x, 100)"
                          for src, dst in (("complex32", "float16"), ("complex64", "float32")))
    if op.name == "duplicate":  # count form: a complex scalar; a hifloat8_t value (§5.32)
        examples += ("z = asc.LocalTensor(asc.complex32, asc.TPosition.VECOUT, 0, 128)\n"
                     f"asc.{op.name}(z, 1 - 0.5j, 100)",
                     "z = asc.LocalTensor(asc.hifloat8, asc.TPosition.VECOUT, 0, 512)\n"
                     f"asc.{op.name}(z, 14.0, 300)")
    return examples


def _mixed_examples(op: VectorOp) -> tuple[str, ...]:
    """Half sources with a float dst (docs/semantics.md §5.26): count, contiguous mask (the sources' repeat
    stride 4: 64 halves), bit-wise mask with a source block stride of 2."""
    setup = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
             "y = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 512)\n"
             "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)\n"
             "z.write([0.25] * 256)\n")
    if op.scalar:
        calls = ("asc.{name}(z, x, 1.5, 200)", "asc.{name}(z, x, -2.0, 64, 4, asc.UnaryRepeatParams(1, 1, 8, 4))",
                 "asc.{name}(z, x, 0.5, [0x00FF00FF00FF00FF, 0], 2, asc.UnaryRepeatParams(1, 2, 8, 8))")
    else:
        calls = ("asc.{name}(z, x, y, 200)", "asc.{name}(z, x, y, 48, 4, asc.BinaryRepeatParams(1, 1, 1, 8, 4, 4))",
                 "asc.{name}(z, x, y, [0xFFFF0000FFFF0000, 0], 2, asc.BinaryRepeatParams(1, 2, 1, 8, 8, 4))")
    return tuple(setup + call.format(name=op.name) for call in calls)


def _register(op: VectorOp):
    flexible = op.name in FLEXIBLE_ARITH
    forms = (*op.forms, *flexible_forms(FLEX_PREFIX)) if flexible else op.forms
    doc = f"``{op.summary}`` ({op.doc}" + (f"; {arith.SHIFT_TENSOR_PAGES[op.name]}" if op.shifts else "") + ")."
    if flexible:
        doc += (f"\n\nThe 950 also takes the scalar first, or a tensor's first element on either side "
                f"({FLEXIBLE_ARITH[op.name]['src0'].doc}; ``scalar_tensor_index`` when both are tensors).")
    return register(Instruction(
        op.name, "ascend", op.family, "V", forms,
        lambda core, form, values, op=op: _compile_with_flexible(op, core, form, values), f"{op.doc}",
        support=lambda chip, name=op.name: vector_support(chip, name), exactness=op.exactness,
        summary=op.summary, examples=_examples(op),
        examples_on={"950": on_950} if (on_950 := _examples_950(op)) else {},
        per_call=frozenset({"scalar", "src0", "src1"} if flexible else {"scalar"}),
        plan_context=_shift_plan_context if op.shifts else flexible_plan_context if flexible else mask_plan_context,
        fast_context=mask_fast_context, doc=doc,
    ))


def _flexible_examples(name: str) -> tuple[str, ...]:
    setup = ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
             "s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 8)\n"
             "s.write([2.5] * 8)\n"
             "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)\n")
    return (setup + f"asc.{name}(z, 3.0, x, 200)",
            setup + f"asc.{name}(z, s, x, 64, 3, asc.UnaryRepeatParams(1, 1, 8, 8), scalar_tensor_index=0)",
            setup + f"asc.{name}(z, x, s, [0xFFFF0000FFFF0000, 0], 2, asc.UnaryRepeatParams(1, 2, 8, 16))")


def _register_flexible_only(name: str):
    """subs / divs: only the flexible forms (the 950's（灵活标量位置）pages; no other Subs/Divs page)."""
    ops = FLEXIBLE_ARITH[name]
    op = ops["src0"]
    summary = f"dst = src {'-' if name == 'subs' else '/'} scalar or scalar {'-' if name == 'subs' else '/'} src " \
              "per lane (the scalar a number or a tensor's first element, on either side)"
    return register(Instruction(
        name, "ascend", "arith", "V", flexible_forms(), lambda core, form, values: compile_flexible(ops, core, form,
                                                                                                     values),
        f"{op.doc} 功能说明", support=lambda chip: vector_support(chip, name), exactness=IEEE_RNE, summary=summary,
        examples=_flexible_examples(name) + ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
                                             "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 2048, 512)\n"
                                             f"asc.{name}(z, x, 1.5, 500)", _complex_example(name)),
        per_call=frozenset({"src0", "src1"}), plan_context=flexible_plan_context, fast_context=mask_fast_context,
        doc=f"``{summary}`` ({op.doc}).\n\nThe 950 only.  With two tensors, ``scalar_tensor_index`` (0 or 1) "
            "names the one whose first element is the scalar.",
    ))


add = _register(VECTOR_OPS["add"])
sub = _register(VECTOR_OPS["sub"])
mul = _register(VECTOR_OPS["mul"])
max_ = _register(VECTOR_OPS["max"])
min_ = _register(VECTOR_OPS["min"])
abs_ = _register(VECTOR_OPS["abs"])
adds = _register(VECTOR_OPS["adds"])
muls = _register(VECTOR_OPS["muls"])
duplicate = _register(VECTOR_OPS["duplicate"])
div = _register(VECTOR_OPS["div"])
maxs = _register(VECTOR_OPS["maxs"])
mins = _register(VECTOR_OPS["mins"])
leaky_relu = _register(VECTOR_OPS["leaky_relu"])
relu = _register(VECTOR_OPS["relu"])
sqrt = _register(VECTOR_OPS["sqrt"])
exp = _register(VECTOR_OPS["exp"])
ln = _register(VECTOR_OPS["ln"])
reciprocal = _register(VECTOR_OPS["reciprocal"])
rsqrt = _register(VECTOR_OPS["rsqrt"])
bitwise_and = _register(VECTOR_OPS["bitwise_and"])
bitwise_or = _register(VECTOR_OPS["bitwise_or"])
bitwise_not = _register(VECTOR_OPS["bitwise_not"])
shift_left = _register(VECTOR_OPS["shift_left"])
shift_right = _register(VECTOR_OPS["shift_right"])
add_relu = _register(VECTOR_OPS["add_relu"])
sub_relu = _register(VECTOR_OPS["sub_relu"])
fused_mul_add = _register(VECTOR_OPS["fused_mul_add"])
fused_mul_add_relu = _register(VECTOR_OPS["fused_mul_add_relu"])
mul_add_dst = _register(VECTOR_OPS["mul_add_dst"])
axpy = _register(VECTOR_OPS["axpy"])
subs = _register_flexible_only("subs")
divs = _register_flexible_only("divs")
