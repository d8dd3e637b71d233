"""AscendQuant, per tensor (高阶API/量化操作/AscendQuant.md): ``dst = cast_int8(half(src) * scale + offset)``.

pyasc's ``asc.adv.quant(dst, src, scale, offset, count=None, temp_buffer=None, reuse_source=False,
config=None)`` with ``config = asc.adv.QuantConfig(calc_count, offset_count, scale_count,
work_local_size)`` (the C++ ``AscendQuantConfig``).

The composition is the vendor's for the Atlas A2/A3 and the Atlas inference AI Core
(``impl/adv_api/detail/quantization/quant/ascend_quant_pre_impl.h``, ``AscendQuantCalc`` and
``AscendQuantIntrinsicsImpl``, shared by ``__NPU_ARCH__`` 2201 and 2002):

* scale and offset arrive as C ``float`` and become half by ``static_cast<half>`` (round to nearest
  even): ``half(float(scale))``;
* the elements are processed in chunks of ``split`` halves, ``split = tmp bytes / 2 / 32 * 32`` (with a
  ``QuantConfig`` whose ``calc_count`` and ``work_local_size`` are both non-zero: ``work_local_size``
  instead of the buffer's size, and ``calc_count`` instead of ``count``), the last chunk shorter;
* per chunk, in the tmp buffer viewed as half: [float src: ``Cast`` float -> half, CAST_NONE], ``Muls``
  by the half scale, ``Adds`` of the half offset, then ``Cast`` half -> int8, CAST_NONE (round to
  nearest even, saturating), each step rounding to half as that instruction does.

Each step is npusim's own instruction (``cast``, ``muls``, ``adds``, count forms: the vendor issues them
in counter mode and ends with ``SetMaskNorm(); ResetMask()``, the state a count form leaves), so a call
is as exact as they are and its access records are theirs, one per instruction issued.  Every rule of
the page is checked before the first instruction runs, so a rejected call changes nothing.

Not modelled: the per-channel / per-token / per-group forms, the framework-allocated temporary
space (no ``temp_buffer``), and the other products' implementations (the 950's ``dav_3510`` register
code, the Atlas training series' ``dav_c100``): those are an :class:`~npusim.errors.UnsupportedError`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from ...dtypes import DTYPES
from ...errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..core import current_core
from ..ops.cast import cast
from ..ops.common import require_ub_tensor
from ..ops.elementwise import adds, muls
from ..tensor import LocalTensor
from ..types import RoundMode

__all__ = ["MIN_TMP_BYTES", "QUANT_PRODUCTS", "QuantConfig", "quant"]

NAME = "quant"
PAGE = pages.ASCEND_QUANT
#: the products whose implementation npusim follows (ascend_quant_pre_impl.h, __NPU_ARCH__ 2201 and 2002)
QUANT_PRODUCTS = frozenset({"A2", "A3", "310P"})
#: src types of the per-tensor int8 form (参数说明 表1: T is half or float)
SRC_DTYPES = frozenset({"float16", "float32"})
MIN_TMP_BYTES = 2 * 256  # GetAscendQuantMaxMinTmpSize's minValue (impl/adv_api/tiling/.../ascend_quant_tiling_impl.cpp)
HALF_MAX = 65504.0
HALF = DTYPES["float16"]


@dataclass(frozen=True)
class QuantConfig:
    """``AscendQuantConfig`` (AscendQuant.md 参数说明): all 0 by default (``ASCEND_QUANT_DEFAULT_CFG``).

    With ``calc_count`` and ``work_local_size`` both non-zero the per-tensor form processes ``calc_count``
    elements in chunks of ``work_local_size`` bytes of the tmp buffer; the offset and scale counts
    belong to the per-channel forms.
    """

    calc_count: int = 0
    offset_count: int = 0
    scale_count: int = 0
    work_local_size: int = 0

    def __post_init__(self) -> None:
        for field in fields(self):
            require_uint("QuantConfig", field.name, getattr(self, field.name), 32, f"{PAGE} 参数说明")


def quant(dst: LocalTensor, src: LocalTensor, scale: float, offset: float, count: int | None = None,
          temp_buffer: LocalTensor | None = None, reuse_source: bool = False,
          config: QuantConfig | None = None) -> None:
    """Quantise ``count`` elements (default: all of ``src``) to int8: ``cast(half(src) * scale + offset)``."""
    core = current_core(NAME)
    chip = core.chip
    if chip.name not in QUANT_PRODUCTS:
        raise UnsupportedError(NAME, "product", chip.product, "npusim follows AscendQuant's implementation for "
                               "__NPU_ARCH__ 2201 and 2002 only", "Atlas A2, Atlas A3, Atlas inference AI Core",
                               f"{PAGE} 产品支持情况")
    dst = require_ub_tensor(NAME, "dst", dst, core)
    src = require_ub_tensor(NAME, "src", src, core)
    if temp_buffer is None:
        raise UnsupportedError(NAME, "temp_buffer", None, "npusim does not model the framework-allocated temporary "
                               "space; pass temp_buffer", "a LocalTensor<uint8_t>", f"{PAGE} 函数原型")
    tmp = require_ub_tensor(NAME, "temp_buffer", temp_buffer, core)
    for label, tensor, allowed in (("dst", dst, {"int8"}), ("src", src, SRC_DTYPES), ("temp_buffer", tmp, {"uint8"})):
        if tensor.dtype.name not in allowed:
            raise UnsupportedError(NAME, f"{label} dtype", tensor.dtype.name, f"the per-tensor form takes {label} "
                                   f"as {' or '.join(sorted(allowed))}", ", ".join(sorted(allowed)),
                                   f"{PAGE} 函数原型, 参数说明")
    require_bool(NAME, "reuse_source", reuse_source)  # reserved (参数说明: 该参数预留)
    scale_half, offset_half = _half_scalars(scale, offset)
    config = QuantConfig() if config is None else config
    if not isinstance(config, QuantConfig):
        raise TypeError(f"{NAME}: config must be an asc.adv.QuantConfig, got {type(config).__name__}")
    total, split = _work(src, dst, tmp, count, config)
    used_tmp = min(split, total) * HALF.itemsize
    _check_overlap(src, dst, tmp, total, used_tmp)
    work = tmp.reinterpret_cast(HALF)
    for start in range(0, total, split):
        n = min(split, total - start)
        source = src[start:]
        if src.dtype.name == "float32":
            cast(work, source, RoundMode.CAST_NONE, n)
            source = work
        muls(work, source, scale_half, n)
        adds(work, work, offset_half, n)
        cast(dst[start:], work, RoundMode.CAST_NONE, n)


def _half_scalars(scale, offset) -> tuple[np.float16, np.float16]:
    """scale and offset as the C float parameters, then ``static_cast<half>``; scale within half's range
    (约束说明: 当Scale为float类型时，其取值范围仍为half类型的取值范围)."""
    for label, value in (("scale", scale), ("offset", offset)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{NAME}: {label} must be a number, got {type(value).__name__}")
    with np.errstate(over="ignore"):
        as_float = np.float32(scale), np.float32(offset)
    if not np.isfinite(as_float[0]) or abs(float(as_float[0])) > HALF_MAX:
        raise ParameterRangeError(NAME, "scale", scale, "the scale stays inside half's range even when passed as "
                                  "float", f"[-{HALF_MAX}, {HALF_MAX}]", f"{PAGE} 约束说明")
    with np.errstate(over="ignore"):
        return np.float16(as_float[0]), np.float16(as_float[1])


def _work(src: LocalTensor, dst: LocalTensor, tmp: LocalTensor, count, config: QuantConfig) -> tuple[int, int]:
    """(elements to process, chunk length in halves), after the page's and the implementation's checks."""
    source = f"{PAGE} 参数说明"
    if config.calc_count and config.work_local_size:  # the constexpr path of AscendQuantCalc
        total = require_int(NAME, "config.calc_count", config.calc_count, 1, src.tile_size, source,
                            rule="config.calcCount must not exceed src's size (IsQuantValid)")
        chunk_bytes = require_int(NAME, "config.work_local_size", config.work_local_size, 1, tmp.nbytes, source,
                                  rule="config.workLocalSize must not exceed the temp buffer's size (IsQuantValid)")
        what = "config.calc_count"
    else:
        total = src.tile_size if count is None else require_int(
            NAME, "count", count, 0, src.tile_size, source, rule="calCount must not exceed src's size (IsQuantValid)")
        chunk_bytes = tmp.nbytes
        what = "count"
    if total % 32:
        raise ParameterRangeError(NAME, what, total, "the data length of every operand must be a multiple of 32 "
                                  "bytes (int8 dst: 32 elements)", "multiples of 32", f"{PAGE} 约束说明")
    if total > dst.tile_size:
        raise OutOfBoundsError(NAME, "dst size", dst.tile_size, f"dst must hold the {total} results",
                               f"at least {total} elements", source)
    if tmp.nbytes < MIN_TMP_BYTES:
        raise ParameterRangeError(NAME, "temp_buffer size", tmp.nbytes, "the temporary space must not be smaller "
                                  "than GetAscendQuantMaxMinTmpSize's minimum", f"at least {MIN_TMP_BYTES} bytes",
                                  f"{pages.ASCEND_QUANT_TMP_SIZE} 参数说明")
    split = chunk_bytes // HALF.itemsize // 32 * 32
    if split == 0:  # ASCENDC_ASSERT(splitSize != 0)
        raise ParameterRangeError(NAME, "config.work_local_size", config.work_local_size, "the chunk holds no 32 "
                                  "halves", "at least 64 bytes", source)
    return total, split


def _check_overlap(src: LocalTensor, dst: LocalTensor, tmp: LocalTensor, total: int, used_tmp: int) -> None:
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
