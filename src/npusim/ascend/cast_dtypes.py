"""Which conversions ``Cast`` performs on each product, and with which rounding modes.

Transcribed from the per-product tables of Memory矢量计算/类型转换/Cast.md ("数据类型": src
数据类型, dst数据类型, 支持的roundMode), one line per (src, dst) pair with the modes as
letters: N CAST_NONE, R CAST_RINT, F CAST_FLOOR, C CAST_CEIL, A CAST_ROUND, Z CAST_TRUNC,
O CAST_ODD, H CAST_HYBRID.  A product missing here has no Cast (the 310P Vector Core: 不支持).

int4b_t (npusim's packed ``int4``, docs/semantics.md §5.23) is modelled on the A2/A3 (int4b_t <-> half),
the 310P (half -> int4b_t) and the 950 (int4b_t -> int16_t / half / bfloat16_t, int16_t / half -> int4b_t;
docs/semantics.md §5.31: its vector functions' (un)packing steps put lane ``2i`` in the low nibble of byte
``i``, as on the A2).  hifloat8_t (npusim's ``hifloat8``, docs/semantics.md §5.32) is modelled on the 950:
hifloat8_t -> half / float, and half / float -> hifloat8_t with CAST_ROUND and CAST_HYBRID (the conversion
rejects half -> hifloat8_t CAST_HYBRID of a half subnormal as not modelled, §5.32).  fp4x2_e2m1_t (npusim's
packed ``float4_e2m1fn``, docs/semantics.md §5.33) is modelled on the 950: fp4x2_e2m1_t -> bfloat16_t (exact) and
bfloat16_t -> fp4x2_e2m1_t with CAST_RINT / FLOOR / CEIL / ROUND / TRUNC.  Not modelled (its table lines are left
out and a call is rejected as unsupported): fp4x2_e1m2_t, whose documents contradict each other (docs/semantics.md
§5.31, why it stays rejected).  The
int32_t -> half pair that the A2/A3, 310P and 950 run as a dequantisation with the scale of
``SetDeqScale`` (roundMode ignored) is listed as :data:`DEQ_SCALE` instead of as a mode.  The 950's complex
lines (complex32 -> complex64, complex64 -> complex32 / complex64) convert each part as its component's line
does (docs/semantics.md §5.29).
"""

from __future__ import annotations

from .chips import AscendChip

__all__ = ["COMPOUND_CASTS", "CONVERSION_SATURATION", "DEQ_SCALE", "MODE_LETTERS", "cast_modes",
           "cast_pairs",
           "compound_cast_pairs", "conversion_saturates"]

MODE_LETTERS = {"N": 0, "R": 1, "F": 2, "C": 3, "A": 4, "Z": 5, "O": 6, "H": 7}  # RoundMode values
DEQ_SCALE = "deq"  # int32_t -> half: roundMode不生效，与SetDeqScale(half scale)接口配合使用

_TYPES = {"int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16", "int32_t": "int32",
          "uint32_t": "uint32", "int64_t": "int64", "half": "float16", "bfloat16_t": "bfloat16", "float": "float32",
          "double": "float64", "fp8_e5m2_t": "float8_e5m2", "fp8_e4m3fn_t": "float8_e4m3fn", "int4b_t": "int4",
          "hifloat8_t": "hifloat8", "fp4x2_e2m1_t": "float4_e2m1fn", "complex32": "complex32", "complex64": "complex64"}

_950 = """
    int4b_t int16_t N; int4b_t half N; int4b_t bfloat16_t N
    int8_t int16_t N; int8_t half N; int8_t int32_t N; uint8_t uint16_t N; uint8_t half N; uint8_t uint32_t N
    hifloat8_t half N; hifloat8_t float N; fp8_e5m2_t float N; fp8_e4m3fn_t float N; fp4x2_e2m1_t bfloat16_t N
    int16_t int4b_t N; int16_t uint8_t N; int16_t half RFCAZ; int16_t int32_t N; int16_t uint32_t N; int16_t float N
    uint16_t uint8_t N; uint16_t uint32_t N
    half int4b_t RFCAZ; half int8_t RFCAZ; half uint8_t RFCAZ; half int16_t RFCAZ; half bfloat16_t RFCAZ
    half int32_t RFCAZ; half float N; half hifloat8_t AH
    bfloat16_t half RFCAZ; bfloat16_t int32_t RFCAZ; bfloat16_t float N; bfloat16_t fp4x2_e2m1_t RFCAZ
    int32_t uint8_t N; int32_t int16_t N; int32_t uint16_t N; int32_t half deq; int32_t float RFCAZ; int32_t int64_t N
    uint32_t uint8_t N; uint32_t int16_t N; uint32_t uint16_t N
    float hifloat8_t AH; float fp8_e5m2_t R; float fp8_e4m3fn_t R; float int16_t RFCAZ; float half RFCAZON
    float bfloat16_t RFCAZ; float int32_t RFCAZ; float float RFCAZ; float int64_t RFCAZ
    int64_t int32_t N; int64_t float RFCAZ; int64_t double RFCAZ
    double bfloat16_t RFCAZ; double int32_t Z; double float RFCAZ; double int64_t Z
    complex32 complex64 N; complex64 complex32 RFCAZON; complex64 complex64 RFCAZ
"""
_A2_A3 = """
    int4b_t half N; half int4b_t RFCAZN
    int8_t half N; uint8_t half N; int16_t half RFCAZN; int16_t float N
    half int8_t RFCAZN; half uint8_t RFCAZN; half int16_t RFCAZ; half int32_t RFCAZ; half float N
    bfloat16_t int32_t RFCAZ; bfloat16_t float N
    int32_t int16_t N; int32_t half deq; int32_t float RFCAZN; int32_t int64_t N
    float int16_t RFCAZ; float half RFCAZON; float bfloat16_t RFCAZ; float int32_t RFCAZ; float float RFCAZ
    float int64_t RFCAZ
    int64_t int32_t N; int64_t float RFCAZ
"""
_310B = """
    int8_t half N; uint8_t half N; int16_t half RFCAZN; int16_t float N
    half int8_t RFCAZN; half uint8_t RFCAZN; half int16_t RFCAZ; half int32_t RFCAZ; half float N
    bfloat16_t int32_t RFCAZ; bfloat16_t float N
    int32_t int16_t N; int32_t half N; int32_t float RFCAZN; int32_t int64_t N
    float int16_t RFCAZ; float half RFCAZON; float bfloat16_t RFCAZ; float int32_t RFCAZ; float float RFCAZ
    float int64_t RFCAZ
    int64_t int32_t N; int64_t float RFCAZ
"""
_310P = """
    half int4b_t N
    int8_t half N; uint8_t half N; int16_t half N
    half int8_t FCAZN; half uint8_t FCAZN; half int16_t R; half int32_t RFCAZ; half float N
    int32_t int16_t N; int32_t half deq; int32_t float N
    float half ON; float int64_t RFCAZ
"""
_910 = """
    int8_t half N; uint8_t half N; int16_t half N
    half int8_t FCAZN; half uint8_t FCAZN; half int32_t RFCAZ; half float N
    int32_t float N
    float half ON; float int64_t RFCAZ
"""
_KIRIN = """
    half uint8_t C; half int32_t F; int32_t float C; float bfloat16_t A; bfloat16_t float N
"""


def _parse(table: str) -> dict[tuple[str, str], frozenset[int] | str]:
    pairs: dict[tuple[str, str], frozenset[int] | str] = {}
    for entry in table.replace("\n", ";").split(";"):
        if entry.strip():
            src, dst, modes = entry.split()
            pairs[(_TYPES[src], _TYPES[dst])] = DEQ_SCALE if modes == DEQ_SCALE else frozenset(
                MODE_LETTERS[letter] for letter in modes)
    return pairs


_TABLES = {name: _parse(table) for name, table in (
    ("950", _950), ("A3", _A2_A3), ("A2", _A2_A3), ("310B", _310B), ("310P", _310P), ("910", _910),
    ("KirinX90", _KIRIN), ("Kirin9030", _KIRIN))}


def cast_pairs(chip: AscendChip) -> dict[tuple[str, str], frozenset[int] | str] | None:
    """Every (src, dst) dtype pair ``Cast`` takes on ``chip`` with its RoundMode values (or
    :data:`DEQ_SCALE`), ``None`` where the product has no Cast."""
    return _TABLES.get(chip.name)


def cast_modes(chip: AscendChip, src: str, dst: str) -> frozenset[int] | str | None:
    """The RoundMode values of one pair on ``chip``, :data:`DEQ_SCALE`, or ``None`` if not supported."""
    return (_TABLES.get(chip.name) or {}).get((src, dst))


# The float targets whose conversions CTRL[48] makes saturate in its power-on state (SetCtrlSpr(ISASI).md,
# CTRL[48] "浮点数精度转换时支持如下数据类型": 950 table 3 — hifloat8_t, fp8_e8m0_t, fp8_e5m2_t, fp8_e4m3fn_t,
# half, bfloat16_t, with CTRL[50] = 0 turning a NaN into 0.0; A2/A3 tables 4/5 — half, bfloat16_t).  The other
# products document no conversion saturation.
CONVERSION_SATURATION = {
    "950": frozenset({"float16", "bfloat16", "float8_e5m2", "float8_e4m3fn", "hifloat8"}),
    "A3": frozenset({"float16", "bfloat16"}),
    "A2": frozenset({"float16", "bfloat16"}),
}


_COMPONENT = {"complex32": "float16", "complex64": "float32"}  # a complex target's parts (docs/semantics.md §5.29)


def conversion_saturates(chip: AscendChip, dst: str) -> bool:
    """A conversion to the float type ``dst`` (a complex type: to its parts' type) saturates on ``chip`` while
    the saturation switch is on."""
    return _COMPONENT.get(dst, dst) in CONVERSION_SATURATION.get(chip.name, frozenset())


# 复合计算/AddReluCast.md, SubReluCast.md, MulCast.md (数据类型): (src0/src1, dst) per product; every conversion
# rounds as CAST_NONE (MulsCast: CAST_ROUND, its 功能说明).  The 950 pairs with an int64_t source are
# count-form only (the pages' notes).
_RELU_CAST = {("float16", "int8"), ("int16", "int8"), ("float32", "float16")}
_MUL_CAST = {("float16", "int8"), ("float16", "uint8")}
_INT64 = {("int64", "float32"), ("int64", "int32")}
COMPOUND_CASTS: dict[str, dict[str, frozenset[tuple[str, str]]]] = {
    name: {chip: frozenset(pairs) for chip, pairs in rows.items()} for name, rows in (
        ("add_relu_cast", {"950": _RELU_CAST | _INT64, "A3": _RELU_CAST, "A2": _RELU_CAST,
                           "310B": _RELU_CAST - {("int16", "int8")}, "310P": _RELU_CAST}),
        ("sub_relu_cast", {"950": _RELU_CAST | _INT64, "A3": _RELU_CAST, "A2": _RELU_CAST,
                           "310B": _RELU_CAST - {("int16", "int8")}, "310P": _RELU_CAST}),
        ("mul_cast", {"950": _MUL_CAST | _INT64, "A3": _MUL_CAST, "A2": _MUL_CAST, "310B": _MUL_CAST,
                      "310P": _MUL_CAST}),
        ("muls_cast", {"950": {("float32", "float16")}}),  # 复合计算/MulsCast(ISASI).md 数据类型: 950 only
    )}


def compound_cast_pairs(name: str, chip: AscendChip) -> frozenset[tuple[str, str]] | None:
    """The (source, dst) dtype pairs of a compound cast on ``chip``, ``None`` where it does not exist."""
    return COMPOUND_CASTS[name].get(chip.name)


# 类型转换/Truncate(ISASI).md: a float rounded to an integral value of its own type, the 950 only (数据类型), with the
# RoundModes of its 参数说明 (表1)
TRUNCATE_DTYPES = {"950": frozenset({"float16", "float32", "bfloat16"})}
TRUNCATE_MODES = ("CAST_RINT", "CAST_ROUND", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC")
