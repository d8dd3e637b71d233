"""The scalar unit's conversions (标量计算/Cast*.md; docs/semantics.md §5.35).

* ``scalar_cast(value_in, dtype, round_mode)`` (pyasc's name; Cast<float, U, roundMode>,
  Cast（float转half-int32_t）.md): float -> half with CAST_ODD, float -> int32_t with CAST_ROUND, CAST_CEIL,
  CAST_FLOOR or CAST_RINT (its 约束说明 table).  The conversion is Cast's (pyasc's docstring: "ScalarCast的精度转换
  规则与Cast保持一致"): one lane of :func:`.conversion.convert`, so an int32 result saturates to the range and NaN
  gives 0, and a half result saturates under CTRL[48] as the product's vector Cast does.
* ``to_bfloat16(f_val)`` (Cast（float转bfloat16_t）.md; ToBfloat16 is the C++ name this Cast overload had, Cast
  itself being the vector instruction's name here): float -> bfloat16_t, CAST_RINT; a NaN gives 0x7FFF whatever
  its sign and payload (impl/basic_api/kernel_scalar_convert.h ``Cast(const float&)``, a software conversion:
  no CTRL[48] saturation, overflow to infinity).
* ``to_float(b_val, dtype=bfloat16)`` (Cast（多类型转float）.md; ToFloat): bfloat16_t -> float, exact (the bits
  shifted up 16 places).

``value_in`` / ``f_val`` is a C ``float``: a Python number becomes one by rounding to nearest even, as a
literal does (``float valueIn = 3.14159f``); a numpy float32 is taken as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES, DType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, IEEE_RNE, Instruction, register
from ...errors import UnsupportedError
from ...overloads import Form, Param
from ...rounding import float_bits
from .. import pages
from ..cast_dtypes import conversion_saturates
from ..core import Core
from ..scalars import scalar_bits
from ..types import RoundMode
from .cast import MODE_NAMES, require_round_mode
from .conversion import convert
from .scalar_compute import RULES, anything, require_product

__all__ = ["SCALAR_CAST_MODES", "to_bfloat16_bits"]

FLOAT32, FLOAT16, INT32, BFLOAT16 = (DTYPES[n] for n in ("float32", "float16", "int32", "bfloat16"))
#: Cast（float转half-int32_t）.md 约束说明: the RoundModes of each target
SCALAR_CAST_MODES = {
    "float16": (RoundMode.CAST_ODD,),
    "int32": (RoundMode.CAST_ROUND, RoundMode.CAST_CEIL, RoundMode.CAST_FLOOR, RoundMode.CAST_RINT),
}
_BF16_NAN = 0x7FFF  # kernel_scalar_convert.h Cast(const float&): bf16AbsMax for every NaN


def _element_type(instruction: str, dtype, examples: str) -> DType:
    """``dtype`` if it is one of npusim's element types (not a look-alike)."""
    if not (isinstance(dtype, DType) and isinstance(dtype.name, str) and DTYPES.get(dtype.name) is dtype):
        raise TypeError(f"{instruction}: dtype must be an element type ({examples}), got {dtype!r}")
    return dtype


def _float_in(instruction: str, name: str, value) -> np.ndarray:
    """The C float argument's bits (a one-element uint32 array)."""
    return scalar_bits(instruction, name, value, FLOAT32)


@dataclass(eq=False)
class ScalarCast(SelfBinding):
    """float -> ``dst`` in ``mode``; ``saturable``: a half target whose saturation the product's CTRL[48] sets."""

    dst: DType
    mode: str
    saturable: bool
    registers_read: tuple[str, ...] = ()

    def run(self, core: Core, values: tuple):
        raw = _float_in("scalar_cast", "value_in", values[0])
        bits = convert(FLOAT32, self.dst, raw, self.mode, self.saturable and core.float_saturation)
        if self.dst is INT32:
            return int(bits.view(np.int32)[0])
        return bits.view(self.dst.np_dtype)[0]


def _compile_scalar_cast(core: Core, form: str, bound: dict) -> ScalarCast:
    name = "scalar_cast"
    require_product(core, name, "bits", "Cast（float转half/int32_t）", pages.SCALAR_CAST_HALF_INT32)
    _float_in(name, "value_in", bound["value_in"])
    dtype = _element_type(name, bound["dtype"], "asc.half, asc.int32")
    if dtype.name not in SCALAR_CAST_MODES:
        raise UnsupportedError(name, "dtype", dtype.name, "Cast<float, U, roundMode> returns half or int32_t",
                               "float16 (half), int32", f"{pages.SCALAR_CAST_HALF_INT32} 数据类型; {RULES}")
    mode = require_round_mode(name, bound["round_mode"])
    allowed = SCALAR_CAST_MODES[dtype.name]
    if mode not in allowed:
        raise UnsupportedError(name, "round_mode", mode.name, f"float -> {dtype.name} takes only the page's modes",
                               ", ".join(m.name for m in allowed), f"{pages.SCALAR_CAST_HALF_INT32} 约束说明; {RULES}")
    saturable = conversion_saturates(core.chip, dtype.name)
    return ScalarCast(dtype, MODE_NAMES[mode], saturable, ("CTRL",) if saturable else ())


scalar_cast = register(Instruction(
    "scalar_cast", "ascend", "scalar", "S",
    (Form("", (Param("value_in", anything), Param("dtype", anything), Param("round_mode", anything))),),
    _compile_scalar_cast, f"{pages.SCALAR_CAST_HALF_INT32} 函数原型, 约束说明; {RULES}",
    support=lambda chip: "bits" in chip.scalar_compute or None, per_call=frozenset({"value_in"}),
    exactness=IEEE_RNE,
    summary="A float scalar to half (CAST_ODD) or int32 (CAST_ROUND / CEIL / FLOOR / RINT) (Cast<float, U, mode>, "
            "ScalarCast)",
    examples=("asc.scalar_cast(2.5, asc.int32, asc.RoundMode.CAST_ROUND)",
              "asc.scalar_cast(3.14159, asc.half, asc.RoundMode.CAST_ODD)"),
    fast_context=lambda core: (),
    doc="``scalar_cast(value_in, dtype, round_mode)``: Cast<float, U, roundMode>(valueIn) "
        "(Cast（float转half-int32_t）.md); returns an int (int32) or a numpy float16.",
))


def to_bfloat16_bits(raw: int) -> int:
    """The bfloat16_t bits of the float bits ``raw``: CAST_RINT, every NaN 0x7FFF."""
    if raw & 0x7F800000 == 0x7F800000 and raw & 0x007FFFFF:
        return _BF16_NAN
    return float_bits(np.uint32(raw).view(np.float32), BFLOAT16, "rint")


@dataclass(eq=False)
class ToBfloat16(SelfBinding):
    def run(self, core: Core, values: tuple):
        raw = int(_float_in("to_bfloat16", "f_val", values[0])[0])
        return np.array([to_bfloat16_bits(raw)], dtype=np.uint16).view(BFLOAT16.np_dtype)[0]


def _compile_to_bfloat16(core: Core, form: str, bound: dict) -> ToBfloat16:
    require_product(core, "to_bfloat16", "bfloat16", "Cast（float转bfloat16_t）", pages.SCALAR_CAST_BF16)
    _float_in("to_bfloat16", "f_val", bound["f_val"])
    return ToBfloat16()


to_bfloat16 = register(Instruction(
    "to_bfloat16", "ascend", "scalar", "S", (Form("", (Param("f_val", anything),)),), _compile_to_bfloat16,
    f"{pages.SCALAR_CAST_BF16} 约束说明; impl/basic_api/kernel_scalar_convert.h; {RULES}",
    support=lambda chip: "bfloat16" in chip.scalar_compute or None, per_call=frozenset({"f_val"}),
    exactness=IEEE_RNE, summary="A float scalar to bfloat16_t, CAST_RINT; NaN gives 0x7FFF (Cast, ToBfloat16)",
    examples=("asc.to_bfloat16(3.14159)",), fast_context=lambda core: (),
    doc="``to_bfloat16(f_val)``: Cast(const float&) -> bfloat16_t (Cast（float转bfloat16_t）.md); returns an "
        "ml_dtypes.bfloat16.",
))


def _bfloat16_in(value) -> int:
    """The bfloat16_t argument's bits: an ml_dtypes.bfloat16 as it is (NaN payloads included), a number rounded."""
    if isinstance(value, np.generic) and value.dtype == BFLOAT16.np_dtype:
        return int(np.asarray(value).reshape(1).view(np.uint16)[0])
    return int(scalar_bits("to_float", "b_val", value, BFLOAT16)[0])


@dataclass(eq=False)
class ToFloat(SelfBinding):
    def run(self, core: Core, values: tuple):
        return np.uint32(_bfloat16_in(values[0]) << 16).view(np.float32)


def _compile_to_float(core: Core, form: str, bound: dict) -> ToFloat:
    name = "to_float"
    require_product(core, name, "bfloat16", "Cast（多类型转float）", pages.SCALAR_CAST_FLOAT)
    dtype = _element_type(name, bound["dtype"], "asc.bfloat16")
    if dtype is not BFLOAT16:
        raise UnsupportedError(name, "dtype", dtype.name, "the modelled source type is bfloat16_t (the 950's "
                               "hifloat8_t, fp8 and fp4 sources are not modelled)", "bfloat16",
                               f"{pages.SCALAR_CAST_FLOAT} 数据类型; {RULES}")
    _bfloat16_in(bound["b_val"])
    return ToFloat()


to_float = register(Instruction(
    "to_float", "ascend", "scalar", "S", (Form("", (Param("b_val", anything), Param("dtype", anything, BFLOAT16))),),
    _compile_to_float, f"{pages.SCALAR_CAST_FLOAT} 函数原型; impl/basic_api/kernel_scalar_convert.h; {RULES}",
    support=lambda chip: "bfloat16" in chip.scalar_compute or None, per_call=frozenset({"b_val"}),
    exactness=BIT_EXACT, summary="A bfloat16_t scalar to float, exact (Cast, ToFloat)",
    examples=("asc.to_float(asc.to_bfloat16(3.14159))", "asc.to_float(-1.5, asc.bfloat16)"),
    fast_context=lambda core: (),
    doc="``to_float(b_val, dtype=asc.bfloat16)``: Cast(bfloat16_t) -> float (Cast（多类型转float）.md); b_val a "
        "bfloat16 value (a Python number is rounded to one, to nearest even); returns a numpy float32.",
))
