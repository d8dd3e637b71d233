"""Small conveniences shared by the Sophgo tests."""

from __future__ import annotations

import numpy as np

from npusim import sophgo as tpu

RAW = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def T(addr: int) -> tpu.variable_t:
    return tpu.variable_t(type=tpu.TENSOR, addr=addr)


def V(addr: int) -> tpu.variable_t:
    return tpu.variable_t(type=tpu.VECTOR, addr=addr)


def S(u32: int) -> tpu.variable_t:
    return tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(u32=u32))


def bits_of(dtype: tpu.data_type_t) -> type:
    """The unsigned numpy type holding one element's bits."""
    return RAW[tpu.tpu_data_type_size(dtype)]


def write_bits(core: tpu.Core, addr: int, bits, dtype: tpu.data_type_t) -> None:
    """Store raw bit patterns (an (N, C, H, W) array of ints) in dtype's aligned layout."""
    storage = tpu.types.storage_dtype(tpu.data_type_t(dtype), "test", "dtype").np_dtype
    core.write_local(addr, np.asarray(bits, dtype=bits_of(dtype)).view(storage), dtype)


def read_bits(core: tpu.Core, addr: int, shape, dtype: tpu.data_type_t) -> np.ndarray:
    """The raw bit patterns of an aligned-layout tensor."""
    return core.read_local(addr, shape, dtype).view(bits_of(dtype))


def write_vector_bits(core: tpu.Core, addr: int, bits, dtype: tpu.data_type_t) -> None:
    """Element i into lane ``(start_lane + i) % NPU_NUM`` at the vector's offset (sophgo-semantics §3.4)."""
    values = np.asarray(bits, dtype=bits_of(dtype))
    lane0, offset = divmod(addr, core.chip.local_mem_bytes)
    for i, v in enumerate(values):
        core.write_local_bytes((lane0 + i) % core.chip.npu_num, offset, v.tobytes())
