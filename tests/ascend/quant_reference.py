"""Per-element steps of AscendQuant's reference models (tests/ascend/test_adv_quant*.py), written from the
pages: float -> half and half -> int8 as the Cast pages define them, through exact rationals."""

from __future__ import annotations

from .reference_model import decode, encode


def to_half_bits(bits32: int) -> int:
    """float -> half, round to nearest even, as exact rationals (the reference model's encoder)."""
    return encode(decode(bits32, "float32"), "float16")


def to_int8(bits16: int) -> int:
    """half -> int8, round to nearest even, saturating (Cast.md: CAST_NONE is RINT when lossy; overflow
    saturates, precision_conversion.md); NaN -> 0 as the vendor's saturation mode does."""
    value = decode(bits16, "float16")
    if value == "nan":
        return 0
    if value in ("+inf", "-inf"):
        return 127 if value == "+inf" else -128
    if isinstance(value, tuple):  # ("zero", sign)
        return 0
    return max(-128, min(127, round(value)))  # Python's round: to nearest, ties to even
