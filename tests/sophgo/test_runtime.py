"""Global memory, GDMA copies, tpu_bdc_set_C, tpu_initialize/tpu_poll: semantics and every rejection.

Expected values come from numpy (a copy is a gather with the documented strides) and from
sophgo-semantics §3.3; the cmodel-measured behaviour is replayed in ``test_runtime_oracle``.
Each rejection test checks the error class, the message and that no memory changed.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import sophgo as tpu
from npusim.errors import (
    AlignmentError,
    NoActiveCoreError,
    OutOfBoundsError,
    ParameterRangeError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
)

LMS = 262144  # BM1684X LOCAL_MEM_SIZE (§3.1)
GMEM = 1 << 20
D = tpu.dim4
RANDOM_BYTES = np.random.default_rng(7).integers(0, 256, 64 * LMS, dtype=np.uint8)


@pytest.fixture
def core():
    """A BM1684X core with 1 MiB of global memory, all of it and all of local memory written."""
    with tpu.Core("BM1684X", global_mem_bytes=GMEM) as c:
        c.lmem.write_bytes(0, RANDOM_BYTES)
        c.gmem.write_bytes(0, RANDOM_BYTES[-GMEM:])
        yield c


def state(c: tpu.Core):
    return c.lmem.snapshot(), c.gmem.snapshot()


def rejects(c: tpu.Core, error: type, call, *parts: str):
    before = state(c)
    with pytest.raises(error) as info:
        call()
    assert state(c) == before, "a rejected call changed memory"
    for part in parts:
        assert part in str(info.value), f"{part!r} missing from: {info.value}"
    return info.value


# ----------------------------------------------------------------------------- global memory


def test_write_and_read_global_round_trip_any_shape_and_dtype():
    with tpu.Core("BM1688", global_mem_bytes=GMEM) as c:
        x = np.arange(-50, 70, dtype=np.int16).reshape(3, 40)
        c.write_global(0x100, x)
        assert c.read_global(0x100, (3, 40), tpu.DT_INT16).tobytes() == x.tobytes()
        assert c.gmem.read_bytes(0x100, x.nbytes) == x.tobytes()  # contiguous, C order, little-endian
        c.write_global(0x400, [1.5, -2.0], tpu.DT_BFP16)
        assert c.read_global(0x400, 2, tpu.DT_BFP16).view(np.uint16).tolist() == [0x3FC0, 0xC000]


def test_strided_global_host_access_uses_the_element_stride():
    with tpu.Core("BM1684X", global_mem_bytes=GMEM) as c:
        x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
        c.write_global(0, x, stride=D(100, 50, 10, 2))
        flat = c.gmem.data[:400].view(np.float32)
        expected = np.zeros(100, np.float32)
        n, ch, h, w = np.meshgrid(*(np.arange(d) for d in x.shape), indexing="ij")
        expected[(n * 100 + ch * 50 + h * 10 + w * 2).ravel()] = x.ravel()
        written = c.gmem.written[:400].reshape(100, 4).all(axis=1)
        assert np.array_equal(flat[written], expected[written]) and written.sum() == 24
        assert c.read_global(0, x.shape, tpu.DT_FP32, stride=D(100, 50, 10, 2)).tobytes() == x.tobytes()


@pytest.mark.parametrize(
    ("call", "error", "parts"),
    [
        (lambda c: c.write_global(GMEM - 4, np.zeros(2, np.float32)), OutOfBoundsError,
         ("write_global", "past the end of global memory")),
        (lambda c: c.write_global(-8, np.zeros(2, np.float32)), OutOfBoundsError, ("not a global-memory address",)),
        (lambda c: c.write_global(2, np.zeros(2, np.float32)), AlignmentError, ("4-byte element",)),
        (lambda c: c.read_global(GMEM, 1, tpu.DT_INT8), OutOfBoundsError, ("read_global",)),
        (lambda c: c.read_global(0, 4, tpu.DT_INT4), UnsupportedError, ("no array storage",)),
        (lambda c: c.write_global(0, [1.5], tpu.DT_INT8), TypeError, ("integer",)),
        (lambda c: c.write_global(0, np.array(["a"])), TypeError, ("numeric dtype",)),
        (lambda c: c.write_global("0", np.zeros(2)), TypeError, ("addr",)),
        (lambda c: c.read_global(0, "4", tpu.DT_INT8), TypeError, ("shape",)),
        (lambda c: c.read_global(0, (2, 2), tpu.DT_INT8, stride=D(1, 1, 1, 1)), ValueError, ("4-D",)),
        (lambda c: c.read_global(0, (1, 1, 2, 2), tpu.DT_INT8, stride=(1, 1, 1, 1)), TypeError, ("stride",)),
    ],
)  # fmt: skip
def test_global_host_access_errors(core, call, error, parts):
    rejects(core, error, lambda: call(core), *parts)


def test_reading_never_written_global_memory_is_reported():
    with tpu.Core("BM1684X", global_mem_bytes=GMEM) as c:
        c.write_global(0, np.zeros(3, np.int8))
        with pytest.warns(UninitializedReadWarning, match="read_global: tensor reads never-written global memory "
                                                          "byte 0x3"):
            c.read_global(0, 4, tpu.DT_INT8)
    with tpu.Core("BM1684X", global_mem_bytes=GMEM, uninit="raise") as c, pytest.raises(UninitializedReadError):
        c.read_global(0, 1, tpu.DT_INT8)


# ----------------------------------------------------------------------------- GDMA semantics


def aligned_positions(addr: int, shape, n_stride_start_lane: int, size: int, eu_bytes: int = 64, npu: int = 64):
    """Flat local byte address of every element of an aligned-layout tensor (§3.3), NCHW order;
    the n stride is computed for ``n_stride_start_lane``."""
    s, base = divmod(addr, LMS)
    n, c, h, w = np.meshgrid(*(np.arange(d) for d in shape), indexing="ij")
    eu = eu_bytes // size
    cs = -(-(shape[2] * shape[3]) // eu) * eu
    ns = -(-(n_stride_start_lane + shape[1]) // npu) * cs
    lane = (s + c) % npu
    return (lane * LMS + base + size * (n * ns + ((s + c) // npu) * cs + h * shape[3] + w)).ravel()


def test_s2l_with_null_strides_lays_out_an_aligned_tensor_and_l2s_brings_it_back(core):
    x = np.random.default_rng(1).standard_normal((2, 100, 3, 5)).astype(np.float32)
    core.write_global(0x1000, x)
    tpu.tpu_gdma_cpy_S2L(0x400, 0x1000, D(*x.shape), None, None, tpu.DT_FP32)
    positions = aligned_positions(0x400, x.shape, 0, 4)
    got = np.stack([core.lmem.data[positions + k] for k in range(4)], axis=-1)
    assert got.tobytes() == x.tobytes()
    tpu.tpu_gdma_cpy_L2S(0x80000, 0x400, D(*x.shape), None, None, tpu.DT_FP32)
    assert core.read_global(0x80000, x.shape, tpu.DT_FP32).tobytes() == x.tobytes()


def test_null_local_stride_uses_start_lane_0_for_the_n_stride(core):
    """From lane 5 with C = 60: ceil((5+60)/64) = 2 slots for the BDC aligned layout, but the GDMA
    default n stride is ceil(60/64) = 1 slot (tpu_aligned_stride(&s, 0, ...); both cmodels agree)."""
    x = np.arange(2 * 60 * 3 * 5, dtype=np.int16).reshape(2, 60, 3, 5)
    core.write_global(0, x)
    addr = 5 * LMS + 0x100
    tpu.tpu_gdma_cpy_S2L(addr, 0, D(*x.shape), None, None, tpu.DT_INT16)
    gdma = aligned_positions(addr, x.shape, 0, 2)
    bdc = aligned_positions(addr, x.shape, 5, 2)
    assert not np.array_equal(gdma, bdc)
    assert np.stack([core.lmem.data[gdma + k] for k in range(2)], axis=-1).tobytes() == x.tobytes()
    # element (1, 0, 0, 0) is one 32-element channel slot after (0, 0, 0, 0), in lane 5
    assert core.local_bytes(5, 0x100 + 2 * 32, 2) == x[1, 0, 0, 0].tobytes()


def test_explicit_strides_on_both_sides_match_a_numpy_gather(core):
    shape, gstride, lstride = (2, 70, 2, 3), (900, 12, 5, 1), (300, 40, 8, 2)
    rng = np.random.default_rng(3)
    core.gmem.write_bytes(0, rng.integers(0, 256, 4 * 2000, dtype=np.uint8))
    tpu.tpu_gdma_cpy_S2L(64 * 7, 8, D(*shape), D(*lstride), D(*gstride), tpu.DT_UINT32)
    src = core.gmem.data[8 : 8 + 4 * 1900].view(np.uint32)
    n, c, h, w = np.meshgrid(*(np.arange(d) for d in shape), indexing="ij")
    expected = src[n * 900 + c * 12 + h * 5 + w]
    got = core.read_local(64 * 7, shape, tpu.DT_UINT32, layout=D(*lstride))
    assert got.tobytes() == expected.tobytes()


def test_coinciding_destination_elements_keep_the_last_in_nchw_order(core):
    """h stride 1 with w stride 1: (h=0, w=1..2) and (h=1, w=0..1) share places; the later one wins (cmodel)."""
    core.write_global(0, np.arange(6, dtype=np.int16))
    tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 2, 3), D(6, 6, 1, 1), None, tpu.DT_INT16)
    assert core.read_local(0, (1, 1, 1, 4), tpu.DT_INT16, layout="compact").ravel().tolist() == [0, 3, 4, 5]
    core.write_local(0, np.arange(6, dtype=np.int16).reshape(1, 1, 2, 3), tpu.DT_INT16)
    tpu.tpu_gdma_cpy_L2S(0x100, 0, D(1, 1, 2, 3), D(6, 6, 0, 1), None, tpu.DT_INT16)
    assert core.read_global(0x100, 3, tpu.DT_INT16).tolist() == [3, 4, 5]


def test_a_zero_global_source_stride_broadcasts(core):
    core.write_global(0, np.array([7, 8, 9], np.int8))
    tpu.tpu_gdma_cpy_S2L(0, 0, D(2, 3, 2, 3), None, D(0, 0, 0, 1), tpu.DT_INT8)
    assert np.array_equal(core.read_local(0, (2, 3, 2, 3), tpu.DT_INT8), np.broadcast_to([7, 8, 9], (2, 3, 2, 3)))


def test_gdma_reads_of_never_written_memory_are_reported():
    with tpu.Core("BM1684X", global_mem_bytes=GMEM) as c:
        c.write_global(0, np.zeros(5, np.int8))
        with pytest.warns(UninitializedReadWarning, match="tpu_gdma_cpy_S2L: src reads never-written global "
                                                          "memory byte 0x5"):
            tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 1, 6), None, None, tpu.DT_INT8)
        with pytest.warns(UninitializedReadWarning, match="tpu_gdma_cpy_L2S: src reads never-written local "
                                                          "memory byte 0x40000"):
            tpu.tpu_gdma_cpy_L2S(0x100, 0, D(1, 2, 1, 1), None, None, tpu.DT_INT8)


# ----------------------------------------------------------------------------- GDMA rejections

S2L, L2S = tpu.tpu_gdma_cpy_S2L, tpu.tpu_gdma_cpy_L2S


@pytest.mark.parametrize(
    ("call", "error", "parts"),
    [
        (lambda: S2L(0, 0, D(1, 1, 1, 4), None, None, tpu.DT_INT4), UnsupportedError,
         ("tpu_gdma_cpy_S2L: dtype = 'DT_INT4'", "DT_FP32")),
        (lambda: L2S(0, 0, D(1, 1, 1, 4), None, None, tpu.DT_FP8E4M3), UnsupportedError, ("DT_FP8E4M3",)),
        (lambda: S2L(0, 0, D(1, 1, 1, 4), None, None, 99), UnsupportedError, ("dtype = 99", "data_type_t")),
        (lambda: S2L(0, 0, D(1, 0, 1, 4), None, None, tpu.DT_INT8), ParameterRangeError,
         ("shape.c = 0", "[1, 2147483647]")),
        (lambda: L2S(0, 0, D(0, 1, 1, 4), None, None, tpu.DT_INT8), ParameterRangeError, ("shape.n = 0",)),
        (lambda: S2L(0, 0, D(1, 1, 1, 4), D(4, 4, 4, 0), None, tpu.DT_INT8), ParameterRangeError,
         ("dst_stride.w = 0", "[1, 128]", "128 bytes on BM1684X")),
        (lambda: S2L(0, 0, D(1, 1, 1, 4), None, D(4, 4, 4, 33), tpu.DT_FP32), ParameterRangeError,
         ("src_stride.w = 33", "[1, 32]")),
        (lambda: L2S(0, 0, D(1, 1, 2, 4), D(8, 8, -4, 1), None, tpu.DT_INT8), ParameterRangeError,
         ("dst_stride.h = -4", "[0, 2147483647]")),
        (lambda: S2L(1, 0, D(1, 1, 1, 4), None, None, tpu.DT_INT16), AlignmentError,
         ("dst address = 0x1", "2-byte element", "multiples of 2")),
        (lambda: L2S(2, 0, D(1, 1, 1, 4), None, None, tpu.DT_FP32), AlignmentError, ("dst address = 0x2",)),
        (lambda: S2L(64 * LMS, 0, D(1, 1, 1, 4), None, None, tpu.DT_INT8), OutOfBoundsError,
         ("dst address = 0x1000000", "not a local address")),
        (lambda: L2S(0, LMS - 8, D(1, 1, 1, 16), None, None, tpu.DT_INT8), OutOfBoundsError,
         ("src address", "past the end of the lane")),
        (lambda: S2L(0, GMEM - 8, D(1, 1, 1, 16), None, None, tpu.DT_INT8), OutOfBoundsError,
         ("src address", "past the end of global memory", "0x100000")),
        (lambda: L2S(-64, 0, D(1, 1, 1, 4), None, None, tpu.DT_INT8), OutOfBoundsError,
         ("not a global-memory address",)),
    ],
)  # fmt: skip
def test_gdma_rejections(core, call, error, parts):
    rejects(core, error, call, *parts)


def test_bm1688_w_stride_limit_is_64_bytes():
    with tpu.Core("BM1688", global_mem_bytes=GMEM) as c:
        c.write_global(0, np.zeros(64, np.int16))
        tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 1, 2), D(64, 64, 64, 32), None, tpu.DT_INT16)  # 64 bytes: fine
        rejects(c, ParameterRangeError, lambda: tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 1, 2), D(66, 66, 66, 33), None,
                                                                     tpu.DT_INT16), "[1, 32]", "64 bytes on BM1688")


def test_sg2260_gdma_takes_w_strides_of_0_and_beyond_128_bytes_and_moves_fp8():
    """Measured on the SG2260 emulator (runtime_oracle_sg2260.json.gz), where the BM cmodels assert."""
    with tpu.Core("SG2260", global_mem_bytes=GMEM) as c:
        c.write_global(0, np.array([7, 8, 9, 10], np.uint8))
        tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 2, 3), D(6, 6, 3, 1), D(4, 4, 1, 0), tpu.DT_FP8E4M3)  # read 3 times
        assert c.local_bytes(0, 0, 6) == bytes([7, 7, 7, 8, 8, 8])
        tpu.tpu_gdma_cpy_L2S(0x100, 0, D(1, 1, 2, 3), D(8, 8, 1, 0), D(6, 6, 3, 1), tpu.DT_FP8E5M2)
        assert c.read_global(0x100, 2, tpu.DT_UINT8).tolist() == [7, 8]  # the last of each row's writes
        tpu.tpu_gdma_cpy_L2S(0x200, 0, D(1, 1, 1, 2), D(1000, 1000, 1000, 500), None, tpu.DT_INT16)
        assert c.read_global(0x200 + 1000, 1, tpu.DT_UINT16).tolist() == [0x0807]  # local bytes 2-3
    with tpu.Core("BM1684X", global_mem_bytes=GMEM) as c:
        c.write_global(0, np.zeros(64, np.uint8))
        for stride in (D(4, 4, 1, 0), D(400, 400, 200, 65)):
            rejects(c, ParameterRangeError, lambda s=stride: tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 2, 3), None, s,
                                                                                  tpu.DT_INT16), "src_stride.w")
        rejects(c, UnsupportedError, lambda: tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 1, 3), None, None, tpu.DT_FP8E4M3),
                "DT_FP8E4M3", "on BM1684X")


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("0", 0, D(1, 1, 1, 1), None, None, tpu.DT_INT8), "dst_addr"),
        ((0, 1.0, D(1, 1, 1, 1), None, None, tpu.DT_INT8), "src_addr"),
        ((0, 0, (1, 1, 1, 1), None, None, tpu.DT_INT8), "shape"),
        ((0, 0, D(1, 1, 1, 1), [1, 1, 1, 1], None, tpu.DT_INT8), "dst_stride"),
        ((0, 0, D(1, 1, 1, 1), None, "x", tpu.DT_INT8), "src_stride"),
        ((0, 0, D(1, 1, 1, 1), None, None, "DT_INT8"), "dtype"),
    ],
)
def test_gdma_wrong_python_types_are_type_errors(core, args, name):
    err = rejects(core, TypeError, lambda: tpu.tpu_gdma_cpy_S2L(*args), name)
    assert "tpu_gdma_cpy_S2L" in str(err)


# ----------------------------------------------------------------------------- tpu_bdc_set_C


def test_set_c_fills_the_aligned_layout_of_its_start_lane_with_the_low_bits():
    with tpu.Core("BM1684X") as c:
        addr = 5 * LMS + 0x200
        tpu.tpu_bdc_set_C(addr, tpu.scalar_t(u32=0xDEAD3C00), D(2, 70, 2, 3), None, tpu.DT_FP16)
        positions = aligned_positions(addr, (2, 70, 2, 3), 5, 2)  # BDC layout: the address's own lane
        assert np.all(c.lmem.data[positions] == 0x00) and np.all(c.lmem.data[positions + 1] == 0x3C)
        assert int(c.lmem.written.sum()) == 2 * 70 * 2 * 3 * 2  # padding untouched


def test_set_c_free_layout_and_zero_stride_on_an_axis_of_extent_one():
    with tpu.Core("BM1688") as c:
        tpu.tpu_bdc_set_C(0x10, tpu.scalar_t(s8=-3), D(1, 1, 3, 1), D(0, 5, 4, 0), tpu.DT_INT8)
        assert c.lmem.data[0x10:0x1C].tolist() == [253, 0, 0, 0] * 2 + [253, 0, 0, 0]
        assert np.flatnonzero(c.lmem.written).tolist() == [0x10, 0x14, 0x18]


SET_C = tpu.tpu_bdc_set_C


@pytest.mark.parametrize(
    ("call", "error", "parts"),
    [
        (lambda: SET_C(0, tpu.scalar_t(u32=1), D(1, 1, 1, 4), None, tpu.DT_FP8E5M2), UnsupportedError,
         ("tpu_bdc_set_C: dtype = 'DT_FP8E5M2'", "not supported")),
        (lambda: SET_C(0, tpu.scalar_t(u32=1), D(1, 1, 1, 65536), None, tpu.DT_INT8), ParameterRangeError,
         ("shape.w = 65536", "[1, 65535]")),
        (lambda: SET_C(32, tpu.scalar_t(u32=1), D(1, 1, 1, 4), None, tpu.DT_INT8), AlignmentError,
         ("dst address = 0x20", "64-byte (EU) aligned", "multiples of 64")),
        (lambda: SET_C(2, tpu.scalar_t(u32=1), D(1, 1, 1, 4), D(4, 4, 4, 1), tpu.DT_FP32), AlignmentError,
         ("4-byte element",)),
        (lambda: SET_C(0, tpu.scalar_t(u32=1), D(1, 1, 1, 1), D(1, 1, 1 << 18, 1), tpu.DT_INT8),
         ParameterRangeError, ("dst_stride.h = 262144", "[0, 262143]")),
        (lambda: SET_C(0, tpu.scalar_t(u32=1), D(2, 1, 1, 1), D(-1, 1, 1, 1), tpu.DT_INT8), ParameterRangeError,
         ("dst_stride.n = -1",)),
        (lambda: SET_C(0, tpu.scalar_t(u32=1), D(1, 3, 1, 1), D(8, 0, 1, 1), tpu.DT_INT8), ParameterRangeError,
         ("dst_stride.c = 0", "shape.c == 1")),
        (lambda: SET_C(LMS - 64, tpu.scalar_t(u32=1), D(1, 1, 1, 65), None, tpu.DT_INT8), OutOfBoundsError,
         ("past the end of the lane",)),
        (lambda: SET_C(0, 1.0, D(1, 1, 1, 1), None, tpu.DT_FP32), TypeError, ("C must be a scalar_t",)),
        (lambda: SET_C(0, tpu.scalar_t(u32=1), (1, 1, 1, 1), None, tpu.DT_FP32), TypeError, ("shape",)),
        (lambda: SET_C(None, tpu.scalar_t(u32=1), D(1, 1, 1, 1), None, tpu.DT_FP32), TypeError, ("dst_addr",)),
    ],
)  # fmt: skip
def test_set_c_rejections(core, call, error, parts):
    rejects(core, error, call, *parts)


def test_sg2260_set_c_writes_fp8_and_takes_zero_strides_on_any_axis():
    """Measured on the SG2260 emulator, where the BM cmodels assert dst_shape[i] == 1 for a zero stride."""
    with tpu.Core("SG2260") as c:
        tpu.tpu_bdc_set_C(0x40, tpu.scalar_t(u32=0x1234567E), D(1, 1, 2, 3), D(8, 8, 4, 0), tpu.DT_FP8E4M3)
        assert np.flatnonzero(c.lmem.written).tolist() == [0x40, 0x44]
        assert c.local_bytes(0, 0x40, 5) == b"\x7e\x00\x00\x00\x7e"
        tpu.tpu_bdc_set_C(0x80, tpu.scalar_t(u8=0x3C), D(1, 70, 1, 1), D(1, 0, 1, 1), tpu.DT_FP8E5M2)
        assert [c.local_bytes(lane, 0x80, 1) for lane in (0, 5, 63)] == [b"\x3c"] * 3
    with tpu.Core("BM1684X") as c:
        rejects(c, ParameterRangeError, lambda: SET_C(0x40, tpu.scalar_t(u8=1), D(1, 1, 2, 3), D(8, 8, 4, 0),
                                                      tpu.DT_INT8), "dst_stride.w = 0", "shape.w == 1")


def test_bm1688_set_c_strides_have_no_18_bit_limit():
    with tpu.Core("BM1688") as c:
        tpu.tpu_bdc_set_C(0, tpu.scalar_t(u8=9), D(1, 1, 1, 1), D(1 << 20, 1 << 20, 1 << 18, 1), tpu.DT_UINT8)
        assert c.local_bytes(0, 0, 1) == b"\x09"


# ----------------------------------------------------------------------------- kernel frame


def test_initialize_and_poll_need_an_active_core_and_record_that_they_ran():
    for fn in (tpu.tpu_initialize, tpu.tpu_poll, lambda: tpu.tpu_gdma_cpy_S2L(0, 0, D(1, 1, 1, 1), None, None, 1),
               lambda: tpu.tpu_bdc_set_C(0, tpu.scalar_t(), D(1, 1, 1, 1), None, 1)):
        with pytest.raises(NoActiveCoreError, match="no Sophgo core is active"):
            fn()
    with tpu.Core() as c:
        assert not c.initialized and c.polls == 0
        tpu.tpu_initialize()
        tpu.tpu_poll()
        tpu.tpu_poll()
        assert c.initialized and c.polls == 2


def test_default_chip_is_bm1684x_and_can_be_changed_for_a_block():
    assert tpu.Core().chip.name == "BM1684X" == tpu.get_default_chip().name
    with tpu.using_chip("bm1688"):
        assert tpu.Core().chip.name == "BM1688"
    assert tpu.Core().chip.name == "BM1684X"
    with pytest.raises(UnsupportedError, match="unknown Sophgo chip"):
        tpu.set_default_chip("A2")


def test_global_memory_size_is_checked_when_the_core_is_made():
    with pytest.raises(ParameterRangeError, match="global_mem_bytes = 12: is not a multiple of 8"):
        tpu.Core(global_mem_bytes=12)
    with pytest.raises(ParameterRangeError, match="global_mem_bytes = -8"):
        tpu.Core(global_mem_bytes=-8)
    with pytest.raises(TypeError, match="global_mem_bytes"):
        tpu.Core(global_mem_bytes="1")


def test_global_memory_beyond_the_limit_is_rejected_when_the_core_is_made():
    """1 TiB was accepted and then failed with MemoryError on the first write (issue 11)."""
    with pytest.raises(ParameterRangeError) as info:
        tpu.Core("SG2260", global_mem_bytes=1 << 40)
    err = info.value
    assert (err.instruction, err.operand, err.value) == ("tpu.Core", "global_mem_bytes", 1 << 40)
    assert err.allowed == f"[8, {tpu.MAX_GLOBAL_MEM_BYTES}]" and "4 GiB" in err.rule
    assert tpu.Core(global_mem_bytes=tpu.MAX_GLOBAL_MEM_BYTES).global_mem_bytes == 1 << 32  # the limit: fine
    with pytest.raises(ParameterRangeError, match="global_mem_bytes = 4294967304"):
        tpu.Core(global_mem_bytes=tpu.MAX_GLOBAL_MEM_BYTES + 8)


def test_global_memory_the_machine_cannot_allocate_is_a_constraint_error(monkeypatch):
    """Inside the limit, an allocation the machine refuses is reported as such, not as MemoryError."""
    import npusim.memory

    def refuse(size):
        raise MemoryError(f"Unable to allocate {size} bytes")

    core = tpu.Core(global_mem_bytes=1 << 32)
    monkeypatch.setattr(npusim.memory, "zeroed_bytes", refuse)  # global memory is made on first use
    with core, pytest.raises(ParameterRangeError) as info:
        core.write_global(0, np.zeros(4, np.int8))
    err = info.value
    assert (err.instruction, err.operand, err.value) == ("tpu.Core", "global_mem_bytes", 1 << 32)
    assert "cannot be allocated" in err.rule and "smaller global_mem_bytes" in err.allowed
