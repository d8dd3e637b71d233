"""GDMA copies between global and local memory: ``tpu_gdma_cpy_S2L`` and ``tpu_gdma_cpy_L2S``.

::

    tpu_gdma_cpy_S2L(dst_addr, src_addr, shape, dst_stride, src_stride, dtype)   # global -> local
    tpu_gdma_cpy_L2S(dst_addr, src_addr, shape, dst_stride, src_stride, dtype)   # local -> global

Element ``(n, c, h, w)`` of ``shape`` moves from the source to the destination, bits
unchanged.  Strides are :class:`~npusim.sophgo.types.dim4` counts of elements, or ``None``
(C's ``NULL``) for the default layout of that side (docs/semantics.md §9.1):

* global side: element at ``addr + size * (n*ns + c*cs + h*hs + w*ws)``; ``None`` = continuous
  (``ns = C*H*W, cs = H*W, hs = W, ws = 1``);
* local side: lane ``(s + c) % NPU_NUM``, in-lane offset ``addr % LOCAL_MEM_SIZE + size *
  (n*ns + ((s + c) // NPU_NUM)*cs + h*hs + w*ws)`` with ``s`` the address's lane (docs/semantics.md §7.3);
  ``None`` = the aligned layout **computed for start lane 0**: ``cs = align(H*W, EU_NUM)``,
  ``ns = ceil(C / NPU_NUM) * cs``.  The vendor implementation calls
  ``tpu_aligned_stride(&stride, 0, shape, dtype)`` here, and the BM1684X and BM1688 cmodels
  agree: from a start lane ``s > 0`` with ``ceil((s + C) / NPU_NUM) > ceil(C / NPU_NUM)``
  the n stride is one channel slot shorter than the aligned layout the BDC instructions use
  for the same address (``tpu_aligned_stride(&stride, s, ...)``).  Kernels normally start
  tensors on lane 0, where the two agree.

Rules, measured on the BM1684X and BM1688 cmodels and the SG2260 emulator (runtime oracle
fixtures; the oracle asserts on every violation listed):

* dtype: INT8/UINT8/INT16/UINT16/INT32/UINT32/FP16/BF16/FP32, and on SG2260 also FP8E5M2 and
  FP8E4M3 (``Chip.gdma_dtypes``);
* shape: every dimension at least 1 (C, H or W = 0 asserts; N = 0 happens to be a silent
  no-op in the cmodel, which npusim rejects as the mistake it almost always is); the
  implementation splits larger dimensions into 65535-sized commands, so a dimension may
  exceed 65535;
* both addresses aligned to the element size (``dst_start_offset & type_mask``); local
  addresses need no 64-byte alignment;
* W strides in ``[1, MAX_WSTRIDE_BYTE_LEN / size]`` on both sides, even when ``W == 1``
  (128 bytes on BM1684X, 64 on BM1688: ``Chip.gdma_max_w_stride_bytes``); SG2260 has no W-stride
  limit of its own and takes a W stride of 0 (``Chip.gdma_zero_w_stride``); N, C and H
  strides non-negative (the cmodel reads a negative one as a huge unsigned offset);
* every touched byte inside its lane (local) or inside global memory.

Destination elements may coincide (a zero or small stride); they are written in NCHW order,
so the last one wins, as in the cmodel.  A rejected call has changed nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...dtypes import DType
from ...errors import UnsupportedError
from ...memory import Memory
from ...sources import semantics
from .. import pages
from ..chips import INT32_MAX, Chip
from ..core import Core, current_core
from ..layout import local_stride
from ..placement import (
    GlobalPlacement,
    LocalPlacement,
    as_dim4,
    check_element_count,
    check_shape,
    check_stride,
    place_global,
    place_local,
    require_address,
)
from ..types import as_data_type, data_type_t, dim4, storage_dtype

__all__ = ["null_local_stride", "tpu_gdma_cpy_L2S", "tpu_gdma_cpy_S2L"]

SOURCE = f"{pages.TPU_KERNEL_H} tpu_gdma_cpy_S2L; {semantics('9.1')}"  # rules measured on the BM1684X/BM1688 cmodels
W_STRIDE_SOURCE = f"{pages.GDMA} 注意事项; {semantics('9.1')}"  # documented for BM1684X, measured on BM1688


def tpu_gdma_cpy_S2L(
    dst_addr: int, src_addr: int, shape: dim4, dst_stride: dim4 | None, src_stride: dim4 | None,
    dtype: data_type_t,
) -> None:  # fmt: skip
    """Copy a tensor from global memory (``src_addr``) to local memory (``dst_addr``)."""
    _copy("tpu_gdma_cpy_S2L", True, dst_addr, src_addr, shape, dst_stride, src_stride, dtype)


def tpu_gdma_cpy_L2S(
    dst_addr: int, src_addr: int, shape: dim4, dst_stride: dim4 | None, src_stride: dim4 | None,
    dtype: data_type_t,
) -> None:  # fmt: skip
    """Copy a tensor from local memory (``src_addr``) to global memory (``dst_addr``)."""
    _copy("tpu_gdma_cpy_L2S", False, dst_addr, src_addr, shape, dst_stride, src_stride, dtype)


def null_local_stride(shape: dim4, bits: int, chip: Chip) -> dim4:
    """The local stride a NULL stride means: the aligned layout computed for start lane 0 (module doc)."""
    return local_stride("aligned", shape, 0, bits, chip)


# ------------------------------------------------------------------------------ plan


@dataclass(frozen=True)
class _Plan:
    """A checked copy: where the local and the global tensor are, and which way data moves."""

    instruction: str
    to_local: bool
    dtype: DType
    local: LocalPlacement
    glob: GlobalPlacement
    dst_may_repeat: bool  # an explicit destination stride may map two elements to one place


def _copy(
    instruction: str, to_local: bool, dst_addr: Any, src_addr: Any, shape: Any, dst_stride: Any,
    src_stride: Any, dtype: Any,
) -> None:  # fmt: skip
    core = current_core(instruction)
    for name, addr in (("dst_addr", dst_addr), ("src_addr", src_addr)):
        require_address(instruction, name, addr)
    shape = as_dim4(instruction, "shape", shape)
    dst_stride = as_dim4(instruction, "dst_stride", dst_stride, allow_none=True)
    src_stride = as_dim4(instruction, "src_stride", src_stride, allow_none=True)
    local_addr, global_addr = (dst_addr, src_addr) if to_local else (src_addr, dst_addr)
    local_stride_arg, global_stride_arg = (dst_stride, src_stride) if to_local else (src_stride, dst_stride)
    plan = _plan(core.chip, core.global_mem_bytes, instruction, to_local, int(local_addr), int(global_addr),
                 shape, local_stride_arg, global_stride_arg, as_data_type(dtype, instruction, "dtype"))
    _execute(plan, core)


@functools.lru_cache(maxsize=256)
def _plan(
    chip: Chip, global_bytes: int, instruction: str, to_local: bool, local_addr: int, global_addr: int,
    shape: dim4, local_stride_arg: dim4 | None, global_stride_arg: dim4 | None, dtype: data_type_t,
) -> _Plan:  # fmt: skip
    if dtype not in chip.gdma_dtypes:
        raise UnsupportedError(instruction, "dtype", dtype.name, f"GDMA does not move this type on {chip.name}",
                               ", ".join(d.name for d in sorted(chip.gdma_dtypes)), SOURCE)
    storage = storage_dtype(dtype, instruction, "dtype")
    size = storage.itemsize
    check_shape(instruction, shape, INT32_MAX, SOURCE)
    local_name, global_name = ("dst", "src") if to_local else ("src", "dst")
    dst_stride_given = (local_stride_arg if to_local else global_stride_arg) is not None
    if chip.gdma_max_w_stride_bytes is None:
        max_w, w_rule = INT32_MAX, f"{chip.name} has no W-stride limit of its own"
    else:
        max_w = chip.gdma_max_w_stride_bytes // size
        w_rule = f"0 < w stride * size <= {chip.gdma_max_w_stride_bytes} bytes on {chip.name}"
    lows = dim4(0, 0, 0, 0 if chip.gdma_zero_w_stride else 1)
    highs = dim4(INT32_MAX, INT32_MAX, INT32_MAX, max_w)
    for name, stride in ((f"{local_name}_stride", local_stride_arg), (f"{global_name}_stride", global_stride_arg)):
        if stride is not None:
            check_stride(instruction, name, stride, lows, highs, f"{W_STRIDE_SOURCE} ({w_rule})")
    if local_stride_arg is None:
        local_stride_arg = null_local_stride(shape, storage.bits, chip)
    if global_stride_arg is None:
        global_stride_arg = local_stride("continuous", shape, 0, storage.bits, chip)
    local = place_local(instruction, chip, f"{local_name} address", local_addr, shape, local_stride_arg, size, size,
                        f"must be aligned to its {size}-byte element", SOURCE)
    glob = place_global(instruction, global_bytes, f"{global_name} address", global_addr, shape, global_stride_arg,
                        size, SOURCE)
    check_element_count(instruction, shape, chip.total_local_mem_bytes, "local memory")
    dst_stride = local.stride if to_local else glob.stride
    return _Plan(instruction, to_local, storage, local, glob, dst_stride_given and _may_repeat(shape, dst_stride))


def _may_repeat(shape: dim4, stride: dim4) -> bool:
    """False when no two elements can share a destination: sorted by stride, each axis steps past
    everything the smaller-stride axes span.  True means "maybe" (the write checks exactly).

    For a local destination the C axis is counted with its full extent, which over-estimates what
    one lane holds (channels spread over lanes), so the answer stays safe.
    """
    axes = sorted((step, size) for size, step in zip(shape, stride, strict=True) if size > 1)
    reach = 0  # elements spanned by the axes with smaller strides
    for step, size in axes:
        if step <= reach:
            return True
        reach += step * (size - 1)
    return False


# ------------------------------------------------------------------------------ execute and commit


def _execute(plan: _Plan, core: Core) -> None:
    """Read the source (reporting never-written bytes), then write the destination."""
    local_index = plan.local.element_index(core.chip)
    global_index = plan.glob.element_index()
    src_mem, dst_mem = (core.gmem, core.lmem) if plan.to_local else (core.lmem, core.gmem)
    src_index, dst_index = (global_index, local_index) if plan.to_local else (local_index, global_index)
    src_mem.check_initialized(plan.instruction, "src", src_index, plan.dtype.itemsize)
    values = src_mem.gather(src_index, plan.dtype.raw)
    _write_in_order(dst_mem, dst_index.reshape(-1), values.reshape(-1), plan.dst_may_repeat)


def _write_in_order(memory: Memory, index: np.ndarray, values: np.ndarray, may_repeat: bool) -> None:
    """Scatter ``values``; where indices repeat, the one that comes last (NCHW order) wins."""
    if may_repeat:
        reversed_index = index[::-1]
        unique, first_from_end = np.unique(reversed_index, return_index=True)
        if unique.size != index.size:
            index, values = unique, values[::-1][first_from_end]
    memory.scatter(index, values)
