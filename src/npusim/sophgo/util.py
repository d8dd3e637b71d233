"""TPU-Kernel utility functions (vendor page "util", sophgo-semantics §1.2, §3.1-§3.3).

They answer for the chip of the active :class:`~npusim.sophgo.core.Core`, as the vendor
functions answer for the chip the kernel is built for.  Where C fills a ``dim4 *stride``
out-parameter, these return the :class:`~npusim.sophgo.types.dim4`.  The vendor's spelling
``tpu_channle_num_per_npu`` is kept.
"""

from __future__ import annotations

from .core import current_core
from .layout import channels_per_lane, local_stride, split_address
from .types import as_data_type, dim4, tpu_data_type_bits

__all__ = [
    "tpu_aligned_stride",
    "tpu_bank_index",
    "tpu_bank_num",
    "tpu_channle_num_per_npu",
    "tpu_compact_stride",
    "tpu_continuous_stride",
    "tpu_eu_num",
    "tpu_line_aligned_stride",
    "tpu_local_mem_size_per_npu",
    "tpu_npu_addr",
    "tpu_npu_index",
    "tpu_npu_num",
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
    return split_address(addr, current_core("tpu_npu_index").chip)[0]


def tpu_npu_addr(addr: int) -> int:
    """The in-lane offset of a local address: ``addr % LOCAL_MEM_SIZE``."""
    return split_address(addr, current_core("tpu_npu_addr").chip)[1]


def tpu_bank_index(addr: int) -> int:
    """The bank of a local address: ``(addr % LOCAL_MEM_SIZE) / BANK_SIZE``."""
    chip = current_core("tpu_bank_index").chip
    return split_address(addr, chip)[1] // chip.bank_bytes


def tpu_channle_num_per_npu(start_idx: int, num_channels: int) -> int:
    """Channel slots each lane holds: ``ceil((start_idx + num_channels) / NPU_NUM)``."""
    return channels_per_lane(start_idx, num_channels, current_core("tpu_channle_num_per_npu").chip)


def tpu_aligned_stride(start_idx: int, shape: dim4, dtype) -> dim4:
    """Stride of the 64-byte aligned layout: ``c = align_up(H*W, EU_NUM(dtype))``, ``n = slots * c``."""
    chip = current_core("tpu_aligned_stride").chip
    bits = tpu_data_type_bits(as_data_type(dtype, "tpu_aligned_stride", "dtype"))
    return local_stride("aligned", shape, start_idx, bits, chip)


def tpu_compact_stride(start_idx: int, shape: dim4) -> dim4:
    """Stride of the compact layout: ``c = H*W``, ``n = slots * c``."""
    chip = current_core("tpu_compact_stride").chip
    return local_stride("compact", shape, start_idx, 8, chip)


def tpu_line_aligned_stride(start_idx: int, shape: dim4, dtype) -> dim4:
    """Stride of the line-aligned layout: ``h = align_up(W, EU_NUM(dtype))``, ``c = H*h``."""
    chip = current_core("tpu_line_aligned_stride").chip
    bits = tpu_data_type_bits(as_data_type(dtype, "tpu_line_aligned_stride", "dtype"))
    return local_stride("line_aligned", shape, start_idx, bits, chip)


def tpu_continuous_stride(shape: dim4) -> dim4:
    """Stride of the continuous (global-memory) layout: ``w=1, h=W, c=H*W, n=C*H*W``."""
    chip = current_core("tpu_continuous_stride").chip
    return local_stride("continuous", shape, 0, 8, chip)
