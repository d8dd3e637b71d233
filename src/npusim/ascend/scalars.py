"""Scalars as Ascend instructions and GM accesses take them: a number converted to an element type's bits.

Neutral ground for both the instructions (``ops``) and the runtime (``runtime.gm``'s
``GlobalTensor.set_value``), so that neither imports the other for it.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..dtypes import CodedDType, DType
from ..errors import ParameterRangeError
from ..rounding import float_bits
from ..sources import semantics
from .coded_values import is_its_double

__all__ = ["SCALAR_SOURCE", "is_scalar", "require_scalar", "scalar_bits"]

SCALAR_SOURCE = semantics("1.10")


def is_scalar(value) -> bool:
    """A Python or numpy number, real or complex (not a bool, not a tensor).  A complex number is the
    scalar of a complex element type only (:func:`scalar_bits` rejects it for any other)."""
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (numbers.Complex, np.integer, np.floating, np.complexfloating))


def require_scalar(instruction: str, name: str, value, also: str = ""):
    """``value`` unchanged if :func:`is_scalar`, else the TypeError every scalar parameter gives
    (``also``: what else the parameter may be, as "or a LocalTensor")."""
    if not is_scalar(value):
        raise TypeError(f"{instruction}: {name} must be a number{also}, got {type(value).__name__}")
    return value


def scalar_bits(instruction: str, name: str, value, dtype: DType) -> np.ndarray:
    """``value`` converted to ``dtype``, as a one-element array of its raw bits.

    A float type gets the exact value rounded once, to nearest even (:mod:`npusim.rounding`:
    an ``int`` is not first made a double; overflow gives infinity; a NaN the quiet NaN).
    Integers must be representable in ``dtype``.
    """
    if not is_scalar(value):
        raise TypeError(f"{instruction}: {name} must be a number, got {type(value).__name__} {value!r}")
    if dtype.is_complex:
        return _complex_bits(value, dtype)
    if isinstance(value, (complex, np.complexfloating)):
        raise TypeError(f"{instruction}: {name} of a {dtype} operand must be a real number, got {value!r}")
    if isinstance(dtype, CodedDType):
        return _coded_bits(instruction, name, value, dtype)
    if dtype.is_float:
        return np.array([float_bits(value, dtype)], dtype=dtype.raw)
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        raise ParameterRangeError(instruction, name, value, f"{dtype} data needs an integral scalar",
                                  f"integers representable in {dtype}", SCALAR_SOURCE)
    info = np.iinfo(dtype.np_dtype)
    as_int = int(value)
    if not info.min <= as_int <= info.max:
        raise ParameterRangeError(instruction, name, as_int, f"does not fit {dtype}", f"[{info.min}, {info.max}]",
                                  SCALAR_SOURCE)
    return np.array([as_int], dtype=dtype.np_dtype).view(dtype.raw)


def _coded_bits(instruction: str, name: str, value, dtype: CodedDType) -> np.ndarray:
    """A hifloat8 scalar's code: the scalar is a ``hifloat8_t`` value (Duplicate.md: scalarValue has dst's element
    type), so a number the type holds exactly (NaN and ±infinity included; ±0 is 0x00; a Fraction is
    compared exactly, not as its nearest double); any other is rejected, as ``LocalTensor.write`` rejects it
    (docs/semantics.md §5.32: rounding to the type is ``cast``'s)."""
    try:
        as_float = float(value)
    except OverflowError:  # an int beyond a double: no hifloat8_t value either
        as_float = None
    # the nearest double must be the number itself (a Fraction need not be; NaN is NaN)
    exact = as_float is not None and is_its_double(value, as_float)
    if not exact or not bool(dtype.holds(np.array([as_float]))[0]):
        raise ParameterRangeError(instruction, name, value, f"a {dtype} scalar is a {dtype} value; {dtype} holds no "
                                  "such number (cast() rounds to it with a RoundMode)",
                                  dtype.values_text, f"{SCALAR_SOURCE}; {dtype.section}")
    return dtype.encode(np.array([as_float])).view(dtype.raw)


def _complex_bits(value, dtype: DType) -> np.ndarray:
    """A complex scalar's raw bits: the real and the imaginary part each rounded once to the component type
    (a real number has imaginary part +0; docs/semantics.md §5.29)."""
    component = dtype.component
    real, imag = (value.real, value.imag) if isinstance(value, (complex, np.complexfloating)) else (value, 0)
    bits = float_bits(real, component) | (float_bits(imag, component) << component.bits)
    return np.array([bits], dtype=dtype.raw)
