"""Runtime int32 values of a pyasc kernel, with the C arithmetic the device does.

In pyasc a kernel's int arguments, ``get_block_idx()``, ``get_block_num()`` and the induction
variable of a ``range`` loop are runtime values, compiled to ``int32_t`` arithmetic
(``python/asc/language/core/ir_value.py``, docs/semantics.md §10.9):

* ``+ - *`` and unary ``-`` wrap around (two's complement);
* ``//`` and ``/`` truncate toward zero (``divsi``), ``%`` takes the dividend's sign (``remsi``);
* ``<<`` and ``>>`` (arithmetic) shift by 0 to 31;
* the other operand becomes int32 first: a Python float is truncated by ``int()``, as pyasc
  does (``n * 0.5`` is ``n * 0``).

Python ints (ConstExprs, literals) keep Python's arithmetic; an operation with a :class:`CInt32`
on either side gives a CInt32.  Division by zero, undefined on the device, is an error.

:class:`CInt64` is the same for ``int64_t`` (the scalar APIs' results, docs/semantics.md §5.35): shifts by 0 to
63.  A mixed operation has its left operand's type, as pyasc's ``apply_binary_op`` does (``infer_common_type``
takes the left runtime value's dtype and casts the other to it): ``CInt32 op CInt64`` is a CInt32 of the int64's
low 32 bits, ``CInt64 op CInt32`` a CInt64 (not C's usual conversion to the wider type).
"""

from __future__ import annotations

import operator

import numpy as np

from ..errors import ParameterRangeError
from ..sources import semantics

__all__ = ["CInt32", "CInt64", "c_int32"]

SOURCE = semantics("10.9")
_SPAN = 1 << 32
_HALF = 1 << 31


def _wrap(value: int, bits: int = 32):
    span, half = 1 << bits, 1 << (bits - 1)
    return (CInt32 if bits == 32 else CInt64)((value + half) % span - half)


def _operand(symbol: str, value, bits: int = 32) -> int:
    """The other operand converted to the type as pyasc converts it (``int()``, then wrapped)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (float, np.floating)) and not np.isfinite(value):
        raise ParameterRangeError(f"int{bits} {symbol}", "other operand", float(value), "a NaN or an infinity has "
                                  "no integer to convert to", "a finite number", SOURCE)
    if isinstance(value, (int, float, np.integer, np.floating)):
        span, half = 1 << bits, 1 << (bits - 1)
        return (int(value) + half) % span - half
    raise TypeError(f"int{bits} {symbol}: the other operand must be a number, got {type(value).__name__}")


def _divide(symbol: str, dividend: int, divisor: int, bits: int = 32) -> tuple[int, int]:
    """C's truncating quotient and remainder."""
    if divisor == 0:
        raise ParameterRangeError(f"int{bits} {symbol}", "divisor", 0, "division by zero is undefined on the device",
                                  "a non-zero divisor", SOURCE)
    quotient = abs(dividend) // abs(divisor)
    if (dividend < 0) != (divisor < 0):
        quotient = -quotient
    return quotient, dividend - quotient * divisor


def _shift(symbol: str, amount: int, bits: int = 32) -> int:
    if not 0 <= amount < bits:
        raise ParameterRangeError(f"int{bits} {symbol}", "shift amount", amount,
                                  f"a shift of an int{bits} by a negative amount or by {bits} or more is undefined",
                                  f"[0, {bits - 1}]", SOURCE)
    return amount


_OPERATIONS = {
    "add": ("+", operator.add),
    "sub": ("-", operator.sub),
    "mul": ("*", operator.mul),
    "floordiv": ("//", lambda a, b, bits=32: _divide("//", a, b, bits)[0]),
    "truediv": ("/", lambda a, b, bits=32: _divide("/", a, b, bits)[0]),
    "mod": ("%", lambda a, b, bits=32: _divide("%", a, b, bits)[1]),
    "lshift": ("<<", lambda a, b, bits=32: a << _shift("<<", b, bits)),
    "rshift": (">>", lambda a, b, bits=32: a >> _shift(">>", b, bits)),
    "and": ("&", operator.and_),
    "or": ("|", operator.or_),
    "xor": ("^", operator.xor),
}


class CInt32(np.int32):
    """An int32 runtime value of a pyasc kernel (a numpy int32 with C's arithmetic)."""

    def __neg__(self) -> CInt32:
        return _wrap(-int(self))

    def __pos__(self) -> CInt32:
        return self

    def __abs__(self) -> CInt32:
        return _wrap(abs(int(self)))


class CInt64(np.int64):
    """An int64 runtime value of a pyasc kernel (a numpy int64 with C's arithmetic)."""

    def __neg__(self) -> CInt64:
        return _wrap(-int(self), 64)

    def __pos__(self) -> CInt64:
        return self

    def __abs__(self) -> CInt64:
        return _wrap(abs(int(self)), 64)


def _binary(name: str, symbol: str, function, bits: int):
    sized = name in ("lshift", "rshift", "floordiv", "truediv", "mod")

    def apply(a: int, b: int) -> int:
        return function(a, b, bits) if sized else function(a, b)

    def forward(self, other):  # the left operand's type, the other converted to it (a CInt64 truncated too)
        return _wrap(apply(int(self), _operand(symbol, other, bits)), bits)

    def reflected(self, other):
        return _wrap(apply(_operand(symbol, other, bits), int(self)), bits)

    forward.__name__, reflected.__name__ = f"__{name}__", f"__r{name}__"
    return forward, reflected


for _type, _bits in ((CInt32, 32), (CInt64, 64)):
    for _name, (_symbol, _function) in _OPERATIONS.items():
        _forward, _reflected = _binary(_name, _symbol, _function, _bits)
        setattr(_type, f"__{_name}__", _forward)
        setattr(_type, f"__r{_name}__", _reflected)


def c_int32(value) -> CInt32:
    """``value`` (an integer in int32's range) as a runtime int32 value."""
    return CInt32(value)
