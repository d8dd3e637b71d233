"""LocalMemAllocator (资源管理/内存管理/LocalMemAllocator/*.md; docs/semantics.md §5.36).

Expected addresses follow the rule of ``kernel_tensor_impl.h``: each tensor at the head, the head then moved on by
``bits * tile_size / 8`` bytes, from 0; worked out here from the sizes, not read back from npusim.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.runtime import LocalTensorAuto
from npusim.errors import (
    AlignmentError,
    OutOfBoundsError,
    ParameterRangeError,
    RuntimeMisuseError,
    UnsupportedError,
)

from .conftest import assert_rejected

VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC


def test_the_pages_calls_place_tensors_one_after_another():
    """Alloc.md 调用示例: Alloc<VECIN, float, 1024>(), Alloc<float, 1024>(), Alloc<VECIN, float>(tileLength)."""
    with asc.Core("A2"):
        allocator = asc.LocalMemAllocator()
        assert allocator.get_cur_addr() == 0
        first = allocator.alloc(VECIN, asc.float32, 1024)
        second = allocator.alloc(asc.float32, 1024)  # no position: the vendor's default for UB, VECCALC
        tile_length = 48
        third = allocator.alloc(pos=VECIN, data_type=asc.float32, tile_size=tile_length)
        assert [(t.addr, t.tile_size, t.position) for t in (first, second, third)] == [
            (0, 1024, VECIN), (4096, 1024, VECCALC), (8192, 48, VECIN)]
        assert allocator.get_cur_addr() == 8192 + 4 * 48


@pytest.mark.parametrize(("dtype", "tile", "advance"), [
    (asc.int8, 3, 3), (asc.float16, 10, 20), (asc.int32, 7, 28), (asc.float64, 5, 40), (asc.int4b_t, 6, 3),
    (asc.int4b_t, 5, 2),  # 4 * 5 / 8 bytes, truncated as the vendor's integer division
])
def test_the_head_moves_by_the_tensor_bits_exactly(dtype, tile, advance):
    with asc.Core("950"):
        allocator = asc.LocalMemAllocator(hard=asc.Hardware.UB)
        allocator.alloc(VECOUT, dtype, tile)
        assert allocator.get_cur_addr() == advance
        assert allocator.alloc(VECOUT, asc.uint8, 1).addr == advance


def test_an_unaligned_head_gives_an_unaligned_tensor_that_instructions_reject():
    """No rounding to 32 bytes: 10 halves leave the head at byte 20, where Add's operands may not start."""
    with asc.Core("A2") as core:
        allocator = asc.LocalMemAllocator()
        x = allocator.alloc(VECIN, asc.float16, 10)
        y = allocator.alloc(VECIN, asc.float16, 128)
        assert y.addr == 20
        x.write(np.zeros(10, np.float16))
        assert_rejected(core, AlignmentError, lambda: asc.add(y, y, y, 128), "32")


def test_tensors_are_usable_by_instructions():
    with asc.Core("310P"):
        allocator = asc.LocalMemAllocator()
        x, y, z = (allocator.alloc(pos, asc.float32, 64) for pos in (VECIN, VECIN, VECOUT))
        x.write(np.arange(64, dtype=np.float32))
        y.write(np.full(64, 0.5, np.float32))
        asc.add(z, x, y, 64)
        assert z.read().tobytes() == (np.arange(64, dtype=np.float32) + np.float32(0.5)).tobytes()
        assert z.addr == 512


def test_constraints():
    with asc.Core("A2") as core:
        allocator = asc.LocalMemAllocator()
        allocator.alloc(VECIN, asc.uint8, 100)
        assert_rejected(core, ParameterRangeError, lambda: allocator.alloc(asc.TPosition.A1, asc.int8, 8),
                        "lie in the allocator's memory", operand="pos", value="A1")
        assert_rejected(core, ParameterRangeError, lambda: allocator.alloc(VECIN, asc.int8, 0), "tile_size",
                        operand="tile_size", value=0)
        left = 192 * 1024 - 100
        assert_rejected(core, OutOfBoundsError, lambda: allocator.alloc(VECIN, asc.int32, left // 4 + 1),
                        f"{left} UB bytes", operand="tile_size", allowed=f"at most {left // 4}")
        assert allocator.get_cur_addr() == 100  # rejected calls leave the head
        assert allocator.alloc(VECIN, asc.int32, left // 4).addr == 100  # the last bytes are allowed
        with pytest.raises(TypeError):
            allocator.alloc(VECIN, asc.int8, 1.5)
        with pytest.raises(TypeError):
            allocator.alloc(VECIN, "int8", 1)
        with pytest.raises(TypeError):
            allocator.alloc(VECIN, asc.int8)
        with pytest.raises(TypeError, match="repeated"):  # not the keyword's value silently taken
            allocator.alloc(VECIN, asc.int8, 32, tile_size=64)
        assert allocator.get_cur_addr() == 100 + left // 4 * 4
        with pytest.raises(TypeError):
            asc.LocalMemAllocator(hard=1)
        for hard in (asc.Hardware.GM, asc.Hardware.MAX):
            with pytest.raises(ParameterRangeError, match="no on-chip memory"):
                asc.LocalMemAllocator(hard=hard)
        with pytest.raises(UnsupportedError, match="Unified Buffer only"):
            asc.LocalMemAllocator(hard=asc.Hardware.L1)


def test_one_allocator_at_a_time_and_never_beside_a_tpipe():
    with asc.Core("A2"):
        allocator = asc.LocalMemAllocator()
        with pytest.raises(RuntimeMisuseError, match="one LocalMemAllocator"):
            asc.LocalMemAllocator()
        with pytest.raises(RuntimeMisuseError, match="not mixed with a LocalMemAllocator"):
            asc.TPipe()
        del allocator
        asc.LocalMemAllocator()  # the first one is gone: a new one may exist
    with asc.Core("A2"):
        pipe = asc.TPipe()
        with pytest.raises(RuntimeMisuseError, match="not mixed with a TPipe"):
            asc.LocalMemAllocator()
        pipe.destroy()
        allocator = asc.LocalMemAllocator()
        with pytest.raises(RuntimeMisuseError, match="not mixed with a LocalMemAllocator"):
            pipe.init()
        other = asc.Core("A2")
    with other:  # another core has its own memory and its own allocator
        asc.LocalMemAllocator()
        with pytest.raises(RuntimeMisuseError, match="another core"):
            allocator.alloc(VECIN, asc.int8, 32)


@pytest.mark.parametrize("chip", ["310B", "910", "KirinX90", "Kirin9030"])
def test_products_without_it(chip):
    with asc.Core(chip), pytest.raises(UnsupportedError, match="products that support it: 950, A3, A2, 310P, 310P-VEC"):
        asc.LocalMemAllocator()


def test_never_beside_local_tensor_auto_buffers():
    """pyasc's insert_sync makes LocalTensorAuto buffers TPipe buffers: the same rule as a TPipe (§5.36)."""
    with asc.Core("A2"):
        allocator = asc.LocalMemAllocator()
        with pytest.raises(RuntimeMisuseError, match="LocalTensorAuto or LocalMemAllocator"):
            LocalTensorAuto(asc.float16, 128)
        del allocator
        kept = LocalTensorAuto(asc.float16, 128)
        with pytest.raises(RuntimeMisuseError, match="LocalTensorAuto buffers"):
            asc.LocalMemAllocator()
        assert kept.tile_size == 128
