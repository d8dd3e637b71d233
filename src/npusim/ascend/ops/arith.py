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
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...rounding import float_array_bits, float_format

__all__ = ["OPERATIONS", "compute"]

OPERATIONS = frozenset({"add", "sub", "mul", "max", "min", "abs"})


def compute(operation: str, dtype: DType, operands: list[np.ndarray], saturate: bool = False) -> np.ndarray:
    """``operation`` applied lane by lane to raw operand arrays (a scalar operand has shape ``(1,)``).

    Returns:
        The raw bits of the results, dtype ``dtype.raw``.
    """
    if dtype.is_float:
        return _float(operation, dtype, operands, saturate)
    return _integer(operation, dtype, operands)


def _integer(operation: str, dtype: DType, operands: list[np.ndarray]) -> np.ndarray:
    raw = dtype.raw
    a = operands[0].astype(raw, copy=False)
    with np.errstate(over="ignore"):
        if operation == "abs":
            signed = a.view(dtype.np_dtype)
            if dtype.kind == "uint":
                return a.copy()
            return np.where(signed < 0, (np.zeros_like(a) - a), a).astype(raw, copy=False)
        b = operands[1].astype(raw, copy=False)
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


def _float(operation: str, dtype: DType, operands: list[np.ndarray], saturate: bool) -> np.ndarray:
    fmt = float_format(dtype)
    values = [op.view(dtype.np_dtype).astype(np.float32) for op in operands]
    a = values[0]
    with np.errstate(all="ignore"):
        if operation == "abs":
            wide = np.abs(a)
        else:
            b = values[1]
            if operation == "add":
                wide = a + b
            elif operation == "sub":
                wide = a - b
            elif operation == "mul":
                wide = a * b
            elif operation in ("max", "min"):
                wide = _ieee_extremum(a, b, operation == "max")
            else:
                raise ValueError(f"unknown vector operation {operation!r}")
        nan = np.isnan(wide)
    bits = wide.view(dtype.raw) if dtype.name == "float32" else float_array_bits(wide, dtype)  # rounds once
    raw = dtype.raw.type
    if saturate:
        sign = bits & raw(fmt.sign_bit)
        inf = (bits ^ sign) == raw(fmt.overflow)  # includes finite float32 results that overflow T
        bits = np.where(inf, sign | raw(fmt.max_finite), bits)
        return np.where(nan, raw(0), bits).astype(dtype.raw, copy=False)
    return np.where(nan, raw(fmt.quiet_nan), bits).astype(dtype.raw, copy=False)


def _ieee_extremum(a: np.ndarray, b: np.ndarray, maximum: bool) -> np.ndarray:
    """IEEE 754-2019 maximum/minimum: NaN if either is NaN, and -0 < +0."""
    pick_a = a > b if maximum else a < b
    result = np.where(pick_a, a, b)
    both_zero = (a == 0) & (b == 0)
    if maximum:
        zero = np.where(np.signbit(a) & np.signbit(b), np.float32(-0.0), np.float32(0.0))
    else:
        zero = np.where(np.signbit(a) | np.signbit(b), np.float32(-0.0), np.float32(0.0))
    result = np.where(both_zero, zero, result)
    return np.where(np.isnan(a) | np.isnan(b), np.float32(np.nan), result)
