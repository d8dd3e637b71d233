"""Element types of the vector arithmetic, logic and compound instructions beyond the first nine.

``AscendChip.vector_dtypes`` holds Add/Sub/Mul/Max/Min/Abs/Adds/Muls/Duplicate; the
instructions below are transcribed from the 数据类型 / 产品支持情况 sections of their pages
(Memory矢量计算/基础算术, 逻辑计算, 复合计算), one table per instruction, keyed by the chip's
npusim name.  A chip missing from a table does not have the instruction (the page says
"不支持" or does not list the product).  :func:`vector_support` is the one lookup for both.

The ISASI pages at the end (Neg, Prelu, Mull, AbsSub, Ands, Ors) are the 950's alone.

The half-source, float-dst rows of Axpy and MulAddDst (``half | half | float | PAR 64``) are
:data:`MIXED_SOURCES`, looked up by :func:`mixed_pairs` (docs/semantics.md §5.26).

The 950's complex32 / complex64 (count forms only, docs/semantics.md §5.29) are in its Add, Sub,
Mul, Div, Adds, Muls, Subs and Divs rows; Abs of a complex source with a real dst is
:data:`COMPLEX_ABS`.

Not modelled: the 950's integer Div (Div.md: int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t; Divs
（灵活标量位置）.md: int64_t, uint64_t) and its int64/uint64 Reciprocal, listed in :data:`NOT_MODELLED` so that a
call is rejected as not modelled (not as a type the product lacks), and the 950-only ``*Config`` template
arguments (npusim follows the default, ``INTRINSIC``).
"""

from __future__ import annotations

from .chips import COMPLEX, AscendChip, OpDtypes

__all__ = ["COMPLEX_ABS", "FUSED_MULTIPLY_ADD", "MIXED_SOURCES", "NOT_MODELLED", "SHIFT_BEYOND_WIDTH",
           "complex_abs_pairs", "mixed_pairs", "not_modelled", "vector_support"]

_HALF_FLOAT = frozenset({"float16", "float32"})
_B16_INT = frozenset({"int16", "uint16"})
_B16_B32_INT = frozenset({"int16", "uint16", "int32", "uint32"})
_B8_B64_INT = frozenset({"int8", "uint8", "int64", "uint64"})
_MAXS = frozenset({"int16", "float16", "int32", "float32"})
_RELU = frozenset({"float16", "int32", "float32"})
_ADD_RELU = frozenset({"int16", "float16", "float32"})

# products (npusim names) of the pages' tables
_CLASSIC = ("A2", "A3", "310B", "310P", "910", "KirinX90", "Kirin9030")  # every row but the 950 and 310P-VEC
_NO_910 = ("A2", "A3", "310B", "310P", "KirinX90", "Kirin9030")


def _rows(chips: tuple[str, ...], dtypes: frozenset[str], **more: OpDtypes) -> dict[str, OpDtypes]:
    return {**{chip: OpDtypes(dtypes) for chip in chips}, **more}


_TABLES: dict[str, dict[str, OpDtypes]] = {
    # 基础算术
    "div": _rows(_CLASSIC, _HALF_FLOAT, **{"950": OpDtypes(_HALF_FLOAT, COMPLEX)}),
    "maxs": _rows(_NO_910, _MAXS, **{"950": OpDtypes(_MAXS | {"bfloat16"}, _B8_B64_INT)}),
    "mins": _rows(_NO_910, _MAXS, **{"950": OpDtypes(_MAXS | {"bfloat16"}, _B8_B64_INT)}),
    "leaky_relu": _rows(_NO_910 + ("950",), _HALF_FLOAT),
    "relu": _rows(_NO_910, _RELU, **{"910": OpDtypes(frozenset({"float16"})),
                                     "950": OpDtypes(_RELU, frozenset({"int64"}))}),
    "sqrt": _rows(_CLASSIC + ("950",), _HALF_FLOAT),
    "exp": _rows(_CLASSIC + ("950",), _HALF_FLOAT),
    "ln": _rows(_CLASSIC + ("950",), _HALF_FLOAT),
    "reciprocal": _rows(_CLASSIC + ("950",), _HALF_FLOAT),
    "rsqrt": _rows(_CLASSIC + ("950",), _HALF_FLOAT),
    # 逻辑计算
    "bitwise_and": _rows(_CLASSIC, _B16_INT, **{"950": OpDtypes(_B16_B32_INT, _B8_B64_INT)}),
    "bitwise_or": _rows(_CLASSIC, _B16_INT, **{"950": OpDtypes(_B16_B32_INT, _B8_B64_INT)}),
    "bitwise_not": _rows(_CLASSIC, _B16_INT, **{"950": OpDtypes(_B16_B32_INT | _HALF_FLOAT, _B8_B64_INT)}),
    "shift_left": _rows(("A2", "A3", "310B"), _B16_B32_INT, **{"950": OpDtypes(_B16_B32_INT, _B8_B64_INT)}),
    "shift_right": _rows(("A2", "A3", "310B"), _B16_B32_INT, **{"950": OpDtypes(_B16_B32_INT, _B8_B64_INT)}),
    # 复合计算
    "add_relu": _rows(("A2", "A3", "310P"), _ADD_RELU, **{"310B": OpDtypes(_HALF_FLOAT),
                                                          "950": OpDtypes(_ADD_RELU, frozenset({"int64", "uint64"}))}),
    "sub_relu": _rows(("A2", "A3", "310P"), _ADD_RELU, **{"310B": OpDtypes(_HALF_FLOAT),
                                                          "950": OpDtypes(_ADD_RELU, frozenset({"int64", "uint64"}))}),
    "fused_mul_add": _rows(_NO_910, _HALF_FLOAT,
                           **{"950": OpDtypes(_HALF_FLOAT | {"bfloat16"}, frozenset({"int64", "uint64"}))}),
    "fused_mul_add_relu": _rows(("A2", "A3", "310B", "310P"), _HALF_FLOAT,
                                **{"950": OpDtypes(_HALF_FLOAT, frozenset({"int64", "uint64"}))}),
    "mul_add_dst": _rows(("A2", "A3", "310P", "KirinX90", "Kirin9030"), _HALF_FLOAT,
                         **{"310B": OpDtypes(_HALF_FLOAT | _B16_B32_INT),
                            "950": OpDtypes(_HALF_FLOAT, frozenset({"int64", "uint64"}))}),
    "axpy": _rows(_CLASSIC, _HALF_FLOAT,
                  **{"950": OpDtypes(_HALF_FLOAT | {"bfloat16"}, frozenset({"int64", "uint64"}))}),
    # the 950-only (ISASI) pages: every other row says "不支持"; Neg, Prelu, Mull and AbsSub have only the
    # count form, Ands/Ors take int64/uint64 only in it ("仅支持tensor前n个数据计算接口")
    "neg": {"950": OpDtypes(frozenset({"int8", "int16", "float16", "int32", "float32", "int64"}))},
    "prelu": {"950": OpDtypes(_HALF_FLOAT)},
    "mull": {"950": OpDtypes(frozenset({"int32", "uint32"}))},
    "abs_sub": {"950": OpDtypes(_HALF_FLOAT)},
    "ands": {"950": OpDtypes(_B16_INT, frozenset({"int64", "uint64"}))},
    "ors": {"950": OpDtypes(_B16_INT, frozenset({"int64", "uint64"}))},
    # 基础算术/Subs（灵活标量位置）.md, Divs（灵活标量位置）.md (the 950 alone; the 950's integer Div is not modelled)
    "subs": {"950": OpDtypes(_MAXS | {"bfloat16"}, frozenset({"int64", "uint64"}) | COMPLEX)},
    "divs": {"950": OpDtypes(_HALF_FLOAT, COMPLEX)},
    # 逻辑计算/ShiftLeft（左移位数为Tensor）.md, ShiftRight（右移位数为Tensor）.md: T any integer type (count form)
    "shift_left_by_tensor": {"950": OpDtypes(_B16_B32_INT | _B8_B64_INT)},
    "shift_right_by_tensor": {"950": OpDtypes(_B16_B32_INT | _B8_B64_INT)},
}

# (source type, dst type) of the mixed-precision rows: Axpy.md and MulAddDst.md 数据类型, "half | half | float |
# PAR 64" (src0/src, src1/scalarValue, dst); MulAddDst's 310B table has no such row, and the 910 no MulAddDst
_HALF_TO_FLOAT = frozenset({("float16", "float32")})
MIXED_SOURCES: dict[str, dict[str, frozenset[tuple[str, str]]]] = {
    "axpy": dict.fromkeys(_CLASSIC + ("950",), _HALF_TO_FLOAT),
    "mul_add_dst": dict.fromkeys(("A2", "A3", "310P", "KirinX90", "Kirin9030", "950"), _HALF_TO_FLOAT),
}

# Abs.md 数据类型, the 950's "tensor前n个复数计算" prototype Abs(dst: T, src: U, count): (U, T) pairs, U complex32 with
# T half, U complex64 with T float; every other row lists no complex type
COMPLEX_ABS: dict[str, frozenset[tuple[str, str]]] = {
    "950": frozenset({("complex32", "float16"), ("complex64", "float32")}),
}

# Documented element types npusim does not model, per page row and product (module docstring)
_INT_DIV = frozenset({"int16", "uint16", "int32", "uint32", "int64", "uint64"})
NOT_MODELLED: dict[str, dict[str, frozenset[str]]] = {
    "div": {"950": _INT_DIV},
    "divs": {"950": frozenset({"int64", "uint64"})},
    "reciprocal": {"950": frozenset({"int64", "uint64"})},
}


def not_modelled(chip: AscendChip, name: str) -> frozenset[str]:
    """The element types the page of ``name`` lists on ``chip`` that npusim does not model (empty: none)."""
    return NOT_MODELLED.get(name, {}).get(chip.name, frozenset())


# The 950 runs FusedMulAdd / MulAddRelu / MulAddDst as the Reg-level fused instructions (one rounding,
# Reg矢量计算/复合计算/MulDstAdd.md and MulAddDst.md); the other products' vmadd/vmla round the product first.
FUSED_MULTIPLY_ADD = frozenset({"950"})

# ShiftLeft.md / ShiftRight.md 参数说明: scalarValue lies in [0, bits of T] on the A2/A3/310B; the 950
# takes any non-negative amount (a shift past the width gives 0, or the sign for an arithmetic right shift).
SHIFT_BEYOND_WIDTH = frozenset({"950"})


def vector_support(chip: AscendChip, name: str) -> OpDtypes | None:
    """The element types ``name`` takes on ``chip``, ``None`` if the product does not have it."""
    row = chip.vector_dtypes.get(name)
    if row is not None:
        return row
    return _TABLES.get(name, {}).get(chip.name)


def complex_abs_pairs(chip: AscendChip) -> frozenset[tuple[str, str]]:
    """The (complex source, real dst) type pairs of Abs on ``chip`` (empty: none)."""
    return COMPLEX_ABS.get(chip.name, frozenset())


def mixed_pairs(chip: AscendChip, name: str) -> frozenset[tuple[str, str]]:
    """The (source, dst) type pairs of ``name``'s mixed-precision rows on ``chip`` (empty: none)."""
    return MIXED_SOURCES.get(name, {}).get(chip.name, frozenset())
