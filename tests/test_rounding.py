"""Narrowing numbers to float element types: one rounding, to nearest even, from the exact value.

The expected bits come from two independent places: constants derived by hand (the
comment says how) and the exact-rational reference in ``tests/float_reference.py``.  None
come from a numpy or ml_dtypes cast, whose results differ between versions.  The rule is
checked in ``npusim.rounding`` and through every public way a number reaches an element:
Ascend scalar operands (``adds``, ``duplicate``, ``compare_scalar``, the C API,
``GlobalTensor.set_value``), host writes (``LocalTensor.write``/``set_value``, Sophgo
``write_global``/``write_local``), Sophgo ``scalar_t`` and golden-case ``init`` values.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.dtypes import by_name
from npusim.golden import run_case
from npusim.rounding import float_array_bits, float_bits, narrowed_bits

from .float_reference import FORMATS, expected_bits, nan_bits, width

FLOATS = ("float16", "bfloat16", "float32", "float64", "float8_e5m2", "float8_e4m3fn")
HALF_MAX = 65504  # 0x7BFF = (2 - 2**-10) * 2**15; half an ulp there is 2**4
BF16_MAX = 2**128 - 2**120  # 0x7F7F = (2 - 2**-7) * 2**127; half an ulp is 2**119
F32_MAX = 2**128 - 2**104  # 0x7F7FFFFF = (2 - 2**-23) * 2**127; half an ulp is 2**103

# (dtype, value, bits, how the bits follow)
PINNED = [
    # the halfway cases that a rounding through float32 gets wrong (1 + 2**-30 is below float32's half ulp)
    ("float16", 1 + 2**-11 + 2**-30, 0x3C01, "just above the tie 1 + half an ulp: up"),
    ("bfloat16", 1 + 2**-8 + 2**-30, 0x3F81, "just above the tie 1 + half an ulp: up"),
    ("float32", 2**60 + 2**36 + 1, 0x5D800001, "int above the tie 2**60 + 2**36: up to 2**60 + 2**37"),
    ("float32", -(2**60 + 2**36 + 1), 0xDD800001, "the same, negative"),
    ("float64", 2**53 + 1, 0x4340000000000000, "tie between 2**53 and 2**53 + 2: even, down"),
    ("float64", 2**53 + 3, 0x4340000000000002, "tie between 2**53 + 2 and 2**53 + 4: even, up"),
    # exact ties go to the even significand, both ways
    ("float16", 1 + 2**-11, 0x3C00, "tie, 0x3C00 is even: down"),
    ("float16", 1 + 3 * 2**-11, 0x3C02, "tie between 0x3C01 and 0x3C02: up"),
    ("bfloat16", 1 + 2**-8, 0x3F80, "tie: down"),
    ("bfloat16", -(1 + 3 * 2**-8), 0xBF82, "tie: up in magnitude"),
    ("float32", 1 + 2**-24, 0x3F800000, "tie: down"),
    ("float32", 1 + 3 * 2**-24, 0x3F800002, "tie: up"),
    ("float8_e4m3fn", 1 + 2**-4, 0x38, "tie: down (1.0 = 0x38)"),
    ("float8_e5m2", 1 + 3 * 2**-3, 0x3E, "tie between 1.25 (0x3D) and 1.5 (0x3E): up"),
    # overflow: from the largest finite value plus half an ulp on, infinity
    ("float16", HALF_MAX + 16, 0x7C00, "max + half ulp is a tie with odd max: up, to infinity"),
    ("float16", HALF_MAX + 16 - 2**-20, 0x7BFF, "just below it: max"),
    ("float16", -(HALF_MAX + 16), 0xFC00, "negative overflow"),
    ("float16", 10**400, 0x7C00, "an int far beyond every double"),
    ("float16", math.inf, 0x7C00, "infinity stays"),
    ("bfloat16", BF16_MAX + 2**119, 0x7F80, "max + half ulp: infinity"),
    ("bfloat16", BF16_MAX + 2**119 - 2**90, 0x7F7F, "just below: max"),
    ("float32", F32_MAX + 2**103, 0x7F800000, "max + half ulp: infinity"),
    ("float32", F32_MAX + 2**103 - 1, 0x7F7FFFFF, "an int just below: max"),
    ("float8_e5m2", 57344 + 4096, 0x7C, "e5m2 max 0x7B = 1.75 * 2**15, + half ulp: infinity"),
    ("float8_e5m2", 57344 + 4095, 0x7B, "just below: max"),
    # float8_e4m3fn has no infinity: overflow saturates to +-448
    ("float8_e4m3fn", 448, 0x7E, "max = 1.75 * 2**8"),
    ("float8_e4m3fn", 464, 0x7E, "max + half ulp: saturates"),
    ("float8_e4m3fn", 1e30, 0x7E, "far beyond: saturates"),
    ("float8_e4m3fn", -math.inf, 0xFE, "-inf saturates to -448"),
    # subnormals, and underflow to a zero of the value's sign
    ("float16", 2**-24, 0x0001, "the smallest subnormal"),
    ("float16", 3 * 2**-26, 0x0001, "three quarters of it: up"),
    ("float16", 2**-25, 0x0000, "half of it, a tie: to even zero"),
    ("float16", 2**-25 + 2**-60, 0x0001, "just above half: up"),
    ("float16", -(2**-26), 0x8000, "a quarter, negative: -0"),
    ("float16", 2**-14 - 2**-25, 0x0400, "tie at the top subnormal: up into the smallest normal"),
    ("float16", 1023 * 2**-24, 0x03FF, "the largest subnormal"),
    ("bfloat16", 2**-133, 0x0001, "bf16's smallest subnormal"),
    ("bfloat16", -(2**-134), 0x8000, "half of it, negative: -0"),
    ("float32", 2**-149, 0x00000001, "float32's smallest subnormal"),
    ("float32", 2**-150 + 2**-200, 0x00000001, "just above half of it"),
    ("float32", -5e-324, 0x80000000, "the smallest double: -0"),
    ("float8_e4m3fn", 2**-9, 0x01, "e4m3fn's smallest subnormal"),
    ("float8_e4m3fn", -(2**-10), 0x80, "half of it, negative: -0"),
    ("float8_e5m2", 2**-16, 0x01, "e5m2's smallest subnormal"),
    ("float64", 2**-1074 * 3, 0x0000000000000003, "a double subnormal stays itself"),
    # zeros and NaN (quiet, no payload, sign kept)
    ("float16", -0.0, 0x8000, "-0 keeps its sign"),
    ("float16", math.nan, 0x7E00, "quiet NaN"),
    ("float16", -math.nan, 0xFE00, "negative quiet NaN"),
    ("bfloat16", math.nan, 0x7FC0, "quiet NaN"),
    ("float32", -math.nan, 0xFFC00000, "negative quiet NaN"),
    ("float8_e5m2", math.nan, 0x7E, "quiet NaN"),
    ("float8_e4m3fn", -math.nan, 0xFF, "e4m3fn's only NaN, negative"),
]


def _id(case) -> str:
    return f"{case[0]}-{case[3]}"


def _bits_of(dtype: str, value) -> int:
    """npusim's own rule, called directly."""
    return float_bits(value, by_name(dtype))


# ------------------------------------------------------------------ the rule itself
@pytest.mark.parametrize("case", PINNED, ids=_id)
def test_hand_derived_bits_agree_with_the_reference_model(case):
    dtype, value, bits, _why = case
    assert expected_bits(value, dtype) == bits


@pytest.mark.parametrize("case", PINNED, ids=_id)
def test_scalar_rounding_gives_the_hand_derived_bits(case):
    dtype, value, bits, _why = case
    assert _bits_of(dtype, value) == bits


@pytest.mark.parametrize("case", PINNED, ids=_id)
def test_array_rounding_gives_the_hand_derived_bits(case):
    """float64 arrays for doubles; int64 arrays for ints that fit, object arrays for the rest."""
    dtype, value, bits, _why = case
    if isinstance(value, float):
        arrays = [np.array([value, value])]
    else:
        arrays = [np.array([value, value], dtype=object)]
        if isinstance(value, int) and -(2**63) <= value < 2**63:
            arrays.append(np.array([value, value], dtype=np.int64))
    for array in arrays:
        assert float_array_bits(array, by_name(dtype)).tolist() == [bits, bits]


@settings(derandomize=True, max_examples=400, deadline=None)
@given(value=st.floats(), dtype=st.sampled_from(FLOATS))
def test_every_double_rounds_once(value, dtype):
    """Full doubles: subnormals, huge values, +-0, infinities, NaN with any payload or sign."""
    own_bits = int.from_bytes(struct.pack("<d", value), "little")  # a double already is a float64
    expected = own_bits if dtype == "float64" else expected_bits(value, dtype)
    assert _bits_of(dtype, value) == expected
    assert float_array_bits(np.array([value]), by_name(dtype)).tolist() == [expected]


@settings(derandomize=True, max_examples=300, deadline=None)
@given(value=st.one_of(st.integers(-(2**64), 2**64), st.integers(-(2**1100), 2**1100)),
       dtype=st.sampled_from(FLOATS))
def test_every_integer_rounds_once_from_its_exact_value(value, dtype):
    expected = expected_bits(value, dtype)
    assert _bits_of(dtype, value) == expected
    if -(2**63) <= value < 2**63:
        assert float_array_bits(np.array([value], dtype=np.int64), by_name(dtype)).tolist() == [expected]
    elif 0 <= value < 2**64:
        assert float_array_bits(np.array([value], dtype=np.uint64), by_name(dtype)).tolist() == [expected]
    assert float_array_bits(np.array([value], dtype=object), by_name(dtype)).tolist() == [expected]


def test_a_fraction_is_rounded_from_its_exact_value():
    # 1/3 = 1.0101010101|0101... * 2**-2: mantissa 0x155, the rest below half; exponent field 13
    assert _bits_of("float16", Fraction(1, 3)) == 0x3555
    assert _bits_of("float32", Fraction(2**60 + 2**36 + 1)) == 0x5D800001
    assert _bits_of("float32", -Fraction(1, 10**50)) == 0x80000000


@settings(derandomize=True, max_examples=200, deadline=None)
@given(value=st.fractions(), dtype=st.sampled_from(FLOATS))
def test_fractions_round_from_their_exact_value(value, dtype):
    assert _bits_of(dtype, value) == expected_bits(value, dtype)


def test_a_value_of_the_target_type_keeps_its_bits_nan_payload_included():
    payload = np.array([0x7E01, 0xFD55], np.uint16).view(np.float16)  # a quiet and a signalling NaN
    assert float_bits(payload[1], by_name("float16")) == 0xFD55
    assert float_array_bits(payload, by_name("float16")).tolist() == [0x7E01, 0xFD55]
    # from another type a NaN is the target's quiet NaN, with its sign
    assert float_bits(payload[1], by_name("float32")) == nan_bits("float32", True) == 0xFFC00000
    assert float_array_bits(payload, by_name("bfloat16")).tolist() == [0x7FC0, 0xFFC0]


def _patterns(name: str) -> np.ndarray:
    """Every bit pattern of an 8-bit type; of a 16-bit one, every 7th and all near the edges
    (zeros, subnormals, the smallest normals, the largest finite values, infinities, NaNs)."""
    if width(name) == 8:
        return np.arange(256, dtype=np.uint8)
    edges = [range(base, base + 48) for base in (0x0000, 0x03E8, 0x0068, 0x7BE0, 0x7C00, 0x7E00, 0x7F60, 0x7FB0)]
    chosen = set(range(0, 1 << 15, 7)).union(*edges)
    return np.array(sorted(chosen | {b | 0x8000 for b in chosen}), dtype=np.uint16)


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn"])
@pytest.mark.parametrize("target", FLOATS)
def test_narrow_type_arrays_convert_by_the_rule(source, target):
    """Arrays of float16 / bfloat16 / fp8 values (every fp8 pattern) to every float type."""
    raw = _patterns(source)
    got = float_array_bits(raw.view(by_name(source).np_dtype), by_name(target))
    if source == target:
        assert got.tolist() == raw.tolist()
    else:
        assert got.tolist() == [expected_bits(_decode(int(b), source), target) for b in raw]


# float32 bit patterns around the places a conversion to a narrower type can go wrong: the
# subnormal and normal limits and the overflow threshold of each target, and ties at 1.0
FLOAT32_EDGES = np.array(sorted({
    b | sign
    for base in (0x00000000, 0x00800000, 0x33000000, 0x337FE000, 0x387FC000, 0x38800000, 0x477FE000,
                 0x47800000, 0x7F7F8000, 0x7F7FFFFF, 0x7F800000, 0x3F801000, 0x3F808000, 0x37800000,
                 0x3B800000, 0x43E00000, 0x43E80000, 0x47600000, 0x47700000, 0x3A800000, 0x34000000)
    for b in range(max(base - 40, 0), min(base + 40, 0x7FFFFFFF))
    for sign in (0, 0x80000000)
}), dtype=np.uint32)


@pytest.mark.parametrize("target", ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn"])
def test_float32_arrays_narrow_by_the_rule(target):
    """float32 arrays (what half and bfloat16 arithmetic computes in) near every rounding edge."""
    values = FLOAT32_EDGES.view(np.float32)
    got = float_array_bits(values, by_name(target)).tolist()
    assert got == [expected_bits(float(v), target) for v in values]


@pytest.mark.parametrize("target", ["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn"])
def test_float32_arrays_just_below_the_smallest_normal_round_to_subnormals(target):
    """An array whose every value lies just below the target's smallest normal (none far below it):
    the subnormal rounding must still be taken, also when nothing in the array is near zero."""
    ebits = FORMATS[target][0]
    smallest_normal = (127 + 2 - 2 ** (ebits - 1)) << 23  # float32 bits of 2**emin
    for span in (40, 1 << 12, 1 << 16, 1 << 19, 1 << 22):
        bits = np.arange(smallest_normal - span, smallest_normal, max(span // 40, 1), dtype=np.uint32)
        values = bits.view(np.float32)
        got = float_array_bits(values, by_name(target)).tolist()
        assert got == [expected_bits(float(v), target) for v in values]


@settings(derandomize=True, max_examples=200, deadline=None)
@given(values=st.lists(st.floats(width=32), min_size=1, max_size=16),
       target=st.sampled_from(["float16", "bfloat16", "float8_e5m2", "float8_e4m3fn", "float64"]))
def test_any_float32_array_narrows_by_the_rule(values, target):
    array = np.array(values, dtype=np.float32)
    expected = [expected_bits(float(v), target) for v in array]
    assert float_array_bits(array, by_name(target)).tolist() == expected


@pytest.mark.parametrize("target", ["float16", "bfloat16", "float8_e5m2"])
@pytest.mark.parametrize("case", ["edges", "normal", "small, infinite", "large normal", "large, slow, finite",
                                  "large, slow, infinite", "large, NaN"])
def test_narrowed_bits_says_whether_a_result_may_be_special(target, case):
    """narrowed_bits gives the rule's bits and says "special" exactly when some result's magnitude is at
    least infinity's (a NaN or an infinity, the formats here having both), on every path its float32 ->
    half conversion takes: a small array at once, a large one numpy converts (the sample finds no slow
    element) and a large one with elements numpy converts slowly (overflows, inexact subnormals)."""
    rng = np.random.default_rng(5)
    normal = rng.uniform(-100, 100, 1024).astype(np.float32)
    if case == "edges":
        values = FLOAT32_EDGES.view(np.float32)
    elif case == "normal":
        values = normal[:100]
    elif case == "small, infinite":
        values = normal[:100].copy()
        values[3] = np.float32(-70000.0)  # rounds to -infinity
    elif case == "large normal":
        values = normal
    else:
        values = normal.copy()
        values[::64] = np.float32(3e-6)  # inexact half subnormals, where the sample looks
        if case == "large, slow, infinite":
            values[7] = np.float32(70000.0)  # rounds to infinity (and is slow)
        elif case == "large, NaN":
            values[9] = np.float32("nan")
    bits, special = narrowed_bits(values, by_name(target))
    assert bits.tolist() == [expected_bits(float(v), target) for v in values]
    ebits, mbits, _ = FORMATS[target]
    infinity = (2**ebits - 1) << mbits
    assert special == bool(((bits.astype(np.int64) & (infinity | (2**mbits - 1))) >= infinity).any())


def _decode(bits: int, fmt: str):
    """Exact value of ``bits`` in a narrow format, for the test above (NaN/inf as floats)."""
    ebits, mbits, finite_only = FORMATS[fmt]
    bias = 2 ** (ebits - 1) - 1
    negative = bits >> (ebits + mbits)
    exponent, mantissa = (bits >> mbits) & (2**ebits - 1), bits & (2**mbits - 1)
    if finite_only and exponent == 2**ebits - 1 and mantissa == 2**mbits - 1:
        return -math.nan if negative else math.nan
    if not finite_only and exponent == 2**ebits - 1:
        special = math.inf if mantissa == 0 else math.nan
        return -special if negative else special
    if exponent == 0:
        magnitude = Fraction(mantissa, 2**mbits) * Fraction(2) ** (1 - bias)
    else:
        magnitude = (1 + Fraction(mantissa, 2**mbits)) * Fraction(2) ** (exponent - bias)
    if magnitude == 0:
        return -0.0 if negative else 0.0
    return -magnitude if negative else magnitude


def test_bool_and_small_integer_arrays_are_exact():
    assert float_array_bits(np.array([True, False]), by_name("float16")).tolist() == [0x3C00, 0x0000]
    ints = np.array([-(2**31), 2**31 - 1, 65520, 65519], dtype=np.int32)
    assert float_array_bits(ints, by_name("float16")).tolist() == [0xFC00, 0x7C00, 0x7C00, 0x7BFF]


# ------------------------------------------------------------------ through the public APIs
HALFWAY = [c for c in PINNED if c[3].startswith("just above the tie") or c[3].startswith("int above")]
ASCEND_SCALAR_CASES = [c for c in PINNED if c[0] in ("float16", "bfloat16", "float32")]


def _ub_bits(core, addr: int, dtype: str, count: int) -> list[int]:
    raw = core.ub_read(addr, count * width(dtype) // 8)
    return np.frombuffer(raw, f"<u{width(dtype) // 8}").tolist()


@pytest.mark.parametrize("case", ASCEND_SCALAR_CASES, ids=_id)
def test_ascend_duplicate_scalar(case):
    dtype, value, bits, _why = case
    with asc.Core("A2") as core:
        dst = asc.LocalTensor(getattr(asc, dtype), asc.TPosition.VECOUT, 0, 128)
        asc.duplicate(dst, value, 128)
        assert _ub_bits(core, 0, dtype, 128) == [bits] * 128


@pytest.mark.parametrize("case", [c for c in PINNED if c[0].startswith("float8")], ids=_id)
def test_ascend_950_duplicate_of_fp8(case):
    dtype, value, bits, _why = case
    with asc.Core("950") as core:
        dst = asc.LocalTensor(by_name(dtype), asc.TPosition.VECOUT, 0, 64)
        asc.duplicate(dst, value, 64)
        assert _ub_bits(core, 0, dtype, 64) == [bits] * 64


@pytest.mark.parametrize("case", [c for c in HALFWAY if c[0] != "float64"], ids=_id)
def test_ascend_adds_and_muls_scalar_operands(case):
    """src + scalar with src = -0 and src * scalar with src = 1 give the scalar itself (exact)."""
    dtype, value, bits, _why = case
    one = {"float16": 0x3C00, "bfloat16": 0x3F80, "float32": 0x3F800000}[dtype]
    chip = "950" if dtype == "bfloat16" else "A2"  # Adds/Muls take bfloat16 on the 950 only
    with asc.Core(chip) as core:
        t = getattr(asc, dtype)
        src = asc.LocalTensor(t, asc.TPosition.VECIN, 0, 128)
        dst = asc.LocalTensor(t, asc.TPosition.VECOUT, 0x400, 128)
        core.ub_write(0, np.full(128, one, f"<u{width(dtype) // 8}").tobytes())
        asc.muls(dst, src, value, 128)
        assert _ub_bits(core, 0x400, dtype, 128) == [bits] * 128
        core.ub_write(0, np.full(128, 1 << (width(dtype) - 1), f"<u{width(dtype) // 8}").tobytes())
        asc.adds(dst, src, value, 128)
        assert _ub_bits(core, 0x400, dtype, 128) == [bits] * 128


@pytest.mark.parametrize("case", [c for c in HALFWAY if c[0] in ("float16", "float32")], ids=_id)
def test_ascend_compare_select_and_c_api_scalars(case):
    """compare_scalar / asc_eq_scalar: src holds the right bits and their neighbour below, and EQ
    must pick the first only; select mode 1 with selection bits 0 writes the scalar."""
    dtype, value, bits, _why = case
    lanes, raw = 256 // (width(dtype) // 8), f"<u{width(dtype) // 8}"
    with asc.Core("A2") as core:
        t = getattr(asc, dtype)
        src = asc.LocalTensor(t, asc.TPosition.VECIN, 0, lanes)
        mask = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 0x400, 32)
        out = asc.LocalTensor(t, asc.TPosition.VECOUT, 0x800, lanes)
        core.ub_write(0, np.array([bits, bits - 1] * (lanes // 2), raw).tobytes())
        expected = bytes([0b01010101]) * (lanes // 8)
        asc.compare_scalar(mask, src, value, asc.CMPMODE.EQ, lanes)
        assert core.ub_read(0x400, lanes // 8) == expected
        core.ub_write(0x400, bytes(32))
        asc.asc_eq_scalar(mask, src, value, 1, 1, 1, 8, 8)
        assert core.ub_read(0x400, lanes // 8) == expected
        mask.write(np.zeros(32)), out.write(np.zeros(lanes))
        asc.select(out, mask, src, value, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, lanes)
        assert _ub_bits(core, 0x800, dtype, lanes) == [bits] * lanes


@pytest.mark.parametrize("case", [c for c in PINNED if c[0] != "float8_e5m2" and c[0] != "float8_e4m3fn"],
                         ids=_id)
def test_ascend_host_writes(case):
    """LocalTensor.write of a float64 / int array, set_value of a Python number, GlobalTensor.set_value."""
    dtype, value, bits, _why = case
    with asc.Core("A2") as core:
        t = getattr(asc, dtype)
        tensor = asc.LocalTensor(t, asc.TPosition.VECIN, 0, 8)
        tensor.set_value(0, value)
        assert _ub_bits(core, 0, dtype, 1) == [bits]
        tensor.write([value, value])
        assert _ub_bits(core, 0, dtype, 2) == [bits, bits]
        host = np.zeros(4, dtype=by_name(dtype).np_dtype)
        g = asc.GlobalTensor()
        g.set_global_buffer(host)
        g.set_value(1, value)
        assert host.view(f"<u{width(dtype) // 8}").tolist() == [0, bits, 0, 0]


@pytest.mark.parametrize("case", [c for c in PINNED if c[0] in ("float16", "bfloat16", "float32")], ids=_id)
def test_sophgo_scalar_t_float_views(case):
    dtype, value, bits, _why = case
    view = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[dtype]
    assert tpu.scalar_t(**{view: value}).u32 == bits


SOPHGO_TYPES = {"float16": tpu.DT_FP16, "bfloat16": tpu.DT_BFP16, "float32": tpu.DT_FP32,
                "float8_e5m2": tpu.DT_FP8E5M2, "float8_e4m3fn": tpu.DT_FP8E4M3}


@pytest.mark.parametrize("case", [c for c in PINNED if c[0] in SOPHGO_TYPES], ids=_id)
def test_sophgo_host_writes(case):
    dtype, value, bits, _why = case
    size = width(dtype) // 8
    array = np.array([value] * 4, dtype=object if isinstance(value, int) else np.float64)
    with tpu.Core("bm1684x") as core:
        core.write_global(0x100, array, SOPHGO_TYPES[dtype])
        got = core.read_global(0x100, 4, SOPHGO_TYPES[dtype]).view(f"<u{size}")
        assert got.tolist() == [bits] * 4
        core.write_local(0, array.reshape(1, 1, 1, 4), SOPHGO_TYPES[dtype])
        got = core.read_local(0, (1, 1, 1, 4), SOPHGO_TYPES[dtype]).view(f"<u{size}")
        assert got.reshape(-1).tolist() == [bits] * 4


@settings(derandomize=True, max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.floats(), min_size=1, max_size=8), dtype=st.sampled_from(sorted(SOPHGO_TYPES)))
def test_host_writes_of_any_doubles(values, dtype):
    """Both vendors' host writes of float64 arrays, hypothesis drawing full doubles."""
    size = width(dtype) // 8
    expected = [expected_bits(v, dtype) for v in values]
    with tpu.Core("bm1684x") as core:
        core.write_global(0, np.array(values), SOPHGO_TYPES[dtype])
        assert core.read_global(0, len(values), SOPHGO_TYPES[dtype]).view(f"<u{size}").tolist() == expected
    with asc.Core("950") as core:
        tensor = asc.LocalTensor(by_name(dtype), asc.TPosition.VECIN, 0, 8)
        tensor.write(np.array(values))
        assert _ub_bits(core, 0, dtype, len(values)) == expected


@settings(derandomize=True, max_examples=150, deadline=None)
@given(value=st.one_of(st.floats(), st.integers(-(2**130), 2**130)),
       dtype=st.sampled_from(["float16", "bfloat16", "float32"]))
def test_scalar_operands_of_both_vendors_for_any_number(value, dtype):
    expected = expected_bits(value, dtype)
    view = {"float16": "f16", "bfloat16": "bf16", "float32": "f32"}[dtype]
    assert tpu.scalar_t(**{view: value}).u32 == expected
    with asc.Core("A2") as core:
        dst = asc.LocalTensor(getattr(asc, dtype), asc.TPosition.VECOUT, 0, 128)
        asc.duplicate(dst, value, 128)
        assert set(_ub_bits(core, 0, dtype, 128)) == {expected}


# ------------------------------------------------------------------ golden data
@pytest.mark.parametrize("case", [c for c in HALFWAY if c[0] in ("float16", "float32")], ids=_id)
def test_golden_init_values_fill_and_scalar_args(case):
    dtype, value, bits, _why = case
    result = run_case({
        "instruction": "adds",
        "tensors": {
            "dst": {"dtype": dtype, "size": 128, "init": {"fill": value}},
            "src": {"dtype": dtype, "size": 128, "init": {"fill": 0, "values": [value, -0.0]}},
        },
        "args": {"scalar": value, "count": 2},
    })
    size = width(dtype) // 8
    inputs = {dump.name: np.frombuffer(dump.data, f"<u{size}").tolist() for dump in result.inputs}
    assert inputs["dst"] == [bits] * 128  # fill
    assert inputs["src"][:3] == [bits, 1 << (width(dtype) - 1), 0]  # values, then the fill
    out = np.frombuffer(result.outputs[0].data, f"<u{size}").tolist()
    assert out[1] == bits  # -0 + scalar


def test_golden_sophgo_scalar_and_init():
    value = 1 + 2**-8 + 2**-30
    result = run_case({
        "instruction": "tpu_bdc_set_C",
        "chip": "BM1684X",
        "shape": [1, 2, 1, 4],
        "dtypes": {"dtype": "DT_BFP16"},
        "operands": {"dst_addr": {"addr": 0, "init": {"values": [value, 2**200, -(2**-134)]}},
                     "C": {"scalar": {"bf16": value}}},
    })
    inputs = {dump.name: np.frombuffer(dump.data, "<u2").tolist() for dump in result.inputs}
    assert inputs["dst"][:3] == [0x3F81, 0x7F80, 0x8000]
    assert np.frombuffer(result.outputs[0].data, "<u2").tolist() == [0x3F81] * 8


def test_golden_random_init_rounds_with_the_rule():
    result = run_case({
        "instruction": "add",
        "chip": "950",
        "tensors": {"dst": {"dtype": "bfloat16", "size": 64, "init": {"fill": 0}},
                    "src0": {"dtype": "bfloat16", "size": 64, "init": {"random": {"seed": 5, "low": -3, "high": 3}}},
                    "src1": {"dtype": "bfloat16", "size": 64, "init": {"fill": 0}}},
        "args": {"count": 64},
    })
    drawn = np.random.default_rng(5).uniform(-3, 3, 64)  # the documented generator (docs/golden.md)
    src = {dump.name: dump for dump in result.inputs}["src0"]
    assert np.frombuffer(src.data, "<u2").tolist() == [expected_bits(float(v), "bfloat16") for v in drawn]


def test_ml_dtypes_arrays_are_accepted_as_host_data():
    """A bfloat16 array written into a float32 tensor widens exactly (and float32 -> bf16 rounds once)."""
    with asc.Core("A2") as core:
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 8)
        t.write(np.array([0x3F81, 0xFF80], np.uint16).view(ml_dtypes.bfloat16))
        assert _ub_bits(core, 0, "float32", 2) == [0x3F810000, 0xFF800000]
