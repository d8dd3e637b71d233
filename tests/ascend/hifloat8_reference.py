"""An independent reference for hifloat8_t (docs/semantics.md §5.32), in exact rational arithmetic.

* :data:`VALUES`: each of the 256 codes' value, read from 内置数据类型.md 表6 as a bit string: the sign,
  the dot field D matched as a prefix ("11", "10", "01", "001", "0001", "0000"), the exponent bits whose
  first bit is the sign of Ev and the rest, after a leading 1, its magnitude (the page's worked reading:
  E = 0b1100 is -12, E = 0b011 is +7), the mantissa ``1 + M / 2**width``; D = 0000: ``2**(M - 23)``.
  The special codes are Cast.md's: 0x00 zero, 0x80 NaN, 0x6F / 0xEF ±infinity.
* :func:`round_away`: CAST_ROUND as nearest, ties away from zero, by exact comparison with the midpoints
  of neighbouring code values; the infinity code sits at ±1.5 * 2**15 in that order (Cast.md's rule
  encodes {S, 15, M = 1} as it), so from 1.25 * 2**15 up the result is infinity.
* :func:`round_hybrid`: CAST_HYBRID by Cast.md's threshold rule, stated on values: with ``lo <= |x| < hi``
  the neighbouring grid points of |x|'s binade (below 2**-22: 0 and 2**-22; the subnormal binades: 2**Ev
  and 2**(Ev + 1)), the dropped part ``r = (|x| - lo) / (hi - lo)`` as 14 bits, ``floor(r * 2**14)``, is
  compared with the source's own low 14 bits (float: bits 13..0): at least them goes up; |Ev| <= 3 rounds as
  CAST_ROUND, and a value the type holds is kept (Cast.md 约束说明: rounding acts only where precision is
  lost; the rule read literally would bump it, 0 >= 0: erratum E34).  :func:`round_hybrid_half`: the half
  rule's, 2 dropped bits ``floor(r * 4)`` against ``thr = 2 * h[0] + 1`` (normal halves only).
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

NAN, ZERO, POS_INF, NEG_INF, POS_MAX, NEG_MAX = 0x80, 0x00, 0x6F, 0xEF, 0x6E, 0xEE
_PREFIXES = (("11", 4, 1), ("10", 3, 2), ("01", 2, 3), ("001", 1, 3), ("0001", 0, 3))


def _value(code: int):
    if code == ZERO:
        return Fraction(0)
    if code == NAN:
        return "nan"
    if code in (POS_INF, NEG_INF):
        return "+inf" if code == POS_INF else "-inf"
    text = format(code, "08b")
    sign, body = (-1 if text[0] == "1" else 1), text[1:]
    for prefix, e_width, m_width in _PREFIXES:
        if body.startswith(prefix):
            e_bits = body[len(prefix):len(prefix) + e_width]
            m_bits = body[len(prefix) + e_width:]
            assert len(m_bits) == m_width
            ev = 0 if not e_bits else (-1 if e_bits[0] == "1" else 1) * int("1" + e_bits[1:], 2)
            return sign * Fraction(2) ** ev * (1 + Fraction(int(m_bits, 2), 2 ** m_width))
    assert body.startswith("0000")
    return sign * Fraction(2) ** (int(body[4:], 2) - 23)


VALUES = [_value(code) for code in range(256)]
#: the positive finite codes, by value, with the infinity code in 1.5 * 2**15's place
_GRID = sorted([(v, c) for c, v in enumerate(VALUES) if isinstance(v, Fraction) and v > 0]
               + [(Fraction(3, 2) * 2 ** 15, POS_INF)])


def float32_value(bits: int):
    """The exact value of float32 bits (``"nan"``, ``"+inf"``, ``"-inf"`` for the specials)."""
    x = struct.unpack("<f", struct.pack("<I", bits))[0]
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return Fraction(x)


def half_value(bits: int):
    """The exact value of half bits."""
    x = struct.unpack("<e", struct.pack("<H", bits))[0]
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return Fraction(x)


def _signed(code: int, negative: bool) -> int:
    return code | 0x80 if negative and code != ZERO else code


def _neighbours(a: Fraction) -> tuple[tuple[Fraction, int], tuple[Fraction, int] | None]:
    """The grid points lo <= a < hi (hi None above the last)."""
    lo = (Fraction(0), ZERO)
    for point in _GRID:
        if point[0] > a:
            return lo, point
        lo = point
    return lo, None


def _special(value, saturate: bool):
    if value == "nan":
        return ZERO if saturate else NAN
    if value in ("+inf", "-inf"):
        negative = value == "-inf"
        return (NEG_MAX if negative else POS_MAX) if saturate else (NEG_INF if negative else POS_INF)
    return None


def _saturated(code: int, saturate: bool) -> int:
    if saturate and code in (POS_INF, NEG_INF):
        return POS_MAX if code == POS_INF else NEG_MAX
    return code


def round_away(value, saturate: bool) -> int:
    """CAST_ROUND of an exact value (or a special) to a code."""
    special = _special(value, saturate)
    if special is not None:
        return special
    a = abs(value)
    (lo, lo_code), hi = _neighbours(a)
    if hi is None:  # beyond the infinity slot
        code = POS_INF
    elif a == lo:
        code = lo_code
    else:
        code = hi[1] if a >= (lo + hi[0]) / 2 else lo_code
    return _saturated(_signed(code, value < 0), saturate)


def _binade(a: Fraction) -> int:
    """floor(log2(a)) for a > 0, exactly."""
    e = a.numerator.bit_length() - a.denominator.bit_length()
    return e if Fraction(2) ** e <= a else e - 1


def round_hybrid(value, float_bits: int, saturate: bool) -> int:
    """CAST_HYBRID of a float32 value with bits ``float_bits`` to a code (Cast.md's threshold rule)."""
    special = _special(value, saturate)
    if special is not None:
        return special
    a = abs(value)
    if a == 0:
        return ZERO
    ev = _binade(a)
    if -3 <= ev <= 3 or ev > 15:  # |Ev| <= 3: the first dropped bit decides; Ev > 15: infinity either way
        return round_away(value, saturate)
    if ev < -23:
        return ZERO
    return _up_by_threshold(value, a, 14, float_bits & 0x3FFF, saturate)


def round_hybrid_half(value, half_bits: int, saturate: bool) -> int:
    """CAST_HYBRID of a normal half (or a special) with bits ``half_bits`` (Cast.md's half rule)."""
    special = _special(value, saturate)
    if special is not None:
        return special
    a = abs(value)
    if a == 0:
        return ZERO
    ev = _binade(a)
    assert ev >= -14, "a half subnormal: the rule does not define it"
    if -3 <= ev <= 3:
        return round_away(value, saturate)
    return _up_by_threshold(value, a, 2, 2 * (half_bits & 1) + 1, saturate)


def _up_by_threshold(value, a, bits: int, thr: int, saturate: bool) -> int:
    """The threshold rule on values: between the codes ``lo`` <= ``a`` < ``hi``, the position of ``a`` in units of
    (hi - lo) / 2**bits, floored (the rule's ``frac``), goes up to ``hi`` when at least ``thr``; a value the type
    holds stays (E34); above the infinity slot 1.5 * 2**15 (below 2**16) it is infinity, up or not."""
    (lo, lo_code), hi = _neighbours(a)
    if a == lo:
        return _saturated(_signed(lo_code, value < 0), saturate)
    if hi is None:
        return _saturated(_signed(POS_INF, value < 0), saturate)
    frac = math.floor((a - lo) / (hi[0] - lo) * 2 ** bits)
    code = hi[1] if frac >= thr else lo_code
    return _saturated(_signed(code, value < 0), saturate)
