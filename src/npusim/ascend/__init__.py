"""Huawei Ascend C vector instructions, emulated bit-exactly.

Names follow pyasc (``hicann/pyasc``): ``asc.select``, ``asc.LocalTensor``,
``asc.BinaryRepeatParams`` ...; C-API functions keep their ``asc_*`` names.

    from npusim import ascend as asc
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)

Kernels are written as in pyasc and launched on one emulated core per block::

    @asc.jit
    def kernel(x: asc.GlobalAddress, n: asc.ConstExpr[int]): ...

    kernel[8](x_array, 1024)
"""

import importlib as _importlib

from ..dtypes import DTYPES as _DTYPES
from ..engine import registry as _registry
from . import vendor as _vendor  # noqa: F401 - registers Ascend with the engine
from .chips import CHIPS, AscendChip, get_chip, get_default_chip, set_default_chip, using_chip
from .core import Core, current_core
from .runtime import (
    ConstExpr,
    GlobalAddress,
    GlobalTensor,
    Hardware,
    JitFunction,
    Launch,
    LocalMemAllocator,
    TBuf,
    TBufPool,
    TPipe,
    TQue,
    TQueBind,
    get_block_idx,
    get_block_num,
    gm_alloc,
    gm_codes,
    jit,
)
from .tensor import LocalTensor
from .types import (
    CMPMODE,
    DEFAULT_SORT_CONFIG,
    SELMODE,
    BinaryRepeatParams,
    BrcbRepeatParams,
    CopyRepeatParams,
    DataCopyExtParams,
    DataCopyMVType,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    GatherMaskMode,
    GatherMaskParams,
    GatherRepeatParams,
    HardEvent,
    LoopModeParams,
    MaskMode,
    MrgSort4Info,
    MrgSortSrcList,
    Nd2NzParams,
    NdDmaConfig,
    NdDmaLoopInfo,
    NdDmaParams,
    Nz2NdParamsFull,
    PipeID,
    ReduceOrder,
    RoundMode,
    SelMode,
    SliceInfo,
    SortConfig,
    SortType,
    TPosition,
    TransDataTo5HDParams,
    TransposeParamsExt,
    TransposeType,
    UnaryRepeatParams,
    VaReg,
    VdeqInfo,
)

#: the modules under ``ops/`` that register instructions (one family each)
INSTRUCTION_MODULES = ("elementwise", "elementwise_isasi", "cast", "registers", "control", "compare", "select",
                       "transpose", "data_copy", "loop_mode", "nddma", "sync",
                       "reduce", "reduce_all", "reduce_spr",  # one family: per repeat, whole tensor, ACC
                       "reduce_max_min_spr", "create_vec_index", "vector_padding",
                       "vector_copy", "vector_transpose", "brcb", "gather_scatter", "gatherb", "gather_mask",
                       "move_c_api", "move_c_api_gm", "va_registers", "arith_c_api", "bilinear", "rearrange", "sort",
                       "merge_sort", "proposal", "dequant", "add_deq_relu", "sort_config",
                       "scalar_compute", "scalar_cast")


def instructions() -> list[_registry.Instruction]:
    """Every registered Ascend instruction (name, family, pipe, forms, products, source, exactness ...)."""
    return _registry.instructions("ascend")


# The instructions: every registered Ascend instruction under its public name (pyasc spells
# abs, max and min like the Python builtins).
for _module in INSTRUCTION_MODULES:  # importing an instruction module registers its instructions
    _importlib.import_module(f"{__name__}.ops.{_module}")
INSTRUCTION_NAMES = tuple(entry.name for entry in instructions())
globals().update({entry.name: entry.function for entry in instructions()})
# compositions of the instructions above, not instructions themselves: the high-level APIs
# (asc.adv.softmax, .quant) and Sort.md's sort
from . import adv as adv  # noqa: E402
from .ops.move_c_api_gm import asc_ndim_pad_count_config  # noqa: E402  (the C API's struct)
from .ops.sort_api import sort  # noqa: E402

int8 = _DTYPES["int8"]
uint8 = _DTYPES["uint8"]
int16 = _DTYPES["int16"]
uint16 = _DTYPES["uint16"]
int32 = _DTYPES["int32"]
uint32 = _DTYPES["uint32"]
int64 = _DTYPES["int64"]
uint64 = _DTYPES["uint64"]
float16 = _DTYPES["float16"]
bfloat16 = _DTYPES["bfloat16"]
float32 = _DTYPES["float32"]
float64 = _DTYPES["float64"]
int4b_t = _DTYPES["int4"]  # two elements a byte (docs/semantics.md §5.23)
hifloat8 = _DTYPES["hifloat8"]  # the 950's hifloat8_t, stored as its codes (docs/semantics.md §5.32)
fp8_e8m0_t = _DTYPES["float8_e8m0fnu"]  # the 950's E8M0 exponents, stored as their codes (docs/semantics.md §5.34)
fp4x2_e2m1_t = _DTYPES["float4_e2m1fn"]  # the 950's two E2M1 values a byte (docs/semantics.md §5.33)
fp8_e5m2_t = _DTYPES["float8_e5m2"]  # the 950's fp8 types (AscendQuant's dst, to_float's sources: §5.30, §5.35)
fp8_e4m3fn_t = _DTYPES["float8_e4m3fn"]
complex32 = _DTYPES["complex32"]  # two halves, real part first (the 950, docs/semantics.md §5.29)
complex64 = _DTYPES["complex64"]  # two floats, real part first
half = float16
float_ = float32
VA0, VA1, VA2, VA3, VA4, VA5, VA6, VA7 = VaReg  # the C API spells the VA registers without a prefix
double = float64

__all__ = [
    "CHIPS", "CMPMODE", "SELMODE", "AscendChip", "BinaryRepeatParams", "BrcbRepeatParams", "ConstExpr", "Core",
    "CopyRepeatParams", "DataCopyExtParams", "DataCopyMVType", "DataCopyPadExtParams", "DataCopyPadParams",
    "DataCopyParams", "GatherMaskMode", "GatherMaskParams", "GatherRepeatParams", "GlobalAddress", "GlobalTensor",
    "HardEvent", "Hardware", "JitFunction", "Launch", "LocalMemAllocator",
    "LocalTensor", "LoopModeParams", "MaskMode", "MrgSort4Info", "MrgSortSrcList",
    "Nd2NzParams", "NdDmaConfig",
    "NdDmaLoopInfo", "NdDmaParams", "Nz2NdParamsFull", "PipeID", "ReduceOrder", "RoundMode", "SelMode", "SliceInfo",
    "SortConfig", "SortType", "DEFAULT_SORT_CONFIG",
    "TBuf", "TBufPool", "TPipe", "TPosition", "TQue", "TQueBind", "TransDataTo5HDParams", "TransposeParamsExt",
    "TransposeType", "UnaryRepeatParams", "VA0", "VA1", "VA2", "VA3", "VA4",
    "VA5", "VA6", "VA7", "VaReg", "VdeqInfo", "bfloat16", "complex32", "complex64", "current_core", "double",
    "float16", "float32",
    "float64", "asc_ndim_pad_count_config",
    "float_", "fp4x2_e2m1_t", "fp8_e4m3fn_t", "fp8_e5m2_t", "get_block_idx", "get_block_num", "get_chip",
    "get_default_chip", "gm_alloc", "gm_codes",
    "half",
    "hifloat8",
    "instructions",
    "int4b_t", "int8", "int16", "int32", "int64", "jit", "set_default_chip", "sort", "uint8", "uint16", "uint32",
    "uint64",
    "using_chip",
    "fp8_e8m0_t",
    *INSTRUCTION_NAMES,
]
