"""Element types shared by every vendor: one table, one row per type.

Each :class:`DType` knows its numpy storage type (``ml_dtypes`` for bfloat16 and
the fp8 formats), its width, its kind and the unsigned integer type of the same
width, which is how npusim moves and compares raw bits.  ``ml_dtypes`` is imported
when a bfloat16 or fp8 storage type is first needed (it takes longer to import than
all of npusim), never by ``import npusim``.  Vendor modules map
their own type names onto these rows (``npusim.ascend`` exposes them under the
pyasc names, ``npusim.sophgo.types`` under ``DT_*`` codes).
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .errors import UnsupportedError
from .lazy import cached_attribute
from .sources import semantics

__all__ = ["CodedDType", "ComplexDType", "DType", "DTYPES", "E8M0DType", "PackedDType", "PackedFloatDType",
           "Predicate", "as_little_endian", "by_name", "from_numpy", "is_little_endian", "uint_of_bits"]

Kind = Literal["int", "uint", "float", "complex"]


class Predicate(int):
    """A yes/no property of a dtype, usable as a value and, as pyasc spells it, as a call.

    ``bool(asc.half.is_float)`` and ``asc.half.is_float()`` are both True.
    """

    def __new__(cls, value: bool) -> Predicate:
        return super().__new__(cls, bool(value))

    def __call__(self) -> bool:
        return bool(self)

    def __repr__(self) -> str:
        return repr(bool(self))


@dataclass(frozen=True)
class DType:
    """One element type.

    Attributes:
        name: canonical name (numpy spelling: ``"float16"``, ``"bfloat16"``).
        bits: width in bits.
        kind: ``"int"`` (two's complement), ``"uint"``, ``"float"`` or ``"complex"`` (a
            :class:`ComplexDType`: two floats).
        storage: how to find the numpy storage type: a numpy type code (``"<f2"``), or
            ``"ml_dtypes.<name>"``, or ``"packed"`` (a :class:`PackedDType`: none), or ``"hifloat8"`` /
            ``"fp8_e8m0"`` (a :class:`CodedDType`: its ``uint8`` codes).
        np_dtype: numpy storage dtype, little-endian (made on first use).
    """

    name: str
    bits: int
    kind: Kind
    storage: str

    @cached_attribute
    def np_dtype(self) -> np.dtype:
        """The numpy storage dtype, little-endian."""
        if self.storage.startswith("ml_dtypes."):
            import ml_dtypes  # only now: its import costs more than all of npusim's

            return np.dtype(getattr(ml_dtypes, self.storage.removeprefix("ml_dtypes.")))
        return np.dtype(self.storage)

    @cached_attribute
    def itemsize(self) -> int:
        """Width in bytes."""
        return self.bits // 8

    @cached_attribute
    def raw(self) -> np.dtype:
        """The unsigned integer dtype of the same width, used to move bits unchanged."""
        return uint_of_bits(self.bits)

    # pyasc calls these as methods (``dtype.is_float()``); npusim reads them as values
    # (``if dtype.is_float:``): a Predicate is both.
    @cached_attribute
    def is_float(self) -> Predicate:
        return Predicate(self.kind == "float")

    @cached_attribute
    def is_int(self) -> Predicate:
        """Signed or unsigned integer (pyasc ``is_int``)."""
        return Predicate(self.kind in ("int", "uint"))

    @cached_attribute
    def is_signed(self) -> Predicate:
        """A signed integer (pyasc ``is_signed``)."""
        return Predicate(self.kind == "int")

    @cached_attribute
    def is_unsigned(self) -> Predicate:
        return Predicate(self.kind == "uint")

    @cached_attribute
    def is_complex(self) -> Predicate:
        """A pair of floats, real part first (:class:`ComplexDType`)."""
        return Predicate(self.kind == "complex")

    @cached_attribute
    def is_numeric(self) -> Predicate:
        """Every npusim element type is a number (pyasc: int, uint or float)."""
        return Predicate(True)

    @cached_attribute
    def is_void(self) -> Predicate:
        """npusim has no ``void`` element type (pyasc's ``DataType("void")``)."""
        return Predicate(False)

    def sizeof(self) -> int:
        """Width in bytes (pyasc spelling: ``dtype.sizeof()``)."""
        return self.itemsize

    def nbytes(self, count: int) -> int:
        """Bytes that ``count`` elements occupy."""
        return count * self.itemsize

    def count_in(self, nbytes: int) -> int:
        """Whole elements in ``nbytes`` bytes."""
        return nbytes // self.itemsize

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.name


class PackedDType(DType):
    """An element narrower than a byte: ``8 // bits`` elements share one byte, element ``2i`` in the
    low nibble of byte ``i``, element ``2i + 1`` in the high one (docs/semantics.md §5.23).

    Such an element has no size in bytes, no numpy storage type and no unsigned type of its width:
    ``itemsize``, ``sizeof()``, ``np_dtype`` and ``raw`` raise, so code written for whole-byte
    elements fails where it meets one instead of miscounting.  Code that handles packed elements
    asks :meth:`nbytes`, :meth:`pack` and :meth:`unpack`; their values, one per element, are
    :attr:`value_dtype` (``int8``, sign-extended).
    """

    def _no_byte_size(self, what: str):
        raise UnsupportedError(self.name, what, f"{self.bits} bits",
                               f"{8 // self.bits} elements share a byte: the element has no {what}",
                               "code that handles packed elements (nbytes, pack, unpack)", semantics("5.23"))

    @property
    def itemsize(self) -> int:  # type: ignore[override]
        self._no_byte_size("size in bytes")

    @property
    def np_dtype(self) -> np.dtype:  # type: ignore[override]
        self._no_byte_size("numpy storage type")

    @property
    def raw(self) -> np.dtype:  # type: ignore[override]
        self._no_byte_size("raw storage type")

    @cached_attribute
    def per_byte(self) -> int:
        """Elements in one byte."""
        return 8 // self.bits

    @cached_attribute
    def value_dtype(self) -> np.dtype:
        """The numpy type of unpacked element values (one per element)."""
        return np.dtype(np.int8 if self.kind == "int" else np.uint8)

    @cached_attribute
    def value_range(self) -> tuple[int, int]:
        """The smallest and largest element value."""
        if self.kind == "int":
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def nbytes(self, count: int) -> int:
        """Bytes that ``count`` elements occupy (a partly used last byte counts)."""
        return -(-count // self.per_byte)

    def count_in(self, nbytes: int) -> int:
        """Elements in ``nbytes`` bytes."""
        return nbytes * self.per_byte

    def pack(self, values: np.ndarray) -> np.ndarray:
        """Element values (a multiple of :attr:`per_byte` of them, each in range) as packed bytes."""
        codes = np.asarray(values).reshape(-1).astype(np.uint8) & np.uint8((1 << self.bits) - 1)  # two's complement
        return self.pack_codes(codes)

    def pack_codes(self, codes: np.ndarray) -> np.ndarray:
        """Element codes (uint8, 1-D, each below ``2**bits``; a multiple of :attr:`per_byte` of them) as packed
        bytes, low bits first."""
        if self.per_byte == 2:  # the two nibbles in one step each (int4b_t, fp4: the usual case)
            return codes[0::2] | (codes[1::2] << np.uint8(self.bits))
        packed = codes[0 :: self.per_byte].copy()
        for k in range(1, self.per_byte):
            packed |= codes[k :: self.per_byte] << (k * self.bits)
        return packed

    def unpack(self, raw: np.ndarray) -> np.ndarray:
        """Packed bytes as element values (``per_byte`` per byte, low bits first), :attr:`value_dtype`."""
        raw = np.asarray(raw, dtype=np.uint8).reshape(-1)
        codes = np.empty(raw.size * self.per_byte, np.uint8)
        for k in range(self.per_byte):
            np.bitwise_and(raw >> (k * self.bits), (1 << self.bits) - 1, out=codes[k :: self.per_byte])
        if self.kind == "int":  # sign-extend: the top code bit counts -2**(bits-1)
            top = 1 << (self.bits - 1)
            return ((codes ^ top).view(np.int8) - np.int8(top)).astype(np.int8, copy=False)
        return codes


class CodeTable:
    """A float type's values by a table of its codes, kept in the npusim module :attr:`table_module` (its
    ``decode_table()``, ``encode_exact(values)`` and ``holds(values)``), imported when first used: the
    ``fp4x2_e2m1_t`` (:mod:`npusim.fp4`) and ``fp8_e8m0_t`` (:mod:`npusim.fp8_e8m0`) types."""

    table_module: str

    def _table(self):
        return importlib.import_module(f"npusim.{self.table_module}")

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """The values (float32, exact; NaN where the code is one) of the codes ``codes``."""
        return self._table().decode_table()[np.asarray(codes, dtype=np.uint8)]

    def encode(self, values: np.ndarray) -> np.ndarray:
        """The codes of ``values``, each a value of the type (the caller checks that with :meth:`holds`)."""
        return self._table().encode_exact(values)

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Which of ``values`` the type holds exactly."""
        return self._table().holds(values)


class PackedFloatDType(CodeTable, PackedDType):
    """A packed float type: the Ascend 950's ``fp4x2_e2m1_t`` (npusim's ``float4_e2m1fn``, docs/semantics.md §5.33),
    two 4-bit E2M1 values a byte, element ``2i`` in the low nibble of byte ``i`` as for ``int4``.

    :meth:`pack` and :meth:`unpack` move the 4-bit *codes* (``uint8``, 0 .. 15); :meth:`decode` gives their values
    (float32, exact), :meth:`encode` the codes of values the type holds (:meth:`holds`: the 16 values of
    :mod:`npusim.fp4`, -0.0 its own code; no NaN, no infinity).
    """

    #: as :class:`CodedDType`'s: the sources and the allowed set of a rejected host value
    section = semantics("5.33")
    page_part = "浮点数 (fp4x2_e2m1_t, 表5)"
    values_text = "±0, ±0.5, ±1, ±1.5, ±2, ±3, ±4, ±6"

    @property
    def value_range(self) -> tuple[int, int]:  # type: ignore[override]
        raise UnsupportedError(self.name, "value_range", f"{self.bits} bits", "a float type has values, not an "
                               "integer range", "holds / encode / decode", semantics("5.33"))

    table_module = "fp4"


class ComplexDType(DType):
    """A complex element: two floats of :attr:`component`, the real part at the lower address, then the
    imaginary part (docs/semantics.md §5.29; the Ascend 950's ``complex32`` and ``complex64``).

    ``np_dtype`` of ``complex64`` is numpy's ``complex64`` (the same layout); numpy has no complex of
    two halves, so ``complex32``'s is a structured type with fields ``real`` and ``imag`` (float16).
    Element-wise arithmetic works on the components (:attr:`component`), moves on the raw bits.
    """

    @cached_attribute
    def np_dtype(self) -> np.dtype:
        if self.storage == "complex32":
            return np.dtype([("real", "<f2"), ("imag", "<f2")])
        return np.dtype(self.storage)

    @cached_attribute
    def component(self) -> DType:
        """The type of the real and of the imaginary part."""
        return DTYPES[f"float{self.bits // 2}"]


class CodedDType(DType):
    """A float type whose 256 codes numpy has no type for (``hifloat8``, the Ascend 950's ``hifloat8_t``,
    docs/semantics.md §5.32): its elements are stored, moved and compared as their ``uint8`` codes
    (``np_dtype`` is ``uint8``); :meth:`decode` gives their values, :meth:`encode` the codes of values the
    type holds exactly.  Like the packed types it is never found by :func:`from_numpy`.  :class:`E8M0DType` is
    such a type with another code table.
    """

    #: where npusim describes the type, where 内置数据类型.md gives its values, and its values in words
    #: (the sources and the allowed set of a rejected host value or scalar)
    section = semantics("5.32")
    page_part = "浮点数 (hifloat8_t, 表6)"
    values_text = "one of the hifloat8's 256 code values"

    @cached_attribute
    def np_dtype(self) -> np.dtype:
        return np.dtype(np.uint8)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """The values (float32, all exact) of the codes ``codes``."""
        from .hifloat8 import decode_table

        return decode_table()[np.asarray(codes, dtype=np.uint8)]

    def encode(self, values: np.ndarray) -> np.ndarray:
        """The codes of ``values``, each a value of the type (NaN and ±infinity included); the caller checks
        that with :meth:`holds`."""
        from .hifloat8 import encode

        return encode(values)

    def holds(self, values: np.ndarray) -> np.ndarray:
        """Which of ``values`` the type holds exactly."""
        from .hifloat8 import is_value_code

        return is_value_code(values)


class E8M0DType(CodeTable, CodedDType):
    """``float8_e8m0fnu``, the Ascend 950's ``fp8_e8m0_t`` (docs/semantics.md §5.34): a :class:`CodedDType` whose
    256 codes are the powers of two 2**-127 .. 2**127 and NaN (:mod:`npusim.fp8_e8m0` holds the table)."""

    section = semantics("5.34")
    page_part = "浮点数 (fp8_e8m0_t, 表5)"
    values_text = "the powers of two 2**-127 .. 2**127, or NaN (no zero, no sign, no infinity)"

    table_module = "fp8_e8m0"


def uint_of_bits(bits: int) -> np.dtype:
    """The unsigned integer numpy dtype with ``bits`` bits (8, 16, 32 or 64)."""
    return np.dtype(f"<u{bits // 8}")


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("int8", 8, "int", "<i1"),
        DType("uint8", 8, "uint", "<u1"),
        DType("int16", 16, "int", "<i2"),
        DType("uint16", 16, "uint", "<u2"),
        DType("int32", 32, "int", "<i4"),
        DType("uint32", 32, "uint", "<u4"),
        DType("int64", 64, "int", "<i8"),
        DType("uint64", 64, "uint", "<u8"),
        DType("float16", 16, "float", "<f2"),
        DType("bfloat16", 16, "float", "ml_dtypes.bfloat16"),
        DType("float32", 32, "float", "<f4"),
        DType("float64", 64, "float", "<f8"),
        DType("float8_e4m3fn", 8, "float", "ml_dtypes.float8_e4m3fn"),
        DType("float8_e5m2", 8, "float", "ml_dtypes.float8_e5m2"),
        CodedDType("hifloat8", 8, "float", "hifloat8"),
        E8M0DType("float8_e8m0fnu", 8, "float", "fp8_e8m0"),
        PackedDType("int4", 4, "int", "packed"),
        PackedFloatDType("float4_e2m1fn", 4, "float", "packed"),
        ComplexDType("complex32", 32, "complex", "complex32"),
        ComplexDType("complex64", 64, "complex", "<c8"),
    )
}

_BY_NUMPY = {d.np_dtype: d for d in DTYPES.values() if d.storage.startswith("<") or d.kind == "complex"}


def _by_numpy(dt: np.dtype) -> DType | None:
    """The row of a normalised numpy dtype.  An ml_dtypes type can only be met once ml_dtypes is
    loaded, so its rows join the table then."""
    row = _BY_NUMPY.get(dt)
    if row is None and "ml_dtypes" in sys.modules:
        for d in DTYPES.values():
            if d.storage.startswith("ml_dtypes."):
                _BY_NUMPY.setdefault(d.np_dtype, d)
        row = _BY_NUMPY.get(dt)
    return row


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
    return _by_numpy(dt)
