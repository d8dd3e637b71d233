"""What each ``asc.*`` module holds under npusim: npusim's objects under pyasc's names.

:func:`module_names` answers, for a module name of pyasc, the dictionary its module gets.
The vector instructions, tensors and framework classes are npusim's own
(:mod:`npusim.ascend`), and so are the high-level APIs it models (:mod:`npusim.ascend.adv`);
the runtime conventions (``jit``, ``config``, ``lib.runtime``) are this package's; every
other public pyasc name (:mod:`.names`) is an :class:`~.unmodelled.Unmodelled` stand-in
that raises when used.
"""

from __future__ import annotations

import builtins

from .. import ascend
from ..ascend import adv, printing, shape_info
from ..ascend.runtime import LocalTensorAuto, get_tpipe_ptr
from ..ascend.types import CacheMode, CacheRwMode, DataFormat
from ..dtypes import DTYPES, DType, by_name
from . import adv as pyasc_adv
from . import aipp, config, language, names, scalar, struct
from . import jit as jit_module
from . import runtime as rt
from .cint import CInt32
from .transdata import trans_data_to_5hd
from .unmodelled import Unmodelled

__all__ = ["PACKAGES", "module_names"]

# Every module the hook serves; packages may have submodules.
PACKAGES = frozenset({"asc", "asc.language", "asc.language.core", "asc.runtime", "asc.lib"})
MODULES = PACKAGES | {"asc.language.basic", "asc.language.fwk", "asc.language.adv", "asc.language.core.dtype",
                      "asc.language.core.struct", "asc.runtime.config", "asc.runtime.jit", "asc.lib.runtime",
                      "asc.lib.host"}


class DataType:
    """pyasc's ``asc.DataType(name)``: the npusim element type of that name (``asc.DataType("int32")``)."""

    def __new__(cls, name: str) -> DType:  # type: ignore[misc]
        if isinstance(name, DType):
            return name
        if not isinstance(name, str):
            raise TypeError(f"asc.DataType: name must be a str such as 'float16', got {type(name).__name__}")
        return by_name(name)


class KnownTypes:
    """pyasc's ``asc.language.core.dtype.KnownTypes``: the element types by name, with pyasc's aliases."""

    int8, int16, int32, int64 = DTYPES["int8"], DTYPES["int16"], DTYPES["int32"], DTYPES["int64"]
    uint8, uint16, uint32, uint64 = DTYPES["uint8"], DTYPES["uint16"], DTYPES["uint32"], DTYPES["uint64"]
    float16, float32, float64 = DTYPES["float16"], DTYPES["float32"], DTYPES["float64"]
    bool_ = int8
    int_ = int32
    half = float16
    float_ = float32
    double = float64


def get_block_idx() -> CInt32:
    """The running block's index as pyasc's int32 runtime value."""
    return CInt32(ascend.get_block_idx())


def get_block_num() -> CInt32:
    return CInt32(ascend.get_block_num())


def runtime_range(*bounds):
    """pyasc's ``asc.range``: a loop whose induction variable is an int32 runtime value."""
    return map(CInt32, builtins.range(*(int(bound) for bound in bounds)))


def ceildiv(a, b):
    """``(a + b - 1) // b``, as pyasc's ``asc.ceildiv``."""
    return (a + b - 1) // b


def _dtypes() -> dict:
    found = {name: value for name, value in vars(KnownTypes).items() if isinstance(value, DType)}
    return {**found, "DataType": DataType}


def _vector_names() -> dict:
    """npusim.ascend's public API, pyasc's spelling of the builtin-shadowing names included."""
    exported = {name: getattr(ascend, name) for name in ascend.__all__}
    exported.update(jit=jit_module.jit, ConstExpr=ascend.ConstExpr, range=runtime_range,
                    get_block_idx=get_block_idx, get_block_num=get_block_num,
                    static_range=builtins.range, ceildiv=ceildiv,
                    LocalTensorAuto=LocalTensorAuto, get_tpipe_ptr=get_tpipe_ptr,
                    trans_data_to_5hd=trans_data_to_5hd, ShapeInfo=shape_info.ShapeInfo,
                    get_shape_size=shape_info.get_shape_size, DataFormat=DataFormat, CacheMode=CacheMode,
                    CacheRwMode=CacheRwMode, printf=printing.printf, dump_tensor=printing.dump_tensor)
    exported.update((name, getattr(language, name)) for name in language.__all__)
    exported.update(scalar.scalar_names())
    exported.update(_dtypes())
    exported.update((name, getattr(aipp, name)) for name in aipp.__all__ if name != "aipp_config")
    return exported


def _with_stand_ins(module: str, found: dict, *pyasc_lists: frozenset) -> dict:
    for listed in pyasc_lists:
        for name in listed:
            found.setdefault(name, Unmodelled(f"{module}.{name}"))
    return found


def module_names(module: str) -> dict:
    """The names of the npusim stand-in for pyasc's ``module``."""
    vector = _vector_names()
    language = names.BASIC | names.CORE | names.FWK
    if module in ("asc", "asc.language"):
        return _with_stand_ins(module, dict(vector), language)
    if module == "asc.language.basic":
        return _with_stand_ins(module, {k: v for k, v in vector.items() if k in names.BASIC}, names.BASIC)
    if module == "asc.language.core":
        return _with_stand_ins(module, {k: v for k, v in vector.items() if k in names.CORE}, names.CORE)
    if module == "asc.language.fwk":
        return _with_stand_ins(module, {k: v for k, v in vector.items() if k in names.FWK}, names.FWK)
    if module == "asc.language.adv":
        found = {name: getattr(adv, name) for name in adv.__all__}
        found.update((name, getattr(pyasc_adv, name)) for name in pyasc_adv.__all__)  # pyasc's argument handling
        return _with_stand_ins(module, found, names.ADV)
    if module == "asc.language.core.dtype":
        return {**_dtypes(), "KnownTypes": KnownTypes, "bit": Unmodelled(f"{module}.bit")}
    if module == "asc.language.core.struct":
        return {name: getattr(struct, name) for name in struct.__all__}
    if module == "asc.runtime.config":
        return {name: getattr(config, name) for name in config.__all__} | {"rt": rt}
    if module == "asc.runtime.jit":
        return {"jit": jit_module.jit, "JITFunction": jit_module.PyascKernel}
    if module == "asc.lib.runtime":
        return {name: getattr(rt, name) for name in rt.__all__}
    if module == "asc.lib.host":
        return _with_stand_ins(module, {}, names.HOST)
    if module in ("asc.runtime", "asc.lib"):
        return {}
    raise KeyError(module)
