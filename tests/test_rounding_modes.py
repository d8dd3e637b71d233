"""The RoundModes of a Cast in ``npusim.rounding``: every mode, scalars and arrays, against the exact
reference of ``tests/ascend/cast_reference.py`` (precision_conversion.md 表1), plus pinned cases."""

from __future__ import annotations

import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim.dtypes import by_name
from npusim.rounding import MODES, float_array_bits, float_bits, integral_array, round_increment

from .ascend.cast_reference import to_float, to_integral

NARROW = ("float16", "bfloat16", "float32", "float8_e5m2", "float8_e4m3fn")


# (mode, kept odd, first dropped, rest dropped, negative) -> up?  (表1, one line per mode)
@pytest.mark.parametrize("mode, cases", [
    ("rint", [((0, 1, 0, 0), 0), ((1, 1, 0, 0), 1), ((0, 1, 1, 0), 1), ((1, 0, 1, 1), 0)]),
    ("round", [((0, 1, 0, 0), 1), ((0, 0, 1, 1), 0), ((1, 1, 0, 1), 1)]),
    ("trunc", [((1, 1, 1, 0), 0), ((1, 1, 1, 1), 0)]),
    ("floor", [((0, 0, 1, 0), 0), ((0, 0, 1, 1), 1), ((0, 0, 0, 1), 0)]),
    ("ceil", [((0, 0, 1, 0), 1), ((0, 0, 1, 1), 0), ((0, 0, 0, 0), 0)]),
    ("odd", [((0, 0, 1, 0), 1), ((1, 1, 1, 0), 0), ((0, 0, 0, 0), 0)]),
])
def test_round_increment_follows_table_1(mode, cases):
    for (odd, first, rest, negative), up in cases:
        assert bool(round_increment(mode, bool(odd), bool(first), bool(rest), bool(negative))) == bool(up)


def test_pinned_cases():
    half = by_name("float16")
    assert [float_bits(Fraction(2049, 4096), half, m) for m in MODES] == [0x3800, 0x3800, 0x3801, 0x3801, 0x3800,
                                                                          0x3801]
    assert [float_bits(-Fraction(2049, 4096), half, m) for m in MODES] == [0xB800, 0xB801, 0xB800, 0xB801, 0xB800,
                                                                           0xB801]
    assert [float_bits(70000, half, m) for m in MODES] == [0x7C00, 0x7BFF, 0x7C00, 0x7C00, 0x7BFF, 0x7BFF]
    assert [float_bits(-70000, half, m) for m in MODES] == [0xFC00, 0xFC00, 0xFBFF, 0xFC00, 0xFBFF, 0xFBFF]
    assert integral_array(np.array([-1.5, -0.25, 2.5, 1e300]), "round").tolist() == [-2.0, -0.0, 3.0, 1e300]
    assert np.signbit(integral_array(np.array([-0.25]), "ceil"))[0]


def _double(bits: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


@settings(max_examples=300, deadline=None)
@given(bits=st.integers(0, 2**64 - 1), name=st.sampled_from(NARROW), mode=st.sampled_from(MODES))
def test_scalars_and_arrays_round_like_the_reference(bits, name, mode):
    value = _double(bits)
    if value != value:
        return  # NaN: covered by the Cast tests
    exact = value if value in (float("inf"), float("-inf")) or value == 0 else Fraction(value)
    if value == 0:
        exact = value
    expected = to_float(exact, name, mode)
    dtype = by_name(name)
    assert float_bits(value, dtype, mode) == expected
    assert int(float_array_bits(np.array([value]), dtype, mode)[0]) == expected


@settings(max_examples=300, deadline=None)
@given(bits=st.integers(0, 2**32 - 1), mode=st.sampled_from(MODES))
def test_integral_values_of_float32_like_the_reference(bits, mode):
    value = np.array([bits], dtype=np.uint32).view(np.float32)
    if np.isnan(value[0]) or np.isinf(value[0]):
        return
    expected = to_integral(Fraction(float(value[0])) if value[0] != 0 else float(value[0]), mode)
    result = integral_array(value, mode)[0]
    assert result == expected and np.signbit(result) == (struct.pack(">d", float(expected))[0] >= 0x80)


# every float type npusim rounds to integral values in (Truncate, Cast float -> int): its bit width
INTEGRAL_TYPES = {"float16": 16, "bfloat16": 16, "float32": 32, "float64": 64, "float8_e5m2": 8, "float8_e4m3fn": 8}


@settings(max_examples=600, deadline=None)
@given(data=st.data(), name=st.sampled_from(sorted(INTEGRAL_TYPES)), mode=st.sampled_from(MODES))
def test_integral_values_of_every_float_type_like_the_reference(data, name, mode):
    """Arrays of every float type, special values included, against the exact reference, element by
    element; the result keeps the array's own type (an integral value of a p-bit float is one)."""
    dtype = by_name(name)
    width = INTEGRAL_TYPES[name]
    raw = data.draw(st.lists(st.integers(0, 2**width - 1), min_size=1, max_size=8))
    values = np.array(raw, dtype=f"uint{width}").view(dtype.np_dtype)
    result = integral_array(values, mode)
    assert result.dtype == values.dtype
    for value, got in zip(values.astype(np.float64), result.astype(np.float64), strict=True):
        if np.isnan(value):
            assert np.isnan(got)
        elif np.isinf(value) or value == 0:
            assert struct.pack("<d", got) == struct.pack("<d", value)
        else:
            expected = to_integral(Fraction(float(value)), mode)
            assert got == expected and np.signbit(got) == np.signbit(value)
