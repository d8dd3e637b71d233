"""AscendQuant per channel (高阶API/量化操作/AscendQuant.md, PER_CHANNEL量化): src of shape [m, n], a scale
(and optionally an offset) per channel, ``dst[i, j] = cast_int8(half(src[i, j]) * scale[j] + offset[j])``.

The composition is the vendor's for the Atlas A2/A3 and the Atlas inference AI Core
(``impl/adv_api/detail/quantization/quant/ascend_quant_pre_impl.h``: ``AscendQuantCalc`` with a scale
tensor, ``AscendQuantImplStatic``, ``AscendQuantPerChannelImpl`` and
``AscendQuantPerChannelIntrinsicsImpl``), every step one of npusim's count-form instructions:

* a float scale (and offset) tensor is first cast to half **in place**: ``Cast`` float -> half,
  CAST_NONE, over ``scaleCount`` elements, onto the tensor's own first bytes ("source vector of scale is
  reused"), so after the call those bytes hold halves, as on the device;
* then row by row (``calCount / scaleCount`` rows of ``scaleCount`` elements), in chunks of
  ``splitSize = tmp bytes / 2 / 32 * 32`` halves of the tmp buffer: [float src: ``Cast`` float -> half],
  ``Mul`` by the half scales, ``Adds`` of ``half(offset)`` or ``Add`` of the half offsets, ``Cast``
  half -> int8, CAST_NONE (round to nearest even, saturating).

With a ``QuantConfig`` whose ``scale_count`` and ``calc_count`` are both non-zero (the ``constexpr`` path)
those replace the runtime counts; with ``scale_count`` and ``work_local_size`` non-zero each row is
``config.scale_count`` elements in chunks of ``work_local_size`` bytes, as ``AscendQuantPerChannelImpl``
does.  Every rule is checked before the first instruction, so a rejected call changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import OutOfBoundsError, OverlapError, ParameterRangeError
from ...validate import require_int
from ..core import Core
from ..ops.cast import cast
from ..ops.elementwise import add, adds, mul
from ..scalars import require_scalar
from ..tensor import LocalTensor
from ..types import RoundMode
from .quant_common import (
    HALF,
    NAME,
    PAGE,
    QuantConfig,
    check_overlap,
    check_written_up_front,
    chunk_length,
    parameter_tensor,
    to_half,
)

__all__ = ["quant_per_channel"]

SOURCE = f"{PAGE} 参数说明"  # 表6, PER_CHANNEL接口参数说明


@dataclass(frozen=True)
class ChannelWork:
    """The loop ``AscendQuantCalc`` runs: ``rows`` rows ``row_stride`` elements apart, ``row_length``
    elements each in chunks of ``split`` halves; ``converted`` scale (offset) elements cast to half first."""

    rows: int
    row_stride: int
    row_length: int
    split: int
    converted: int

    @property
    def extent(self) -> int:
        """Elements of src and dst the rows cover."""
        return (self.rows - 1) * self.row_stride + self.row_length if self.rows else 0


def quant_per_channel(core: Core, dst: LocalTensor, src: LocalTensor, tmp: LocalTensor, scale, offset,
                      count: int | None, config: QuantConfig, scale_count: int | None,
                      offset_count: int | None) -> None:
    """The per-channel form of :func:`npusim.ascend.adv.quant` (dst, src and tmp already checked)."""
    scale = parameter_tensor(core, "scale", scale, src)
    offset_tensor = parameter_tensor(core, "offset", offset, src) if isinstance(offset, LocalTensor) else None
    offset_half = None if offset_tensor is not None else _half_offset(offset, src)
    if offset_tensor is None and offset_count is not None:
        raise TypeError(f"{NAME}: offset_count belongs to the form with an offset tensor ({PAGE} 函数原型)")
    work = _work(dst, src, tmp, scale, offset_tensor, count, config, scale_count, offset_count)
    _check_parameter_overlap(src, dst, tmp, scale, offset_tensor, work)
    check_written_up_front(core, _read_spans(src, scale, offset_tensor, work))
    is_float = src.dtype.name == "float32"
    half_scale = scale.reinterpret_cast(HALF) if is_float else scale
    half_offset = None if offset_tensor is None else (
        offset_tensor.reinterpret_cast(HALF) if is_float else offset_tensor)
    if is_float:  # "source vector of scale is reused": the float parameters become halves in place
        cast(half_scale, scale, RoundMode.CAST_NONE, work.converted)
        if offset_tensor is not None:
            cast(half_offset, offset_tensor, RoundMode.CAST_NONE, work.converted)
    buffer = tmp.reinterpret_cast(HALF)
    for row in range(work.rows):
        for start in range(0, work.row_length, work.split):
            n = min(work.split, work.row_length - start)
            at = row * work.row_stride + start
            source = src[at:]
            if is_float:
                cast(buffer, source, RoundMode.CAST_NONE, n)
                source = buffer
            mul(buffer, source, half_scale[start:], n)
            if half_offset is None:
                adds(buffer, buffer, offset_half, n)
            else:
                add(buffer, buffer, half_offset[start:], n)
            cast(dst[at:], buffer, RoundMode.CAST_NONE, n)



def _half_offset(offset, src: LocalTensor) -> np.float16:
    """The scalar offset, a ``T`` parameter, as ``static_cast<half>``: float -> half for a float T."""
    require_scalar(NAME, "offset", offset, " or a LocalTensor")
    return to_half(offset, as_float=src.dtype.name == "float32")


def _work(dst, src, tmp, scale, offset, count, config: QuantConfig, scale_count, offset_count) -> ChannelWork:
    """The loop, after the page's rules (表6, 约束说明) and the implementation's (``IsQuantParamValid``,
    ``IsQuantConfigValid``)."""
    scale_count = scale.tile_size if scale_count is None else scale_count
    scale_count = require_int(NAME, "scale_count", scale_count, 1, min(scale.tile_size, dst.tile_size), SOURCE,
                              rule="scaleCount lies in [1, min(scaleTensor size, dstTensor size)] (0: no channel)")
    if scale_count % 32:
        raise ParameterRangeError(NAME, "scale_count", scale_count, "scaleCount must be a multiple of 32",
                                  "multiples of 32", SOURCE)
    if offset is not None:
        offset_count = offset.tile_size if offset_count is None else offset_count
        require_int(NAME, "offset_count", offset_count, scale_count, scale_count, SOURCE,
                    rule="offsetCount equals scaleCount")
        require_int(NAME, "offset_count", offset_count, 0, offset.tile_size, SOURCE,
                    rule="offsetCount must not exceed the offset tensor's size")
    count = src.tile_size if count is None else count
    count = require_int(NAME, "count", count, 1, src.tile_size, SOURCE,
                        rule="calCount lies in [1, srcTensor size] (IsQuantParamValid)")
    if count % scale_count:
        raise ParameterRangeError(NAME, "count", count, f"calCount must be a multiple of scaleCount ({scale_count})",
                                  f"multiples of {scale_count}", SOURCE)
    _check_config(config, src, tmp, scale, offset)
    if config.scale_count and config.calc_count:  # AscendQuantImplStatic
        rows, stride = config.calc_count // config.scale_count, config.scale_count
    else:
        rows, stride = count // scale_count, scale_count
    if config.work_local_size and config.scale_count:  # AscendQuantPerChannelImpl's constexpr chunking
        length, split = config.scale_count, chunk_length(config.work_local_size, "config.work_local_size",
                                                          config.work_local_size)
    else:
        length, split = stride, chunk_length(tmp.nbytes, "temp_buffer size", tmp.nbytes)
    work = ChannelWork(rows, stride, length, split, stride)
    for label, tensor in (("src", src), ("dst", dst)):
        if work.extent > tensor.tile_size:
            raise OutOfBoundsError(NAME, f"{label} size", tensor.tile_size, f"the rows cover {work.extent} "
                                   f"elements of {label}", f"at least {work.extent} elements", SOURCE)
    for label, tensor in (("scale", scale), ("offset", offset)):
        halves = 0 if tensor is None else tensor.nbytes // HALF.itemsize
        if tensor is not None and length > halves:
            raise OutOfBoundsError(NAME, f"{label} size", tensor.tile_size, f"each row reads {length} half "
                                   f"{label}s", f"at least {length} halves", SOURCE)
    return work


def _check_config(config: QuantConfig, src, tmp, scale, offset) -> None:
    """``IsQuantConfigValid`` (ascend_quant_pre_impl.h): the constexpr counts fit the tensors."""
    source = SOURCE  # and the implementation's IsQuantConfigValid
    require_int(NAME, "config.calc_count", config.calc_count, 0, src.tile_size, source,
                rule="config.calcCount must not exceed src's size")
    require_int(NAME, "config.scale_count", config.scale_count, 0, scale.tile_size, source,
                rule="config.scaleCount must not exceed the scale tensor's size")
    if config.scale_count % 32 or (config.scale_count and config.calc_count % config.scale_count):
        raise ParameterRangeError(NAME, "config.scale_count", config.scale_count, "config.scaleCount is a multiple "
                                  "of 32 and divides config.calcCount", "multiples of 32 dividing calc_count", source)
    require_int(NAME, "config.work_local_size", config.work_local_size, 0, tmp.nbytes, source,
                rule="config.workLocalSize must not exceed the temp buffer's size")
    if offset is not None:
        require_int(NAME, "config.offset_count", config.offset_count, config.scale_count, config.scale_count,
                    source, rule="config.offsetCount equals config.scaleCount")
        require_int(NAME, "config.offset_count", config.offset_count, 0, offset.tile_size, source,
                    rule="config.offsetCount must not exceed the offset tensor's size")


def _read_spans(src, scale, offset, work: ChannelWork) -> dict[str, tuple[int, int]]:
    """The bytes the steps read from src and the parameter tensors (each row's ``row_length`` halves; a float
    tensor's ``converted`` elements too, which the first Cast reads)."""
    spans = {"src": (src.addr, src.addr + work.extent * src.dtype.itemsize)}
    for label, tensor in (("scale", scale), ("offset", offset)):
        if tensor is not None:
            spans[label] = (tensor.addr, tensor.addr + _parameter_bytes(tensor, work))
    return spans


def _parameter_bytes(tensor: LocalTensor, work: ChannelWork) -> int:
    """The bytes of a scale or offset tensor the call reads (and, for float, rewrites as halves)."""
    converted = work.converted * tensor.dtype.itemsize if tensor.dtype.name == "float32" else 0
    return max(work.row_length * HALF.itemsize, converted)


def _check_parameter_overlap(src, dst, tmp, scale, offset, work: ChannelWork) -> None:
    """src, dst and the tmp bytes as the per-tensor form requires; the scale and offset bytes the call reads
    (and, for float, rewrites as halves) clear of src, dst and the tmp buffer, and of each other for float."""
    used_tmp = min(work.split, work.row_length) * HALF.itemsize
    check_overlap(src, dst, tmp, work.extent, used_tmp)
    is_float = src.dtype.name == "float32"
    spans = {"src": (src.addr, src.addr + work.extent * src.dtype.itemsize), "dst": (dst.addr, dst.addr + work.extent),
             "temp_buffer": (tmp.addr, tmp.addr + used_tmp)}
    parameters = {}
    for label, tensor in (("scale", scale), ("offset", offset)):
        if tensor is not None:
            parameters[label] = (tensor.addr, tensor.addr + _parameter_bytes(tensor, work))
    if is_float and len(parameters) == 2:
        spans["scale"] = parameters["scale"]  # both are rewritten in place: they must not share a byte
        parameters = {"offset": parameters["offset"]}
    for label, (lo, hi) in parameters.items():
        for other, (o_lo, o_hi) in spans.items():
            if lo < o_hi and o_lo < hi:
                raise OverlapError(NAME, f"{label} byte range", f"[{lo:#x}, {hi:#x})", f"the {label} bytes the call "
                                   f"reads{' and rewrites as halves' if is_float else ''} must not overlap {other}",
                                   f"disjoint from [{o_lo:#x}, {o_hi:#x})", f"{PAGE} 约束说明")
