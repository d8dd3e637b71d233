"""sort32 and asc_bitsort[_sync] (排序组合/Sort32.md, C-API asc_bitsort.md) against the model of
tests/ascend/sort_reference.py, raw bytes; and every rule of the pages."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import sort_reference as ref
from .conftest import assert_rejected

UB_IMAGE = 96 * 1024
SRC0, SRC1, DST = 0, 32768, 49152
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SPECIAL = {2: [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE01, 0x7C01, 0x3C00, 0xBC00, 0x0001, 0x8001],
           4: [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x3F800000,
               0xBF800000, 0x00000001, 0x80000001]}


def image(seed: int) -> bytearray:
    return bytearray(np.random.default_rng(seed).integers(0, 256, UB_IMAGE, dtype=np.uint8).tobytes())


def scores_with_specials(rng, n: int, itemsize: int) -> bytes:
    """Random scores with many ties and special values (NaN, ±inf, ±0, subnormals)."""
    kind = np.uint16 if itemsize == 2 else np.uint32
    pool = np.array(SPECIAL[itemsize] + list(rng.integers(0, 1 << (8 * itemsize), 8)), dtype=kind)
    return rng.choice(pool, n).astype(kind).tobytes()


def run_sort32(chip: str, dtype, ub: bytes, repeats: int, name: str = "sort32") -> bytes:
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(ub))
        s = asc.LocalTensor(dtype, VECIN, SRC0, 8192)
        ix = asc.LocalTensor(asc.uint32, VECIN, SRC1, 4096)
        z = asc.LocalTensor(dtype, VECOUT, DST, 45056 // dtype.itemsize)
        getattr(asc, name)(z, s, ix, repeats)
        return core.ub_read(0, UB_IMAGE)


@pytest.mark.parametrize("chip", ["A2", "A3", "310B", "950"])
@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
def test_sort32_matches_the_model_on_every_product(chip, dtype):
    rng = np.random.default_rng(5)
    ub = image(1)
    repeats = 5
    ub[SRC0:SRC0 + 32 * repeats * dtype.itemsize] = scores_with_specials(rng, 32 * repeats, dtype.itemsize)
    expected = bytearray(ub)
    ref.sort32(expected, DST, SRC0, SRC1, repeats, dtype.itemsize)
    assert run_sort32(chip, dtype, ub, repeats) == bytes(expected)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), repeats=st.integers(1, 12), half=st.booleans(), special=st.booleans())
def test_sort32_property(seed, repeats, half, special):
    dtype = asc.float16 if half else asc.float32
    rng = np.random.default_rng(seed)
    ub = image(seed % 1000)
    n = 32 * repeats * dtype.itemsize
    if special:
        ub[SRC0:SRC0 + n] = scores_with_specials(rng, 32 * repeats, dtype.itemsize)
    expected = bytearray(ub)
    ref.sort32(expected, DST, SRC0, SRC1, repeats, dtype.itemsize)
    assert run_sort32("A2", dtype, ub, repeats) == bytes(expected)


def test_ties_keep_input_order_and_signed_zeros_tie():
    """约束说明: equal scores keep input order; -0.0 and +0.0 tie (docs/semantics.md §5.15)."""
    ub = image(3)
    values = [1.0, -0.0, 0.0, 1.0, float("nan"), -0.0, float("inf"), 0.0] * 4
    ub[SRC0:SRC0 + 128] = struct.pack("<32f", *values)
    ub[SRC1:SRC1 + 128] = struct.pack("<32I", *range(32))
    out = run_sort32("A2", asc.float32, ub, 1)
    indices = list(struct.unpack("<64I", out[DST:DST + 256])[1::2])
    nan, inf, one = [i for i in range(32) if i % 8 == 4], [i for i in range(32) if i % 8 == 6], \
        [i for i in range(32) if i % 8 in (0, 3)]
    zeros = [i for i in range(32) if i % 8 in (1, 2, 5, 7)]
    assert indices == nan + inf + one + zeros


def test_half_reserved_bytes_are_left_alone():
    ub = image(4)
    out = run_sort32("A2", asc.float16, ub, 3)
    for k in range(96):
        assert out[DST + 8 * k + 2: DST + 8 * k + 4] == bytes(ub[DST + 8 * k + 2: DST + 8 * k + 4])


def test_half_src0_advances_64_bytes_per_repeat():
    """Errata (docs/numerics.md): 32 half scores per repeat are 64 bytes, as asc_bitsort.md says."""
    ub = image(6)
    ub[SRC0:SRC0 + 128] = struct.pack("<64e", *range(64))
    out = run_sort32("A2", asc.float16, ub, 2)
    second = struct.unpack("<256e", out[DST:DST + 512])[128::4]
    assert list(second) == list(range(63, 31, -1))


def test_the_c_api_is_sort32_and_the_sync_form_adds_a_barrier():
    rng = np.random.default_rng(8)
    ub = image(8)
    ub[SRC0:SRC0 + 512] = scores_with_specials(rng, 128, 4)
    plain = run_sort32("A2", asc.float32, ub, 4)
    assert run_sort32("A2", asc.float32, ub, 4, "asc_bitsort") == plain
    assert run_sort32("A3", asc.float32, ub, 4, "asc_bitsort_sync") == plain
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(ub))
        s, ix = asc.LocalTensor(asc.float32, VECIN, SRC0, 128), asc.LocalTensor(asc.uint32, VECIN, SRC1, 128)
        z = asc.LocalTensor(asc.float32, VECOUT, DST, 256)
        asc.asc_bitsort(z, s, ix, 4)
        assert core.sync_log == []
        asc.asc_bitsort_sync(z, s, ix, 4)
        assert [r.kind for r in core.sync_log] == ["pipe_barrier"]


def test_repeat_zero_is_a_nop_on_the_a2_and_rejected_on_the_950():
    ub = image(9)
    assert run_sort32("A2", asc.float32, ub, 0) == bytes(ub)
    with asc.Core("950") as core:
        s, ix = asc.LocalTensor(asc.float32, VECIN, SRC0, 128), asc.LocalTensor(asc.uint32, VECIN, SRC1, 128)
        z = asc.LocalTensor(asc.float32, VECOUT, DST, 256)
        assert_rejected(core, ParameterRangeError, lambda: asc.sort32(z, s, ix, 0), "NOP",
                        instruction="sort32", operand="repeat_time", value=0)


def tensors(dtype=asc.float32, s_addr=SRC0, ix_addr=SRC1, z_addr=DST, ix_dtype=asc.uint32, sizes=(4096, 4096, 4096)):
    return (asc.LocalTensor(dtype, VECOUT, z_addr, sizes[2]), asc.LocalTensor(dtype, VECIN, s_addr, sizes[0]),
            asc.LocalTensor(ix_dtype, VECIN, ix_addr, sizes[1]))


@pytest.mark.parametrize("chip", ["310P", "910", "KirinX90"])
def test_products_without_sort32(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.sort32(*tensors(), 1), instruction="sort32")


@pytest.mark.parametrize("chip", ["310B", "950"])
def test_the_c_api_exists_on_the_a2_a3_only(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.asc_bitsort(*tensors(), 1), instruction="asc_bitsort")


def test_rejected_calls():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(UB_IMAGE))
        assert_rejected(core, UnsupportedError, lambda: asc.sort32(*tensors(asc.int32), 1), operand="dst dtype")
        z, s, ix = tensors()
        s16 = asc.LocalTensor(asc.float16, VECIN, SRC0, 4096)
        assert_rejected(core, UnsupportedError, lambda: asc.sort32(z, s16, ix, 1), operand="src0 dtype")
        assert_rejected(core, UnsupportedError, lambda: asc.sort32(*tensors(ix_dtype=asc.int32), 1),
                        operand="src1 dtype")
        assert_rejected(core, ParameterRangeError, lambda: asc.sort32(z, s, ix, 256), operand="repeat_time",
                        value=256)
        assert_rejected(core, AlignmentError, lambda: asc.sort32(*tensors(s_addr=SRC0 + 16), 1), operand="src0 address")
        assert_rejected(core, AlignmentError, lambda: asc.sort32(*tensors(z_addr=DST + 8), 1), operand="dst address")
        small = tensors(sizes=(4096, 4096, 50))
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort32(*small, 1), operand="dst byte range")
        assert_rejected(core, OutOfBoundsError, lambda: asc.sort32(*tensors(sizes=(40, 4096, 4096)), 2),
                        operand="src0 byte range")
        # dst of repeat 0 is src0 of repeat 1: a later repeat reads what an earlier one wrote (§1.6)
        assert_rejected(core, OverlapError, lambda: asc.sort32(*tensors(s_addr=DST + 128), 2))
        assert_rejected(core, OverlapError, lambda: asc.sort32(*tensors(ix_addr=DST), 1))


@pytest.mark.parametrize("chip, half, single", [("A2", 4, 2), ("A3", 4, 2), ("950", 4, 2), ("310B", 4, 2),
                                                ("KirinX90", 4, 2), ("310P", 8, 8), ("910", 8, 8)])
def test_sort_lengths_in_elements_of_t(chip, half, single):
    """GetSortLen/GetSortOffset (kernel_operator_proposal_intf_impl.h): 8-byte structures, 4 half or 2 float
    elements each; region proposals of 8 elements on the 910 and the 310P.  pyasc emits GetSortLen<float>
    (OpProposal.td): float is the default.  The pages say bytes (erratum, docs/numerics.md)."""
    with asc.Core(chip):
        assert asc.get_sort_len(100) == 100 * single
        assert asc.get_sort_len(100, asc.float16) == 100 * half
        assert asc.get_sort_offset(7, asc.float32) == 7 * single
        assert asc.get_sort_offset(2**32 - 1, asc.float16) == (2**32 - 1) * half


def test_sort_length_rules():
    with asc.Core("A2") as core:
        assert_rejected(core, UnsupportedError, lambda: asc.get_sort_len(4, asc.int32), operand="T dtype")
        assert_rejected(core, ParameterRangeError, lambda: asc.get_sort_len(-1), operand="elem_count", value=-1)
        asc.get_sort_offset(3)
        assert_rejected(core, ParameterRangeError, lambda: asc.get_sort_offset(2**32), operand="elem_offset")
    with asc.Core("310P-VEC") as core:
        assert_rejected(core, UnsupportedError, lambda: asc.get_sort_len(4), instruction="get_sort_len")
