"""The C API forms of the element-wise arithmetic, logic, compound and fill instructions, and of the
mask-register writes (``asc_*``, Atlas A2/A3 only; docs/semantics.md §5.16).

Each function is a registry alias of the Memory-level instruction it lowers to (the 2201
implementation, ``impl/c_api/instr_impl/npu_arch_2201/vector_compute_impl/asc_<name>_impl.h``), planned
by that instruction's own plan (:func:`.elementwise._compile`, or for the mixed-type rows of
``asc_add_relu`` / ``asc_sub_relu`` and the ``asc_mul_cast_*`` functions the compound-cast plan of
:mod:`.cast`).  The pages print three prototypes per function:

* ``asc_add(dst, src0, src1, count)`` (前n个数据计算): ``set_mask_count(); set_vector_mask(0, count)``,
  the bare instruction with one repeat and the default strides (block 1, repeat 8), then
  ``set_mask_norm()``: ``count`` elements, and the core is left in normal mode with the mask register
  holding ``(count, 0)`` (where the Memory-level count form leaves it all ones).  ``count`` is a
  ``uint32_t``; 0 is a NOP that leaves the registers alone, as the Memory-level count form does.
* ``asc_add(dst, src0, src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride,
  dst_repeat_stride, src0_repeat_stride, src1_repeat_stride)`` (高维切分计算): the bare instruction
  under the vector mask register and mask mode as they are (in counter mode the register's count
  applies and ``repeat`` is ignored); it writes neither register.  The two-source functions take
  ``uint8_t`` strides, the one-source, scalar and fill functions ``uint16_t`` ones.
* ``asc_add_sync(dst, src0, src1, count)``: the count form followed by ``pipe_barrier(PIPE_ALL)``.

The scalar is passed by value with T's C type (``asc_shiftleft``'s ``distance`` is a ``uint32_t``).
``asc_sub_scalar`` has no Memory-level twin on these products: its implementation converts ``value``
to float, computes ``0 - value`` there, converts back to T and issues ``vadds`` (Adds) with it, so it
is an alias of ``adds`` with that scalar (:func:`negated_scalar`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import IEEE_RNE, Instruction, register
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int, require_uint
from ..arith_dtypes import vector_support
from ..cast_dtypes import compound_cast_pairs
from ..chips import unsupported_on
from ..core import Core
from ..masking import COUNTER_MAX
from ..scalars import is_scalar
from ..types import BinaryRepeatParams, MaskMode
from .cast import _planned as cast_planned
from .common import (
    c_api_page,
    count_form_context,
    is_int_arg,
    is_tensor,
    mask_fast_context,
    require_c_api,
    require_ub_tensor,
    scalar_bits,
)
from .elementwise import VECTOR_OPS, _compile
from .move_c_api import DelegatingBinding, Synced
from .registers import RegisterWrite

__all__ = ["C_FUNCTIONS", "CFunction", "negated_scalar"]

# the element types of each page's 函数原型 (C type -> npusim name)
_F = frozenset({"float16", "float32"})
_ARITH = frozenset({"int16", "float16", "int32", "float32"})
_B16 = frozenset({"int16", "uint16"})
_SHIFT = frozenset({"int16", "uint16", "int32", "uint32"})
_RELU = frozenset({"float16", "float32", "int32"})
_ADD_RELU = frozenset({"int16", "float16", "float32"})
_DUPLICATE = frozenset({"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"})
_HALF_TO_INT8 = frozenset({("float16", "int8")})
_HALF_TO_UINT8 = frozenset({("float16", "uint8")})
_HALF_TO_FLOAT = frozenset({("float16", "float32")})
_RELU_CASTS = frozenset({("float32", "float16"), ("float16", "int8"), ("int16", "int8")})  # (src, dst)

BINARY, UNARY, SCALAR, FILL = "binary", "unary", "scalar", "fill"
_SOURCES = {BINARY: ("src0", "src1"), UNARY: ("src",), SCALAR: ("src",), FILL: ()}
_STRIDE_BITS = {BINARY: 8, UNARY: 16, SCALAR: 16, FILL: 16}  # the pages' prototypes


@dataclass(frozen=True)
class CFunction:
    """One C API page's function.

    Attributes:
        name: the C function (``asc_add``); ``<name>_sync`` is its twin.
        base: the Memory-level instruction whose plan it shares (a key of :data:`.elementwise.VECTOR_OPS`,
            or ``"mul_cast"`` for the casting multiplies).
        kind: :data:`BINARY`, :data:`UNARY`, :data:`SCALAR` or :data:`FILL` (its operands).
        dtypes: T of its same-type prototypes.
        casts: (source, dst) pairs of its mixed-type prototypes, planned as ``cast_base``.
        cast_base: the compound cast of those pairs (``add_relu_cast`` ...).
        value: the scalar parameter's name on the page (``value``, ``distance``, ``src``).
        negate: ``asc_sub_scalar``: the scalar is negated through float first.
        operation: a lane operation other than the base's (``asc_shiftright_round``: ShiftRight with
            ``roundEn``).
        page_name: the page it is printed on, when not its own name's.
        mixed: (source, dst) pairs of its mixed-precision prototypes that the base's own plan takes
            (``asc_axpy``, ``asc_fma``: half sources, a float dst; docs/semantics.md §5.26).
    """

    name: str
    base: str
    kind: str
    dtypes: frozenset[str]
    casts: frozenset[tuple[str, str]] = frozenset()
    cast_base: str | None = None
    value: str = "value"
    negate: bool = False
    operation: str | None = None
    page_name: str | None = None
    mixed: frozenset[tuple[str, str]] = frozenset()

    @property
    def page(self) -> str:
        return c_api_page(self.page_name or self.name)

    @property
    def sources(self) -> tuple[str, ...]:
        return _SOURCES[self.kind]


C_FUNCTIONS: dict[str, CFunction] = {f.name: f for f in (
    CFunction("asc_add", "add", BINARY, _ARITH),
    CFunction("asc_sub", "sub", BINARY, _ARITH),
    CFunction("asc_mul", "mul", BINARY, _ARITH),
    CFunction("asc_div", "div", BINARY, _F),
    CFunction("asc_max", "max", BINARY, _ARITH),
    CFunction("asc_min", "min", BINARY, _ARITH),
    CFunction("asc_and", "bitwise_and", BINARY, _B16),
    CFunction("asc_or", "bitwise_or", BINARY, _B16),
    CFunction("asc_not", "bitwise_not", UNARY, _B16),
    CFunction("asc_add_scalar", "adds", SCALAR, _ARITH),
    CFunction("asc_sub_scalar", "adds", SCALAR, _ARITH, negate=True),
    CFunction("asc_mul_scalar", "muls", SCALAR, _ARITH),
    CFunction("asc_max_scalar", "maxs", SCALAR, _ARITH),
    CFunction("asc_min_scalar", "mins", SCALAR, _ARITH),
    CFunction("asc_abs", "abs", UNARY, _F),
    CFunction("asc_exp", "exp", UNARY, _F),
    CFunction("asc_log", "ln", UNARY, _F),
    CFunction("asc_sqrt", "sqrt", UNARY, _F),
    CFunction("asc_rsqrt", "rsqrt", UNARY, _F),
    CFunction("asc_rcp", "reciprocal", UNARY, _F),
    CFunction("asc_relu", "relu", UNARY, _RELU),
    CFunction("asc_leakyrelu", "leaky_relu", SCALAR, _F),
    CFunction("asc_shiftleft", "shift_left", SCALAR, _SHIFT, value="distance"),
    CFunction("asc_shiftright", "shift_right", SCALAR, _SHIFT),
    CFunction("asc_shiftright_round", "shift_right", SCALAR, frozenset({"int16", "int32"}),
              operation="shift_right_round", page_name="asc_shiftright"),
    CFunction("asc_add_relu", "add_relu", BINARY, _ADD_RELU, _RELU_CASTS, "add_relu_cast"),
    CFunction("asc_sub_relu", "sub_relu", BINARY, _ADD_RELU, _RELU_CASTS, "sub_relu_cast"),
    CFunction("asc_mul_add", "fused_mul_add", BINARY, _F),
    CFunction("asc_mul_add_relu", "fused_mul_add_relu", BINARY, _F),
    CFunction("asc_fma", "mul_add_dst", BINARY, _F, mixed=_HALF_TO_FLOAT),
    CFunction("asc_axpy", "axpy", SCALAR, _F, mixed=_HALF_TO_FLOAT),
    CFunction("asc_duplicate", "duplicate", FILL, _DUPLICATE, value="src"),
    CFunction("asc_mul_cast_half2int8", "mul_cast", BINARY, frozenset(), _HALF_TO_INT8, "mul_cast"),
    CFunction("asc_mul_cast_half2uint8", "mul_cast", BINARY, frozenset(), _HALF_TO_UINT8, "mul_cast"),
)}


# ------------------------------------------------------------------ call forms
def _strides_of(function: CFunction) -> tuple[str, ...]:
    operands = ("dst", *function.sources)
    if function.kind == FILL:
        return ("dst_block_stride", "dst_repeat_stride")
    return tuple(f"{o}_block_stride" for o in operands) + tuple(f"{o}_repeat_stride" for o in operands)


def _forms(function: CFunction, sync: bool) -> tuple[Form, ...]:
    operands = (Param("dst", is_tensor), *(Param(s, is_tensor) for s in function.sources))
    if function.kind in (SCALAR, FILL):
        operands += (Param(function.value, is_scalar),)
    count = Form("count", (*operands, Param("count", is_int_arg)))
    if sync:
        return (count,)
    repeat = Form("repeat", (*operands, Param("repeat", is_int_arg),
                             *(Param(n, is_int_arg) for n in _strides_of(function))))
    return (count, repeat)


# ------------------------------------------------------------------ scalars
def negated_scalar(name: str, value, dtype: DType):
    """``asc_sub_scalar``'s scalar as its implementation makes it: ``value`` in T, converted to float,
    ``0 - value`` in float, converted back to T (an integer T truncates; int32 values beyond 2^24 round
    to float first).  A result T cannot hold (int16 -32768, int32 values that round to -2^31) is an
    out-of-range C conversion, rejected."""
    raw = scalar_bits(name, "value", value, dtype)
    as_float = np.float32(raw.view(dtype.np_dtype)[0])
    negated = np.float32(0) - as_float
    if dtype.is_float:
        return float(negated)
    info = np.iinfo(dtype.np_dtype)
    if not info.min <= float(negated) <= info.max:
        raise ParameterRangeError(name, "value", int(value), f"0 - (float){int(value)} = {float(negated):.0f} "
                                  f"does not fit {dtype} (the conversion back to T overflows)",
                                  f"values whose float negation lies in [{info.min}, {info.max}]",
                                  f"{c_api_page(name)} 功能说明; {semantics('5.16')}")
    return int(negated)


def _shift_amount(function: CFunction, name: str, value, dtype: DType) -> int:
    """asc_shiftleft / asc_shiftright 约束说明: the amount is not negative and at most T's width."""
    width = 8 * dtype.itemsize
    return require_int(name, function.value, value, 0, width, f"{function.page} 约束说明; {semantics('5.16')}",
                       rule=f"the shift amount of a {dtype} lane")


class ValueRewrite:
    """A plan whose scalar argument (at ``at`` in the call's values) is checked, and for asc_sub_scalar
    rewritten, on every call before the plan runs: the plans are shared across scalar values."""

    def __init__(self, plan, at: int, rewrite) -> None:
        self.plan = plan
        self.at = at
        self.rewrite = rewrite
        self.operands = plan.operands

    def bind(self, core: Core, tensors) -> ValueRewriteBinding:
        return ValueRewriteBinding(self.plan.bind(core, tensors), self.at, self.rewrite)


class ValueRewriteBinding(DelegatingBinding):
    """The instruction's binding, run with the scalar checked (and rewritten) first."""

    def __init__(self, binding, at: int, rewrite) -> None:
        super().__init__(binding)
        self.at = at
        self.rewrite = rewrite

    def run(self, core: Core, values: tuple):
        values = (*values[:self.at], self.rewrite(values[self.at]), *values[self.at + 1:])
        return self.binding.run(core, values)


class PositiveSource:
    """asc_sqrt 约束说明 "src只支持设置为正数": a plan whose active source lanes are checked, when the call
    runs and before anything is written, for negative values (-0, +0 and NaN pass, as IEEE sqrt defines
    them)."""

    def __init__(self, plan, name: str, page: str) -> None:
        self.plan = plan
        self.name = name
        self.page = page
        self.operands = plan.operands

    def bind(self, core: Core, tensors) -> PositiveSourceBinding:
        return PositiveSourceBinding(self.plan.bind(core, tensors), self.name, self.page)


class PositiveSourceBinding(DelegatingBinding):
    """asc_sqrt's binding: its active source lanes checked not negative (its page only) before it runs."""

    def __init__(self, binding, name: str, page: str) -> None:
        super().__init__(binding)
        self.name = name
        self.page = page

    def run(self, core: Core, values: tuple):
        plan = self.binding.plan
        if plan.lanes is not None:
            src = self.binding.accesses[1]
            src.check_initialized(core.ub, self.name)
            lanes = src.active_values(src.gather(core.ub, plan.dtype.raw)).reshape(-1).view(plan.dtype.np_dtype)
            negative = np.flatnonzero(lanes < 0)
            if negative.size:
                lane = int(negative[0])
                raise ParameterRangeError(self.name, "src", float(lanes[lane]), f"src takes positive values only "
                                          f"(active lane {lane} of the call)", "src >= 0 (or NaN)",
                                          f"{self.page} 约束说明; {semantics('5.16')}")
        return self.binding.run(core, values)


# ------------------------------------------------------------------ planning
def _checked_tensors(name: str, function: CFunction, core: Core, bound: dict):
    """The product, then dst and the sources and their types against the page's prototypes."""
    page = function.page
    if not core.chip.c_api:
        raise unsupported_on(core.chip, name, "the asc_* C API", lambda c: c.c_api,
                             f"{page} 产品支持情况; {semantics('5.16')}")
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    sources = [require_ub_tensor(name, s, bound[s], core) for s in function.sources]
    src_type = sources[0].dtype.name if sources else dst.dtype.name
    for label, tensor in zip(function.sources, sources, strict=True):
        if tensor.dtype.name != src_type:
            raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, f"{label} has {function.sources[0]}'s "
                                   "type", src_type, f"{page} 函数原型")
    if src_type == dst.dtype.name and dst.dtype.name in function.dtypes or (src_type, dst.dtype.name) in function.mixed:
        return dst, sources, False
    if (src_type, dst.dtype.name) in function.casts:
        return dst, sources, True
    allowed = sorted(function.dtypes) + [f"{s} -> {d}" for s, d in sorted(function.casts | function.mixed)]
    raise UnsupportedError(name, "dst dtype", dst.dtype.name if src_type == dst.dtype.name else
                           f"{src_type} -> {dst.dtype.name}", f"{name} has no prototype for these types",
                           ", ".join(allowed), f"{page} 函数原型")


def _count(name: str, function: CFunction, bound: dict, tensors: list) -> int:
    """``count`` (a ``uint32_t``), and the first ``count`` elements of every operand inside its tensor (checked
    here, so that a count past the tensors is rejected as such, not by the Memory-level ``int32_t`` rule)."""
    count = require_int(name, "count", bound["count"], 0, COUNTER_MAX,
                        f"{function.page} 函数原型; {semantics('5.16')}", rule="count is a uint32_t")
    for label, tensor in zip(("dst", *function.sources), tensors, strict=True):
        tensor.check_span(name, label, tensor.addr, tensor.addr + count * tensor.dtype.itemsize)
    return count


def _repeat_strides(name: str, function: CFunction, bound: dict) -> tuple[int, list[tuple[int, int]]]:
    """``repeat`` (uint8_t) and each operand's (block, repeat) stride, checked against the prototype."""
    source = f"{function.page} 函数原型; {semantics('5.16')}"
    repeat = require_uint(name, "repeat", bound["repeat"], 8, source)
    names = _strides_of(function)
    values = [require_uint(name, n, bound[n], _STRIDE_BITS[function.kind], source) for n in names]
    half = len(values) // 2
    return repeat, list(zip(values[:half], values[half:], strict=True))


def _compile_c(function: CFunction, name: str, core: Core, form: str, bound: dict):
    """Check the page's rules, then plan with the Memory-level instruction's own plan."""
    dst, sources, casting = _checked_tensors(name, function, core, bound)
    if casting:
        plan = _cast_plan(function, name, core, form, bound, dst, sources)
    else:
        plan = _vector_plan(function, name, core, form, bound, dst)
    if function.kind in (SCALAR, FILL):
        plan = _with_value_check(function, name, plan, bound, dst.dtype)
    if function.base == "sqrt":
        plan = PositiveSource(plan, name, function.page)
    return Synced(plan) if name.endswith("_sync") else plan


def _vector_plan(function: CFunction, name: str, core: Core, form: str, bound: dict, dst):
    base = VECTOR_OPS[function.base]
    op = dataclasses.replace(base, name=name, doc=function.page, support_name=function.base,
                             forms=_forms(function, False), scalar_name=function.value,
                             operation=function.operation or base.operation)
    values = {"dst": dst, **{s: bound[s] for s in function.sources}}
    if function.kind in (SCALAR, FILL):
        value = bound[function.value]
        if function.negate:
            value = negated_scalar(name, value, dst.dtype)
        elif op.shifts:
            value = _shift_amount(function, name, value, dst.dtype)
        values[function.value] = value
    if form == "count":
        count = _count(name, function, bound, [dst, *(bound[s] for s in function.sources)])
        plan = _compile(op, core, "count", {**values, "count": count})
        if plan.lanes is None:
            return plan
        return dataclasses.replace(plan, mask_words_after=(count, 0, 0, 0))  # asc_set_mask_count_begin(count)
    repeat, strides = _repeat_strides(name, function, bound)
    return _compile(op, core, "mask", {**values, "mask": None, "repeat_times": repeat, "is_set_mask": False},
                    strides)


def _cast_plan(function: CFunction, name: str, core: Core, form: str, bound: dict, dst, sources):
    """The mixed-type prototypes: the compound cast's plan (AddReluCast / SubReluCast / MulCast)."""
    pairs = compound_cast_pairs(function.cast_base, core.chip) or frozenset()
    pair = (sources[0].dtype.name, dst.dtype.name)
    if pair not in pairs:  # every C API product has the page's pairs; a guard against a table change
        raise UnsupportedError(name, "src0/dst dtypes", f"{pair[0]} -> {pair[1]}", "not converted on "
                               f"{core.chip.product}", ", ".join(f"{s} -> {d}" for s, d in sorted(pairs)),
                               f"{function.page} 函数原型")
    operation = {"add_relu_cast": "add_relu", "sub_relu_cast": "sub_relu", "mul_cast": "mul"}[function.cast_base]
    tensors = dict(zip(function.sources, sources, strict=True))
    if form == "count":
        count = _count(name, function, bound, [dst, *sources])
        plan = cast_planned(name, core, "count", {"count": count}, "rint", dst, tensors, function.page, None,
                            operation)
        if plan.geometry.lanes is None:
            return plan
        geometry = dataclasses.replace(plan.geometry, mask_words_after=(count, 0, 0, 0))
        return dataclasses.replace(plan, geometry=geometry)
    repeat, strides = _repeat_strides(name, function, bound)
    params = BinaryRepeatParams(*(s[0] for s in strides), *(s[1] for s in strides))
    return cast_planned(name, core, "mask", {"repeat_params": params, "mask": None, "repeat_times": repeat,
                                              "is_set_mask": False}, "rint", dst, tensors, function.page,
                        BinaryRepeatParams, operation)


def _with_value_check(function: CFunction, name: str, plan, bound: dict, dtype: DType):
    """The scalar is read per call: check (and for asc_sub_scalar negate) each call's value."""
    at = 1 + len(function.sources)
    if function.negate:
        return ValueRewrite(plan, at, lambda value: negated_scalar(name, value, dtype))
    if function.kind == SCALAR and VECTOR_OPS[function.base].shifts:
        return ValueRewrite(plan, at, lambda value: _shift_amount(function, name, value, dtype))
    return plan


# ------------------------------------------------------------------ registration
_SETUPS = {
    "float32": ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
                "y = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 256)\n"
                "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)\n"),
    "int16": ("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 512)\n"
              "y = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 1024, 512)\n"
              "z = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 2048, 512)\n"),
    "int32": ("x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)\n"
              "z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 2048, 256)\n"),
    "float16": ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
                "y = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 512)\n"
                "z = asc.LocalTensor(asc.int8, asc.TPosition.VECOUT, 2048, 512)\n"),
}


def _example_type(function: CFunction) -> str:
    """The element type the examples use: float, int16 for the 16-bit logic, int32 for the shifts,
    half sources for the casting multiplies."""
    if not function.dtypes:
        return "float16"
    if function.dtypes <= _SHIFT:
        return "int32" if function.kind == SCALAR else "int16"
    return "float32"


def _examples(function: CFunction, name: str) -> tuple[str, ...]:
    """A count-form call, and (but for ``_sync``) a repeat-form call of 2 repeats under a mask of half the
    lanes, with contiguous strides."""
    dtype = _example_type(function)
    setup = _SETUPS[dtype]
    if function.casts == _HALF_TO_UINT8:
        setup = setup.replace("asc.int8", "asc.uint8")
    value = {"int32": "3", "int16": "3"}.get(dtype, "1.5")
    args = {BINARY: "z, x, y", UNARY: "z, x", SCALAR: f"z, x, {value}", FILL: "z, -2.5"}[function.kind]
    calls = [f"asc.{name}({args}, 200)"]
    if not name.endswith("_sync"):
        strides = {BINARY: "1, 1, 1, 8, 8, 8", UNARY: "1, 1, 8, 8", SCALAR: "1, 1, 8, 8", FILL: "1, 8"}[function.kind]
        if not function.dtypes:
            strides = "1, 1, 1, 4, 8, 8"  # half -> int8: the wider type's 128 lanes, 4 blocks of int8 a repeat
        half_lanes = 128 // {"float32": 4, "int32": 4, "int16": 2, "float16": 2}[dtype]
        calls.append(f"asc.set_vector_mask(0, {(1 << half_lanes) - 1})\nasc.{name}({args}, 2, {strides})")
    examples = tuple(setup + call for call in calls)
    if function.mixed:  # half sources, a float dst: 64 lanes a repeat, a source's repeat 4 DataBlocks
        setup = (_SETUPS["float16"].replace("asc.int8", "asc.float32")
                 + "z.write([0.5] * 512)\n")
        args = {BINARY: "z, x, y", SCALAR: "z, x, 1.5"}[function.kind]
        strides = {BINARY: "1, 1, 1, 8, 4, 4", SCALAR: "1, 1, 8, 4"}[function.kind]
        mixed = [f"asc.{name}({args}, 200)"]
        if not name.endswith("_sync"):
            mixed.append(f"asc.set_vector_mask(0, {(1 << 48) - 1})\nasc.{name}({args}, 3, {strides})")
        examples += tuple(setup + call for call in mixed)
    return examples


def _support(function: CFunction):
    def support(chip):
        if not chip.c_api:
            return None
        row = vector_support(chip, function.base) if function.dtypes else compound_cast_pairs(function.base, chip)
        return row
    return support


def _summary(function: CFunction) -> str:
    if function.negate:
        return "dst = src + (T)(0 - (float)value) per lane (vadds: Adds with the negated scalar)"
    if function.operation == "shift_right_round":
        return "dst = (src >> value) + the last bit shifted out, per lane (ShiftRight with roundEn; int16, int32)"
    base = VECTOR_OPS.get(function.base)
    summary = base.summary if base is not None else "dst = cast(src0 * src1) per lane (MulCast)"
    if function.casts and function.dtypes:
        summary += f"; mixed types as {function.cast_base}"
    return summary


def _register(function: CFunction, sync: bool):
    name = function.name + ("_sync" if sync else "")
    base = VECTOR_OPS.get(function.base)
    exactness = base.exactness if base is not None else IEEE_RNE
    if function.negate:
        exactness = IEEE_RNE
    barrier = "  Followed by ``pipe_barrier(PIPE_ALL)``." if sync else ""
    family = base.family if base is not None else "compound"
    return register(Instruction(
        name, "ascend", family, "V", _forms(function, sync),
        lambda core, form, values: _compile_c(function, name, core, form, values),
        f"{function.page} 功能说明; {semantics('5.16')}", support=_support(function), exactness=exactness,
        summary=_summary(function), examples=_examples(function, name),
        per_call=frozenset({function.value}) if function.kind in (SCALAR, FILL) else frozenset(),
        plan_context=count_form_context, fast_context=mask_fast_context, alias_of=function.base,
        doc=f"``{function.base}`` as the C API's ``{name}`` ({function.page}): ``count`` elements (counter "
            "mode, then normal mode with the mask register holding count), or ``repeat`` repeats under the "
            f"vector mask register with the page's strides.{barrier}",
    ))


_REGISTERED = {}
for _function in C_FUNCTIONS.values():
    for _sync in (False, True):
        _entry = _register(_function, _sync)
        _REGISTERED[_entry.__name__] = _entry


# ------------------------------------------------------------------ the mask-register writes
def _compile_set_mask_count(core: Core, form: str, values: dict) -> RegisterWrite:
    require_c_api(core, "asc_set_mask_count")
    core.require_counter_mode("asc_set_mask_count")
    return RegisterWrite(mode=MaskMode.COUNTER)


def _compile_set_mask_norm(core: Core, form: str, values: dict) -> RegisterWrite:
    require_c_api(core, "asc_set_mask_norm")
    return RegisterWrite(mode=MaskMode.NORMAL)


def _compile_set_vector_mask(core: Core, form: str, values: dict) -> RegisterWrite:
    name = "asc_set_vector_mask"
    require_c_api(core, name)
    source = f"{c_api_page(name)} 参数说明; {semantics('5.16')}"
    mask1 = require_uint(name, "mask1", values["mask1"], 64, source)
    mask0 = require_uint(name, "mask0", values["mask0"], 64, source)
    return RegisterWrite(words=(mask0, mask1))


def _register_write(name: str, forms, compile_, summary: str, example: str, alias_of: str):
    return register(Instruction(
        name, "ascend", "register", "S", forms, compile_, f"{c_api_page(name)} 功能说明; {semantics('5.16')}",
        support=lambda chip: True if chip.c_api else None, summary=summary, examples=(example,),
        fast_context=lambda core: (), alias_of=alias_of, doc=f"``{name}``: {summary} ({c_api_page(name)}).",
    ))


asc_set_mask_count = _register_write(
    "asc_set_mask_count", (Form("", ()),), _compile_set_mask_count,
    "Counter mode: the mask register's low word is an element count (set_mask_count)", "asc.asc_set_mask_count()",
    "set_mask_count")
asc_set_mask_norm = _register_write(
    "asc_set_mask_norm", (Form("", ()),), _compile_set_mask_norm,
    "Normal mode: the mask register is a per-repeat lane mask (set_mask_norm)", "asc.asc_set_mask_norm()",
    "set_mask_norm")
asc_set_vector_mask = _register_write(
    "asc_set_vector_mask", (Form("", (Param("mask1", is_int_arg), Param("mask0", is_int_arg))),),
    _compile_set_vector_mask, "The vector mask register: mask1 the high word, mask0 the low word",
    "asc.asc_set_vector_mask(0, 0xFFFF)", "set_vector_mask")

globals().update(_REGISTERED)
__all__ += sorted(_REGISTERED) + ["asc_set_mask_count", "asc_set_mask_norm", "asc_set_vector_mask"]
