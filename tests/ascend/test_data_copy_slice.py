"""data_copy with SliceInfo (GM与UB切片数据搬运(DataCopy).md): the page's example, a per-element
reference model, every rule of the page and of the vendor lowering as a rejected call.

The reference model below enumerates, element by element, the indices a SliceInfo list selects
(the page's 表3 and figure 1: dimension 0 holds runs of ``burst_len * 32 / sizeof(T)`` elements
``stride`` elements apart, each other dimension ``stride`` indices apart; element ``(.., i_d, ..)``
at ``sum_d index_d * prod(shape_<d)``), and moves each element's bytes on its own.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.dtypes import DTYPES as ALL_DTYPES
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from .conftest import assert_rejected

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)
S = asc.SliceInfo
PAGE_SRC = [S(16, 70, 7, 3, 87), S(0, 2, 1, 1, 3)]
PAGE_DST = [S(0, 47, 0, 3, 48), S(0, 1, 0, 1, 2)]


# ------------------------------------------------------------------ reference model
def selected_elements(infos, itemsize: int) -> list[int]:
    """Element indices a SliceInfo list selects, in issue order (outermost dimension slowest)."""
    per_dim = []
    for dim, info in enumerate(infos):
        span = info.end_index - info.start_index + 1
        if dim == 0:
            unit = info.burst_len * 32 // itemsize
            count = (span + info.stride) // (unit + info.stride)
            per_dim.append([info.start_index + j * (unit + info.stride) + e for j in range(count) for e in range(unit)])
        else:
            count = (span + info.stride) // (1 + info.stride)
            per_dim.append([info.start_index + i * (1 + info.stride) for i in range(count)])
    sizes = [1]
    for info in infos[:-1]:
        sizes.append(sizes[-1] * info.shape_value)
    elements = []
    for index in itertools.product(*reversed(per_dim)):  # outermost dimension first
        elements.append(sum(i * size for i, size in zip(reversed(index), sizes, strict=True)))
    return elements


def reference_copy(dst: bytes, src: bytes, dst_infos, src_infos, itemsize: int) -> bytes:
    out = bytearray(dst)
    for s, d in zip(selected_elements(src_infos, itemsize), selected_elements(dst_infos, itemsize), strict=True):
        out[d * itemsize : (d + 1) * itemsize] = src[s * itemsize : (s + 1) * itemsize]
    return bytes(out)


def gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def pattern(nbytes: int, salt: int = 0) -> np.ndarray:
    return ((np.arange(nbytes, dtype=np.int64) * 7 + salt) % 251).astype(np.uint8)


# ------------------------------------------------------------------ the page's example
def test_the_pages_example_gm_to_ub_to_gm():
    """调用示例 / figure 1 and the vendor sample data_copy_gm2ub_slice (scripts/gen_data.py: golden[0, 0:24] =
    x[0, 16:40], golden[0, 24:48] = x[0, 47:71], row 1 the same from x row 2)."""
    x = (np.arange(3 * 87, dtype=np.float32) * 0.5 - 3).reshape(3, 87)
    out = np.zeros((2, 48), np.float32)
    golden = np.concatenate([np.concatenate([x[r, 16:40], x[r, 47:71]]) for r in (0, 2)]).reshape(2, 48)
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 96)
        asc.data_copy(ub, gm(x), PAGE_DST, PAGE_SRC, 2)
        assert ub.read().tobytes() == golden.tobytes()
        asc.data_copy(gm(out), ub, PAGE_DST, PAGE_DST, 2)
    assert out.tobytes() == golden.tobytes()


# The vendor's unit test cases (tests/api/basic_api/ascendc_case_common/test_data_copy_slice.cpp), every dtype.
VENDOR_CASES = [
    (asc.int32, [S(16, 71, 8, 3, 88), S(0, 2, 1, 1, 3)], [S(0, 47, 0, 3, 48), S(0, 1, 0, 1, 2)]),
    (asc.float32, [S(16, 70, 7, 3, 87), S(0, 2, 1, 1, 3)], [S(0, 47, 0, 3, 48), S(0, 1, 0, 1, 2)]),
    (asc.float16, [S(16, 63, 16, 1, 80), S(0, 2, 1, 1, 3)], [S(0, 31, 0, 1, 32), S(0, 1, 0, 1, 2)]),
    (asc.int16, [S(16, 62, 15, 1, 80), S(0, 2, 1, 1, 3)], [S(0, 31, 0, 1, 32), S(0, 1, 0, 1, 2)]),
    (asc.int8, [S(16, 111, 32, 1, 128), S(0, 2, 1, 1, 3)], [S(0, 63, 0, 1, 64), S(0, 1, 0, 1, 2)]),
    (asc.uint8, [S(16, 110, 31, 1, 127), S(0, 2, 1, 1, 3)], [S(0, 63, 0, 1, 64), S(0, 1, 0, 1, 2)]),
]


@pytest.mark.parametrize("chip", ["A2", "A3", "950", "310P"])
@pytest.mark.parametrize("dtype, src_infos, dst_infos", VENDOR_CASES)
def test_vendor_cases_on_every_product_that_has_the_api(chip, dtype, src_infos, dst_infos):
    size = dtype.itemsize
    src = pattern(src_infos[0].shape_value * src_infos[1].shape_value * size)
    ub_bytes = dst_infos[0].shape_value * dst_infos[1].shape_value * size
    out = np.full(ub_bytes, 0xEE, np.uint8)
    expected = reference_copy(bytes(ub_bytes), src.tobytes(), dst_infos, src_infos, size)
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(ub_bytes))
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, ub_bytes // size)
        asc.data_copy(ub, gm(src.view(dtype.np_dtype)), dst_infos, src_infos, 2)
        assert core.ub_read(0, ub_bytes) == expected
        asc.data_copy(gm(out.view(dtype.np_dtype)), ub, dst_infos, dst_infos, 2)
    assert out.tobytes() == expected


# ------------------------------------------------------------------ properties
DTYPES = {"A2": [asc.int8, asc.uint16, asc.bfloat16, asc.float32], "950": [asc.int64, ALL_DTYPES["float8_e5m2"]]}


@st.composite
def slice_pair(draw):
    """A chip, dtype, direction and matching (dst, src) SliceInfo lists: the UB side 32-byte aligned."""
    chip = draw(st.sampled_from(sorted(DTYPES)))
    dtype = draw(st.sampled_from(DTYPES[chip]))
    size = dtype.itemsize
    per_block = 32 // size
    inbound = draw(st.booleans())
    dims = draw(st.integers(1, 3))
    burst = draw(st.integers(1, 2))
    unit = burst * per_block
    counts = [draw(st.integers(1, 3))] + [draw(st.integers(2, 3)) for _ in range(dims - 1)]

    def side(ub: bool):
        infos = []
        stride = draw(st.integers(0, 2)) * per_block if ub else draw(st.integers(0, 9))
        start = draw(st.integers(0, 2)) * per_block if ub else draw(st.integers(0, 9))
        span = (counts[0] - 1) * stride + counts[0] * unit
        extra = draw(st.integers(0, 2)) * per_block if ub else draw(st.integers(0, 5))
        if counts[0] == 1 and span == 1:
            span = 2  # start < end
        infos.append(S(start, start + span - 1, stride, burst, start + span + extra))
        for dim in range(1, dims):
            stride = draw(st.integers(0, 2))
            start = draw(st.integers(0, 2))
            span = (counts[dim] - 1) * stride + counts[dim]
            infos.append(S(start, start + span - 1, stride, 1, start + span + draw(st.integers(0, 2))))
        return infos

    dst = side(ub=inbound)
    src = side(ub=not inbound)
    return chip, dtype, inbound, dst, src


def extent_elements(infos, itemsize: int) -> int:
    return max(selected_elements(infos, itemsize)) + 1


@SETTINGS
@given(slice_pair(), st.integers(0, 40))
def test_slice_copy_matches_the_reference_model(case, gm_offset):
    chip, dtype, inbound, dst_infos, src_infos = case
    size = dtype.itemsize
    src_elems, dst_elems = extent_elements(src_infos, size), extent_elements(dst_infos, size)
    ub_elems, gm_elems = (dst_elems, src_elems) if inbound else (src_elems, dst_elems)
    ub_elems = -(-ub_elems * size // 32) * 32 // size
    gm_array = pattern((gm_offset + gm_elems + 3) * size, 11).view(dtype.np_dtype)
    ub_fill = pattern(ub_elems * size, 5).tobytes()
    with asc.Core(chip) as core:
        core.ub_write(0x400, ub_fill)
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN if inbound else asc.TPosition.VECOUT, 0x400, ub_elems)
        g = gm(gm_array)[gm_offset:]
        gm_before = gm_array.tobytes()
        if inbound:
            asc.data_copy(ub, g, dst_infos, src_infos, len(src_infos))
            expected = reference_copy(ub_fill, gm_before[gm_offset * size :], dst_infos, src_infos, size)
            assert core.ub_read(0x400, ub_elems * size) == expected
        else:
            asc.data_copy(g, ub, dst_infos, src_infos, len(src_infos))
            expected = reference_copy(gm_before[gm_offset * size :], ub_fill, dst_infos, src_infos, size)
            assert gm_array.tobytes() == gm_before[: gm_offset * size] + expected


def test_a_one_dimensional_slice_with_the_default_dim_value():
    src = np.arange(64, dtype=np.int32)
    with asc.Core("A2"):
        ub = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 32)
        asc.data_copy(ub, gm(src), [S(0, 23, 0, 1, 32)], [S(3, 42, 8, 1, 64)])
        expected = np.concatenate([src[3 + 16 * j : 11 + 16 * j] for j in range(3)])
        assert ub.read()[:24].tobytes() == expected.tobytes()


# ------------------------------------------------------------------ rejected calls
def rejected(chip, error, dst_infos, src_infos, dim_value=2, *, dtype=asc.float32, inbound=True, parts=(), **fields):
    x = np.zeros(4096, dtype.np_dtype)
    before = x.tobytes()
    with asc.Core(chip) as core:
        ub = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 4096 * 4 // dtype.itemsize)
        if inbound:
            call = lambda: asc.data_copy(ub, gm(x), dst_infos, src_infos, dim_value)  # noqa: E731
        else:
            core.ub_write(0, bytes(16384))
            call = lambda: asc.data_copy(gm(x), ub, dst_infos, src_infos, dim_value)  # noqa: E731
        err = assert_rejected(core, error, call, *parts, **fields)
    assert x.tobytes() == before
    assert err.instruction == "data_copy"
    return err


@pytest.mark.parametrize("dim_value", [0, 9])
def test_dim_value_is_one_to_eight(dim_value):
    rejected("A2", ParameterRangeError, PAGE_DST, PAGE_SRC, dim_value, operand="dim_value", value=dim_value)


def test_the_lists_have_dim_value_entries():
    rejected("A2", ParameterRangeError, PAGE_DST[:1], PAGE_SRC[:1], 2, operand="len(slice_list1)", value=1)
    rejected("A2", ParameterRangeError, PAGE_DST, PAGE_SRC[:1], 2, operand="len(slice_list2)", value=1)


@pytest.mark.parametrize("info, operand", [
    (S(70, 70, 7, 3, 87), "slice_list2[0]"),          # start == end
    (S(16, 70, 7, 3, 69), "slice_list2[0]"),          # end > shape
])
def test_start_below_end_at_most_shape(info, operand):
    err = rejected("A2", ParameterRangeError, PAGE_DST, [info, PAGE_SRC[1]], operand=operand)
    assert "start_index < end_index <= shape_value" in err.rule


def test_shape_value_zero_is_rejected_by_the_same_rule():
    rejected("A2", ParameterRangeError, [S(0, 47, 0, 3, 0), PAGE_DST[1]], PAGE_SRC, operand="slice_list1[0]")


def test_burst_len_one_outside_dimension_zero_and_at_least_one_inside():
    rejected("A2", ParameterRangeError, PAGE_DST, [PAGE_SRC[0], S(0, 2, 1, 2, 3)], operand="slice_list2[1].burst_len",
             value=2)
    rejected("A2", ParameterRangeError, [S(0, 47, 0, 0, 48), PAGE_DST[1]], [S(16, 70, 7, 0, 87), PAGE_SRC[1]],
             operand="slice_list1[0].burst_len", value=0)


def test_source_and_destination_burst_len_agree():
    rejected("A2", ParameterRangeError, [S(0, 47, 0, 6, 48), PAGE_DST[1]], PAGE_SRC,
             operand="slice_list1[0].burst_len", value=6)


@pytest.mark.parametrize("info", [S(16, 71, 7, 3, 87), S(16, 69, 7, 3, 87)])
def test_the_span_is_a_whole_number_of_runs(info):
    rejected("A2", ParameterRangeError, PAGE_DST, [info, PAGE_SRC[1]], operand="slice_list2[0]")


def test_an_outer_span_is_a_whole_number_of_indices():
    rejected("A2", ParameterRangeError, PAGE_DST, [PAGE_SRC[0], S(0, 1, 1, 1, 3)], operand="slice_list2[1]")


def test_both_sides_select_the_same_runs():
    rejected("A2", ParameterRangeError, [S(0, 23, 0, 3, 48), S(0, 2, 0, 1, 3)], PAGE_SRC,
             operand="slice_list1[0]", value="1 runs")
    rejected("A2", ParameterRangeError, [S(0, 47, 0, 3, 48), S(0, 2, 0, 1, 3)], PAGE_SRC,
             operand="slice_list1[1]", value="3 runs")


def test_fields_are_uint32():
    rejected("A2", ParameterRangeError, PAGE_DST, [S(-1, 70, 7, 3, 87), PAGE_SRC[1]],
             operand="slice_list2[0].start_index", value=-1)


def test_the_lowering_limits():
    # N <= 4095 runs (DataCopyParams.blockCount)
    many = S(0, 4096 * 8 - 1, 0, 1, 4096 * 8)
    rejected("A2", ParameterRangeError, [many], [many], 1, operand="slice_list2[0] runs (N)", value=4096)
    # at most MAX_SLICE_SIZE = 1536 rows
    rows = S(0, 1536, 0, 1, 1537)
    rejected("A2", ParameterRangeError, [S(0, 7, 0, 1, 8), rows], [S(0, 7, 0, 1, 8), rows],
             operand="slice rows (outer dimensions)", value=1537)
    # a GM stride that is not whole DataBlocks travels as bytes in a uint16_t
    wide = S(0, 16400, 16385, 1, 20000)
    rejected("A2", ParameterRangeError, [S(0, 15, 0, 1, 16)], [wide], 1, operand="slice_list2[0].stride (bytes)")
    # ... and then GM -> UB moves a uint16_t byte length
    long = S(0, 16383, 1, 2048, 20000)
    rejected("A2", ParameterRangeError, [S(0, 2048 * 8 - 1, 0, 2048, 20000)], [long], 1,
             operand="slice_list2[0].burst_len (bytes, with a GM stride not whole DataBlocks)", value=65536)


@pytest.mark.parametrize("dst_infos, what", [
    ([S(1, 48, 0, 3, 49), S(0, 1, 0, 1, 2)], "start"),
    ([S(0, 50, 3, 3, 51), S(0, 1, 0, 1, 2)], "dimension 0 run pitch"),
    ([S(0, 47, 0, 3, 50), S(0, 1, 0, 1, 2)], "dimension 1 pitch"),
])
def test_every_ub_run_starts_32_byte_aligned(dst_infos, what):
    rejected("A2", AlignmentError, dst_infos, PAGE_SRC, operand=f"slice_list1 ({what})")
    rejected("A2", AlignmentError, PAGE_SRC, dst_infos, inbound=False, operand=f"slice_list2 ({what})")


def test_destination_runs_do_not_overlap():
    """end_index = shape_value (the page allows it) reaches one element into the next row."""
    rejected("A2", OverlapError, [S(0, 7, 0, 1, 7), S(0, 1, 0, 1, 2)], [S(0, 7, 0, 1, 8), S(0, 1, 0, 1, 2)],
             inbound=False, operand="slice_list1")


def test_gm_and_ub_bounds():
    x = np.zeros(200, np.float32)
    with asc.Core("A2") as core:
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 96)
        assert_rejected(core, OutOfBoundsError, lambda: asc.data_copy(ub, gm(x), PAGE_DST, PAGE_SRC, 2))
        small = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        big = np.zeros(3 * 87, np.float32)
        assert_rejected(core, OutOfBoundsError, lambda: asc.data_copy(small, gm(big), PAGE_DST, PAGE_SRC, 2))


@pytest.mark.parametrize("chip", ["310B", "310P-VEC", "910"])
def test_products_without_the_api(chip):
    rejected(chip, UnsupportedError, PAGE_DST, PAGE_SRC, operand="product")


@pytest.mark.parametrize("chip, dtype", [("310P", asc.bfloat16), ("A2", asc.int64), ("A3", asc.float64)])
def test_dtypes_per_product(chip, dtype):
    infos = [S(0, 32 // dtype.itemsize * 2 - 1, 0, 1, 64)]
    rejected(chip, UnsupportedError, infos, infos, 1, dtype=dtype, operand="dst dtype")


def test_ub_to_ub_and_wrong_types():
    with asc.Core("A2") as core:
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 96)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 96)
        core.ub_write(0, bytes(384))
        with pytest.raises(TypeError, match="GM -> UB"):
            asc.data_copy(b, a, PAGE_DST, PAGE_DST, 2)
        with pytest.raises(TypeError, match="slice_list1 must be a list of asc.SliceInfo"):
            asc.data_copy(b, gm(np.zeros(512, np.float32)), [(0, 47, 0, 3, 48)], PAGE_DST, 2)
        with pytest.raises(TypeError, match="no call form"):
            asc.data_copy(b, a, PAGE_DST, PAGE_DST, 2.0)
