"""What one lane of a Cast computes: a value of one element type converted to another.

The rules (数据结构/precision_conversion.md, "精度转换规则"; docs/numerics.md, "Ascend: Cast"):

* **To a float type**: the exact source value rounded once by the RoundMode
  (:mod:`npusim.rounding`; CAST_NONE rounds like CAST_RINT when the value does not fit).
  float -> float (the same type) rounds to an integral value ("float->float" of the page:
  0.5 gives 0 / 1 by mode).  A NaN source gives NaN, an infinite one infinity; then the
  product's saturation (CTRL[48] = 0 at power-on, SetCtrlSpr(ISASI).md: "inf输出会被饱和为±MAX，
  NaN输出会被饱和为0", for the conversion targets the page names): an infinite result becomes
  ±MAX of the target, a NaN result +0.  Without saturation a NaN result is the target's
  canonical quiet NaN (sign clear), as for every arithmetic result (docs/numerics.md).
* **To an integer type**: the value rounded to an integer by the RoundMode, then saturated to
  the target's range ("溢出默认按照饱和模式处理": int32 -> int16 of 2**31 - 1 is 2**15 - 1,
  float -> int16 of 2**22 + 0.5 is 32767).  A negative value to an unsigned type, which the page
  calls abnormal ("按异常处理"), saturates to 0, as int16 -> uint32 is documented to; NaN
  gives 0 and ±infinity the range's ends (not documented; the saturation rule above).
* **hifloat8_t** (npusim's ``hifloat8``, the 950; docs/semantics.md §5.32, :mod:`npusim.hifloat8`):
  from it, every code's value is exact in half and float (NaN and ±infinity then follow the target's
  rules above); to it, float by Reg矢量计算/类型转换/Cast.md's "float转hifloat8_t转换规则" (CAST_ROUND,
  CAST_HYBRID), half as its exact float value (CAST_HYBRID: with the half rule's threshold; a half subnormal
  source is rejected as not modelled, §5.32), then CTRL[48]'s saturation (±infinity to ±32768, NaN to 0).
* **Packed types** (``int4b_t``, docs/semantics.md §5.23): the lanes come and go as packed bytes,
  two elements a byte.  int4b_t -> half is exact; half -> int4b_t rounds by the mode and saturates
  to [-8, 7], as every integer target saturates to its range.
* **fp4x2_e2m1_t** (npusim's packed ``float4_e2m1fn``, the 950; docs/semantics.md §5.33, :mod:`npusim.fp4`):
  packed bytes as for int4b_t; to bfloat16 every code is exact, from bfloat16 the value rounds by the mode onto
  the 16 values, beyond ±6 and ±infinity give ±6 and NaN 0 whatever CTRL[48] says (Reg Cast.md 约束说明).
"""

from __future__ import annotations

import functools

import numpy as np

from ...dtypes import DTYPES, CodedDType, DType, PackedDType, PackedFloatDType
from ...errors import UnsupportedError
from ...fp4 import from_bfloat16_bits, to_bfloat16_bits
from ...hifloat8 import from_float32_bits, from_half_bits
from ...rounding import (
    float_array_bits,
    float_format,
    integral_array,
    may_hold_special,
    narrowed_bits,
    special_results,
)
from ...sources import semantics
from .. import pages
from .complex_lanes import join, split

__all__ = ["convert", "lane_raw"]

_VALUES = DTYPES["int8"]  # the type a packed element's value is computed in (every int4 value is an int8)
_HALF = DTYPES["float16"]


def lane_raw(dtype: DType) -> np.dtype:
    """The raw type a conversion's lanes of ``dtype`` move in: a packed type's lanes are bytes of elements."""
    return np.dtype(np.uint8) if isinstance(dtype, PackedDType) else dtype.raw


def convert(src: DType, dst: DType, raw: np.ndarray, mode: str, saturate: bool) -> np.ndarray:
    """The raw bits (dtype ``dst.raw``) of the lanes ``raw`` (bits of ``src``) converted to ``dst``.

    ``mode``: a rounding mode of :data:`npusim.rounding.MODES`; ``saturate``: the float target
    saturates (the product's CTRL[48] state for this target type).  A packed type's lanes are
    packed bytes (:func:`lane_raw`), in and out.
    """
    if src.is_complex:  # the 950's complex lines (dav_3510 CastIntrinsicsB64ImplVF): each part as its component's
        return _complex(src, dst, raw, mode, saturate)
    for coded in (src, dst):  # fp8_e8m0_t: no Memory-level Cast line (docs/semantics.md §5.34); never hifloat8's rules
        if isinstance(coded, CodedDType) and coded.name != "hifloat8":
            raise UnsupportedError("cast", "src/dst dtypes", f"{src} -> {dst}", f"no conversion of {coded} is modelled",
                                   "hifloat8's lines (Cast.md 数据类型)", semantics("5.34"))
    if isinstance(dst, CodedDType):
        return _to_hifloat8(src, raw, mode, saturate)
    if isinstance(src, CodedDType):
        return _from_hifloat8(src, dst, raw, saturate)
    if isinstance(src, PackedFloatDType):  # fp4x2_e2m1_t -> bfloat16_t, exact (§5.33)
        return _packed_float_to(src, dst, raw)
    if isinstance(dst, PackedFloatDType):  # bfloat16_t -> fp4x2_e2m1_t (§5.33)
        return _to_packed_float(src, dst, raw, mode)
    if isinstance(src, PackedDType):
        values = src.unpack(raw)
        if dst.is_float:  # |value| <= 8: exact in every float type, so numpy's conversion is the rounding
            return values.astype(dst.np_dtype).view(dst.raw)
        src, raw = _VALUES, values.view(_VALUES.raw)
    if src.name == "float16" and not dst.is_float:  # every half's result, looked up
        codes = _half_to_integer_table(dst, mode).take(raw.view(np.uint16))
        return dst.pack_codes(codes.reshape(-1)) if isinstance(dst, PackedDType) else codes
    if isinstance(dst, PackedDType):  # the int8 result saturated further to the packed range: at once
        values = _to_integer(src, _VALUES, raw.view(src.np_dtype), mode, dst.value_range).view(_VALUES.np_dtype)
        return dst.pack(values)
    values = raw.view(src.np_dtype)
    if dst.is_float:
        return _to_float(src, dst, values, mode, saturate)
    return _to_integer(src, dst, values, mode)


def _to_hifloat8(src: DType, raw: np.ndarray, mode: str, saturate: bool) -> np.ndarray:
    """float / half lanes to hifloat8 codes (Reg矢量计算/类型转换/Cast.md, float转hifloat8_t转换规则 and
    half转hifloat8_t转换规则; docs/semantics.md §5.32).  CAST_HYBRID of a half subnormal (or ±0 read as one is
    not: zero is zero) is undefined by the half rule: rejected before anything is written."""
    if src.name != "float16":
        return from_float32_bits(raw, mode, saturate)
    if mode == "hybrid":
        subnormal = ((raw & 0x7C00) == 0) & ((raw & 0x03FF) != 0)
        if subnormal.any():
            at = int(np.argmax(subnormal))
            raise UnsupportedError("cast", "src value", float(raw[at:at + 1].view(np.float16)[0]),
                                   "half -> hifloat8_t CAST_HYBRID of a half subnormal is not modelled: the page's "
                                   "rule reads its exponent as a normal one's (erratum E34)",
                                   "normal halves, ±0, ±inf, NaN (or CAST_ROUND)",
                                   f"{pages.REG_CAST} half转hifloat8_t转换规则; {semantics('5.32')}")
    return from_half_bits(raw, mode, saturate)


def _packed_float_to(src: PackedFloatDType, dst: DType, raw: np.ndarray) -> np.ndarray:
    """Packed E2M1 bytes to bfloat16 lanes, two a byte: every code's value is exact (precision_conversion.md)."""
    if dst.name != "bfloat16":
        raise ValueError(f"no conversion rule for {src} -> {dst}")  # Cast's table has no such line
    return to_bfloat16_bits(src.unpack(raw))


def _to_packed_float(src: DType, dst: PackedFloatDType, raw: np.ndarray, mode: str) -> np.ndarray:
    """bfloat16 lanes to packed E2M1 bytes: rounded by the mode, saturated to ±6, NaN to 0 (Reg Cast.md 约束说明:
    the type has no infinity and no NaN; no CTRL bit is read)."""
    if src.name != "bfloat16":
        raise ValueError(f"no conversion rule for {src} -> {dst}")  # Cast's table has no such line
    return dst.pack(from_bfloat16_bits(raw, mode))


def _from_hifloat8(src: CodedDType, dst: DType, raw: np.ndarray, saturate: bool) -> np.ndarray:
    """hifloat8 codes to half / float: every code's value is exact in both (docs/semantics.md §5.32), so only
    NaN and ±infinity meet the target's rules (a NaN's quiet NaN, or saturation's 0 and ±MAX)."""
    values = src.decode(raw)
    bits = values.view(np.uint32) if dst.name == "float32" else float_array_bits(values, dst, "rint")
    with np.errstate(invalid="ignore"):
        return special_results(bits, np.isnan(values), float_format(dst), saturate)


def _complex(src: DType, dst: DType, raw: np.ndarray, mode: str, saturate: bool) -> np.ndarray:
    """A complex lane to a complex type: the real and the imaginary part converted separately, as the float line of
    their component types (complex64 -> complex32: float -> half, rounded in ``mode`` and saturated like it;
    complex64 -> complex64: each part made integral, float -> float; complex32 -> complex64: half -> float, exact)."""
    real, imag = split(raw, src)
    parts = [_to_float(src.component, dst.component, part.view(src.component.np_dtype), mode, saturate)
             for part in (real, imag)]
    return join(*parts, dst)


def _to_float(src: DType, dst: DType, values: np.ndarray, mode: str, saturate: bool) -> np.ndarray:
    fmt = float_format(dst)
    if src == dst:  # float -> float: an integral value of the same type (exact, in that type)
        bits = integral_array(values, mode).view(dst.raw)
        special = may_hold_special(bits, fmt)
    elif not src.is_float:
        return float_array_bits(values, dst, mode)  # an integer fits every float target's range it is converted to
    else:
        bits, special = narrowed_bits(values, dst, mode)
    if not special:
        return bits
    with np.errstate(invalid="ignore"):
        nan = np.isnan(values) if values.dtype.kind == "f" else np.isnan(values.astype(np.float32))
    return special_results(bits, nan, fmt, saturate)


def _to_integer(src: DType, dst: DType, values: np.ndarray, mode: str,
                bounds: tuple[int, int] | None = None) -> np.ndarray:
    """Integral values saturated to dst's range (``bounds``: a narrower one, a packed type's), NaN -> 0."""
    low, high = bounds or _integer_range(dst.np_dtype)
    if not src.is_float:
        wide = values.astype(np.int64)  # every integer source npusim converts fits int64 (uint64 is none)
        return np.minimum(np.maximum(wide, low), high).astype(dst.np_dtype).view(dst.raw)
    integral = integral_array(values, mode).astype(np.float64)  # compared with 2**31 etc. exactly
    if high < _DOUBLE_EXACT:  # the bounds are doubles: saturate in floats (a NaN stays NaN, ±inf meets a bound)
        saturated = np.minimum(np.maximum(integral, float(low)), float(high))
        return np.where(np.isnan(saturated), 0.0, saturated).astype(dst.np_dtype).view(dst.raw)
    above = integral >= float(high) + 1.0  # exact: 2**63 (int64's maximum is no double), never rounded
    below = integral < float(low)
    inside = np.where(above | below | np.isnan(integral), 0.0, integral).astype(np.int64)
    return np.where(above, high, np.where(below, low, inside)).astype(dst.np_dtype).view(dst.raw)


_DOUBLE_EXACT = 1 << 53  # every integer up to this magnitude is a double


@functools.cache
def _half_to_integer_table(dst: DType, mode: str) -> np.ndarray:
    """What half -> ``dst`` (an integer type, or a packed one's codes) gives for each of the 2**16 half bit
    patterns in ``mode``, by :func:`_to_integer` itself: the lanes of a call are then one ``take`` (a 64 KiB
    table of int8 codes costs one such conversion of 65536 values, about a millisecond, once per type and mode;
    the conversion of 128 lanes costs some ten numpy calls, of 20480 lanes more than ten times the ``take``).
    The integer targets' rules read no register (they always saturate, NaN gives 0)."""
    halves = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    if isinstance(dst, PackedDType):  # the int8 result saturated to the packed range; its low bits are the code
        values = _to_integer(_HALF, _VALUES, halves, mode, dst.value_range).view(np.uint8)
        return values & np.uint8((1 << dst.bits) - 1)
    return _to_integer(_HALF, dst, halves, mode)


@functools.cache
def _integer_range(np_dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(np_dtype)
    return int(info.min), int(info.max)
