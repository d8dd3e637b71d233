"""AscendQuant PER_TOKEN and PER_GROUP (AscendQuant.md; the Ascend 950 only, 约束说明): src of shape [m, n], a
scale (and optionally an offset) per token (row) or per group of ``group_size`` rows or columns.

The C++ ``AscendQuant<dstT, srcT, scaleT, isReuseSource, config, policy>(dst, src, [sharedTmpBuffer,]
scaleTensor, offsetTensor | offset, para)`` is, in npusim::

    quant(dst, src, scale, offset, temp_buffer=None, config=QuantConfig(has_offset=True, k_dim=1,
          round_mode=RoundMode.CAST_RINT), policy=AscendQuantPolicy.PER_TOKEN,
          para=AscendQuantParam(m, n, cal_count, group_size))

with dstT, srcT and scaleT the tensors' types.  The ``calc_count`` ... ``work_local_size`` fields of the config
are not used by these forms.  Element (r, c) of the ``cal_count / n`` rows of n uses parameter ``p``:

* PER_TOKEN: ``p = r`` (the scale / offset shape [m, 1]);
* PER_GROUP, k_dim 1 (groups along n): ``p = r * ceil(n / group_size) + c // group_size``;
* PER_GROUP, k_dim 0 (groups along m): ``p = (r // group_size) * n + c``.

What a lane computes is :func:`.quant_lanes.group_lanes` (``ascend_quant_per_group_3510_impl.h``, followed as
an algorithm).  The call is one vector function: one access record on the V pipe, reading src and the
parameter elements the results use (the vendor's gathers also load a register's unused lanes, which npusim
neither reads nor records), writing dst; the temp buffer is a reserved parameter (表7: the forms use no
temporary space) and is not touched.  Not modelled: dst hifloat8_t (its TransRegForFp8 branch, with the config's
CAST_ROUND / CAST_HYBRID, is not built here; per tensor and per channel it is, docs/semantics.md §5.32) and
fp4x2_e2m1_t / fp4x2_e1m2_t (npusim's fp4x2_e2m1_t has only Cast's lines, docs/semantics.md §5.33; fp4x2_e1m2_t
has no npusim type, §5.31), the Kirin build (``ascend_quant_per_group_l300_impl.h``;
the page lists these forms for the 950 alone), and the reserved policies.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from ...errors import ParameterRangeError, UnsupportedError
from ...validate import require_bool, require_int, require_uint
from ..core import Core
from ..ops.common import require_ub_tensor
from ..scalars import require_scalar
from ..tensor import LocalTensor
from .quant_common import NAME, PAGE, QuantConfig
from .quant_lanes import FP8_DTYPES, Saturation, group_lanes, scalar_bits
from .quant_register import check_overlaps, record_and_run

__all__ = ["AscendQuantParam", "AscendQuantPolicy", "quant_token_group"]

SOURCE = f"{PAGE} 参数说明"  # 表3, 表4, 表7


class AscendQuantPolicy(IntEnum):
    """``AscendQuantPolicy`` (表3; ``ascend_quant_utils.h``): PER_TOKEN and PER_GROUP are implemented, the
    others reserved (预留参数，暂不支持)."""

    PER_TENSOR = 0
    PER_CHANNEL = 1
    PER_TOKEN = 2
    PER_GROUP = 3
    PER_CHANNEL_PER_GROUP = 4
    PER_TOKEN_PER_GROUP = 5


@dataclass(frozen=True)
class AscendQuantParam:
    """``AscendQuantParam`` (表7): ``m`` rows, ``n`` elements a row, ``cal_count`` elements, ``group_size``
    (PER_GROUP) rows or columns sharing a parameter."""

    m: int
    n: int
    cal_count: int
    group_size: int = 0

    def __post_init__(self) -> None:
        for name in ("m", "n", "cal_count", "group_size"):
            require_uint("AscendQuantParam", name, getattr(self, name), 32, SOURCE)


#: (srcT, scaleT) pairs of 表4, for every dstT npusim has
TYPE_PAIRS = frozenset({("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"),
                        ("float16", "float32"), ("bfloat16", "float32")})
DST_DTYPES = frozenset({"int8"}) | FP8_DTYPES


@dataclass(frozen=True)
class GroupJob:
    """The rows, their parameter index per element and the parameter elements used."""

    total: int
    index: np.ndarray
    extent: int


def quant_token_group(core: Core, dst, src, scale, offset, temp_buffer, config: QuantConfig, policy,
                      para) -> None:
    """:func:`npusim.ascend.adv.quant` with a ``policy`` (arguments as there)."""
    if core.chip.name != "950":
        raise UnsupportedError(NAME, "product", core.chip.product, "PER_TOKEN / PER_GROUP exist on the Ascend 950 "
                               "only (the Kirin build's ascend_quant_per_group_l300_impl.h is not modelled: the page "
                               "lists the forms for the 950 alone)", "Ascend 950PR/Ascend 950DT", f"{PAGE} 约束说明")
    if not isinstance(policy, AscendQuantPolicy):
        raise TypeError(f"{NAME}: policy must be an asc.adv.AscendQuantPolicy, got {policy!r}")
    if policy not in (AscendQuantPolicy.PER_TOKEN, AscendQuantPolicy.PER_GROUP):
        raise UnsupportedError(NAME, "policy", policy.name, "the other policies are reserved (预留参数，暂不支持)",
                               "PER_TOKEN, PER_GROUP", SOURCE)
    if not isinstance(para, AscendQuantParam):
        raise TypeError(f"{NAME}: para must be an asc.adv.AscendQuantParam, got {type(para).__name__}")
    dst = require_ub_tensor(NAME, "dst", dst, core)
    src = require_ub_tensor(NAME, "src", src, core)
    scale = require_ub_tensor(NAME, "scale", scale, core)
    _check_types(dst, src, scale)
    has_offset = require_bool(NAME, "config.has_offset", config.has_offset)
    offset_lanes = _offset(core, offset, scale, has_offset)
    if temp_buffer is not None:  # reserved (表7 / 函数原型): a LocalTensor<uint8_t>, not used
        tmp = require_ub_tensor(NAME, "temp_buffer", temp_buffer, core)
        if tmp.dtype.name != "uint8":
            raise UnsupportedError(NAME, "temp_buffer dtype", tmp.dtype.name, "sharedTmpBuffer is a "
                                   "LocalTensor<uint8_t>", "uint8", f"{PAGE} 函数原型")
    job = _job(dst, src, para, policy, config)
    spans = _spans(dst, src, scale, offset_lanes, job)
    _check_extent("scale", scale, job)
    if isinstance(offset_lanes, LocalTensor):
        _check_extent("offset", offset_lanes, job)

    def run() -> None:
        _run(core, dst, src, scale, offset_lanes, job, config)

    record_and_run(core, spans, run)


def _check_types(dst: LocalTensor, src: LocalTensor, scale: LocalTensor) -> None:
    if dst.dtype.name not in DST_DTYPES:
        raise UnsupportedError(NAME, "dst dtype", dst.dtype.name, "PER_TOKEN / PER_GROUP write int8_t, fp8_e5m2_t or "
                               "fp8_e4m3fn_t (a hifloat8_t dst is not modelled for these forms, nor are the fp4 "
                               "types)", ", ".join(sorted(DST_DTYPES)), f"{SOURCE} (表2, 表4)")
    if (src.dtype.name, scale.dtype.name) not in TYPE_PAIRS:
        raise UnsupportedError(NAME, "src / scale dtype", f"{src.dtype.name} / {scale.dtype.name}", "the (srcT, "
                               "scaleT) combinations of 表4", ", ".join(f"{a} / {b}" for a, b in sorted(TYPE_PAIRS)),
                               f"{SOURCE} (表4)")


def _offset(core: Core, offset, scale: LocalTensor, has_offset: bool):
    """The offset tensor (scaleT), a one-lane raw array (a scaleT number), or ``None`` (has_offset false)."""
    if isinstance(offset, LocalTensor):
        tensor = require_ub_tensor(NAME, "offset", offset, core)
        if tensor.dtype is not scale.dtype:
            raise UnsupportedError(NAME, "offset dtype", tensor.dtype.name, "the offset has scaleTensor's type",
                                   scale.dtype.name, f"{SOURCE} (表7)")
        return tensor if has_offset else None
    require_scalar(NAME, "offset", offset, " or a LocalTensor")
    return scalar_bits(offset, scale.dtype) if has_offset else None


def _job(dst: LocalTensor, src: LocalTensor, para: AscendQuantParam, policy, config: QuantConfig) -> GroupJob:
    n = require_int(NAME, "para.n", para.n, 1, (1 << 32) - 1, SOURCE, rule="n is the row length (calCount % n)")
    for label, tensor in (("src", src), ("dst", dst)):
        if n * tensor.dtype.itemsize % 32:
            raise ParameterRangeError(NAME, "para.n", n, f"n's data on {label} ({tensor.dtype.name}) must be 32-byte "
                                      "aligned", f"multiples of {32 // tensor.dtype.itemsize}", f"{SOURCE}; "
                                      f"{PAGE} 约束说明")
    total = require_int(NAME, "para.cal_count", para.cal_count, 0, min(src.tile_size, dst.tile_size), SOURCE,
                        rule="calCount lies in [0, min(srcTensor size, dstTensor size)]")
    if total % n:
        raise ParameterRangeError(NAME, "para.cal_count", total, f"calCount must be a multiple of n ({n})",
                                  f"multiples of {n}", SOURCE)
    rows = total // n
    r, c = np.divmod(np.arange(total, dtype=np.int64), n)
    if policy == AscendQuantPolicy.PER_TOKEN:
        return GroupJob(total, r, rows)
    size = para.group_size
    if size == 0 or size % 32:
        raise ParameterRangeError(NAME, "para.group_size", size, "groupSize must be greater than 0 and a multiple of "
                                  "32", "positive multiples of 32", SOURCE)
    k_dim = require_int(NAME, "config.k_dim", config.k_dim, 0, 1, SOURCE, rule="kDim is 0 (m) or 1 (n)")
    if k_dim == 1:
        per_row = -(-n // size)
        return GroupJob(total, r * per_row + c // size, rows * per_row)
    return GroupJob(total, (r // size) * n + c, -(-rows // size) * n)


def _check_extent(label: str, tensor: LocalTensor, job: GroupJob) -> None:
    if job.total and job.extent > tensor.tile_size:
        raise ParameterRangeError(NAME, f"{label} size", tensor.tile_size, f"the rows use {job.extent} {label} "
                                  "elements (the parameter shape of the policy)", f"at least {job.extent} elements",
                                  f"{PAGE} 功能说明")


def _spans(dst, src, scale, offset, job: GroupJob) -> dict[str, tuple[int, int]]:
    spans = {"src": (src.addr, src.addr + job.total * src.dtype.itemsize),
             "dst": (dst.addr, dst.addr + job.total * dst.dtype.itemsize)}
    if job.total:
        spans["scale"] = (scale.addr, scale.addr + job.extent * scale.dtype.itemsize)
        if isinstance(offset, LocalTensor):
            spans["offset"] = (offset.addr, offset.addr + job.extent * offset.dtype.itemsize)
    return check_overlaps(spans, job.total, "while dst is written")


def _run(core: Core, dst, src, scale, offset, job: GroupJob, config: QuantConfig) -> None:
    if not job.total:
        return
    ub = core.ub

    def lanes_of(label: str, tensor: LocalTensor, count: int) -> np.ndarray:
        start, stop = tensor.addr, tensor.addr + count * tensor.dtype.itemsize
        ub.check_initialized_span(NAME, label, start, stop)
        return ub.data[start:stop].view(tensor.dtype.raw).copy()

    x = lanes_of("src", src, job.total)
    scales = lanes_of("scale", scale, job.extent)[job.index]
    offsets = None
    if isinstance(offset, LocalTensor):
        offsets = (lanes_of("offset", offset, job.extent)[job.index], scale.dtype)
    elif offset is not None:
        offsets = (offset, scale.dtype)
    result = group_lanes(dst.dtype, (x, src.dtype), (scales, scale.dtype), offsets, config.round_mode,
                         Saturation.of(core))
    ub.data[dst.addr:dst.addr + result.nbytes] = result.view(np.uint8)
    ub.mark_written(dst.addr, dst.addr + result.nbytes)
