"""Enums and parameter classes with pyasc's names, values and defaults.

Names and defaults follow ``hicann/pyasc`` ``python/asc/language/core/enums.py``
and ``core/types.py``; field widths follow the Ascend C structs they mirror
(``include/basic_api/kernel_struct_binary.h``, ``kernel_struct_unary.h``,
``kernel_struct_transpose.h``; docs/semantics.md §1.2, §4.1).  Fields are checked when an
instruction uses them, so a bad value is reported with the instruction's name; a
parameter class's ``SOURCE`` is where its field widths are documented.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

import numpy as np

from ..sources import semantics
from . import pages

__all__ = [
    "BinaryRepeatParams",
    "BrcbRepeatParams",
    "CMPMODE",
    "CacheMode",
    "CacheRwMode",
    "DataFormat",
    "CopyRepeatParams",
    "DataCopyExtParams",
    "DataCopyMVType",
    "DataCopyPadExtParams",
    "DataCopyPadParams",
    "DataCopyParams",
    "GatherMaskMode",
    "GatherMaskParams",
    "GatherRepeatParams",
    "HardEvent",
    "LoopModeParams",
    "MaskMode",
    "NdDmaConfig",
    "NdDmaLoopInfo",
    "NdDmaParams",
    "Nd2NzParams",
    "Nz2NdParamsFull",
    "MrgSort4Info",
    "MrgSortSrcList",
    "PipeID",
    "RoundMode",
    "ReduceOrder",
    "SELMODE",
    "SelMode",
    "SliceInfo",
    "SortConfig",
    "SortType",
    "DEFAULT_SORT_CONFIG",
    "TPosition",
    "TransDataTo5HDParams",
    "TransposeParamsExt",
    "TransposeType",
    "UnaryRepeatParams",
    "VaReg",
    "VdeqInfo",
]


class TPosition(IntEnum):
    """Logical buffer positions (pyasc ``TPosition``). VECIN/VECOUT/VECCALC live in UB."""

    GM = 0
    A1 = 1
    A2 = 2
    B1 = 3
    B2 = 4
    C1 = 5
    C2 = 6
    CO1 = 7
    CO2 = 8
    VECIN = 9
    VECOUT = 10
    VECCALC = 11
    MAX = 12


UB_POSITIONS = frozenset({TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC})


class CacheMode(IntEnum):
    """L2 cache policies of a GlobalTensor (pyasc ``CacheMode``, ``SetL2CacheHint``)."""

    CACHE_MODE_NORMAL = 0
    CACHE_MODE_DISABLE = 1
    CACHE_MODE_LAST = 2
    CACHE_MODE_PERSISTENT = 4


class CacheRwMode(IntEnum):
    """Which accesses an L2 cache hint applies to (pyasc ``CacheRwMode``)."""

    READ = 1
    WRITE = 2
    RW = 3


class DataFormat(IntEnum):
    """Data layouts a ShapeInfo may name (pyasc ``DataFormat``)."""

    ND = 0
    NZ = 1
    NCHW = 2
    NC1HWC0 = 3
    NHWC = 4


class SelMode(IntEnum):
    """Select modes (Select.md 参数说明, selMode; docs/semantics.md §2.1)."""

    VSEL_CMPMASK_SPR = 0
    VSEL_TENSOR_SCALAR_MODE = 1
    VSEL_TENSOR_TENSOR_MODE = 2


SELMODE = SelMode  # the Ascend C spelling


class CMPMODE(IntEnum):
    """Compare modes (pyasc ``CMPMODE``)."""

    LT = 0
    GT = 1
    EQ = 2
    LE = 3
    GE = 4
    NE = 5


class RoundMode(IntEnum):
    """Cast rounding modes (pyasc ``RoundMode``; Cast.md RoundMode取值说明, 数据结构/precision_conversion.md 表1).

    CAST_NONE rounds like CAST_RINT where the conversion loses precision; CAST_HYBRID (stochastic,
    hifloat8_t only) is Ascend C's eighth value, which pyasc does not list.
    """

    CAST_NONE = 0
    CAST_RINT = 1
    CAST_FLOOR = 2
    CAST_CEIL = 3
    CAST_ROUND = 4
    CAST_TRUNC = 5
    CAST_ODD = 6
    CAST_HYBRID = 7
class ReduceOrder(IntEnum):
    """Where a per-repeat max/min reduction puts its value and index (pyasc ``ReduceOrder``;
    归约计算/ReduceRepeat.md 参数说明, order)."""

    ORDER_VALUE_INDEX = 0
    ORDER_INDEX_VALUE = 1
    ORDER_ONLY_VALUE = 2
    ORDER_ONLY_INDEX = 3


class MaskMode(IntEnum):
    """Vector mask modes (docs/semantics.md §1.3, §1.4)."""

    NORMAL = 0
    COUNTER = 1


class VaReg(IntEnum):
    """The C API's ``ub_addr8_t``: the eight VA (address) registers, each holding 8 UB addresses
    (asc_set_va_reg.md 参数说明; docs/semantics.md §5.25)."""

    VA0 = 0
    VA1 = 1
    VA2 = 2
    VA3 = 3
    VA4 = 4
    VA5 = 5
    VA6 = 6
    VA7 = 7


class PipeID(IntEnum):
    """Hardware pipes (pyasc ``PipeID``)."""

    PIPE_S = 0
    PIPE_V = 1
    PIPE_M = 2
    PIPE_MTE1 = 3
    PIPE_MTE2 = 4
    PIPE_MTE3 = 5
    PIPE_ALL = 6
    PIPE_MTE4 = 7
    PIPE_MTE5 = 8
    PIPE_V2 = 9
    PIPE_FIX = 10


class HardEvent(IntEnum):
    """Inter-pipe synchronisation events (pyasc ``HardEvent``)."""

    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34


class KeyedFields:
    """Base of the parameter classes with ``astuple``: their key in a plan cache, kept current.

    ``fields_key()`` is ``(class, fields, the fields' types)`` — how ``npusim.ascend.plans``
    keys a call by a parameter object (the types keep ``True`` apart from ``1``).  It is
    remembered until a field is assigned: assignment is the only way to change a field.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        self.__dict__.pop("_fields_key", None)

    def astuple(self) -> tuple:
        """The fields in declaration order (a class whose fields need converting says how)."""
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    def fields_key(self) -> tuple:
        key = self.__dict__.get("_fields_key")
        if key is None:
            fields = self.astuple()
            key = self.__dict__["_fields_key"] = (type(self), fields, tuple(map(type, fields)))
        return key


@dataclass
class BinaryRepeatParams(KeyedFields):
    """Strides of a two-source instruction, in 32-byte DataBlocks (all ``uint8_t``, docs/semantics.md §1.2)."""

    dst_blk_stride: int = 1
    src0_blk_stride: int = 1
    src1_blk_stride: int = 1
    dst_rep_stride: int = 8
    src0_rep_stride: int = 8
    src1_rep_stride: int = 8

    FIELD_BITS = {name: 8 for name in (
        "dst_blk_stride", "src0_blk_stride", "src1_blk_stride",
        "dst_rep_stride", "src0_rep_stride", "src1_rep_stride",
    )}
    SOURCE = f"{pages.BINARY_REPEAT_PARAMS} BinaryRepeatParams; {semantics('1.2')}"

    def astuple(self) -> tuple[int, ...]:
        return (self.dst_blk_stride, self.src0_blk_stride, self.src1_blk_stride,
                self.dst_rep_stride, self.src0_rep_stride, self.src1_rep_stride)


@dataclass
class UnaryRepeatParams(KeyedFields):
    """Strides of a one-source instruction: block strides ``uint16_t``, repeat strides ``uint8_t``."""

    dst_blk_stride: int = 1
    src_blk_stride: int = 1
    dst_rep_stride: int = 8
    src_rep_stride: int = 8

    FIELD_BITS = {"dst_blk_stride": 16, "src_blk_stride": 16, "dst_rep_stride": 8, "src_rep_stride": 8}
    SOURCE = f"{pages.UNARY_REPEAT_PARAMS} UnaryRepeatParams; {semantics('1.2')}"

    def astuple(self) -> tuple[int, ...]:
        return self.dst_blk_stride, self.src_blk_stride, self.dst_rep_stride, self.src_rep_stride


@dataclass
class BrcbRepeatParams(KeyedFields):
    """Destination strides of ``brcb`` (``BrcbRepeatParams``: ``uint16_t`` each, in DataBlocks; the
    struct's other fields are reserved, Brcb.md 表3)."""

    dst_blk_stride: int = 1
    dst_rep_stride: int = 8

    FIELD_BITS = {"dst_blk_stride": 16, "dst_rep_stride": 16}
    SOURCE = f"{pages.BRCB} 参数说明 (表3 BrcbRepeatParams结构体参数说明)"


class GatherMaskMode(IntEnum):
    """``GatherMaskMode`` (pyasc ``core/enums.py``): GatherMask's reserved ``mode`` template argument."""

    DEFAULT = 0


@dataclass
class GatherMaskParams(KeyedFields):
    """``GatherMaskParams`` (GatherMask.md 表3; ``kernel_struct_gather.h``): src0's block stride
    (``uint8_t``) and repeat stride (``uint16_t``), the repeats (``uint16_t``, at most 255) and the
    pattern's repeat stride (``uint8_t``), strides in DataBlocks.  pyasc's defaults."""

    src0_block_stride: int = 1
    repeat_times: int = 1
    src0_repeat_stride: int = 0
    src1_repeat_stride: int = 0

    FIELD_BITS = {"src0_block_stride": 8, "repeat_times": 16, "src0_repeat_stride": 16, "src1_repeat_stride": 8}
    SOURCE = f"{pages.GATHER_MASK} 参数说明 (表3 GatherMaskParams结构体参数说明)"

    def astuple(self) -> tuple[int, ...]:
        return self.src0_block_stride, self.repeat_times, self.src0_repeat_stride, self.src1_repeat_stride


@dataclass
class GatherRepeatParams(KeyedFields):
    """Gatherb's destination strides in DataBlocks (``GatherRepeatParams``; Gatherb(ISASI).md 表3; pyasc
    ``GatherRepeatParams(dst_blk_stride=1, dst_rep_stride=8)``).  The struct's other fields are
    reserved and ignored (已废弃), so they are not modelled."""

    dst_blk_stride: int = 1
    dst_rep_stride: int = 8

    FIELD_BITS = {"dst_blk_stride": 8, "dst_rep_stride": 16}
    SOURCE = f"{pages.GATHERB} 参数说明 (表3); {semantics('5.13')}"

    def astuple(self) -> tuple[int, ...]:
        return self.dst_blk_stride, self.dst_rep_stride


@dataclass
class CopyRepeatParams(KeyedFields):
    """Strides of ``copy`` (``CopyRepeatParams``, all ``uint16_t``), in 32-byte DataBlocks.

    ``dst_stride`` / ``src_stride``: between neighbouring DataBlocks of one repeat;
    ``dst_repeat_size`` / ``src_repeat_size``: between the same DataBlock of neighbouring repeats,
    at most 4095 (UBToUB掩码式高维数据搬运(Copy).md 表3, 表4; the vendor checks ``UINT12_MAX``).
    pyasc's defaults are all 0.
    """

    dst_stride: int = 0
    src_stride: int = 0
    dst_repeat_size: int = 0
    src_repeat_size: int = 0

    FIELD_BITS = {"dst_stride": 16, "src_stride": 16, "dst_repeat_size": 12, "src_repeat_size": 12}
    SOURCE = f"{pages.COPY} 约束说明 (表4 CopyRepeatParams结构体参数取值范围)"

    def astuple(self) -> tuple[int, ...]:
        return self.dst_stride, self.src_stride, self.dst_repeat_size, self.src_repeat_size


@dataclass
class TransDataTo5HDParams(KeyedFields):
    """TransDataTo5HD control (TransDataTo5HD.md 参数说明, 表3): halves for b8, repeats, strides in DataBlocks."""

    dst_high_half: bool = False
    src_high_half: bool = False
    repeat_times: int = 1
    dst_rep_stride: int = 0
    src_rep_stride: int = 0

    FIELD_BITS = {"repeat_times": 8, "dst_rep_stride": 16, "src_rep_stride": 16}

    def astuple(self) -> tuple:
        return self.dst_high_half, self.src_high_half, self.repeat_times, self.dst_rep_stride, self.src_rep_stride


class TransposeType(IntEnum):
    """``TransposeType`` (pyasc ``core/enums.py``; Transpose.md 表 TransposeParamsExt): only ND2ND_B16,
    NCHW2NHWC and NHWC2NCHW are implemented by Transpose ("当前不支持" for the others)."""

    TRANSPOSE_TYPE_NONE = 0
    TRANSPOSE_NZ2ND_0213 = 1
    TRANSPOSE_NZ2NZ_0213 = 2
    TRANSPOSE_NZ2NZ_012_WITH_N = 3
    TRANSPOSE_NZ2ND_012_WITH_N = 4
    TRANSPOSE_NZ2ND_012_WITHOUT_N = 5
    TRANSPOSE_NZ2NZ_012_WITHOUT_N = 6
    TRANSPOSE_ND2ND_ONLY = 7
    TRANSPOSE_ND_UB_GM = 8
    TRANSPOSE_GRAD_ND_UB_GM = 9
    TRANSPOSE_ND2ND_B16 = 10
    TRANSPOSE_NCHW2NHWC = 11
    TRANSPOSE_NHWC2NCHW = 12


@dataclass
class TransposeParamsExt(KeyedFields):
    """The enhanced Transpose's shape and kind (``TransposeParamsExt``: four ``uint16_t`` sizes and a
    :class:`TransposeType`; Transpose.md 参数说明)."""

    n_size: int = 0
    c_size: int = 0
    h_size: int = 0
    w_size: int = 0
    transpose_type: TransposeType = TransposeType.TRANSPOSE_ND2ND_B16

    def astuple(self) -> tuple:
        return self.n_size, self.c_size, self.h_size, self.w_size, self.transpose_type


@dataclass
class DataCopyParams(KeyedFields):
    """Block-strided copy (``DataCopyParams``, all ``uint16_t``).

    ``block_count`` blocks of ``block_len`` DataBlocks (32 bytes) each; ``src_stride`` and
    ``dst_stride`` are the *gaps* between consecutive blocks, in DataBlocks
    (GM与UB高维切分数据搬运(DataCopy).md, 表3).  With ``data_copy_pad`` the same fields count
    bytes instead (block_len, and the GM-side stride).
    """

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0

    FIELD_BITS = {"block_count": 16, "block_len": 16, "src_stride": 16, "dst_stride": 16}
    SOURCE = f"{pages.DATA_COPY_PARAMS} 参数说明 (表3 DataCopyParams); {semantics('5.1')}"

    def astuple(self) -> tuple[int, ...]:
        return self.block_count, self.block_len, self.src_stride, self.dst_stride


@dataclass
class DataCopyExtParams(KeyedFields):
    """Unaligned copy (``DataCopyExtParams``): ``block_len`` in bytes, GM-side gap in bytes,
    UB-side gap in DataBlocks (GMToUB非对齐数据搬运(DataCopyPad).md, 表3)."""

    block_count: int = 1
    block_len: int = 0
    src_stride: int = 0
    dst_stride: int = 0
    rsv: int = 0

    FIELD_BITS = {"block_count": 16, "block_len": 32, "src_stride": 32, "dst_stride": 32, "rsv": 32}
    SOURCE = f"{pages.DATA_COPY_PAD} 参数说明 (DataCopyExtParams); {semantics('5.2')}"

    def astuple(self) -> tuple[int, ...]:
        return self.block_count, self.block_len, self.src_stride, self.dst_stride, self.rsv


class DataCopyMVType(IntEnum):
    """The data path a loop-mode register set serves (``DataCopyMVType``, SetLoopModePara.md 表3)."""

    UB_TO_OUT = 0
    OUT_TO_UB = 1


@dataclass
class LoopModeParams(KeyedFields):
    """The loop-mode registers of a GM <-> UB path (``LoopModeParams``; SetLoopModePara.md 表2).

    A copy on that path runs ``loop2_size`` x ``loop1_size`` times (outer x inner), iteration
    ``(i2, i1)`` with both sides moved by ``i1 * loop1_*_stride + i2 * loop2_*_stride`` bytes.
    """

    loop1_size: int = 0
    loop2_size: int = 0
    loop1_src_stride: int = 0
    loop1_dst_stride: int = 0
    loop2_src_stride: int = 0
    loop2_dst_stride: int = 0

    FIELD_BITS = {"loop1_size": 32, "loop2_size": 32, "loop1_src_stride": 64, "loop1_dst_stride": 64,
                  "loop2_src_stride": 64, "loop2_dst_stride": 64}
    SOURCE = f"{pages.SET_LOOP_MODE_PARA} 参数说明 (表2 LoopModeParams); {semantics('5.11')}"


@dataclass
class VdeqInfo(KeyedFields):
    """The 16 per-lane parameter sets of the vector dequantisation (``VdeqInfo``; SetDeqScale.md 表4).

    ``scale`` (float), ``offset`` (int16_t, low 9 bits used) and ``sign_mode`` (bool): 16 entries each;
    ``set_deq_scale(vdeq, info)`` packs entry ``j`` into ``vdeq[j]`` (docs/semantics.md §5.21).
    """

    scale: list
    offset: list
    sign_mode: list

    SOURCE = f"{pages.SET_DEQ_SCALE} 参数说明 (表4 VdeqInfo); {semantics('5.21')}"

    def astuple(self) -> tuple:
        """The three arrays as tuples; a float scale by its bits, so that -0.0 and 0.0 key different plans."""
        scale = tuple(struct.pack("<d", v) if type(v) is float else v for v in _tupled(self.scale))
        return scale, _tupled(self.offset), _tupled(self.sign_mode)


def _tupled(values) -> tuple:
    return tuple(values) if isinstance(values, (list, tuple)) else (values,)


@dataclass
class NdDmaLoopInfo(KeyedFields):
    """Per dimension of an NDDMA copy (``NdDmaLoopInfo<dim>``; GMToUB多维数据搬运NDDMA(DataCopy).md 表5).

    Five sequences of ``dim`` entries, entry 0 the innermost dimension: the source and destination
    strides between neighbouring elements (elements), the elements moved, and the left/right
    padding elements.  ``dim`` is their length.
    """

    loop_src_stride: list
    loop_dst_stride: list
    loop_size: list
    loop_lp_size: list
    loop_rp_size: list

    SOURCE = f"{pages.DATA_COPY_NDDMA} 参数说明 (表5 NdDmaLoopInfo); {semantics('5.12')}"

    def astuple(self) -> tuple:
        return tuple(_tupled(getattr(self, f.name)) for f in dataclasses.fields(self))


@dataclass
class NdDmaParams(KeyedFields):
    """An NDDMA copy's parameters (``NdDmaParams<T, dim>``, 表4): the loops and the constant padding value."""

    loop_info: NdDmaLoopInfo
    constant_value: int | float = 0

    def astuple(self) -> tuple:
        info = self.loop_info.fields_key() if isinstance(self.loop_info, NdDmaLoopInfo) else self.loop_info
        return info, self.constant_value, _sign_key(self.constant_value)


@dataclass
class NdDmaConfig(KeyedFields):
    """NDDMA options (``NdDmaConfig``, 表3): nearest-value padding, padding sizes for every dimension
    (``UNSET_PAD`` = 0xFFFF: take each dimension's own), and a reserved optimisation switch."""

    is_nearest_value_mode: bool = False
    loop_lp_size: int = 0xFFFF
    loop_rp_size: int = 0xFFFF
    asc_optimize: bool = False

    UNSET_PAD = 0xFFFF


def _sign_key(value) -> float:
    """-0.0 and 0.0 are equal but pad differently: the sign keys them apart."""
    return math.copysign(1.0, value) if isinstance(value, float) and value == value else 0.0


@dataclass
class Nd2NzParams(KeyedFields):
    """GM -> UB with ND -> NZ conversion (``Nd2NzParams``, all ``uint16_t``; GMToUB随路转换ND2NZ搬运(DataCopy).md 表3).

    ``nd_num`` matrices of ``n_value`` rows x ``d_value`` columns, rows ``src_d_value`` elements
    apart in GM, matrices ``src_nd_matrix_stride`` elements apart; in UB each row is cut into
    32-byte pieces (C0), piece ``b`` of row ``r`` at ``b * dst_nz_c0_stride + r * dst_nz_n_stride``
    DataBlocks, matrices ``dst_nz_matrix_stride`` elements apart.  Every field is required (pyasc).
    """

    nd_num: int
    n_value: int
    d_value: int
    src_nd_matrix_stride: int
    src_d_value: int
    dst_nz_c0_stride: int
    dst_nz_n_stride: int
    dst_nz_matrix_stride: int

    FIELD_BITS = dict.fromkeys(("nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_d_value",
                                "dst_nz_c0_stride", "dst_nz_n_stride", "dst_nz_matrix_stride"), 16)
    SOURCE = f"{pages.DATA_COPY_ND2NZ} 参数说明 (表3 Nd2NzParams); {semantics('5.10')}"


@dataclass
class Nz2NdParamsFull(KeyedFields):
    """UB -> GM with NZ -> ND conversion (``Nz2NdParamsFull``, all ``uint16_t``;
    UBToGM随路转换NZ2ND搬运(DataCopy).md 表3).

    ``nd_num`` NZ matrices of ``n_value`` rows x ``d_value`` columns (a multiple of 16): in UB,
    16-element rows, column block ``b`` of a matrix ``b * src_n_stride * 16`` elements from its
    start, matrices ``src_nd_matrix_stride * 256`` elements apart; in GM, rows ``dst_d_stride``
    elements apart, matrices ``dst_nd_matrix_stride`` elements apart.  Every field is required (pyasc).
    """

    nd_num: int
    n_value: int
    d_value: int
    src_nd_matrix_stride: int
    src_n_stride: int
    dst_d_stride: int
    dst_nd_matrix_stride: int

    FIELD_BITS = dict.fromkeys(("nd_num", "n_value", "d_value", "src_nd_matrix_stride", "src_n_stride",
                                "dst_d_stride", "dst_nd_matrix_stride"), 16)
    SOURCE = f"{pages.DATA_COPY_NZ2ND} 参数说明 (表3 Nz2NdParamsFull); {semantics('5.10')}"


@dataclass
class SliceInfo(KeyedFields):
    """One dimension of a slice copy (``SliceInfo``, all ``uint32_t``; GM与UB切片数据搬运(DataCopy).md 表3).

    ``start_index`` / ``end_index``: the first and last element (inclusive) of the selected span;
    ``stride``: elements skipped between two runs; ``burst_len``: a run's length in DataBlocks
    (dimension 0 only, 1 in the others); ``shape_value``: the dimension's full length in elements.
    Defaults are Ascend C's and pyasc's (``end_index = ONE_BLK_SIZE - 1``, ``burst_len = ONE_BLK_SIZE``).
    """

    start_index: int = 0
    end_index: int = 31
    stride: int = 0
    burst_len: int = 32
    shape_value: int = 0

    FIELD_BITS = {"start_index": 32, "end_index": 32, "stride": 32, "burst_len": 32, "shape_value": 32}
    SOURCE = f"{pages.DATA_COPY_SLICE} 参数说明 (表3 SliceInfo); {semantics('5.9')}"


def _padding_key(params) -> tuple:
    """The plan key of padding parameters: every field with its type, and a float padding value's sign
    (``0.0 == -0.0``, but they pad with different bits).  Made afresh per call: the fields may change."""
    fields = tuple(getattr(params, f.name) for f in dataclasses.fields(params))
    value = params.padding_value
    sign = bool(np.signbit(value)) if isinstance(value, (float, np.floating)) else None
    return (type(params), fields, tuple(map(type, fields)), sign)


@dataclass
class DataCopyPadParams:
    """Padding of ``data_copy_pad`` with :class:`DataCopyParams` (``DataCopyPadParams``).

    ``left_padding`` / ``right_padding`` count elements; ``padding_value`` is used (and
    loaded into the padding register) when ``is_pad`` is true.
    """

    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: Any = 0

    FIELD_BITS = {"left_padding": 16, "right_padding": 16}

    def fields_key(self) -> tuple:
        return _padding_key(self)


@dataclass
class DataCopyPadExtParams:
    """Padding of ``data_copy_pad`` with :class:`DataCopyExtParams` (pyasc ``DataCopyPadExtParams(dtype, ...)``);
    ``padding_value`` has the copy's element type."""

    dtype: Any = None
    is_pad: bool = False
    left_padding: int = 0
    right_padding: int = 0
    padding_value: Any = 0

    FIELD_BITS = {"left_padding": 16, "right_padding": 16}

    def fields_key(self) -> tuple:
        return _padding_key(self)


@dataclass
class MrgSort4Info(KeyedFields):
    """``MrgSort4Info`` (MrgSort.md 表3; ``kernel_struct_proposal.h``): the four queue lengths
    (``uint16_t``, in structures), whether the merge stops when a queue runs out, the valid
    queues (``uint16_t`` validBit) and the repeats (``uint16_t``).  pyasc's defaults
    (``core/types.py``).  ``element_lengths`` is kept as a tuple, so that a plan key made
    from it cannot go stale behind an in-place list edit."""

    element_lengths: tuple = (0, 0, 0, 0)
    if_exhausted_suspension: bool = False
    valid_bit: int = 15
    repeat_times: int = 1

    FIELD_BITS = {"valid_bit": 16, "repeat_times": 16}
    SOURCE = f"{pages.MRG_SORT} 参数说明 (表3 MrgSort4Info结构体参数定义)"

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "element_lengths" and isinstance(value, (list, np.ndarray)):
            value = tuple(value.tolist() if isinstance(value, np.ndarray) else value)
        super().__setattr__(name, value)

    def astuple(self) -> tuple:
        return self.element_lengths, self.if_exhausted_suspension, self.valid_bit, self.repeat_times


class MrgSortSrcList:
    """``MrgSortSrcList(dtype, src1, src2, src3=None, src4=None)`` (pyasc ``core/tensor.py``; MrgSort.md
    表2): the (up to) four sorted source queues of a merge sort, LocalTensors of ``dtype``.

    A merge binds it per call, like a tensor: its geometry is the queues' geometries, its base
    their addresses (``npusim.ascend.vendor``).
    """

    __slots__ = ("dtype", "src1", "src2", "src3", "src4")

    def __init__(self, dtype, src1, src2, src3=None, src4=None) -> None:
        self.dtype, self.src1, self.src2, self.src3, self.src4 = dtype, src1, src2, src3, src4

    @property
    def sources(self) -> tuple:
        return self.src1, self.src2, self.src3, self.src4

    def __repr__(self) -> str:
        return f"MrgSortSrcList({self.dtype}, {', '.join(map(repr, self.sources))})"


class SortType(IntEnum):
    """``SortType`` (高阶API Sort.md 表3): the algorithm of the SortConfig forms of Sort, in the C++ order."""

    RADIX_SORT = 0
    MERGE_SORT = 1


@dataclass(frozen=True, repr=False)
class SortConfig:
    """``SortConfig`` (高阶API Sort.md 表3; pyasc has none, so the C++ fields in snake_case): the algorithm and
    whether the result is descending.  Frozen, as the C++ ``constexpr`` template argument it stands for;
    ``fields_key()`` keys plans by it (the types keep ``True`` apart from ``1``)."""

    type: SortType = SortType.RADIX_SORT
    is_descend: bool = False

    SOURCE = f"{pages.SORT_HIGH_LEVEL} 参数说明 (表3)"

    def fields_key(self) -> tuple:
        return SortConfig, self.type, self.is_descend, type(self.type), type(self.is_descend)

    def __repr__(self) -> str:
        kind = f"SortType.{self.type.name}" if isinstance(self.type, SortType) else repr(self.type)
        return f"SortConfig({kind}, is_descend={self.is_descend!r})"


#: ``DEFAULT_SORT_CONFIG = {SortType::RADIX_SORT, false}``: radix sort, ascending (Sort.md 表3)
DEFAULT_SORT_CONFIG = SortConfig()
