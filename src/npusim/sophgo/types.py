"""TPU-Kernel types: ``data_type_t``, ``scalar_t``, ``var_type_t``, ``variable_t``, ``dim4``.

Names and numeric values are the vendor's (``tpu_defs.h``, ``tpu_kernel.h``; docs/semantics.md §6).
``data_type_t`` packs three fields into its value: bit 0 is the signed flag,
bits 4..1 the precision code, bit 5 the FP8 sub-type, so ``DT_INT8 = (0 << 1) | 1``
and ``DT_FP8E4M3 = (1 << 5) | (7 << 1) | 1 = 47``.

``scalar_t`` is the vendor's 4-byte little-endian union: every view aliases the
low bytes of ``u32`` (``u8``/``s8`` byte 0, ``u16``/``s16``/``f16``/``bf16``
bytes 0-1).  An instruction given a SCALAR operand uses the low
``bits(dtype)`` bits of ``u32`` (docs/semantics.md §6.2).
"""

from __future__ import annotations

import enum
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import dtypes as _dtypes
from ..errors import ParameterRangeError, UnsupportedError
from ..rounding import float_bits
from ..sources import semantics
from . import pages

__all__ = [
    "DT_BFP16", "DT_FP8E4M3", "DT_FP8E5M2", "DT_FP16", "DT_FP20", "DT_FP32", "DT_INT4", "DT_INT8", "DT_INT16",
    "DT_INT32", "DT_TF32", "DT_UINT4", "DT_UINT8", "DT_UINT16", "DT_UINT32", "SCALAR", "TENSOR", "VECTOR",
    "as_data_type", "data_type_t", "dim4", "is_float_type", "is_signed_type", "scalar_t", "storage_dtype",
    "tpu_data_type_bits", "tpu_data_type_size", "var_type_t", "variable_t",
]


class data_type_t(enum.IntEnum):
    """Element type codes, with the vendor's numeric values (docs/semantics.md §6.1)."""

    DT_UINT8 = (0 << 1) | 0
    DT_INT8 = (0 << 1) | 1
    DT_FP16 = (1 << 1) | 1
    DT_FP32 = (2 << 1) | 1
    DT_UINT16 = (3 << 1) | 0
    DT_INT16 = (3 << 1) | 1
    DT_UINT32 = (4 << 1) | 0
    DT_INT32 = (4 << 1) | 1
    DT_BFP16 = (5 << 1) | 1
    DT_UINT4 = (6 << 1) | 0
    DT_INT4 = (6 << 1) | 1
    DT_FP8E5M2 = (0 << 5) | (7 << 1) | 1
    DT_FP8E4M3 = (1 << 5) | (7 << 1) | 1
    DT_FP20 = (8 << 1) | 1
    DT_TF32 = (9 << 1) | 1

    @property
    def precision(self) -> int:
        """``PRECISION(d) = (d >> 1) & 0xf``: 0 INT8, 1 FP16, 2 FP32, 3 INT16, 4 INT32, 5 BF16, ..."""
        return (self.value >> 1) & 0xF


DT_UINT8 = data_type_t.DT_UINT8
DT_INT8 = data_type_t.DT_INT8
DT_FP16 = data_type_t.DT_FP16
DT_FP32 = data_type_t.DT_FP32
DT_UINT16 = data_type_t.DT_UINT16
DT_INT16 = data_type_t.DT_INT16
DT_UINT32 = data_type_t.DT_UINT32
DT_INT32 = data_type_t.DT_INT32
DT_BFP16 = data_type_t.DT_BFP16
DT_UINT4 = data_type_t.DT_UINT4
DT_INT4 = data_type_t.DT_INT4
DT_FP8E5M2 = data_type_t.DT_FP8E5M2
DT_FP8E4M3 = data_type_t.DT_FP8E4M3
DT_FP20 = data_type_t.DT_FP20
DT_TF32 = data_type_t.DT_TF32

_BITS: dict[data_type_t, int] = {
    DT_UINT8: 8, DT_INT8: 8, DT_FP16: 16, DT_FP32: 32, DT_UINT16: 16, DT_INT16: 16,
    DT_UINT32: 32, DT_INT32: 32, DT_BFP16: 16, DT_UINT4: 4, DT_INT4: 4,
    DT_FP8E5M2: 8, DT_FP8E4M3: 8, DT_FP20: 20, DT_TF32: 32,
}  # fmt: skip

# Storage in npusim's shared dtype table; types without a row cannot be held in an array.
_STORAGE: dict[data_type_t, str] = {
    DT_UINT8: "uint8", DT_INT8: "int8", DT_FP16: "float16", DT_FP32: "float32",
    DT_UINT16: "uint16", DT_INT16: "int16", DT_UINT32: "uint32", DT_INT32: "int32",
    DT_BFP16: "bfloat16", DT_FP8E5M2: "float8_e5m2", DT_FP8E4M3: "float8_e4m3fn",
}  # fmt: skip

_FLOAT_TYPES = frozenset({DT_FP16, DT_FP32, DT_BFP16, DT_FP8E5M2, DT_FP8E4M3, DT_FP20, DT_TF32})


def as_data_type(value: Any, instruction: str, operand: str) -> data_type_t:
    """``value`` as a :class:`data_type_t` (plain ints with a vendor value are accepted).

    Raises:
        TypeError: ``value`` is not an integer.
        UnsupportedError: no data type has that value.
    """
    if isinstance(value, data_type_t):
        return value
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{instruction}: {operand} must be a data_type_t, got {type(value).__name__}")
    try:
        return data_type_t(int(value))
    except ValueError:
        allowed = ", ".join(f"{d.name}={d.value}" for d in data_type_t)
        raise UnsupportedError(
            instruction, operand, int(value), "unknown data_type_t value", allowed,
            f"{pages.TPU_DEFS_H} data_type_t; {semantics('6.1')}",
        ) from None


def tpu_data_type_bits(dtype: data_type_t | int) -> int:
    """Width of ``dtype`` in bits (``tpu_data_type_bits``): 4 for INT4, 20 for FP20."""
    return _BITS[as_data_type(dtype, "tpu_data_type_bits", "dtype")]


def tpu_data_type_size(dtype: data_type_t | int) -> int:
    """Width of ``dtype`` in bytes (``tpu_data_type_size``).

    Raises:
        UnsupportedError: for DT_INT4/DT_UINT4/DT_FP20, whose width is not a whole number of bytes
            (the vendor documents INT4 as unsupported here; docs/semantics.md §6.1).
    """
    dt = as_data_type(dtype, "tpu_data_type_size", "dtype")
    bits = _BITS[dt]
    if bits % 8:
        raise UnsupportedError(
            "tpu_data_type_size", "dtype", dt.name, f"is {bits} bits wide, not a whole number of bytes",
            "types of 8, 16 or 32 bits", f"{pages.UTIL} tpu_data_type_size; {semantics('6.1')}",
        )
    return bits // 8


def is_float_type(dtype: data_type_t) -> bool:
    """True for the floating-point types (all of which have the signed bit set)."""
    return dtype in _FLOAT_TYPES


def is_signed_type(dtype: data_type_t) -> bool:
    """``SIGN(d) = d & 1``; what makes an integer compare signed (docs/semantics.md §6.1)."""
    return bool(dtype.value & 1)


def storage_dtype(dtype: data_type_t, instruction: str, operand: str) -> _dtypes.DType:
    """The numpy-backed :class:`npusim.dtypes.DType` that holds elements of ``dtype``.

    Raises:
        UnsupportedError: ``dtype`` has no array storage in npusim (INT4, FP20, TF32).
    """
    try:
        return _dtypes.by_name(_STORAGE[dtype])
    except KeyError:
        allowed = ", ".join(d.name for d in _STORAGE)
        raise UnsupportedError(
            instruction, operand, dtype.name, "has no array storage in npusim", allowed, semantics("6.1"),
        ) from None


# --------------------------------------------------------------------------- scalar_t

_INT_VIEWS: dict[str, tuple[int, bool]] = {
    "u8": (8, False), "s8": (8, True), "u16": (16, False), "s16": (16, True),
    "u32": (32, False), "s32": (32, True),
}  # fmt: skip
_FLOAT_VIEWS: dict[str, str] = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}


class scalar_t:
    """The 4-byte scalar union (docs/semantics.md §6.2).

    Build it from exactly one view, as in C: ``scalar_t(f32=1.5)``, ``scalar_t(u32=0x3c00)``,
    ``scalar_t(s8=-6)``.  Float views round the exact value once, to nearest even
    (:mod:`npusim.rounding`: ``scalar_t(bf16=1 + 2**-8 + 2**-30).u32 == 0x3f81``).  Writing a narrow view
    leaves the high bytes zero, as a zero-initialised C union would.  Reading a view
    reinterprets the low bytes: ``scalar_t(u32=0xdead3c00).f16 == 1.0``.

    Views: ``u8 s8 u16 s16 f16 bf16 u32 s32 f32``.  Instances are immutable and hashable.
    """

    __slots__ = ("_u32",)

    def __init__(self, **view: Any) -> None:
        if len(view) > 1:
            raise TypeError(f"scalar_t takes one view, got {', '.join(view)}")
        name, value = next(iter(view.items())) if view else ("u32", 0)
        object.__setattr__(self, "_u32", _encode(name, value))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("scalar_t is immutable; build a new one, e.g. scalar_t(f32=2.0)")

    @property
    def u32(self) -> int:
        return self._u32

    @property
    def s32(self) -> int:
        return self._u32 - (1 << 32) if self._u32 >> 31 else self._u32

    @property
    def u16(self) -> int:
        return self._u32 & 0xFFFF

    @property
    def s16(self) -> int:
        v = self.u16
        return v - (1 << 16) if v >> 15 else v

    @property
    def u8(self) -> int:
        return self._u32 & 0xFF

    @property
    def s8(self) -> int:
        v = self.u8
        return v - (1 << 8) if v >> 7 else v

    @property
    def f32(self) -> float:
        return float(np.array(self._u32, dtype=np.uint32).view(np.float32))

    @property
    def f16(self) -> float:
        return float(np.array(self.u16, dtype=np.uint16).view(np.float16))

    @property
    def bf16(self) -> float:
        return float(np.array(self.u16 << 16, dtype=np.uint32).view(np.float32))

    def low_bits(self, bits: int) -> int:
        """The low ``bits`` bits of the union: what an instruction reads for a ``bits``-wide dtype."""
        return self._u32 & ((1 << bits) - 1)

    def to_bytes(self) -> bytes:
        """The union's four bytes, little-endian."""
        return self._u32.to_bytes(4, "little")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, scalar_t) and other._u32 == self._u32

    def __hash__(self) -> int:
        return hash(("scalar_t", self._u32))

    def __repr__(self) -> str:
        return f"scalar_t(u32={self._u32:#010x})"


def _encode(name: str, value: Any) -> int:
    if name in _INT_VIEWS:
        bits, signed = _INT_VIEWS[name]
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"scalar_t.{name} must be an integer, got {type(value).__name__}")
        v = operator.index(value)
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if not lo <= v <= hi:
            raise ParameterRangeError(
                "scalar_t", name, v, f"does not fit in {bits} {'signed' if signed else 'unsigned'} bits",
                f"[{lo}, {hi}]", f"{pages.TPU_DEFS_H} scalar_t; {semantics('6.2')}",
            )
        return v & ((1 << bits) - 1)
    if name in _FLOAT_VIEWS:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"scalar_t.{name} must be a real number, got {type(value).__name__}")
        return float_bits(value, _dtypes.by_name(_FLOAT_VIEWS[name]))  # once, from the exact value
    raise TypeError(f"scalar_t has no view {name!r}; views: {', '.join([*_INT_VIEWS, *_FLOAT_VIEWS])}")


# --------------------------------------------------------------------------- operands


class var_type_t(enum.IntEnum):
    """Kind of an instruction operand (docs/semantics.md §6.3)."""

    TENSOR = 0
    SCALAR = 1
    VECTOR = 2


TENSOR = var_type_t.TENSOR
SCALAR = var_type_t.SCALAR
VECTOR = var_type_t.VECTOR


@dataclass(frozen=True)
class variable_t:
    """An operand: a TENSOR or VECTOR at a local address, or a SCALAR constant.

    ``variable_t(type=TENSOR, addr=0x4000)``, ``variable_t(type=VECTOR, addr=a)``,
    ``variable_t(type=SCALAR, scalar=scalar_t(f32=1.0))``.  In C the address and the scalar
    share one union (``var_context_t``); here exactly the one that matches ``type`` is given.
    """

    type: var_type_t
    addr: int | None = None
    scalar: scalar_t | None = None

    def __post_init__(self) -> None:
        kind = self.type
        if isinstance(kind, bool) or not isinstance(kind, (int, np.integer)):
            raise TypeError(f"variable_t.type must be TENSOR, SCALAR or VECTOR, got {kind!r}")
        try:
            kind = var_type_t(int(kind))
        except ValueError:
            raise TypeError(f"variable_t.type must be TENSOR, SCALAR or VECTOR, got {kind!r}") from None
        object.__setattr__(self, "type", kind)
        if kind is SCALAR:
            if self.addr is not None:
                raise TypeError("variable_t(type=SCALAR) takes scalar=scalar_t(...), not addr")
            if not isinstance(self.scalar, scalar_t):
                raise TypeError(
                    f"variable_t(type=SCALAR) needs scalar=scalar_t(...), got {type(self.scalar).__name__}"
                )
        else:
            if self.scalar is not None:
                raise TypeError(f"variable_t(type={kind.name}) takes addr=<local address>, not scalar")
            if isinstance(self.addr, bool) or not isinstance(self.addr, (int, np.integer)):
                got = type(self.addr).__name__
                raise TypeError(f"variable_t(type={kind.name}) needs addr=<int local address>, got {got}")
            object.__setattr__(self, "addr", int(self.addr))

    def __repr__(self) -> str:
        if self.type is SCALAR:
            return f"variable_t(SCALAR, {self.scalar!r})"
        return f"variable_t({self.type.name}, addr={self.addr:#x})"


@dataclass(frozen=True)
class dim4:
    """A 4-D shape or stride ``(n, c, h, w)``; strides are in elements (docs/semantics.md §6.3)."""

    n: int
    c: int
    h: int
    w: int

    def __post_init__(self) -> None:
        for field in ("n", "c", "h", "w"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"dim4.{field} must be an integer, got {type(value).__name__}")
            object.__setattr__(self, field, int(value))

    def __iter__(self):
        return iter((self.n, self.c, self.h, self.w))

    def as_tuple(self) -> tuple[int, int, int, int]:
        return (self.n, self.c, self.h, self.w)
