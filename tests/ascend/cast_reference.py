"""An independent per-element reference for Cast, in exact rational arithmetic.

Written from 数据结构/precision_conversion.md (表1: what each RoundMode does with the dropped
part; "溢出默认按照饱和模式处理"), SetCtrlSpr(ISASI).md (CTRL[48]: inf -> ±MAX, NaN -> 0)
and docs/numerics.md ("Ascend: Cast"), the plain way: decode the source bits to a Fraction,
pick one of the two representable neighbours by the mode, encode it field by field.  It
shares no code with npusim (it builds on ``tests/float_reference.py``) and uses no numpy or
ml_dtypes conversion.  int4b_t is the 4-bit two's complement integer of Cast.md (one lane's bits
here; where two lanes lie in a byte is ``tests/ascend/int4_reference.py``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from ..float_reference import FORMATS, encode_exact, expected_bits, largest_finite, nan_bits, neighbour

INTEGERS = {"int4": (4, True), "int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False),
            "int32": (32, True), "uint32": (32, False), "int64": (64, True)}
MODES = {0: "rint", 1: "rint", 2: "floor", 3: "ceil", 4: "round", 5: "trunc", 6: "odd"}  # RoundMode -> rule


def decode(name: str, bits: int):
    """The value of ``bits`` of type ``name``: an int, a Fraction, ``-0.0``, ``±inf`` or ``nan``."""
    if name in INTEGERS:
        width, signed = INTEGERS[name]
        return bits - (1 << width) if signed and bits >> (width - 1) else bits
    ebits, mbits, finite_only = FORMATS[name]
    negative = bits >> (ebits + mbits) & 1
    exponent = bits >> mbits & ((1 << ebits) - 1)
    mantissa = bits & ((1 << mbits) - 1)
    bias = 2 ** (ebits - 1) - 1
    top = exponent == (1 << ebits) - 1
    if finite_only and top and mantissa == (1 << mbits) - 1 or not finite_only and top and mantissa:
        return math.nan
    if not finite_only and top:
        return -math.inf if negative else math.inf
    if exponent == 0:
        magnitude = Fraction(mantissa, 2**mbits) * Fraction(2) ** (1 - bias)
    else:
        magnitude = (1 + Fraction(mantissa, 2**mbits)) * Fraction(2) ** (exponent - bias)
    if magnitude == 0:
        return -0.0 if negative else 0
    return -magnitude if negative else magnitude


def to_float(value, name: str, mode: str) -> int:
    """Bits of ``value`` rounded to the float type ``name`` by ``mode`` (no saturation; NaN handled by callers)."""
    return expected_bits(value, name, mode)


def to_integral(value, mode: str):
    """``value`` rounded to an integer by ``mode`` (a Fraction/int; a zero keeps a float's sign)."""
    if isinstance(value, float):
        return value  # -0.0, ±inf, nan stay
    negative = value < 0
    magnitude = abs(Fraction(value))
    chosen = neighbour(magnitude, Fraction(math.floor(magnitude)), Fraction(1), mode, negative)
    if chosen == 0:
        return -0.0 if negative else 0
    return -chosen if negative else chosen


def cast(src: str, dst: str, bits: int, round_mode: int, saturate: bool) -> int:
    """What one lane of ``Cast`` must produce: the bits of ``dst``."""
    mode = MODES[round_mode]
    value = decode(src, bits)
    if dst in INTEGERS:
        width, signed = INTEGERS[dst]
        low, high = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)
        if isinstance(value, float) and math.isnan(value):
            integer = 0
        elif isinstance(value, float) and math.isinf(value):
            integer = high if value > 0 else low
        else:
            integral = to_integral(value, mode) if src not in INTEGERS else value
            integer = max(low, min(high, int(integral)))
        return integer & ((1 << width) - 1)
    if src == dst:
        value = to_integral(value, mode)
    ebits, mbits, finite_only = FORMATS[dst]
    if isinstance(value, float) and math.isnan(value):
        return 0 if saturate else nan_bits(dst, False)
    result = to_float(value, dst, mode)
    sign = 1 << (ebits + mbits)
    infinity = ((1 << ebits) - 1) << mbits
    if saturate and not finite_only and result & ~sign == infinity:
        return (result & sign) | encode_exact(dst, False, largest_finite(dst))
    return result
