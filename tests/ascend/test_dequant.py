"""SetDeqScale (DEQSCALE), CastDequant (``cast_deq``), Cast's int32 -> half and their C API (docs/semantics.md §5.21).

Expected bytes come from the pages' worked examples and from ``dequant_reference`` (written from the
pages' formulas and docs/numerics.md's accuracy model, one lane at a time, independent of npusim).
"""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.engine.trace import ByteRange
from npusim.errors import (
    AlignmentError,
    OverlapError,
    ParameterRangeError,
    RuntimeMisuseError,
    UnsupportedError,
)

from . import dequant_reference as ref
from .conftest import assert_rejected, fill

V = asc.TPosition.VECIN
O = asc.TPosition.VECOUT
C = asc.TPosition.VECCALC
R = asc.RoundMode

# CastDequant.md 调用示例: the printed input and output of CastDequant<uint8_t, int16_t, true, true>(dst, src, 256)
PAGE_SRC = """20 53 26 12 36 6 20 93 66 30 56 99 59 92 7 37 22 47 98 10 85 29 14 46 17 34 45 17 25 45 82 17 66 94
68 23 67 8 89 8 92 6 10 80 87 20 9 81 70 62 11 58 38 83 32 14 38 47 41 63 94 26 96 89 88 35 86 55 60
82 15 65 92 67 83 23 63 25 85 93 50 91 75 60 80 10 55 20 71 14 67 23 31 63 7 93 69 45 61 23 43 86 11
81 81 36 76 58 53 25 23 51 59 78 82 10 39 40 24 50 68 49 79 40 4 53 22 38 45 17 29 54 9 66 98 47 12
47 47 20 98 0 59 77 1 21 39 70 66 20 68 8 77 77 54 0 3 33 37 37 48 60 83 88 27 70 31 49 75 21 59 3
99 84 92 84 14 44 26 56 72 56 37 52 39 11 2 59 59 65 71 64 10 65 62 48 42 79 69 69 27 99 8 38 36 77
34 34 60 50 52 50 41 31 95 68 27 16 42 64 19 47 0 10 36 36 33 62 98 64 32 81 49 53 27 70 35 9 63 7
10 89 3 39 94 23 89 16 23 60 71 42 46 58 65 90"""
PAGE_DST = """0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 20 53 26 12 36 6 20 93 66 30 56 99 59 92 7 37 0 0 0 0 0 0 0 0 0 0 0
0 0 0 0 0 22 47 98 10 85 29 14 46 17 34 45 17 25 45 82 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 66 94 68
23 67 8 89 8 92 6 10 80 87 20 9 81 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 70 62 11 58 38 83 32 14 38 47 41
63 94 26 96 89 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 88 35 86 55 60 82 15 65 92 67 83 23 63 25 85 93 0 0 0
0 0 0 0 0 0 0 0 0 0 0 0 0 50 91 75 60 80 10 55 20 71 14 67 23 31 63 7 93 0 0 0 0 0 0 0 0 0 0 0 0 0 0
0 0 69 45 61 23 43 86 11 81 81 36 76 58 53 25 23 51 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 59 78 82 10 39
40 24 50 68 49 79 40 4 53 22 38 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 45 17 29 54 9 66 98 47 12 47 47 20
98 0 59 77 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 1 21 39 70 66 20 68 8 77 77 54 0 3 33 37 37 0 0 0 0 0 0 0
0 0 0 0 0 0 0 0 0 48 60 83 88 27 70 31 49 75 21 59 3 99 84 92 84 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 14
44 26 56 72 56 37 52 39 11 2 59 59 65 71 64 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10 65 62 48 42 79 69 69
27 99 8 38 36 77 34 34 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 60 50 52 50 41 31 95 68 27 16 42 64 19 47 0
10 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 36 36 33 62 98 64 32 81 49 53 27 70 35 9 63 7 0 0 0 0 0 0 0 0 0 0
0 0 0 0 0 0 10 89 3 39 94 23 89 16 23 60 71 42 46 58 65 90"""


def _numbers(text: str) -> list[int]:
    return [int(v) for v in text.split()]


def _half_bits(value: float) -> int:
    return struct.unpack("<H", struct.pack("<e", value))[0]


def _table(core: asc.Core, addr: int, scales, offsets, signs, c_api: bool = False) -> asc.LocalTensor:
    t = asc.LocalTensor(asc.uint64, C, addr, 16)
    if c_api:
        asc.asc_set_deq_scale(t, list(scales), list(offsets), list(signs))
    else:
        asc.set_deq_scale(t, asc.VdeqInfo(list(scales), list(offsets), list(signs)))
    return t


# ------------------------------------------------------------------ the pages' worked examples
@pytest.mark.parametrize("vector", [True, False])
def test_the_cast_dequant_page_example(vector):
    """256 int16 with scale 1, offset 0, unsigned: each 32-byte dst block holds its 16 results in bytes 16-31
    (halfBlock = true); the printed zeros of bytes 0-15 are the dst's, which the call leaves alone."""
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.int16, V, 0, 256)
        z = asc.LocalTensor(asc.uint8, O, 1024, 512)
        x.write(_numbers(PAGE_SRC))
        z.write([0] * 512)
        if vector:
            _table(core, 4096, [1.0] * 16, [0] * 16, [False] * 16)
        else:
            asc.set_deq_scale(1.0, 0, False)
        asc.cast_deq(z, x, 256, vector, True)
        assert core.ub_read(1024, 512) == bytes(_numbers(PAGE_DST))


def test_the_page_example_in_its_mask_forms():
    """The same call as mask 128 x 2 repeats {1, 1, 8, 8}, contiguous and bit-wise (调用示例)."""
    expected = bytes(_numbers(PAGE_DST))
    for mask in (128, [2**64 - 1, 2**64 - 1]):
        with asc.Core("A2") as core:
            x = asc.LocalTensor(asc.int16, V, 0, 256)
            z = asc.LocalTensor(asc.uint8, O, 1024, 512)
            x.write(_numbers(PAGE_SRC))
            z.write([0] * 512)
            _table(core, 4096, [1.0] * 16, [0] * 16, [False] * 16)
            asc.cast_deq(z, x, mask, 2, asc.UnaryRepeatParams(1, 1, 8, 8), True, True, True)
            assert core.ub_read(1024, 512) == expected


def test_the_set_deq_scale_page_examples():
    """SetDeqScale.md 调用示例: scale 1 makes dst = src, for Cast's int32 -> half and both b8 modes
    (CastDequant<int8_t, int16_t, false, false>: results in bytes 0-15 of each block)."""
    values = list(range(-128, 128))
    with asc.Core("A2") as core:
        x32 = asc.LocalTensor(asc.int32, V, 0, 256)
        h = asc.LocalTensor(asc.float16, O, 2048, 256)
        x32.write(values)
        asc.set_deq_scale(1.0)
        asc.cast(h, x32, R.CAST_NONE, 256)
        assert core.ub_read(2048, 512) == np.array(values, np.float16).tobytes()
        x16 = asc.LocalTensor(asc.int16, V, 4096, 256)
        z = asc.LocalTensor(asc.int8, O, 8192, 512)
        x16.write(values)
        for vector in (False, True):
            z.write([0] * 512)
            if vector:
                _table(core, 12288, [1.0] * 16, [0] * 16, [True] * 16)
            else:
                asc.set_deq_scale(1.0, 0, True)
            asc.cast_deq(z, x16, 256, vector, False)
            out = np.frombuffer(core.ub_read(8192, 512), np.int8).reshape(16, 32)
            assert out[:, :16].tobytes() == np.array(values, np.int8).tobytes()
            assert not out[:, 16:].any()


def test_the_c_api_examples():
    """asc_set_deq_scale(1.0, 2, false) stores scale 1.0, offset 2, unsigned; asc_set_deq_scale(2.0) then
    asc_deq_int322half doubles; asc_deq_int162b8_h with (1.0, 0, true) is dst = src in bytes 16-31."""
    with asc.Core("A2") as core:
        asc.asc_set_deq_scale(1.0, 2, False)
        assert core.deqscale == asc.core.DeqScale(None, 0x3F800000 | 2 << 37, False)
        x = asc.LocalTensor(asc.int32, V, 0, 128)
        h = asc.LocalTensor(asc.float16, O, 1024, 128)
        x.write(list(range(128)))
        asc.asc_set_deq_scale(2.0)
        asc.asc_deq_int322half(h, x, 128)
        assert core.ub_read(1024, 256) == (np.arange(128) * 2).astype(np.float16).tobytes()
        s = asc.LocalTensor(asc.int16, V, 2048, 128)
        d = asc.LocalTensor(asc.int8, O, 4096, 256)
        s.write(list(range(-64, 64)))
        d.write([0] * 256)
        asc.asc_set_deq_scale(1.0, 0, True)
        asc.asc_deq_int162b8_h(d, s, 128)
        out = np.frombuffer(core.ub_read(4096, 256), np.int8).reshape(8, 32)
        assert out[:, 16:].tobytes() == np.arange(-64, 64, dtype=np.int8).tobytes() and not out[:, :16].any()


# ------------------------------------------------------------------ the register's bits
@pytest.mark.parametrize("scale, offset, sign", [(1.0, 0, True), (0.1, -1, False), (-3.5, 255, True),
                                                 (1e-40, -256, False), (float("inf"), 300, True),
                                                 (65504.0, -32768, False)])
def test_set_deq_scale_packs_the_word_as_the_implementation(scale, offset, sign):
    """Float bits 0-31, offset & 0x1ff at bit 37, the sign mode at bit 46 (MakeDeqScaleConfig)."""
    with asc.Core("A2") as core:
        asc.set_deq_scale(scale, offset, sign)
        assert core.deqscale.word == ref.word(scale, offset, sign) and core.deqscale.half is None


def test_the_half_prototype_stores_the_half_bits():
    with asc.Core("A2") as core:
        asc.set_deq_scale(0.1)
        assert core.deqscale == asc.core.DeqScale(_half_bits(0.1), None, False) and core.deqscale.half == 0x2E66


@pytest.mark.parametrize("chip, addr, stored", [("A2", 4096, 128), ("310P", 8192, 256), ("950", 4096, 4096)])
def test_the_vector_prototype_writes_the_table_and_stores_its_address(chip, addr, stored):
    scales = [0.5 * j - 2 for j in range(16)]
    offsets = [j * 37 - 300 for j in range(16)]
    signs = [j % 3 == 0 for j in range(16)]
    with asc.Core(chip, trace=True) as core:
        _table(core, addr, scales, offsets, signs)
        words = np.frombuffer(core.ub_read(addr, 128), np.uint64)
        assert [int(w) for w in words] == [ref.word(*entry) for entry in zip(scales, offsets, signs, strict=True)]
        assert core.deqscale == asc.core.DeqScale(None, stored, True)
        record = core.trace[-1]
        assert record.registers_written == ("DEQSCALE",) and record.writes[0].start == addr
        assert record.writes[0].stop == addr + 128


def test_the_a2_prototypes_share_the_register_and_the_950_keeps_the_half_scale():
    for chip, shared in (("A2", True), ("A3", True), ("310P", True), ("950", False)):
        with asc.Core(chip) as core:
            asc.set_deq_scale(0.5)
            asc.set_deq_scale(2.0, 1, True)
            expected_half = None if shared else _half_bits(0.5)
            assert core.deqscale == asc.core.DeqScale(expected_half, ref.word(2.0, 1, True), False), chip
            asc.set_deq_scale(0.25)
            assert core.deqscale.half == _half_bits(0.25)
            assert (core.deqscale.word is None) == shared


# ------------------------------------------------------------------ reading DEQSCALE
def test_reading_deqscale_before_set_deq_scale_is_a_misuse(a2):
    x = asc.LocalTensor(asc.int32, V, 0, 64)
    h = asc.LocalTensor(asc.float16, O, 1024, 64)
    x16 = asc.LocalTensor(asc.int16, V, 2048, 128)
    z = asc.LocalTensor(asc.int8, O, 4096, 256)
    for call in (lambda: asc.cast(h, x, R.CAST_RINT, 64), lambda: asc.cast_deq(h, x, 64),
                 lambda: asc.asc_deq_int322half(h, x, 64), lambda: asc.cast_deq(z, x16, 128, False),
                 lambda: asc.cast_deq(z, x16, 128), lambda: asc.asc_vdeq_int162b8_l(z, x16, 128)):
        assert_rejected(a2, RuntimeMisuseError, call, "never set", operand="DEQSCALE")


def test_a_call_needs_the_prototype_it_pairs_with(a2):
    """CastDequant.md 约束说明 (the mapping table): int32 -> half with the half scale, b8 with the word or the table."""
    x = asc.LocalTensor(asc.int32, V, 0, 64)
    h = asc.LocalTensor(asc.float16, O, 1024, 64)
    x16 = asc.LocalTensor(asc.int16, V, 2048, 128)
    z = asc.LocalTensor(asc.int8, O, 4096, 256)
    asc.set_deq_scale(1.0, 0, True)
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast(h, x, R.CAST_NONE, 64), "holds an int16 -> b8 word")
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast_deq(z, x16, 128, True), "scale/offset/sign word")
    _table(a2, 8192, [1.0] * 16, [0] * 16, [True] * 16)
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast_deq(z, x16, 128, False), "vdeq table address")
    asc.set_deq_scale(1.0)
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast_deq(z, x16, 128, True), "holds a half scale")


def test_the_dst_type_must_match_the_sign_mode(a2):
    x16 = asc.LocalTensor(asc.int16, V, 2048, 128)
    z8 = asc.LocalTensor(asc.int8, O, 4096, 256)
    u8 = asc.LocalTensor(asc.uint8, O, 4096, 256)
    asc.set_deq_scale(1.0, 0, False)
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast_deq(z8, x16, 128, False), "uint8", operand="dst dtype")
    asc.set_deq_scale(1.0, 0, True)
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast_deq(u8, x16, 128, False), "int8", operand="dst dtype")
    signs = [True] * 16
    signs[5] = False
    _table(a2, 8192, [1.0] * 16, [0] * 16, signs)
    assert_rejected(a2, RuntimeMisuseError, lambda: asc.cast_deq(z8, x16, 128, True), "sign mode",
                    operand="vdeq table entry 5 sign_mode")
    asc.cast_deq(z8, x16, [0xFFDF, 0], 1, asc.UnaryRepeatParams(1, 1, 8, 8))  # lane 5 off: entry 5 unused


# ------------------------------------------------------------------ rules (约束说明) and products
def test_products_without_set_deq_scale_reject_it():
    for chip in ("310B", "310P-VEC", "910", "KirinX90"):
        with asc.Core(chip) as core:
            fill(core, 0, 8192)
            x = asc.LocalTensor(asc.int16, V, 0, 128)
            z = asc.LocalTensor(asc.int8, O, 1024, 128)
            assert_rejected(core, UnsupportedError, lambda: asc.set_deq_scale(1.0), chip, operand="product")
            assert_rejected(core, UnsupportedError, lambda z=z, x=x: asc.cast_deq(z, x, 128), chip, operand="product")


def test_the_c_api_is_the_a2_a3s():
    for chip in ("950", "310P"):
        with asc.Core(chip) as core:
            fill(core, 0, 8192)
            x = asc.LocalTensor(asc.int16, V, 0, 128)
            z = asc.LocalTensor(asc.int8, O, 1024, 128)
            assert_rejected(core, UnsupportedError, lambda: asc.asc_set_deq_scale(1.0), operand="product")
            assert_rejected(core, UnsupportedError, lambda z=z, x=x: asc.asc_deq_int162b8_h(z, x, 128),
                            operand="product")


def test_the_products_dtype_tables():
    with asc.Core("310P") as core:
        fill(core, 0, 8192)
        x = asc.LocalTensor(asc.int32, V, 0, 64)
        h = asc.LocalTensor(asc.float16, O, 1024, 64)
        asc.set_deq_scale(1.0)
        assert_rejected(core, UnsupportedError, lambda: asc.cast_deq(h, x, 64), "int32 -> float16",
                        operand="src/dst dtypes")
        asc.cast(h, x, R.CAST_NONE, 64)  # Cast's table has the pair on the 310P
    with asc.Core("A2") as core:
        fill(core, 0, 8192)
        x = asc.LocalTensor(asc.int16, V, 0, 128)
        z = asc.LocalTensor(asc.int16, O, 1024, 128)
        assert_rejected(core, UnsupportedError, lambda: asc.cast_deq(z, x, 128), "int16 -> int16")


def test_the_950_runs_int32_to_half_only_in_the_count_form_and_no_b8():
    with asc.Core("950") as core:
        fill(core, 0, 8192)
        x = asc.LocalTensor(asc.int32, V, 0, 64)
        h = asc.LocalTensor(asc.float16, O, 1024, 64)
        x16 = asc.LocalTensor(asc.int16, V, 2048, 128)
        z = asc.LocalTensor(asc.int8, O, 4096, 256)
        asc.set_deq_scale(0.5)
        asc.cast_deq(h, x, 64)
        assert_rejected(core, UnsupportedError, lambda: asc.cast_deq(h, x, 64, 1, asc.UnaryRepeatParams(1, 1, 4, 8)),
                        "8 KB", operand="form")
        asc.set_deq_scale(1.0, 0, True)
        assert_rejected(core, UnsupportedError, lambda: asc.cast_deq(z, x16, 128, False), "256-byte repeats")
        assert_rejected(core, ParameterRangeError, lambda: asc.cast_deq(h, x, 0), "NOP", operand="count")


def test_set_deq_scale_rules(a2):
    assert_rejected(a2, ParameterRangeError, lambda: asc.set_deq_scale(1.0, 40000, True), "int16_t",
                    operand="offset")
    with pytest.raises(TypeError):
        asc.set_deq_scale(1.0, 1.5, True)
    with pytest.raises(TypeError):
        asc.set_deq_scale(1.0, 1, "yes")
    with pytest.raises(TypeError):
        asc.set_deq_scale("1.0")
    info = asc.VdeqInfo([1.0] * 16, [0] * 16, [True] * 16)
    small = asc.LocalTensor(asc.uint64, C, 4096, 8)
    assert_rejected(a2, ParameterRangeError, lambda: asc.set_deq_scale(small, info), "128 bytes", operand="vdeq size")
    wrong = asc.LocalTensor(asc.uint32, C, 4096, 32)
    assert_rejected(a2, UnsupportedError, lambda: asc.set_deq_scale(wrong, info), "uint64", operand="vdeq dtype")
    odd = asc.LocalTensor(asc.uint64, C, 4104, 16)
    assert_rejected(a2, AlignmentError, lambda: asc.set_deq_scale(odd, info))
    table = asc.LocalTensor(asc.uint64, C, 4096, 16)
    short = asc.VdeqInfo([1.0] * 15, [0] * 16, [True] * 16)
    assert_rejected(a2, ParameterRangeError, lambda: asc.set_deq_scale(table, short), "16", operand="scale length")
    assert_rejected(a2, ParameterRangeError, lambda: asc.asc_set_deq_scale(table, [1.0] * 16, [0] * 17,
                                                                           [True] * 16), operand="offset length")


def test_cast_deq_placement_rules(a2):
    asc.set_deq_scale(1.0, 0, True)
    x = asc.LocalTensor(asc.int16, V, 0, 256)
    z = asc.LocalTensor(asc.int8, O, 1024, 512)
    assert_rejected(a2, OverlapError, lambda: asc.cast_deq(asc.LocalTensor(asc.int8, O, 0, 512), x, 256, False))
    assert_rejected(a2, AlignmentError, lambda: asc.cast_deq(asc.LocalTensor(asc.int8, O, 1040, 256), x, 128, False))
    assert_rejected(a2, ParameterRangeError, lambda: asc.cast_deq(z, x, 128, 1, asc.UnaryRepeatParams(0, 1, 8, 8),
                                                                  True, False), operand="dst block stride")
    assert_rejected(a2, ParameterRangeError, lambda: asc.cast_deq(z, x, 2**32, False), operand="count")
    with pytest.raises(TypeError):
        asc.cast_deq(z, x, 128, 1, asc.UnaryRepeatParams(1, 1, 8, 8), True, 2, True)
    before = a2.ub_read(0, 4096)
    asc.cast_deq(z, x, 0, False)  # count 0: a NOP on the A2 (约束说明)
    assert a2.ub_read(0, 4096) == before


def test_a_misused_table_changes_nothing_and_the_table_is_read_per_call(a2):
    """The table is UB, read by every call: a call after the table changed uses the new words."""
    x = asc.LocalTensor(asc.int16, V, 0, 128)
    z = asc.LocalTensor(asc.uint8, O, 1024, 256)
    x.write([10] * 128)
    t = _table(a2, 8192, [1.0] * 16, [0] * 16, [False] * 16)
    asc.cast_deq(z, x, 128, True, True)
    assert np.frombuffer(a2.ub_read(1024, 256), np.uint8).reshape(8, 32)[:, 16:].min() == 10
    t.write([ref.word(3.0, 1, False)] * 16)
    asc.cast_deq(z, x, 128, True, True)
    assert set(np.frombuffer(a2.ub_read(1024, 256), np.uint8).reshape(8, 32)[:, 16:].ravel()) == {31}


# ------------------------------------------------------------------ access records
def test_access_records_name_deqscale():
    with asc.Core("A2", trace=True) as core:
        x = asc.LocalTensor(asc.int16, V, 0, 128)
        z = asc.LocalTensor(asc.int8, O, 1024, 256)
        x.write([1] * 128)
        asc.set_deq_scale(1.0, 0, True)
        assert core.trace[-1].registers_written == ("DEQSCALE",) and core.trace[-1].pipe == "S"
        asc.cast_deq(z, x, 100, False, True)
        record = core.trace[-1]
        assert "DEQSCALE" in record.registers_read
        assert record.reads == (ByteRange("UB", 0, 200),)
        assert record.writes == tuple(ByteRange("UB", 1024 + 32 * b + 16, 1024 + 32 * b + 16 + min(16, 100 - 16 * b))
                                      for b in range(7))
        _table(core, 8192, [1.0] * 16, [0] * 16, [True] * 16)
        asc.cast_deq(z, x, 100, True, False)
        spans = {(r.start, r.stop) for r in core.trace[-1].reads}
        assert (8192, 8320) in spans and (0, 200) in spans
        y = asc.LocalTensor(asc.int32, V, 4096, 64)
        h = asc.LocalTensor(asc.float16, O, 6144, 64)
        y.write([1] * 64)
        asc.set_deq_scale(1.0)
        asc.cast(h, y, R.CAST_NONE, 64)
        assert "DEQSCALE" in core.trace[-1].registers_read


# ------------------------------------------------------------------ properties against the reference
SRC, DST, TABLE = 0, 16384, 32768
SPECIAL_SCALES = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0e-39, 1.0e-45, 65504.0, 1.0e30, float("inf"), float("-inf"),
                  float("nan"), 1.0009765625, 1.00048828125, 0.0999755859375]
scales = st.one_of(st.sampled_from(SPECIAL_SCALES), st.floats(width=32, allow_nan=True, allow_infinity=True),
                   st.floats(-300.0, 300.0, width=32))
int16s = st.integers(-(1 << 15), (1 << 15) - 1)


def _lanes(mask_kind: str, count: int, repeats: int, words: tuple[int, int]) -> list[tuple[int, int]]:
    """(repeat, lane) of every active lane, in issue order."""
    if mask_kind == "count":
        return [(i // 128, i % 128) for i in range(count)]
    if mask_kind == "contiguous":
        return [(r, k) for r in range(repeats) for k in range(count)]
    bits = words[0] | words[1] << 64
    return [(r, k) for r in range(repeats) for k in range(128) if bits >> k & 1]


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_every_b8_lane_matches_the_reference(data):
    chip = data.draw(st.sampled_from(["A2", "310P", "A3"]), "chip")
    vector = data.draw(st.booleans(), "vector")
    upper = data.draw(st.booleans(), "half_block")
    signed = data.draw(st.booleans(), "signed dst")
    api = data.draw(st.sampled_from(["cast_deq", "c_api"]) if chip != "310P" else st.just("cast_deq"), "api")
    kind = data.draw(st.sampled_from(["count", "contiguous", "bits"] if api == "cast_deq" else ["count", "repeat"]))
    repeats = data.draw(st.integers(1, 3), "repeats")
    d_blk, s_blk = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    d_rep = 8 * d_blk + data.draw(st.integers(0, 3))
    s_rep = 8 * s_blk + data.draw(st.integers(0, 3))
    if kind == "count":
        count = data.draw(st.integers(1, 128 * repeats), "count")
        d_blk = s_blk = 1
        d_rep = s_rep = 8
        repeats = -(-count // 128)
    else:
        count = data.draw(st.integers(1, 128), "mask")
    words = (data.draw(st.integers(1, 2**64 - 1)), data.draw(st.integers(0, 2**64 - 1)))
    n_params = 16 if vector else 1
    params = [(data.draw(scales), data.draw(int16s), signed) for _ in range(n_params)]
    with asc.Core(chip) as core:
        fill(core, 0, 48 * 1024, seed=data.draw(st.integers(0, 99)))
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "src seed"))
        values = rng.integers(-(1 << 15), 1 << 15, 2048).astype(np.int16)
        values[rng.integers(0, 2048, 64)] = rng.choice([0, 1, -1, 127, 128, -128, 255, 256, -256, -257, 32767, -32768],
                                                       64)
        core.ub_write(SRC, values.tobytes())
        x = asc.LocalTensor(asc.int16, V, SRC, 2048)
        z = asc.LocalTensor(asc.int8 if signed else asc.uint8, O, DST, 4096)
        if vector:
            _table(core, TABLE, *zip(*params, strict=True), c_api=api == "c_api")
        elif api == "c_api":
            asc.asc_set_deq_scale(*params[0])
        else:
            asc.set_deq_scale(*params[0])
        before = bytearray(core.ub_read(0, 48 * 1024))
        if api == "c_api":
            name = f"asc_{'v' * vector}deq_int162b8_{'h' if upper else 'l'}"
            function = getattr(asc, name)
            if kind == "count":
                function(z, x, count)
            else:
                count = 128
                function(z, x, repeats, d_blk, s_blk, d_rep, s_rep)
            kind = "count" if kind == "count" else "contiguous"
        elif kind == "count":
            asc.cast_deq(z, x, count, vector, upper)
        else:
            mask = count if kind == "contiguous" else list(words)
            asc.cast_deq(z, x, mask, repeats, asc.UnaryRepeatParams(d_blk, s_blk, d_rep, s_rep), True, vector, upper)
        expected = before
        table = [ref.word(*p) for p in params]
        for r, k in _lanes(kind, count, repeats, words):
            s_addr = SRC + r * s_rep * 32 + (k // 16) * s_blk * 32 + (k % 16) * 2
            d_addr = DST + r * d_rep * 32 + (k // 16) * d_blk * 32 + 16 * upper + k % 16
            source = int.from_bytes(before[s_addr:s_addr + 2], "little", signed=True)
            expected[d_addr] = ref.b8_lane(source, table[k % 16 if vector else 0], signed)
        assert core.ub_read(0, 48 * 1024) == bytes(expected)


half_bits = st.one_of(st.integers(0, 0xFFFF), st.sampled_from([0x3C00, 0x2E66, 0x7BFF, 0x0001, 0x8000, 0x7C00,
                                                              0xFC00, 0x7E00, 0x3555]))
int32s = st.one_of(st.integers(-(1 << 31), (1 << 31) - 1), st.sampled_from([0, 1, -1, 2**31 - 1, -2**31, 2049,
                                                                             16777217, 65519, 65520]))


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_every_int32_to_half_lane_matches_the_reference(data):
    chip = data.draw(st.sampled_from(["A2", "310P", "950"]), "chip")
    apis = {"A2": ["cast", "cast_deq", "asc_deq_int322half"], "310P": ["cast"], "950": ["cast", "cast_deq"]}[chip]
    api = data.draw(st.sampled_from(apis), "api")
    bits = data.draw(half_bits, "scale bits")
    scale = float(np.uint16(bits).view(np.float16))
    stored = _half_bits(scale)  # a NaN scale is stored as the canonical NaN
    saturate = chip == "A2"  # CTRL[48] at power-on saturates half results on the A2; the 950's step is NO_SAT
    values = data.draw(st.lists(int32s, min_size=64, max_size=256), "src")
    count = len(values)
    with asc.Core(chip) as core:
        fill(core, 0, 8192)
        x = asc.LocalTensor(asc.int32, V, 0, 256)
        h = asc.LocalTensor(asc.float16, O, 2048, 256)
        core.ub_write(0, np.array(values, np.int32).tobytes())
        before = bytearray(core.ub_read(0, 8192))
        asc.set_deq_scale(scale)
        mask_form = api == "cast" and chip != "950" and data.draw(st.booleans(), "mask form")
        if api == "cast" and mask_form:
            count = 64 * (count // 64)
            asc.cast(h, x, R.CAST_RINT, 64, count // 64, asc.UnaryRepeatParams(1, 1, 4, 8))
        elif api == "cast":
            asc.cast(h, x, data.draw(st.sampled_from(list(R))), count)
        else:
            getattr(asc, api)(h, x, count)
        for i in range(count):
            lane = ref.half_lane(values[i], stored, saturate)
            before[2048 + 2 * i:2048 + 2 * i + 2] = lane.to_bytes(2, "little")
        assert core.ub_read(0, 8192) == bytes(before)


def test_pyasc_keyword_forms():
    """pyasc's spelling (basic/utils.py set_deq_scale_docstring): keywords count, is_vec_deq, half_block;
    VdeqInfo(scale, offset, sign_mode)."""
    with asc.Core("A2") as core:
        x = asc.LocalTensor(asc.int16, V, 0, 128)
        z = asc.LocalTensor(asc.uint8, O, 1024, 256)
        x.write(list(range(128)))
        z.write([0] * 256)
        vdeq = asc.LocalTensor(dtype=asc.uint64, pos=V, addr=4096, tile_size=16)
        asc.set_deq_scale(vdeq, asc.VdeqInfo(scale=[1.0] * 16, offset=[0] * 16, sign_mode=[False] * 16))
        asc.cast_deq(z, x, count=128, is_vec_deq=True, half_block=False)
        out = np.frombuffer(core.ub_read(1024, 256), np.uint8).reshape(8, 32)
        assert out[:, :16].tobytes() == bytes(range(128)) and not out[:, 16:].any()
