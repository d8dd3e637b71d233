"""What one lane of AscendQuant computes on the register-ISA products (the 950, ``__NPU_ARCH__`` 3510, and the
Kirin X90 / Kirin 9030, 3003 / 3113): the vector functions of
``impl/adv_api/detail/quantization/quant/ascend_quant_3510_impl.h`` and ``ascend_quant_l300_impl.h``, followed as
an algorithm (docs/semantics.md §5.30).

Two paths, chosen by the destination type:

* **b8** (int8, and on the 950 hifloat8): every operand becomes half first (``Reg::Cast`` float -> half or
  bfloat16 -> half, CAST_RINT, ``SatMode::SAT``), then a half ``Mul(s)`` by the scale and a half ``Add(s)`` of
  the offset, each rounded to half, then ``Reg::Cast`` half -> int8, CAST_RINT, saturating
  (``LayoutZMrgZRndRSatS``), or half -> hifloat8_t, CAST_ROUND (``LayoutZMrgZRndASatS``; the conversion of
  docs/semantics.md §5.32, saturating while CTRL[48] says).  A scalar scale or offset is ``static_cast<half>`` of its C
  value (round to nearest even; a C conversion, so it does not saturate).
* **fp8** (fp8_e4m3fn_t, fp8_e5m2_t; the 950): every operand becomes float (exact from half and bfloat16),
  then a float ``Mul(s)`` and ``Add(s)``, each rounded to float, then ``Reg::Cast`` float -> fp8, CAST_RINT,
  saturating.

The lanes are npusim's own: :func:`..ops.conversion.convert` for each Cast and :func:`..ops.arith.compute`
for each Mul / Add, on raw bit arrays, so a lane here is what npusim's Cast, Muls and Adds compute.

Saturation (Reg矢量计算/类型转换/Cast.md 表5, SetCtrlSpr(ISASI).md): the vendor's casts ask for ``SAT``, which
governs only while CTRL[60] = 0; at power-on CTRL[60] = 1 and the global CTRL[48] decides for conversions to
half, bfloat16 and fp8 and for half arithmetic.  npusim models CTRL[48] as ``core.float_saturation`` (its
Cast and element-wise instructions read the same switch), so on the 950 a conversion saturates while it is on.
The Kirin rows have no CTRL documentation (SetCtrlSpr lists no Kirin product); there the cast's own ``SAT``
is taken as stated and half arithmetic does not saturate (npusim's Kirin rows have no float saturation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES, DType
from ...errors import UnsupportedError
from ...rounding import float_bits
from ...sources import semantics
from .. import pages
from ..cast_dtypes import conversion_saturates
from ..core import Core
from ..ops import arith
from ..ops.conversion import convert
from ..types import RoundMode
from .quant_common import NAME

__all__ = ["FLOAT", "FP8_DTYPES", "HALF", "INT8_MODES", "Saturation", "c_float", "group_lanes", "lanes", "scalar_bits",
           "work_type"]

HALF, FLOAT = DTYPES["float16"], DTYPES["float32"]
E4M3_OVERFLOW = 464.0
FP8_DTYPES = frozenset({"float8_e4m3fn", "float8_e5m2"})


@dataclass(frozen=True)
class Saturation:
    """Which steps saturate on this core now: conversions to half / to fp8, half arithmetic, conversions to
    hifloat8."""

    to_half: bool
    to_fp8: bool
    half_arith: bool
    to_hif8: bool = True

    @classmethod
    def of(cls, core: Core) -> Saturation:
        chip = core.chip
        if chip.name == "950":  # CTRL[60] = 1 at power-on: the global CTRL[48] (core.float_saturation) decides
            on = core.float_saturation
            return cls(on and conversion_saturates(chip, "float16"), on and conversion_saturates(chip, "float8_e5m2"),
                       on and "float16" in chip.float_saturation_dtypes, on and conversion_saturates(chip, "hifloat8"))
        return cls(True, True, False)  # Kirin: the cast's SatMode::SAT; no half saturation on these rows


def c_float(value) -> np.float32:
    """A C ``float`` parameter: the exact value rounded once to float32 (an ``int`` too large for a double
    included: infinity)."""
    return np.uint32(float_bits(value, FLOAT)).view(np.float32)


def scalar_bits(value, dtype: DType) -> np.ndarray:
    """A C number converted to ``dtype`` (round to nearest even, overflow to infinity), as a one-lane raw array."""
    return np.array([float_bits(value, dtype)], dtype.raw)


def lanes(dst: DType, x: tuple[np.ndarray, DType], scale: tuple[np.ndarray, DType],
          offset: tuple[np.ndarray, DType], sat: Saturation) -> np.ndarray:
    """dst's raw lanes: ``x``, ``scale`` and ``offset`` are (raw lanes, their type); a one-lane array is a
    scalar, given in the path's working type (:func:`work_type`), a tensor's lanes are converted here, as the
    vector function converts what it loads."""
    work = work_type(dst)
    x, scale, offset = (_to_work(raw, dtype, work, sat) for raw, dtype in (x, scale, offset))
    saturate = sat.half_arith if work is HALF else False  # no product saturates float arithmetic
    x = arith.compute("mul", work, [x, scale], saturate)
    x = arith.compute("add", work, [x, offset], saturate)
    if work is HALF and dst.name == "hifloat8":  # LayoutZMrgZRndASatS: CAST_ROUND (docs/semantics.md §5.32)
        return convert(HALF, dst, x, "round", sat.to_hif8)
    if work is HALF:
        return convert(HALF, dst, x, "rint", False)  # half -> int8: rounded, then saturated to [-128, 127]
    return to_fp8(dst, x, sat)


def to_fp8(dst: DType, x: np.ndarray, sat: Saturation) -> np.ndarray:
    """float lanes -> fp8, CAST_RINT.  Without saturation an fp8_e4m3fn overflow is a NaN of unstated sign
    (Reg矢量计算/类型转换/Cast.md: "不饱和模式 ... fp8_e4m3fn_t ... 输出为nan"): not modelled, rejected before
    anything is written.  (|x| >= 464 overflows: 464 is halfway from 448, the largest, to the next binade's 480.)"""
    if dst.name == "float8_e4m3fn" and not sat.to_fp8:
        with np.errstate(invalid="ignore"):
            over = np.abs(x.view(np.float32)) >= np.float32(E4M3_OVERFLOW)
        if over.any():
            at = int(np.argmax(over))
            raise UnsupportedError(NAME, "dst value", float(x.view(np.float32)[at]), "an fp8_e4m3fn_t overflow with "
                                   "CTRL[48] in its non-saturating state gives a NaN whose sign the page does not "
                                   "state: not modelled", f"|value| < {E4M3_OVERFLOW}, or the saturation switch on",
                                   f"{pages.REG_CAST} 约束说明; {semantics('5.30')}")
    return convert(FLOAT, dst, x, "rint", sat.to_fp8)


def work_type(dst: DType) -> DType:
    """The type the path computes in: float for an fp8 dst, half otherwise."""
    return FLOAT if dst.name in FP8_DTYPES else HALF


def _to_work(raw: np.ndarray, src: DType, work: DType, sat: Saturation) -> np.ndarray:
    if src is work:
        return raw
    return convert(src, work, raw, "rint", sat.to_half if work is HALF else False)


# ------------------------------------------------------------------ PER_TOKEN / PER_GROUP (the 950)
BFLOAT16, INT8, INT16 = DTYPES["bfloat16"], DTYPES["int8"], DTYPES["int16"]
#: the int8 conversion's modes (表4); any other RoundMode falls back to CAST_RINT, as TransRegForS8 does
INT8_MODES = {RoundMode.CAST_RINT: "rint", RoundMode.CAST_ROUND: "round", RoundMode.CAST_FLOOR: "floor",
              RoundMode.CAST_CEIL: "ceil", RoundMode.CAST_TRUNC: "trunc"}


def group_lanes(dst: DType, x: tuple[np.ndarray, DType], scale: tuple[np.ndarray, DType],
                offset: tuple[np.ndarray, DType] | None, round_mode: RoundMode, sat: Saturation) -> np.ndarray:
    """dst's raw lanes for PER_TOKEN / PER_GROUP (``ascend_quant_per_group_3510_impl.h``): ``scale`` and
    ``offset`` already gathered per element, in scaleT (``offset`` ``None``: config.hasOffset false).

    fp8: src, scale and offset become float (exact), float Mul and Add, float -> fp8 CAST_RINT whatever the
    config's mode (TransRegForFp8).  int8: the arithmetic is in scaleT (a half / bfloat16 src with a float
    scale becomes float first), then TransRegForS8: from half one Cast half -> int8 by the mode; from float
    Cast float -> int16 by the mode, int16 -> half (RINT), half -> int8 (RINT); from bfloat16 first
    bfloat16 -> float (exact).  Every Cast saturates (SAT).
    """
    work = FLOAT if dst.name in FP8_DTYPES else scale[1]
    values = [_widen(raw, dtype, work) for raw, dtype in (x, scale) + ((offset,) if offset is not None else ())]
    saturate = sat.half_arith and work is HALF
    v = arith.compute("mul", work, values[:2], saturate)
    if offset is not None:
        v = arith.compute("add", work, [v, values[2]], saturate)
    if work is FLOAT and dst.name in FP8_DTYPES:
        return to_fp8(dst, v, sat)
    mode = INT8_MODES.get(round_mode, "rint")
    if work is HALF:
        return convert(HALF, INT8, v, mode, False)
    if work is BFLOAT16:
        v = convert(BFLOAT16, FLOAT, v, "rint", False)
    v = convert(FLOAT, INT16, v, mode, False)
    v = convert(INT16, HALF, v, "rint", sat.to_half)
    return convert(HALF, INT8, v, "rint", False)


def _widen(raw: np.ndarray, src: DType, work: DType) -> np.ndarray:
    """src's lanes in the working type: unchanged, or widened exactly (half / bfloat16 -> float)."""
    return raw if src is work else convert(src, work, raw, "rint", False)
