"""Checks of scalar parameters, shared by every vendor.

Each check either returns the value as a plain Python object or raises:
``TypeError`` (naming the parameter) for a value of the wrong Python type, and
:class:`~npusim.errors.ParameterRangeError` for a value outside its range.
numpy integer scalars are accepted wherever an ``int`` is; ``bool`` is not an
integer here (passing ``True`` as a repeat count is almost always a bug).
"""

from __future__ import annotations

import numbers

import numpy as np

from .errors import AlignmentError, ParameterRangeError

__all__ = ["align_up", "div_up", "is_integer", "require_aligned", "require_bool", "require_int", "require_uint"]


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
