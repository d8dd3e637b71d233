"""The flexible scalar position of the 950's binary-scalar instructions (基础算术/Adds（灵活标量位置）.md and its
siblings Subs, Muls, Divs, Maxs, Mins; 逻辑计算/Ands.md, Ors.md; 复合计算/MulsCast(ISASI).md; 比较与选择/
Compares（灵活标量位置）.md and Select（灵活标量位置）.md, whose forms add parameters around the two sources).

Either source may be the scalar: a number, or a LocalTensor whose first element is the scalar
("LocalTensor单点元素", ``src1Local[0]``); when both are tensors, ``scalar_tensor_index`` (C++
``BinaryConfig::scalarTensorIndex``, default 1) names the element.  The pages' constraints: one operand must
be a vector ("必须有一个为矢量"); the element must not overlap dst.  A number is read per call (no part
of the plan); an element is read from UB when the call runs, after every check (:class:`ElementScalarPlan`
wraps the plan the call would have with a number there; with ``raw_bits`` it hands on the element's own bits,
as Select must copy them, NaN payloads included).  Forms::

    adds(dst, src0, src1, count, is_set_mask=True, scalar_tensor_index=1)
    adds(dst, src0, src1, mask, repeat_times, repeat_params, is_set_mask=True, scalar_tensor_index=1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.trace import ByteRange, merge_ranges
from ...errors import OverlapError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...validate import require_int
from ..core import Core
from ..footprint import Footprint
from ..tensor import LocalTensor
from .common import (
    DST,
    is_bool_arg,
    is_int_arg,
    is_mask_arg,
    is_scalar,
    is_tensor,
    is_unary_params,
    require_ub_tensor,
    scalar_bits_cached,
)

__all__ = ["FLEXIBLE_FORMS", "FLEXIBLE_PRODUCTS", "FLEX_PREFIX", "SCALAR_INDEX", "SRC0", "SRC1", "ElementScalarPlan",
           "ScalarPosition", "check_scalar_element", "flexible_forms", "flexible_plan_context", "is_operand",
           "scalar_position", "scalar_raw_bits", "with_element"]

FLEXIBLE_PRODUCTS = frozenset({"950"})  # every（灵活标量位置）page: the other rows say "不支持"
FLEX_PREFIX = "flexible_"  # the forms' names where an instruction keeps its scalar-after forms under the plain ones

_COUNT = Param("count", is_int_arg)


def is_operand(value) -> bool:
    return is_tensor(value) or is_scalar(value)


SRC0, SRC1 = Param("src0", is_operand), Param("src1", is_operand)
SCALAR_INDEX = Param("scalar_tensor_index", is_int_arg, 1)
def flexible_forms(prefix: str = "") -> tuple[Form, ...]:
    """The mask and count forms with both sources flexible, named ``prefix + "mask"`` / ``prefix + "count"``
    (a prefix where an instruction also has the plain scalar-after forms of those names)."""
    return (
        Form(f"{prefix}mask", (DST, SRC0, SRC1, Param("mask", is_mask_arg), Param("repeat_times", is_int_arg),
                  Param("repeat_params", is_unary_params), Param("is_set_mask", is_bool_arg, True), SCALAR_INDEX)),
        Form(f"{prefix}count", (DST, SRC0, SRC1, _COUNT, Param("is_set_mask", is_bool_arg, True), SCALAR_INDEX)),
    )


FLEXIBLE_FORMS = flexible_forms()
_IS_SET_MASK_AT = 6  # in every mask form here: dst, src, scalar (or src0, src1), mask, repeat_times, repeat_params


def flexible_plan_context(core: Core, form: str, values: tuple) -> tuple:
    """As :func:`.common.mask_plan_context`, with ``is_set_mask`` before ``scalar_tensor_index``."""
    if form.endswith("count"):
        return ()
    return (int(core.mask_mode), None if values[_IS_SET_MASK_AT] else core.mask_words)


@dataclass(frozen=True)
class ScalarPosition:
    """Which source of a flexible-scalar call is the vector and which the scalar.

    Attributes:
        vector: ``"src0"`` or ``"src1"``, the tensor operand.
        scalar: the other one.
        element: the scalar is a tensor's first element (both sources are tensors).
        at: the scalar parameter's index among the call's values.
    """

    vector: str
    scalar: str
    element: bool
    at: int


def scalar_position(name: str, bound: dict, page: str,
                    names: tuple[str, ...] = FLEXIBLE_FORMS[1].names) -> ScalarPosition:
    """The pages' rules: one source must be a tensor (约束说明 "必须有一个为矢量"); when both are,
    ``scalar_tensor_index`` (0 = src0, 1 = src1; 模板参数说明 config) names the element.  ``names``: the
    call form's parameters (where the scalar sits among the call's values)."""
    tensors = is_tensor(bound["src0"]), is_tensor(bound["src1"])
    if not any(tensors):
        raise UnsupportedError(name, "src0/src1", f"{bound['src0']!r}, {bound['src1']!r}",
                               "both operands are scalars; one of them must be a vector", "a LocalTensor as src0 "
                               "or src1", f"{page} 约束说明")
    if all(tensors):
        index = require_int(name, "scalar_tensor_index", bound["scalar_tensor_index"], 0, 1,
                            f"{page} 参数说明 (表1 模板参数说明: config, BinaryConfig.scalarTensorIndex)",
                            rule="the position of the scalar element: 0 = src0, 1 = src1")
        scalar = ("src0", "src1")[index]
    else:
        scalar = "src1" if tensors[0] else "src0"
    vector = "src0" if scalar == "src1" else "src1"
    return ScalarPosition(vector, scalar, all(tensors), names.index(scalar))


def check_scalar_element(name: str, label: str, tensor: LocalTensor, core: Core, dst: Footprint | None,
                         page: str) -> None:
    """A tensor element used as the scalar: usable, in UB, 32-byte aligned, inside its tensor, and
    clear of every byte dst writes (约束说明)."""
    require_ub_tensor(name, label, tensor, core)
    size = tensor.dtype.itemsize
    tensor.check_span(name, label, tensor.addr, tensor.addr + size)
    if dst is None or dst.empty:
        return
    hit = (dst.addrs < tensor.addr + size) & (dst.addrs + dst.itemsize > tensor.addr)
    if hit.any():
        raise OverlapError(name, f"{label} / dst", f"element at {tensor.addr:#x}",
                           f"{label}, a LocalTensor element used as the scalar, overlaps dst",
                           "no byte in common with dst", f"{page} 约束说明")


@dataclass(eq=False)
class ElementScalarPlan:
    """A flexible-scalar plan whose scalar is a tensor's first element: the plan of the call with a
    number there (``inner``), plus that element, read when the call runs.

    Attributes:
        inner: the plan of dst and the vector source (its scalar slot is replaced per call).
        name, page: the instruction and its page.
        position: which source is the element.
        dtype: the element's type (the vector's).
        raw_bits: hand the inner binding the element's raw bits (a one-element array of ``dtype.raw``,
            :func:`scalar_raw_bits`) rather than its value.
        operands: the inner plan's operands, then the element's tensor.
    """

    inner: object
    name: str
    page: str
    position: ScalarPosition
    dtype: DType
    raw_bits: bool = False
    operands: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        self.operands = (*self.inner.operands, self.position.scalar)

    def bind(self, core: Core, tensors: list[LocalTensor]) -> ElementScalarBinding:
        binding = self.inner.bind(core, tensors[:-1])
        dst = binding.footprints[0] if binding.footprints else None
        check_scalar_element(self.name, self.position.scalar, tensors[-1], core, dst, self.page)
        return ElementScalarBinding(self, binding, tensors[-1].addr)


class ElementScalarBinding:
    """An :class:`ElementScalarPlan` at one placement: the inner binding, and the element's address."""

    def __init__(self, plan: ElementScalarPlan, inner, addr: int) -> None:
        self.plan, self.inner, self.addr = plan, inner, addr
        self.registers_read = inner.registers_read
        self.registers_written = inner.registers_written

    @property
    def computes(self) -> bool:
        """The call computes some lane (a nop reads no element)."""
        footprints = self.inner.footprints
        return bool(footprints) and not footprints[0].empty

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        element = ByteRange("UB", self.addr, self.addr + self.plan.dtype.itemsize)
        return merge_ranges([*self.inner.reads, element]) if self.computes else self.inner.reads

    @property
    def writes(self) -> tuple[ByteRange, ...]:
        return self.inner.writes

    def run(self, core: Core, values: tuple) -> None:
        """Read the element (a scalar read of UB), then run the inner binding with it as the scalar.  A call
        that computes no lane reads no element (its register effects still happen: a zero stands in)."""
        if not self.inner.footprints:
            return
        plan, size = self.plan, self.plan.dtype.itemsize
        if not self.computes:
            scalar = np.zeros(1, plan.dtype.raw) if plan.raw_bits else 0
        else:
            core.ub.check_initialized_span(plan.name, plan.position.scalar, self.addr, self.addr + size)
            element = core.ub.data[self.addr:self.addr + size]
            scalar = element.view(plan.dtype.raw).copy() if plan.raw_bits else \
                element.view(plan.dtype.np_dtype)[0].item()
        at = plan.position.at
        self.inner.run(core, values[:at] + (scalar,) + values[at + 1:])


def scalar_raw_bits(name: str, label: str, value, dtype: DType) -> np.ndarray:
    """A flexible call's scalar as raw bits of ``dtype``: an element's own (``ElementScalarPlan.raw_bits``), or a
    number converted to ``dtype`` (docs/semantics.md §1.10)."""
    if isinstance(value, np.ndarray):
        return value
    return scalar_bits_cached(name, label, value, dtype)


def with_element(inner, name: str, page: str, position: ScalarPosition, bound: dict, dtype: DType, core: Core, *,
                 raw_bits: bool = False):
    """``inner`` as it is for a number, or wrapped for an element of type ``dtype`` (checked at this call's
    addresses, after every check of ``inner``; ``raw_bits``: see :class:`ElementScalarPlan`)."""
    if not position.element:
        return inner
    element = require_ub_tensor(name, position.scalar, bound[position.scalar], core)
    if element.dtype != dtype:
        raise UnsupportedError(name, f"{position.scalar} dtype", element.dtype.name,
                               f"the scalar element must have {position.vector}'s dtype", dtype.name,
                               f"{page} 参数说明")
    dst = bound["dst"]
    check_scalar_element(name, position.scalar, element, core,
                         inner.footprints[0].moved(dst.addr) if inner.footprints else None, page)
    return ElementScalarPlan(inner, name, page, position, dtype, raw_bits)
