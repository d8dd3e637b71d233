"""What AscendQuant's int8 forms share (高阶API/量化操作/AscendQuant.md, ``ascend_quant_pre_impl.h``):
the products npusim follows, ``QuantConfig``, the operand and tmp-buffer checks, the chunking of the tmp
buffer and the overlap rules.  :mod:`.quant` (the entry point, per tensor) and :mod:`.quant_channel`
(per channel) build on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...dtypes import DTYPES
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...rounding import float_bits
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..ops.common import require_ub_tensor
from ..scalars import require_scalar
from ..tensor import LocalTensor
from ..types import RoundMode

__all__ = ["HALF", "MIN_TMP_BYTES", "NAME", "PAGE", "QUANT_PRODUCTS", "QuantConfig", "check_overlap",
           "check_written_up_front", "chunk_length", "half_scalars", "quant_operands", "to_half"]

NAME = "quant"
PAGE = pages.ASCEND_QUANT
#: the products whose implementation npusim follows (ascend_quant_pre_impl.h, __NPU_ARCH__ 2201 and 2002)
QUANT_PRODUCTS = frozenset({"A2", "A3", "310P"})
#: src types of the per-tensor int8 form (参数说明 表1: T is half or float)
SRC_DTYPES = frozenset({"float16", "float32"})
MIN_TMP_BYTES = 2 * 256  # GetAscendQuantMaxMinTmpSize's minValue (impl/adv_api/tiling/.../ascend_quant_tiling_impl.cpp)
HALF_MAX = 65504.0
HALF = DTYPES["float16"]
FLOAT = DTYPES["float32"]


@dataclass(frozen=True)
class QuantConfig:
    """``AscendQuantConfig`` (AscendQuant.md 参数说明): all 0 by default (``ASCEND_QUANT_DEFAULT_CFG``).

    With ``calc_count`` and ``work_local_size`` both non-zero the per-tensor form processes ``calc_count``
    elements in chunks of ``work_local_size`` bytes of the tmp buffer; the offset and scale counts
    belong to the per-channel forms.  ``has_offset``, ``k_dim`` and ``round_mode`` (keyword only) are the
    fields the 950 and Kirin builds of the struct add for PER_TOKEN / PER_GROUP (表3;
    ``include/adv_api/quantization/ascend_quant_utils.h``): whether the offset takes part, the group's
    axis (0: m, 1: n) and the final conversion's rounding mode.
    """

    calc_count: int = 0
    offset_count: int = 0
    scale_count: int = 0
    work_local_size: int = 0
    has_offset: bool = field(default=False, kw_only=True)
    k_dim: int = field(default=1, kw_only=True)
    round_mode: RoundMode = field(default=RoundMode.CAST_RINT, kw_only=True)

    def __post_init__(self) -> None:
        for name in ("calc_count", "offset_count", "scale_count", "work_local_size"):
            require_uint("QuantConfig", name, getattr(self, name), 32, f"{PAGE} 参数说明")
        object.__setattr__(self, "has_offset", require_bool("QuantConfig", "has_offset", self.has_offset))
        require_int("QuantConfig", "k_dim", self.k_dim, -(1 << 31), (1 << 31) - 1, f"{PAGE} 参数说明",
                    rule="kDim is an int32_t")
        if not isinstance(self.round_mode, RoundMode):
            raise TypeError(f"QuantConfig: round_mode must be an asc.RoundMode, got {self.round_mode!r}")


def quant_operands(core, dst, src, temp_buffer) -> tuple[LocalTensor, LocalTensor, LocalTensor]:
    """dst, src and the temp buffer, after the product, tensor and type checks every form shares."""
    chip = core.chip
    if chip.name not in QUANT_PRODUCTS:
        raise UnsupportedError(NAME, "product", chip.product, "npusim follows AscendQuant's implementations for "
                               "__NPU_ARCH__ 2201 and 2002 (memory instructions) and 3510, 3003 and 3113 (one "
                               "vector function); not the Atlas training series' (1001)",
                               "Atlas A2, Atlas A3, Atlas inference AI Core, Ascend 950, Kirin X90, Kirin 9030",
                               f"{PAGE} 产品支持情况")
    dst = require_ub_tensor(NAME, "dst", dst, core)
    src = require_ub_tensor(NAME, "src", src, core)
    if temp_buffer is None:
        raise UnsupportedError(NAME, "temp_buffer", None, "npusim does not model the framework-allocated temporary "
                               "space; pass temp_buffer", "a LocalTensor<uint8_t>", f"{PAGE} 函数原型")
    tmp = require_ub_tensor(NAME, "temp_buffer", temp_buffer, core)
    for label, tensor, allowed in (("dst", dst, {"int8"}), ("src", src, SRC_DTYPES), ("temp_buffer", tmp, {"uint8"})):
        if tensor.dtype.name not in allowed:
            raise UnsupportedError(NAME, f"{label} dtype", tensor.dtype.name, f"AscendQuant's int8 prototypes take "
                                   f"{label} as {' or '.join(sorted(allowed))}", ", ".join(sorted(allowed)),
                                   f"{PAGE} 函数原型, 参数说明")
    if tmp.nbytes < MIN_TMP_BYTES:
        raise ParameterRangeError(NAME, "temp_buffer size", tmp.nbytes, "the temporary space must not be smaller "
                                  "than GetAscendQuantMaxMinTmpSize's minimum", f"at least {MIN_TMP_BYTES} bytes",
                                  f"{pages.ASCEND_QUANT_TMP_SIZE} 参数说明")
    return dst, src, tmp


def chunk_length(chunk_bytes: int, operand: str, value: int) -> int:
    """Halves per chunk of the tmp buffer: ``splitSize = bytes / sizeof(half) / 32 * 32``, not 0."""
    split = chunk_bytes // HALF.itemsize // 32 * 32
    if split == 0:  # ASCENDC_ASSERT(splitSize != 0)
        raise ParameterRangeError(NAME, operand, value, "the chunk holds no 32 halves", "at least 64 bytes",
                                  f"{PAGE} 参数说明")
    return split


def half_scalars(scale, offset) -> tuple[np.float16, np.float16]:
    """scale and offset as the C float parameters, then ``static_cast<half>``; scale within half's range
    (约束说明: 当Scale为float类型时，其取值范围仍为half类型的取值范围)."""
    for label, value in (("scale", scale), ("offset", offset)):
        require_scalar(NAME, label, value)
    as_float = _as_float32(scale)
    if not np.isfinite(as_float) or abs(float(as_float)) > HALF_MAX:
        raise ParameterRangeError(NAME, "scale", scale, "the scale stays inside half's range even when passed as "
                                  "float", f"[-{HALF_MAX}, {HALF_MAX}]", f"{PAGE} 约束说明")
    return to_half(scale), to_half(offset)


def to_half(value, as_float: bool = True) -> np.float16:
    """``static_cast<half>`` of a C scalar parameter: a ``float`` one (``as_float``) holds the float32 nearest
    ``value``, which is then rounded to half (two roundings); a ``half`` one is ``value`` rounded to half once.
    Each rounding is of the exact value, to nearest even, an ``int`` included (as every scalar parameter's,
    :func:`npusim.ascend.scalars.scalar_bits`); out of range: infinity."""
    if not as_float:
        return np.uint16(float_bits(value, HALF)).view(np.float16)
    with np.errstate(over="ignore"):
        return np.float16(_as_float32(value))  # numpy's float32 -> half is IEEE's, to nearest even


def _as_float32(value) -> np.float32:
    """``value`` as a C ``float`` parameter: the exact value rounded once to float32."""
    return np.uint32(float_bits(value, FLOAT)).view(np.float32)


def check_written_up_front(core, spans: dict[str, tuple[int, int]], name: str = NAME) -> None:
    """Under a raising never-written policy, the caller's bytes the steps read (``label -> [start, stop)``),
    checked before the first step runs: a later step's raise would leave the earlier steps' writes (dst's
    first chunks, a float scale tensor's halves), and a rejected call changes nothing."""
    if core.ub.raises_on_uninitialized():
        for label, (start, stop) in spans.items():
            core.ub.check_initialized_span(name, label, start, stop)


def check_overlap(src: LocalTensor, dst: LocalTensor, tmp: LocalTensor, total: int, used_tmp: int) -> None:
    """The tmp bytes the chunks use lie clear of src and dst; dst and src are disjoint or start together
    (约束说明: 源操作数与目的操作数可以复用), so no chunk overwrites a later chunk's source."""
    spans = {"src": (src.addr, src.addr + total * src.dtype.itemsize), "dst": (dst.addr, dst.addr + total)}
    for label, (lo, hi) in spans.items():
        if total and lo < tmp.addr + used_tmp and tmp.addr < hi:
            raise OverlapError(NAME, f"{label} byte range", f"[{lo:#x}, {hi:#x})", f"{label} must not overlap the "
                               f"temp buffer bytes [{tmp.addr:#x}, {tmp.addr + used_tmp:#x}) the chunks use",
                               "disjoint byte ranges", f"{PAGE} 约束说明")
    (s_lo, s_hi), (d_lo, d_hi) = spans["src"], spans["dst"]
    if total and d_lo < s_hi and s_lo < d_hi and d_lo != s_lo:
        raise OverlapError(NAME, "dst byte range", f"[{d_lo:#x}, {d_hi:#x})", "dst may reuse src only from the "
                           "same address (a shifted dst would overwrite elements a later chunk reads)",
                           f"disjoint from [{s_lo:#x}, {s_hi:#x}) or starting at {s_lo:#x}", f"{PAGE} 约束说明")


def parameter_tensor(core, label: str, tensor, src: LocalTensor) -> LocalTensor:
    """A per-channel scale or offset tensor: a UB LocalTensor of src's type (函数原型: ``LocalTensor<T>`` /
    ``LocalTensor<srcT>``)."""
    tensor = require_ub_tensor(NAME, label, tensor, core)
    if tensor.dtype is not src.dtype:
        raise UnsupportedError(NAME, f"{label} dtype", tensor.dtype.name, f"the per-channel prototypes take the "
                               f"{label} tensor in src's type", src.dtype.name, f"{PAGE} 函数原型")
    return tensor
