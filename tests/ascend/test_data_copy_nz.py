"""data_copy with Nd2NzParams (GM -> UB) and Nz2NdParamsFull (UB -> GM): the pages' printed examples,
a per-element reference model of each page's formula, every range of 表4 and every parameter the
vendor lowering treats differently from the page as a rejected call.

Reference (GMToUB随路转换ND2NZ搬运(DataCopy).md 表3, figure 1): element (r, c) of the ND matrix at
``r * srcDValue + c`` lands at ``(c // C0) * dstNzC0Stride * C0 + r * dstNzNStride * C0 + c % C0``,
C0 = 32 / sizeof(T).  (UBToGM随路转换NZ2ND搬运(DataCopy).md 表3, figures 1-2): element (k, r, c) of
UB at ``k * srcNdMatrixStride * 256 + (c // 16) * srcNStride * 16 + r * 16 + c % 16`` lands at
``k * dstNdMatrixStride + r * dstDStride + c``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

SETTINGS = settings(max_examples=50, derandomize=True, deadline=None)
ND2NZ, NZ2ND = asc.Nd2NzParams, asc.Nz2NdParamsFull


def gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def nd2nz_reference(ub: bytes, src: bytes, p, itemsize: int) -> bytes:
    out, c0 = bytearray(ub), 32 // itemsize
    for k in range(p.nd_num):
        for r in range(p.n_value):
            for c in range(p.d_value):
                s = k * p.src_nd_matrix_stride + r * p.src_d_value + c
                piece, lane = divmod(c, c0)
                d = k * p.dst_nz_matrix_stride + piece * p.dst_nz_c0_stride * c0 + r * p.dst_nz_n_stride * c0 + lane
                out[d * itemsize : (d + 1) * itemsize] = src[s * itemsize : (s + 1) * itemsize]
    return bytes(out)


def nz2nd_reference(gm_bytes: bytes, ub: bytes, p, itemsize: int) -> bytes:
    out = bytearray(gm_bytes)
    for k in range(p.nd_num):
        for r in range(p.n_value):
            for c in range(p.d_value):
                s = k * p.src_nd_matrix_stride * 256 + (c // 16) * p.src_n_stride * 16 + r * 16 + c % 16
                d = k * p.dst_nd_matrix_stride + r * p.dst_d_stride + c
                out[d * itemsize : (d + 1) * itemsize] = ub[s * itemsize : (s + 1) * itemsize]
    return bytes(out)


def runs(*pieces: tuple[int, int]) -> list[int]:
    return [v for lo, hi in pieces for v in range(lo, hi + 1)]


# ------------------------------------------------------------------ the pages' examples
def test_nd2nz_page_example():
    """调用示例: Nd2NzParams{1, 32, 32, 0, 32, 32, 1, 0}, half, input 1..1024; printed output
    [1 2 ... 15 16 33 34 ... 47 48 65 66 ... 79 80 97 98 ... 111 112 ... 1009 1010 ... 1023 1024]."""
    x = np.arange(1, 1025, dtype=np.float16)
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        asc.data_copy(ub, gm(x), ND2NZ(1, 32, 32, 0, 32, 32, 1, 0))
        got = ub.read()
    assert got[:64].tolist() == runs((1, 16), (33, 48), (65, 80), (97, 112))
    assert got[-16:].tolist() == runs((1009, 1024))
    assert got.tobytes() == nd2nz_reference(bytes(2048), x.tobytes(), ND2NZ(1, 32, 32, 0, 32, 32, 1, 0), 2)


def test_nz2nd_page_example():
    """调用示例: Nz2NdParamsFull{1, 32, 32, 1, 32, 32, 1}, half, input 1..1024; printed output
    [1 ... 16 513 ... 528 17 ... 32 529 ... 544 ... 497 ... 512 1009 ... 1024]."""
    x = np.arange(1, 1025, dtype=np.float16)
    out = np.zeros(1024, np.float16)
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 1024)
        ub.write(x)
        asc.data_copy(gm(out), ub, NZ2ND(1, 32, 32, 1, 32, 32, 1))
    assert out[:64].tolist() == runs((1, 16), (513, 528), (17, 32), (529, 544))
    assert out[-32:].tolist() == runs((497, 512), (1009, 1024))
    assert out.tobytes() == nz2nd_reference(bytes(2048), x.tobytes(), NZ2ND(1, 32, 32, 1, 32, 32, 1), 2)


def test_nz2nd_figure_parameters_half_and_float():
    """图1/图2: ndNum 2, nValue 4, dValue 32, srcNdMatrixStride 1, srcNStride 4; dstDStride 160 and
    dstNdMatrixStride 48 (half), 144 and 40 (float)."""
    for dtype, d_stride, m_stride in ((asc.float16, 160, 48), (asc.float32, 144, 40)):
        size = dtype.itemsize
        params = NZ2ND(2, 4, 32, 1, 4, d_stride, m_stride)
        ub_bytes = (np.arange(512 * size) % 249).astype(np.uint8)
        out = np.full((m_stride + 3 * d_stride + 32) * size, 0x5A, np.uint8)
        before = out.tobytes()
        with asc.Core("A2") as core:
            core.ub_write(0, ub_bytes.tobytes())
            ub = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 0, 512)
            asc.data_copy(gm(out.view(dtype.np_dtype)), ub, params)
        assert out.tobytes() == nz2nd_reference(before, ub_bytes.tobytes(), params, size)


# ------------------------------------------------------------------ properties
ND2NZ_DTYPES = {"A2": [asc.int8, asc.float16, asc.bfloat16, asc.int32], "950": [asc.uint8, asc.float32, asc.int16]}
NZ2ND_DTYPES = {"A2": [asc.int16, asc.bfloat16, asc.float32, asc.uint32], "950": [asc.float64, asc.int64, asc.half],
                "310P": [asc.float16, asc.int32]}


@SETTINGS
@given(st.sampled_from([(c, d) for c, ds in ND2NZ_DTYPES.items() for d in ds]), st.integers(1, 20),
       st.integers(1, 3), st.integers(0, 24), st.integers(0, 4), st.integers(0, 9))
def test_nd2nz_matches_the_reference(chip_dtype, n_value, pieces, extra_src, extra_c0, gm_offset):
    chip, dtype = chip_dtype
    size, c0 = dtype.itemsize, 32 // dtype.itemsize
    d_value = pieces * c0
    params = ND2NZ(1, n_value, d_value, 0, d_value + extra_src, n_value + extra_c0, 1, 0)
    ub_bytes = ((pieces - 1) * params.dst_nz_c0_stride + n_value) * 32
    x = ((np.arange((gm_offset + n_value * params.src_d_value) * size) * 5 + 1) % 253).astype(np.uint8)
    fill = bytes([0xC3]) * ub_bytes
    with asc.Core(chip) as core:
        core.ub_write(0x800, fill)
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0x800, ub_bytes // size)
        asc.data_copy(ub, gm(x.view(dtype.np_dtype))[gm_offset:], params)
        assert core.ub_read(0x800, ub_bytes) == nd2nz_reference(fill, x.tobytes()[gm_offset * size :], params, size)


@SETTINGS
@given(st.sampled_from([(c, d) for c, ds in NZ2ND_DTYPES.items() for d in ds]), st.integers(1, 3),
       st.integers(1, 6), st.integers(1, 3), st.integers(0, 3), st.integers(0, 20), st.integers(0, 40),
       st.integers(0, 7))
def test_nz2nd_matches_the_reference(chip_dtype, nd_num, n_value, blocks, extra_n, extra_d, extra_m, gm_offset):
    chip, dtype = chip_dtype
    size = dtype.itemsize
    d_value = 16 * blocks
    src_n_stride = n_value + extra_n
    matrix_elems = (blocks - 1) * src_n_stride * 16 + n_value * 16
    src_nd_matrix_stride = -(-matrix_elems // 256)
    d_stride = d_value + extra_d
    m_stride = (n_value - 1) * d_stride + d_value + extra_m
    params = NZ2ND(nd_num, n_value, d_value, src_nd_matrix_stride, src_n_stride, d_stride, m_stride)
    ub_elems = (nd_num - 1) * src_nd_matrix_stride * 256 + matrix_elems
    ub_fill = ((np.arange(ub_elems * size) * 3 + 7) % 255).astype(np.uint8).tobytes()
    out = np.full((gm_offset + (nd_num - 1) * m_stride + (n_value - 1) * d_stride + d_value) * size, 0x77, np.uint8)
    before = out.tobytes()
    with asc.Core(chip) as core:
        core.ub_write(0, ub_fill)
        ub = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 0, -(-ub_elems * size // 32) * 32 // size)
        asc.data_copy(gm(out.view(dtype.np_dtype))[gm_offset:], ub, params)
    start = gm_offset * size
    assert out.tobytes() == before[:start] + nz2nd_reference(before[start:], ub_fill, params, size)


def test_nops():
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        x = np.zeros(256, np.float16)
        before = core.ub.snapshot()
        for params in (ND2NZ(0, 4, 16, 0, 16, 4, 1, 0), ND2NZ(1, 0, 16, 0, 16, 4, 1, 0),
                       ND2NZ(1, 4, 0, 0, 16, 4, 1, 0)):
            asc.data_copy(ub, gm(x), params)
        assert core.ub.snapshot() == before
        out = np.full(256, 3, np.float16)
        ub.write(np.zeros(256, np.float16))
        asc.data_copy(gm(out), ub, NZ2ND(0, 4, 16, 1, 4, 16, 64))
        assert (out == 3).all()


# ------------------------------------------------------------------ rejected calls
def nd2nz_rejected(error, params, chip="A2", dtype=asc.float16, **fields):
    x = np.zeros(70000, dtype.np_dtype)
    with asc.Core(chip) as core:
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 65536 // dtype.itemsize)
        err = assert_rejected(core, error, lambda: asc.data_copy(ub, gm(x), params), **fields)
    assert err.instruction == "data_copy"
    return err


def nz2nd_rejected(error, params, chip="A2", dtype=asc.float16, **fields):
    out = np.zeros(1 << 16, dtype.np_dtype)
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(65536))
        ub = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 0, 65536 // dtype.itemsize)
        err = assert_rejected(core, error, lambda: asc.data_copy(gm(out), ub, params), **fields)
    assert not out.any()
    assert err.instruction == "data_copy"
    return err


GOOD_ND2NZ = (1, 4, 32, 0, 32, 8, 1, 0)


@pytest.mark.parametrize("index, value", [(0, 4096), (1, 16385), (4, 0), (5, 0), (5, 16385), (6, 0), (6, 16385),
                                          (3, 65536), (2, 65536)])
def test_nd2nz_ranges(index, value):
    fields = list(GOOD_ND2NZ)
    fields[index] = value
    name = ["nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value", "dst_nz_c0_stride",
            "dst_nz_n_stride", "dst_nz_matrix_stride"][index]
    nd2nz_rejected(ParameterRangeError, ND2NZ(*fields), operand=f"intri_params.{name}", value=value)


def test_nd2nz_matrix_stride_zero_only_with_one_matrix():
    nd2nz_rejected(ParameterRangeError, ND2NZ(2, 4, 32, 0, 32, 8, 1, 0), operand="intri_params.dst_nz_matrix_stride",
                   value=0)


@pytest.mark.parametrize("params, operand", [
    (ND2NZ(2, 4, 32, 128, 32, 8, 1, 512), "intri_params.nd_num"),
    (ND2NZ(1, 4, 32, 16, 32, 8, 1, 0), "intri_params.src_nd_matrix_stride"),
    (ND2NZ(1, 4, 32, 0, 32, 8, 1, 16), "intri_params.dst_nz_matrix_stride"),
    (ND2NZ(1, 4, 32, 0, 32, 8, 2, 0), "intri_params.dst_nz_n_stride"),
    (ND2NZ(1, 4, 24, 0, 32, 8, 1, 0), "intri_params.d_value"),
    (ND2NZ(1, 4, 16, 0, 8, 8, 1, 0), "intri_params.src_d_value"),
    (ND2NZ(1, 300, 16, 0, 32, 300, 1, 0), "intri_params.n_value"),
    (ND2NZ(1, 4, 16 * 80, 0, 16 * 80, 16384, 1, 0), "intri_params.dst_nz_c0_stride"),
])
def test_nd2nz_parameters_the_vendor_lowers_differently_are_not_modelled(params, operand):
    err = nd2nz_rejected(UnsupportedError, params, operand=operand)
    assert "not modelled" in err.rule


def test_nd2nz_more_than_255_rows_with_src_d_value_equal_to_d_value_runs():
    params = ND2NZ(1, 300, 16, 0, 16, 300, 1, 0)
    x = (np.arange(300 * 16) % 1000).astype(np.float16)
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 300 * 16)
        asc.data_copy(ub, gm(x), params)
        assert core.ub_read(0, 9600) == nd2nz_reference(bytes(9600), x.tobytes(), params, 2)


@pytest.mark.parametrize("chip, dtype, operand", [("A2", asc.float32, "dst dtype"), ("A3", asc.float32, "dst dtype"),
                                                  ("310P", asc.float16, "product")])
def test_nd2nz_lowerings_not_modelled(chip, dtype, operand):
    nd2nz_rejected(UnsupportedError, ND2NZ(1, 4, 32, 0, 32, 8, 1, 0), chip, dtype, operand=operand)


def test_nd2nz_pieces_may_not_overwrite_each_other():
    nd2nz_rejected(OverlapError, ND2NZ(1, 8, 32, 0, 32, 4, 1, 0), operand="intri_params.dst_nz_c0_stride", value=4)


@pytest.mark.parametrize("chip", ["310B", "310P-VEC", "910", "KirinX90"])
def test_nd2nz_products_without_it(chip):
    nd2nz_rejected(UnsupportedError, ND2NZ(*GOOD_ND2NZ), chip, operand="product")


@pytest.mark.parametrize("chip, dtype", [("A2", asc.int64), ("310P", asc.bfloat16), ("950", asc.float64)])
def test_nd2nz_dtypes(chip, dtype):
    nd2nz_rejected(UnsupportedError, ND2NZ(1, 4, 32, 0, 32, 8, 1, 0), chip, dtype, operand="dst dtype")


GOOD_NZ2ND = (1, 4, 32, 1, 4, 32, 1)


@pytest.mark.parametrize("index, value", [(0, 4096), (1, 0), (1, 8193), (2, 0), (2, 8208), (3, 0), (3, 513),
                                          (4, 4097), (5, 0), (6, 0)])
def test_nz2nd_ranges(index, value):
    fields = list(GOOD_NZ2ND)
    fields[index] = value
    name = ["nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_n_stride", "dst_d_stride",
            "dst_nd_matrix_stride"][index]
    nz2nd_rejected(ParameterRangeError, NZ2ND(*fields), operand=f"intri_params.{name}", value=value)


def test_nz2nd_d_value_is_a_multiple_of_16():
    nz2nd_rejected(ParameterRangeError, NZ2ND(1, 4, 24, 1, 4, 32, 1), operand="intri_params.d_value", value=24)


@pytest.mark.parametrize("params", [NZ2ND(1, 4, 32, 1, 4, 16, 1), NZ2ND(2, 4, 32, 1, 4, 32, 64)])
def test_nz2nd_destination_rows_and_matrices_may_not_overlap(params):
    nz2nd_rejected(OverlapError, params, operand="intri_params")


def test_nz2nd_interleaved_matrices_that_do_not_overlap_run():
    """Matrix 1 fills the gaps of matrix 0 (rows 64 elements apart, matrices 32 apart): no byte is shared."""
    params = NZ2ND(2, 3, 32, 1, 3, 64, 32)
    ub_fill = bytes(range(256)) * 4
    out = np.full(3 * 64, 9, np.float16)
    before = out.tobytes()
    with asc.Core("A2") as core:
        core.ub_write(0, ub_fill)
        asc.data_copy(gm(out), asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 512), params)
    assert out.tobytes() == nz2nd_reference(before, ub_fill, params, 2)


@pytest.mark.parametrize("chip, dtype, error, operand", [
    ("950", asc.int8, UnsupportedError, "dst dtype"), ("A2", asc.int8, UnsupportedError, "dst dtype"),
    ("A2", asc.int64, UnsupportedError, "dst dtype"), ("310P", asc.bfloat16, UnsupportedError, "dst dtype"),
    ("310B", asc.float16, UnsupportedError, "product"), ("910", asc.float16, UnsupportedError, "product"),
])
def test_nz2nd_products_and_dtypes(chip, dtype, error, operand):
    nz2nd_rejected(error, NZ2ND(*GOOD_NZ2ND), chip, dtype, operand=operand)


def test_bounds_and_directions():
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 64)
        x = np.zeros(1024, np.float16)
        assert_rejected(core, OutOfBoundsError, lambda: asc.data_copy(ub, gm(x), ND2NZ(1, 32, 32, 0, 32, 32, 1, 0)))
        small = np.zeros(100, np.float16)
        big = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        assert_rejected(core, OutOfBoundsError, lambda: asc.data_copy(big, gm(small),
                                                                      ND2NZ(1, 32, 32, 0, 32, 32, 1, 0)))
        with pytest.raises(TypeError, match="GM -> UB"):
            asc.data_copy(gm(x), big, ND2NZ(1, 32, 32, 0, 32, 32, 1, 0))
        with pytest.raises(TypeError, match="UB -> GM"):
            asc.data_copy(big, gm(x), NZ2ND(*GOOD_NZ2ND))
        with pytest.raises(TypeError, match="UB -> GM"):
            asc.data_copy(big, ub, NZ2ND(*GOOD_NZ2ND))
