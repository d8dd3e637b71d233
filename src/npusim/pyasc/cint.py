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
"""

from __future__ import annotations

import operator

import numpy as np

from ..errors import ParameterRangeError
from ..sources import semantics

__all__ = ["CInt32", "c_int32"]

SOURCE = semantics("10.9")
_SPAN = 1 << 32
_HALF = 1 << 31


def _wrap(value: int) -> CInt32:
    return CInt32((value + _HALF) % _SPAN - _HALF)


def _operand(symbol: str, value) -> int:
    """The other operand converted to int32 as pyasc converts it (``int()``, then wrapped)."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return (int(value) + _HALF) % _SPAN - _HALF
    raise TypeError(f"int32 {symbol}: the other operand must be a number, got {type(value).__name__}")


def _divide(symbol: str, dividend: int, divisor: int) -> tuple[int, int]:
    """C's truncating quotient and remainder."""
    if divisor == 0:
        raise ParameterRangeError(f"int32 {symbol}", "divisor", 0, "division by zero is undefined on the device",
                                  "a non-zero divisor", SOURCE)
    quotient = abs(dividend) // abs(divisor)
    if (dividend < 0) != (divisor < 0):
        quotient = -quotient
    return quotient, dividend - quotient * divisor


def _shift(symbol: str, amount: int) -> int:
    if not 0 <= amount <= 31:
        raise ParameterRangeError(f"int32 {symbol}", "shift amount", amount,
                                  "a shift of an int32 by a negative amount or by 32 or more is undefined",
                                  "[0, 31]", SOURCE)
    return amount


_OPERATIONS = {
    "add": ("+", operator.add),
    "sub": ("-", operator.sub),
    "mul": ("*", operator.mul),
    "floordiv": ("//", lambda a, b: _divide("//", a, b)[0]),
    "truediv": ("/", lambda a, b: _divide("/", a, b)[0]),
    "mod": ("%", lambda a, b: _divide("%", a, b)[1]),
    "lshift": ("<<", lambda a, b: a << _shift("<<", b)),
    "rshift": (">>", lambda a, b: a >> _shift(">>", b)),
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


def _binary(name: str, symbol: str, function):
    def forward(self, other):
        return _wrap(function(int(self), _operand(symbol, other)))

    def reflected(self, other):
        return _wrap(function(_operand(symbol, other), int(self)))

    forward.__name__, reflected.__name__ = f"__{name}__", f"__r{name}__"
    return forward, reflected


for _name, (_symbol, _function) in _OPERATIONS.items():
    _forward, _reflected = _binary(_name, _symbol, _function)
    setattr(CInt32, f"__{_name}__", _forward)
    setattr(CInt32, f"__r{_name}__", _reflected)


def c_int32(value) -> CInt32:
    """``value`` (an integer in int32's range) as a runtime int32 value."""
    return CInt32(value)
