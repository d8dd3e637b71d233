"""The scalar Casts (docs/semantics.md §5.35): scalar_cast against Cast's reference (tests/ascend/cast_reference.py),
to_bfloat16 against the rounding reference (tests/float_reference.py), to_float, and the pages' examples."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ParameterRangeError, UnsupportedError

from ..float_reference import expected_bits
from .cast_reference import cast as reference_cast
from .cast_reference import decode
from .conftest import assert_rejected
from .fp4_reference import is_negative, value_of
from .hifloat8_reference import VALUES

R = asc.RoundMode
INT32_MODES = (R.CAST_ROUND, R.CAST_CEIL, R.CAST_FLOOR, R.CAST_RINT)
SPECIAL_BITS = (0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x7F800001, 0x00000001,
                0x807FFFFF, 0x7F7FFFFF, 0xFF7FFFFF, 0x4F000000, 0xCF000000, 0x4EFFFFFF, 0xCF000001, 0x3F000000,
                0xBFC00000, 0x477FF000, 0x477FEFFF, 0x33800000, 0x387FC000)
float32_bits = st.one_of(st.sampled_from(SPECIAL_BITS), st.integers(0, 2**32 - 1))


def as_float32(bits: int) -> np.float32:
    return np.uint32(bits).view(np.float32)


def raw(value) -> int:
    return int(np.asarray(value).reshape(1).view({2: np.uint16, 4: np.uint32}[np.asarray(value).itemsize])[0])


@pytest.fixture
def core():
    with asc.Core("A2") as c:
        yield c


# ------------------------------------------------------------------ 调用示例
def test_cast_float_to_half_int32_page_example(core):
    assert raw(asc.scalar_cast(np.float32(3.14159), asc.half, R.CAST_ODD)) == expected_bits(
        struct.unpack("<f", struct.pack("<f", 3.14159))[0], "float16", "odd")
    assert float(asc.scalar_cast(3.14159, asc.half, R.CAST_ODD)) == 3.142578125  # 返回3.142578
    got = [asc.scalar_cast(v, asc.int32, m) for v in (1.5, 2.5) for m in INT32_MODES]
    assert got == [2, 2, 1, 2, 3, 3, 2, 2]  # ROUND, CEIL, FLOOR, RINT of 1.5 and 2.5


def test_cast_float_to_bfloat16_page_example(core):
    b = asc.to_bfloat16(3.14159)
    assert raw(b) == 0x4049 and float(b) == 3.140625  # n = 3.140625
    assert float(asc.to_float(b)) == 3.140625  # Cast（多类型转float）.md: 返回3.140625


def test_the_pyasc_unit_test_call(core):
    assert asc.scalar_cast(2.5, asc.int32, R.CAST_ROUND) == 3  # test_scalar.py's kernel


# ------------------------------------------------------------------ against the references
@settings(max_examples=300, deadline=None)
@given(bits=float32_bits, mode=st.sampled_from(INT32_MODES))
@example(bits=0x7FC00000, mode=R.CAST_RINT)
@example(bits=0x4F000000, mode=R.CAST_ROUND)
def test_scalar_cast_to_int32_matches_casts_reference(bits, mode):
    with asc.Core("A2"):
        got = asc.scalar_cast(as_float32(bits), asc.int32, mode)
    assert isinstance(got, int)
    assert got & 0xFFFFFFFF == reference_cast("float32", "int32", bits, int(mode), True)


@settings(max_examples=300, deadline=None)
@given(bits=float32_bits, saturate=st.booleans())
def test_scalar_cast_to_half_matches_casts_reference(bits, saturate):
    with asc.Core("950") as c:
        c.float_saturation = saturate
        got = asc.scalar_cast(as_float32(bits), asc.half, R.CAST_ODD)
    assert raw(got) == reference_cast("float32", "float16", bits, int(R.CAST_ODD), saturate)


def test_scalar_cast_half_special_values(core):
    inf, nan = np.float32("inf"), np.float32("nan")
    assert raw(asc.scalar_cast(inf, asc.half, R.CAST_ODD)) == 0x7BFF  # CTRL[48] saturates at power-on
    assert raw(asc.scalar_cast(-inf, asc.half, R.CAST_ODD)) == 0xFBFF
    assert raw(asc.scalar_cast(nan, asc.half, R.CAST_ODD)) == 0x0000
    assert raw(asc.scalar_cast(np.float32(1e6), asc.half, R.CAST_ODD)) == 0x7BFF  # odd never rounds to infinity
    core.float_saturation = False
    assert raw(asc.scalar_cast(inf, asc.half, R.CAST_ODD)) == 0x7C00
    assert raw(asc.scalar_cast(nan, asc.half, R.CAST_ODD)) == 0x7E00
    assert raw(asc.scalar_cast(np.float32(2.0**-25), asc.half, R.CAST_ODD)) == 0x0001  # subnormal, odd


def test_scalar_cast_int32_special_values(core):
    f = asc.scalar_cast
    assert f(np.float32("nan"), asc.int32, R.CAST_RINT) == 0
    assert f(np.float32("inf"), asc.int32, R.CAST_FLOOR) == 2**31 - 1
    assert f(np.float32("-inf"), asc.int32, R.CAST_CEIL) == -(2**31)
    assert f(np.float32(3e9), asc.int32, R.CAST_ROUND) == 2**31 - 1
    assert f(-2.5, asc.int32, R.CAST_ROUND) == -3 and f(-2.5, asc.int32, R.CAST_RINT) == -2
    assert f(-0.5, asc.int32, R.CAST_CEIL) == 0 and f(-0.5, asc.int32, R.CAST_FLOOR) == -1
    assert f(1e-45, asc.int32, R.CAST_CEIL) == 1  # the smallest subnormal, rounded up


@settings(max_examples=300, deadline=None)
@given(bits=float32_bits)
@example(bits=0x7F7FFFFF)
@example(bits=0x007FFFFF)
@example(bits=0xFFC00001)
def test_to_bfloat16_matches_the_rounding_reference(bits):
    with asc.Core("A3"):
        got = raw(asc.to_bfloat16(as_float32(bits)))
    value = struct.unpack("<f", struct.pack("<I", bits))[0]
    assert got == (0x7FFF if math.isnan(value) else expected_bits(value, "bfloat16", "rint"))


def test_to_bfloat16_special_values(core):
    assert raw(asc.to_bfloat16(np.float32("-nan"))) == 0x7FFF  # every NaN: 0x7FFF (kernel_scalar_convert.h)
    assert raw(asc.to_bfloat16(np.float32("inf"))) == 0x7F80 and raw(asc.to_bfloat16(-np.float32("inf"))) == 0xFF80
    assert raw(asc.to_bfloat16(as_float32(0x7F7FFFFF))) == 0x7F80  # FLT_MAX rounds up to infinity
    assert raw(asc.to_bfloat16(as_float32(0x7F7F7FFF))) == 0x7F7F  # below the tie: the largest bfloat16
    assert raw(asc.to_bfloat16(as_float32(0x00008000))) == 0x0000  # a subnormal tie to even (0)
    assert raw(asc.to_bfloat16(as_float32(0x00018000))) == 0x0002  # and to even (2)
    assert raw(asc.to_bfloat16(-0.0)) == 0x8000
    core.float_saturation = True  # a software conversion: CTRL does not matter
    assert raw(asc.to_bfloat16(np.float32("inf"))) == 0x7F80


@settings(max_examples=200, deadline=None)
@given(bits=st.integers(0, 2**16 - 1))
def test_to_float_shifts_the_bits(bits):
    with asc.Core("950"):
        got = asc.to_float(np.uint16(bits).view(ml_dtypes.bfloat16))
    assert isinstance(got, np.float32) and raw(got) == bits << 16


def test_a_python_argument_is_a_c_float(core):
    """The argument is a float: a double rounds to float first (3.14159 -> 0x40490FD0), then to the target."""
    assert raw(asc.to_bfloat16(1 + 2.0**-8 + 2.0**-30)) == 0x3F80  # the float is 1 + 2**-8, a tie: to even
    assert raw(asc.to_float(-1.5)) == 0xBFC00000


# ------------------------------------------------------------------ products and rejections
@pytest.mark.parametrize("chip", ["310B", "310P-VEC", "910"])
def test_scalar_cast_is_rejected_where_the_page_says(chip):
    with asc.Core(chip) as c:
        assert_rejected(c, UnsupportedError, lambda: asc.scalar_cast(1.0, asc.int32, R.CAST_RINT),
                        "Cast（float转half-int32_t）.md 产品支持情况", operand="product")


@pytest.mark.parametrize("chip", ["310P", "KirinX90", "Kirin9030", "310B", "910"])
def test_the_bfloat16_casts_are_the_950s_and_a2_a3s(chip):
    with asc.Core(chip) as c:
        assert_rejected(c, UnsupportedError, lambda: asc.to_bfloat16(1.0), "Cast（float转bfloat16_t）.md 产品支持情况")
        assert_rejected(c, UnsupportedError, lambda: asc.to_float(1.0), "Cast（多类型转float）.md 产品支持情况")


@pytest.mark.parametrize("chip", ["310P", "KirinX90", "950"])
def test_scalar_cast_runs_on_its_products(chip):
    with asc.Core(chip):
        assert asc.scalar_cast(-1.5, asc.int32, R.CAST_FLOOR) == -2


@pytest.mark.parametrize("dtype, mode", [
    ("int32", R.CAST_ODD), ("int32", R.CAST_TRUNC), ("int32", R.CAST_NONE), ("float16", R.CAST_RINT),
    ("float16", R.CAST_NONE), ("float16", R.CAST_ROUND)])
def test_scalar_cast_takes_only_the_tables_modes(core, dtype, mode):
    assert_rejected(core, UnsupportedError, lambda: asc.scalar_cast(1.0, getattr(asc, dtype), mode), "约束说明",
                    operand="round_mode", value=mode.name)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int16", "int64", "uint32"])
def test_scalar_cast_returns_half_or_int32(core, dtype):
    assert_rejected(core, UnsupportedError, lambda: asc.scalar_cast(1.0, getattr(asc, dtype), R.CAST_RINT),
                    "数据类型", operand="dtype", value=dtype)


def test_bad_arguments(core):
    assert_rejected(core, ParameterRangeError, lambda: asc.scalar_cast(1.0, asc.int32, 99), operand="round_mode")
    for call in (lambda: asc.scalar_cast("1", asc.int32, R.CAST_RINT), lambda: asc.scalar_cast(1.0, "int32", 1),
                 lambda: asc.to_bfloat16(None), lambda: asc.to_float([1.0]), lambda: asc.to_float(1.0, "bf16")):
        with pytest.raises(TypeError):
            call()
    assert_rejected(core, UnsupportedError, lambda: asc.to_float(1.0, asc.float16), "数据类型", operand="dtype")


# ------------------------------------------------------------------ the 950's other sources of Cast（多类型转float）
FP32_NAN = 0x7FFFFFFF  # kernel_type_conversion_utils.h FPTranslation: every fp8 / hifloat8_t NaN


def float32_bits_of(value, negative: bool) -> int:
    """The float bits of an exact value (a Fraction, ``"nan"``, ``"±inf"``; ``negative`` for the sign of 0)."""
    if value == "nan" or (isinstance(value, float) and math.isnan(value)):
        return FP32_NAN
    if value in ("+inf", "-inf"):
        return 0x7F800000 | (0x80000000 if value == "-inf" else 0)
    if isinstance(value, float) and math.isinf(value):
        return 0x7F800000 | (0x80000000 if value < 0 else 0)
    if value == 0:
        return 0x80000000 if negative else 0
    return expected_bits(value, "float32")  # exact: every source value is a float


@pytest.mark.parametrize("name, asc_name", [("float8_e5m2", "fp8_e5m2_t"), ("float8_e4m3fn", "fp8_e4m3fn_t")])
def test_to_float_of_every_fp8_code(name, asc_name):
    with asc.Core("950"):
        for code in range(256):
            got = asc.to_float(np.uint8(code).view(getattr(ml_dtypes, name)), getattr(asc, asc_name))
            assert raw(got) == float32_bits_of(decode(name, code), code >= 0x80), hex(code)


def test_to_float_of_every_hifloat8_code():
    with asc.Core("950"):
        for code, value in enumerate(VALUES):
            argument = float("nan") if value == "nan" else float(value) if isinstance(value, str) else value
            got = asc.to_float(argument, asc.hifloat8)
            assert raw(got) == float32_bits_of(value, code >= 0x80), hex(code)


def test_to_float_of_every_fp4_code():
    with asc.Core("950"):
        for code in range(16):
            expected = float32_bits_of(value_of(code), is_negative(code))
            if hasattr(ml_dtypes, "float4_e2m1fn"):  # (ml_dtypes 0.5 and later have the scalar type)
                assert raw(asc.to_float(np.uint8(code).view(ml_dtypes.float4_e2m1fn), asc.fp4x2_e2m1_t)) == expected
            as_number = -0.0 if code == 8 else float(value_of(code))
            assert raw(asc.to_float(as_number, asc.fp4x2_e2m1_t)) == expected


def test_the_950s_sources_are_rejected_on_the_a2_a3():
    for chip in ("A2", "A3"):
        with asc.Core(chip) as c:
            for dtype in (asc.hifloat8, asc.fp8_e5m2_t, asc.fp8_e4m3fn_t, asc.fp4x2_e2m1_t):
                assert_rejected(c, UnsupportedError, lambda d=dtype: asc.to_float(1.0, d), "产品支持情况",
                                operand="product")


def test_a_value_a_coded_type_does_not_hold_is_rejected():
    with asc.Core("950") as c:
        assert_rejected(c, ParameterRangeError, lambda: asc.to_float(0.3, asc.hifloat8), operand="b_val")
        assert_rejected(c, ParameterRangeError, lambda: asc.to_float(5.0, asc.fp4x2_e2m1_t), "数据类型",
                        operand="b_val", allowed="±6")
        assert_rejected(c, ParameterRangeError, lambda: asc.to_float(float("nan"), asc.fp4x2_e2m1_t), operand="b_val")
        for dtype in (asc.int8, asc.float32, asc.fp8_e8m0_t, asc.complex32):
            assert_rejected(c, UnsupportedError, lambda d=dtype: asc.to_float(1.0, d), "数据类型", operand="dtype")


# ------------------------------------------------------------------ the 950's scalar asc_float2int32_*
FLOAT2INT32 = {"_rn": R.CAST_RINT, "_rna": R.CAST_ROUND, "_rd": R.CAST_FLOOR, "_ru": R.CAST_CEIL}  # 函数原型


def test_asc_float2int32_page_example():
    with asc.Core("950"):
        assert asc.asc_float2int32_rn(3.0) == 3  # asc_float2int32.md
        assert [getattr(asc, f"asc_float2int32{s}")(2.5) for s in FLOAT2INT32] == [2, 3, 2, 3]
        assert [getattr(asc, f"asc_float2int32{s}")(-2.5) for s in FLOAT2INT32] == [-2, -3, -3, -2]


@settings(max_examples=200, deadline=None)
@given(bits=float32_bits, suffix=st.sampled_from(sorted(FLOAT2INT32)))
def test_asc_float2int32_matches_casts_reference(bits, suffix):
    with asc.Core("950", trace=True) as c:
        got = getattr(asc, f"asc_float2int32{suffix}")(as_float32(bits))
        assert c.trace[-1].pipe == "S" and c.trace[-1].writes == ()
    assert got & 0xFFFFFFFF == reference_cast("float32", "int32", bits, int(FLOAT2INT32[suffix]), True)


def test_asc_float2int32s_scalar_form_is_the_950s():
    for chip in ("A2", "A3", "310P"):
        with asc.Core(chip) as c:
            assert_rejected(c, UnsupportedError, lambda: asc.asc_float2int32_rn(1.0),
                            "asc_float2int32.md 产品支持情况", operand="product")
    with asc.Core("950") as c:
        assert_rejected(c, TypeError, lambda: asc.asc_float2int32_rz(1.0))  # no such scalar function
        assert_rejected(c, TypeError, lambda: asc.asc_float2int32_rn_sync(1.0))


@pytest.mark.parametrize("value", [10 ** 400, -(10 ** 400), 2 ** 70, Fraction(1, 2) + Fraction(1, 2 ** 80), 0.25,
                                   complex(1, 0), float("nan"), float("inf")])
def test_to_float_of_fp4_takes_only_the_values_it_holds_exactly(value):
    """An integer beyond the doubles (the fuzz suite's find: an OverflowError escaped), a Fraction whose nearest
    double fp4 holds, a value between codes: each a ParameterRangeError, as the type holds no such value."""
    with asc.Core("950"), pytest.raises(ParameterRangeError, match="fp4x2_e2m1_t|float4_e2m1fn"):
        asc.to_float(value, asc.fp4x2_e2m1_t)
