"""The Ascend C API (``asc_*`` functions) as thin wrappers over the instruction models.

Signatures follow ``docs/zh/api/SIMD-API/C-API`` (docs/semantics.md §2.6, §3.6, §4) and
``include/c_api/vector_compute/vector_compute.h``; UB pointers are passed as
:class:`~npusim.ascend.tensor.LocalTensor` objects.  The C API exists on Atlas A2/A3 only;
on other products every call raises an :class:`~npusim.errors.UnsupportedError` naming the
product.  ``*_sync`` variants add a ``pipe_barrier(PIPE_ALL)``, which the emulator records.

The compare and select functions (``asc_<op>[_scalar][_sync]``, ``asc_select[_sync]``) are
registry entries of the Compare and Select plans and live with them (``ops/compare.py``,
``ops/select.py``), the CMPMASK load/store with the register instructions (``ops/registers.py``);
this module keeps TransDataTo5HD.
"""

from __future__ import annotations

from collections.abc import Callable

from ..dtypes import DTYPES
from .core import Core, current_core
from .ops.common import record_pipe_barrier as _barrier
from .ops.common import require_c_api
from .ops.transpose import vnchwconv

__all__ = [
    "asc_transto5hd_b8", "asc_transto5hd_b8_sync", "asc_transto5hd_b16", "asc_transto5hd_b16_sync",
    "asc_transto5hd_b32", "asc_transto5hd_b32_sync",
    "c_api_core",
]


def c_api_core(instruction: str) -> Core:
    """The active core, provided the product has the C API."""
    core = current_core(instruction)
    require_c_api(core, instruction)
    return core


# ----------------------------------------------------------- TransDataTo5HD
def _transto5hd(name: str, bits: int, sync: bool) -> Callable[..., None]:
    raw_dtype = DTYPES[f"uint{bits}"]

    def call(dst, src, repeat, dst_stride, src_stride, *halves) -> None:
        core = c_api_core(name)
        if bits == 8:
            if len(halves) != 2:
                raise TypeError(f"{name}: takes (dst, src, repeat, dst_stride, src_stride, dst_high_half, "
                                f"src_high_half), got {5 + len(halves)} arguments")
        elif halves:
            raise TypeError(f"{name}: takes (dst, src, repeat, dst_stride, src_stride), got {5 + len(halves)} "
                            "arguments")
        vnchwconv(name, core, raw_dtype, dst, src, repeat, dst_stride, src_stride, *halves)
        if sync:
            _barrier(core)

    call.__name__ = call.__qualname__ = name
    halves_doc = ", dst_high_half, src_high_half" if bits == 8 else ""
    call.__doc__ = (
        f"``scatter_vnchwconv_b{bits}`` (asc_transto5hd.md): ``{name}(dst, src, repeat, dst_stride, "
        f"src_stride{halves_doc})``.\n\n"
        "``dst`` / ``src`` stand for the VA register pairs (VA0/VA1, VA2/VA3) that ``asc_set_va_reg``\n"
        "fills: pass the 16 UB byte addresses (or 16 LocalTensors) they hold.  Strides are in\n"
        "DataBlocks; with ``repeat == 1`` the start is already offset by one stride (docs/semantics.md §4.3)."
        + ("\n\nFollowed by ``pipe_barrier(PIPE_ALL)``." if sync else "")
    )
    return call


asc_transto5hd_b8 = _transto5hd("asc_transto5hd_b8", 8, sync=False)
asc_transto5hd_b8_sync = _transto5hd("asc_transto5hd_b8_sync", 8, sync=True)
asc_transto5hd_b16 = _transto5hd("asc_transto5hd_b16", 16, sync=False)
asc_transto5hd_b16_sync = _transto5hd("asc_transto5hd_b16_sync", 16, sync=True)
asc_transto5hd_b32 = _transto5hd("asc_transto5hd_b32", 32, sync=False)
asc_transto5hd_b32_sync = _transto5hd("asc_transto5hd_b32_sync", 32, sync=True)
