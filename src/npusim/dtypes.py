"""Element types shared by every vendor: one table, one row per type.

Each :class:`DType` knows its numpy storage type (``ml_dtypes`` for bfloat16 and
the fp8 formats), its width, its kind and the unsigned integer type of the same
width, which is how npusim moves and compares raw bits.  Vendor modules map
their own type names onto these rows (``npusim.ascend`` exposes them under the
pyasc names, ``npusim.sophgo.types`` under ``DT_*`` codes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import ml_dtypes
import numpy as np

from .lazy import cached_attribute

__all__ = ["DType", "DTYPES", "as_little_endian", "by_name", "from_numpy", "is_little_endian", "uint_of_bits"]

Kind = Literal["int", "uint", "float"]


@dataclass(frozen=True)
class DType:
    """One element type.

    Attributes:
        name: canonical name (numpy spelling: ``"float16"``, ``"bfloat16"``).
        np_dtype: numpy storage dtype, little-endian.
        bits: width in bits.
        kind: ``"int"`` (two's complement), ``"uint"`` or ``"float"``.
    """

    name: str
    np_dtype: np.dtype
    bits: int
    kind: Kind

    @cached_attribute
    def itemsize(self) -> int:
        """Width in bytes."""
        return self.bits // 8

    @cached_attribute
    def raw(self) -> np.dtype:
        """The unsigned integer dtype of the same width, used to move bits unchanged."""
        return uint_of_bits(self.bits)

    @cached_attribute
    def is_float(self) -> bool:
        return self.kind == "float"

    def sizeof(self) -> int:
        """Width in bytes (pyasc spelling: ``dtype.sizeof()``)."""
        return self.itemsize

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


def uint_of_bits(bits: int) -> np.dtype:
    """The unsigned integer numpy dtype with ``bits`` bits (8, 16, 32 or 64)."""
    return np.dtype(f"<u{bits // 8}")


def _row(name: str, np_dtype, kind: Kind) -> DType:
    dt = np.dtype(np_dtype).newbyteorder("<") if np.dtype(np_dtype).itemsize > 1 else np.dtype(np_dtype)
    return DType(name, dt, dt.itemsize * 8, kind)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        _row("int8", np.int8, "int"),
        _row("uint8", np.uint8, "uint"),
        _row("int16", np.int16, "int"),
        _row("uint16", np.uint16, "uint"),
        _row("int32", np.int32, "int"),
        _row("uint32", np.uint32, "uint"),
        _row("int64", np.int64, "int"),
        _row("uint64", np.uint64, "uint"),
        _row("float16", np.float16, "float"),
        _row("bfloat16", ml_dtypes.bfloat16, "float"),
        _row("float32", np.float32, "float"),
        _row("float64", np.float64, "float"),
        _row("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "float"),
        _row("float8_e5m2", ml_dtypes.float8_e5m2, "float"),
    )
}

_BY_NUMPY = {d.np_dtype: d for d in DTYPES.values()}


def by_name(name: str) -> DType:
    """Look a type up by canonical name; raises ``KeyError`` naming the known names."""
    try:
        return DTYPES[name]
    except KeyError:
        raise KeyError(f"unknown dtype {name!r}; known: {', '.join(DTYPES)}") from None


def is_little_endian(np_dtype: np.dtype) -> bool:
    """Elements of ``np_dtype`` are stored least significant byte first (the NPUs' order), or are one byte."""
    return np_dtype == np_dtype.newbyteorder("<")


def as_little_endian(array: np.ndarray) -> np.ndarray:
    """``array`` itself if its elements are little-endian, else a copy that is (the same values, bit for bit).

    npusim's memories hold elements little-endian, as the NPUs do; a big-endian array from
    the caller holds the same values in the other byte order and is converted, never
    reinterpreted.  A cast that only changes the byte order swaps bytes: NaN payloads survive.
    """
    if is_little_endian(array.dtype):
        return array
    return array.astype(array.dtype.newbyteorder("<"))


def from_numpy(np_dtype) -> DType | None:
    """The row whose storage type is ``np_dtype`` (None if there is none), in either byte order.

    The row says what the elements are; an array of the other byte order must still be
    converted before its bytes are used (:func:`as_little_endian`).
    """
    try:
        dt = np.dtype(np_dtype)
    except TypeError:
        return None
    if dt.itemsize > 1:
        dt = dt.newbyteorder("<")
    return _BY_NUMPY.get(dt)
