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

from ..dtypes import DTYPES as _DTYPES
from ..engine import registry as _registry
from . import vendor as _vendor  # noqa: F401 - registers Ascend with the engine
from .c_api import (
    asc_eq,
    asc_eq_scalar,
    asc_eq_scalar_sync,
    asc_eq_sync,
    asc_ge,
    asc_ge_scalar,
    asc_ge_scalar_sync,
    asc_ge_sync,
    asc_gt,
    asc_gt_scalar,
    asc_gt_scalar_sync,
    asc_gt_sync,
    asc_le,
    asc_le_scalar,
    asc_le_scalar_sync,
    asc_le_sync,
    asc_lt,
    asc_lt_scalar,
    asc_lt_scalar_sync,
    asc_lt_sync,
    asc_ne,
    asc_ne_scalar,
    asc_ne_scalar_sync,
    asc_ne_sync,
    asc_select,
    asc_select_sync,
    asc_transto5hd_b8,
    asc_transto5hd_b8_sync,
    asc_transto5hd_b16,
    asc_transto5hd_b16_sync,
    asc_transto5hd_b32,
    asc_transto5hd_b32_sync,
)
from .chips import CHIPS, AscendChip, get_chip, get_default_chip, set_default_chip, using_chip
from .core import Core, current_core
from .ops.compare import compare, compare_scalar
from .ops.control import get_saturation_flag, set_saturation_flag
from .ops.data_copy import data_copy, data_copy_pad, set_pad_value
from .ops.elementwise import (
    abs_,
    add,
    add_relu,
    adds,
    axpy,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    div,
    duplicate,
    exp,
    fused_mul_add,
    fused_mul_add_relu,
    leaky_relu,
    ln,
    max_,
    maxs,
    min_,
    mins,
    mul,
    mul_add_dst,
    muls,
    reciprocal,
    relu,
    rsqrt,
    shift_left,
    shift_right,
    sqrt,
    sub,
    sub_relu,
)
from .ops.registers import (
    asc_get_cmp_mask,
    asc_set_cmp_mask,
    get_cmp_mask,
    reset_mask,
    set_cmp_mask,
    set_mask_count,
    set_mask_norm,
    set_vector_mask,
)
from .ops.select import select
from .ops.transpose import trans_data_to_5hd
from .runtime import (
    ConstExpr,
    GlobalAddress,
    GlobalTensor,
    JitFunction,
    Launch,
    TBuf,
    TPipe,
    TQue,
    get_block_idx,
    get_block_num,
    gm_alloc,
    jit,
    pipe_barrier,
    set_flag,
    wait_flag,
)
from .tensor import LocalTensor
from .types import (
    CMPMODE,
    SELMODE,
    BinaryRepeatParams,
    DataCopyExtParams,
    DataCopyPadExtParams,
    DataCopyPadParams,
    DataCopyParams,
    HardEvent,
    MaskMode,
    PipeID,
    SelMode,
    TPosition,
    TransDataTo5HDParams,
    UnaryRepeatParams,
)


def instructions() -> list[_registry.Instruction]:
    """Every registered Ascend instruction (name, family, pipe, forms, products, source, exactness ...)."""
    return _registry.instructions("ascend")


# pyasc spells these like the Python builtins; inside npusim they are abs_, max_, min_.
abs = abs_
max = max_
min = min_

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
half = float16
float_ = float32
double = float64

__all__ = [
    "CHIPS", "CMPMODE", "SELMODE", "AscendChip", "BinaryRepeatParams", "ConstExpr", "Core", "DataCopyExtParams",
    "DataCopyPadExtParams", "DataCopyPadParams", "DataCopyParams", "GlobalAddress", "GlobalTensor", "HardEvent",
    "JitFunction", "Launch", "LocalTensor", "MaskMode", "PipeID", "SelMode", "TBuf", "TPipe", "TPosition", "TQue",
    "TransDataTo5HDParams", "UnaryRepeatParams",
    "abs", "add", "adds", "asc_get_cmp_mask", "asc_select", "asc_select_sync", "asc_set_cmp_mask", "bfloat16",
    "current_core", "data_copy", "data_copy_pad", "double", "duplicate", "float16", "float32", "float64", "float_",
    "get_block_idx", "get_block_num", "get_chip", "get_cmp_mask", "get_default_chip", "get_saturation_flag",
    "gm_alloc", "half", "instructions", "int8", "int16", "int32", "int64", "jit", "max", "min", "mul", "muls",
    "pipe_barrier",
    "reset_mask", "select", "set_cmp_mask", "set_default_chip", "set_flag", "set_mask_count", "set_mask_norm",
    "set_pad_value", "set_saturation_flag", "set_vector_mask", "sub", "uint8", "uint16", "uint32", "uint64",
    "using_chip", "wait_flag",
]

# The rest of the element-wise family (issue 14).
__all__ += [
    "add_relu", "axpy", "bitwise_and", "bitwise_not", "bitwise_or", "div", "exp", "fused_mul_add",
    "fused_mul_add_relu", "leaky_relu", "ln", "maxs", "mins", "mul_add_dst", "reciprocal", "relu", "rsqrt",
    "shift_left", "shift_right", "sqrt", "sub_relu",
]

# Compare family and TransDataTo5HD (issue 3).
__all__ += [
    "asc_eq", "asc_eq_scalar", "asc_eq_scalar_sync", "asc_eq_sync", "asc_ge", "asc_ge_scalar", "asc_ge_scalar_sync",
    "asc_ge_sync", "asc_gt", "asc_gt_scalar", "asc_gt_scalar_sync", "asc_gt_sync", "asc_le", "asc_le_scalar",
    "asc_le_scalar_sync", "asc_le_sync", "asc_lt", "asc_lt_scalar", "asc_lt_scalar_sync", "asc_lt_sync", "asc_ne",
    "asc_ne_scalar", "asc_ne_scalar_sync", "asc_ne_sync", "asc_transto5hd_b8", "asc_transto5hd_b8_sync",
    "asc_transto5hd_b16", "asc_transto5hd_b16_sync", "asc_transto5hd_b32", "asc_transto5hd_b32_sync", "compare",
    "compare_scalar", "trans_data_to_5hd",
]
