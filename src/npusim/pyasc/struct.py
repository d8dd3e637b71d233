"""``asc.language.core.struct``: pyasc's Struct kernel arguments (tiling parameters and the like).

A subclass of :class:`Struct` declares its members in order, as class attributes
``Field(dtype, default)`` (a scalar of an int or float element type) or
``StructField(OtherStruct)`` (a nested struct, by default ``OtherStruct()``).  On the host,
``S(**members)`` builds one (an unknown member, or a missing one with no default, is a
``TypeError``); members read and assign as attributes, each value stored as the member's
element type (out of range: :class:`~npusim.errors.ParameterRangeError`), and assigning a
nested struct copies it.  A kernel receives a **copy** made at the launch, as pyasc copies
the struct into the kernel's local memory: what the kernel assigns never reaches the
host's object (docs/semantics.md §10.7).
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ..dtypes import DType
from ..errors import ParameterRangeError, UnsupportedError
from ..sources import semantics

__all__ = ["BaseField", "Field", "Struct", "StructField"]

SOURCE = semantics("10.7")
_MISSING = object()


class BaseField:
    """A member declaration; ``name`` defaults to the attribute it is assigned to."""

    def __init__(self, default: Any = _MISSING, name: str | None = None) -> None:
        self.default = default
        self.name = name

    def convert(self, owner: str, value: Any) -> Any:
        raise NotImplementedError

    def initial(self, owner: str) -> Any:
        if self.default is _MISSING:
            raise TypeError(f"{owner}: member '{self.name}' has no default value; give it when constructing")
        return self.convert(owner, self.default)


class Field(BaseField):
    """A scalar member of element type ``dtype`` (pyasc ``Field(dtype=KT.int32, default=0)``)."""

    def __init__(self, dtype: DType, default: Any = _MISSING, name: str | None = None, enum: str | None = None) -> None:
        if not isinstance(dtype, DType):
            raise TypeError(f"Field: dtype must be an element type such as KnownTypes.int32, got {dtype!r}")
        if dtype.kind == "float" and dtype.bits not in (32, 64):
            raise UnsupportedError("Field", "dtype", dtype.name, "a struct member is a C scalar (pyasc packs "
                                   "structs with ctypes, which has no half type)", "int8 ... uint64, float32, "
                                   "float64", SOURCE)
        super().__init__(default, name)
        self.dtype = dtype
        self.enum = enum

    def convert(self, owner: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{owner}.{self.name}: a {self.dtype.name} member takes a number, got {value!r}")
        np_type = self.dtype.np_dtype.type
        if self.dtype.kind == "float":
            with np.errstate(over="ignore"):
                return np_type(value)
        if value != int(value):
            raise TypeError(f"{owner}.{self.name}: a {self.dtype.name} member takes an integer, got {value!r}")
        info = np.iinfo(np_type)
        if not info.min <= int(value) <= info.max:
            raise ParameterRangeError(f"{owner}.{self.name}", "value", int(value), f"the member is {self.dtype.name}",
                                      f"[{info.min}, {info.max}]", SOURCE)
        return np_type(int(value))


class StructField(BaseField):
    """A nested struct member (pyasc ``StructField(OtherStruct)``); the default is ``OtherStruct()``."""

    def __init__(self, struct_cls: type[Struct], default: Struct | None = None, name: str | None = None) -> None:
        if not (isinstance(struct_cls, type) and issubclass(struct_cls, Struct)):
            raise TypeError(f"StructField: expected a Struct subclass, got {struct_cls!r}")
        super().__init__(default, name)
        self.struct_cls = struct_cls

    def convert(self, owner: str, value: Any) -> Any:
        if not isinstance(value, self.struct_cls):
            raise TypeError(f"{owner}.{self.name}: expected a {self.struct_cls.__name__}, got {type(value).__name__}")
        return copy.deepcopy(value)

    def initial(self, owner: str) -> Any:
        return self.struct_cls() if self.default in (None, _MISSING) else self.convert(owner, self.default)


class Struct:
    """Base of pyasc structs: ``class Tiling(Struct): length = Field(dtype=KT.int32, default=0)``."""

    _fields: dict[str, BaseField] = {}

    def __init_subclass__(cls, pack: int = 8, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        fields = {}
        for attr, value in list(vars(cls).items()):
            if isinstance(value, BaseField):
                value.name = value.name or attr
                fields[attr] = value
                delattr(cls, attr)
        if not fields:
            raise TypeError(f"{cls.__name__}: a Struct declares at least one Field or StructField")
        if pack not in (1, 2, 4, 8, 16):
            raise TypeError(f"{cls.__name__}: pack must be 1, 2, 4, 8 or 16, got {pack!r}")
        cls._fields, cls._pack = fields, pack

    def __init__(self, **members) -> None:
        owner = type(self).__name__
        unknown = sorted(set(members) - set(self._fields))
        if unknown:
            raise TypeError(f"{owner} has no member {unknown[0]!r} (members: {', '.join(self._fields)})")
        values = {}
        for attr, field in self._fields.items():
            values[attr] = field.convert(owner, members[attr]) if attr in members else field.initial(owner)
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name: str) -> Any:
        values = self.__dict__.get("_values")
        if values is not None and name in values:
            return values[name]
        raise AttributeError(f"{type(self).__name__} has no member {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        field = self._fields.get(name)
        if field is None:
            raise AttributeError(f"{type(self).__name__} has no member {name!r} (members: {', '.join(self._fields)})")
        self._values[name] = field.convert(type(self).__name__, value)

    def __deepcopy__(self, memo) -> Struct:
        clone = object.__new__(type(self))
        object.__setattr__(clone, "_values", copy.deepcopy(self._values, memo))
        return clone

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and self._values == other._values

    __hash__ = None  # type: ignore[assignment]  # mutable, as pyasc's

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._values.items())})"
