"""AscendQuant per tensor and per channel on the register-ISA products: the Ascend 950 (``__NPU_ARCH__`` 3510,
``impl/adv_api/detail/quantization/quant/ascend_quant_3510_impl.h``) and the Kirin X90 / Kirin 9030 (3003 /
3113, ``ascend_quant_l300_impl.h``; ``ascend_quant_common_impl.h`` selects the file by ``__NPU_ARCH__``).

On these products AscendQuant is one vector function: each register of src (128 halves or 64 floats) is
loaded, converted, multiplied, offset and converted to dst's type, and stored; the scale and offset tensors
are loaded per register of a row.  So, unlike the A2/A3 and 310P (:mod:`.quant`), nothing else is written:
the temp buffer is not used (npusim neither requires nor touches it) and a float scale tensor stays float.
What each lane computes is :mod:`.quant_lanes`.  The call is one access record on the V pipe (reads: src and
the parameter tensors' bytes; writes: dst's).

Forms (AscendQuant.md 函数原型): the int8 prototypes ``AscendQuant<T>`` (T half / float; the 950's code takes
bfloat16 too) and, on the 950, the ``dstT`` prototypes ``AscendQuant<dstT, srcT>`` with dstT int8,
fp8_e4m3fn_t, fp8_e5m2_t or hifloat8_t (npusim's ``hifloat8``, docs/semantics.md §5.32) and srcT half, bfloat16
or float.  In Python both
are ``quant(dst, src, ...)``: dst's type is dstT.  The Kirin code takes dstT int8 only and srcT half / float.

Counts: ``QuantConfig.calc_count`` (non-zero) replaces ``count`` per tensor; per channel ``calc_count`` and
``scale_count`` (and ``offset_count`` with an offset tensor), all non-zero, replace the runtime counts (the
3510 code's ``enableConfig``); the config belongs to the int8 prototypes.  Every rule is checked before
anything is written, so a rejected call changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.trace import AccessRecord, caller_source, merge_ranges
from ...errors import OverlapError, ParameterRangeError, UnsupportedError
from ...validate import require_int
from ..core import Core
from ..ops.common import require_ub_tensor
from ..scalars import require_scalar
from ..tensor import LocalTensor
from .quant_common import MIN_TMP_BYTES, NAME, PAGE, QuantConfig, half_scalars, parameter_tensor
from .quant_lanes import FP8_DTYPES, Saturation, c_float, lanes, scalar_bits, work_type

__all__ = ["REGISTER_PRODUCTS", "quant_register", "record_and_run"]

_KIRIN = {"src": frozenset({"float16", "float32"}), "dst": frozenset({"int8"})}
#: the products whose vector-function implementation npusim follows, with the types their code takes
REGISTER_PRODUCTS = {
    "950": {"src": frozenset({"float16", "bfloat16", "float32"}), "dst": frozenset({"int8", "hifloat8"}) | FP8_DTYPES},
    "KirinX90": _KIRIN,
    "Kirin9030": _KIRIN,
}
SOURCE = f"{PAGE} 参数说明"  # 表5 PER_TENSOR, 表6 PER_CHANNEL
IMPL = {"950": "ascend_quant_3510_impl.h", "KirinX90": "ascend_quant_l300_impl.h",
        "Kirin9030": "ascend_quant_l300_impl.h"}


@dataclass(frozen=True)
class Job:
    """What the vector function does: ``rows`` rows of ``width`` elements (per tensor: one row), the
    parameters' raw lanes and types (a one-lane array is a scalar in the path's working type)."""

    total: int
    width: int
    scale: tuple[np.ndarray, DType] | LocalTensor
    offset: tuple[np.ndarray, DType] | LocalTensor


def quant_register(core: Core, dst, src, scale, offset, count, temp_buffer, config: QuantConfig,
                   scale_count, offset_count) -> None:
    """:func:`npusim.ascend.adv.quant` on the 950 and the Kirin rows (arguments as there)."""
    chip = core.chip.name
    dst = require_ub_tensor(NAME, "dst", dst, core)
    src = require_ub_tensor(NAME, "src", src, core)
    for label, tensor in (("dst", dst), ("src", src)):
        allowed = REGISTER_PRODUCTS[chip][label]
        if tensor.dtype.name not in allowed:
            raise UnsupportedError(NAME, f"{label} dtype", tensor.dtype.name, f"{core.chip.product}'s AscendQuant "
                                   f"({IMPL[chip]}) takes {label} as {', '.join(sorted(allowed))}",
                                   ", ".join(sorted(allowed)),
                                   f"{PAGE} 参数说明 (表1, 表2)")
    _check_temp_buffer(core, temp_buffer, config)
    if config != QuantConfig() and dst.dtype.name != "int8":
        raise TypeError(f"{NAME}: config belongs to the int8 prototypes AscendQuant<T, isReuseSource, config>; the "
                        f"dstT prototypes have none ({PAGE} 函数原型)")
    if isinstance(scale, LocalTensor):
        job = _channel_job(core, dst, src, scale, offset, count, config, scale_count, offset_count)
    else:
        job = _tensor_job(dst, src, scale, offset, count, config, scale_count, offset_count)
    spans = _spans(dst, src, job)
    record_and_run(core, spans, lambda: _run(core, dst, src, job))


def _check_temp_buffer(core: Core, temp_buffer, config: QuantConfig) -> None:
    """A temp buffer is optional (the vector function uses none); one passed is a uint8 UB tensor of
    GetAscendQuantMaxMinTmpSize's minimum, and config.work_local_size does not exceed it (参数说明)."""
    if temp_buffer is None:
        return
    tmp = require_ub_tensor(NAME, "temp_buffer", temp_buffer, core)
    if tmp.dtype.name != "uint8":
        raise UnsupportedError(NAME, "temp_buffer dtype", tmp.dtype.name, "sharedTmpBuffer is a LocalTensor<uint8_t>",
                               "uint8", f"{PAGE} 函数原型")
    if tmp.nbytes < MIN_TMP_BYTES:
        raise ParameterRangeError(NAME, "temp_buffer size", tmp.nbytes, "the temporary space must not be smaller "
                                  "than GetAscendQuantMaxMinTmpSize's minimum", f"at least {MIN_TMP_BYTES} bytes",
                                  f"{PAGE} 参数说明")
    require_int(NAME, "config.work_local_size", config.work_local_size, 0, tmp.nbytes, SOURCE,
                rule="config.workLocalSize must not exceed the temp buffer's size")


def _tensor_job(dst, src, scale, offset, count, config: QuantConfig, scale_count, offset_count) -> Job:
    for label, value in (("scale_count", scale_count), ("offset_count", offset_count), ("offset", offset)):
        if isinstance(value, LocalTensor) or (label != "offset" and value is not None):
            raise TypeError(f"{NAME}: {label} belongs to the per-channel form, whose scale is a LocalTensor; "
                            f"the per-tensor form takes scale and offset as numbers ({PAGE} 函数原型)")
    half_scalars(scale, offset)  # scale within half's range (约束说明), both numbers
    work = work_type(dst.dtype)
    if config.calc_count:  # calCountReal = config.calcCount != 0 ? config.calcCount : calCount
        total, what = config.calc_count, "config.calc_count"
    else:
        total, what = (src.tile_size if count is None else count), "count"
    total = _require_total(what, total, dst, src)
    return Job(total, total, (scalar_bits(c_float(scale), work), work), (scalar_bits(c_float(offset), work), work))


def _require_total(what: str, total, dst: LocalTensor, src: LocalTensor) -> int:
    total = require_int(NAME, what, total, 0, min(src.tile_size, dst.tile_size), SOURCE,
                        rule="calCount lies in [0, min(srcTensor size, dstTensor size)]")
    if total % 32:  # 约束说明: 32-byte data lengths; 32 elements of the 1-byte dst
        raise ParameterRangeError(NAME, what, total, "the data length of every operand must be a multiple of 32 "
                                  "bytes (a 1-byte dst: 32 elements)", "multiples of 32", f"{PAGE} 约束说明")
    return total


def _channel_job(core: Core, dst, src, scale, offset, count, config: QuantConfig, scale_count,
                 offset_count) -> Job:
    scale = parameter_tensor(core, "scale", scale, src)
    offset_tensor = parameter_tensor(core, "offset", offset, src) if isinstance(offset, LocalTensor) else None
    if offset_tensor is None and offset_count is not None:
        raise TypeError(f"{NAME}: offset_count belongs to the form with an offset tensor ({PAGE} 函数原型)")
    scale_count = scale.tile_size if scale_count is None else scale_count
    count = src.tile_size if count is None else count
    counts = {"scale_count": scale_count, "count": count}
    if offset_tensor is not None:
        counts["offset_count"] = offset_tensor.tile_size if offset_count is None else offset_count
    config_counts = {"scale_count": config.scale_count, "count": config.calc_count}
    if offset_tensor is not None:
        config_counts["offset_count"] = config.offset_count
    if all(config_counts.values()):  # enableConfig: the constexpr counts replace the runtime ones
        counts = config_counts
    names = {key: f"config.{'calc_count' if key == 'count' else key}" if counts is config_counts else key
             for key in counts}
    width = require_int(NAME, names["scale_count"], counts["scale_count"], 1, min(scale.tile_size, dst.tile_size),
                        SOURCE, rule="scaleCount lies in [1, min(scaleTensor size, dstTensor size)] (0: no channel)")
    if width % 32:
        raise ParameterRangeError(NAME, names["scale_count"], width, "scaleCount must be a multiple of 32",
                                  "multiples of 32", SOURCE)
    if offset_tensor is not None:
        require_int(NAME, names["offset_count"], counts["offset_count"], width, width, SOURCE,
                    rule="offsetCount equals scaleCount")
        require_int(NAME, names["offset_count"], counts["offset_count"], 0, offset_tensor.tile_size, SOURCE,
                    rule="offsetCount must not exceed the offset tensor's size")
    total = _require_total(names["count"], counts["count"], dst, src)
    if total % width:
        raise ParameterRangeError(NAME, names["count"], total, f"calCount must be a multiple of scaleCount ({width})",
                                  f"multiples of {width}", SOURCE)
    return Job(total, width, scale, offset_tensor if offset_tensor is not None else
               _channel_offset(offset, src.dtype, work_type(dst.dtype)))



def _channel_offset(offset, src: DType, work: DType) -> tuple[np.ndarray, DType]:
    """The scalar offset, a ``srcT`` parameter, in the working type: half by ``static_cast<half>`` (of
    ``ToFloat`` for bfloat16), float exactly."""
    require_scalar(NAME, "offset", offset, " or a LocalTensor")
    as_src = scalar_bits(offset, src).view(src.np_dtype)[0]
    return scalar_bits(float(as_src), work), work


def _spans(dst: LocalTensor, src: LocalTensor, job: Job) -> dict[str, tuple[int, int]]:
    """Bytes each operand's role covers, after the overlap rules: dst disjoint from src or starting with it
    (约束说明: 可以复用; a register is read before its results are stored), the parameter tensors (read for
    every row) disjoint from dst."""
    spans = {"src": (src.addr, src.addr + job.total * src.dtype.itemsize),
             "dst": (dst.addr, dst.addr + job.total * dst.dtype.itemsize)}
    for label, tensor in (("scale", job.scale), ("offset", job.offset)):
        if isinstance(tensor, LocalTensor) and job.total:
            spans[label] = (tensor.addr, tensor.addr + job.width * tensor.dtype.itemsize)
    return check_overlaps(spans, job.total, "for every row")


def check_overlaps(spans: dict[str, tuple[int, int]], total: int, when_read: str) -> dict[str, tuple[int, int]]:
    """The overlap rules of one vector function call (约束说明), on the byte ``spans`` of its roles: dst disjoint
    from src or starting at src's address (可以复用: a register is read before its results are stored), a
    ``scale`` / ``offset`` tensor (read ``when_read``) disjoint from dst.  Nothing overlaps when ``total`` is 0."""
    (s_lo, s_hi), (d_lo, d_hi) = spans["src"], spans["dst"]
    if total and d_lo < s_hi and s_lo < d_hi and d_lo != s_lo:
        raise OverlapError(NAME, "dst byte range", f"[{d_lo:#x}, {d_hi:#x})", "dst may reuse src only from the "
                           "same address", f"disjoint from [{s_lo:#x}, {s_hi:#x}) or starting at {s_lo:#x}",
                           f"{PAGE} 约束说明")
    for label in ("scale", "offset"):
        if label in spans and spans[label][0] < d_hi and d_lo < spans[label][1]:
            lo, hi = spans[label]
            raise OverlapError(NAME, f"{label} byte range", f"[{lo:#x}, {hi:#x})", f"the {label} elements are read "
                               f"{when_read}: they must not overlap dst", f"disjoint from [{d_lo:#x}, {d_hi:#x})",
                               f"{PAGE} 约束说明")
    return spans


def record_and_run(core: Core, spans: dict, run) -> None:
    """One access record for the vector function (reads before writes), shown to the trace and to the
    synchronisation checker as a dispatched instruction's is; a checker holding the call runs it later."""
    trace, observer = core.trace, getattr(core, "observer", None)
    if trace is None and observer is None:
        run()
        return
    reads = merge_ranges([("UB", *spans[label]) for label in ("src", "scale", "offset") if label in spans])
    writes = merge_ranges([("UB", *spans["dst"])])
    record = AccessRecord(len(trace) if trace is not None else 0, NAME, "ascend", "V", reads, writes, (),
                          ("CTRL",) if core.chip.name == "950" else (), caller_source(), {},
                          getattr(core, "block_idx", 0))
    held = observer(record, run) if observer is not None else False
    if not held:
        run()
    if trace is not None:
        trace.append(record)


def _run(core: Core, dst: LocalTensor, src: LocalTensor, job: Job) -> None:
    ub = core.ub
    if not job.total:
        return
    x = _lanes_of(ub, "src", src, job.total)
    rows = job.total // job.width
    params = []
    for label, value in (("scale", job.scale), ("offset", job.offset)):
        if isinstance(value, LocalTensor):
            value = (np.tile(_lanes_of(ub, label, value, job.width), rows), value.dtype)
        params.append(value)
    result = lanes(dst.dtype, (x, src.dtype), params[0], params[1], Saturation.of(core))
    start = dst.addr
    ub.data[start:start + result.nbytes] = result.view(np.uint8)
    ub.mark_written(start, start + result.nbytes)


def _lanes_of(ub, label: str, tensor: LocalTensor, count: int) -> np.ndarray:
    start, stop = tensor.addr, tensor.addr + count * tensor.dtype.itemsize
    ub.check_initialized_span(NAME, label, start, stop)
    return ub.data[start:stop].view(tensor.dtype.raw).copy()

