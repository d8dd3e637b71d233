"""Per-lane reference of the element-wise instructions added for issue 14, in the style of
:mod:`.reference_model` (exact rational arithmetic, one rounding, no numpy, no npusim).

Written from the pages (Memory矢量计算/基础算术, 逻辑计算, 复合计算) and docs/numerics.md:

* div: the exact quotient, IEEE special cases; sqrt: the exact root (a 60-digit decimal,
  far more than any rounding here needs); both rounded once.
* exp, ln, reciprocal, rsqrt: the **correctly rounded** value (60-digit decimals).  npusim's
  accuracy model may be one ulp away from it (it rounds a float64 result), never more.
* relu: IEEE maximum(x, +0); leaky_relu: x if x >= 0 (-0 included) else x * s rounded once;
  add_relu / sub_relu: the rounded sum, then relu; integers wrap first.
* logic on bit patterns; shifts as ShiftLeft.md / ShiftRight.md describe them.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

from . import reference_model as ref

UNARY = ("relu", "sqrt", "exp", "ln", "reciprocal", "rsqrt", "not")
ACCURACY = ("exp", "ln", "reciprocal", "rsqrt")
_CONTEXT = decimal.Context(prec=60)


def _decimal(value: Fraction) -> decimal.Decimal:
    return _CONTEXT.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))


def _exact(fn, value: Fraction) -> Fraction:
    return Fraction(fn(_decimal(value)))


def _is_zero(value) -> bool:
    return isinstance(value, tuple)


def _negative(value) -> bool:
    return value == "-inf" or (not isinstance(value, (str, tuple)) and value < 0)


def _exact_unary(op: str, a):
    """The exact result of a unary float operation, in :func:`ref.encode`'s terms."""
    if a == "nan":
        return "nan"
    if op == "relu":
        return ref._float_binary("max", a, ("zero", 0))
    if op == "reciprocal":
        return _divide(Fraction(1), a)
    if op == "exp":
        if a == "+inf":
            return "+inf"
        if a == "-inf":
            return ("zero", 0)
        if _is_zero(a):
            return Fraction(1)
        if abs(a) > 1000:  # e^1000 lies far above every format's range, e^-1000 far below half its least
            return "+inf" if a > 0 else ("zero", 0)  # subnormal (and decimal's exp overflows past ~2e6)
        return _exact(_CONTEXT.exp, a)
    if op == "ln":
        if _is_zero(a):
            return "-inf"
        if _negative(a):
            return "nan"
        if a == "+inf":
            return "+inf"
        return ("zero", 0) if a == 1 else _exact(_CONTEXT.ln, a)
    if op in ("sqrt", "rsqrt"):
        if _is_zero(a):
            return a if op == "sqrt" else ("-inf" if a[1] else "+inf")
        if _negative(a):
            return "nan"
        if a == "+inf":
            return "+inf" if op == "sqrt" else ("zero", 0)
        root = _exact(_CONTEXT.sqrt, a)
        return root if op == "sqrt" else _exact(lambda d: _CONTEXT.divide(1, _CONTEXT.sqrt(d)), a)
    raise ValueError(op)


def _divide(a, b):
    """IEEE division of exact values (zeros as ("zero", sign))."""
    if a == "nan" or b == "nan":
        return "nan"
    sign = ref._sign_of(a) ^ ref._sign_of(b)
    a_inf, b_inf = isinstance(a, str), isinstance(b, str)
    if a_inf and b_inf:
        return "nan"
    if a_inf:
        return "-inf" if sign else "+inf"
    if b_inf:
        return ("zero", sign)
    if _is_zero(b):
        return "nan" if _is_zero(a) or a == 0 else ("-inf" if sign else "+inf")
    if _is_zero(a) or a == 0:
        return ("zero", sign)
    return a / b


def _saturate(bits: int, fmt: str, saturate: bool) -> int:
    _size, _kind, ebits, mbits = ref.FORMATS[fmt]
    top = (1 << ebits) - 1
    is_special = (bits >> mbits) & top == top
    if not (saturate and is_special):
        return bits
    if bits & ((1 << mbits) - 1):
        return 0
    return (bits & (1 << (ebits + mbits))) | ((top - 1) << mbits) | ((1 << mbits) - 1)


def float_bits(op: str, fmt: str, a_bits: int, b_bits: int | None, saturate: bool) -> int:
    """One float lane of ``op`` (``b_bits``: the second source or the scalar, as bits of ``fmt``)."""
    if op == "not":
        return ~a_bits & ((1 << 8 * ref.FORMATS[fmt][0]) - 1)
    a = ref.decode(a_bits, fmt)
    if op in UNARY:
        return _saturate(ref.encode(_exact_unary(op, a), fmt), fmt, saturate)
    b = ref.decode(b_bits, fmt)
    if op == "div":
        return _saturate(ref.encode(_divide(a, b), fmt), fmt, saturate)
    if op == "leaky_relu":
        if a == "nan":
            exact = "nan"
        elif _is_zero(a) or not _negative(a):
            exact = a
        else:
            exact = ref._float_binary("mul", a, b)
        return _saturate(ref.encode(exact, fmt), fmt, saturate)
    if op in ("add_relu", "sub_relu"):
        rounded = ref.encode(ref._float_binary(op[:3], a, b), fmt)
        return _saturate(ref.encode(_exact_unary("relu", ref.decode(rounded, fmt)), fmt), fmt, saturate)
    return ref.float_result_bits(op, fmt, a_bits, b_bits, saturate)  # add, sub, mul, max, min


def int_bits(op: str, fmt: str, a_bits: int, b_bits: int | None) -> int:
    size, kind, _e, _m = ref.FORMATS[fmt]
    width = 8 * size
    full = (1 << width) - 1
    if op == "and":
        return a_bits & b_bits
    if op == "or":
        return a_bits | b_bits
    if op == "not":
        return ~a_bits & full
    if op == "shift_left":
        if b_bits > width:
            return 0  # ShiftLeft.md scalarValue取值说明 (950): a shift past the width clears every element
        shifted = (a_bits << b_bits) & full
        if kind == "int":
            sign = 1 << (width - 1)
            return (a_bits & sign) | (shifted & (sign - 1))
        return shifted
    if op == "shift_right":
        if kind == "int":
            return (ref.number(a_bits, fmt) >> b_bits) & full  # Python's >> on negatives is arithmetic
        return a_bits >> b_bits
    if op == "relu":
        return a_bits if ref.number(a_bits, fmt) > 0 else 0
    if op in ("add_relu", "sub_relu"):
        wrapped = ref.int_result_bits(op[:3], fmt, a_bits, b_bits)
        return wrapped if ref.number(wrapped, fmt) > 0 else 0
    return ref.int_result_bits(op, fmt, a_bits, b_bits)


# multiply-adds: which operands (sources..., old dst, scalar) are the multiplicand, multiplier and addend
MULTIPLY_ADD = {"mul_add_dst": (0, 1, 2), "fused_mul_add": (0, 2, 1), "fused_mul_add_relu": (0, 2, 1),
                "axpy": (0, 2, 1)}


def multiply_add_bits(op: str, fmt: str, operands: list[int], saturate: bool, fused: bool) -> int:
    """One lane of a multiply-add: the product rounded to ``fmt`` and then the sum, or (``fused``) the
    exact ``x * y + z`` rounded once; relu last for fused_mul_add_relu; integers wrap."""
    x, y, z = (operands[i] for i in MULTIPLY_ADD[op])
    if ref.FORMATS[fmt][1] != "float":
        total = ref.int_result_bits("add", fmt, ref.int_result_bits("mul", fmt, x, y), z)
        if op == "fused_mul_add_relu" and ref.number(total, fmt) <= 0:
            return 0
        return total
    product = ref._float_binary("mul", ref.decode(x, fmt), ref.decode(y, fmt))
    if not fused:
        product = ref.decode(ref.encode(product, fmt), fmt)
    bits = ref.encode(ref._float_binary("add", product, ref.decode(z, fmt)), fmt)
    if op == "fused_mul_add_relu":
        bits = ref.encode(_exact_unary("relu", ref.decode(bits, fmt)), fmt)
    return _saturate(bits, fmt, saturate)


def lane_bits(op: str, fmt: str, a_bits: int, b_bits: int | None, saturate: bool) -> int:
    if ref.FORMATS[fmt][1] == "float":
        return float_bits(op, fmt, a_bits, b_bits, saturate)
    return int_bits(op, fmt, a_bits, b_bits)


def ulps_apart(x_bits: int, y_bits: int, fmt: str) -> int:
    """How many representable values lie between two finite-or-infinite floats of ``fmt`` (NaN: huge)."""
    size, _kind, ebits, mbits = ref.FORMATS[fmt]
    sign = 1 << (8 * size - 1)

    def ordinal(bits):
        if ref.decode(bits, fmt) == "nan":
            return None
        return -(bits & (sign - 1)) if bits & sign else bits

    ox, oy = ordinal(x_bits), ordinal(y_bits)
    if ox is None or oy is None:
        return 0 if ox is None and oy is None else 1 << 40
    return abs(ox - oy)


def elementwise(ub: bytearray, op: str, fmt: str, dst: int, srcs: list[int], scalar_bits: int | None,
                repeats: int, active, strides: list[tuple[int, int]], saturate: bool = False,
                fused: bool = False) -> None:
    """:func:`ref.elementwise` for these operations: repeat by repeat, lane by lane, in order; a
    multiply-add reads the old dst lane after the sources (and before the scalar)."""
    size = ref.FORMATS[fmt][0]
    for r in range(repeats):
        reads = []
        for j in active(r):
            operands = [ref.load(ub, ref.lane_address(base, r, j, size, *stride), size)
                        for base, stride in zip(srcs, strides[1:], strict=True)]
            if op in MULTIPLY_ADD:
                operands.append(ref.load(ub, ref.lane_address(dst, r, j, size, *strides[0]), size))
            if scalar_bits is not None:
                operands.append(scalar_bits)
            reads.append((j, operands))
        for j, operands in reads:
            if op in MULTIPLY_ADD:
                bits = multiply_add_bits(op, fmt, operands, saturate, fused)
            else:
                bits = lane_bits(op, fmt, operands[0], operands[1] if len(operands) > 1 else None, saturate)
            ref.store(ub, ref.lane_address(dst, r, j, size, *strides[0]), size, bits)


# ------------------------------------------------------------------ half sources, a float dst (Axpy, MulAddDst)
MIXED_LANES = 64  # a float dst's repeat (docs/semantics.md §5.26)


def mixed_multiply_add_bits(op: str, operands: list[int]) -> int:
    """One lane of the half-source float-dst form: ``operands`` are the half sources' bits, the float old
    dst's, then (Axpy) the half scalar's; the exact product plus the old dst, rounded once to float."""
    x, y, z = (operands[i] for i in MULTIPLY_ADD[op])
    product = ref._float_binary("mul", ref.decode(x, "float16"), ref.decode(y, "float16"))
    return ref.encode(ref._float_binary("add", product, ref.decode(z, "float32")), "float32")


def mixed_multiply_add(ub: bytearray, op: str, dst: int, srcs: list[int], scalar_bits: int | None, repeats: int,
                       active, strides: list[tuple[int, int]]) -> None:
    """The mixed form on a UB model, lane by lane: lane j of repeat r is dst's float at the address formula with
    4-byte elements and each source's half with 2-byte elements (its first four DataBlocks)."""
    for r in range(repeats):
        for j in active(r):
            operands = [ref.load(ub, ref.lane_address(base, r, j, 2, *stride), 2)
                        for base, stride in zip(srcs, strides[1:], strict=True)]
            at = ref.lane_address(dst, r, j, 4, *strides[0])
            operands.append(ref.load(ub, at, 4))
            if scalar_bits is not None:
                operands.append(scalar_bits)
            ref.store(ub, at, 4, mixed_multiply_add_bits(op, operands))
