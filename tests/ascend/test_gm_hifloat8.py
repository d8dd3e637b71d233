"""hifloat8_t in global memory on the 950 (docs/semantics.md §5.32, "hifloat8_t in GM"): ``gm_codes`` over a
caller's uint8 array of codes and ``gm_alloc(asc.hifloat8, n)``; host writes take exactly the type's values
(checked against the tests' own code table, ``hifloat8_reference``), host reads give them back as float32; the
950's GM copies that list hifloat8_t (DataCopy's count and DataCopyParams forms: GM与UB连续 / 高维切分数据搬运
(DataCopy).md, b8; the slice and ND2NZ pages; the C API's asc_copy_gm2ub_align / asc_copy_ub2gm_align, arch 3510)
move the codes unchanged, so each expectation is a numpy copy of the code bytes.  Other products, DataCopyPad
and NZ2ND (8-bit rows not modelled) reject it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, ParameterRangeError, RuntimeMisuseError, UnsupportedError

from . import hifloat8_reference as ref
from .conftest import assert_rejected
from .test_move_c_api_gm import align32, ref_bursts, ref_padded

H8 = asc.hifloat8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
ALL_CODES = np.arange(256, dtype=np.uint8)
SETTINGS = settings(max_examples=25, deadline=None)


def _codes(seed: int, n: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)


def _gm(codes: np.ndarray, dtype=H8) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(asc.gm_codes(codes, dtype))
    return g


CODED = [H8, asc.fp8_e8m0_t]  # the 950's coded types, whose GM pages list both (§5.32, §5.34)


def _reference_values() -> np.ndarray:
    """The 256 codes' values, from the reference table (float64; NaN and ±infinity as floats)."""
    special = {"nan": math.nan, "+inf": math.inf, "-inf": -math.inf}
    return np.array([special[v] if isinstance(v, str) else float(v) for v in ref.VALUES])


# ------------------------------------------------------------------ host write and read
def test_host_write_stores_each_value_as_its_code_and_read_gives_it_back():
    values = _reference_values()
    address = asc.gm_alloc(H8, 256)
    address.write(values)
    assert address.buffer.memory.data[:256].tobytes() == bytes(range(256))
    got = address.read()
    assert got.dtype == np.float32
    assert np.array_equal(got.astype(np.float64), values, equal_nan=True)
    assert np.array_equal(np.isnan(got), np.isnan(values))
    (address + 10).write([-0.0, 14.0])  # no negative zero: -0.0 is the code 0x00; 14 is 图10's 0x2E
    assert address.buffer.memory.data[10:12].tobytes() == bytes([0x00, 0x2E])
    assert (address + 10).read(2).tolist() == [0.0, 14.0]


def test_gm_codes_is_the_callers_array():
    """Writes through the address land in the array as codes; the array's codes read as their values."""
    codes = ALL_CODES.copy()
    address = asc.gm_codes(codes, H8)
    assert np.array_equal(address.read().astype(np.float64), _reference_values(), equal_nan=True)
    (address + 3).write([2.0 ** -22, -32768.0, math.inf])
    assert codes[3:6].tolist() == [0x01, 0xEE, 0x6F]
    strided = np.zeros(8, np.uint8)[::2]  # not contiguous: reached through a host copy, writes land at once
    asc.gm_codes(strided, H8).write([1.0, 2.0])
    assert strided[:2].tolist() == [0x08, 0x10]


def test_host_write_rejects_what_the_type_does_not_hold_and_writes_nothing():
    codes = _codes(1, 64)
    before = codes.copy()
    address = asc.gm_codes(codes, H8)
    with pytest.raises(ParameterRangeError) as caught:
        address.write([1.0, 0.3])
    assert "0.3" in str(caught.value) and "§5.32" in str(caught.value) and caught.value.value == 0.3
    with pytest.raises(ParameterRangeError, match="holds no such value"):
        address.write([2.0 ** 16])
    with pytest.raises(OutOfBoundsError):
        (address + 60).write([1.0] * 5)
    readonly = codes.copy()
    readonly.flags.writeable = False
    with pytest.raises(RuntimeMisuseError):
        asc.gm_codes(readonly, H8).write([1.0])
    assert np.array_equal(codes, before)


def test_gm_codes_takes_only_uint8_codes_and_a_coded_type():
    for wrong in (np.zeros(4, np.float32), np.zeros(4, np.int8), np.zeros(4, np.uint16)):
        with pytest.raises(UnsupportedError, match="uint8"):
            asc.gm_codes(wrong, H8)
    with pytest.raises(TypeError):
        asc.gm_codes([1, 2, 3], H8)
    with pytest.raises(TypeError):
        asc.gm_codes(np.zeros(4, np.uint8), "hifloat8")
    with pytest.raises(UnsupportedError, match="set_global_buffer"):
        asc.gm_codes(np.zeros(4, np.uint8), asc.uint8)


def test_gm_codes_over_a_torch_tensor():
    torch = pytest.importorskip("torch")
    tensor = torch.zeros(8, dtype=torch.uint8)
    asc.gm_codes(tensor, H8).write([1.0, -1.0])
    assert tensor[:2].tolist() == [0x08, 0x88]
    with pytest.raises(UnsupportedError, match="uint8"):
        asc.gm_codes(torch.zeros(8, dtype=torch.int8), H8)


def test_scalar_access_is_not_modelled_in_gm_either():
    with asc.Core("950") as core:
        g = _gm(_codes(2, 64))
        assert_rejected(core, UnsupportedError, lambda: g.get_value(0), "not modelled", "§5.32")
        assert_rejected(core, UnsupportedError, lambda: g.set_value(0, 1.0), "not modelled")


# ------------------------------------------------------------------ DataCopy GM <-> UB
def test_data_copy_count_moves_every_code_both_ways():
    """GM -> UB -> GM with the count form: all 256 codes (NaN 0x80, ±infinity 0x6F / 0xEF) unchanged."""
    out = np.zeros(256, np.uint8)
    with asc.Core("950") as core:
        ub = asc.LocalTensor(H8, VECIN, 0, 256)
        asc.data_copy(ub, _gm(ALL_CODES.copy()), 256)
        assert core.ub_read(0, 256) == ALL_CODES.tobytes()
        asc.data_copy(_gm(out), ub, 256)
    assert out.tobytes() == ALL_CODES.tobytes()


@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(1, 3), st.integers(0, 2), st.integers(0, 2))
@SETTINGS
def test_data_copy_params_gm_to_ub_and_back(seed, block_count, block_len, src_gap, dst_gap):
    """DataCopyParams: block i (block_len DataBlocks) from GM i*(block_len+src_gap)*32 to UB
    i*(block_len+dst_gap)*32, and back with the gaps' roles swapped; bytes between blocks untouched."""
    run = block_len * 32
    gm_bytes, ub_bytes = block_count * (run + src_gap * 32), block_count * (run + dst_gap * 32)
    codes = _codes(seed, gm_bytes)
    expected_ub = np.full(ub_bytes, 0xEE, np.uint8)
    for i in range(block_count):
        expected_ub[i * (run + dst_gap * 32):][:run] = codes[i * (run + src_gap * 32):][:run]
    out = np.full(gm_bytes, 0x80, np.uint8)
    expected_gm = out.copy()
    for i in range(block_count):
        expected_gm[i * (run + src_gap * 32):][:run] = expected_ub[i * (run + dst_gap * 32):][:run]
    with asc.Core("950") as core:
        core.ub_write(0, bytes([0xEE]) * ub_bytes)
        ub = asc.LocalTensor(H8, VECIN, 0, ub_bytes)
        asc.data_copy(ub, _gm(codes), asc.DataCopyParams(block_count, block_len, src_gap, dst_gap))
        assert core.ub_read(0, ub_bytes) == expected_ub.tobytes()
        asc.data_copy(_gm(out), ub, asc.DataCopyParams(block_count, block_len, dst_gap, src_gap))
    assert out.tobytes() == expected_gm.tobytes()


def test_data_copy_from_gm_alloc_after_a_host_write():
    address = asc.gm_alloc(H8, 32)
    address.write([1.5, -6.0, math.nan] + [0.0] * 29)
    with asc.Core("950") as core:
        g = asc.GlobalTensor()
        g.set_global_buffer(address, 32)
        asc.data_copy(asc.LocalTensor(H8, VECIN, 0, 32), g, 32)
        # the reference table's codes: 1.5 = 0 0001 100, -6 = -1.5 * 2**2 = 1 01 00 100, NaN 0x80
        assert core.ub_read(0, 3) == bytes([ref.VALUES.index(Fraction(3, 2)), ref.VALUES.index(-6), ref.NAN])
        assert [ref.VALUES.index(Fraction(3, 2)), ref.VALUES.index(-6)] == [0b0_0001_100, 0b1_01_00_100]


def test_a_kernel_reads_and_writes_hifloat8_gm():
    """A launch: the codes array in, a gm_alloc workspace out (the host reads its values)."""
    codes = _codes(3, 512)
    out = asc.gm_alloc(H8, 512)

    @asc.jit
    def kernel(x: asc.GlobalAddress, y: asc.GlobalAddress):
        x_gm, y_gm = asc.GlobalTensor(), asc.GlobalTensor()
        x_gm.set_global_buffer(x + asc.get_block_idx() * 256, 256)
        y_gm.set_global_buffer(y + asc.get_block_idx() * 256, 256)
        ub = asc.LocalTensor(H8, VECIN, 0, 256)
        asc.data_copy(ub, x_gm, 256)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(y_gm, ub, 256)

    kernel.launch(2, (asc.gm_codes(codes, H8), out), chip="950")
    assert out.buffer.memory.data.tobytes() == codes.tobytes()
    assert np.array_equal(out.read().astype(np.float64), _reference_values()[codes], equal_nan=True)


def _same_call_as_uint8(call, gm_codes_in: np.ndarray, ub_bytes: int, coded=H8) -> tuple[bytes, bytes]:
    """``call(ub, g)`` on ``coded`` operands and on uint8 operands over the same bytes: the UB images."""
    images = []
    for dtype in (coded, asc.uint8):
        with asc.Core("950") as core:
            core.ub_write(0, bytes([0x5A]) * ub_bytes)
            ub = asc.LocalTensor(dtype, VECIN, 0, ub_bytes)
            g = _gm(gm_codes_in.copy(), coded) if dtype is coded else asc.GlobalTensor()
            if dtype is not coded:
                g.set_global_buffer(gm_codes_in.copy())
            call(ub, g)
            images.append(core.ub_read(0, ub_bytes))
    return images[0], images[1]


@pytest.mark.parametrize("coded", CODED)
def test_nd2nz_moves_the_codes(coded):
    """GMToUB随路转换ND2NZ搬运(DataCopy).md lists hifloat8_t and fp8_e8m0_t: rows of 64 codes cut into 32-byte
    pieces, piece b of row r at (b * n + r) DataBlocks (dst_nz_c0_stride n, dst_nz_n_stride 1)."""
    n, d = 4, 64
    codes = _codes(4, n * d)
    expected = np.zeros(n * d, np.uint8)
    for r in range(n):
        for b in range(d // 32):
            expected[(b * n + r) * 32:][:32] = codes[r * d + b * 32:][:32]
    with asc.Core("950") as core:
        ub = asc.LocalTensor(coded, VECIN, 0, n * d)
        asc.data_copy(ub, _gm(codes, coded), asc.Nd2NzParams(1, n, d, 0, d, n, 1, 0))
        assert core.ub_read(0, n * d) == expected.tobytes()


@pytest.mark.parametrize("coded", CODED)
def test_slice_copy_moves_the_codes_as_uint8_moves_its_bytes(coded):
    """GM与UB切片数据搬运(DataCopy).md lists hifloat8_t and fp8_e8m0_t: two rows of 2 DataBlocks out of a 3 x 96 GM
    matrix give the bytes a uint8 copy of the same call gives (that path's own tests hold its reference model)."""
    codes = _codes(5, 3 * 96)
    src = [asc.SliceInfo(0, 63, 0, 2, 96), asc.SliceInfo(0, 2, 1, 1, 3)]
    dst = [asc.SliceInfo(0, 63, 0, 2, 64), asc.SliceInfo(0, 1, 0, 1, 2)]
    got, as_uint8 = _same_call_as_uint8(lambda ub, g: asc.data_copy(ub, g, dst, src, 2), codes, 256, coded)
    assert got == as_uint8 and got != bytes([0x5A]) * 256
    assert got[:64] == codes[:64].tobytes() and got[64:128] == codes[192:256].tobytes()


@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(1, 3), st.integers(0, 4), st.integers(0, 4),
       st.sampled_from([-math.inf, 14.0, 0.0, math.nan]))
@SETTINGS
def test_nddma_moves_codes_and_pads_with_a_hifloat8_constant(seed, size, stride, left, right, constant):
    """GMToUB多维数据搬运NDDMA(DataCopy).md (T any type; constantValue is a T): one loop of ``size`` codes
    ``stride`` apart, ``left`` / ``right`` pads of the constant's code (the reference table's)."""
    codes = _codes(seed, 64)
    pad = ref.NAN if constant != constant else ref.NEG_INF if constant == -math.inf else ref.VALUES.index(
        Fraction(constant))
    expected = bytes([pad] * left) + codes[: size * stride : stride].tobytes() + bytes([pad] * right)
    with asc.Core("950") as core:
        core.ub_write(0, bytes([0x5A]) * 64)
        ub = asc.LocalTensor(H8, VECIN, 0, 64)
        info = asc.NdDmaLoopInfo([stride], [1], [size], [left], [right])
        asc.data_copy(ub, _gm(codes), asc.NdDmaParams(info, constant))
        assert core.ub_read(0, 64) == expected + bytes([0x5A]) * (64 - len(expected))
        assert_rejected(core, ParameterRangeError, lambda: asc.data_copy(ub, _gm(codes), asc.NdDmaParams(info, 1.1)),
                        "holds no such number")


def test_data_copy_pad_and_nz2nd_reject_hifloat8():
    """The DataCopyPad pages list no hifloat8_t; NZ2ND's 8-bit rows are not modelled (as for int8)."""
    with asc.Core("950") as core:
        ub = asc.LocalTensor(H8, VECIN, 0, 256)
        g = _gm(_codes(6, 256))
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy_pad(ub, g, asc.DataCopyExtParams(1, 32, 0, 0, 0),
                                                                          asc.DataCopyPadExtParams(H8, False, 0, 0, 0)),
                        "DataCopyPad")
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy(g, ub, asc.Nz2NdParamsFull(1, 32, 32, 1, 32, 32,
                                                                                               1)), "not modelled")


@pytest.mark.parametrize("dtype", [asc.int8, asc.uint8, *CODED])
def test_nz2nd_of_every_one_byte_type_is_not_modelled(dtype):
    """dav_3510 DataCopyUB2GMNZ2NDImplBase is one template for every T: its 8-bit NZ rows (32 bytes apart, the page
    says 16 elements) are those of any 1-byte type, fp8_e8m0_t's as int8's; the copy is rejected, GM unchanged."""
    with asc.Core("950") as core:
        ub = asc.LocalTensor(dtype, VECIN, 0, 4096)
        core.ub_write(0, _codes(8, 4096).tobytes())
        codes = _codes(9, 4096)
        g = asc.GlobalTensor()
        g.set_global_buffer(asc.gm_codes(codes, dtype) if dtype in CODED else codes.view(dtype.np_dtype))
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy(g[8:], ub, asc.Nz2NdParamsFull(2, 3, 32, 1, 4,
                                                                                                    40, 128)),
                        "not modelled", "DataCopyUB2GMNZ2NDImplBase")
        assert codes.tobytes() == _codes(9, 4096).tobytes()


@pytest.mark.parametrize("chip", sorted(name for name in asc.CHIPS if name != "950"))
def test_other_products_reject_hifloat8_gm_copies(chip):
    with asc.Core(chip) as core:
        ub = asc.LocalTensor(H8, VECIN, 0, 64)
        g = _gm(_codes(7, 64))
        error = assert_rejected(core, UnsupportedError, lambda: asc.data_copy(ub, g, 64), "hifloat8")
        assert "DataCopy" in error.source or "数据搬运" in error.source
        assert_rejected(core, UnsupportedError, lambda: asc.data_copy(g, ub, 64), "hifloat8")


# ------------------------------------------------------------------ the C API's typed copies (arch 3510)
@given(st.integers(1, 4), st.integers(1, 40), st.integers(0, 32), st.integers(0, 32), st.integers(0, 20),
       st.booleans(), st.sampled_from([-17, 0x6F, 0, -128]))
@SETTINGS
def test_asc_copy_gm2ub_align_moves_codes_and_pads_with_the_registers_byte(count, length, left, right, gm_extra,
                                                                          constant, pad):
    """asc_copy_gm2ub_align_arch_3510.md lists hifloat8_t; asc_set_copy_pad_val.md: its data is passed as an
    int8_t, so the pads are that byte (-17 is 0xEF, -infinity)."""
    codes = _codes(count * 97 + length, 4096)
    gm_pitch, ub_pitch = length + gm_extra, align32(left + right + length)
    expected = bytearray(b"\x5a" * 2048)
    ref_padded(expected, 0, codes.tobytes(), 0, count, length, gm_pitch, ub_pitch, left, right, 1,
               bytes([pad & 0xFF]), not constant)
    with asc.Core("950") as core:
        core.ub_write(0, bytes([0x5A]) * 2048)
        ub = asc.LocalTensor(H8, VECIN, 0, 2048)
        asc.asc_set_copy_pad_val(pad)
        asc.asc_copy_gm2ub_align(ub, _gm(codes), count, length, left, right, constant, 0, gm_pitch, ub_pitch)
        assert core.ub_read(0, 2048) == bytes(expected)


@given(st.integers(1, 4), st.integers(1, 40), st.integers(0, 20))
@SETTINGS
def test_asc_copy_ub2gm_align_moves_codes(count, length, gm_extra):
    ub_image = _codes(length, 2048)
    out = np.full(1024, 0x80, np.uint8)
    expected = bytearray(out.tobytes())
    gm_pitch, ub_pitch = length + gm_extra, align32(length)
    ref_bursts(expected, 0, ub_image.tobytes(), 0, count, length, ub_pitch, gm_pitch)
    with asc.Core("950") as core:
        core.ub_write(0, ub_image.tobytes())
        asc.asc_copy_ub2gm_align(_gm(out), asc.LocalTensor(H8, VECIN, 0, 2048), count, length, 0, gm_pitch,
                                 ub_pitch)
    assert out.tobytes() == bytes(expected)


def test_asc_copy_align_pad_value_must_be_a_byte_and_the_pages_without_a_hifloat8_prototype():
    with asc.Core("950") as core:
        ub = asc.LocalTensor(H8, VECIN, 0, 256)
        g = _gm(_codes(8, 256))
        asc.asc_set_copy_pad_val(1.5)  # a hifloat8_t value, but the page passes hifloat8_t data as an int8_t
        assert_rejected(core, ParameterRangeError, lambda: asc.asc_copy_gm2ub_align(ub, g, 1, 20, 2, 0, True, 0,
                                                                                     20, 32),
                        "int8_t", "asc_set_copy_pad_val.md")
        # asc_ndim_copy_gm2ub.md has no hifloat8_t prototype
        assert_rejected(core, UnsupportedError, lambda: asc.asc_ndim_copy_gm2ub(ub, g, 8, 1, 1, 1, 1, 0, 0, True, 0),
                        "no prototype", "asc_ndim_copy_gm2ub.md")
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(H8, VECIN, 0, 256)
        g = _gm(_codes(8, 256))
        assert_rejected(core, UnsupportedError, lambda: asc.asc_copy_gm2ub_align(ub, g, 1, 32, 0, 0, 0, 0),
                        "hifloat8", "arch_2201")
