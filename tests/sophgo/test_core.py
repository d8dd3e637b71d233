"""Core: lane-major local memory, lazy global memory, active-core context, host access."""

from __future__ import annotations

import struct

import ml_dtypes
import numpy as np
import pytest

from npusim import sophgo as tpu
from npusim.errors import (
    AlignmentError,
    NoActiveCoreError,
    OutOfBoundsError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
)

from .helpers import S, T


def test_local_memory_is_lane_major_and_flat():
    core = tpu.Core("BM1688")
    assert core.lmem.size_bytes == 32 * 128 * 1024
    core.write_local_bytes(3, 0x10, b"\xab")
    assert core.lmem.data[3 * 128 * 1024 + 0x10] == 0xAB  # flat index == local address


def test_global_memory_is_created_on_first_use():
    core = tpu.Core("BM1684X", global_mem_bytes=1 << 20)
    assert "gmem" not in vars(core)
    assert core.gmem.size_bytes == 1 << 20 and core.gmem is core.gmem
    assert tpu.Core("bm1684x").global_mem_bytes == 256 * 1024 * 1024


def test_active_core_context_nests_and_restores():
    outer, inner = tpu.Core("BM1684X"), tpu.Core("BM1688")
    with outer:
        assert tpu.tpu_npu_num() == 64
        with inner:
            assert tpu.tpu_npu_num() == 32
            with outer:
                assert tpu.tpu_npu_num() == 64
            assert tpu.tpu_npu_num() == 32
        assert tpu.tpu_npu_num() == 64
    with pytest.raises(NoActiveCoreError):
        tpu.tpu_npu_num()


def test_instructions_act_on_the_innermost_core():
    a, b = tpu.Core("BM1684X"), tpu.Core("BM1684X")
    with a, b:
        tpu.tpu_bdc_equal_select(0x0, S(1), S(1), S(7), S(9), tpu.dim4(1, 1, 1, 1), tpu.DT_INT8, tpu.DT_INT8)
    assert b.local_bytes(0, 0, 1) == b"\x07" and not a.lmem.written.any()


def test_core_exits_cleanly_on_exceptions():
    with pytest.raises(RuntimeError), tpu.Core("BM1684X"):
        raise RuntimeError
    with pytest.raises(NoActiveCoreError):
        tpu.tpu_npu_num()


def test_big_endian_arrays_are_stored_as_their_values():
    """Every host write takes a big-endian array's values, stored little-endian as the memories hold them."""
    values = [0.0, 1.0, -2.5, 3.0]
    big = np.array(values, dtype=">f4")
    little = struct.pack("<4f", *values)
    with tpu.Core("BM1684X", global_mem_bytes=1 << 20) as core:
        core.write_global(0, big)  # without dtype: the array's own elements (was stored byte-swapped)
        core.write_global(64, big, tpu.DT_FP32)
        core.write_global(128, big.reshape(1, 1, 2, 2), stride=tpu.dim4(4, 4, 2, 1))
        core.write_local(0, big.reshape(1, 1, 1, 4), tpu.DT_FP32)
        core.write_local_bytes(1, 0, big)
        assert [core.gmem.read_bytes(addr, 16) for addr in (0, 64, 128)] == [little] * 3
        assert core.read_global(0, 4, tpu.DT_FP32).tobytes() == little
        assert core.local_bytes(0, 0, 16) == little and core.local_bytes(1, 0, 16) == little


# ------------------------------------------------------------------ write_local / read_local

DTYPES = [
    (tpu.DT_INT8, np.int8), (tpu.DT_UINT8, np.uint8), (tpu.DT_INT16, np.int16),
    (tpu.DT_UINT16, np.uint16), (tpu.DT_INT32, np.int32), (tpu.DT_UINT32, np.uint32),
    (tpu.DT_FP16, np.float16), (tpu.DT_FP32, np.float32),
    (tpu.DT_BFP16, ml_dtypes.bfloat16), (tpu.DT_FP8E4M3, ml_dtypes.float8_e4m3fn),
    (tpu.DT_FP8E5M2, ml_dtypes.float8_e5m2),
]  # fmt: skip


@pytest.mark.parametrize(("dtype", "np_dtype"), DTYPES, ids=[d.name for d, _ in DTYPES])
@pytest.mark.parametrize("layout", tpu.LAYOUTS)
def test_write_read_round_trip_keeps_every_bit(dtype, np_dtype, layout):
    shape = (2, 37, 3, 5)
    size = np.dtype(np_dtype).itemsize
    bits = np.random.default_rng(1).integers(0, 256**size, shape, dtype=np.uint64).astype(f"<u{size}")
    with tpu.Core("BM1688") as core:
        addr = 20 * core.chip.local_mem_bytes + 0x40
        core.write_local(addr, bits.view(np_dtype), dtype, layout=layout)
        got = core.read_local(addr, shape, dtype, layout=layout)
    assert got.dtype == np.dtype(np_dtype) and np.array_equal(got.view(bits.dtype), bits)


def test_write_local_converts_values():
    with tpu.Core("BM1684X") as core:
        core.write_local(0, [[[[1, -2, 3]]]], tpu.DT_INT8)
        core.write_local(0x40, [[[[1.5, -0.1, 1e6]]]], tpu.DT_FP16)
        core.write_local(0x80, np.array([[[[1 + 2**-8 + 2**-30]]]]), tpu.DT_BFP16)
        assert core.read_local(0, (1, 1, 1, 3), tpu.DT_INT8).ravel().tolist() == [1, -2, 3]
        got = core.read_local(0x40, (1, 1, 1, 3), tpu.DT_FP16).view(np.uint16).ravel().tolist()
        assert got == np.array([1.5, -0.1, np.inf], np.float16).view(np.uint16).tolist()
        assert core.read_local(0x80, (1, 1, 1, 1), tpu.DT_BFP16).view(np.uint16).item() == 0x3F81


def test_write_local_writes_only_the_elements():
    """Padding of an aligned tensor (here 64 - 3*4 bytes per channel) is never touched."""
    with tpu.Core("BM1684X") as core:
        core.write_local(0, np.ones((1, 2, 1, 3), np.float32), tpu.DT_FP32)
        assert core.lmem.written[:64].tolist() == [1] * 12 + [0] * 52
        assert core.lmem.written[core.chip.local_mem_bytes : core.chip.local_mem_bytes + 64].sum() == 12


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda c: c.write_local(2, np.zeros((1, 1, 1, 1), np.float32), tpu.DT_FP32), AlignmentError,
         "4-byte"),
        (lambda c: c.write_local(-4, np.zeros((1, 1, 1, 1), np.int8), tpu.DT_INT8), OutOfBoundsError, "addr"),
        (lambda c: c.write_local(64 * 262144, np.zeros((1, 1, 1, 1), np.int8), tpu.DT_INT8), OutOfBoundsError,
         "not a local address"),
        (lambda c: c.write_local(262144 - 8, np.zeros((1, 1, 1, 9), np.int8), tpu.DT_INT8), OutOfBoundsError,
         "past the end of the lane"),
        (lambda c: c.write_local(0, np.zeros((1, 1, 1, 1)), tpu.DT_INT4), UnsupportedError,
         "no array storage"),
        (lambda c: c.write_local(0, [[[[300]]]], tpu.DT_INT8), ValueError, "do not fit"),
        (lambda c: c.write_local(0, [[[[1.5]]]], tpu.DT_INT8), TypeError, "integer"),
        (lambda c: c.write_local(0, np.zeros((2, 2)), tpu.DT_FP32), ValueError, "4-D"),
        (lambda c: c.write_local("0", np.zeros((1, 1, 1, 1)), tpu.DT_FP32), TypeError, "addr"),
        (lambda c: c.read_local(0, (1, 1, 1), tpu.DT_FP32), TypeError, "shape"),
        (lambda c: c.read_local(0, (1, 0, 1, 1), tpu.DT_FP32), ValueError, ">= 1"),
        (lambda c: c.local_bytes(64, 0, 1), OutOfBoundsError, "lane"),
        (lambda c: c.local_bytes(0, 262144 - 1, 2), OutOfBoundsError, "leave the lane"),
        (lambda c: c.write_local_bytes(0, -1, b"x"), OutOfBoundsError, "leave the lane"),
    ],
)  # fmt: skip
def test_host_access_errors(call, error, match):
    with tpu.Core("BM1684X") as core:
        before = core.lmem.snapshot()
        with pytest.raises(error, match=match):
            call(core)
        assert core.lmem.snapshot() == before


# ------------------------------------------------------------------ never-written memory


def test_read_local_warns_about_never_written_bytes():
    with tpu.Core("BM1684X") as core:
        core.write_local(0, np.zeros((1, 1, 1, 2), np.int8), tpu.DT_INT8)
        with pytest.warns(
            UninitializedReadWarning, match="read_local: tensor reads never-written local memory"
        ):
            core.read_local(0, (1, 1, 1, 3), tpu.DT_INT8)


def test_instruction_names_operand_and_first_address_of_a_never_written_read():
    with tpu.Core("BM1684X") as core:
        core.write_local(0x0, np.zeros((1, 3, 1, 4), np.float32), tpu.DT_FP32)
        core.write_local(
            0x100, np.zeros((1, 3, 1, 3), np.float32), tpu.DT_FP32
        )  # one element short per channel
        before = core.lmem.snapshot()
        with pytest.warns(UninitializedReadWarning, match=r"tpu_bdc_less_select: src1 .* byte 0x10c"):
            tpu.tpu_bdc_less_select(0x200, T(0x0), T(0x100), S(1), S(2), tpu.dim4(1, 3, 1, 4),
                                    tpu.DT_FP32, tpu.DT_FP32)  # fmt: skip
        assert core.lmem.snapshot() != before  # a warning, not an error: the instruction ran


def test_strict_mode_raises_and_leaves_memory_unchanged():
    with tpu.Core("BM1684X", uninit="raise") as core:
        core.write_local(0x0, np.zeros((1, 1, 1, 4), np.float32), tpu.DT_FP32)
        before = core.lmem.snapshot()
        with pytest.raises(UninitializedReadError):
            tpu.tpu_bdc_greater_select(0x200, T(0x0), T(0x100), S(1), S(2), tpu.dim4(1, 1, 1, 4),
                                       tpu.DT_FP32, tpu.DT_FP32)  # fmt: skip
        assert core.lmem.snapshot() == before


def test_vector_operand_reads_are_checked_too():
    with tpu.Core("BM1684X") as core:
        core.write_local_bytes(0, 0x40, b"\x01")
        with pytest.warns(
            UninitializedReadWarning, match="src0 reads never-written local memory byte 0x40040"
        ):
            tpu.tpu_bdc_greater_select(0x200, tpu.variable_t(type=tpu.VECTOR, addr=0x40), S(0), S(1), S(2),
                                       tpu.dim4(1, 2, 1, 1), tpu.DT_INT8, tpu.DT_INT8)  # fmt: skip
