"""SoftMax (ND format) as the vendor computes it on Atlas A2/A3 and the 310P AI Core: npusim's own instructions;
on the 950 and Kirin X90/9030 the register-ISA vector function (:mod:`.softmax_regbase`, docs/softmax.md §2).

``softmax(dst, sum, max, src, tiling, temp_buffer=None)`` is pyasc's ``asc.adv.softmax`` and
Ascend C's ``SoftMax<T>(dst, sumTensor, maxTensor, src[, sharedTmpBuffer], tiling)`` (SoftMax.md),
in its three type forms: all float, all half, and half ``src``/``dst`` with float ``sum``/``max``.
Per row of the ``[m, k]`` view of ``src`` (the product of the leading axes of its ShapeInfo times
the last axis) it writes ``max`` and ``sum`` as one 32-byte block each (the value repeated) and
``dst = exp(src - max) / sum``.  Half data is computed in float: cast in exactly, cast out with
``FLOAT2HALF_ROUND_MODE`` (CAST_ROUND on 2201, ``membase/v220/softmax_common_impl.h`` L31; CAST_NONE,
ties to even, on 2002, ``membase/v200/softmax_common_impl.h`` L29).

**Exactness: accuracy model.**  Every step is a registered npusim instruction and rounds as that
instruction does (the adds, the subtraction and the division IEEE round-to-nearest-even in
float32, max exact, the casts as Cast.md; on the 310P also Adds of 0, Muls by 1, a move,
Duplicate, and ``1 / sum`` by an IEEE Div, not the accuracy-model Reciprocal); ``exp`` is an
accuracy-model instruction (float64 ``exp`` rounded to float32, within one ulp of the correctly
rounded value, docs/numerics.md), so
SoftMax inherits that model: given npusim's ``exp``, the result is fixed to the bit; against
hardware it is as close as ``exp`` (docs/softmax.md §1.4).

The algorithm is the dav_c220 (``__NPU_ARCH__ == 2201``) one, with the dav_m200 (2002, 310P AI Core)
one's differences as :class:`.softmax_steps.Arch` data and branches (docs/softmax.md §1.7); files under
``impl/adv_api/detail/activation/softmax/`` of asc-devkit @0da921b9:

* ``softmax_base_impl.h`` L98-155: the shape comes from ``src``'s ShapeInfo (pyasc passes no
  SoftMaxShapeInfo); when ``tiling.srcM/srcK`` differ from it — a default-constructed (all-zero)
  ``SoftmaxTiling`` always does — the kernel recomputes the tiling itself with
  ``SoftMaxTilingFunc`` (``softmax_common/softmax_tiling_func.h`` L29-70, ``CalculateNDSplitM`` in
  ``softmax_common_shape_process.h`` L59-83) from the size of its temporary buffer; the framework's
  buffer is ``PopStackBuffer`` (``impl/basic_api/kernel_pop_stack_buffer.h``: up to
  ``TOTAL_UB_SIZE - 64`` on 2201, ``TOTAL_UB_SIZE`` on 2002).  npusim uses the part of it every kernel
  has, the API scratch from ``TMP_UB_OFFSET`` (``chip.vec_local_bytes``) to that end, so it never
  writes a buffer of the caller.  The split only decides how many rows go through each pass and
  which temporary bytes are used; no row's value depends on it.
* ``membase/common/softmax_impl/softmax_generic_nd_impl.h`` L27-121 and L123-182: per split of
  rows, row max, ``dst = src - max``, ``exp``, row sum, ``dst = dst / sum`` (A2; the 310P multiplies
  by ``1 / sum`` instead, ``TransDivToMulImpl``, L46-48).  The steps are in
  :mod:`.softmax_steps`.
* ``membase/v220/softmax_common_impl/softmax_common_nd_reduce.h`` L183-336, the row reductions,
  in the vendor's order: the 64-lane chunks of a row are combined lane by lane (``k >= 512``:
  ``BigBlockReduce*``, ``softmax_common/softmax_common_reduce.h`` L72-114, a block reduction of the
  first 512 elements followed by one add per further chunk; ``[128, 512)``: chunk 0 + chunk 1,
  then each further chunk, ``softmax_common_arithmetic.h`` L112-164; ``[64, 128)``: chunk 0; a
  partial last chunk: ``TailAddImpl`` L84-108), then the 64 lanes by two BlockReduce passes (an
  adjacent-pair tree, ReduceDataBlock.md) — for a single row one WholeReduce of 8 repeats;
  rows shorter than 64 by one WholeReduce each.  The value is broadcast to 8 (or 16) lanes with
  Brcb and Copy (``softmax_common_broadcast.h`` L110-136).
* ``softmax_common/softmax_common_arithmetic.h`` L218-276: the subtraction and the division,
  with the max / sum block as a broadcast operand.
* 310P: ``membase/v200/softmax_common_impl.h`` L31-415, the same chunk steps, then a scalar
  ``GetValue`` and Duplicate (one row; rows shorter than 64) or Muls, TransDataTo5HD and Adds
  (several rows) for the broadcast; the division is ``TransDivToMulImpl``
  (``softmax_common_arithmetic.h`` L311-321: Duplicate 1.0, Div, Mul).

Two of the vendor's instruction calls are split here, because npusim's overlap rule
(docs/semantics.md §1.6: no repeat may read what an earlier repeat of the same call wrote, and a
source meets the destination exactly or not at all) refuses them: the accumulating ``Add``/``Max``
with a destination repeat stride of 0 becomes one call per chunk over the rows, and the in-place
``BlockReduce`` (``BasicBlockReduce*Impl`` L161-181, L275-294; v200 L281, L356) writes its 8
partials per row to room the tiling leaves in the temporary buffer instead (docs/softmax.md §1.5).  Each lane sees
the same operations in the same order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from ...dtypes import DTYPES
from ...errors import (
    AlignmentError,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    UnsupportedError,
)
from .. import pages
from ..core import current_core
from ..ops.cast import cast
from ..ops.elementwise import exp, sub
from ..ops.registers import reset_mask, set_mask_norm
from ..ops.sync import pipe_barrier
from ..tensor import LocalTensor
from ..types import PipeID, RoundMode, TPosition
from . import softmax_regbase as regbase
from . import softmax_steps as steps

__all__ = ["SoftmaxTiling", "min_tmp_bytes", "softmax", "tiling_for"]

NAME = "softmax"
# npusim's notes on what the implementation (not the page) decides: docs/softmax.md
PRODUCTS_NOTE = "docs/softmax.md §1.1"
TILING_NOTE = "docs/softmax.md §1.2"
LIMITS_NOTE = "docs/softmax.md §1.6"

FLOAT = 4
BLOCK = 32
LANES, PER_BLOCK, MAX_REPEAT, BIG_ROW = steps.LANES, steps.PER_BLOCK, steps.MAX_REPEAT, steps.BIG_ROW
#: kernel_pop_stack_buffer.h GetEndAddress: the last 64 B of UB hold the KFC message on 2201 only
KFC_MESSAGE = {2201: 64, 2002: 0}
#: the modelled implementations by __NPU_ARCH__ (membase/v220, membase/v200)
ARCHES = {steps.V220.npu_arch: steps.V220, steps.V200.npu_arch: steps.V200}
#: the products running regbase/3510/softmax_impl.h (softmax_base_impl.h L25-27): 950, Kirin X90, Kirin 9030
REGBASE_ARCHES = frozenset({3510, 3003, 3113})
#: SoftMax.md 产品支持情况: the products that have the API ("Atlas 推理系列产品 Vector Core" and
#: "Atlas 训练系列产品" do not)
DOCUMENTED_PRODUCTS = frozenset({"950", "A3", "A2", "310B", "310P", "KirinX90", "Kirin9030"})
#: SoftMax.md 函数原型: (src/dst type, sum/max type) of the forms with sum and max
TYPE_FORMS = frozenset({("float32", "float32"), ("float16", "float16"), ("float16", "float32")})
_FLOAT32 = DTYPES["float32"]


@dataclass(kw_only=True)
class SoftmaxTiling:
    """pyasc's ``asc.adv.SoftmaxTiling`` (Ascend C ``SoftMaxTiling``, 16 uint32 members, all 0 by default).

    A tiling whose ``src_m`` / ``src_k`` do not match the source's shape — the default one —
    makes the API compute its own (``softmax_base_impl.h`` L130-136).
    """

    src_m: int = 0
    src_k: int = 0
    src_size: int = 0
    out_max_m: int = 0
    out_max_k: int = 0
    out_max_size: int = 0
    split_m: int = 0
    split_k: int = 0
    split_size: int = 0
    reduce_m: int = 0
    reduce_k: int = 0
    reduce_size: int = 0
    range_m: int = 0
    tail_m: int = 0
    tail_split_size: int = 0
    tail_reduce_size: int = 0

    def __post_init__(self) -> None:
        for member in fields(self):
            self._check(member.name, getattr(self, member.name))

    def __setattr__(self, name: str, value) -> None:
        if name not in {member.name for member in fields(self)}:
            raise AttributeError(f"SoftmaxTiling has no member {name!r}")
        self._check(name, value)
        super().__setattr__(name, int(value))

    @staticmethod
    def _check(name: str, value) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"SoftmaxTiling.{name}: an int32 member takes an integer, got {value!r}")
        if not 0 <= int(value) <= np.iinfo(np.int32).max:
            raise ParameterRangeError(f"SoftmaxTiling.{name}", "value", int(value), "a tiling member is a "
                                      "non-negative int32 (pyasc Field(int32); Ascend C uint32_t)",
                                      f"[0, {np.iinfo(np.int32).max}]", f"{pages.SOFTMAX_TILING} 参数说明")


def _row_floats(src_itemsize: int, stat_k: int, row_stride: int) -> int:
    """Temporary floats a row of a split takes (CalculateNDSplitM's divisor, softmax_common_shape_process.h L59-68):
    the 64 reduction lanes and the reduced block, and for half data the row itself in float."""
    return stat_k + LANES + (row_stride if src_itemsize == 2 else 0)


def tiling_for(work_floats: int, rows: int, row_stride: int, original_rows: int, src_itemsize: int = FLOAT,
               stat_k: int = PER_BLOCK) -> SoftmaxTiling:
    """The kernel-side ``SoftMaxTilingFunc`` (``softmax_tiling_func.h`` L29-70), ND format.

    ``src_itemsize``: bytes of a src element; ``stat_k``: elements of a sum/max row (32 bytes).
    """
    reduce_m = min(work_floats // _row_floats(src_itemsize, stat_k, row_stride), rows)
    if PER_BLOCK < reduce_m < original_rows:
        reduce_m = reduce_m // PER_BLOCK * PER_BLOCK
    reduce_m = min(reduce_m, original_rows)
    range_m, tail_m = (original_rows // reduce_m, original_rows % reduce_m) if reduce_m else (0, 0)
    return SoftmaxTiling(
        src_m=rows, src_k=row_stride, src_size=rows * row_stride, out_max_m=rows, out_max_k=stat_k,
        out_max_size=rows * stat_k, split_m=reduce_m, split_k=row_stride, split_size=reduce_m * row_stride,
        reduce_m=reduce_m, reduce_k=stat_k, reduce_size=reduce_m * stat_k, range_m=range_m, tail_m=tail_m,
        tail_split_size=tail_m * row_stride, tail_reduce_size=tail_m * stat_k)


def min_tmp_bytes(row_stride: int, stat_k: int = PER_BLOCK) -> int:
    """GetSoftMaxMinTmpSize on every product but the 950: ``(32 / sizeof(sum type) + k + 64) * 4`` bytes."""
    return (stat_k + row_stride + LANES) * FLOAT


# ----------------------------------------------------------------------------------- checks
@dataclass(frozen=True)
class _Shape:
    rows: int  # srcM
    row_stride: int  # srcK: the last axis, elements between rows
    original_rows: int  # oriSrcM
    original_k: int  # oriSrcK: the elements of a row that the reductions read
    src_itemsize: int  # 4 (float) or 2 (half)
    stat_k: int  # elements of one sum/max row: 8 (float) or 16 (half)


def _require_tensor(operand: str, value) -> LocalTensor:
    if not isinstance(value, LocalTensor):
        raise TypeError(f"{NAME}: {operand} must be an asc.LocalTensor, got {type(value).__name__}")
    return value


def _require_supported(core) -> steps.Arch | None:
    """The product's membase implementation, or ``None`` for the register-ISA one (regbase/3510)."""
    chip = core.chip
    if chip.name not in DOCUMENTED_PRODUCTS:
        raise UnsupportedError(NAME, "product", chip.product, "SoftMax is not available on this product",
                               ", ".join(sorted(DOCUMENTED_PRODUCTS)), f"{pages.SOFTMAX} 产品支持情况")
    if chip.npu_arch in REGBASE_ARCHES:
        return None
    if chip.npu_arch not in ARCHES:
        raise UnsupportedError(NAME, "product", chip.product, "npusim models the dav_c220 (Atlas A2/A3), dav_m200 "
                               "(310P AI Core) and regbase/3510 (950, Kirin) implementations of SoftMax; the 310B's "
                               "(regbase/v300) is not modelled", "A2, A3, 310P, 950, KirinX90, Kirin9030",
                               PRODUCTS_NOTE)
    return ARCHES[chip.npu_arch]


def _check_dtypes(dst, sum_, max_t, src) -> None:
    """SoftMax.md 函数原型, 参数说明 (表1 T) and 约束说明: the type forms; sum and max share one type."""
    for operand, tensor in (("src", src), ("dst", dst), ("sum", sum_), ("max", max_t)):
        if tensor.dtype.name not in ("float16", "float32"):
            raise UnsupportedError(NAME, f"{operand} dtype", tensor.dtype.name, "SoftMax takes half or float",
                                   "float16, float32", f"{pages.SOFTMAX} 参数说明 (表1 T)")
    if sum_.dtype != max_t.dtype:
        raise ParameterRangeError(NAME, "max dtype", max_t.dtype.name, f"sumTensor and maxTensor have the same "
                                  f"data type (sum is {sum_.dtype.name})", sum_.dtype.name, f"{pages.SOFTMAX} 约束说明")
    if dst.dtype != src.dtype:
        raise ParameterRangeError(NAME, "dst dtype", dst.dtype.name, f"dstTensor and srcTensor are both "
                                  f"LocalTensor<T> (src is {src.dtype.name})", src.dtype.name,
                                  f"{pages.SOFTMAX} 函数原型")
    if (src.dtype.name, sum_.dtype.name) not in TYPE_FORMS:
        raise ParameterRangeError(NAME, "sum dtype", sum_.dtype.name, f"no form takes {src.dtype.name} data with "
                                  f"{sum_.dtype.name} sum/max", "the type of src, or float32 with half src",
                                  f"{pages.SOFTMAX} 函数原型")


def _check_operands(core, dst, sum_, max_t, src) -> None:
    """Usable tensors of this core, the element types, 32-byte aligned addresses."""
    for operand, tensor in (("dst", dst), ("sum", sum_), ("max", max_t), ("src", src)):
        tensor.check_usable(NAME, operand, core)
    _check_dtypes(dst, sum_, max_t, src)
    for operand, tensor in (("dst", dst), ("sum", sum_), ("max", max_t), ("src", src)):
        if tensor.addr % BLOCK:
            raise AlignmentError(NAME, f"{operand} address", tensor.addr, "a LocalTensor operand starts on a "
                                 "32-byte boundary", "multiples of 32", f"{pages.GENERAL} 通用地址对齐约束")


def _shape_of(src: LocalTensor, sum_: LocalTensor) -> _Shape:
    info = src.get_shape_info()
    source = f"{pages.SOFTMAX} 参数说明 (softmaxShapeInfo); {TILING_NOTE}"
    if not info.dims:
        raise ParameterRangeError(NAME, "src shape_info", "none", "the shape comes from src's ShapeInfo "
                                  "(set_shape_info); it has no dimension", "a ShapeInfo of 1 to 8 dimensions",
                                  source)
    dims, original = info.dims, info.original_dims
    if dims[-1] == 0 or not original or original[-1] == 0:
        raise ParameterRangeError(NAME, "src shape_info last axis", dims[-1] if dims[-1] == 0 else 0,
                                  "the last axis (and the original one) must not be empty", ">= 1", source)
    row_stride, original_k = dims[-1], original[-1]
    rows, original_rows = math.prod(dims) // row_stride, math.prod(original) // original_k
    itemsize = src.dtype.itemsize
    if row_stride * itemsize % BLOCK:
        raise ParameterRangeError(NAME, "src last axis", row_stride, "srcK must be 32-byte aligned",
                                  f"a multiple of {BLOCK // itemsize} {src.dtype.name} elements",
                                  f"{pages.SOFTMAX} 参数说明 (srcTensor, srcK)")
    if original_k > row_stride or original_rows > rows or rows == 0:
        raise ParameterRangeError(NAME, "src original shape", list(original), "the original shape lies within the "
                                  f"shape {list(dims)} (oriSrcM <= srcM, oriSrcK <= srcK)", "original <= shape",
                                  f"{pages.SOFTMAX} 约束说明")
    return _Shape(rows, row_stride, original_rows, original_k, itemsize, BLOCK // sum_.dtype.itemsize)


def _check_sizes(dst, sum_, max_t, src, shape: _Shape) -> None:
    """Every operand holds the ``[m, k]`` (dst, src) or ``[m, 32 bytes]`` (sum, max) of src's shape."""
    size, stats = shape.rows * shape.row_stride, shape.rows * shape.stat_k
    for operand, tensor, needed in (("src", src, size), ("dst", dst, size), ("sum", sum_, stats),
                                    ("max", max_t, stats)):
        if tensor.get_size() < needed:
            raise OutOfBoundsError(NAME, f"{operand} elements", tensor.get_size(), f"{operand} holds the "
                                   f"[{shape.rows}, {needed // shape.rows}] result of src's shape (sum and max: one "
                                   "32-byte block per row)", f">= {needed}", f"{pages.SOFTMAX} 约束说明")
    for operand, tensor in (("sum", sum_), ("max", max_t)):
        info = tensor.get_shape_info()
        if info.dims and (info.dims[-1] != shape.stat_k or math.prod(info.dims[:-1]) != shape.rows):
            raise ParameterRangeError(NAME, f"{operand} shape_info", list(info.dims), "sumTensor and maxTensor "
                                      "have a last axis of exactly 32 bytes and the rows of src",
                                      f"[{shape.rows}, {shape.stat_k}]", f"{pages.SOFTMAX} 约束说明")


def _span(tensor: LocalTensor, elements: int) -> tuple[int, int]:
    return tensor.addr, tensor.addr + elements * tensor.dtype.itemsize


def _meets(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _spans(dst, sum_, max_t, src, work: LocalTensor, shape: _Shape, work_floats: int) -> dict:
    size, stats = shape.rows * shape.row_stride, shape.rows * shape.stat_k
    return {"dst": _span(dst, size), "src": _span(src, size), "sum": _span(sum_, stats), "max": _span(max_t, stats),
            "temporary buffer": _span(work, work_floats)}


def _check_overlaps(spans: dict, dst, src) -> None:
    if spans["dst"] != spans["src"] and _meets(spans["dst"], spans["src"]):
        raise OverlapError(NAME, "dst address", dst.addr, f"dst and src share some bytes but not all (src at "
                           f"{src.addr:#x}); src and dst may be the same tensor", "dst == src, or disjoint",
                           f"{pages.SOFTMAX} 约束说明")
    names = list(spans)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            if {first, second} == {"dst", "src"} or not _meets(spans[first], spans[second]):
                continue
            documented = "temporary buffer" in (first, second) and {first, second} & {"dst", "src"}
            raise OverlapError(NAME, f"{second} address", spans[second][0], f"{second} overlaps {first} "
                               f"[{spans[first][0]:#x}, {spans[first][1]:#x})", "disjoint operands",
                               f"{pages.SOFTMAX} 约束说明" if documented else f"{pages.GENERAL} 通用地址重叠约束")


def _work_buffer(core, temp_buffer, shape: _Shape, register_isa: bool = False) -> tuple[LocalTensor, int]:
    """The float view of the temporary buffer and its size in floats (``softmax_base_impl.h`` L144-168).

    ``register_isa``: the 950/Kirin, whose size rule :func:`.softmax_regbase.check_buffer` applies."""
    if temp_buffer is None and register_isa:
        raise UnsupportedError(NAME, "temp_buffer", None, f"on {core.chip.product} the framework's buffer "
                               "(PopStackBuffer) is the UB from the end of the TPipe's queues to TMP_UB_OFFSET, "
                               "which is TOTAL_UB_SIZE there: no API scratch every kernel has; npusim needs the "
                               "sharedTmpBuffer form", "a uint8 temp_buffer", regbase.REGBASE_NOTE)
    if temp_buffer is None:
        start = core.chip.vec_local_bytes
        floats = (core.chip.ub_bytes - KFC_MESSAGE[core.chip.npu_arch] - start) // FLOAT
        return LocalTensor(_FLOAT32, TPosition.VECCALC, start, floats), floats
    buffer = _require_tensor("temp_buffer", temp_buffer)
    buffer.check_usable(NAME, "temp_buffer", core)
    if buffer.dtype.name != "uint8":
        raise TypeError(f"{NAME}: temp_buffer must be a uint8 LocalTensor (sharedTmpBuffer), got "
                        f"{buffer.dtype.name}")
    if buffer.addr % BLOCK:
        raise AlignmentError(NAME, "temp_buffer address", buffer.addr, "a LocalTensor operand starts on a "
                             "32-byte boundary", "multiples of 32", f"{pages.GENERAL} 通用地址对齐约束")
    needed = 0 if register_isa else min_tmp_bytes(shape.row_stride, shape.stat_k)
    if buffer.get_size() < needed:
        raise ParameterRangeError(NAME, "temp_buffer bytes", buffer.get_size(), "the temporary buffer is at least "
                                  f"GetSoftMaxMinTmpSize ((32 / sizeof(sum type) + srcK + 64) * 4 = "
                                  f"({shape.stat_k} + {shape.row_stride} + 64) * 4)", f">= {needed}",
                                  f"{pages.SOFTMAX_TILING} 参数说明 (表2 localWorkSpaceSize); {TILING_NOTE}")
    work = buffer.reinterpret_cast(_FLOAT32)
    return work, work.get_size()


def _checked_tiling(tiling: SoftmaxTiling, shape: _Shape, work_floats: int, temp_buffer_given: bool) -> SoftmaxTiling:
    """The tiling the kernel runs with: its own unless ``tiling`` was made for this shape (L130-140)."""
    per_row = _row_floats(shape.src_itemsize, shape.stat_k, shape.row_stride)
    if tiling.src_k != shape.row_stride or tiling.src_m != shape.rows:
        chosen = tiling_for(work_floats, shape.rows, shape.row_stride, shape.original_rows, shape.src_itemsize,
                            shape.stat_k)
        if chosen.reduce_m == 0:
            hint = "" if temp_buffer_given else (" (without temp_buffer npusim uses the API scratch above "
                                                 "TMP_UB_OFFSET; pass a temp_buffer)")
            raise ParameterRangeError(NAME, "temporary buffer floats", work_floats, f"the buffer must hold one row "
                                      f"of a split ({per_row} floats); the kernel asserts 'softmax need min "
                                      f"tmpbuffer is not enough'{hint}", f">= {per_row}", TILING_NOTE)
        return chosen
    split, tail, k = tiling.split_m, tiling.tail_m, shape.stat_k
    expected = {"split_k": shape.row_stride, "split_size": split * shape.row_stride, "reduce_m": split,
                "reduce_k": k, "reduce_size": split * k, "tail_split_size": tail * shape.row_stride,
                "tail_reduce_size": tail * k}
    if split == 0 or tiling.range_m * split + tail != shape.original_rows or tail >= split:
        raise ParameterRangeError(NAME, "tiling.split_m", split, "range_m full splits of split_m rows and a tail "
                                  f"of tail_m < split_m rows cover the {shape.original_rows} rows "
                                  f"(range_m = {tiling.range_m}, tail_m = {tail})", "the SoftMaxTilingFunc result",
                                  TILING_NOTE)
    for member, value in expected.items():
        if getattr(tiling, member) != value:
            raise ParameterRangeError(NAME, f"tiling.{member}", getattr(tiling, member), "inconsistent with the "
                                      f"shape [{shape.rows}, {shape.row_stride}] and split_m = {split}",
                                      f"{value}", TILING_NOTE)
    if split * per_row > work_floats:
        raise ParameterRangeError(NAME, "tiling.split_m", split, f"a split of split_m rows needs {per_row} * split_m "
                                  f"floats of temporary buffer, which has {work_floats}",
                                  f"<= {work_floats // per_row}", TILING_NOTE)
    return tiling


def _check_repeat_limits(shape: _Shape, arch: steps.Arch, split_m: int) -> None:
    """The 8-bit counts of the vendor code (docs/softmax.md §1.6): BigBlockReduce's repeat (the chunks after the
    first 512 elements), the split's rows of the chunk-0-op-chunk-1 step, and on the 310P the first-block Adds'
    repeat stride (srcK / 8)."""
    if shape.original_k >= BIG_ROW and shape.original_k // LANES - PER_BLOCK > MAX_REPEAT:
        raise ParameterRangeError(NAME, "src last axis", shape.original_k, "BigBlockReduce passes the chunks past "
                                  "the first 512 elements as an 8-bit repeat count",
                                  f"< {(MAX_REPEAT + PER_BLOCK + 1) * LANES}", LIMITS_NOTE)
    if steps.TWO_CHUNKS <= shape.original_k < BIG_ROW and split_m > MAX_REPEAT:
        raise ParameterRangeError(NAME, "tiling.split_m", split_m, "for rows of 128 to 511 elements the row "
                                  "reductions pass the split's rows as an 8-bit repeat count (uint8_t splitM)",
                                  f"<= {MAX_REPEAT}", LIMITS_NOTE)
    if (arch.first_block_adds and LANES <= shape.original_k < steps.TWO_CHUNKS
            and shape.row_stride // PER_BLOCK > MAX_REPEAT):
        raise ParameterRangeError(NAME, "src last axis", shape.row_stride, "for rows of 64 to 127 elements the "
                                  "310P's FirstBlockCopyImpl passes srcK / 8 as an 8-bit repeat stride",
                                  f"<= {MAX_REPEAT * PER_BLOCK}", LIMITS_NOTE)


# ------------------------------------------------------------------------------- one split
def _split_float(arch, dst, sum_, max_t, src, work, rows: int, shape: _Shape, split_m: int) -> None:
    """SoftMaxGenericNDImpl, float (softmax_generic_nd_impl.h L27-53): ``work`` = 64 lanes, then the partials."""
    stride, k = shape.row_stride, shape.original_k
    part = work[split_m * LANES]
    steps.row_reduce(steps.MAX, max_t, src, work, part, rows, stride, k, PER_BLOCK, arch)
    pipe_barrier(PipeID.PIPE_V)
    steps.broadcast_op(sub, dst, src, max_t, rows, stride, PER_BLOCK)
    pipe_barrier(PipeID.PIPE_V)
    exp(dst, dst, rows * stride)
    pipe_barrier(PipeID.PIPE_V)
    steps.row_reduce(steps.SUM, sum_, dst, work, part, rows, stride, k, PER_BLOCK, arch)
    pipe_barrier(PipeID.PIPE_V)
    steps.divide(arch, dst, sum_, work, rows, stride, PER_BLOCK)


def _split_half(arch, dst, sum_, max_t, src, work, rows: int, shape: _Shape, split_m: int) -> None:
    """SoftMaxGenericNDImpl, half data (softmax_generic_nd_impl.h L55-121), in float in ``work``.

    half sum/max (L55-90): the float row in ``work``, the 16-float reduced block after it, then the
    64 lanes; the block is cast to half.  float sum/max (L92-121): the row, then the 64 lanes; the
    reductions write sum/max directly.  The partials go where the tiling leaves room (§1.5): the
    second half of the 16-float block, or past the lanes.
    """
    stride, k, stat_k = shape.row_stride, shape.original_k, shape.stat_k
    row_f = work
    size = rows * stride
    cast(row_f, src, RoundMode.CAST_NONE, size)
    pipe_barrier(PipeID.PIPE_V)
    half_stats = stat_k == 2 * PER_BLOCK
    if half_stats:
        block = work[split_m * stride]
        lanes = work[split_m * (stride + stat_k)]
        part = block[split_m * PER_BLOCK]
        maximum, total = block, block
    else:
        block = None
        lanes = work[split_m * stride]
        part = lanes[split_m * LANES]
        maximum, total = max_t, sum_

    def reduce(kind, reduced, output) -> None:
        """The row reduction, cast out to a half sum/max."""
        steps.row_reduce(kind, reduced, row_f, lanes, part, rows, stride, k, stat_k, arch)
        pipe_barrier(PipeID.PIPE_V)
        if half_stats:
            cast(output, block, arch.half_round, rows * stat_k)
            pipe_barrier(PipeID.PIPE_V)

    reduce(steps.MAX, maximum, max_t)
    steps.broadcast_op(sub, row_f, row_f, maximum, rows, stride, stat_k)
    pipe_barrier(PipeID.PIPE_V)
    exp(row_f, row_f, size)
    pipe_barrier(PipeID.PIPE_V)
    reduce(steps.SUM, total, sum_)
    steps.divide(arch, row_f, total, lanes, rows, stride, stat_k)
    pipe_barrier(PipeID.PIPE_V)
    cast(dst, row_f, arch.half_round, size)


# --------------------------------------------------------------------------------- the API
def softmax(dst: LocalTensor, sum: LocalTensor, max: LocalTensor, src: LocalTensor,  # noqa: A002 - pyasc's names
            tiling: SoftmaxTiling, temp_buffer: LocalTensor | None = None, reuse_source: bool = False,
            basic_block: bool = False, data_format_nz: bool = False) -> None:
    """SoftMax of every row of ``src`` into ``dst``, the row maxima into ``max`` and the row sums into ``sum``.

    ``sum``/``max`` hold one 32-byte block (the same value repeated) per row.  ``src`` and ``dst``
    may be the same tensor.  ``temp_buffer`` (uint8, at least GetSoftMaxMinTmpSize bytes) is the
    sharedTmpBuffer form; without it the API uses its own scratch (A2/A3, 310P; the 950 and Kirin need
    ``temp_buffer``, docs/softmax.md §2.5).  Accuracy model (the module docstring): exact given npusim's
    ``exp`` (and on the 950/Kirin its flush-to-zero ``exp`` and division, §2.4).  Memory and registers
    are left unchanged when a check rejects the call or the call is interrupted.
    """
    for operand, value in (("dst", dst), ("sum", sum), ("max", max), ("src", src)):
        _require_tensor(operand, value)
    if not isinstance(tiling, SoftmaxTiling):
        raise TypeError(f"{NAME}: tiling must be an asc.adv.SoftmaxTiling, got {type(tiling).__name__}")
    for flag, value in (("reuse_source", reuse_source), ("basic_block", basic_block),
                        ("data_format_nz", data_format_nz)):
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{NAME}: {flag} must be a bool, got {value!r}")
    core = current_core(NAME)
    arch = _require_supported(core)
    if basic_block:
        raise UnsupportedError(NAME, "basic_block", True, "npusim does not model the basic-block implementation "
                               "(SoftMaxBasicBlock)", "False", f"{pages.SOFTMAX} 参数说明 (isBasicBlock)")
    if data_format_nz:
        raise UnsupportedError(NAME, "data_format_nz", True, "npusim models the ND format only", "False",
                               f"{pages.SOFTMAX} 参数说明 (isDataFormatNZ)")
    # reuse_source is reserved (SoftMax.md 表1); the form with sum and max never forwards it (L144-168).
    _check_operands(core, dst, sum, max, src)
    shape = _shape_of(src, sum)
    _check_sizes(dst, sum, max, src, shape)
    if arch is None:
        _register_isa(core, dst, sum, max, src, temp_buffer, shape)
        return
    work, work_floats = _work_buffer(core, temp_buffer, shape)
    chosen = _checked_tiling(tiling, shape, work_floats, temp_buffer is not None)
    _check_repeat_limits(shape, arch, chosen.split_m)
    spans = _spans(dst, sum, max, src, work, shape, work_floats)
    _check_overlaps(spans, dst, src)
    with _restored_on_failure(core, [spans[name] for name in ("dst", "sum", "max", "temporary buffer")]):
        _run(arch, dst, sum, max, src, work, shape, chosen)


def _register_isa(core, dst, sum_, max_t, src, temp_buffer, shape: _Shape) -> None:
    """The 950 / Kirin: regbase/3510's one vector function over every original row (docs/softmax.md §2).

    The tiling is not read past ``srcK`` (the shape's, whether the kernel recomputes it or not): every
    check runs before the first step, the ForBlk path's SetVectorMask included (``dispatch.check_call``)."""
    work, work_floats = _work_buffer(core, temp_buffer, shape, register_isa=True)
    reg = regbase.plan(core, shape, src.dtype, sum_.dtype)
    regbase.check_buffer(core, reg, shape, work_floats)
    spans = _spans(dst, sum_, max_t, src, work, shape, work_floats)
    _check_overlaps(spans, dst, src)
    regbase.check_reads(core, reg, src)
    regbase.check_mask_call(reg)
    regbase.check_initialized(core, reg, src)
    with _restored_on_failure(core, [spans[name] for name in ("dst", "sum", "max", "temporary buffer")]):
        regbase.run(core, reg, dst, sum_, max_t, src, work)


def _run(arch, dst, sum_, max_t, src, work, shape: _Shape, tiling: SoftmaxTiling) -> None:
    """SoftMaxNDImpl + SoftMaxNDExtImpl (membase/v220/softmax_impl.h L34-112, membase/v200/softmax_impl.h L34-67,
    softmax_generic_nd_impl.h L123-182)."""
    set_mask_norm()
    reset_mask()
    pipe_barrier(PipeID.PIPE_V)
    stride, stat_k = shape.row_stride, shape.stat_k
    one_split = _split_float if shape.src_itemsize == FLOAT else _split_half
    splits = [(index * tiling.split_m, tiling.split_m) for index in range(tiling.range_m)]
    if tiling.tail_m:
        splits.append((tiling.range_m * tiling.split_m, tiling.tail_m))
    for number, (first_row, rows) in enumerate(splits):
        if number:
            pipe_barrier(PipeID.PIPE_V)
        one_split(arch, dst[first_row * stride], sum_[first_row * stat_k], max_t[first_row * stat_k],
                  src[first_row * stride], work, rows, shape, tiling.split_m)


class _restored_on_failure:  # noqa: N801 - used as a statement
    """Put back the bytes (and their written-shadow) and the mask registers if the body raises."""

    def __init__(self, core, spans: list[tuple[int, int]]) -> None:
        self.core, self.spans = core, spans

    def __enter__(self):
        ub = self.core.ub
        self.saved = [(start, ub.data[start:stop].copy(), ub.written[start:stop].copy()) for start, stop in self.spans]
        self.registers = (self.core.mask_words, self.core.mask_mode)
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is None:
            return
        ub = self.core.ub
        for start, data, written in reversed(self.saved):
            ub.data[start:start + data.size] = data
            ub.written[start:start + written.size] = written
        ub.shadow_epoch += 1  # the shadow may have lost marks: accesses that saw their bytes written look again
        self.core.set_mask_words(*self.registers[0])
        self.core.set_mask_mode(self.registers[1])
