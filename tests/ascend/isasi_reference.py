"""Per-lane reference of the 950's own element-wise instructions (Neg, Prelu, AbsSub, Mull, Ands, Ors,
MulsCast), in exact arithmetic on bit patterns, written from their pages (Memory矢量计算/基础算术,
逻辑计算, 复合计算, the (ISASI) pages) and docs/numerics.md; no numpy, no npusim.

* neg: ``-x`` (integers modulo 2^w; floats: the exact value negated, zeros and infinities with their
  sign flipped, NaN the canonical NaN); prelu: ``x`` if ``x >= 0`` (-0 included) else ``x * alpha``
  rounded once (the leaky_relu lane with alpha from src1); abs_sub: ``|x - y|`` rounded once;
  the float results then follow the saturation switch (inf -> ±MAX, NaN -> 0) where it applies.
* mull: the exact product of two 32-bit integers, its low and high 32 bits.
* ands / ors: the bit patterns and-ed / or-ed with the scalar's.
* muls_cast: the exact float product rounded to float (ties to even), then that value to half with
  CAST_ROUND (ties away from zero), saturating as Cast does (cast_reference).
"""

from __future__ import annotations

from . import cast_reference as cref
from . import elementwise_reference as eref
from . import reference_model as ref


def neg_bits(fmt: str, a_bits: int, saturate: bool) -> int:
    size, kind, _e, _m = ref.FORMATS[fmt]
    if kind != "float":
        return -ref.number(a_bits, fmt) % (1 << (8 * size))
    return eref._saturate(ref.encode(ref._negate(ref.decode(a_bits, fmt)), fmt), fmt, saturate)


def prelu_bits(fmt: str, a_bits: int, alpha_bits: int, saturate: bool) -> int:
    return eref.float_bits("leaky_relu", fmt, a_bits, alpha_bits, saturate)


def abs_sub_bits(fmt: str, a_bits: int, b_bits: int, saturate: bool) -> int:
    size, _kind, _e, _m = ref.FORMATS[fmt]
    difference = ref.encode(ref._float_binary("sub", ref.decode(a_bits, fmt), ref.decode(b_bits, fmt)), fmt)
    if ref.decode(difference, fmt) != "nan":
        difference &= (1 << (8 * size - 1)) - 1  # the magnitude: exact
    return eref._saturate(difference, fmt, saturate)


def mull_bits(fmt: str, a_bits: int, b_bits: int) -> tuple[int, int]:
    product = ref.number(a_bits, fmt) * ref.number(b_bits, fmt)
    bits = product % (1 << 64)
    return bits & 0xFFFFFFFF, bits >> 32


def logic_bits(op: str, a_bits: int, scalar_bits: int) -> int:
    return a_bits & scalar_bits if op == "ands" else a_bits | scalar_bits


def muls_cast_bits(a_bits: int, scalar_bits: int, saturate: bool) -> int:
    product = eref.float_bits("mul", "float32", a_bits, scalar_bits, False)
    return cref.cast("float32", "float16", product, 4, saturate)  # RoundMode.CAST_ROUND = 4
