"""The Ascend C API (``asc_*`` functions) as thin wrappers over the instruction models.

Signatures follow ``docs/zh/api/SIMD-API/C-API`` (ref §2.2, §3.4, §3.6); UB
pointers are passed as :class:`~npusim.ascend.tensor.LocalTensor` objects.  The
C API exists on Atlas A2/A3 only; on other products every call raises an
:class:`~npusim.errors.UnsupportedError` naming the product.  ``*_sync``
variants add a ``pipe_barrier(PIPE_ALL)``, which the emulator records.
"""

from __future__ import annotations

from ..validate import require_int, require_uint
from .addressing import lanes_per_repeat
from .chips import unsupported_on
from .core import Core, SyncRecord, current_core
from .masking import COUNTER_MAX, checked_counter_lanes, lanes_from_register
from .ops.registers import get_cmp_mask, set_cmp_mask
from .ops.select import vsel_cmpmask
from .tensor import LocalTensor
from .types import MaskMode, PipeID

__all__ = ["asc_get_cmp_mask", "asc_select", "asc_select_sync", "asc_set_cmp_mask", "c_api_core"]


def c_api_core(instruction: str) -> Core:
    """The active core, provided the product has the C API."""
    core = current_core(instruction)
    if not core.chip.c_api:
        raise unsupported_on(core.chip, instruction, "the asc_* C API", lambda c: c.c_api)
    return core


def _barrier(core: Core) -> None:
    core.sync_log.append(SyncRecord("pipe_barrier", int(PipeID.PIPE_ALL), 0))


def _strides(instruction: str, values: tuple) -> tuple[int, ...]:
    names = ("dst_block_stride", "src0_block_stride", "src1_block_stride",
             "dst_repeat_stride", "src0_repeat_stride", "src1_repeat_stride")
    return tuple(require_uint(instruction, n, v, 8, "asc_select.md") for n, v in zip(names, values, strict=True))


def asc_select(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args) -> None:
    """``vsel`` in mode 0: per lane, src0 where the CMPMASK bit is 1, else src1.

    Forms::

        asc_select(dst, src0, src1, count)            # counter mode, first `count` elements
        asc_select(dst, src0, src1, repeat, dst_block_stride, src0_block_stride, src1_block_stride,
                   dst_repeat_stride, src0_repeat_stride, src1_repeat_stride)

    The count form is ``set_mask_count(); set_vector_mask(0, count); vsel; set_mask_norm()``:
    afterwards the core is in normal mode with ``count`` left in the mask register's low word.
    """
    _asc_select("asc_select", dst, src0, src1, args)


def asc_select_sync(dst: LocalTensor, src0: LocalTensor, src1: LocalTensor, *args) -> None:
    """:func:`asc_select` followed by ``pipe_barrier(PIPE_ALL)``."""
    core = _asc_select("asc_select_sync", dst, src0, src1, args)
    _barrier(core)


def _asc_select(instruction: str, dst, src0, src1, args: tuple) -> Core:
    core = c_api_core(instruction)
    if not isinstance(dst, LocalTensor):
        raise TypeError(f"{instruction}: dst must be a LocalTensor, got {type(dst).__name__}")
    if len(args) == 1:
        count = require_int(instruction, "count", args[0], 0, COUNTER_MAX, "asc_select.md (uint32_t count)")
        lanes = checked_counter_lanes(instruction, count, lanes_per_repeat(dst.dtype.itemsize), "count")
        vsel_cmpmask(instruction, core, dst, src0, src1, lanes, (1, 1, 1, 8, 8, 8),
                     mask_words_after=(count, 0, 0, 0), mask_mode_after=MaskMode.NORMAL)
    elif len(args) == 7:
        repeat = require_uint(instruction, "repeat", args[0], 8, "asc_select.md")
        strides = _strides(instruction, args[1:])
        lanes = lanes_from_register(core, instruction, repeat, dst.dtype.itemsize)
        vsel_cmpmask(instruction, core, dst, src0, src1, lanes, strides)
    else:
        raise TypeError(f"{instruction}: takes (dst, src0, src1, count) or (dst, src0, src1, repeat, "
                        f"6 strides), got {3 + len(args)} arguments")
    return core


def asc_set_cmp_mask(src: LocalTensor) -> None:
    """``set_cmpmask``: load CMPMASK from 16 bytes of UB."""
    c_api_core("asc_set_cmp_mask")
    set_cmp_mask(src, instruction="asc_set_cmp_mask")


def asc_get_cmp_mask(dst: LocalTensor) -> None:
    """``get_cmpmask``: store CMPMASK into 16 bytes of UB."""
    c_api_core("asc_get_cmp_mask")
    get_cmp_mask(dst, instruction="asc_get_cmp_mask")
