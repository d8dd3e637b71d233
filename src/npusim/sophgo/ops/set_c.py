"""``tpu_bdc_set_C``: fill a local tensor with one constant (``tpu_kernel.h``; docs/semantics.md §9.2).

::

    tpu_bdc_set_C(dst_addr, C, shape, dst_stride, dtype)

Every element ``(n, c, h, w)`` of ``shape`` gets the low ``bits(dtype)`` bits of the
``scalar_t`` ``C`` (as every SCALAR operand, docs/semantics.md §6.2).  ``dst_stride`` is ``None`` (C's NULL:
the aligned layout of the address's own start lane, as the other BDC instructions) or an
explicit :class:`~npusim.sophgo.types.dim4` element stride (free layout).

Rules, measured on the BM1684X and BM1688 cmodels and the SG2260 emulator (runtime oracle
fixtures; each violation asserts in ``atomic_tensor_arithmetic_single_opd_gen_cmd``):

* dtype: INT8/UINT8/INT16/UINT16/INT32/UINT32/FP16/BF16/FP32, and on SG2260 also FP8E5M2 and
  FP8E4M3 (``Chip.set_c_dtypes``);
* shape: each of N, C, H, W in ``[1, 65535]``;
* aligned layout: ``dst_addr`` a multiple of ``ALIGN_BYTES`` (EU bytes: 64 on BM1684X, 16 on
  BM1688); free layout: a multiple of the element size;
* free-layout strides non-negative and at most ``Chip.set_c_max_stride`` (BM1684X, SG2260:
  18-bit fields); on BM1684X/BM1688 a stride of 0 only on an axis of extent 1
  (``dst_shape[i] == 1``), even for C when every channel sits in its own lane; SG2260 takes a
  zero stride on any axis (``Chip.set_c_zero_stride_needs_extent_1``);
* every written byte inside its lane.

Elements that coincide (small or zero strides) all receive the same constant, so the order
of writes cannot matter.  Padding is never touched.

The plan (:class:`SetCPlan`) is the checked shape, dtype and layout; ``dst_addr`` binds per call,
``C`` is read per call.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...sources import semantics
from .. import pages
from ..chips import Chip
from ..layout import local_stride, split_address
from ..placement import (
    SHAPE_MAX,
    LocalPlacement,
    PlacedBinding,
    as_dim4,
    check_element_count,
    check_shape,
    check_stride,
    place_local,
    require_address,
)
from ..types import as_data_type, dim4, scalar_t, storage_dtype
from ..vendor import local_lane, sophgo_instruction

__all__ = ["SetCBinding", "SetCPlan"]

NAME = "tpu_bdc_set_C"
SOURCE = f"{pages.TPU_KERNEL_H} tpu_bdc_set_C; {semantics('9.2')}"  # rules measured on the BM1684X/BM1688 cmodels


@dataclass(frozen=True, eq=False)
class SetCPlan:
    """A checked fill: dtype, shape and layout, and the alignment dst needs."""

    dtype: DType
    shape: dim4
    stride: dim4
    alignment: int
    alignment_rule: str
    operands: tuple[str, ...] = ("dst_addr",)

    def bind(self, core, operands: tuple) -> SetCBinding:
        return SetCBinding(self, core.chip, place_local(
            NAME, core.chip, "dst address", int(operands[0]), self.shape, self.stride, self.dtype.itemsize,
            self.alignment, self.alignment_rule, SOURCE))


def _compile(core, form: str, values: dict) -> SetCPlan:
    """Check every rule of the call, types first, and plan it (nothing is read or written)."""
    chip = core.chip
    dst_addr = require_address(NAME, "dst_addr", values["dst_addr"], "int local address")
    if not isinstance(values["C"], scalar_t):
        raise TypeError(f"{NAME}: C must be a scalar_t (e.g. scalar_t(f32=1.0)), got {type(values['C']).__name__}")
    shape = as_dim4(NAME, "shape", values["shape"])
    dst_stride = as_dim4(NAME, "dst_stride", values["dst_stride"], allow_none=True)
    dtype = as_data_type(values["dtype"], NAME, "dtype")
    if dtype not in chip.set_c_dtypes:
        raise UnsupportedError(NAME, "dtype", dtype.name, f"is not supported by tpu_bdc_set_C on {chip.name}",
                               ", ".join(d.name for d in sorted(chip.set_c_dtypes)), SOURCE)
    storage = storage_dtype(dtype, NAME, "dtype")
    check_shape(NAME, shape, SHAPE_MAX, SOURCE)
    if dst_stride is None:
        start_lane = split_address(dst_addr, chip)[0] if dst_addr >= 0 else 0
        stride = local_stride("aligned", shape, start_lane, storage.bits, chip)
        alignment, rule = chip.align_bytes, f"an aligned-layout dst must be {chip.align_bytes}-byte (EU) aligned"
    else:
        limit = chip.set_c_max_stride
        check_stride(NAME, "dst_stride", dst_stride, dim4(0, 0, 0, 0), dim4(limit, limit, limit, limit),
                     f"{SOURCE} (stride fields of {chip.name})")
        for axis, step, size in zip("nchw", dst_stride, shape, strict=True):
            if step == 0 and size != 1 and chip.set_c_zero_stride_needs_extent_1:
                raise ParameterRangeError(
                    NAME, f"dst_stride.{axis}", 0, f"a stride of 0 needs shape.{axis} == 1, got {size}",
                    "a stride of at least 1", f"{SOURCE} (dst_shape[i] == 1 where the stride is 0)",
                )  # fmt: skip
        stride = dst_stride
        alignment, rule = storage.itemsize, f"a free-layout dst must be aligned to its {storage.itemsize}-byte element"
    plan = SetCPlan(storage, shape, stride, alignment, rule)
    plan.bind(core, (dst_addr,))
    check_element_count(NAME, shape, chip.total_local_mem_bytes, "local memory")
    return plan


class SetCBinding(PlacedBinding):
    """A fill bound to dst on one core (``C`` is a value: it reads no memory)."""

    def __init__(self, plan: SetCPlan, chip: Chip, dst: LocalPlacement) -> None:
        self.plan, self.chip, self.dst, self.write_placements = plan, chip, dst, (dst,)

    def run(self, core, values: tuple) -> None:
        index, dtype = self.dst.element_index(self.chip).reshape(-1), self.plan.dtype
        bits = np.array(values[1].low_bits(dtype.bits), dtype=dtype.raw)  # docs/semantics.md §6.2
        core.lmem.scatter(index, np.broadcast_to(bits, index.shape))  # coinciding elements get the same bits


_EXAMPLES = (
    "tpu.tpu_bdc_set_C(0x0, tpu.scalar_t(f32=1.5), tpu.dim4(2, 70, 3, 5), None, tpu.DT_FP32)",
    "# a free layout from lane 2: rows of 5 int8 two apart, and a zero stride on the axis of extent 1\n"
    "tpu.tpu_bdc_set_C(2 * tpu.tpu_local_mem_size_per_npu() + 0x11, tpu.scalar_t(s8=-3), tpu.dim4(1, 70, 3, 5),\n"
    "    tpu.dim4(0, 40, 12, 2), tpu.DT_INT8)",
)

sophgo_instruction(
    NAME, "set", "BDC", ("dst_addr", "C", "shape", "dst_stride", "dtype"), _compile, SOURCE,
    lambda chip: chip.set_c_dtypes,
    "dst(n, c, h, w) = C for every element of shape (the low bits(dtype) bits of C)", _EXAMPLES,
    frozenset({"dst_addr"}),
    plan_context=lambda core, form, values: local_lane(core, values[0]) if values[3] is None else (),
)
