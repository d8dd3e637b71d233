"""pyasc's small kernel-language helpers: ``asc.property``, ``asc.array``, ``static_assert``, ``pipe_barrier``.

* ``asc.property(asc.TOTAL_L1_SIZE)`` is an Ascend C constant of the running product, as the
  runtime value pyasc makes of it (int32; ``ONE_BLK_SIZE`` int16).  The values are dav-c220's
  (``impl/basic_api/utils/kernel_utils_constants.h`` of asc-devkit: the L1 size less the 128
  bytes the KFC reserves), the architecture of every SoC pyasc lists; another product is an
  UnsupportedError.
* ``asc.array(dtype, length, fill_value=None)`` / ``asc.array(dtype, values)``: a small array
  of scalars on the kernel's stack (``memref.alloca`` in pyasc), e.g. a shape for ``ShapeInfo``.
* ``asc.static_assert(test, message=None)``: a compile-time check (pyasc: ``test`` must be a bool).
* ``asc.pipe_barrier(pipe)`` with a :class:`PipeID` or its number.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable

import numpy as np

from .. import ascend
from ..ascend.core import current_core
from ..dtypes import DType
from ..errors import ParameterRangeError, UnsupportedError
from ..sources import semantics
from ..validate import is_integer, require_int, to_elements

__all__ = ["DEFAULT_C0_SIZE", "ONE_BLK_SIZE", "TOTAL_L0C_SIZE", "TOTAL_L1_SIZE", "LocalArray", "Property", "array",
           "pipe_barrier", "property", "static_assert"]

SOURCE = semantics("10.8")  # the constants: asc-devkit impl/basic_api/utils/kernel_utils_constants.h (dav-c220)
DAV_C220 = 2201  # __NPU_ARCH__ of Atlas A2 / A3 vector cores


class Property:
    """One Ascend C constant pyasc reads with ``asc.property`` (``asc.TOTAL_L1_SIZE`` ...)."""

    def __init__(self, name: str, dtype: type, dav_c220: int) -> None:
        self.name, self.dtype, self.dav_c220 = name, dtype, dav_c220

    def __repr__(self) -> str:
        return f"asc.{self.name}"


DEFAULT_C0_SIZE = Property("DEFAULT_C0_SIZE", np.int32, 32)
ONE_BLK_SIZE = Property("ONE_BLK_SIZE", np.int16, 32)
TOTAL_L1_SIZE = Property("TOTAL_L1_SIZE", np.int32, 512 * 1024 - 128)
TOTAL_L0C_SIZE = Property("TOTAL_L0C_SIZE", np.int32, 128 * 1024)


def property(prop: Property):  # noqa: A001 - pyasc's name
    """The value of ``prop`` on the running core's product."""
    if not isinstance(prop, Property):
        raise TypeError(f"asc.property: prop must be one of asc.DEFAULT_C0_SIZE, asc.ONE_BLK_SIZE, "
                        f"asc.TOTAL_L1_SIZE, asc.TOTAL_L0C_SIZE, got {prop!r}")
    chip = current_core("asc.property").chip
    if chip.npu_arch != DAV_C220:
        raise UnsupportedError("asc.property", "product", chip.product,
                               f"npusim knows {prop.name} for dav-c220 (Atlas A2/A3) only", "A2, A3",
                               SOURCE)
    return prop.dtype(prop.dav_c220)


class LocalArray:
    """``asc.array``: a fixed number of ``dtype`` scalars, indexable and assignable."""

    def __init__(self, dtype: DType, values: np.ndarray) -> None:
        self.dtype, self._values = dtype, values

    def __len__(self) -> int:
        return len(self._values)

    def _index(self, index) -> int:
        return require_int("asc.array[]", "index", index, 0, len(self._values) - 1, SOURCE)

    def __getitem__(self, index):
        return self._values[self._index(index)]

    def __setitem__(self, index, value) -> None:
        item = to_elements("asc.array[]", "value", value, self.dtype.np_dtype, SOURCE)
        if item.size != 1:
            raise TypeError(f"asc.array[]: value must be one number, got {item.size} values")
        self._values[self._index(index)] = item.reshape(())

    def __iter__(self):
        return iter(self._values.tolist())

    def __repr__(self) -> str:
        return f"asc.array({self.dtype}, {self._values.tolist()})"


def array(dtype: DType, length_or_values, fill_value=None) -> LocalArray:
    """``array(dtype, length, fill_value=None)`` or ``array(dtype, values)``."""
    if not isinstance(dtype, DType):
        raise TypeError(f"asc.array: dtype must be an npusim dtype such as asc.int32, got {dtype!r}")
    if is_integer(length_or_values):
        length = require_int("asc.array", "length", length_or_values, 1, 1 << 16, SOURCE)
        values = np.zeros(length, dtype.np_dtype)
        if fill_value is not None:
            values[:] = to_elements("asc.array", "fill_value", fill_value, dtype.np_dtype, SOURCE)
        return LocalArray(dtype, values)
    if fill_value is not None:
        raise TypeError("asc.array: fill_value goes with a length, not with a list of values")
    if not isinstance(length_or_values, Iterable):
        raise TypeError(f"asc.array: give a length or the values, got {length_or_values!r}")
    items = list(length_or_values)
    if not items:
        raise ParameterRangeError("asc.array", "values", "[]", "an array has at least one element",
                                  "one or more values", SOURCE)
    return LocalArray(dtype, np.array(to_elements("asc.array", "values", items, dtype.np_dtype, SOURCE)))


def static_assert(test, message: str | None = None) -> None:
    """Raise AssertionError(message) when ``test`` is False; ``test`` must be a bool, as pyasc requires."""
    if not isinstance(test, (bool, np.bool_)):
        raise TypeError(f"asc.static_assert: test must be a bool known before the kernel runs, got {test!r}")
    if not test:
        raise AssertionError(message if message is not None else "asc.static_assert failed")


def pipe_barrier(pipe) -> None:
    """``asc.pipe_barrier`` taking a :class:`PipeID` or its number (``pipe_barrier(1)`` is PIPE_V)."""
    if is_integer(pipe) and not isinstance(pipe, ascend.PipeID):
        number = require_int("pipe_barrier", "pipe", pipe, builtins.min(ascend.PipeID), builtins.max(ascend.PipeID),
                             SOURCE)
        pipe = ascend.PipeID(number)
    ascend.pipe_barrier(pipe)
