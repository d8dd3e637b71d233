"""What one lane of a dequantising conversion computes, and the DEQSCALE fields it reads.

The register (SetDeqScale.md 表1, docs/semantics.md §5.21) holds either

* a half scale in bits 0-15 (``SetDeqScale(half)``), which int32 -> half reads (Cast, CastDequant,
  ``asc_deq_int322half``), or
* a 64-bit word for int16 -> b8 (``SetDeqScale(float, int16_t, bool)``): the float's 32 bits in
  bits 0-31, the offset's low 9 bits in bits 37-45, the sign mode in bit 46 (``MakeDeqScaleConfig`` of
  dav_c220, dav_m200 and dav_3510 pack it so); or the UB address of a table of 16 such words
  (the vector prototype).

The lane arithmetic.  The pages give the formulas ``Cast(src * scale)`` and ``Cast(src * scale + offset)``
and leave the internal precision and the order of rounding to the hardware.  npusim computes what
the 950's vector-function emulation of the same instructions does step by step (dav_3510
``CastDeqS322f16ImplVF``, ``CastDeqImplVF``), and uses it on every product as its accuracy model
(docs/numerics.md, "Ascend: dequantisation"):

* int32 -> half: ``float(src)`` (rounded to nearest even), times the half scale in float (rounded
  once; the pages' 2**-17 / 2**17 "overflow protection" steps are exact in float and change no
  bit), then float -> half to nearest even; overflow gives infinity, or ±65504 where the product's
  float -> half step saturates (Cast's CTRL[48] rule; never on the 950, whose step is ``NO_SAT``).
* int16 -> b8: the scale with its 13 low mantissa bits cleared (the hardware's (1,8,10) format,
  表1), ``float(src) * scale`` rounded once in float, rounded to an integer (nearest even) and
  saturated to int16, clamped to the 9-bit range [-256, 255], plus the 9-bit offset, then saturated
  to int8 (sign mode 1) or uint8 (sign mode 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ...dtypes import DTYPES
from ...errors import RuntimeMisuseError
from ...rounding import normal_halves
from ...sources import semantics
from .. import pages
from ..cast_dtypes import conversion_saturates
from ..core import Core, DeqScale
from . import arith
from .conversion import convert

__all__ = ["DEQ", "FoldedB8", "HalfScale", "deq_int32_lanes", "fold_b8", "half_of_products", "half_saturates",
           "half_saturates_on", "half_scale", "int16_to_b8", "int32_to_half", "normal_halves", "pack_word",
           "relu_halves", "require_half_scale", "require_word", "staged_product", "word_fields"]

DEQ = "deq"  # the CastGeometry.mode of int32 -> half through DEQSCALE
RULES = semantics("5.21")
SCALE_KEPT_BITS = 0xFFFFE000  # sign, exponent and the 10 high mantissa bits: the (1,8,10) format
OFFSET_SHIFT, OFFSET_MASK, SIGN_SHIFT = 37, 0x1FF, 46
S9_MIN, S9_MAX = -256, 255
_FLOAT32, _FLOAT16 = DTYPES["float32"], DTYPES["float16"]


# ------------------------------------------------------------------ the word of int16 -> b8
def pack_word(scale_bits: int, offset: int, sign_mode: bool) -> int:
    """The 64-bit word ``SetDeqScale(scale, offset, signMode)`` stores: float bits 0-31, offset's low 9 bits
    at bit 37, the sign mode at bit 46 (SetDeqScale.md 表1; ``MakeDeqScaleConfig``)."""
    return (int(sign_mode) << SIGN_SHIFT) | ((offset & OFFSET_MASK) << OFFSET_SHIFT) | (scale_bits & 0xFFFFFFFF)


def word_fields(words: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per word (uint64): the scale as the hardware uses it (float32, low 13 mantissa bits cleared), the
    offset as a signed 9-bit integer (int16), and the sign mode (bool)."""
    words = np.asarray(words, dtype=np.uint64)
    scale = (words & np.uint64(SCALE_KEPT_BITS)).astype(np.uint32).view(np.float32)
    raw_offset = ((words >> np.uint64(OFFSET_SHIFT)) & np.uint64(OFFSET_MASK)).astype(np.int16)
    offset = np.where(raw_offset > S9_MAX, raw_offset - (OFFSET_MASK + 1), raw_offset).astype(np.int16)
    sign = ((words >> np.uint64(SIGN_SHIFT)) & np.uint64(1)).astype(bool)
    return scale, offset, sign


# ------------------------------------------------------------------ the lanes
_HALF_NORMAL_MIN = 2.0 ** -14


class HalfScale(NamedTuple):
    """SetDeqScale's half scale as int32 -> half uses it (:func:`half_scale`)."""

    value: np.float32
    finite: bool
    clipped: bool  # half_of_products may clip the products


@lru_cache(maxsize=256)
def half_scale(half_bits: int) -> HalfScale:
    """The half scale as a float32, whether it is finite, and whether :func:`half_of_products` may clip the
    products: the scale is finite and 0 or at least 2**-14 (a normal half).  Then ``float(s) * scale`` is finite
    (at most 2**31 * 65504), never a NaN, and for an integer ``s`` either ±0 or at least 2**-14 in magnitude
    (``|s| >= 1``, and rounding to float is monotone and keeps 2**-14): no result lies where numpy's float32 ->
    half conversion raises a flag element by element (rounding.py, ``_singles_to_half``) except an overflow."""
    value = np.float32(np.uint16(half_bits).view(np.float16))
    finite = bool(np.isfinite(value))
    return HalfScale(value, finite, finite and (float(value) == 0 or abs(float(value)) >= _HALF_NORMAL_MIN))


def staged_product(src: np.ndarray, half_bits: int, saturate: bool) -> np.ndarray:
    """The float32 bits (uint32) of ``float(src) * 2**-17 * scale * 2**17`` with the arithmetic's NaN and saturation
    rules (``saturate``: float32's CTRL[48] state): the staged int32 -> half of AddDeqRelu on the A2/A3 (dav_c220
    ``AddDeqReluCompute``, docs/semantics.md §5.22), which leaves these bits in src0.  Computed as one multiply
    ``float(src) * scale``: the powers of two are exact (``|src| * 2**-17 * scale`` neither overflows nor leaves the
    normal range of float32), so each of the API's three rounded products gives these bits, saturation included
    (an infinity stays one, saturated or not, through the exact factors; a NaN becomes 0 the first time)."""
    source = src.view(np.int32).astype(np.float32)  # vconv_s322f32: to nearest even
    scale = half_scale(half_bits)
    if scale.finite:  # finite times finite: numpy's IEEE product, no NaN and (see above) no overflow
        source *= scale.value
        return source.view(np.uint32)
    return arith.compute("mul", _FLOAT32, [source.view(np.uint32), np.array([scale.value]).view(np.uint32)],
                         saturate)


def half_saturates(core: Core) -> bool:
    """The float -> half step of int32 -> half saturates on this core: the product's rule (``half_saturates``)
    and Cast's CTRL[48] state."""
    return core.float_saturation and half_saturates_on(core.chip)


def half_saturates_on(chip) -> bool:
    """The float -> half step of int32 -> half saturates on ``chip`` while CTRL[48] is set (:func:`half_saturates`
    without the switch, which is read per call)."""
    support = chip.dequant
    return support is not None and support.half_saturates and conversion_saturates(chip, "float16")


def int32_to_half(src: np.ndarray, half_bits: int, saturate: bool) -> np.ndarray:
    """The half bits (uint16) of int32 lanes ``src`` dequantised with the half scale ``half_bits``."""
    scale = half_scale(half_bits)
    product = src.view(np.int32).astype(np.float32)
    if scale.finite:  # finite times finite: numpy's IEEE product, finite (no flag to silence)
        product *= scale.value
        return half_of_products(product, half_bits, saturate)
    with np.errstate(over="ignore", invalid="ignore"):
        product *= scale.value  # each step rounds once, in float
    return convert(_FLOAT32, _FLOAT16, product.view(np.uint32), "rint", saturate)


# ------------------------------------------------------------------ float -> half of the products, fast
HALF_MAX = np.float32(65504.0)
_NEG_HALF_MAX = -HALF_MAX
HALF_OVERFLOW = np.float32(65520.0)  # 65504 + half an ulp: from here on, to nearest even, the half is infinite
_HALF_INF, _HALF_NEG_INF = np.uint16(0x7C00), np.uint16(0xFC00)


def half_of_products(product: np.ndarray, half_bits: int, saturate: bool) -> np.ndarray:
    """The half bits (uint16), rounded to nearest even with the product's overflow rule (``saturate``: ±65504,
    else ±infinity), of float32 products ``float(s) * scale`` of int32 lanes ``s`` and the half scale ``half_bits``.

    With a scale :func:`half_scale` lets clip, the products are clipped to [-65504, 65504] and converted (by
    numpy's IEEE rounding, as ``rounding._singles_to_half``, below 4096 lanes, else by :func:`normal_halves`,
    which gives the same bits for these values): a magnitude up to 65504 is converted as it is, one
    in (65504, 65520) rounds to 65504 anyway (65504 is a half and rounding is monotone), and one from 65520
    on, whose half is infinite, is 65504: the saturated result.  Unsaturated, those lanes (found by one
    maximum and one minimum) are then ±infinity.  Clipping keeps the sign of a zero.  Every other scale goes
    through Cast's float -> half (:func:`~.conversion.convert`)."""
    if not half_scale(half_bits).clipped:
        return convert(_FLOAT32, _FLOAT16, product.view(np.uint32), "rint", saturate)
    if product.size < _LONG:  # the clip without np.clip's Python layers, numpy's conversion
        bits = np.minimum(np.maximum(product, _NEG_HALF_MAX), HALF_MAX).astype(np.float16).view(np.uint16)
    else:  # numpy's clip loop (its scalar maximum and minimum loops are slower on long arrays), integer rounding
        bits = normal_halves(np.clip(product, _NEG_HALF_MAX, HALF_MAX))
    if saturate or not product.size:
        return bits
    if np.maximum.reduce(product, axis=None) >= HALF_OVERFLOW:
        bits[product >= HALF_OVERFLOW] = _HALF_INF
    if np.minimum.reduce(product, axis=None) <= -HALF_OVERFLOW:
        bits[product <= -HALF_OVERFLOW] = _HALF_NEG_INF
    return bits


_LONG = 4096  # from here on the long-array steps are the quicker (their dozen numpy calls cost about 7 us)


def relu_halves(bits: np.ndarray, half_bits: int) -> np.ndarray:
    """relu of :func:`half_of_products`'s halves (AddDeqRelu, docs/semantics.md §5.22): with a finite scale there
    is no NaN among them, and ``max(0, x)`` of a half is its bits where they are positive as an int16 (sign clear,
    not +0) and +0 elsewhere (negatives, -0, -infinity): one integer maximum.  Otherwise the arithmetic's relu."""
    if half_scale(half_bits).finite:
        return np.maximum(bits.view(np.int16), np.int16(0)).view(np.uint16)
    return arith.compute("relu", _FLOAT16, [bits])


# ------------------------------------------------------------------ int16 -> b8
@dataclass(frozen=True)
class FoldedB8:
    """int16 -> b8's parameters folded for :meth:`lanes` (one set, or 16 broadcast over a lane's block position).

    For an integer ``r`` (the rounded product, or ±infinity) the steps ``clip(clip(r, -256, 255) + offset, lo, hi)``
    (the int16 saturation is inside the first clip: [-256, 255] lies in int16's range) are
    ``clip(r, lower, upper) + offset`` with ``lower = max(-256 + offset, lo) - offset`` and
    ``upper = min(255 + offset, hi) - offset``, as long as ``lower <= upper`` (two clips of overlapping ranges
    are one); and since the bounds are integers and rint is monotone, ``clip(rint(p), lower, upper) =
    rint(clip(p, lower, upper))``.  Sums and the final conversion are of integers below 2**10 in magnitude:
    exact in float32 and in the b8 type."""

    scale: np.ndarray  # float32
    lower: np.ndarray  # float32 integers
    upper: np.ndarray
    offset: np.ndarray
    signed: bool

    def taken(self, entry: np.ndarray) -> FoldedB8:
        """The parameters of each lane, by its parameter set ``entry`` (the table form's flat layout)."""
        return FoldedB8(self.scale[entry], self.lower[entry], self.upper[entry], self.offset[entry], self.signed)

    def tiled(self, shape: tuple[int, ...]) -> FoldedB8:
        """The 16 sets repeated to whole lane arrays of ``shape`` (whose last axis is the set): numpy's loops
        run at full speed on operands of one shape, and slowly on a 16-element one broadcast."""
        return FoldedB8(*(np.ascontiguousarray(np.broadcast_to(v, shape))
                          for v in (self.scale, self.lower, self.upper, self.offset)), self.signed)

    def lanes(self, src: np.ndarray) -> np.ndarray:
        """The b8 bits (uint8) of int16 lanes ``src`` (any shape the parameters broadcast over)."""
        product = src.astype(np.float32)
        product *= self.scale  # rounded once, as int16_to_b8's; finite (fold_b8 bounds the scale)
        if self.lower.size == 1:
            np.clip(product, self.lower, self.upper, out=product)
        else:  # the same clip; numpy's clip loop is slow with array bounds
            np.maximum(product, self.lower, out=product)
            np.minimum(product, self.upper, out=product)
        np.rint(product, out=product)
        product += self.offset
        return product.astype(np.int8).view(np.uint8) if self.signed else product.astype(np.uint8)


_FOLDED_SCALE_LIMIT = 2.0 ** 112  # |int16| * scale below it stays finite in float32: no overflow flag


def fold_b8(scale: np.ndarray, offset: np.ndarray, signed: bool) -> FoldedB8 | None:
    """:class:`FoldedB8` of the parameter sets (word_fields' scale, offset), or ``None`` where it does not
    apply and :func:`int16_to_b8` computes the lanes: a scale that is not finite (a NaN product, whose lane is
    0 + offset), of magnitude from 2**112 on (an infinite product; the clip would give the same bits, but numpy
    flags the overflow), or a uint8 offset of -256, whose ranges do not overlap (every lane is 0)."""
    scale = np.asarray(scale, np.float32)
    if not (np.isfinite(scale).all() and (np.abs(scale) < _FOLDED_SCALE_LIMIT).all()):
        return None
    offset = np.asarray(offset, np.int64)
    lo, hi = (-128, 127) if signed else (0, 255)
    lower = np.maximum(S9_MIN + offset, lo) - offset
    upper = np.minimum(S9_MAX + offset, hi) - offset
    if (lower > upper).any():
        return None
    as_float = [np.asarray(v, np.float32) for v in (lower, upper, offset)]
    return FoldedB8(scale, *as_float, signed)


def int16_to_b8(src: np.ndarray, scale: np.ndarray, offset: np.ndarray, signed: np.ndarray) -> np.ndarray:
    """The b8 bits (uint8) of int16 lanes ``src`` with per-lane (or broadcast) scale, offset and sign mode."""
    with np.errstate(over="ignore", invalid="ignore"):
        product = src.view(np.int16).astype(np.float32) * scale
        # rint (ties to even, exact on float32) saturating to int16, NaN -> 0 (Cast's float -> int16 rule)
        rounded = np.clip(np.nan_to_num(np.rint(product), nan=0.0), -32768.0, 32767.0).astype(np.int32)
    shifted = np.clip(rounded, S9_MIN, S9_MAX) + offset
    low = np.where(signed, -128, 0)
    high = np.where(signed, 127, 255)
    return np.clip(shifted, low, high).astype(np.int16).astype(np.uint8)


# ------------------------------------------------------------------ reading the register
def _state(core: Core) -> DeqScale | None:
    return core.deqscale


def require_half_scale(core: Core, instruction: str) -> int:
    """The half scale's bits; a ``RuntimeMisuseError`` when no ``SetDeqScale(half)`` left one."""
    state = _state(core)
    if state is None or state.half is None:
        held = "never set" if state is None else "holds an int16 -> b8 word"
        raise RuntimeMisuseError(instruction, "DEQSCALE", held, "int32 -> half reads the half scale of "
                                 "SetDeqScale(half scale), which was not the last SetDeqScale on this core",
                                 "set_deq_scale(scale) before the call",
                                 f"{pages.SET_DEQ_SCALE} 函数原型; {pages.CAST_DEQUANT} 约束说明; {RULES}")
    return state.half


def require_word(core: Core, instruction: str, vector: bool) -> int:
    """The int16 -> b8 word (``vector``: the table address as stored); a ``RuntimeMisuseError`` when the
    last SetDeqScale was another prototype (CastDequant.md 约束说明, the SetDeqScale mapping table)."""
    state = _state(core)
    if state is None or state.word is None or state.vector != vector:
        wanted = ("set_deq_scale(vdeq, vdeq_info) (is_vec_deq=True)" if vector else
                  "set_deq_scale(scale, offset, sign_mode) (is_vec_deq=False)")
        held = ("never set" if state is None else "holds a half scale" if state.word is None else
                "holds a vdeq table address" if state.vector else "holds a scale/offset/sign word")
        raise RuntimeMisuseError(instruction, "DEQSCALE", held, "int16 -> b8 with is_vec_deq="
                                 f"{vector} needs the matching SetDeqScale prototype last", wanted,
                                 f"{pages.CAST_DEQUANT} 约束说明; {pages.SET_DEQ_SCALE} 函数原型; {RULES}")
    return state.word


def deq_int32_lanes(core: Core, instruction: str, src: np.ndarray, relu: bool = False) -> np.ndarray:
    """Cast's int32 -> half on a product where it is a dequantisation: the lanes through the half scale
    (``relu``: then relu in half, AddDeqRelu's last step)."""
    scale = require_half_scale(core, instruction)
    halves = int32_to_half(src, scale, half_saturates(core))
    return relu_halves(halves, scale) if relu else halves
