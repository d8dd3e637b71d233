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

import numpy as np

from ...dtypes import DTYPES
from ...errors import RuntimeMisuseError
from ...sources import semantics
from .. import pages
from ..cast_dtypes import conversion_saturates
from ..core import Core, DeqScale
from . import arith
from .conversion import convert

__all__ = ["DEQ", "deq_int32_lanes", "half_saturates", "int16_to_b8", "int32_to_half", "pack_word",
           "require_half_scale", "require_word", "staged_product", "word_fields"]

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
def staged_product(src: np.ndarray, half_bits: int, saturate: bool) -> np.ndarray:
    """The float32 bits (uint32) of ``float(src) * 2**-17 * scale * 2**17`` with the arithmetic's NaN and saturation
    rules (``saturate``: float32's CTRL[48] state): the staged int32 -> half of AddDeqRelu on the A2/A3 (dav_c220
    ``AddDeqReluCompute``, docs/semantics.md §5.22), which leaves these bits in src0.  Computed as one multiply
    ``float(src) * scale``: the powers of two are exact (``|src| * 2**-17 * scale`` neither overflows nor leaves the
    normal range of float32), so each of the API's three rounded products gives these bits, saturation included
    (an infinity stays one, saturated or not, through the exact factors; a NaN becomes 0 the first time)."""
    source = src.view(np.int32).astype(np.float32)  # vconv_s322f32: to nearest even
    scale = np.float32(np.uint16(half_bits).view(np.float16))
    if np.isfinite(scale):  # finite times finite: numpy's IEEE product, no NaN and (see above) no overflow
        return (source * scale).view(np.uint32)
    return arith.compute("mul", _FLOAT32, [source.view(np.uint32), np.array([scale]).view(np.uint32)], saturate)


def half_saturates(core: Core) -> bool:
    """The float -> half step of int32 -> half saturates on this core: the product's rule (``half_saturates``)
    and Cast's CTRL[48] state."""
    support = core.chip.dequant
    return (support is not None and support.half_saturates and core.float_saturation
            and conversion_saturates(core.chip, "float16"))


def int32_to_half(src: np.ndarray, half_bits: int, saturate: bool) -> np.ndarray:
    """The half bits (uint16) of int32 lanes ``src`` dequantised with the half scale ``half_bits``."""
    scale = np.float32(np.uint16(half_bits).view(np.float16))
    with np.errstate(over="ignore", invalid="ignore"):
        product = src.view(np.int32).astype(np.float32) * scale  # each step rounds once, in float
    return convert(_FLOAT32, _FLOAT16, product.view(np.uint32), "rint", saturate)


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


def deq_int32_lanes(core: Core, instruction: str, src: np.ndarray) -> np.ndarray:
    """Cast's int32 -> half on a product where it is a dequantisation: the lanes through the half scale."""
    return int32_to_half(src, require_half_scale(core, instruction), half_saturates(core))
