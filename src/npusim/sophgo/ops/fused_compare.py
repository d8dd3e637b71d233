"""The fused-compare unit's comparisons, on raw bit patterns (docs/semantics.md §8.3).

Every function takes unsigned-integer arrays (or 0-d arrays) holding the operands'
bits and the compare dtype; shapes broadcast.  The rules, measured on the
BM1684X and BM1688 cmodels and the SG2260 emulator (``tests/data/sophgo/select_oracle_*.json.gz``):

* Integers compare as two's complement for ``DT_INT*`` and unsigned for ``DT_UINT*``;
  the signedness comes from the compare dtype only (docs/semantics.md §6.1, §8.3).
* FP32 and BF16 operands have their subnormals flushed to zero before ``greater`` and
  ``less``; FP16 keeps its subnormals (docs/semantics.md §8.3).
* FP8 (SG2260 only): ``DT_FP8E5M2`` decodes as e5m2 (IEEE-style: exponent all ones is inf or
  NaN) and ``DT_FP8E4M3`` as e4m3fn (no infinities; only ``S.1111.111`` is NaN); subnormals are
  kept, in the compare and in the maximum/minimum result.  Measured on every pair of the
  256 codes of each type (the exhaustive grids of ``select_oracle_sg2260.json.gz``).
* ``greater(a, b)`` is IEEE ordered ``a > b``: false if either is NaN, ``+0 == -0``.
* ``less(a, b) = not((ordered(a, b) and a >= b) or bits(a) == bits(b))``, i.e. true
  whenever a NaN is involved, unless both operands are the *same* bit pattern.
  Equivalently ``less(a, b) = (greater(b, a) or unordered(a, b)) and bits(a) != bits(b)``,
  which is how it is computed here.
* ``equal(a, b)`` is bitwise equality, for floats too (``+0 != -0``, ``NaN == NaN`` iff same bits).
* The maximum/minimum result (``dst0``) is the chosen operand's bits, with FP32/BF16
  subnormals flushed to a zero of the same sign (:func:`flush_chosen`).

Note where this differs from numpy: ``np.greater``/``np.less`` keep subnormals, and
``np.less`` is false for NaN operands; ``np.equal`` is true for ``+0 == -0`` and false for NaNs.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..types import (
    DT_BFP16,
    DT_FP8E4M3,
    DT_FP8E5M2,
    DT_FP16,
    DT_FP32,
    data_type_t,
    is_float_type,
    is_signed_type,
)

__all__ = ["Condition", "compare", "flush_chosen", "fp8_values"]

Condition = Literal["greater", "less", "equal"]

_FLT_MIN = np.float32(2.0**-126)  # smallest normal float32 (and bfloat16): 0x00800000

# (exponent mask, sign bit) of the float types whose subnormals the unit flushes
_FLUSHED_FLOATS = {DT_FP32: (0x7F800000, 0x80000000), DT_BFP16: (0x7F80, 0x8000)}


def compare(condition: Condition, a_bits: np.ndarray, b_bits: np.ndarray, dtype: data_type_t) -> np.ndarray:
    """The boolean result of ``a <condition> b`` for operands of compare type ``dtype``.

    ``a_bits``/``b_bits`` are unsigned arrays of the dtype's width.
    """
    if condition == "equal":
        return np.equal(a_bits, b_bits)
    if not is_float_type(dtype):
        signed = np.dtype(f"<i{a_bits.dtype.itemsize}") if is_signed_type(dtype) else a_bits.dtype
        a, b = a_bits.view(signed), b_bits.view(signed)
        return np.greater(a, b) if condition == "greater" else np.less(a, b)
    a, b = _as_float32(a_bits, dtype), _as_float32(b_bits, dtype)
    flush = dtype in _FLUSHED_FLOATS
    if condition == "greater":
        return _greater(a, b, flush)
    with np.errstate(invalid="ignore"):
        unordered = np.isnan(a) | np.isnan(b)
    return (_greater(b, a, flush) | unordered) & np.not_equal(a_bits, b_bits)


def flush_chosen(chosen_bits: np.ndarray, dtype: data_type_t) -> np.ndarray:
    """Bits of the maximum/minimum result: FP32/BF16 subnormals become a zero of the same sign.

    Identity for FP16, FP8 and integer types (docs/semantics.md §8.3, "dst0 of maximum/minimum"; FP8 measured
    on the SG2260 emulator).
    """
    if dtype not in _FLUSHED_FLOATS:
        return chosen_bits
    exponent_mask, sign_bit = (chosen_bits.dtype.type(m) for m in _FLUSHED_FLOATS[dtype])
    is_zero_or_subnormal = (chosen_bits & exponent_mask) == 0
    return np.where(is_zero_or_subnormal, chosen_bits & sign_bit, chosen_bits)


def fp8_values(exponent_bits: int, mantissa_bits: int, has_infinity: bool) -> np.ndarray:
    """The float32 value of each of the 256 codes of an FP8 format, subnormals kept.

    ``has_infinity``: IEEE-style, an all-ones exponent is infinity (mantissa 0) or NaN (e5m2);
    otherwise only the all-ones exponent *and* mantissa is NaN and the rest of that binade is
    finite (e4m3fn).  Every value is exact in float32.
    """
    codes = np.arange(256)
    exponent = (codes >> mantissa_bits) & ((1 << exponent_bits) - 1)
    mantissa = codes & ((1 << mantissa_bits) - 1)
    bias = (1 << (exponent_bits - 1)) - 1
    subnormal = exponent == 0
    significand = np.where(subnormal, mantissa, mantissa + (1 << mantissa_bits))
    magnitude = np.ldexp(significand.astype(np.float64), np.where(subnormal, 1, exponent) - bias - mantissa_bits)
    top = exponent == (1 << exponent_bits) - 1
    if has_infinity:
        magnitude = np.where(top, np.where(mantissa == 0, np.inf, np.nan), magnitude)
    else:
        magnitude = np.where(top & (mantissa == (1 << mantissa_bits) - 1), np.nan, magnitude)
    return np.where(codes >> 7, -magnitude, magnitude).astype(np.float32)


_FP8_VALUES = {DT_FP8E5M2: fp8_values(5, 2, True), DT_FP8E4M3: fp8_values(4, 3, False)}


def _as_float32(bits: np.ndarray, dtype: data_type_t) -> np.ndarray:
    """The operand's value as float32 (exact for FP16, BF16 and FP8; NaN stays NaN)."""
    if dtype == DT_FP32:
        return bits.view(np.float32)
    if dtype == DT_BFP16:
        return np.left_shift(bits, 16, dtype=np.uint32).view(np.float32)  # dtype: 0-d safe on numpy < 2
    if dtype == DT_FP16:
        return bits.view(np.float16).astype(np.float32)
    if dtype in _FP8_VALUES:
        return _FP8_VALUES[dtype][bits]
    raise ValueError(f"no float model for {dtype.name}")


def _greater(a: np.ndarray, b: np.ndarray, flush_subnormals: bool) -> np.ndarray:
    """IEEE ordered ``a > b``; with ``flush_subnormals``, as if subnormals were zero.

    Flushing can only change the answer when both operands are zero or subnormal
    (a normal operand decides by its sign), and ``a > b`` then needs ``a < FLT_MIN`` and
    ``b > -FLT_MIN``.  So ``ftz(a) > ftz(b) == (a > b) and (a >= FLT_MIN or b <= -FLT_MIN)``,
    three plain compares instead of rewriting both operands.
    """
    with np.errstate(invalid="ignore"):
        result = np.greater(a, b)
        if flush_subnormals:
            result &= np.greater_equal(a, _FLT_MIN) | np.less_equal(b, -_FLT_MIN)
    return result
