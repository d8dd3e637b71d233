"""An independent per-element reference for the dequantising conversions (docs/semantics.md §5.21).

Written from SetDeqScale.md 表1 (the register's fields: scale bits 0-31 read as (1,8,10), a signed
9-bit offset in bits 37-45, the sign mode in bit 46; a half scale in bits 0-15), CastDequant.md
(``dst = Cast(src * scale + offset)``, saturating; ``dst = Cast(src * scale)`` for int32 -> half) and
the accuracy model of docs/numerics.md ("Ascend: dequantisation"): every float step rounded once to
nearest even, as exact rationals (``tests/float_reference.py``), one lane at a time.  It shares no code
with npusim.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

from ..float_reference import expected_bits
from .cast_reference import decode

HALF_MAX_BITS = 0x7BFF


def word(scale: float, offset: int, sign_mode: bool) -> int:
    """The 64-bit word SetDeqScale(float, int16_t, bool) stores (表1)."""
    scale_bits = struct.unpack("<I", struct.pack("<f", scale))[0]
    return scale_bits | ((offset & 0x1FF) << 37) | (int(sign_mode) << 46)


def fields(value: int) -> tuple[object, int, bool]:
    """(scale as a value: Fraction / ±0.0 / ±inf / nan, signed 9-bit offset, sign mode) of a word."""
    scale = decode("float32", (value & 0xFFFFFFFF) & ~0x1FFF)  # (1,8,10): the 13 low mantissa bits unused
    offset = (value >> 37) & 0x1FF
    if offset >= 256:
        offset -= 512
    return scale, offset, bool((value >> 46) & 1)


def _times(value: int, scale):
    """``value * scale`` as the reference's value kinds (NaN, infinities, signed zeros kept)."""
    if isinstance(scale, float):
        if math.isnan(scale) or (math.isinf(scale) and value == 0):
            return math.nan
        if math.isinf(scale):
            return scale if value > 0 else -scale
        return 0  # a signed zero scale: the product is a zero, whose sign does not matter below
    return Fraction(value) * scale


def _rounded_float32(value):
    """``value`` rounded once to float32 (nearest even), back as a value."""
    if isinstance(value, float):
        return value
    return decode("float32", expected_bits(value, "float32", "rint"))


def b8_lane(src: int, value: int, signed_dst: bool) -> int:
    """The byte of one int16 -> b8 lane with parameter word ``value``."""
    scale, offset, _sign = fields(value)
    product = _rounded_float32(_times(src, scale))
    if isinstance(product, float) and math.isnan(product):
        integer = 0
    elif isinstance(product, float) and math.isinf(product):
        integer = 32767 if product > 0 else -32768
    else:
        integer = max(-32768, min(32767, _round_half_even(Fraction(product))))
    integer = max(-256, min(255, integer)) + offset
    low, high = (-128, 127) if signed_dst else (0, 255)
    return max(low, min(high, integer)) & 0xFF


def _round_half_even(value: Fraction) -> int:
    floor = math.floor(value)
    rest = value - floor
    if rest > Fraction(1, 2) or rest == Fraction(1, 2) and floor % 2:
        return floor + 1
    return floor


def half_lane(src: int, half_bits: int, saturate: bool) -> int:
    """The half bits of one int32 -> half lane with the half scale ``half_bits``."""
    source = _rounded_float32(Fraction(src))
    scale = decode("float16", half_bits)
    negative = (source < 0) != bool(half_bits & 0x8000)
    nan = 0 if saturate else 0x7E00
    if isinstance(scale, float) and math.isnan(scale):
        return nan
    if isinstance(scale, float) and math.isinf(scale):
        if source == 0:
            return nan
        return (0x8000 if negative else 0) | (HALF_MAX_BITS if saturate else 0x7C00)
    product = Fraction(source) * (0 if isinstance(scale, float) else scale)  # a float here is -0.0
    if product == 0:
        return 0x8000 if negative else 0
    bits = expected_bits(_rounded_float32(product), "float16", "rint")
    if saturate and bits & 0x7FFF == 0x7C00:
        return (bits & 0x8000) | HALF_MAX_BITS
    return bits
