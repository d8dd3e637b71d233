"""An independent reference for narrowing numbers to float formats, in exact rational arithmetic.

Written from IEEE 754-2019 (§3.3 formats, §4.3.1 roundTiesToEven, §7.4 overflow) and the
rule stated in npusim's ``rounding`` module docstring, the plain way: find the two
representable neighbours of the exact value, take the nearer (on a tie the one with an even
significand), then encode the chosen value field by field.  It shares no code with npusim
and uses no numpy or ml_dtypes conversion.

Values are Python ints, floats or Fractions; ``-0.0``, infinities and NaN carry their sign.
:func:`half_bits_of_singles` is the same rule for float32 -> half on long arrays, by comparisons with the
midpoints between half values (doubles, exact), checked against the rational one in
tests/test_half_conversion_routes.py.
"""

from __future__ import annotations

import functools
import math
import struct
from fractions import Fraction

import numpy as np

# name: (exponent bits, mantissa bits, finite only: the top exponent holds numbers, all-ones is NaN)
FORMATS = {
    "float16": (5, 10, False),
    "bfloat16": (8, 7, False),
    "float32": (8, 23, False),
    "float64": (11, 52, False),
    "float8_e5m2": (5, 2, False),
    "float8_e4m3fn": (4, 3, True),
}


def width(name: str) -> int:
    ebits, mbits, _ = FORMATS[name]
    return 1 + ebits + mbits


def largest_finite(name: str) -> Fraction:
    ebits, mbits, finite_only = FORMATS[name]
    bias = 2 ** (ebits - 1) - 1
    if finite_only:  # S.1111.110: the all-ones significand of the top exponent is NaN
        return (2 - Fraction(2, 2**mbits)) * Fraction(2) ** (2**ebits - 1 - bias)
    return (2 - Fraction(1, 2**mbits)) * Fraction(2) ** (2**ebits - 2 - bias)


def is_negative(value) -> bool:
    if isinstance(value, float):
        return struct.pack(">d", value)[0] >= 0x80  # the sign bit, also of -0.0 and NaN
    return value < 0


def nan_bits(name: str, negative: bool) -> int:
    ebits, mbits, finite_only = FORMATS[name]
    top = (2**ebits - 1) << mbits
    quiet = top | (2**mbits - 1 if finite_only else 2 ** (mbits - 1))
    return quiet | (1 << (ebits + mbits) if negative else 0)


def encode_exact(name: str, negative: bool, magnitude: Fraction) -> int:
    """Bits of a value the format holds exactly (zero, subnormal, normal, or infinity as None)."""
    ebits, mbits, finite_only = FORMATS[name]
    bias = 2 ** (ebits - 1) - 1
    sign = 1 << (ebits + mbits) if negative else 0
    if magnitude is None:  # infinity
        return sign | ((2**ebits - 1) << mbits)
    smallest_normal = Fraction(2) ** (1 - bias)
    if magnitude < smallest_normal:
        steps = magnitude / (smallest_normal / 2**mbits)
        assert steps.denominator == 1
        return sign | int(steps)
    exponent = binade(magnitude)
    fraction = magnitude / Fraction(2) ** exponent - 1
    field = fraction * 2**mbits
    assert field.denominator == 1
    return sign | ((exponent + bias) << mbits) | int(field)


def binade(magnitude: Fraction) -> int:
    """The e with 2**e <= magnitude < 2**(e + 1), for a positive Fraction."""
    e = magnitude.numerator.bit_length() - magnitude.denominator.bit_length()  # e or e + 1
    return e if Fraction(2) ** e <= magnitude else e - 1


def neighbour(magnitude: Fraction, below: Fraction, spacing: Fraction, mode: str, negative: bool) -> Fraction:
    """The representable neighbour of ``magnitude`` (between ``below`` and ``below + spacing``) that a rounding
    mode takes (Ascend precision_conversion.md 表1; ``"rint"`` is IEEE roundTiesToEven)."""
    above = below + spacing
    if magnitude == below:
        return below
    odd_below = (below / spacing) % 2 == 1
    nearer = below if magnitude - below < above - magnitude else above if magnitude - below > above - magnitude \
        else None  # a tie
    return {
        "rint": nearer if nearer is not None else (above if odd_below else below),  # a tie: the even significand
        "round": nearer if nearer is not None else above,  # a tie: away from zero
        "trunc": below,
        "floor": above if negative else below,
        "ceil": below if negative else above,
        "odd": below if odd_below else above,
    }[mode]


def expected_bits(value, name: str, mode: str = "rint") -> int:
    """What npusim must produce for ``value`` narrowed to ``name`` (in ``mode``; an overflow is infinity in the
    modes that round its magnitude up, the largest finite value in the others)."""
    ebits, mbits, finite_only = FORMATS[name]
    negative = is_negative(value)
    if isinstance(value, float) and math.isnan(value):
        return nan_bits(name, negative)
    if isinstance(value, float) and math.isinf(value):
        return encode_exact(name, negative, largest_finite(name) if finite_only else None)
    magnitude = abs(Fraction(value))
    bias = 2 ** (ebits - 1) - 1
    # spacing of representable values around the magnitude (subnormals: that of the smallest binade)
    exponent = max(binade(magnitude), 1 - bias) if magnitude else 1 - bias
    spacing = Fraction(2) ** (exponent - mbits)
    chosen = neighbour(magnitude, (magnitude // spacing) * spacing, spacing, mode, negative)
    if chosen > largest_finite(name):
        to_infinity = {"rint": True, "round": True, "trunc": False, "odd": False, "floor": negative,
                       "ceil": not negative}[mode]
        return encode_exact(name, negative, None if to_infinity and not finite_only else largest_finite(name))
    return encode_exact(name, negative, chosen)


# ------------------------------------------------------------------ float32 -> half, vectorised
@functools.cache
def half_values() -> np.ndarray:
    """The value of every positive half code 0 .. 0x7BFF, then 2**16 (code 0x7C00, infinity's place), as doubles."""
    codes = np.arange(0x7C01)
    exponent, mantissa = codes >> 10, codes & 0x3FF
    normal = exponent > 0
    significand = np.where(normal, mantissa + 1024, mantissa).astype(np.float64)
    return np.ldexp(significand, np.where(normal, exponent, 1) - 25)


@functools.cache
def half_midpoints() -> np.ndarray:
    """The midpoint between each two neighbours of :func:`half_values` (exact: 12 significant bits at most)."""
    values = half_values()
    return (values[:-1] + values[1:]) / 2


def half_bits_of_singles(values) -> np.ndarray:
    """The half bits (uint16) of float32 ``values`` (or float64 ones, taken exactly), rounded to nearest even,
    vectorised for long arrays: every
    finite half value and every midpoint between neighbours is exact in a double, so a float32's half is the
    code whose interval of midpoints holds it, a value on a midpoint taking the even code; from 65520 (the
    midpoint between 65504 and 2**16, infinity's place with an unbounded exponent) on, infinity; a NaN the
    quiet NaN of its sign.  No conversion to half is used."""
    midpoints = half_midpoints()
    values = np.asarray(values)
    single = values if values.dtype == np.float64 else values.astype(np.float32)
    sign = np.where(np.signbit(single), 0x8000, 0)
    with np.errstate(invalid="ignore"):  # a signalling NaN
        magnitude = np.abs(single.astype(np.float64))  # float32 -> float64 is exact
    code = np.searchsorted(midpoints, magnitude, side="left")  # the midpoints below the value
    on_midpoint = (code < midpoints.size) & (midpoints[np.minimum(code, midpoints.size - 1)] == magnitude)
    code = np.where(on_midpoint & (code % 2 == 1), code + 1, code)  # a tie: the even one of code, code + 1
    code = np.minimum(code, 0x7C00)
    code = np.where(np.isnan(magnitude), 0x7E00, code)
    return (code | sign).astype(np.uint16)


def half_doubles(codes: np.ndarray) -> np.ndarray:
    """Each half code's value as a double (exact), NaN and ±inf included."""
    sign = np.where(codes >> 15, -1.0, 1.0)
    exponent, mantissa = (codes >> 10) & 0x1F, (codes & 0x3FF).astype(np.float64)
    magnitude = np.where(exponent > 0, np.ldexp(mantissa + 1024, exponent.astype(np.int64) - 25),
                         np.ldexp(mantissa, -24))
    magnitude = np.where(exponent == 0x1F, np.where(mantissa == 0, np.inf, np.nan), magnitude)
    return sign * magnitude
