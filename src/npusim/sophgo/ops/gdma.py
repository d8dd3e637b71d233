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

The plan (:class:`CopyPlan`) is the checked shape, dtype and strides; both addresses bind per call.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import UnsupportedError
from ...sources import semantics
from .. import pages
from ..chips import INT32_MAX, Chip
from ..layout import local_stride
from ..placement import (
    GlobalPlacement,
    LocalPlacement,
    PlacedBinding,
    as_dim4,
    check_element_count,
    check_shape,
    check_stride,
    place_global,
    place_local,
    require_address,
)
from ..types import as_data_type, dim4, storage_dtype
from ..vendor import sophgo_instruction

__all__ = ["CopyBinding", "CopyPlan", "null_local_stride"]

SOURCE = f"{pages.TPU_KERNEL_H} tpu_gdma_cpy_S2L; {semantics('9.1')}"  # rules measured on the BM1684X/BM1688 cmodels
W_STRIDE_SOURCE = f"{pages.GDMA} 注意事项; {semantics('9.1')}"  # documented for BM1684X, measured on BM1688
PARAMS = ("dst_addr", "src_addr", "shape", "dst_stride", "src_stride", "dtype")


def null_local_stride(shape: dim4, bits: int, chip: Chip) -> dim4:
    """The local stride a NULL stride means: the aligned layout computed for start lane 0 (module doc)."""
    return local_stride("aligned", shape, 0, bits, chip)


# ------------------------------------------------------------------------------ plan


@dataclass(frozen=True, eq=False)
class CopyPlan:
    """A checked copy: its shape, element type and both strides, and which way data moves."""

    instruction: str
    to_local: bool
    dtype: DType
    shape: dim4
    local_stride: dim4
    global_stride: dim4
    dst_may_repeat: bool  # an explicit destination stride may map two elements to one place
    operands: tuple[str, ...] = ("dst_addr", "src_addr")

    def bind(self, core, operands: tuple) -> CopyBinding:
        """Check both addresses, the local one first: element-aligned, every byte inside its lane or
        inside global memory."""
        dst_addr, src_addr = operands
        local_addr, global_addr = (dst_addr, src_addr) if self.to_local else (src_addr, dst_addr)
        local_name, global_name = ("dst", "src") if self.to_local else ("src", "dst")
        size = self.dtype.itemsize
        local = place_local(self.instruction, core.chip, f"{local_name} address", int(local_addr), self.shape,
                            self.local_stride, size, size, f"must be aligned to its {size}-byte element", SOURCE)
        glob = place_global(self.instruction, core.global_mem_bytes, f"{global_name} address", int(global_addr),
                            self.shape, self.global_stride, size, SOURCE)
        return CopyBinding(self, core, local, glob)


def _compile(instruction: str, to_local: bool, core, form: str, values: dict) -> CopyPlan:
    """Check every rule of the call, types first, and plan it (nothing is read or written)."""
    chip = core.chip
    for name in ("dst_addr", "src_addr"):
        require_address(instruction, name, values[name])
    shape = as_dim4(instruction, "shape", values["shape"])
    dst_stride = as_dim4(instruction, "dst_stride", values["dst_stride"], allow_none=True)
    src_stride = as_dim4(instruction, "src_stride", values["src_stride"], allow_none=True)
    dtype = as_data_type(values["dtype"], instruction, "dtype")
    local_stride_arg, global_stride_arg = (dst_stride, src_stride) if to_local else (src_stride, dst_stride)
    if dtype not in chip.gdma_dtypes:
        raise UnsupportedError(instruction, "dtype", dtype.name, f"GDMA does not move this type on {chip.name}",
                               ", ".join(d.name for d in sorted(chip.gdma_dtypes)), SOURCE)
    storage = storage_dtype(dtype, instruction, "dtype")
    size = storage.itemsize
    check_shape(instruction, shape, INT32_MAX, SOURCE)
    local_name, global_name = ("dst", "src") if to_local else ("src", "dst")
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
    local_stride_used = local_stride_arg or null_local_stride(shape, storage.bits, chip)
    global_stride_used = global_stride_arg or local_stride("continuous", shape, 0, storage.bits, chip)
    dst_stride_used = local_stride_used if to_local else global_stride_used
    plan = CopyPlan(instruction, to_local, storage, shape, local_stride_used, global_stride_used,
                    dst_stride is not None and _may_repeat(shape, dst_stride_used))
    plan.bind(core, (values["dst_addr"], values["src_addr"]))
    check_element_count(instruction, shape, chip.total_local_mem_bytes, "local memory")
    return plan


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


# ------------------------------------------------------------------------------ run


class CopyBinding(PlacedBinding):
    """A copy plan bound to its two addresses on one core."""

    def __init__(self, plan: CopyPlan, core, local: LocalPlacement, glob: GlobalPlacement) -> None:
        self.plan, self.chip, lmem, gmem = plan, core.chip, core.lmem, core.gmem
        (self.src_mem, self.read_placements), (self.dst_mem, self.write_placements) = (
            ((gmem, (glob,)), (lmem, (local,))) if plan.to_local else ((lmem, (local,)), (gmem, (glob,))))

    def run(self, core, values: tuple) -> None:
        """Read the source (reporting never-written bytes), then write the destination."""
        plan, chip = self.plan, self.chip
        src_index, dst_index = (p[0].element_index(chip) for p in (self.read_placements, self.write_placements))
        self.src_mem.check_initialized(plan.instruction, "src", src_index, plan.dtype.itemsize)
        index, values = dst_index.reshape(-1), self.src_mem.gather(src_index, plan.dtype.raw).reshape(-1)
        if plan.dst_may_repeat:  # where destination elements coincide, the last in NCHW order wins
            unique, first_from_end = np.unique(index[::-1], return_index=True)
            if unique.size != index.size:
                index, values = unique, values[::-1][first_from_end]
        self.dst_mem.scatter(index, values)


# ------------------------------------------------------------------------------ registry


_EXAMPLES = {
    "tpu_gdma_cpy_S2L": (
        "import numpy as np\n"
        "core.write_global(0x1000, np.arange(2 * 70 * 3 * 5, dtype=np.float32))\n"
        "tpu.tpu_gdma_cpy_S2L(0x0, 0x1000, tpu.dim4(2, 70, 3, 5), None, None, tpu.DT_FP32)",
        "import numpy as np  # explicit strides: every other element of global memory, a free local layout\n"
        "core.write_global(0x100, np.arange(2 * 3 * 4 * 10, dtype=np.int16))\n"
        "tpu.tpu_gdma_cpy_S2L(3 * tpu.tpu_local_mem_size_per_npu() + 0x40, 0x100, tpu.dim4(2, 3, 4, 5),\n"
        "    tpu.dim4(80, 24, 6, 1), tpu.dim4(120, 40, 10, 2), tpu.DT_INT16)",
    ),
    "tpu_gdma_cpy_L2S": (
        "import numpy as np\n"
        "core.write_local(0x0, np.ones((2, 70, 3, 5)), tpu.DT_FP32)\n"
        "tpu.tpu_gdma_cpy_L2S(0x1000, 0x0, tpu.dim4(2, 70, 3, 5), None, None, tpu.DT_FP32)",
        "import numpy as np  # an H stride of 0 in global memory: the last row of each channel wins\n"
        "core.write_local(0x40, np.arange(60).reshape(1, 3, 4, 5), tpu.DT_UINT8, layout=tpu.dim4(60, 20, 5, 1))\n"
        "tpu.tpu_gdma_cpy_L2S(0x200, 0x40, tpu.dim4(1, 3, 4, 5), tpu.dim4(15, 5, 0, 1), tpu.dim4(60, 20, 5, 1),\n"
        "    tpu.DT_UINT8)",
    ),
}

for _name, _to_local, _way in (("tpu_gdma_cpy_S2L", True, "global to local"),
                               ("tpu_gdma_cpy_L2S", False, "local to global")):
    sophgo_instruction(
        _name, "data_movement", "GDMA", PARAMS, functools.partial(_compile, _name, _to_local),
        f"{pages.GDMA} {_name}; {semantics('9.1')}", lambda chip: chip.gdma_dtypes,
        f"copy a tensor from {_way} memory: element (n, c, h, w) of shape moves, bits unchanged", _EXAMPLES[_name],
        frozenset({"dst_addr", "src_addr"}),
    )
