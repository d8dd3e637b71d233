"""What one lane of a vector arithmetic instruction computes, vectorised over lanes.

Inputs and outputs are raw bit patterns (``dtype.raw`` arrays), so no value is ever
reinterpreted by accident.  The rules, and where they come from:

* **Integers wrap** modulo 2^bits: add, sub and mul keep the low bits; ``abs(INT_MIN)`` is
  ``INT_MIN``.  The A2/A3 documents define no integer saturation for vector arithmetic;
  the 950's CTRL[53] selects it and defaults to truncation ("截断模式 ... 保留低位，舍弃高位",
  特殊寄存器访问/SetCtrlSpr(ISASI).md, table 3).
* **Floats** (half, bfloat16, float) are computed in float32 and rounded once to T, to
  nearest even (:mod:`npusim.rounding`, not a library cast).  For +, -, * float32 has at
  least 2p + 2 bits for half (p = 11) and bfloat16 (p = 8), so the double rounding is
  innocuous: the result is the correctly rounded one.  Subnormals are kept (no flush to zero).
* **max / min** follow IEEE 754-2019 ``maximum`` / ``minimum``: a NaN operand gives NaN, and
  -0 < +0.
* **NaN results** are the canonical quiet NaN of T, sign clear (0x7E00, 0x7FC0,
  0x7FC00000).  The documents do not state NaN payloads; a fixed pattern keeps results
  identical on every host (assumption, see the module report).
* **Saturation** (``saturate=True``: CTRL[48] in its power-on saturating state, for the
  product's ``float_saturation_dtypes``): an infinite result becomes ±MAX of T and a NaN
  result 0 ("inf输出会被饱和为±MAX，NaN输出会被饱和为0", SetCtrlSpr(ISASI).md, tables 4-5).
* **div, sqrt** round once as well: float32 has at least 2p + 2 bits for half and bfloat16,
  which makes the float32 quotient or root, rounded again, the correctly rounded one too.
* **relu** is IEEE ``maximum(x, +0)`` (NaN stays NaN, -0 gives +0); **add_relu / sub_relu**
  round the sum first and then take relu (AddRelu.md: one ``vaddrelu``); an integer sum wraps
  first.  **leaky_relu** is ``x`` where ``x >= 0`` (so -0 stays -0), else ``x * scalar``
  rounded once (LeakyRelu.md).
* **Multiply-add** (FusedMulAdd, MulAddRelu, MulAddDst, Axpy; the three operands are the
  multiplicand, the multiplier and the addend, one of them the old dst): on every product but
  the 950 the product is rounded to T and then the sum (``vmadd``: the FusedMulAdd and MulAddRelu
  pages' printed data match this and not a fused rounding; MulAddDst and Axpy by analogy);
  ``fused=True`` (the 950's Reg ``FusedMulDstAdd`` / ``MulAddDst``, documented as one fused
  instruction) rounds the exact ``x * y + z`` once.  Integers wrap.
* **exp, ln, reciprocal, rsqrt** are an *accuracy model*, not the hardware's bits: the
  float64 result of numpy's function, rounded once to T (docs/numerics.md); **exp_sub** (ExpSub) is
  ``exp`` of the float difference ``a - b`` the same way.
* **neg** (Neg(ISASI).md) is ``-x``: two's-complement negation for integers (wrapping, so
  ``-INT_MIN`` is ``INT_MIN``; the page is silent), the sign flipped for floats (a NaN gives the
  canonical NaN, as every float result here).
* **prelu** (Prelu(ISASI).md) is ``x`` where ``x >= 0`` (the page's formula; -0 stays -0), else
  ``x * alpha`` with the tensor's lane as alpha, rounded once: leaky_relu with a per-lane slope.
* **abs_sub** (AbsSub(ISASI).md) is ``|x - y|``: the difference rounded once, then its magnitude
  (exact), so one rounding in all.
* **copy** (Copy) is the source's bit pattern, unchanged.
* **Logic** (and, or, not) works on the bit patterns (the 950 also complements half/float
  bits, Not.md).  **Shifts** (ShiftLeft.md / ShiftRight.md): unsigned types shift logically;
  signed types shift right arithmetically, and shift left keeping the sign bit
  (``sign | ((x << n) & (2^(w-1) - 1))``, the pages' int16 examples); a left shift by more
  than the width gives 0 (the 950 page; elsewhere it is out of range), a logical right shift
  by the width or more 0, an arithmetic one the sign fill.  The 950's forms with the amounts in a
  tensor（左/右移位数为Tensor）shift each lane by its own amount with the same rules (their
  约束说明: past the width a logical shift gives 0, an arithmetic right shift -1 or 0).
  **shift_right_round** is ShiftRight with ``roundEn`` (int16 / int32, A2/A3: the C API's
  ``asc_shiftright_round``): the arithmetic shift plus the last bit shifted out.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError
from ...rounding import float_array_bits, float_format, narrowed_bits, special_results
from .. import pages

__all__ = ["OPERATIONS", "compute"]

BITWISE = frozenset({"and", "or", "not"})
SHIFT_BY_LANE = {"shift_left_by_lane": "shift_left", "shift_right_by_lane": "shift_right"}  # amounts from a tensor
SHIFT_TENSOR_PAGES = {"shift_left": pages.SHIFT_LEFT_TENSOR, "shift_right": pages.SHIFT_RIGHT_TENSOR}
# multiply-add operations: which operands (sources..., old dst, scalar) are the multiplicand, multiplier, addend
MULTIPLY_ADD = {"mul_add_dst": (0, 1, 2), "fused_mul_add": (0, 2, 1), "fused_mul_add_relu": (0, 2, 1),
                "axpy": (0, 2, 1)}
OPERATIONS = frozenset({
    "add", "sub", "mul", "max", "min", "abs", "div", "relu", "leaky_relu", "add_relu", "sub_relu", "sqrt",
    "exp", "ln", "reciprocal", "rsqrt", "and", "or", "not", "shift_left", "shift_right", "shift_right_round", "copy",
    *MULTIPLY_ADD,
    "neg", "prelu", "abs_sub", "exp_sub", *SHIFT_BY_LANE,
})
TRANSCENDENTAL = {"exp": np.exp, "ln": np.log, "reciprocal": np.reciprocal,
                  "rsqrt": lambda x: np.reciprocal(np.sqrt(x))}


def compute(operation: str, dtype: DType, operands: list[np.ndarray], saturate: bool = False,
            fused: bool = False) -> np.ndarray:
    """``operation`` applied lane by lane to raw operand arrays (a scalar operand has shape ``(1,)``).

    ``fused``: a multiply-add rounds once (the 950), not after the product and the sum.

    Returns:
        The raw bits of the results, dtype ``dtype.raw``.
    """
    if operation == "copy":  # Copy moves the bit pattern unchanged
        return operands[0]
    if operation in BITWISE:
        return _bitwise(operation, dtype, operands)
    if dtype.is_float:
        return _float(operation, dtype, operands, saturate, fused)
    return _integer(operation, dtype, operands)


def _bitwise(operation: str, dtype: DType, operands: list[np.ndarray]) -> np.ndarray:
    a = operands[0].astype(dtype.raw, copy=False)
    if operation == "not":
        return ~a
    b = operands[1].astype(dtype.raw, copy=False)
    return (a & b) if operation == "and" else (a | b)


def _shift(operation: str, dtype: DType, a: np.ndarray, amount) -> np.ndarray:
    """ShiftLeft / ShiftRight of raw lanes by ``amount`` bits, one amount or one per lane (module docstring)."""
    raw, width = dtype.raw, 8 * dtype.itemsize
    signed = dtype.kind == "int"
    if operation == "shift_right":
        if signed:
            return (a.view(dtype.np_dtype) >> np.minimum(amount, width - 1).astype(dtype.np_dtype)).view(raw)
        return np.where(amount < width, a >> np.minimum(amount, width - 1).astype(raw), raw.type(0))
    shifted = np.where(amount < width, a << np.minimum(amount, width - 1).astype(raw), raw.type(0))
    if not signed:
        return shifted
    sign = raw.type(1 << (width - 1))
    kept = (a & sign) | (shifted & raw.type((1 << (width - 1)) - 1))  # Python ints: uint64 - 1 is a float on numpy 1.x
    # the 950's "左移的位数大于src数据类型位宽 ... 全部元素被赋值为0"
    return np.where(amount > width, raw.type(0), kept)


def _rounded_shift_right(dtype: DType, a: np.ndarray, amount: int) -> np.ndarray:
    """ShiftRight with ``roundEn`` (ShiftRight.md 参数说明, int16 / int32): the arithmetic shift, plus 1 where
    the last bit shifted out (bit ``amount - 1`` of the source) is 1; a shift by 0 shifts nothing out."""
    shifted = _shift("shift_right", dtype, a, amount)
    if amount == 0:
        return shifted
    signed = a.view(dtype.np_dtype)
    carry = ((signed >> dtype.np_dtype.type(amount - 1)) & 1).astype(dtype.np_dtype)
    return (shifted.view(dtype.np_dtype) + carry).view(dtype.raw)  # (x >> n) + 1 <= max: no overflow


def check_shift_amounts(instruction: str, dtype: DType, raw_amounts: np.ndarray) -> None:
    """The active lanes' shift amounts of ShiftLeft/ShiftRight（左/右移位数为Tensor）, src1's lanes read as the
    signed integer of T's size (the pages' U), are not negative ("不支持设置为负数")."""
    amounts = raw_amounts.reshape(-1).view(np.dtype(f"<i{dtype.itemsize}"))
    negative = np.flatnonzero(amounts < 0)
    if negative.size:
        lane = int(negative[0])
        raise ParameterRangeError(instruction, "src1", int(amounts[lane]),
                                  f"a shift amount (active lane {lane} of the call) must not be negative", "0 or more",
                                  f"{SHIFT_TENSOR_PAGES[instruction]} 参数说明")


def _integer(operation: str, dtype: DType, operands: list[np.ndarray]) -> np.ndarray:
    raw = dtype.raw
    a = operands[0].astype(raw, copy=False)
    with np.errstate(over="ignore"):
        if operation == "abs":
            signed = a.view(dtype.np_dtype)
            if dtype.kind == "uint":
                return a.copy()
            return np.where(signed < 0, (np.zeros_like(a) - a), a).astype(raw, copy=False)
        if operation == "relu":
            return np.where(a.view(dtype.np_dtype) > 0, a, 0).astype(raw, copy=False)
        if operation == "neg":
            return (np.zeros_like(a) - a).astype(raw, copy=False)
        if operation in ("shift_left", "shift_right"):
            return _shift(operation, dtype, a, int(operands[1].view(dtype.np_dtype)[0]))
        if operation == "shift_right_round":
            return _rounded_shift_right(dtype, a, int(operands[1].view(dtype.np_dtype)[0]))
        if operation in SHIFT_BY_LANE:  # src1's lanes; a negative one in an active lane rejected the call before
            amounts = operands[1].view(np.dtype(f"<i{dtype.itemsize}")).astype(np.int64)
            return _shift(SHIFT_BY_LANE[operation], dtype, a, np.maximum(amounts, 0))  # (inactive lanes: any bits)
        if operation in MULTIPLY_ADD:
            x, y, z = (operands[i].astype(raw, copy=False) for i in MULTIPLY_ADD[operation])
            total = x * y + z
            if operation == "fused_mul_add_relu":
                return np.where(total.view(dtype.np_dtype) > 0, total, 0).astype(raw, copy=False)
            return total
        b = operands[1].astype(raw, copy=False)
        if operation in ("add_relu", "sub_relu"):
            wrapped = (a + b) if operation == "add_relu" else (a - b)
            return np.where(wrapped.view(dtype.np_dtype) > 0, wrapped, 0).astype(raw, copy=False)
        if operation == "add":
            return (a + b).astype(raw, copy=False)
        if operation == "sub":
            return (a - b).astype(raw, copy=False)
        if operation == "mul":
            return (a * b).astype(raw, copy=False)  # the low bits of a product do not depend on signedness
        sa, sb = a.view(dtype.np_dtype), b.view(dtype.np_dtype)
        if operation == "max":
            return np.where(sa >= sb, a, b).astype(raw, copy=False)
        if operation == "min":
            return np.where(sa <= sb, a, b).astype(raw, copy=False)
    raise ValueError(f"unknown vector operation {operation!r}")


def _float(operation: str, dtype: DType, operands: list[np.ndarray], saturate: bool, fused: bool) -> np.ndarray:
    fmt = float_format(dtype)
    np_dtype = dtype.np_dtype
    if np_dtype == _HALF and operation in SELECTING and operands[0].size <= _FEW_HALF_LANES:
        bits = _selected_halves(operation, fmt, operands, saturate)
        if bits is not None:
            return bits
    if np_dtype == _HALF and operation in _HALF_LOOPS and max(op.size for op in operands) <= _FEW_HALF_LANES:
        bits = _plain_halves(operation, operands)
        if bits is not None:
            return bits
    if np_dtype == _FLOAT32:  # the operands' own views (every lane operation returns a new array)
        values = [op.view(_FLOAT32) for op in operands]
    else:
        values = [op.view(np_dtype).astype(_FLOAT32) for op in operands]
    nan = None
    if operation in SELECTING:
        bits, nan = _selected(operation, fmt, operands, values)
    else:
        wide = _quiet_lanes(operation, dtype, values, fused)
        if wide.dtype == _FLOAT32 and dtype.name == "float32":
            bits = wide.view(dtype.raw)  # a new array: no lane operation returns its input
            # may_hold_special(bits) asked of the floats: an infinite or NaN lane is the one that is not finite
            special = not np.logical_and.reduce(np.isfinite(wide), axis=None)
        else:
            bits, special = narrowed_bits(wide, dtype)  # rounds once
        if not special:
            return bits
    if nan is None:  # computed (a selected result may hide the other operand's NaN: _selected says where)
        nan = np.isnan(wide)
    return special_results(bits, nan, fmt, saturate)


#: operations whose result is one operand's value, or that value with its sign bit changed: no rounding
SELECTING = frozenset({"max", "min", "abs", "relu"})


def _selected(operation: str, fmt, operands: list[np.ndarray], values: list[np.ndarray]):
    """Raw result bits and NaN lanes of an operation in :data:`SELECTING`, taken from the operands'
    own bits (their ``values`` are the same numbers widened to float32, compared exactly): the same
    results as computing in float32 and rounding, which would give back the chosen operand's value
    (module docstring: IEEE maximum/minimum, relu as maximum(x, +0), abs clears the sign)."""
    a_bits, a = operands[0], values[0]
    sign = a_bits.dtype.type(fmt.sign_bit)
    if operation == "abs":
        return a_bits & ~sign, np.isnan(a)
    if operation == "relu":
        return np.where(a > 0, a_bits, a_bits.dtype.type(0)), np.isnan(a)  # -0, negatives and NaN give +0 bits
    b_bits, b = operands[1], values[1]
    maximum = operation == "max"
    # a scalar operand (shape (1,)) is compared as a numpy scalar: the same lanes, without broadcasting
    a_lanes, b_lanes = (a[0] if a.shape == (1,) else a), (b[0] if b.shape == (1,) else b)
    bits = np.where(a_lanes > b_lanes if maximum else a_lanes < b_lanes, a_bits, b_bits)
    if _any_both_zero(a, b):  # -0 < +0: the maximum is -0 only if both are, the minimum if either is
        both_zero = (a == 0) & (b == 0)
        bits = np.where(both_zero, (a_bits & b_bits) if maximum else (a_bits | b_bits), bits)
    return bits, _either_nan(a, b)


_FLOAT32, _HALF = np.dtype(np.float32), np.dtype(np.float16)


def _selected_halves(operation: str, fmt, operands: list[np.ndarray], saturate: bool) -> np.ndarray | None:
    """:func:`_selected`'s result bits for half operands with no NaN (and, under saturation, no infinity), or
    ``None``: then no lane meets the NaN and infinity rules, and numpy compares halves exactly as they are
    (no widening to float32, no NaN lanes to find: one reduction per operand says there is none).  numpy's half
    comparison costs some 2 ns a lane more than float32's, widening included: for :data:`_FEW_HALF_LANES`
    lanes or fewer, where the 3 µs it saves are more."""
    limit = fmt.overflow if saturate else fmt.overflow + 1  # a magnitude above infinity's is a NaN
    for bits in operands:
        if bits.shape == (1,):  # a scalar operand
            top = int(bits[0]) & _HALF_MAGNITUDE
        else:
            top = int(np.maximum.reduce(bits & np.uint16(_HALF_MAGNITUDE), axis=None)) if bits.size else 0
        if top >= limit:
            return None
    a_bits = operands[0]
    if operation == "abs":
        return a_bits & np.uint16(_HALF_MAGNITUDE)
    a = a_bits.view(_HALF)
    if operation == "relu":
        return np.where(a > 0, a_bits, np.uint16(0))  # -0 and the negatives give +0 bits
    b_bits = operands[1]
    b = b_bits.view(_HALF)
    a_lanes, b_lanes = (a[0] if a.shape == (1,) else a), (b[0] if b.shape == (1,) else b)
    maximum = operation == "max"
    bits = np.where(a_lanes > b_lanes if maximum else a_lanes < b_lanes, a_bits, b_bits)
    if _any_both_zero(a, b):  # -0 < +0 (module docstring), which numpy's comparison does not see
        both_zero = (a == 0) & (b == 0)
        bits = np.where(both_zero, (a_bits & b_bits) if maximum else (a_bits | b_bits), bits)
    return bits


def _plain_halves(operation: str, operands: list[np.ndarray]) -> np.ndarray | None:
    """The result bits of a half add, sub or mul by numpy's own half loop when no result is an infinity or a NaN,
    else ``None`` (the lanes then meet the NaN and saturation rules below).  numpy's half loop computes in float32
    and rounds once to nearest even half, as this module does after widening: a product of two halves is exact in
    float32, and a float32 sum rounded again to half is the correctly rounded sum (24 >= 2 * 11 + 2: the double
    rounding is innocuous, Figueroa 1995), so the bits are the same; an infinite or NaN operand always gives an
    infinite or NaN result, so one reduction over the results says whether any lane needs the rules.  For
    :data:`_FEW_HALF_LANES` lanes or fewer, where the two widenings and the narrowing it saves cost more than
    numpy's slower half loop."""
    with np.errstate(all="ignore"):  # the overflow flag of an infinite result, which is not taken
        bits = _HALF_LOOPS[operation](operands[0].view(_HALF), operands[1].view(_HALF)).view(np.uint16)
    if bits.size and int(np.maximum.reduce(bits & np.uint16(_HALF_MAGNITUDE), axis=None)) >= _HALF_INFINITY:
        return None
    return bits


_HALF_MAGNITUDE = 0x7FFF
_HALF_INFINITY = 0x7C00
_FEW_HALF_LANES = 1024  # 8 repeats of 128 halves
_HALF_LOOPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _any_both_zero(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether some lane of ``a`` and ``b`` (either may be a scalar operand, shape ``(1,)``) has both zero."""
    for x, y in ((a, b), (b, a)):
        if x.shape == (1,):
            return bool(x[0] == 0) and bool(np.logical_or.reduce(y == 0, axis=None))
    return bool(np.logical_or.reduce((a == 0) & (b == 0), axis=None))


def _either_nan(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.isnan(a) | np.isnan(b)``; a scalar operand (shape ``(1,)``) that is no NaN adds no lane."""
    for x, y in ((a, b), (b, a)):
        if x.shape == (1,) and not np.isnan(x[0]):
            return np.isnan(y)
    return np.isnan(a) | np.isnan(b)


@np.errstate(all="ignore")  # as a decorator numpy's errstate costs 0.6-1.5 µs a call less than a with block
def _quiet_lanes(operation: str, dtype: DType, values: list[np.ndarray], fused: bool) -> np.ndarray:
    """The lanes before the final rounding, with numpy's floating-point warnings off (the NaN and infinity rules
    are applied to the results)."""
    if operation in MULTIPLY_ADD:
        return _multiply_add(operation, dtype, values, fused)
    return _float_lanes(operation, values)


def _float_lanes(operation: str, values: list[np.ndarray]) -> np.ndarray:
    """The lanes' results before the final rounding: float32, or float64 for the accuracy model."""
    a = values[0]
    if operation in TRANSCENDENTAL:
        return TRANSCENDENTAL[operation](a.astype(np.float64))
    if operation == "neg":
        return -a
    if operation == "sqrt":
        return np.sqrt(a)
    b = values[1]
    if operation == "add":
        return a + b
    if operation == "sub":
        return a - b
    if operation == "mul":
        return a * b
    if operation == "div":
        return a / b
    if operation in ("leaky_relu", "prelu"):  # the slope is the scalar (leaky_relu) or src1's lane (prelu)
        return np.where(a >= 0, a, a * b)
    if operation == "abs_sub":
        return np.abs(a - b)
    if operation == "exp_sub":  # ExpSub(ISASI).md: e^(a - b), the difference in float (an accuracy model, as exp)
        return np.exp((a - b).astype(np.float64))
    if operation in ("add_relu", "sub_relu"):
        return _relu(a + b if operation == "add_relu" else a - b)
    raise ValueError(f"unknown vector operation {operation!r}")


def _multiply_add(operation: str, dtype: DType, values: list[np.ndarray], fused: bool) -> np.ndarray:
    """``x * y + z`` before the final rounding (module docstring), relu'd for fused_mul_add_relu."""
    x, y, z = (values[i] for i in MULTIPLY_ADD[operation])
    if fused:
        total = _round_to_odd_sum(x.astype(np.float64) * y, z.astype(np.float64))
    else:
        product = x * y  # exact for half and bfloat16, rounded for float
        if dtype.name != "float32":
            product = float_array_bits(product, dtype).view(dtype.np_dtype).astype(np.float32)
        total = product + z
    return _relu(total) if operation == "fused_mul_add_relu" else total


def _round_to_odd_sum(p: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``p + z`` in float64 rounded to odd (the exact sum's last bit made sticky), so that rounding it
    once more to a type of at most 51 significand bits is the correctly rounded exact sum.  ``p`` is
    exact (a product of two floats of at most 26 bits); the error term is Knuth's TwoSum."""
    total = p + z
    back = total - p
    error = (p - (total - back)) + (z - back)
    inexact = (error != 0) & np.isfinite(total) & ((total.view(np.int64) & 1) == 0)
    if inexact.any():
        total = np.where(inexact, np.nextafter(total, np.where(error > 0, np.inf, -np.inf)), total)
    return total


def _relu(x: np.ndarray) -> np.ndarray:
    """IEEE maximum(x, +0): ``np.maximum`` keeps a NaN, and adding +0 turns its -0 (for x = -0) into +0."""
    zero = x.dtype.type(0.0)
    return np.maximum(x, zero) + zero
