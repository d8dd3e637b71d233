"""The 950's own (ISASI) element-wise instructions: Neg, Prelu, AbsSub, ExpSub, Mull, Ands, Ors, MulsCast, Truncate.

Every other product's row on these pages says "不支持": a call there raises the unsupported-product
error.  They reuse the element-wise table's pieces (:mod:`.elementwise`: :class:`VectorOp`, its
compile, plan and binding; :mod:`.arith` for a lane) and the compound casts' plan (:mod:`.cast`):

* **neg, prelu, abs_sub** — :class:`VectorOp` entries with the pages' one call form, the count form
  (基础算术/Neg(ISASI).md, Prelu(ISASI).md, 复合计算/AbsSub(ISASI).md 函数原型)::

      neg(dst, src, count)
      prelu(dst, src0, src1, count)         # dst = src0 >= 0 ? src0 : src0 * src1
      abs_sub(dst, src0, src1, count)       # dst = |src0 - src1|

* **mull** — two destinations (基础算术/Mull(ISASI).md): the exact 64-bit product of two int32 or
  uint32 lanes, its low 32 bits to dst0 and its high 32 bits ("溢出部分") to dst1::

      mull(dst0, dst1, src0, src1, count)

* **exp_sub** — ``e^(src0 - src1)`` in float (复合计算/ExpSub(ISASI).md), an accuracy model as ``exp``::

      exp_sub(dst, src0, src1, count)   # half or float sources, a float dst

* **truncate** — a float rounded to an integral value of its own type (类型转换/Truncate(ISASI).md;
  C++ ``Truncate<T, roundMode>``), on Cast's plan::

      truncate(dst, src, round_mode, count)

* **ands, ors, muls_cast** — the *flexible scalar position* (逻辑计算/Ands.md, Ors.md,
  复合计算/MulsCast(ISASI).md): either source may be the scalar, a number or a LocalTensor whose
  first element is the scalar ("LocalTensor单点元素", ``src1Local[0]``); when both are tensors,
  ``scalar_tensor_index`` (C++ ``BinaryConfig::scalarTensorIndex``, default 1) says which one::

      ands(dst, src0, src1, count, is_set_mask=True, scalar_tensor_index=1)
      ands(dst, src0, src1, mask, repeat_times, repeat_params, is_set_mask=True, scalar_tensor_index=1)
      muls_cast(dst, src0, src1, count, scalar_tensor_index=1)   # half dst = CAST_ROUND(src * scalar)

  (:mod:`.flexible_scalar`; Adds ... Mins have the same forms, :mod:`.elementwise`).

The two-destination plan of Mull (:class:`PairPlan`) is also Interleave's and DeInterleave's (:mod:`.rearrange`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import ACCURACY_MODEL, BIT_EXACT, IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..addressing import counter_mode_lanes, lanes_per_repeat
from ..arith_dtypes import vector_support
from ..cast_dtypes import TRUNCATE_DTYPES, TRUNCATE_MODES, compound_cast_pairs
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, check_overlap, strided_footprint
from ..operands import NEVER
from ..tensor import LocalTensor
from . import cast
from .common import (
    is_int_arg,
    is_tensor,
    mask_fast_context,
    require_dtype,
    require_ub_tensor,
    scalar_bits,
)
from .elementwise import DST, INT32_MAX, VectorOp, _compile
from .flexible_scalar import (
    FLEXIBLE_FORMS,
    SCALAR_INDEX,
    SRC0,
    SRC1,
    flexible_plan_context,
    scalar_position,
    with_element,
)

__all__ = ["abs_sub", "ands", "exp_sub", "mull", "muls_cast", "neg", "ors", "prelu", "truncate"]

NEG_PAGE = pages.NEG
PRELU_PAGE = pages.PRELU
MULL_PAGE = pages.MULL
ABS_SUB_PAGE = pages.ABS_SUB
ANDS_PAGE = pages.ANDS
ORS_PAGE = pages.ORS
MULS_CAST_PAGE = pages.MULS_CAST

_COUNT = Param("count", is_int_arg)
UNARY_COUNT_FORMS = (Form("count", (DST, Param("src", is_tensor), _COUNT)),)
BINARY_COUNT_FORMS = (Form("count", (DST, Param("src0", is_tensor), Param("src1", is_tensor), _COUNT)),)


# ------------------------------------------------------------ neg, prelu, abs_sub: the element-wise plan
def _count_only(name: str, doc: str, sources: tuple[str, ...], operation: str, summary: str, exactness: str,
                family: str) -> VectorOp:
    forms = UNARY_COUNT_FORMS if len(sources) == 1 else BINARY_COUNT_FORMS
    return VectorOp(name, doc, sources, operation, False, False, forms, summary, exactness, family)


COUNT_ONLY_OPS = {op.name: op for op in (
    _count_only("neg", NEG_PAGE, ("src",), "neg", "dst = -src per lane (integers wrap, floats flip the sign)",
                BIT_EXACT, "arith"),
    _count_only("prelu", PRELU_PAGE, ("src0", "src1"), "prelu",
                "dst = src0 if src0 >= 0 else src0 * src1 per lane (the product rounded once)", IEEE_RNE, "arith"),
    _count_only("abs_sub", ABS_SUB_PAGE, ("src0", "src1"), "abs_sub",
                "dst = |src0 - src1| per lane (the difference rounded once)", IEEE_RNE, "compound"),
)}
_COUNT_EXAMPLES = {
    "neg": ("x = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 512)\n"
            "z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 4096, 512)\n"
            "asc.neg(z, x, 300)",),
    "prelu": ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)\n"
              "a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 2048, 512)\n"
              "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 512)\n"
              "asc.prelu(z, x, a, 500)",),
    "abs_sub": ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
                "y = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2048, 256)\n"
                "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 256)\n"
                "asc.abs_sub(z, x, y, 200)",),
}


def _register_count_only(op: VectorOp):
    return register(Instruction(
        op.name, "ascend", op.family, "V", op.forms,
        lambda core, form, values, op=op: _compile(op, core, form, values), f"{op.doc} 功能说明",
        support=lambda chip, name=op.name: vector_support(chip, name), exactness=op.exactness,
        summary=op.summary, examples=_COUNT_EXAMPLES[op.name], fast_context=lambda core: (),
        doc=f"``{op.summary}`` ({op.doc}).\n\nThe 950 only; the count form only.",
    ))


# ------------------------------------------------------------ ands, ors
def _logic_ops(name: str, page: str, operation: str, summary: str) -> dict[str, VectorOp]:
    """The instruction's two VectorOps: the vector as src0 (scalar src1), or as src1 (scalar src0)."""
    return {vector: VectorOp(name, page, (vector,), operation, True, False, FLEXIBLE_FORMS, summary, BIT_EXACT,
                             "logic", scalar_name=scalar)
            for vector, scalar in (("src0", "src1"), ("src1", "src0"))}


LOGIC_OPS = {
    "ands": _logic_ops("ands", ANDS_PAGE, "and", "dst = src & scalar per lane (the scalar on either side, a "
                       "number or a tensor's first element)"),
    "ors": _logic_ops("ors", ORS_PAGE, "or", "dst = src | scalar per lane (the scalar on either side, a "
                      "number or a tensor's first element)"),
}


def _compile_logic(name: str):
    ops = LOGIC_OPS[name]

    def compile(core: Core, form: str, bound: dict):
        op = ops["src0"]
        position = scalar_position(name, bound, op.doc)
        op = ops[position.vector]
        values = dict(bound, **{position.scalar: 0}) if position.element else bound  # the element: read per call
        inner = _compile(op, core, form, values)
        return with_element(inner, name, op.doc, position, bound, bound["dst"].dtype, core)

    return compile


def _logic_examples(name: str) -> tuple[str, ...]:
    setup = ("x = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 512)\n"
             "s = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 2048, 16)\n"
             "z = asc.LocalTensor(asc.int16, asc.TPosition.VECOUT, 4096, 512)\n")
    return (setup + f"asc.{name}(z, x, 0x0F0F, 500)",
            setup + f"asc.{name}(z, 0x00FF, x, 128, 4, asc.UnaryRepeatParams(1, 1, 8, 8))",
            setup + f"asc.{name}(z, x, s, [0xFFFF0000FFFF0000, 0xFF], 2, asc.UnaryRepeatParams(1, 2, 8, 16))",
            setup + f"asc.{name}(z, s, x, 300, scalar_tensor_index=0)")


def _register_logic(name: str):
    op = LOGIC_OPS[name]["src0"]
    return register(Instruction(
        name, "ascend", "logic", "V", FLEXIBLE_FORMS, _compile_logic(name), f"{op.doc} 功能说明",
        support=lambda chip: vector_support(chip, name), exactness=BIT_EXACT, summary=op.summary,
        examples=_logic_examples(name), per_call=frozenset({"src0", "src1"}),
        plan_context=flexible_plan_context, fast_context=mask_fast_context,
        doc=f"``{op.summary}`` ({op.doc}).\n\nThe 950 only; int64/uint64 in the count form only.  With two "
            "tensors, ``scalar_tensor_index`` (0 or 1) names the one whose first element is the scalar.",
    ))


# ------------------------------------------------------------ muls_cast: the compound casts' plan
def _compile_muls_cast(core: Core, form: str, bound: dict):
    """MulsCast: ``CAST_ROUND(src * scalar)`` to half, the product rounded to float first (the page: "与标量
    相乘再按照CAST_ROUND模式转换成half类型"), with half's saturation where the product saturates."""
    name, page = "muls_cast", MULS_CAST_PAGE
    position = scalar_position(name, bound, page)
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    src = require_ub_tensor(name, position.vector, bound[position.vector], core)
    pairs = compound_cast_pairs(name, core.chip)
    if pairs is None:
        raise unsupported_on(core.chip, name, "MulsCast", lambda c: compound_cast_pairs(name, c) is not None,
                             f"{page} 产品支持情况; {semantics('5.8')}")
    pair = (src.dtype.name, dst.dtype.name)
    if pair not in pairs:
        raise UnsupportedError(name, f"{position.vector}/dst dtypes", f"{pair[0]} -> {pair[1]}",
                               f"MulsCast does not convert this pair on {core.chip.product}",
                               ", ".join(f"{s} -> {d}" for s, d in sorted(pairs)), f"{page} 数据类型")
    if not position.element:
        scalar_bits(name, position.scalar, bound[position.scalar], src.dtype)
    plan = cast._planned(name, core, form, bound, "round", dst, {position.vector: src}, page, None, "mul")
    plan.geometry = dataclasses.replace(plan.geometry, scalar_at=position.at, scalar_name=position.scalar)
    return with_element(plan, name, page, position, bound, src.dtype, core)


MULS_CAST_FORMS = (Form("count", (DST, SRC0, SRC1, _COUNT, SCALAR_INDEX)),)
_MULS_CAST_SUMMARY = "dst (half) = CAST_ROUND(src * scalar) per lane, the float product rounded first"
_MULS_CAST_SETUP = ("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)\n"
                    "s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2048, 8)\n"
                    "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 256)\n")

muls_cast = register(Instruction(
    "muls_cast", "ascend", "compound", "V", MULS_CAST_FORMS, _compile_muls_cast, f"{MULS_CAST_PAGE} 功能说明",
    support=lambda chip: compound_cast_pairs("muls_cast", chip), exactness=IEEE_RNE, summary=_MULS_CAST_SUMMARY,
    examples=(_MULS_CAST_SETUP + "asc.muls_cast(z, x, 2.5, 200)",
              _MULS_CAST_SETUP + "asc.muls_cast(z, s, x, 256, scalar_tensor_index=0)"),
    per_call=frozenset({"src0", "src1"}), fast_context=lambda core: (),
    doc=f"``{_MULS_CAST_SUMMARY}`` ({MULS_CAST_PAGE}).\n\nThe 950 only, float -> half, the count form only.  "
        "The product is rounded to float (RNE) and then to half with CAST_ROUND (ties away from zero): the page "
        "says multiply, then convert; whether the hardware's ``vmulscvt`` rounds once is not documented.",
))


# ------------------------------------------------------------ exp_sub: the compound casts' plan, in dst's type
EXP_SUB_PAGE = pages.EXP_SUB
# 数据类型 says T and U are half or float; the vendor's FusedExpSubImpl (dav_3510) takes only a float dst
EXP_SUB_PAIRS = {"950": frozenset({("float16", "float32"), ("float32", "float32")})}


def _compile_exp_sub(core: Core, form: str, bound: dict):
    """ExpSub(ISASI).md: ``e^(src0 - src1)``, a half source converted to float first (功能说明), in float."""
    name, page = "exp_sub", EXP_SUB_PAGE
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    src0 = require_ub_tensor(name, "src0", bound["src0"], core)
    src1 = require_ub_tensor(name, "src1", bound["src1"], core)
    if src1.dtype != src0.dtype:
        raise UnsupportedError(name, "src1 dtype", src1.dtype.name, "src1 must have src0's dtype", src0.dtype.name,
                               f"{page} 参数说明")
    pairs = EXP_SUB_PAIRS.get(core.chip.name)
    if pairs is None:
        raise unsupported_on(core.chip, name, "ExpSub", lambda c: c.name in EXP_SUB_PAIRS, f"{page} 产品支持情况")
    pair = (src0.dtype.name, dst.dtype.name)
    if pair not in pairs:
        raise UnsupportedError(name, "src0/dst dtypes", f"{pair[0]} -> {pair[1]}", "ExpSub does not take this pair "
                               "(the vendor's implementation writes float only)",
                               ", ".join(f"{s} -> {d}" for s, d in sorted(pairs)), f"{page} 数据类型")
    plan = cast._planned(name, core, form, bound, "rint", dst, {"src0": src0, "src1": src1}, page, None, "exp_sub")
    if plan.geometry.lanes is not None:
        plan.geometry = dataclasses.replace(plan.geometry, in_dst_type=True)
    return plan


_EXP_SUB_SUMMARY = "dst = e^(src0 - src1) per lane in float (accuracy model: float64 exp of the float difference)"
exp_sub = register(Instruction(
    "exp_sub", "ascend", "compound", "V", BINARY_COUNT_FORMS, _compile_exp_sub, f"{EXP_SUB_PAGE} 功能说明",
    support=lambda chip: EXP_SUB_PAIRS.get(chip.name), exactness=ACCURACY_MODEL, summary=_EXP_SUB_SUMMARY,
    examples=("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)\n"
              "y = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 256)\n"
              "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 256)\n"
              "asc.exp_sub(z, x, y, 200)",),
    fast_context=lambda core: (),
    doc=f"``{_EXP_SUB_SUMMARY}`` ({EXP_SUB_PAGE}).\n\nThe 950 only, the count form only, half or float sources "
        "and a float dst.  Like ``exp`` an accuracy model, never bit-exact: the difference rounded to float, its "
        "float64 exponential rounded once to float.",
))


# ------------------------------------------------------------ truncate: Cast's plan, one type
TRUNCATE_PAGE = pages.TRUNCATE
TRUNCATE_FORMS = (Form("count", (DST, Param("src", is_tensor), Param("round_mode", lambda _v: True), _COUNT)),)


def _compile_truncate(core: Core, form: str, bound: dict):
    """Truncate(ISASI).md: ``dst = src`` rounded to an integral value by ``round_mode``, in src's own type — the
    conversion of Cast from a float type to itself (:mod:`.conversion`), with its saturation."""
    name, page = "truncate", TRUNCATE_PAGE
    dst = require_ub_tensor(name, "dst", bound["dst"], core)
    src = require_ub_tensor(name, "src", bound["src"], core)
    dtypes = TRUNCATE_DTYPES.get(core.chip.name)
    if dtypes is None:
        raise unsupported_on(core.chip, name, "Truncate", lambda c: c.name in TRUNCATE_DTYPES, f"{page} 产品支持情况")
    require_dtype(name, "dst", dst.dtype, dtypes, f"{name} rounds floats only", f"{page} 数据类型")
    if src.dtype != dst.dtype:
        raise UnsupportedError(name, "src dtype", src.dtype.name, "src must have dst's dtype", dst.dtype.name,
                               f"{page} 参数说明")
    mode = cast.require_round_mode(name, bound["round_mode"])
    if mode.name not in TRUNCATE_MODES:
        raise UnsupportedError(name, "round_mode", mode.name, "not a rounding mode of Truncate",
                               ", ".join(TRUNCATE_MODES), f"{page} 参数说明")
    return cast._planned(name, core, form, bound, cast.MODE_NAMES[mode], dst, {"src": src}, page, None)


_TRUNCATE_SUMMARY = "dst = src rounded to an integral value in its own float type by round_mode, per lane"
truncate = register(Instruction(
    "truncate", "ascend", "cast", "V", TRUNCATE_FORMS, _compile_truncate, f"{TRUNCATE_PAGE} 功能说明",
    support=lambda chip: TRUNCATE_DTYPES.get(chip.name), exactness=IEEE_RNE, summary=_TRUNCATE_SUMMARY,
    examples=("x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)\n"
              "z = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 512)\n"
              "asc.truncate(z, x, asc.RoundMode.CAST_FLOOR, 500)",
              "x = asc.LocalTensor(asc.bfloat16, asc.TPosition.VECIN, 0, 512)\n"
              "z = asc.LocalTensor(asc.bfloat16, asc.TPosition.VECOUT, 4096, 512)\n"
              "asc.truncate(z, x, asc.RoundMode.CAST_ROUND, 300)"),
    fast_context=lambda core: (),
    doc=f"``{_TRUNCATE_SUMMARY}`` ({TRUNCATE_PAGE}).\n\nThe 950 only, half/float/bfloat16, the count form only; "
        "round_mode is CAST_RINT, CAST_ROUND (ties away), CAST_FLOOR, CAST_CEIL or CAST_TRUNC.  The exact integral "
        "value (no rounding error); infinities and NaN follow Cast's float -> float rules (saturation included).",
))


# ------------------------------------------------------------ two destinations: mull (and the rearranges)
TWO_DSTS = ("dst0", "dst1", "src0", "src1")


def pair_form(*sources: str, count: str = "count", form: str = "count") -> Form:
    """``(dst0, dst1, *sources, count)``: the call form of Mull, Interleave, DeInterleave."""
    return Form(form, (Param("dst0", lambda _v: True), Param("dst1", is_tensor),
                       *(Param(src, is_tensor) for src in sources), Param(count, is_int_arg)))


@dataclass(frozen=True)
class PairOp:
    """An instruction writing two destinations from the first elements of one or two sources.

    Attributes:
        name, page: the instruction and its page.
        operands: ``("dst0", "dst1", *sources)``.
        count: the name of the count parameter.
        sizes: each operand's element count, given the call's count.
        compute: the two destinations' raw elements from the sources' (``dtype``, sources...).
        separate: no destination may share a byte with a source (the rearranges); otherwise the
            general overlap rule applies (in place, lane for lane, is allowed).
        even: the count must be even ("count必须为偶数").
    """

    name: str
    page: str
    operands: tuple[str, ...]
    count: str
    sizes: Callable[[int], tuple[int, ...]]
    compute: Callable[..., tuple[np.ndarray, np.ndarray]]
    separate: bool = False
    even: bool = False


def compile_pair(op: PairOp, core: Core, bound: dict, support_of: Callable) -> PairPlan:
    """Every rule of a two-destination call, in the order the pages give them: the tensors, one element
    type, the product and its types, the count, each operand inside its tensor, then overlap."""
    name, page = op.name, op.page
    tensors = [require_ub_tensor(name, label, bound[label], core) for label in op.operands]
    dtype = tensors[0].dtype
    for label, tensor in zip(op.operands[1:], tensors[1:], strict=True):
        if tensor.dtype != dtype:
            raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, f"{label} must have dst0's dtype",
                                   dtype.name, f"{page} 参数说明")
    support = support_of(core.chip)  # the element types on this product, None where it has no such instruction
    if support is None:
        raise unsupported_on(core.chip, name, name, lambda c: support_of(c) is not None, f"{page} 产品支持情况")
    require_dtype(name, "dst0", dtype, support, f"{name} does not support this data type on {core.chip.product}",
                  f"{page} 数据类型")
    count = require_int(name, op.count, bound[op.count], 0, INT32_MAX, f"{page} 函数原型; {semantics('1.4')}",
                        rule=f"{op.count} is an int32_t")
    if op.even and count % 2:
        raise ParameterRangeError(name, op.count, count, f"{op.count} must be even", "an even number",
                                  f"{page} 参数说明")
    if count == 0:
        if not core.chip.zero_repeat_nop:
            raise ParameterRangeError(name, op.count, 0, f"{op.count} = 0 is not guaranteed to be a NOP on "
                                      f"{core.chip.product}", "at least 1", f"{page} 约束说明; {semantics('1.9')}")
        return PairPlan(op, dtype, [])
    footprints = []
    for label, tensor, size in zip(op.operands, tensors, op.sizes(count), strict=True):
        tensor.check_span(name, label, tensor.addr, tensor.addr + size * dtype.itemsize)
        lanes = counter_mode_lanes(size, lanes_per_repeat(dtype.itemsize))
        footprints.append(strided_footprint(label, 0, lanes, dtype.itemsize, 1, 8))
    plan = PairPlan(op, dtype, footprints)
    plan.placed(tensors)
    return plan


def _common_bytes(a: Footprint, b: Footprint) -> bool:
    return a.lo < b.hi and b.lo < a.hi and bool(np.intersect1d(a.byte_addrs()[0], b.byte_addrs()[0]).size)


@dataclass(eq=False)
class PairPlan:
    """A checked two-destination call, relative to its tensors (a NOP when it has no footprints)."""

    op: PairOp
    dtype: DType
    footprints: list[Footprint]

    @property
    def operands(self) -> tuple[str, ...]:
        return self.op.operands

    def placed(self, tensors: list[LocalTensor]) -> list[Footprint]:
        """The footprints at these addresses, inside their tensors; the destinations clear of each other and
        (Mull) in place on or clear of each source, (the rearranges) clear of every source."""
        name = self.op.name
        footprints = [fp.moved(tensor.addr) for fp, tensor in zip(self.footprints, tensors, strict=True)]
        for fp, tensor in zip(footprints, tensors, strict=True):
            fp.check_in(name, tensor)
        dst0, dst1, *sources = footprints
        for dst in (dst0, dst1):
            for src in sources:
                if not self.op.separate:
                    check_overlap(name, dst, src)
                elif _common_bytes(dst, src):
                    raise OverlapError(name, f"{src.name} / {dst.name}", f"[{max(dst.lo, src.lo):#x}, "
                                       f"{min(dst.hi, src.hi):#x})", "a source and a destination overlap",
                                       "no byte in common", f"{self.op.page} 约束说明")
        if _common_bytes(dst0, dst1):
            raise OverlapError(name, "dst0 / dst1", f"[{max(dst0.lo, dst1.lo):#x}, {min(dst0.hi, dst1.hi):#x})",
                               "the two destinations overlap", "no byte in common",
                               f"{self.op.page} 约束说明; {semantics('1.6')}")
        return footprints

    def bind(self, core: Core, tensors: list[LocalTensor]) -> PairBinding:
        for label, tensor in zip(self.operands, tensors, strict=True):
            require_ub_tensor(self.op.name, label, tensor, core)
        return PairBinding(self, core, self.placed(tensors) if self.footprints else [])


class PairBinding:
    """A :class:`PairPlan` at one placement: each operand's contiguous byte span, and what it touches."""

    registers_read: tuple[str, ...] = ()
    registers_written: tuple[str, ...] = ()  # vector functions on the 950: the mask registers stay

    def __init__(self, plan: PairPlan, core: Core, footprints: list[Footprint]) -> None:
        self.plan, self.footprints = plan, footprints
        self.spans = [(fp.lo, fp.hi) for fp in footprints]  # count forms: every operand is contiguous
        self.sources_seen = NEVER  # the shadow epoch in which every source byte was seen written
        self.dsts_marked = NEVER  # the shadow epoch in which both destinations were marked written

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges(("UB", lo, hi) for lo, hi in self.spans[2:])

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return merge_ranges(("UB", lo, hi) for lo, hi in self.spans[:2])

    def run(self, core: Core, values: tuple) -> None:
        """Read the sources, compute both destinations, then write them."""
        if not self.spans:
            return
        ub, raw, name = core.ub, self.plan.dtype.raw, self.plan.op.name
        sources = self.spans[2:]
        if self.sources_seen != ub.shadow_epoch:  # written bytes stay written until the epoch moves
            if ub.fully_written or all(ub.written[lo:hi].all() for lo, hi in sources):
                self.sources_seen = ub.shadow_epoch
            else:
                for label, (lo, hi) in zip(self.plan.operands[2:], sources, strict=True):
                    ub.check_initialized_span(name, label, lo, hi)
        results = self.plan.op.compute(self.plan.dtype, *(ub.data[lo:hi].view(raw) for lo, hi in sources))
        self._commit(ub, results)

    def _commit(self, ub, results: tuple[np.ndarray, np.ndarray]) -> None:
        """Both destinations' bytes, computed before (nothing changed until here); marked written once per shadow
        epoch (they stay written until it moves)."""
        for (lo, hi), result in zip(self.spans[:2], results, strict=True):
            ub.data[lo:hi] = result.view(np.uint8)
        if self.dsts_marked != ub.shadow_epoch:
            for lo, hi in self.spans[:2]:
                ub.mark_written(lo, hi)
            self.dsts_marked = ub.shadow_epoch


def mull_halves(dtype: DType, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The low and high 32 bits of the exact products of raw int32 (signed) or uint32 lanes."""
    wide = np.int64 if dtype.kind == "int" else np.uint64
    product = a.view(dtype.np_dtype).astype(wide) * b.view(dtype.np_dtype).astype(wide)  # exact: |p| < 2^63
    bits = product.view(np.uint64)
    return (bits & np.uint64(0xFFFFFFFF)).astype(dtype.raw), (bits >> np.uint64(32)).astype(dtype.raw)


MULL = PairOp("mull", MULL_PAGE, TWO_DSTS, "count", lambda n: (n,) * 4, mull_halves)


def _compile_mull(core: Core, form: str, bound: dict) -> PairPlan:
    """Mull(ISASI).md: four tensors of one type (int32 or uint32), the first ``count`` elements of each."""
    return compile_pair(MULL, core, bound, lambda chip: getattr(vector_support(chip, "mull"), "dtypes", None))


_MULL_SUMMARY = "dst0 = low 32 bits, dst1 = high 32 bits of src0 * src1 per lane (the exact 64-bit product)"
mull = register(Instruction(
    "mull", "ascend", "arith", "V", (pair_form("src0", "src1"),), _compile_mull, f"{MULL_PAGE} 功能说明",
    support=lambda chip: vector_support(chip, "mull"), exactness=BIT_EXACT, summary=_MULL_SUMMARY,
    examples=("a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)\n"
              "b = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 1024, 256)\n"
              "lo = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 2048, 256)\n"
              "hi = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 3072, 256)\n"
              "asc.mull(lo, hi, a, b, 200)",),
    fast_context=lambda core: (),
    doc=f"``{_MULL_SUMMARY}`` ({MULL_PAGE}).\n\nThe 950 only, int32 (signed product) or uint32 (unsigned), the "
        "count form only.",
))

neg = _register_count_only(COUNT_ONLY_OPS["neg"])
prelu = _register_count_only(COUNT_ONLY_OPS["prelu"])
abs_sub = _register_count_only(COUNT_ONLY_OPS["abs_sub"])
ands = _register_logic("ands")
ors = _register_logic("ors")
