"""TPU-Kernel utility functions (TPU-Kernel 辅助函数, util.html; docs/semantics.md §7.2, §7.3).

They answer for the chip of the active :class:`~npusim.sophgo.core.Core`, as the vendor
functions answer for the chip the kernel is built for.  Where C fills a ``dim4 *stride``
out-parameter, these return the :class:`~npusim.sophgo.types.dim4`.  The vendor's spelling
``tpu_channle_num_per_npu`` is kept.
"""

from __future__ import annotations

from ..errors import ParameterRangeError
from ..sources import semantics
from ..validate import require_int
from . import pages
from .chips import Chip
from .core import current_core
from .layout import channels_per_lane, local_stride, split_address
from .placement import SHAPE_MAX
from .types import as_data_type, dim4, tpu_data_type_bits

__all__ = [
    "tpu_aligned_stride", "tpu_bank_index", "tpu_bank_num", "tpu_channle_num_per_npu", "tpu_compact_stride",
    "tpu_continuous_stride", "tpu_eu_num", "tpu_line_aligned_stride", "tpu_local_mem_size_per_npu", "tpu_npu_addr",
    "tpu_npu_index", "tpu_npu_num",
]


def tpu_npu_num() -> int:
    """``NPU_NUM``: lanes of the active chip."""
    return current_core("tpu_npu_num").chip.npu_num


def tpu_local_mem_size_per_npu() -> int:
    """``LOCAL_MEM_SIZE``: local-memory bytes per lane."""
    return current_core("tpu_local_mem_size_per_npu").chip.local_mem_bytes


def tpu_bank_num() -> int:
    """``LOCAL_MEM_BANKS``: banks per lane."""
    return current_core("tpu_bank_num").chip.bank_num


def tpu_eu_num(dtype) -> int:
    """Elements of ``dtype`` per execution-unit row: ``EU_BYTES * 8 / bits(dtype)``."""
    chip = current_core("tpu_eu_num").chip
    return chip.eu_num(tpu_data_type_bits(as_data_type(dtype, "tpu_eu_num", "dtype")))


def tpu_npu_index(addr: int) -> int:
    """The lane a local address starts on: ``addr / LOCAL_MEM_SIZE``."""
    chip = current_core("tpu_npu_index").chip
    return split_address(_local_address("tpu_npu_index", addr, chip), chip)[0]


def tpu_npu_addr(addr: int) -> int:
    """The in-lane offset of a local address: ``addr % LOCAL_MEM_SIZE``."""
    chip = current_core("tpu_npu_addr").chip
    return split_address(_local_address("tpu_npu_addr", addr, chip), chip)[1]


def tpu_bank_index(addr: int) -> int:
    """The bank of a local address: ``(addr % LOCAL_MEM_SIZE) / BANK_SIZE``."""
    chip = current_core("tpu_bank_index").chip
    return split_address(_local_address("tpu_bank_index", addr, chip), chip)[1] // chip.bank_bytes


def tpu_channle_num_per_npu(start_idx: int, num_channels: int) -> int:
    """Channel slots each lane holds: ``ceil((start_idx + num_channels) / NPU_NUM)``."""
    chip = current_core("tpu_channle_num_per_npu").chip
    start_idx = _start_lane("tpu_channle_num_per_npu", start_idx, chip)
    num_channels = require_int("tpu_channle_num_per_npu", "num_channels", num_channels, 1, SHAPE_MAX,
                               _source("tpu_channle_num_per_npu", semantics("7.2")))
    return channels_per_lane(start_idx, num_channels, chip)


def tpu_aligned_stride(start_idx: int, shape: dim4, dtype) -> dim4:
    """Stride of the 64-byte aligned layout: ``c = align_up(H*W, EU_NUM(dtype))``, ``n = slots * c``."""
    chip = current_core("tpu_aligned_stride").chip
    bits = tpu_data_type_bits(as_data_type(dtype, "tpu_aligned_stride", "dtype"))
    return local_stride("aligned", _shape("tpu_aligned_stride", shape), _start_lane("tpu_aligned_stride",
                                                                                    start_idx, chip), bits, chip)


def tpu_compact_stride(start_idx: int, shape: dim4) -> dim4:
    """Stride of the compact layout: ``c = H*W``, ``n = slots * c``."""
    chip = current_core("tpu_compact_stride").chip
    return local_stride("compact", _shape("tpu_compact_stride", shape), _start_lane("tpu_compact_stride",
                                                                                    start_idx, chip), 8, chip)


def tpu_line_aligned_stride(start_idx: int, shape: dim4, dtype) -> dim4:
    """Stride of the line-aligned layout: ``h = align_up(W, EU_NUM(dtype))``, ``c = H*h``."""
    chip = current_core("tpu_line_aligned_stride").chip
    bits = tpu_data_type_bits(as_data_type(dtype, "tpu_line_aligned_stride", "dtype"))
    return local_stride("line_aligned", _shape("tpu_line_aligned_stride", shape),
                        _start_lane("tpu_line_aligned_stride", start_idx, chip), bits, chip)


def tpu_continuous_stride(shape: dim4) -> dim4:
    """Stride of the continuous (global-memory) layout: ``w=1, h=W, c=H*W, n=C*H*W``."""
    chip = current_core("tpu_continuous_stride").chip
    return local_stride("continuous", _shape("tpu_continuous_stride", shape), 0, 8, chip)


# ------------------------------------------------------------------ argument checks
_ON_THE_PAGE = frozenset({"tpu_npu_index", "tpu_bank_index", "tpu_channle_num_per_npu", "tpu_aligned_stride",
                          "tpu_compact_stride", "tpu_line_aligned_stride", "tpu_continuous_stride"})


def _source(who: str, rule: str) -> str:
    """The utility page's entry for ``who`` (``tpu_npu_addr`` has none), then ``rule`` (docs/semantics.md)."""
    return f"{pages.UTIL} {who}; {rule}" if who in _ON_THE_PAGE else rule


def _local_address(who: str, addr, chip: Chip) -> int:
    return require_int(who, "addr", addr, 0, chip.total_local_mem_bytes - 1, _source(who, semantics("7.2")),
                       rule="is not a local address (NPU_NUM * LOCAL_MEM_SIZE bytes)")


def _start_lane(who: str, start_idx, chip: Chip) -> int:
    return require_int(who, "start_idx", start_idx, 0, chip.npu_num - 1, _source(who, semantics("7.3")),
                       rule="is not an NPU lane")


def _shape(who: str, shape) -> dim4:
    if not isinstance(shape, dim4):
        raise TypeError(f"{who}: shape must be a dim4, got {type(shape).__name__}")
    for axis, size in zip("nchw", shape, strict=True):
        if not 1 <= size <= SHAPE_MAX:
            raise ParameterRangeError(who, f"shape.{axis}", size, "is outside the 16-bit shape field",
                                      f"[1, {SHAPE_MAX}]", _source(who, semantics("7.3")))
    return shape
