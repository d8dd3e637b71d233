"""HiFloat8 (the Ascend 950's ``hifloat8_t``, HiF8): its 256 codes and the conversions to it.

The encoding (数据结构/内置数据类型.md, "hifloat8_t", 表6 and 表7 with formulas (1)-(4);
docs/semantics.md §5.32): a sign bit, then a prefix-coded dot field D that fixes how many of the
remaining bits are exponent and how many mantissa::

    D = 11   : 4 exponent bits, 1 mantissa bit   |Ev| in [8, 15]
    D = 10   : 3 exponent bits, 2 mantissa bits  |Ev| in [4, 7]
    D = 01   : 2 exponent bits, 3 mantissa bits  |Ev| in [2, 3]
    D = 001  : 1 exponent bit,  3 mantissa bits  |Ev| = 1
    D = 0001 : no exponent bits, 3 mantissa bits Ev = 0
    D = 0000 : subnormal, 3 bits M: value 2**(M - 23)

The exponent field is sign-magnitude with an implicit leading one: its top bit is Ev's sign and the
other bits, with a one put in front, are |Ev| (the page's worked reading: E = 0b1100 gives -12; its
formula (2) ``E | (1 << width of E)`` is off by one, erratum E33).  A normal value is
``(-1)**S * 2**Ev * (1 + M / 2**width of M)``.  The special codes are those of the Reg-level
Cast.md's conversion rules: 0x00 zero (there is no negative zero), 0x80 NaN, 0x6F / 0xEF
±infinity (the place of ±1.5 * 2**15, so the largest finite value is 2**15 = 32768, 0x6E).

The conversions (Reg矢量计算/类型转换/Cast.md, "float转hifloat8_t转换规则" and "half转hifloat8_t转换规则"):
the kept mantissa bits depend on |Ev| (3 up to |Ev| = 3, 2 up to 7, 1 up to 15; the subnormals keep
none: 1.f * 2**Ev becomes 2**Ev).  ``"round"`` (CAST_ROUND) adds one unit when the first dropped bit
is set; ``"hybrid"`` (CAST_HYBRID) does so for |Ev| <= 3 too, and elsewhere when the 14 dropped bits
from the first one, as an unsigned number, are at least the source's own low 14 bits (``thr =
f32[13:0]``) and something is dropped: read literally the rule also bumps a value the type holds
(``frac = thr = 0``), which 约束说明 rules out ("舍入模式仅在可能导致精度损失...的转换中生效";
erratum E34).  Ev = -23 gives the smallest subnormal (round; hybrid when ``{1, f32[22:10]} >= thr``)
or zero, Ev < -23 zero, Ev > 15 and infinity ±infinity, NaN the NaN code; then CTRL[48]'s saturation
turns ±infinity into ±32768 and NaN into 0.
"""

from __future__ import annotations

import numpy as np

__all__ = ["HIF8_INF", "HIF8_MAX", "HIF8_NAN", "decode_table", "from_float32_bits", "from_half_bits",
           "is_value_code"]

HIF8_NAN = 0x80  # Cast.md: HiF8NAN(8'b10000000)
HIF8_INF = 0x6F  # Cast.md: HiF8+inf(8'b01101111); -inf is 0xEF
HIF8_MAX = 0x6E  # 2**15: D = 11, E = 0111, M = 0, the largest finite code
_SIGN = 0x80


def _mantissa_width(magnitude: np.ndarray) -> np.ndarray:
    """Mantissa bits kept for a normal |Ev| (表6): 3 up to 3, 2 up to 7, 1 up to 15."""
    return np.where(magnitude <= 3, 3, np.where(magnitude <= 7, 2, 1))


def _encode(negative: np.ndarray, ev: np.ndarray, mantissa: np.ndarray, subnormal: np.ndarray) -> np.ndarray:
    """The code of sign, exponent and kept mantissa (Ev in [-22, 15]; subnormal lanes: the value 2**Ev)."""
    magnitude = np.abs(ev)
    es = (ev < 0).astype(np.int64)
    code = np.select(
        [subnormal, magnitude == 0, magnitude == 1, magnitude <= 3, magnitude <= 7],
        [ev + 23,
         0x08 | mantissa,
         0x10 | (es << 3) | mantissa,
         0x20 | (((es << 1) | (magnitude & 1)) << 3) | mantissa,
         0x40 | (((es << 2) | (magnitude & 3)) << 2) | mantissa],
        0x60 | (((es << 3) | (magnitude & 7)) << 1) | mantissa)
    return np.where(negative, code | _SIGN, code)


def from_half_bits(bits: np.ndarray, mode: str, saturate: bool) -> np.ndarray:
    """The HiF8 codes of half lanes ``bits`` (uint16): the half's exact float value by the float rule, except
    that CAST_HYBRID takes the half rule's threshold (Cast.md, "half转hifloat8_t转换规则": the two dropped bits
    from the first one against ``thr = {h[0], 1}``).  The caller rejects CAST_HYBRID of a half subnormal, which
    that rule leaves undefined (docs/semantics.md §5.32)."""
    half = np.asarray(bits, dtype=np.uint16)
    wide = half.view(np.float16).astype(np.float32).view(np.uint32)  # exact, subnormals and specials too
    if mode != "hybrid":
        return from_float32_bits(wide, mode, saturate)
    return from_float32_bits(wide, mode, saturate, half_thr=((half.astype(np.int64) & 1) << 1) | 1)


def from_float32_bits(bits: np.ndarray, mode: str, saturate: bool, half_thr: np.ndarray | None = None) -> np.ndarray:
    """The HiF8 codes (uint8) of float32 lanes ``bits`` (uint32), by Cast.md's float -> hifloat8_t rule.

    ``mode``: ``"round"`` (CAST_ROUND) or ``"hybrid"`` (CAST_HYBRID); ``saturate``: CTRL[48]'s state;
    ``half_thr``: the lanes came from normal halves, and CAST_HYBRID compares their two bits after the kept
    ones with this threshold (:func:`from_half_bits`).
    """
    bits = np.asarray(bits, dtype=np.uint32).astype(np.int64)
    negative = (bits >> 31) == 1
    biased = (bits >> 23) & 0xFF
    fraction = bits & 0x7FFFFF
    ev = biased - 127
    thr = bits & 0x3FFF
    nan = (biased == 0xFF) & (fraction != 0)
    infinite = ~nan & (ev > 15)  # infinity, and every |value| >= 2**16
    zero = ev < -23
    tiny = ev == -23  # [2**-23, 2**-22): the smallest subnormal or zero
    subnormal = (ev >= -22) & (ev <= -16)
    width = np.where(subnormal, 0, _mantissa_width(np.abs(ev)))
    kept = fraction >> (23 - width)
    first = (fraction >> (22 - width)) & 1
    dropped = (fraction >> (9 - width)) & 0x3FFF  # the 14 bits from the first dropped one
    if mode == "round":
        up = first == 1
        tiny_up = tiny
    elif mode == "hybrid":
        inexact = (fraction & ((1 << (23 - width)) - 1)) != 0  # read literally, 0 >= 0 bumps exact values (E34)
        if half_thr is not None:  # the half rule: frac = h[9-w : 8-w], 2 bits, against thr = {h[0], 1} >= 1
            dropped, thr, inexact = (fraction >> (21 - width)) & 3, half_thr, True
        up = np.where(np.abs(ev) <= 3, first == 1, (dropped >= thr) & inexact)
        tiny_up = tiny & (((1 << 13) | (fraction >> 10)) >= thr)
    else:
        raise ValueError(f"hifloat8: no conversion rule for rounding mode {mode!r}")
    kept = np.where(subnormal, 0, kept + up)
    carry = kept >> width  # the mantissa overflowed into the next binade
    ev = np.where(subnormal, ev + up, ev + carry)
    kept = np.where(carry == 1, 0, kept)
    subnormal &= ev <= -16
    overflow = ev > 15
    inf_code = np.where(negative, HIF8_INF | _SIGN, HIF8_INF)
    regular = ~(nan | infinite | zero | tiny)
    safe_ev = np.where(regular & ~overflow, ev, 0)
    code = _encode(negative, safe_ev, np.where(regular & ~overflow, kept, 0), subnormal & regular)
    code = np.where(regular & overflow, inf_code, code)
    code = np.where(infinite, inf_code, code)
    code = np.where(zero | (tiny & ~tiny_up), 0, code)
    code = np.where(tiny & tiny_up, np.where(negative, 0x81, 0x01), code)
    code = np.where(nan, HIF8_NAN, code)
    if saturate:
        magnitude = code & 0x7F
        code = np.where((magnitude == HIF8_INF) & (code != HIF8_NAN), (code & _SIGN) | HIF8_MAX, code)
        code = np.where(code == HIF8_NAN, 0, code)
    return code.astype(np.uint8)


def _decode(code: int) -> float:
    """The value of one code (float32-exact: at most four significant bits, 2**-22 to 2**15)."""
    if code == 0:
        return 0.0
    if code == HIF8_NAN:
        return float("nan")
    sign = -1.0 if code & _SIGN else 1.0
    if code & 0x7F == HIF8_INF:
        return sign * float("inf")
    body = code & 0x7F
    if body >> 5:  # D = 01, 10, 11: exponent width 2, 3, 4
        e_width = 1 + (body >> 5)
        m_width = 5 - e_width
    elif body >> 4:  # D = 001
        e_width, m_width = 1, 3
    elif body >> 3:  # D = 0001
        e_width, m_width = 0, 3
    else:  # D = 0000: 2**(M - 23)
        return sign * 2.0 ** ((body & 7) - 23)
    mantissa = body & ((1 << m_width) - 1)
    exponent = (body >> m_width) & ((1 << e_width) - 1)
    if e_width:
        top = 1 << (e_width - 1)
        ev = (exponent | top) * (-1 if exponent & top else 1)  # the top bit is the sign, replaced by the leading 1
    else:
        ev = 0
    return sign * 2.0 ** ev * (1 + mantissa / (1 << m_width))


_TABLE = np.array([_decode(code) for code in range(256)], dtype=np.float32)
_TABLE.setflags(write=False)


def decode_table() -> np.ndarray:
    """The value of every code, index = code (float32; read-only)."""
    return _TABLE


def is_value_code(values: np.ndarray) -> np.ndarray:
    """Which float values are HiF8 values exactly (NaN and ±infinity included; ±0 is the code 0x00)."""
    values = np.asarray(values, dtype=np.float64)
    finite = _TABLE[np.isfinite(_TABLE)].astype(np.float64)
    return np.isin(values, finite) | np.isnan(values) | np.isinf(values)
