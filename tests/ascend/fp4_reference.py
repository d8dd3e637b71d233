"""fp4x2_e2m1_t (E2M1) the plain way: a reference for tests/ascend/test_cast_fp4_950.py.

Written from 数据结构/内置数据类型.md (表5: sign 1 bit, exponent 2, mantissa 1, range [-6, 6]; the formulas
``(-1)**S * (1 + M_v) * 2**(E_v - Bias)`` for a normal code, ``(-1)**S * M_v * 2**(1 - Bias)`` for a subnormal one,
``Bias = 2**(Ebits - 1) - 1``), Reg矢量计算/类型转换/Cast.md 约束说明 (no inf and no NaN; bfloat16 inf or a value
beyond the range gives the signed largest value, NaN gives 0) and the RoundMode meanings of Memory Cast.md
(RoundMode取值说明).  Values are Fractions; a code is read from its bit string; rounding picks among the signed
values below and above (not npusim's magnitude search).  No numpy, no npusim code.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction

EBITS, MBITS = 2, 1
BIAS = 2 ** (EBITS - 1) - 1


def value_of(code: int) -> Fraction:
    """The value of a 4-bit code, read as the bit string S EE M (high bit first) by the page's formulas."""
    bits = format(code, "04b")
    sign = -1 if bits[0] == "1" else 1
    e_v = int(bits[1:1 + EBITS], 2)
    m_v = sum(Fraction(int(b), 2 ** (i + 1)) for i, b in enumerate(bits[1 + EBITS:]))
    if e_v == 0:
        return sign * m_v * Fraction(2) ** (1 - BIAS)
    return sign * (1 + m_v) * Fraction(2) ** (e_v - BIAS)


def is_negative(code: int) -> bool:
    return code >= 8


#: (value, code) of every code but -0, ascending; ``+0`` stands for both zeros
GRID = sorted((value_of(code), code) for code in range(16) if code != 8)
MAX = max(v for v, _ in GRID)


def bfloat16_value(bits: int):
    """A bfloat16 bit pattern's value: a Fraction, or ``math.inf`` / ``-math.inf`` / ``"nan"``."""
    value = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return value
    return Fraction(value)


def bfloat16_bits_of(value: Fraction, negative: bool) -> int:
    """The bfloat16 bits of an E2M1 value (exact: at most 2 significant bits); ``negative`` signs a zero."""
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0] >> 16
    return bits | 0x8000 if negative else bits


def to_bfloat16(code: int) -> int:
    """fp4x2_e2m1_t -> bfloat16_t of one code: the value, exactly (-0 gives 0x8000)."""
    return bfloat16_bits_of(value_of(code), is_negative(code))


def _even(code: int) -> bool:
    return code % 2 == 0  # the mantissa bit


def from_bfloat16(bits: int, mode: str) -> int:
    """bfloat16_t -> fp4x2_e2m1_t of one lane by ``mode`` ("rint", "floor", "ceil", "round", "trunc")."""
    value = bfloat16_value(bits)
    negative = bits >> 15 == 1
    if value == "nan":
        return 0
    if value in (math.inf, -math.inf) or abs(value) > MAX:
        return 0xF if negative else 0x7
    below = max((v, c) for v, c in GRID if v <= value)
    above = min((v, c) for v, c in GRID if v >= value)
    if below[0] == above[0] or mode == "floor":  # exact, or toward -inf
        chosen = below
    elif mode == "ceil":
        chosen = above
    elif mode == "trunc":
        chosen = below if value > 0 else above
    else:
        low_gap, high_gap = value - below[0], above[0] - value
        if low_gap != high_gap:
            chosen = below if low_gap < high_gap else above
        elif mode == "round":  # ties away from zero
            chosen = above if value > 0 else below
        else:  # rint: ties to the even code
            chosen = below if _even(below[1]) else above
    result, code = chosen
    if result == 0:  # a zero keeps the source's sign
        return 8 if negative else 0
    return code


def nibble(memory: bytes | bytearray, index: int) -> int:
    """Element ``index`` of a contiguous run: the low nibble of byte ``index // 2`` for an even index."""
    return (memory[index // 2] >> (4 * (index % 2))) & 0xF


def packed(codes: list[int]) -> bytes:
    """A contiguous run of codes (an even number) as bytes, element ``2i`` in the low nibble of byte ``i``."""
    return bytes(codes[i] | codes[i + 1] << 4 for i in range(0, len(codes), 2))
