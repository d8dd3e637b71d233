"""Checks of scalar parameters, shared by every vendor.

Each check either returns the value as a plain Python object or raises:
``TypeError`` (naming the parameter) for a value of the wrong Python type, and
:class:`~npusim.errors.ParameterRangeError` for a value outside its range.
numpy integer scalars are accepted wherever an ``int`` is; ``bool`` is not an
integer here (passing ``True`` as a repeat count is almost always a bug).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

import numpy as np

from .dtypes import DType, as_little_endian, from_numpy
from .errors import AlignmentError, ParameterRangeError
from .rounding import float_array_bits

__all__ = [
    "align_up", "describe_type", "div_up", "is_integer", "is_list_like", "require_aligned",
    "require_bool", "require_bytes", "require_int", "require_uint", "to_elements", "to_float_elements",
]


def is_list_like(value) -> bool:
    """A list, tuple or other sequence, or a 1-D array; not a string, and not a 0-d or N-d array."""
    if isinstance(value, np.ndarray):
        return value.ndim == 1
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def describe_type(value) -> str:
    """How a TypeError message names what it got: the type, and an array's dimensions."""
    return f"a {value.ndim}-d array" if isinstance(value, np.ndarray) else type(value).__name__


def is_integer(value) -> bool:
    """A Python or numpy integer, not a bool (fast path before the ``numbers`` ABC)."""
    if type(value) is int:
        return True
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, (int, np.integer, numbers.Integral))


def div_up(value: int, divisor: int) -> int:
    """Ceiling division for non-negative integers."""
    return -(-value // divisor)


def align_up(value: int, alignment: int) -> int:
    """The smallest multiple of ``alignment`` that is >= ``value``."""
    return div_up(value, alignment) * alignment


def require_int(
    instruction: str,
    name: str,
    value,
    low: int,
    high: int,
    source: str | None = None,
    rule: str | None = None,
) -> int:
    """``value`` as an ``int`` in ``[low, high]``."""
    if not is_integer(value):
        raise TypeError(f"{instruction}: {name} must be an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if not low <= value <= high:
        raise ParameterRangeError(
            instruction, name, value, rule or "out of range", f"[{low}, {high}]", source
        )
    return value


def require_uint(instruction: str, name: str, value, bits: int, source: str | None = None) -> int:
    """``value`` as an unsigned integer of ``bits`` bits (a C ``uintN_t`` field)."""
    return require_int(
        instruction, name, value, 0, (1 << bits) - 1, source, rule=f"does not fit uint{bits}_t"
    )


def require_bool(instruction: str, name: str, value) -> bool:
    """``value`` as a ``bool`` (Python or numpy bool, or the integers 0/1)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)) and int(value) in (0, 1):
        return bool(value)
    raise TypeError(f"{instruction}: {name} must be a bool, got {type(value).__name__} {value!r}")


def require_aligned(
    instruction: str, operand: str, addr: int, alignment: int, memory_name: str, source: str | None = None
) -> None:
    """Raise :class:`AlignmentError` unless ``addr`` is a multiple of ``alignment``."""
    if addr % alignment:
        raise AlignmentError(
            instruction,
            f"{operand} address",
            addr,
            f"{memory_name} operands must be {alignment}-byte aligned",
            f"multiples of {alignment}",
            source,
        )


def to_elements(instruction: str, name: str, values, np_dtype: np.dtype, source: str | None = None) -> np.ndarray:
    """Host data converted to ``np_dtype`` as a flat array, without silent garbage.

    A float target gets every value rounded once, from its exact value, to nearest even
    (:func:`to_float_elements`).  Integer targets need integral values within range.
    Non-numeric input is a ``TypeError``; an integer out of range is a
    :class:`ParameterRangeError` citing ``source``.
    """
    try:
        array = np.asarray(values)
    except (ValueError, TypeError) as err:
        raise TypeError(f"{instruction}: {name} must be numbers or an array of numbers ({err})") from None
    array = array.reshape(-1)
    target = np.dtype(np_dtype)
    element = from_numpy(target)
    if element is not None and element.is_float:
        return to_float_elements(instruction, name, array, element)
    if element is not None and element.is_complex:
        return to_complex_elements(instruction, name, array, element)
    if array.dtype.kind not in "biuf" and array.dtype != target:
        raise TypeError(f"{instruction}: {name} must be numeric, got an array of {array.dtype}")
    integral = target.kind in "iu"
    if integral and array.dtype.kind == "f" and not (np.all(np.isfinite(array)) and np.all(array == np.round(array))):
        raise ParameterRangeError(instruction, name, "non-integral values", f"{target} data needs integers",
                                  f"integers in [{np.iinfo(target).min}, {np.iinfo(target).max}]", source)
    if target.kind in "iu" and array.size and array.dtype.kind in "iuf":
        info = np.iinfo(target)
        low, high = array.min(), array.max()
        if low < info.min or high > info.max:
            bad = int(low) if low < info.min else int(high)
            raise ParameterRangeError(instruction, name, bad, f"does not fit {target}", f"[{info.min}, {info.max}]",
                                      source)
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(target)


def to_float_elements(instruction: str, name: str, array: np.ndarray, dtype: DType) -> np.ndarray:
    """A numeric array as elements of the float type ``dtype``, same shape (:mod:`npusim.rounding`).

    Accepted: bool, integer and float arrays of any type npusim knows (bfloat16 and fp8 included),
    and object arrays of Python numbers (integers too large for int64, Fractions).  Every value is
    rounded once from its exact value; a ``TypeError`` names anything else.
    """
    source = from_numpy(array.dtype)
    if array.dtype.kind not in "biuO" and not (source is not None and source.is_float):
        raise TypeError(f"{instruction}: {name} must be numeric, got an array of {array.dtype}")
    try:
        return float_array_bits(array, dtype).view(dtype.np_dtype)
    except TypeError as err:  # an object array holding something that is not a real number
        raise TypeError(f"{instruction}: {name} must be numbers ({err})") from None


def to_complex_elements(instruction: str, name: str, array: np.ndarray, dtype: DType) -> np.ndarray:
    """A numeric array as elements of the complex type ``dtype`` (docs/semantics.md §5.29), same shape: the
    real and the imaginary part each rounded once to the component type, as :func:`to_float_elements`
    (a real number has imaginary part +0).  Also accepted: an array of ``dtype`` itself (``complex32``'s
    structured type), taken unchanged."""
    if array.dtype == dtype.np_dtype:
        return array
    if array.dtype.names == ("real", "imag"):
        real, imag = array["real"], array["imag"]
    elif array.dtype.kind == "c":
        real, imag = array.real, array.imag
    elif array.dtype.kind == "O":
        try:
            values = [complex(v) if isinstance(v, complex) else v for v in array.reshape(-1)]
        except TypeError as err:
            raise TypeError(f"{instruction}: {name} must be numbers ({err})") from None
        real = np.array([v.real if isinstance(v, complex) else v for v in values], dtype=object)
        imag = np.array([v.imag if isinstance(v, complex) else 0 for v in values], dtype=object)
    else:
        real, imag = array, np.zeros(array.shape, np.float32)
    component = dtype.component
    parts = [to_float_elements(instruction, name, np.ascontiguousarray(part), component).view(component.raw)
             for part in (real, imag)]
    raw = parts[0].astype(dtype.raw) | (parts[1].astype(dtype.raw) << dtype.raw.type(component.bits))
    return raw.view(dtype.np_dtype)


def require_bytes(instruction: str, name: str, payload) -> bytes:
    """A bytes-like payload (``bytes``, ``bytearray``, ``memoryview`` or a numpy array's raw bytes).

    An array contributes its elements in C order, each little-endian as the NPUs store it: a
    big-endian array is converted, not reinterpreted (:func:`npusim.dtypes.as_little_endian`).
    """
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    if isinstance(payload, np.ndarray):
        return np.ascontiguousarray(as_little_endian(payload)).tobytes()
    raise TypeError(f"{instruction}: {name} must be bytes-like, got {type(payload).__name__}")
