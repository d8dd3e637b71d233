"""FP4 E2M1 (the Ascend 950's ``fp4x2_e2m1_t``): its 16 codes and the conversions to and from bfloat16.

The encoding (数据结构/内置数据类型.md, "浮点数": 表5 and the formulas above it; docs/semantics.md §5.33): a
4-bit code of 1 sign bit, 2 exponent bits and 1 mantissa bit, from the high bit down, with
``Bias = 2**(Ebits - 1) - 1 = 1``.  A normal code (E > 0) is ``(-1)**S * (1 + M/2) * 2**(E - 1)``, a subnormal
one (E = 0) ``(-1)**S * (M/2) * 2**0``, so the magnitudes of codes 0 .. 7 are ``0 0.5 1 1.5 2 3 4 6`` (表5's range
[-6, 6]) and codes 8 .. 15 are their negatives (8 is -0).  There is no infinity and no NaN (Reg矢量计算/类型转换/
Cast.md, 约束说明).  One ``fp4x2_e2m1_t`` byte holds two values, element ``2i`` in the low nibble of byte ``i``.

The conversions (Memory矢量计算/类型转换/Cast.md, the 950's table; Reg Cast.md, 约束说明;
precision_conversion.md, "fp4x2_e2m1_t → bfloat16_t" and "bfloat16_t → fp4x2_e2m1_t"): to bfloat16 every code is
exact; from bfloat16 the exact value is rounded by the RoundMode onto the 16 values (CAST_RINT: nearest, ties to
the even code; CAST_ROUND: nearest, ties away from zero; CAST_FLOOR / CAST_CEIL / CAST_TRUNC: toward -inf / +inf /
0), a value beyond ±6 and ±infinity give ±6 (the signed largest value), NaN gives 0.  A zero result keeps the
source's sign (-0.25 with CAST_RINT is the code 8), as every float conversion of npusim does; the pages say
nothing about the sign of zero.
"""

from __future__ import annotations

import numpy as np

from .rounding import round_increment

__all__ = ["E2M1_MAX_CODE", "decode_table", "encode_exact", "from_bfloat16_bits", "holds", "to_bfloat16_bits"]

E2M1_MAX_CODE = 0x7  # 6.0: E = 11, M = 1
_SIGN = 0x8
_MAGNITUDES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])  # codes 0 .. 7, ascending


def _decode(code: int) -> float:
    """The value of one 4-bit code by 内置数据类型.md's formulas (Ebits 2, Mbits 1, Bias 1)."""
    sign = -1.0 if code & _SIGN else 1.0
    exponent, mantissa = (code >> 1) & 0x3, code & 0x1
    if exponent == 0:  # subnormal: M_v * 2**(1 - Bias)
        return sign * (mantissa / 2) * 2.0 ** 0
    return sign * (1 + mantissa / 2) * 2.0 ** (exponent - 1)


_TABLE = np.array([_decode(code) for code in range(16)], dtype=np.float32)
_TABLE.setflags(write=False)
assert np.array_equal(_TABLE[:8], _MAGNITUDES) and _TABLE[8:].tolist() == (-_MAGNITUDES).tolist()


def decode_table() -> np.ndarray:
    """The value of every code, index = code (float32; read-only; code 8 is -0.0)."""
    return _TABLE


def holds(values: np.ndarray) -> np.ndarray:
    """Which float values are E2M1 values exactly (±0 included; NaN and ±infinity are not)."""
    return np.isin(np.abs(np.asarray(values, dtype=np.float64)), _MAGNITUDES)


def encode_exact(values: np.ndarray) -> np.ndarray:
    """The codes of ``values``, each one the type holds (:func:`holds`); -0.0 is the code 8."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    codes = np.searchsorted(_MAGNITUDES, np.abs(values)).astype(np.uint8)
    return np.where(np.signbit(values), codes | _SIGN, codes).astype(np.uint8)


def to_bfloat16_bits(codes: np.ndarray) -> np.ndarray:
    """The bfloat16 bits (uint16) of 4-bit codes: every value is exact in bfloat16 (precision_conversion.md: 无精度
    损失); -0 gives 0x8000."""
    values = _TABLE[np.asarray(codes, dtype=np.uint8)]
    return (values.view(np.uint32) >> 16).astype(np.uint16)  # float32 -> bfloat16 drops only zero bits here


def from_bfloat16_bits(bits: np.ndarray, mode: str) -> np.ndarray:
    """The 4-bit codes (uint8, one a lane) of bfloat16 lanes ``bits`` (uint16) rounded by ``mode`` (``"rint"``,
    ``"round"``, ``"floor"``, ``"ceil"``, ``"trunc"``), saturated to ±6, NaN to 0 (Reg Cast.md 约束说明)."""
    if mode not in ("rint", "round", "floor", "ceil", "trunc"):
        raise ValueError(f"fp4 e2m1: no conversion rule for rounding mode {mode!r}")
    bits = np.asarray(bits, dtype=np.uint16)
    with np.errstate(invalid="ignore"):  # a signalling NaN pattern converts quietly
        values = (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)  # bfloat16 -> float64: exact
    negative = (bits >> 15) == 1
    nan = np.isnan(values)
    magnitude = np.where(nan, 0.0, np.abs(values))
    beyond = magnitude > _MAGNITUDES[-1]  # ±infinity too: the signed largest value
    low = np.clip(np.searchsorted(_MAGNITUDES, magnitude, side="right") - 1, 0, 7)  # the code at or below
    high = np.minimum(low + 1, 7)
    exact = magnitude == _MAGNITUDES[low]
    below, above = magnitude - _MAGNITUDES[low], _MAGNITUDES[high] - magnitude  # exact in float64
    # the dropped part past the code below: at least half the gap to the next code, and not exactly half
    up = round_increment(mode, low % 2 == 1, ~exact & (below >= above), ~exact & (below != above), negative)
    code = np.where(exact, low, np.where(up, high, low))
    code = np.where(beyond, E2M1_MAX_CODE, code).astype(np.uint8)
    code = np.where(negative, code | _SIGN, code)
    return np.where(nan, 0, code).astype(np.uint8)
