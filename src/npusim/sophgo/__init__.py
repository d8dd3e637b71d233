"""Sophgo TPU-Kernel: lane-major local memory and BDC instructions, bit-exact.

Names follow the vendor's C API (TPU-Kernel)::

    from npusim import sophgo as tpu

    with tpu.Core("bm1684x") as core:
        core.write_local(0x0000, a, tpu.DT_FP32)
        core.write_local(0x4000, b, tpu.DT_FP32)
        tpu.tpu_bdc_greater_select(
            0x8000,
            tpu.variable_t(type=tpu.TENSOR, addr=0x0000),
            tpu.variable_t(type=tpu.TENSOR, addr=0x4000),
            tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(f32=1.0)),
            tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(f32=0.0)),
            tpu.dim4(1, 64, 4, 4), tpu.DT_FP32, tpu.DT_FP32,
        )
        result = core.read_local(0x8000, (1, 64, 4, 4), tpu.DT_FP32)

A kernel is a Python function run inside ``with tpu.Core(...)``, structured as in C
(the structure of the vendor's kernels)::

    def kernel(out_global, in_global, shape):
        tpu.tpu_initialize()
        tpu.tpu_gdma_cpy_S2L(0x0, in_global, shape, None, None, tpu.DT_FP32)
        tpu.tpu_bdc_greater_select(0x0, ...)
        tpu.tpu_gdma_cpy_L2S(out_global, 0x0, shape, None, None, tpu.DT_FP32)
        tpu.tpu_poll()

    with tpu.Core("bm1684x") as core:
        core.write_global(0x1000, x)
        kernel(0x9000, 0x1000, tpu.dim4(1, 100, 4, 8))
        y = core.read_global(0x9000, x.shape, tpu.DT_FP32)

The semantics are those of Sophgo's documents and, where they are silent, those measured on
Sophgo's cmodel: ``docs/semantics.md`` §6-§9 states them rule by rule.

Every instruction is an entry of the engine's registry (:func:`instructions` lists the records:
name, family, pipe, products, source, examples); the public functions are the registry's.
``tpu_initialize`` and ``tpu_poll`` are runtime calls, not instructions: they touch no memory.
``Core(chip, trace=True)`` keeps an access record of every instruction call in ``core.trace``.
"""

from . import ops  # noqa: F401 - importing the instruction families registers them
from .chips import CHIPS, Chip, get_chip, get_default_chip, set_default_chip, using_chip
from .core import DEFAULT_GLOBAL_MEM_BYTES, MAX_GLOBAL_MEM_BYTES, Core
from .layout import LAYOUTS, Layout
from .runtime import tpu_initialize, tpu_poll
from .types import (
    DT_BFP16,
    DT_FP8E4M3,
    DT_FP8E5M2,
    DT_FP16,
    DT_FP20,
    DT_FP32,
    DT_INT4,
    DT_INT8,
    DT_INT16,
    DT_INT32,
    DT_TF32,
    DT_UINT4,
    DT_UINT8,
    DT_UINT16,
    DT_UINT32,
    SCALAR,
    TENSOR,
    VECTOR,
    data_type_t,
    dim4,
    scalar_t,
    tpu_data_type_bits,
    tpu_data_type_size,
    var_type_t,
    variable_t,
)
from .util import (
    tpu_aligned_stride,
    tpu_bank_index,
    tpu_bank_num,
    tpu_channle_num_per_npu,
    tpu_compact_stride,
    tpu_continuous_stride,
    tpu_eu_num,
    tpu_line_aligned_stride,
    tpu_local_mem_size_per_npu,
    tpu_npu_addr,
    tpu_npu_index,
    tpu_npu_num,
)
from .vendor import instructions

globals().update({entry.name: entry.function for entry in instructions()})

__all__ = [
    "CHIPS", "DEFAULT_GLOBAL_MEM_BYTES", "MAX_GLOBAL_MEM_BYTES", "DT_BFP16", "DT_FP8E4M3", "DT_FP8E5M2",
    "DT_FP16", "DT_FP20", "DT_FP32", "DT_INT4", "DT_INT8", "DT_INT16", "DT_INT32", "DT_TF32", "DT_UINT4",
    "DT_UINT8", "DT_UINT16", "DT_UINT32", "LAYOUTS", "SCALAR", "TENSOR", "VECTOR", "Chip", "Core", "Layout",
    "data_type_t", "dim4", "get_chip", "get_default_chip", "scalar_t", "set_default_chip", "tpu_aligned_stride",
    "tpu_bank_index", "tpu_bank_num", "tpu_channle_num_per_npu", "tpu_compact_stride", "tpu_continuous_stride",
    "tpu_data_type_bits", "tpu_data_type_size", "tpu_eu_num", "instructions", "tpu_initialize",
    "tpu_line_aligned_stride", "tpu_local_mem_size_per_npu", "tpu_npu_addr", "tpu_npu_index", "tpu_npu_num",
    "tpu_poll", "using_chip", "var_type_t", "variable_t",
    *(entry.name for entry in instructions()),  # the instructions, from the registry
]
