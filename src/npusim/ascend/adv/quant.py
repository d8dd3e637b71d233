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

A LocalTensor ``scale`` selects the per-channel form (:mod:`.quant_channel`).  The 950 and the Kirin rows run
their own implementation, one vector function (:mod:`.quant_register`; with ``policy`` and ``para`` the 950's
PER_TOKEN / PER_GROUP, :mod:`.quant_group`; docs/semantics.md §5.30).  Not modelled: on the A2/A3 and 310P
the framework-allocated temporary space (no ``temp_buffer``), and the Atlas training series'
implementation (``__NPU_ARCH__`` 1001): those are an :class:`~npusim.errors.UnsupportedError`.
"""

from __future__ import annotations

from ...errors import OutOfBoundsError, ParameterRangeError
from ...validate import require_bool, require_int
from ..core import current_core
from ..ops.cast import cast
from ..ops.elementwise import adds, muls
from ..tensor import LocalTensor
from ..types import RoundMode
from .quant_channel import quant_per_channel
from .quant_common import (
    HALF,
    MIN_TMP_BYTES,
    NAME,
    PAGE,
    QUANT_PRODUCTS,
    QuantConfig,
    check_overlap,
    check_written_up_front,
    chunk_length,
    half_scalars,
    quant_operands,
)
from .quant_group import AscendQuantParam, AscendQuantPolicy, quant_token_group
from .quant_register import REGISTER_PRODUCTS, quant_register

__all__ = ["MIN_TMP_BYTES", "QUANT_PRODUCTS", "AscendQuantParam", "AscendQuantPolicy", "QuantConfig", "quant"]


def quant(dst: LocalTensor, src: LocalTensor, scale, offset, count: int | None = None,
          temp_buffer: LocalTensor | None = None, reuse_source: bool = False,
          config: QuantConfig | None = None, *, scale_count: int | None = None,
          offset_count: int | None = None, policy: AscendQuantPolicy | None = None,
          para: AscendQuantParam | None = None) -> None:
    """Quantise ``count`` elements (default: all of ``src``) to int8: ``cast(half(src) * scale + offset)``.

    ``scale`` and ``offset`` numbers: per tensor.  ``scale`` a LocalTensor (``offset`` a number or a
    LocalTensor, both of src's type): per channel, the C++ ``AscendQuant(dst, src, sharedTmpBuffer,
    scaleTensor, offset[Tensor], scaleCount[, offsetCount], calCount)``, whose counts default to the
    tensors' sizes as the "全部参与计算" prototypes do (:func:`.quant_channel.quant_per_channel`).
    With ``policy`` (PER_TOKEN / PER_GROUP, the 950) and ``para``: :func:`.quant_group.quant_token_group`.
    On the 950 and Kirin rows dst's type is the ``dstT`` of the page's dstT prototypes
    (:mod:`.quant_register`).
    """
    core = current_core(NAME)
    require_bool(NAME, "reuse_source", reuse_source)  # reserved (参数说明: 该参数预留)
    config = QuantConfig() if config is None else config
    if not isinstance(config, QuantConfig):
        raise TypeError(f"{NAME}: config must be an asc.adv.QuantConfig, got {type(config).__name__}")
    if policy is not None or para is not None:
        if count is not None or scale_count is not None or offset_count is not None:
            raise TypeError(f"{NAME}: the PER_TOKEN / PER_GROUP prototypes take their counts in para ({PAGE} 函数原型)")
        quant_token_group(core, dst, src, scale, offset, temp_buffer, config, policy, para)
        return
    if core.chip.name in REGISTER_PRODUCTS:  # the 950 and Kirin: one vector function (quant_register)
        quant_register(core, dst, src, scale, offset, count, temp_buffer, config, scale_count, offset_count)
        return
    dst, src, tmp = quant_operands(core, dst, src, temp_buffer)
    if isinstance(scale, LocalTensor):
        quant_per_channel(core, dst, src, tmp, scale, offset, count, config, scale_count, offset_count)
        return
    for label, value in (("scale_count", scale_count), ("offset_count", offset_count), ("offset", offset)):
        if isinstance(value, LocalTensor) or (label != "offset" and value is not None):
            raise TypeError(f"{NAME}: {label} belongs to the per-channel form, whose scale is a LocalTensor; "
                            f"the per-tensor form takes scale and offset as numbers ({PAGE} 函数原型)")
    scale_half, offset_half = half_scalars(scale, offset)
    total, split = _work(src, dst, tmp, count, config)
    used_tmp = min(split, total) * HALF.itemsize
    check_overlap(src, dst, tmp, total, used_tmp)
    check_written_up_front(core, {"src": (src.addr, src.addr + total * src.dtype.itemsize)})
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
    return total, chunk_length(chunk_bytes, "config.work_local_size", config.work_local_size)


