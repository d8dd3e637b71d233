"""hifloat8_t on the 950 (docs/semantics.md §5.32): the dtype's 256 codes, host write/read, and Cast's four
hifloat8_t lines (hifloat8_t -> half / float, CAST_NONE; half / float -> hifloat8_t, CAST_ROUND / CAST_HYBRID).

Expected values come from ``hifloat8_reference`` (the encoding table read as bit strings, rounding by exact
comparison; CAST_HYBRID by the page's threshold rule on values), from the pages' worked examples
(内置数据类型.md 图10, precision_conversion.md) and from the float types' own exact values; results are compared
as raw bytes.
"""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ParameterRangeError, UnsupportedError

from . import hifloat8_reference as ref
from .conftest import assert_rejected

R = asc.RoundMode
H8 = asc.hifloat8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
SRC, DST = 0, 0x10000


def run(src, dst, raw: np.ndarray, mode: R, saturate: bool = True, core_name: str = "950") -> np.ndarray:
    """``cast`` count form of the raw lanes ``raw``: the raw results (dst.raw)."""
    with asc.Core(core_name) as core:
        core.float_saturation = saturate
        x = asc.LocalTensor(src, VECIN, SRC, raw.size)
        z = asc.LocalTensor(dst, VECOUT, DST, raw.size)
        core.ub_write(SRC, raw.astype(src.raw).tobytes())
        asc.cast(z, x, mode, raw.size)
        return np.frombuffer(core.ub_read(DST, raw.size * dst.itemsize), dtype=dst.raw).copy()


def f32_bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# ------------------------------------------------------------------ the encoding
def test_the_256_codes_read_back_as_the_tables_values():
    with asc.Core("950") as core:
        t = asc.LocalTensor(H8, VECIN, 0, 256)
        core.ub_write(0, bytes(range(256)))
        values = t.read()
    assert values.dtype == np.float32
    for code, expected in enumerate(ref.VALUES):
        if expected == "nan":
            assert np.isnan(values[code])
        elif isinstance(expected, str):
            assert values[code] == (np.inf if expected == "+inf" else -np.inf)
        else:
            assert Fraction(float(values[code])) == expected, hex(code)


def test_the_encodings_worked_example_and_ranges():
    # 内置数据类型.md 图10: S = +, D = 01, E = 3, M = 2**-1 + 2**-2: 14 (0 01 01 110)
    assert ref.VALUES[0b00101110] == 14
    finite = [v for v in ref.VALUES if isinstance(v, Fraction) and v > 0]
    assert len(finite) == 126 and len(set(finite)) == 126  # 256 - zero, NaN, ±inf, then the negatives
    assert min(finite) == Fraction(1, 2**22) and max(finite) == 2**15  # 表6: 2**(1-23) .. 2**15 * (1 + 0)
    assert ref.VALUES[0x6E] == 2**15 and ref.VALUES[0x01] == Fraction(1, 2**22)


def test_to_file_writes_the_codes(tmp_path):
    with asc.Core("950"):
        t = asc.LocalTensor(H8, VECIN, 0, 32)
        t.write([14.0, -2.0**-22] + [0.0] * 30)
        t.to_file(str(tmp_path / "h8.bin"))
    assert (tmp_path / "h8.bin").read_bytes() == bytes([0x2E, 0x81] + [0] * 30)


def test_host_write_takes_exactly_the_types_values_and_rejects_the_others():
    with asc.Core("950") as core:
        t = asc.LocalTensor(H8, VECIN, 0, 256)
        t.write(np.array([float(v) for v in ref.VALUES], dtype=np.float64))  # "nan", "+inf", "-inf" too
        assert core.ub_read(0, 256) == bytes(range(256))
        t.write([-0.0, 14.0])  # there is no negative zero: -0.0 is the code 0x00
        assert core.ub_read(0, 2) == bytes([0x00, 0x2E])
        assert_rejected(core, ParameterRangeError, lambda: t.write([1.0, 0.3]), "hifloat8 holds no such value",
                        "内置数据类型.md", value=0.3)
        assert_rejected(core, ParameterRangeError, lambda: t.write([2.0**16]), "holds no such value")
        # exact host values: a Fraction whose nearest double, 2**-22, is a code's value is still no such value
        near = Fraction(1, 2**22) * (1 + Fraction(1, 2**60))
        assert_rejected(core, ParameterRangeError, lambda: t.write(np.array([1.0, near], dtype=object)),
                        "holds no such value", value=near)
        t.write(np.array([Fraction(7, 4), 2**15, Fraction(1, 2**22)], dtype=object))  # exact values are taken
        assert core.ub_read(0, 3) == bytes([0x0E, 0x6E, 0x01])
        assert_rejected(core, UnsupportedError, lambda: t.get_value(0), "not modelled")
        assert_rejected(core, UnsupportedError, lambda: t.set_value(0, 1.0), "not modelled")


# ------------------------------------------------------------------ the worked examples
def test_precision_conversion_examples():
    """precision_conversion.md: hifloat8_t -> float / half of 2 is 2; half / float -> hifloat8_t of 1.75 with
    CAST_ROUND is printed 2, but 1.75 is a hifloat8_t value (0 0001 110): the conversion keeps it (erratum E34);
    CAST_HYBRID, which the page leaves to Cast.md's rule, keeps it too (|Ev| = 0: no bit is dropped)."""
    two = np.array([0x10], dtype=np.uint8)  # 0 001 0 000: 2**1
    assert ref.VALUES[0x10] == 2
    assert run(H8, asc.float32, two, R.CAST_NONE).tolist() == [f32_bits(2.0)]
    assert run(H8, asc.float16, two, R.CAST_NONE).tolist() == [0x4000]
    assert ref.VALUES[0x0E] == Fraction(7, 4)
    assert run(asc.float16, H8, np.array([0x3F00]), R.CAST_ROUND).tolist() == [0x0E]  # half 1.75
    assert run(asc.float32, H8, np.array([f32_bits(1.75)]), R.CAST_ROUND).tolist() == [0x0E]
    assert run(asc.float32, H8, np.array([f32_bits(1.75)]), R.CAST_HYBRID).tolist() == [0x0E]


# ------------------------------------------------------------------ hifloat8_t -> half / float
@pytest.mark.parametrize("saturate", [True, False])
def test_every_code_to_float_and_half(saturate):
    codes = np.arange(256, dtype=np.uint8)
    f32 = run(H8, asc.float32, codes, R.CAST_NONE, saturate)
    f16 = run(H8, asc.float16, codes, R.CAST_NONE, saturate)
    for code, value in enumerate(ref.VALUES):
        if isinstance(value, Fraction):
            assert f32[code] == f32_bits(float(value)) and f16[code] == np.float16(float(value)).view(np.uint16)
    # float takes no saturation (Cast.md 约束说明); half follows CTRL[48]: NaN 0, ±inf ±65504
    assert f32[[0x80, 0x6F, 0xEF]].tolist() == [0x7FC00000, 0x7F800000, 0xFF800000]
    expected = [0x0000, 0x7BFF, 0xFBFF] if saturate else [0x7E00, 0x7C00, 0xFC00]
    assert f16[[0x80, 0x6F, 0xEF]].tolist() == expected


# ------------------------------------------------------------------ float / half -> hifloat8_t
def _grid_neighbourhood() -> list[int]:
    """float32 bits at and one ulp around every code value and every midpoint between neighbours."""
    points = sorted(v for v in ref.VALUES if isinstance(v, Fraction) and v > 0)
    points += [Fraction(3, 2) * 2**15, Fraction(2**16)]
    marks = [Fraction(0), Fraction(1, 2**23)] + points + [(a + b) / 2 for a, b in zip(points, points[1:], strict=False)]
    out = []
    for m in marks:
        bits = f32_bits(float(m))
        out += [bits - 1, bits, bits + 1] if bits else [0, 1]
    return [b for b in out if 0 <= b < 2**31] + [b | 2**31 for b in out if 0 <= b < 2**31]


NEIGHBOURHOOD = _grid_neighbourhood()
F32_SPECIALS = [0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x80000000, 0x00000001,
                0x007FFFFF, 0x7F7FFFFF, 0x47800000, 0x47A00000, 0x479FFFFF, 0x47C00000]


def test_float_to_hifloat8_cast_round_at_every_boundary():
    bits = np.array(NEIGHBOURHOOD + F32_SPECIALS, dtype=np.uint32)
    for saturate in (True, False):
        out = run(asc.float32, H8, bits, R.CAST_ROUND, saturate)
        expected = [ref.round_away(ref.float32_value(int(b)), saturate) for b in bits]
        assert out.tolist() == expected


def test_float_to_hifloat8_cast_hybrid_at_every_boundary():
    bits = np.array(NEIGHBOURHOOD + F32_SPECIALS, dtype=np.uint32)
    for saturate in (True, False):
        out = run(asc.float32, H8, bits, R.CAST_HYBRID, saturate)
        expected = [ref.round_hybrid(ref.float32_value(int(b)), int(b), saturate) for b in bits]
        assert out.tolist() == expected


def test_hybrid_uses_the_sources_low_bits_as_its_threshold():
    """17: Ev = 4 keeps 2 mantissa bits (unit 4) and drops r = 1/4, frac = 4096 (bits 20..7).  Low bits 0 or 1
    (thr <= frac) send it up to 20; low bits 0x3F00 (thr 16128, frac 4096 + 126) down to 16; CAST_ROUND gives 16
    (the first dropped bit is 0)."""
    base = f32_bits(17.0)
    up, down = base | 0x0001, base | 0x3F00
    out = run(asc.float32, H8, np.array([base, up, down], dtype=np.uint32), R.CAST_HYBRID)
    twenty, sixteen = ref.VALUES.index(20), ref.VALUES.index(16)
    assert out.tolist() == [twenty, twenty, sixteen]
    assert run(asc.float32, H8, np.array([base], dtype=np.uint32), R.CAST_ROUND).tolist() == [sixteen]
    exact = run(asc.float32, H8, np.array([f32_bits(16.0), f32_bits(2.0**-22)], dtype=np.uint32), R.CAST_HYBRID)
    assert exact.tolist() == [sixteen, 0x01]  # values the type holds are kept (erratum E34)


@settings(max_examples=60, deadline=None)
@given(bits=st.lists(st.one_of(st.integers(0, 2**32 - 1), st.sampled_from(NEIGHBOURHOOD + F32_SPECIALS)),
                     min_size=1, max_size=200),
       mode=st.sampled_from([R.CAST_ROUND, R.CAST_HYBRID]), saturate=st.booleans())
def test_float_to_hifloat8_matches_the_reference(bits, mode, saturate):
    raw = np.array(bits, dtype=np.uint32)
    out = run(asc.float32, H8, raw, mode, saturate)
    if mode == R.CAST_ROUND:
        expected = [ref.round_away(ref.float32_value(b), saturate) for b in bits]
    else:
        expected = [ref.round_hybrid(ref.float32_value(b), b, saturate) for b in bits]
    assert out.tolist() == expected


@pytest.mark.parametrize("saturate", [True, False])
def test_every_half_to_hifloat8_cast_round(saturate):
    """All 65536 half bit patterns (subnormals, ±0, ±inf, NaNs included) against nearest-ties-away."""
    for start in range(0, 1 << 16, 1 << 14):
        raw = np.arange(start, start + (1 << 14), dtype=np.uint32)
        out = run(asc.float16, H8, raw, R.CAST_ROUND, saturate)
        expected = [ref.round_away(ref.half_value(int(b)), saturate) for b in raw]
        assert out.tolist() == expected


def test_every_normal_half_to_hifloat8_cast_hybrid():
    """Every half bit pattern but the subnormals (rejected: the rule leaves them undefined) against the half
    rule's threshold: two dropped bits against 2 * h[0] + 1."""
    normal = [b for b in range(1 << 16) if not ((b & 0x7C00) == 0 and (b & 0x3FF) != 0)]
    for saturate in (True, False):
        for start in range(0, len(normal), 1 << 14):
            raw = np.array(normal[start:start + (1 << 14)], dtype=np.uint32)
            out = run(asc.float16, H8, raw, R.CAST_HYBRID, saturate)
            expected = [ref.round_hybrid_half(ref.half_value(int(b)), int(b), saturate) for b in raw]
            assert out.tolist() == expected


def test_half_hybrid_threshold_is_the_last_bit_and_one():
    """16 + 1 = 17 as half (Ev = 4, 2 kept bits, unit 4): the two dropped bits are 01 (frac 1); thr = 2*h[0] + 1
    is 1 for h[0] = 0 (up: 20) and 3 for 17 + 2**-6 (h[0] = 1: down, 16); CAST_ROUND gives 16 for both."""
    seventeen = int(np.float16(17).view(np.uint16))
    raw = np.array([seventeen, seventeen | 1], dtype=np.uint32)
    assert run(asc.float16, H8, raw, R.CAST_HYBRID).tolist() == [ref.VALUES.index(20), ref.VALUES.index(16)]
    assert run(asc.float16, H8, raw, R.CAST_ROUND).tolist() == [ref.VALUES.index(16)] * 2


def test_the_mask_form_has_the_wider_types_lanes_and_strides():
    """float -> hifloat8_t: 64 lanes a repeat; dst 64 bytes of each 256 (dst_rep_stride 2 blocks per 8)."""
    lanes = np.array([f32_bits(float(i) / 8) for i in range(128)], dtype=np.uint32)
    with asc.Core("950") as core:
        x = asc.LocalTensor(asc.float32, VECIN, SRC, 128)
        z = asc.LocalTensor(H8, VECOUT, DST, 512)
        core.ub_write(SRC, lanes.tobytes())
        core.ub_write(DST, bytes([0x55]) * 512)
        asc.cast(z, x, R.CAST_ROUND, 64, 2, asc.UnaryRepeatParams(1, 1, 4, 8))  # dst repeats 128 bytes apart
        out = core.ub_read(DST, 512)
    expected = bytearray([0x55]) * 512
    for i in range(128):
        expected[(i // 64) * 128 + i % 64] = ref.round_away(Fraction(i, 8), True)
    assert out == bytes(expected)


def test_half_mask_form_counts_128_lanes_and_a_bitwise_mask():
    """half -> hifloat8_t: a repeat has 128 (16-bit) lanes; the bitwise mask [even lanes of the low word, 0]
    selects 32 of them; masked-off dst bytes keep theirs."""
    lanes = np.arange(256, dtype=np.float16) / np.float16(4)
    with asc.Core("950") as core:
        x = asc.LocalTensor(asc.float16, VECIN, SRC, 256)
        z = asc.LocalTensor(H8, VECOUT, DST, 256)
        x.write(lanes)
        core.ub_write(DST, bytes([0x55]) * 256)
        asc.cast(z, x, R.CAST_ROUND, [0x5555555555555555, 0], 2, asc.UnaryRepeatParams(1, 1, 4, 8))
        out = core.ub_read(DST, 256)
    expected = bytearray([0x55]) * 256
    for i in range(256):
        if i % 128 < 64 and i % 2 == 0:
            expected[i] = ref.round_away(Fraction(float(lanes[i])), True)
    assert out == bytes(expected)


# ------------------------------------------------------------------ the rules
def test_rejected_calls_name_their_rule():
    with asc.Core("950") as core:
        f = asc.LocalTensor(asc.float32, VECIN, 0, 256)
        h = asc.LocalTensor(asc.float16, VECIN, 2048, 256)
        z = asc.LocalTensor(H8, VECOUT, 4096, 256)
        f.write(np.zeros(256, np.float32))
        h.write(np.zeros(256, np.float16))
        core.ub_write(2048 + 2 * 5, np.array([0x0001], np.uint16).tobytes())  # lane 5: the smallest subnormal
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, h, R.CAST_HYBRID, 64), "not modelled",
                        "half转hifloat8_t转换规则", "E34")
        asc.cast(z, h, R.CAST_ROUND, 64)  # CAST_ROUND takes it (2**-24: nearest is 0)
        for mode in (R.CAST_NONE, R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_TRUNC, R.CAST_ODD):
            assert_rejected(core, UnsupportedError, lambda m=mode: asc.cast(z, f, m, 64), "CAST_ROUND, CAST_HYBRID")
        assert_rejected(core, UnsupportedError, lambda: asc.cast(f, z, R.CAST_ROUND, 64), "CAST_NONE")
        i8 = asc.LocalTensor(asc.int8, VECOUT, 8192, 256)
        assert_rejected(core, UnsupportedError, lambda: asc.cast(i8, z, R.CAST_NONE, 64), "does not convert")
    with asc.Core("A2") as core:
        f = asc.LocalTensor(asc.float32, VECIN, 0, 256)
        z = asc.LocalTensor(H8, VECOUT, 4096, 256)
        f.write(np.zeros(256, np.float32))
        assert_rejected(core, UnsupportedError, lambda: asc.cast(z, f, R.CAST_ROUND, 64), "does not convert")
