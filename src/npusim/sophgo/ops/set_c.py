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
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...sources import semantics
from .. import pages
from ..chips import Chip
from ..core import current_core
from ..layout import local_stride, split_address
from ..placement import (
    SHAPE_MAX,
    LocalPlacement,
    as_dim4,
    check_element_count,
    check_shape,
    check_stride,
    place_local,
    require_address,
)
from ..types import as_data_type, data_type_t, dim4, scalar_t, storage_dtype

__all__ = ["tpu_bdc_set_C"]

SOURCE = f"{pages.TPU_KERNEL_H} tpu_bdc_set_C; {semantics('9.2')}"  # rules measured on the BM1684X/BM1688 cmodels


def tpu_bdc_set_C(dst_addr: int, C: scalar_t, shape: dim4, dst_stride: dim4 | None, dtype: data_type_t) -> None:
    """``dst(n, c, h, w) = C`` for every element of ``shape`` (the low ``bits(dtype)`` bits of ``C``)."""
    instruction = "tpu_bdc_set_C"
    core = current_core(instruction)
    dst_addr = require_address(instruction, "dst_addr", dst_addr, "int local address")
    if not isinstance(C, scalar_t):
        raise TypeError(f"{instruction}: C must be a scalar_t (e.g. scalar_t(f32=1.0)), got {type(C).__name__}")
    plan = _plan(core.chip, dst_addr, as_dim4(instruction, "shape", shape),
                 as_dim4(instruction, "dst_stride", dst_stride, allow_none=True),
                 as_data_type(dtype, instruction, "dtype"))  # fmt: skip
    index = plan.dst.element_index(core.chip).reshape(-1)
    bits = np.array(C.low_bits(plan.dtype.bits), dtype=plan.dtype.raw)  # docs/semantics.md §6.2
    core.lmem.scatter(index, np.broadcast_to(bits, index.shape))


@dataclass(frozen=True)
class _Plan:
    dtype: DType
    dst: LocalPlacement


@functools.lru_cache(maxsize=256)
def _plan(chip: Chip, dst_addr: int, shape: dim4, dst_stride: dim4 | None, dtype: data_type_t) -> _Plan:
    instruction = "tpu_bdc_set_C"
    if dtype not in chip.set_c_dtypes:
        raise UnsupportedError(instruction, "dtype", dtype.name, f"is not supported by tpu_bdc_set_C on {chip.name}",
                               ", ".join(d.name for d in sorted(chip.set_c_dtypes)), SOURCE)
    storage = storage_dtype(dtype, instruction, "dtype")
    check_shape(instruction, shape, SHAPE_MAX, SOURCE)
    if dst_stride is None:
        start_lane = split_address(dst_addr, chip)[0] if dst_addr >= 0 else 0
        stride = local_stride("aligned", shape, start_lane, storage.bits, chip)
        alignment, rule = chip.align_bytes, f"an aligned-layout dst must be {chip.align_bytes}-byte (EU) aligned"
    else:
        limit = chip.set_c_max_stride
        check_stride(instruction, "dst_stride", dst_stride, dim4(0, 0, 0, 0), dim4(limit, limit, limit, limit),
                     f"{SOURCE} (stride fields of {chip.name})")
        for axis, step, size in zip("nchw", dst_stride, shape, strict=True):
            if step == 0 and size != 1 and chip.set_c_zero_stride_needs_extent_1:
                raise ParameterRangeError(
                    instruction, f"dst_stride.{axis}", 0, f"a stride of 0 needs shape.{axis} == 1, got {size}",
                    "a stride of at least 1", f"{SOURCE} (dst_shape[i] == 1 where the stride is 0)",
                )  # fmt: skip
        stride = dst_stride
        alignment, rule = storage.itemsize, f"a free-layout dst must be aligned to its {storage.itemsize}-byte element"
    dst = place_local(instruction, chip, "dst address", dst_addr, shape, stride, storage.itemsize, alignment, rule,
                      SOURCE)
    check_element_count(instruction, shape, chip.total_local_mem_bytes, "local memory")
    return _Plan(storage, dst)
