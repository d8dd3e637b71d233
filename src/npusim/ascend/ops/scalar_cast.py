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
  shifted up 16 places); on the 950 also from hifloat8_t, fp8_e5m2_t, fp8_e4m3fn_t and fp4x2_e2m1_t, every value
  exactly and a NaN 0x7FFFFFFF (kernel_type_conversion_utils.h FPTranslation).

``value_in`` / ``f_val`` is a C ``float``: a Python number becomes one by rounding to nearest even, as a
literal does (``float valueIn = 3.14159f``); a numpy float32 is taken as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES, CodedDType, DType, PackedFloatDType
from ...engine.plan import SelfBinding
from ...engine.registry import BIT_EXACT, IEEE_RNE, Instruction, register
from ...errors import ParameterRangeError, UnsupportedError
from ...fp4 import decode_table as fp4_values
from ...fp4 import encode_exact
from ...hifloat8 import decode_table as hifloat8_values
from ...overloads import Form, Param
from ...rounding import float_bits
from .. import pages
from ..cast_dtypes import conversion_saturates
from ..coded_values import is_its_double
from ..core import Core
from ..scalars import require_scalar, scalar_bits
from ..types import RoundMode
from .conversion import convert
from .round_modes import MODE_NAMES, require_round_mode
from .scalar_compute import RULES, anything, page_of, require_product

__all__ = ["SCALAR_CAST_MODES", "SOURCES_950", "float2int32_plan", "float_bits_of", "to_bfloat16_bits"]

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
    instruction: str = "scalar_cast"  # or asc_float2int32_*
    operand: str = "value_in"
    pipe: str = "S"  # asc_float2int32_*'s vector forms issue on V

    def run(self, core: Core, values: tuple):
        raw = _float_in(self.instruction, self.operand, values[0])
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


def float2int32_plan(core: Core, instruction: str, mode: RoundMode, value) -> ScalarCast:
    """asc_float2int32_rn / _rna / _rd / _ru(float value), the 950's (C-API/scalar_compute/asc_float2int32.md):
    float -> int32_t in the suffix's mode, as scalar_cast (the vector C API's asc_float2int32_* of the A2/A3 share
    the names)."""
    require_product(core, instruction, "c_api_float2int32", f"{instruction}(float value)",
                    page_of("asc_float2int32"))
    _float_in(instruction, "value", value)
    return ScalarCast(INT32, MODE_NAMES[mode], False, instruction=instruction, operand="value")


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


#: Cast（多类型转float）.md 数据类型: the 950's sources besides bfloat16_t (its fp4x2_e1m2_t has no npusim type)
SOURCES_950 = ("hifloat8", "float8_e5m2", "float8_e4m3fn", "float4_e2m1fn")
_FP32_NAN = 0x7FFFFFFF  # FPTranslation::FP32_NAN: what a NaN of hifloat8_t, fp8_e5m2_t or fp8_e4m3fn_t gives


def _source_code(dtype: DType, value) -> int:
    """The bits (a code) of the argument of type ``dtype``: an ml_dtypes scalar of the type as it is (NaN
    payloads included); else a number, rounded to nearest even to bfloat16 or fp8 (scalar_bits), and a value
    hifloat8_t or fp4 E2M1 holds exactly (a coded type's scalars are its values, docs/semantics.md §5.32, §5.33)."""
    if isinstance(value, np.generic) and value.dtype.name == dtype.name:
        return int(np.asarray(value).reshape(1).view(np.uint16 if dtype is BFLOAT16 else np.uint8)[0])
    if isinstance(dtype, PackedFloatDType):  # fp4x2_e2m1_t: the low 4 bits are the value converted (数据类型)
        require_scalar("to_float", "b_val", value)
        number = _as_double(value)
        if number is None or not is_its_double(value, number) or not bool(dtype.holds(np.array([number]))[0]):
            raise ParameterRangeError("to_float", "b_val", value, f"a {dtype} scalar is a {dtype} value",
                                      dtype.values_text, f"{pages.SCALAR_CAST_FLOAT} 数据类型; {RULES}")
        return int(encode_exact(np.array([number]))[0])
    return int(scalar_bits("to_float", "b_val", value, dtype)[0])


def _as_double(value) -> float | None:
    """``value`` as a double, or None where it has none (a complex number; an integer past the doubles' range,
    which no fp4 value is); :func:`is_its_double` then says whether the double is the number exactly."""
    if isinstance(value, (complex, np.complexfloating)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def float_bits_of(dtype: DType, code: int) -> int:
    """The float bits of the ``dtype`` code (Cast（多类型转float）; kernel_scalar_convert.h ``Cast(T bVal)``): every
    value exactly, the fp8 and hifloat8_t NaNs 0x7FFFFFFF, -0 kept."""
    if dtype is BFLOAT16:
        return code << 16
    if isinstance(dtype, PackedFloatDType):
        value = fp4_values()[code & 0xF]
    elif isinstance(dtype, CodedDType):
        value = hifloat8_values()[code]
    else:
        value = np.array([code], dtype=np.uint8).view(dtype.np_dtype).astype(np.float32)[0]
    return _FP32_NAN if np.isnan(value) else int(np.float32(value).view(np.uint32))


@dataclass(eq=False)
class ToFloat(SelfBinding):
    dtype: DType

    def run(self, core: Core, values: tuple):
        return np.uint32(float_bits_of(self.dtype, _source_code(self.dtype, values[0]))).view(np.float32)


def _compile_to_float(core: Core, form: str, bound: dict) -> ToFloat:
    name = "to_float"
    require_product(core, name, "bfloat16", "Cast（多类型转float）", pages.SCALAR_CAST_FLOAT)
    dtype = _element_type(name, bound["dtype"], "asc.bfloat16")
    if dtype is not BFLOAT16:
        if dtype.name not in SOURCES_950:
            raise UnsupportedError(name, "dtype", dtype.name, "Cast（多类型转float）converts bfloat16_t (and on the "
                                   "950 hifloat8_t, fp8_e5m2_t, fp8_e4m3fn_t, fp4x2_e2m1_t)",
                                   ", ".join(("bfloat16", *SOURCES_950)),
                                   f"{pages.SCALAR_CAST_FLOAT} 数据类型; {RULES}")
        require_product(core, name, "950_float", f"Cast（多类型转float）from {dtype.name}", pages.SCALAR_CAST_FLOAT)
    _source_code(dtype, bound["b_val"])
    return ToFloat(dtype)


to_float = register(Instruction(
    "to_float", "ascend", "scalar", "S", (Form("", (Param("b_val", anything), Param("dtype", anything, BFLOAT16))),),
    _compile_to_float, f"{pages.SCALAR_CAST_FLOAT} 函数原型; impl/basic_api/kernel_scalar_convert.h; {RULES}",
    support=lambda chip: "bfloat16" in chip.scalar_compute or None, per_call=frozenset({"b_val"}),
    exactness=BIT_EXACT,
    summary="A bfloat16_t scalar to float, exact; on the 950 also hifloat8_t, fp8_e5m2_t, fp8_e4m3fn_t, "
            "fp4x2_e2m1_t (NaN 0x7FFFFFFF) (Cast, ToFloat)",
    examples=("asc.to_float(asc.to_bfloat16(3.14159))", "asc.to_float(-1.5, asc.bfloat16)"),
    examples_on={"950": ("asc.to_float(-0.75, asc.hifloat8)", "asc.to_float(57344.0, asc.fp8_e5m2_t)",
                         "asc.to_float(448.0, asc.fp8_e4m3fn_t)", "asc.to_float(-6.0, asc.fp4x2_e2m1_t)")},
    fast_context=lambda core: (),
    doc="``to_float(b_val, dtype=asc.bfloat16)``: Cast(T) -> float (Cast（多类型转float）.md); b_val a value of "
        "dtype (a number is rounded to bfloat16 / fp8 to nearest even; hifloat8 and fp4 take values they hold); "
        "returns a numpy float32.",
))
