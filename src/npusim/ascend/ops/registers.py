"""Instructions that set or read the mask registers (docs/semantics.md §1.3, §1.4, §3.5).

* ``set_vector_mask`` / ``reset_mask`` — the vector mask register;
* ``set_mask_count`` / ``set_mask_norm`` — the mask mode;
* ``set_cmp_mask`` / ``get_cmp_mask`` — CMPMASK from / to a 16-byte-aligned UB tensor.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..addressing import FULL_WORD, contiguous_mask_words
from ..chips import unsupported_on
from ..core import CMPMASK_BYTES, current_core
from ..masking import contiguous_mask_length
from ..tensor import LocalTensor
from ..types import MaskMode
from .common import require_dtype, require_ub_tensor

__all__ = ["get_cmp_mask", "reset_mask", "set_cmp_mask", "set_mask_count", "set_mask_norm", "set_vector_mask"]

CMPMASK_ALIGN = 16  # SetCmpMask/GetCmpMask tensors: 16-byte aligned (docs/semantics.md §3.5, debug check align16B)
MASK_SOURCE = f"{pages.SET_VECTOR_MASK} 参数说明; {semantics('1.3')}"
CMPMASK_TENSOR_DTYPES = frozenset({"int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32",
                                   "uint32", "float32", "int64", "uint64"})


def set_vector_mask(*args, dtype: DType | None = None, mode: MaskMode = MaskMode.NORMAL) -> None:
    """Set the vector mask register (pyasc ``set_vector_mask``).

    Forms::

        set_vector_mask(length, dtype=T, mode=MaskMode.NORMAL)   # first `length` lanes (SetMask<T>(len))
        set_vector_mask(length, dtype=T, mode=MaskMode.COUNTER)  # low word = element count
        set_vector_mask(mask_high, mask_low, dtype=T, mode=...)  # raw register words
    """
    instruction = "set_vector_mask"
    core = current_core(instruction)
    if not isinstance(mode, MaskMode):
        raise TypeError(f"{instruction}: mode must be asc.MaskMode, got {mode!r}")
    if len(args) == 1:
        if not isinstance(dtype, DType):
            raise TypeError(f"{instruction}: the length form needs dtype=asc.<type>, got {dtype!r}")
        length = contiguous_mask_length(instruction, "length", args[0])
        counter = mode == MaskMode.COUNTER
        words = (length, 0) if counter else contiguous_mask_words(length, dtype.itemsize)
    elif len(args) == 2:
        high = require_int(instruction, "mask_high", args[0], 0, FULL_WORD, MASK_SOURCE)
        low = require_int(instruction, "mask_low", args[1], 0, FULL_WORD, MASK_SOURCE)
        words = (low, high)
    else:
        raise TypeError(f"{instruction}: takes (length) or (mask_high, mask_low), got {len(args)} positional args")
    core.set_mask_words(*words)


def reset_mask() -> None:
    """Vector mask register to all ones (``ResetMask``)."""
    current_core("reset_mask").set_mask_words(FULL_WORD, FULL_WORD)


def set_mask_count() -> None:
    """Switch to counter mode: the register's low word is an element count (``SetMaskCount``)."""
    core = current_core("set_mask_count")
    core.require_counter_mode("set_mask_count")
    core.set_mask_mode(MaskMode.COUNTER)


def set_mask_norm() -> None:
    """Switch to normal mode: the register is a per-repeat lane mask (``SetMaskNorm``)."""
    current_core("set_mask_norm").set_mask_mode(MaskMode.NORMAL)


def _cmpmask_tensor(instruction: str, tensor: LocalTensor):
    core = current_core(instruction)
    page = pages.GET_CMP_MASK if "get" in instruction else pages.SET_CMP_MASK
    if not core.chip.cmpmask_api:
        raise unsupported_on(core.chip, instruction, "SetCmpMask/GetCmpMask", lambda c: c.cmpmask_api,
                             f"{page} 产品支持情况; {semantics('3.5')}")
    tensor = require_ub_tensor(instruction, "tensor", tensor, core, CMPMASK_ALIGN,
                               f"{page} 约束说明; {semantics('1.5', '3.5')}")
    require_dtype(instruction, "tensor", tensor.dtype, CMPMASK_TENSOR_DTYPES, "CMPMASK tensors are 8-64 bit",
                  f"{page} 数据类型; {semantics('3.5')}")
    tensor.check_span(instruction, "tensor", tensor.addr, tensor.addr + CMPMASK_BYTES)
    return core, tensor


def set_cmp_mask(src: LocalTensor, *, instruction: str = "set_cmp_mask") -> None:
    """Load CMPMASK from the first 16 bytes of ``src`` (``SetCmpMask``; docs/semantics.md §3.5)."""
    core, src = _cmpmask_tensor(instruction, src)
    core.ub.check_initialized_span(instruction, "src", src.addr, src.addr + CMPMASK_BYTES)
    core.load_cmpmask(core.ub.data[src.addr : src.addr + CMPMASK_BYTES].tobytes())


def get_cmp_mask(dst: LocalTensor, *, instruction: str = "get_cmp_mask") -> None:
    """Store CMPMASK into the first 16 bytes of ``dst`` (``GetCmpMask``; docs/semantics.md §3.5)."""
    core, dst = _cmpmask_tensor(instruction, dst)
    core.report_unset_cmpmask(instruction)
    core.ub.write_bytes(dst.addr, np.frombuffer(core.cmpmask, dtype=np.uint8), who=instruction)

