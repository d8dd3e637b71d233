"""AIPP configuration (``asc.set_aipp_functions`` and the ``Aipp*`` parameter classes): checked and recorded.

AIPP (image pre-processing) acts only on ``load_image_to_local``, whose data path npusim does
not model (that call raises :class:`~npusim.errors.UnsupportedError`).  Configuring it is
accepted, as on the device, where it changes nothing else (a later ``data_copy`` is a plain
copy): each field is checked against its C type (pyasc's dataclasses; Ascend C
``SetAippFunctions``), and the configuration is recorded on the running core
(:func:`aipp_config`) for a kernel's test to look at (docs/semantics.md §10.7).
"""

from __future__ import annotations

import enum
import weakref
from dataclasses import dataclass, field, fields

from ..ascend.core import Core, current_core
from ..ascend.runtime.gm import GlobalTensor
from ..dtypes import DTYPES, DType
from ..sources import semantics
from ..validate import require_int

__all__ = ["AippChannelPaddingParams", "AippColorSpaceConvParams", "AippDataTypeConvParams", "AippInputFormat",
           "AippPaddingParams", "AippParams", "AippSingleLineParams", "AippSwapParams", "aipp_config",
           "set_aipp_functions"]

SOURCE = semantics("10.7")
_RANGES = {"uint8": (0, 255), "int16": (-(1 << 15), (1 << 15) - 1), "uint32": (0, (1 << 32) - 1)}
_CONFIGS: weakref.WeakKeyDictionary[Core, tuple] = weakref.WeakKeyDictionary()


class AippInputFormat(enum.IntEnum):
    YUV420SP_U8 = 0
    XRGB8888_U8 = 1
    RGB888_U8 = 4
    YUV400_U8 = 9


def _check(params) -> None:
    """Each field against its C type: ``bool``, an integer type of ``_RANGES``, or a float."""
    name = type(params).__name__
    for member in fields(params):
        value = getattr(params, member.name)
        kind = member.metadata.get("c", "bool" if isinstance(member.default, bool) else "uint32")
        if kind == "bool":
            if not isinstance(value, bool):
                raise TypeError(f"{name}: {member.name} must be a bool, got {value!r}")
        elif kind == "half":
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"{name}: {member.name} must be a number, got {value!r}")
        else:
            low, high = _RANGES[kind]
            require_int(name, member.name, value, low, high, SOURCE, rule=f"the field is a {kind}")


class _CheckedFields:
    """Base of the Aipp* dataclasses: every field is checked when the object is made."""

    def __post_init__(self) -> None:
        _check(self)


def _c(kind: str, default):
    """A dataclass field of C type ``kind``."""
    return field(default=default, metadata={"c": kind})


@dataclass
class AippSwapParams(_CheckedFields):
    is_swap_rb: bool = False
    is_swap_uv: bool = False
    is_swap_ax: bool = False


@dataclass
class AippSingleLineParams(_CheckedFields):
    is_single_line_copy: bool = False


@dataclass
class AippPaddingParams(_CheckedFields):
    padding_mode: int = _c("uint32", 0)
    padding_value_ch0: float = _c("half", 0)
    padding_value_ch1: float = _c("half", 0)
    padding_value_ch2: float = _c("half", 0)
    padding_value_ch3: float = _c("half", 0)


@dataclass
class AippDataTypeConvParams(_CheckedFields):
    dtc_mean_ch0: int = _c("uint8", 0)
    dtc_mean_ch1: int = _c("uint8", 0)
    dtc_mean_ch2: int = _c("uint8", 0)
    dtc_min_ch0: float = _c("half", 0.0)
    dtc_min_ch1: float = _c("half", 0.0)
    dtc_min_ch2: float = _c("half", 0.0)
    dtc_var_ch0: float = _c("half", 1.0)
    dtc_var_ch1: float = _c("half", 1.0)
    dtc_var_ch2: float = _c("half", 1.0)
    dtc_round_mode: int = _c("uint32", 0)


@dataclass
class AippChannelPaddingParams(_CheckedFields):
    c_padding_mode: int = _c("uint32", 0)
    c_padding_value: float = _c("half", 0)


@dataclass
class AippColorSpaceConvParams(_CheckedFields):
    is_enable_csc: bool = False
    csc_matrix_r0_c0: int = _c("int16", 0)
    csc_matrix_r0_c1: int = _c("int16", 0)
    csc_matrix_r0_c2: int = _c("int16", 0)
    csc_matrix_r1_c0: int = _c("int16", 0)
    csc_matrix_r1_c1: int = _c("int16", 0)
    csc_matrix_r1_c2: int = _c("int16", 0)
    csc_matrix_r2_c0: int = _c("int16", 0)
    csc_matrix_r2_c1: int = _c("int16", 0)
    csc_matrix_r2_c2: int = _c("int16", 0)
    csc_bias_in_0: int = _c("uint8", 0)
    csc_bias_in_1: int = _c("uint8", 0)
    csc_bias_in_2: int = _c("uint8", 0)
    csc_bias_out_0: int = _c("uint8", 0)
    csc_bias_out_1: int = _c("uint8", 0)
    csc_bias_out_2: int = _c("uint8", 0)


_SUB_CONFIGS = {"padding_params": AippPaddingParams, "swap_params": AippSwapParams,
                "single_line_params": AippSingleLineParams, "dtc_params": AippDataTypeConvParams,
                "c_padding_params": AippChannelPaddingParams, "csc_params": AippColorSpaceConvParams}


class AippParams:
    """pyasc ``AippParams(dtype, padding_params=None, swap_params=None, ...)``: dtype int8 or float16."""

    def __init__(self, dtype: DType, **sub_configs) -> None:
        if dtype not in (DTYPES["int8"], DTYPES["float16"]):
            raise TypeError(f"AippParams: dtype must be asc.int8 or asc.float16, got {dtype!r}")
        unknown = sorted(set(sub_configs) - set(_SUB_CONFIGS))
        if unknown:
            raise TypeError(f"AippParams: unknown arguments {unknown}; allowed: {sorted(_SUB_CONFIGS)}")
        self.dtype = dtype
        for name, cls in _SUB_CONFIGS.items():
            value = sub_configs.get(name)
            if value is None:
                value = cls()
            elif not isinstance(value, cls):
                raise TypeError(f"AippParams: {name} must be an asc.{cls.__name__}, got {type(value).__name__}")
            setattr(self, name, value)

    def __repr__(self) -> str:
        return f"AippParams(dtype={self.dtype}, swap_params={self.swap_params})"


def set_aipp_functions(src0: GlobalTensor, *args) -> None:
    """``set_aipp_functions(src0, input_format, config)`` or ``(src0, src1, input_format, config)``: recorded."""
    if not 2 <= len(args) <= 3:
        raise TypeError("set_aipp_functions: expected (src0, [src1,] input_format, config)")
    *sources, input_format, config = (src0, *args)
    for i, source in enumerate(sources):
        if not isinstance(source, GlobalTensor):
            raise TypeError(f"set_aipp_functions: src{i} must be an asc.GlobalTensor, got {type(source).__name__}")
        source.address  # noqa: B018 - raises when the tensor was never bound
    if not isinstance(input_format, AippInputFormat):
        raise TypeError(f"set_aipp_functions: input_format must be an asc.AippInputFormat, got {input_format!r}")
    if not isinstance(config, AippParams):
        raise TypeError(f"set_aipp_functions: config must be an asc.AippParams, got {type(config).__name__}")
    _CONFIGS[current_core("set_aipp_functions")] = (tuple(sources), input_format, config)


def aipp_config(core: Core) -> tuple | None:
    """The last ``(sources, input_format, config)`` ``set_aipp_functions`` recorded on ``core``, or None."""
    return _CONFIGS.get(core)
