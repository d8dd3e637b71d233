"""SoftMax (ND format, float) as the vendor computes it on Atlas A2/A3: a sequence of npusim's own instructions.

``softmax(dst, sum, max, src, tiling, temp_buffer=None)`` is pyasc's ``asc.adv.softmax`` and
Ascend C's ``SoftMax<float>(dst, sumTensor, maxTensor, src[, sharedTmpBuffer], tiling)``
(SoftMax.md).  Per row of the ``[m, k]`` view of ``src`` (the product of the leading axes of its
ShapeInfo times the last axis) it writes ``max`` and ``sum`` as one 32-byte block each (8 copies
of the value) and ``dst = exp(src - max) / sum``.

**Exactness: accuracy model.**  Every step is a registered npusim instruction and rounds as that
instruction does (the adds, the subtraction and the division IEEE round-to-nearest-even in
float32, max exact); ``exp`` is an accuracy-model instruction (float64 ``exp`` rounded to float32,
within one ulp of the correctly rounded value, docs/numerics.md), so SoftMax inherits that model:
given npusim's ``exp``, the result is fixed to the bit; against hardware it is as close as ``exp``.

The algorithm is the dav_c220 (``__NPU_ARCH__ == 2201``) one, files under
``impl/adv_api/detail/activation/softmax/`` of asc-devkit @0da921b9:

* ``softmax_base_impl.h`` L98-155: the shape comes from ``src``'s ShapeInfo (pyasc passes no
  SoftMaxShapeInfo); when ``tiling.srcM/srcK`` differ from it — a default-constructed (all-zero)
  ``SoftmaxTiling`` always does — the kernel recomputes the tiling itself with
  ``SoftMaxTilingFunc`` (``softmax_common/softmax_tiling_func.h`` L29-70, ``CalculateNDSplitM`` in
  ``softmax_common_shape_process.h`` L59-83) from the size of its temporary buffer; the framework's
  buffer is ``PopStackBuffer`` (``impl/basic_api/kernel_pop_stack_buffer.h``: up to
  ``TOTAL_UB_SIZE - 64`` on 2201).  npusim uses the part of it every kernel has, the API scratch
  from ``TMP_UB_OFFSET`` (``chip.vec_local_bytes``) to the end of UB less 64 bytes, so it never
  writes a buffer of the caller.  The split only decides how many rows go through each pass and
  which temporary bytes are used; no row's value depends on it.
* ``membase/common/softmax_impl/softmax_generic_nd_impl.h`` L27-53 and L123-152: per split of
  rows, row max, ``dst = src - max``, ``exp``, row sum, ``dst = dst / sum`` (A2; 310P, arch 2002,
  multiplies by ``1 / sum`` instead, L46-48 — not modelled).
* ``membase/v220/softmax_common_impl/softmax_common_nd_reduce.h`` L183-336, the row reductions,
  in the vendor's order: the 64-lane chunks of a row are combined lane by lane (``k >= 512``:
  ``BigBlockReduce*``, ``softmax_common/softmax_common_reduce.h`` L72-114, a block reduction of the
  first 512 elements followed by one add per further chunk; ``[128, 512)``: chunk 0 + chunk 1,
  then each further chunk, ``softmax_common_arithmetic.h`` L112-164; ``[64, 128)``: chunk 0; a
  partial last chunk: ``TailAddImpl`` L84-108), then the 64 lanes by two BlockReduce passes (an
  adjacent-pair tree, ReduceDataBlock.md) — for a single row one WholeReduce of 8 repeats;
  rows shorter than 64 by one WholeReduce each.  The value is broadcast to 8 lanes with Brcb and
  Copy (``softmax_common_broadcast.h`` L110-136).
* ``softmax_common/softmax_common_arithmetic.h`` L218-276: the subtraction and the division,
  with the max / sum block as a broadcast operand.

Two of the vendor's instruction calls are split here, because npusim's overlap rule
(docs/semantics.md §1.6: no repeat may read what an earlier repeat of the same call wrote, and a
source meets the destination exactly or not at all) refuses them: the accumulating ``Add``/``Max``
with a destination repeat stride of 0 becomes one call per chunk over the rows, and the in-place
``BlockReduce`` (``BasicBlockReduce*Impl`` L161-181, L275-294) writes its 8 partials per row past
the ``64 * splitM`` floats of the temporary buffer instead (inside the ``(8 + 64) * splitM`` the
tiling reserves).  Each lane sees the same operations in the same order.
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
from ..ops.brcb import brcb
from ..ops.elementwise import add, div, exp, max_, sub
from ..ops.reduce import block_reduce_max, block_reduce_sum, whole_reduce_max, whole_reduce_sum
from ..ops.registers import reset_mask, set_mask_count, set_mask_norm, set_vector_mask
from ..ops.sync import pipe_barrier
from ..ops.vector_copy import copy
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, BrcbRepeatParams, CopyRepeatParams, MaskMode, PipeID, ReduceOrder, TPosition

__all__ = ["SoftmaxTiling", "min_tmp_bytes", "softmax", "tiling_for"]

NAME = "softmax"
# npusim's notes on what the implementation (not the page) decides: docs/softmax.md
PRODUCTS_NOTE = "docs/softmax.md §1.1"
TILING_NOTE = "docs/softmax.md §1.2"
LIMITS_NOTE = "docs/softmax.md §1.6"

FLOAT = 4
BLOCK = 32
LANES = 64  # FLOAT_REPEAT_SIZE: float lanes of one repeat
PER_BLOCK = 8  # FLOAT_NUM_PER_BLK
MAX_REPEAT = 255  # MAX_REPEAT_TIMES
BIG_ROW = 512  # SOFTMAX_FLOAT_SPECIAL_BLOCKREDUCE_LEN
TWO_CHUNKS = 128  # HALF_REPEAT_SIZE
SUB_DIV_ROW = 192  # SOFTMAX_SUB_DIV_ROW_COLUMN_SIZE
KFC_MESSAGE = 64  # the last 64 B of UB on 2201, reserved for the KFC message (kernel_pop_stack_buffer.h)
MODELLED_ARCH = 2201
#: SoftMax.md 产品支持情况: the products that have the API ("Atlas 推理系列产品 Vector Core" and
#: "Atlas 训练系列产品" do not)
DOCUMENTED_PRODUCTS = frozenset({"950", "A3", "A2", "310B", "310P", "KirinX90", "Kirin9030"})
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


def tiling_for(work_floats: int, rows: int, row_stride: int, original_rows: int) -> SoftmaxTiling:
    """The kernel-side ``SoftMaxTilingFunc`` for float (``softmax_tiling_func.h`` L29-70), ND format."""
    reduce_m = min(work_floats // (PER_BLOCK + LANES), rows)  # CalculateNDSplitM, 4-byte types
    if PER_BLOCK < reduce_m < original_rows:
        reduce_m = reduce_m // PER_BLOCK * PER_BLOCK
    reduce_m = min(reduce_m, original_rows)
    range_m, tail_m = (original_rows // reduce_m, original_rows % reduce_m) if reduce_m else (0, 0)
    return SoftmaxTiling(
        src_m=rows, src_k=row_stride, src_size=rows * row_stride, out_max_m=rows, out_max_k=PER_BLOCK,
        out_max_size=rows * PER_BLOCK, split_m=reduce_m, split_k=row_stride, split_size=reduce_m * row_stride,
        reduce_m=reduce_m, reduce_k=PER_BLOCK, reduce_size=reduce_m * PER_BLOCK, range_m=range_m, tail_m=tail_m,
        tail_split_size=tail_m * row_stride, tail_reduce_size=tail_m * PER_BLOCK)


def min_tmp_bytes(row_stride: int) -> int:
    """GetSoftMaxMinTmpSize for float on every product but the 950: ``(8 + k + 64) * 4`` bytes."""
    return (PER_BLOCK + row_stride + LANES) * FLOAT


# ----------------------------------------------------------------------------------- checks
@dataclass(frozen=True)
class _Shape:
    rows: int  # srcM
    row_stride: int  # srcK: the last axis, elements between rows
    original_rows: int  # oriSrcM
    original_k: int  # oriSrcK: the elements of a row that the reductions read


def _require_tensor(operand: str, value) -> LocalTensor:
    if not isinstance(value, LocalTensor):
        raise TypeError(f"{NAME}: {operand} must be an asc.LocalTensor, got {type(value).__name__}")
    return value


def _require_supported(core) -> None:
    chip = core.chip
    if chip.name not in DOCUMENTED_PRODUCTS:
        raise UnsupportedError(NAME, "product", chip.product, "SoftMax is not available on this product",
                               ", ".join(sorted(DOCUMENTED_PRODUCTS)), f"{pages.SOFTMAX} 产品支持情况")
    if chip.npu_arch != MODELLED_ARCH:
        raise UnsupportedError(NAME, "product", chip.product, "npusim models the dav_c220 implementation of "
                               "SoftMax (Atlas A2/A3) only; this product's differs (310P: reciprocal and multiply, "
                               "950/310B/Kirin: register-based)", "A2, A3", PRODUCTS_NOTE)


def _shape_of(src: LocalTensor) -> _Shape:
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
    if row_stride * FLOAT % BLOCK:
        raise ParameterRangeError(NAME, "src last axis", row_stride, "srcK must be 32-byte aligned",
                                  "a multiple of 8 float elements", f"{pages.SOFTMAX} 参数说明 (srcTensor, srcK)")
    if original_k > row_stride or original_rows > rows or rows == 0:
        raise ParameterRangeError(NAME, "src original shape", list(original), "the original shape lies within the "
                                  f"shape {list(dims)} (oriSrcM <= srcM, oriSrcK <= srcK)", "original <= shape",
                                  f"{pages.SOFTMAX} 约束说明")
    return _Shape(rows, row_stride, original_rows, original_k)


def _check_dtypes(dst, sum_, max_t, src) -> None:
    """SoftMax.md 函数原型 and 约束说明: dst has src's type; sum and max share one type."""
    if sum_.dtype != max_t.dtype:
        raise ParameterRangeError(NAME, "max dtype", max_t.dtype.name, f"sumTensor and maxTensor have the same "
                                  f"data type (sum is {sum_.dtype.name})", sum_.dtype.name, f"{pages.SOFTMAX} 约束说明")
    if dst.dtype != src.dtype:
        raise ParameterRangeError(NAME, "dst dtype", dst.dtype.name, f"dstTensor and srcTensor are both "
                                  f"LocalTensor<T> (src is {src.dtype.name})", src.dtype.name,
                                  f"{pages.SOFTMAX} 函数原型")


def _check_operands(core, dst, sum_, max_t, src) -> None:
    """Usable tensors of this core, the element types, 32-byte aligned addresses."""
    for operand, tensor in (("dst", dst), ("sum", sum_), ("max", max_t), ("src", src)):
        tensor.check_usable(NAME, operand, core)
    _check_dtypes(dst, sum_, max_t, src)
    for operand, tensor in (("dst", dst), ("sum", sum_), ("max", max_t), ("src", src)):
        if tensor.dtype.name != "float32":
            modelled = tensor.dtype.name == "float16"
            raise UnsupportedError(NAME, f"{operand} dtype", tensor.dtype.name,
                                   "npusim models the float SoftMax only (the half forms are not modelled)"
                                   if modelled else "SoftMax takes half or float", "float32",
                                   f"{pages.SOFTMAX} 参数说明 (表1 T)")
        if tensor.addr % BLOCK:
            raise AlignmentError(NAME, f"{operand} address", tensor.addr, "a LocalTensor operand starts on a "
                                 "32-byte boundary", "multiples of 32", f"{pages.GENERAL} 通用地址对齐约束")


def _check_sizes(dst, sum_, max_t, src, shape: _Shape) -> None:
    """Every operand holds the ``[m, k]`` (dst, src) or ``[m, 8]`` (sum, max) of src's shape."""
    size = shape.rows * shape.row_stride
    for operand, tensor, needed in (("src", src, size), ("dst", dst, size),
                                    ("sum", sum_, shape.rows * PER_BLOCK), ("max", max_t, shape.rows * PER_BLOCK)):
        if tensor.get_size() < needed:
            raise OutOfBoundsError(NAME, f"{operand} elements", tensor.get_size(), f"{operand} holds the "
                                   f"[{shape.rows}, {needed // shape.rows}] result of src's shape (sum and max: one "
                                   "32-byte block per row)", f">= {needed}", f"{pages.SOFTMAX} 约束说明")
    for operand, tensor in (("sum", sum_), ("max", max_t)):
        info = tensor.get_shape_info()
        if info.dims and (info.dims[-1] != PER_BLOCK or math.prod(info.dims[:-1]) != shape.rows):
            raise ParameterRangeError(NAME, f"{operand} shape_info", list(info.dims), "sumTensor and maxTensor "
                                      "have a last axis of exactly 32 bytes and the rows of src",
                                      f"[{shape.rows}, {PER_BLOCK}]", f"{pages.SOFTMAX} 约束说明")


def _span(tensor: LocalTensor, elements: int) -> tuple[int, int]:
    return tensor.addr, tensor.addr + elements * tensor.dtype.itemsize


def _meets(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _check_overlaps(dst, sum_, max_t, src, work: LocalTensor, shape: _Shape, work_floats: int) -> None:
    size = shape.rows * shape.row_stride
    spans = {"dst": _span(dst, size), "src": _span(src, size), "sum": _span(sum_, shape.rows * PER_BLOCK),
             "max": _span(max_t, shape.rows * PER_BLOCK), "temporary buffer": _span(work, work_floats)}
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


def _work_buffer(core, temp_buffer, shape: _Shape) -> tuple[LocalTensor, int]:
    """The float view of the temporary buffer and its size in floats (``softmax_base_impl.h`` L144-168)."""
    if temp_buffer is None:
        start = core.chip.vec_local_bytes
        floats = (core.chip.ub_bytes - KFC_MESSAGE - start) // FLOAT
        return LocalTensor(_FLOAT32, TPosition.VECCALC, start, floats), floats
    buffer = _require_tensor("temp_buffer", temp_buffer)
    buffer.check_usable(NAME, "temp_buffer", core)
    if buffer.dtype.name != "uint8":
        raise TypeError(f"{NAME}: temp_buffer must be a uint8 LocalTensor (sharedTmpBuffer), got "
                        f"{buffer.dtype.name}")
    if buffer.addr % BLOCK:
        raise AlignmentError(NAME, "temp_buffer address", buffer.addr, "a LocalTensor operand starts on a "
                             "32-byte boundary", "multiples of 32", f"{pages.GENERAL} 通用地址对齐约束")
    if buffer.get_size() < min_tmp_bytes(shape.row_stride):
        raise ParameterRangeError(NAME, "temp_buffer bytes", buffer.get_size(), "the temporary buffer is at least "
                                  f"GetSoftMaxMinTmpSize ((8 + srcK + 64) * 4 for float, srcK = {shape.row_stride})",
                                  f">= {min_tmp_bytes(shape.row_stride)}",
                                  f"{pages.SOFTMAX_TILING} 参数说明 (表2 localWorkSpaceSize); {TILING_NOTE}")
    work = buffer.reinterpret_cast(_FLOAT32)
    return work, work.get_size()


def _checked_tiling(tiling: SoftmaxTiling, shape: _Shape, work_floats: int) -> SoftmaxTiling:
    """The tiling the kernel runs with: its own unless ``tiling`` was made for this shape (L130-140)."""
    if tiling.src_k != shape.row_stride or tiling.src_m != shape.rows:
        chosen = tiling_for(work_floats, shape.rows, shape.row_stride, shape.original_rows)
        if chosen.reduce_m == 0:
            raise ParameterRangeError(NAME, "temporary buffer floats", work_floats, "the buffer must hold one row's "
                                      "reduction (8 + 64 floats); the kernel asserts 'softmax need min tmpbuffer "
                                      "is not enough'", f">= {PER_BLOCK + LANES}", TILING_NOTE)
        return chosen
    split, tail = tiling.split_m, tiling.tail_m
    expected = {"split_k": shape.row_stride, "split_size": split * shape.row_stride, "reduce_m": split,
                "reduce_k": PER_BLOCK, "reduce_size": split * PER_BLOCK,
                "tail_split_size": tail * shape.row_stride, "tail_reduce_size": tail * PER_BLOCK}
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
    if split * (PER_BLOCK + LANES) > work_floats:
        raise ParameterRangeError(NAME, "tiling.split_m", split, f"a split of split_m rows needs (8 + 64) * split_m "
                                  f"floats of temporary buffer, which has {work_floats}",
                                  f"<= {work_floats // (PER_BLOCK + LANES)}", TILING_NOTE)
    return tiling


def _check_repeat_limits(shape: _Shape) -> None:
    """BigBlockReduce passes the chunks after the first 512 elements as an 8-bit repeat (docs/softmax.md §1.6)."""
    if shape.original_k >= BIG_ROW and shape.original_k // LANES - PER_BLOCK > MAX_REPEAT:
        raise ParameterRangeError(NAME, "src last axis", shape.original_k, "BigBlockReduce passes the chunks past "
                                  "the first 512 elements as an 8-bit repeat count",
                                  f"< {(MAX_REPEAT + PER_BLOCK + 1) * LANES}", LIMITS_NOTE)


# --------------------------------------------------------------------------- the reductions
class _Reduction:
    """Sum or max: the lane-wise op, the DataBlock reduction and the repeat reduction of one kind."""

    def __init__(self, lanewise, per_block, per_repeat, order=None) -> None:
        self.lanewise, self.per_block, self.per_repeat, self.order = lanewise, per_block, per_repeat, order

    def whole(self, dst, src, mask, repeat, dst_rep, src_blk, src_rep, is_set_mask=True) -> None:
        if self.order is None:
            self.per_repeat(dst, src, mask, repeat, dst_rep, src_blk, src_rep, is_set_mask)
        else:
            self.per_repeat(dst, src, mask, repeat, dst_rep, src_blk, src_rep, self.order, is_set_mask)


_SUM = _Reduction(add, block_reduce_sum, whole_reduce_sum)
_MAX = _Reduction(max_, block_reduce_max, whole_reduce_max, ReduceOrder.ORDER_ONLY_VALUE)
_FULL = 0  # MASK_PLACEHOLDER: the mask register (full after ResetMask) decides


def _row_groups(rows: int):
    for first in range(0, rows, MAX_REPEAT):
        yield first, min(MAX_REPEAT, rows - first)


def _accumulate(kind: _Reduction, tmp, x, chunk: int, rows: int, stride: int, chunk_first: bool, mask=_FULL,
                is_set_mask=False) -> None:
    """tmp row r (64 lanes) op= x[r * stride + 64 * chunk ...], one repeat per row, the rows in groups of 255."""
    rep_stride = stride // PER_BLOCK
    if rep_stride > MAX_REPEAT:  # a repeat stride is 8 bits (TailAddImpl L89-93): one call per row
        groups = [(row, 1) for row in range(rows)]
        rep_stride = PER_BLOCK
    else:
        groups = list(_row_groups(rows))
    for first, count in groups:
        acc, chunk_view = tmp[first * LANES], x[first * stride + chunk * LANES]
        params = BinaryRepeatParams(1, 1, 1, PER_BLOCK, rep_stride if chunk_first else PER_BLOCK,
                                    PER_BLOCK if chunk_first else rep_stride)
        first_op, second_op = (chunk_view, acc) if chunk_first else (acc, chunk_view)
        kind.lanewise(acc, first_op, second_op, mask, count, params, is_set_mask)


def _row_reduce(kind: _Reduction, out, x, tmp, part, rows: int, stride: int, original_k: int) -> None:
    """NewReduce{Sum,Max}LastNDImpl (softmax_common_nd_reduce.h L183-223, L296-336): out = 8 copies per row."""
    chunks, tail = divmod(original_k, LANES)
    rep_stride = stride // PER_BLOCK
    if original_k < LANES:  # Reduce*LastNDSplitImpl: one WholeReduce per row, the first original_k lanes
        for first, count in _row_groups(rows):
            kind.whole(out[first], x[first * stride], original_k, count, 1, 1, rep_stride)
        reset_mask()
    else:
        if original_k >= BIG_ROW:  # BigBlockReduce*: 8 block results per repeat of the first 512 elements
            for row in range(rows):
                kind.per_block(tmp[row * LANES], x[row * stride], PER_BLOCK, _FULL, 1, 1, PER_BLOCK, False)
            if chunks > PER_BLOCK:
                pipe_barrier(PipeID.PIPE_V)
                for chunk in range(PER_BLOCK, chunks):
                    _accumulate(kind, tmp, x, chunk, rows, stride, chunk_first=True)
        elif original_k >= TWO_CHUNKS:  # chunk 0 op chunk 1, then NextBlock*Impl
            for first, count in _row_groups(rows):
                kind.lanewise(tmp[first * LANES], x[first * stride], x[first * stride + LANES], _FULL, count,
                              BinaryRepeatParams(1, 1, 1, PER_BLOCK, rep_stride, rep_stride), False)
            for chunk in range(2, chunks):
                pipe_barrier(PipeID.PIPE_V)
                _accumulate(kind, tmp, x, chunk, rows, stride, chunk_first=rows <= chunks)
        else:  # FirstBlockCopyImpl
            for first, count in _row_groups(rows):
                copy(tmp[first * LANES], x[first * stride], _FULL, count,
                     CopyRepeatParams(1, 1, PER_BLOCK, rep_stride), False)
        if tail:  # Tail*Impl: the partial last chunk, its first `tail` lanes
            pipe_barrier(PipeID.PIPE_V)
            _accumulate(kind, tmp, x, chunks, rows, stride, chunk_first=False, mask=tail, is_set_mask=True)
            reset_mask()
        pipe_barrier(PipeID.PIPE_V)
        if rows == 1:  # BasicBlockReduce*Impl: 8 repeats of the same 64 lanes -> 8 copies
            kind.whole(out, tmp, _FULL, PER_BLOCK, 1, 1, 0, False)
        else:
            set_mask_count()
            set_vector_mask(0, rows * LANES, _FLOAT32, MaskMode.COUNTER)
            kind.per_block(part, tmp, 1, _FULL, 1, 1, PER_BLOCK, False)
            pipe_barrier(PipeID.PIPE_V)
            set_vector_mask(0, rows * PER_BLOCK, _FLOAT32, MaskMode.COUNTER)
            kind.per_block(out, part, 1, _FULL, 1, 1, PER_BLOCK, False)
            set_mask_norm()
            reset_mask()
    if rows != 1 or original_k <= LANES:  # AlignedBroadCastImpl (softmax_common_broadcast.h L110-136)
        pipe_barrier(PipeID.PIPE_V)
        groups = -(-rows // PER_BLOCK)
        # Brcb reads whole groups of 8 values: past `rows` it reads whatever out holds there, bytes the Copy
        # below overwrites and whose copies it never takes.  They count as written, so that reading them is
        # not reported as a read of never-written memory (docs/softmax.md §1.3).
        out.core.ub.mark_written(out.addr + rows * FLOAT, out.addr + groups * PER_BLOCK * FLOAT)
        brcb(tmp, out, groups, BrcbRepeatParams(1, PER_BLOCK))
        pipe_barrier(PipeID.PIPE_V)
        set_mask_count()
        set_vector_mask(0, rows * PER_BLOCK, _FLOAT32, MaskMode.COUNTER)
        copy(out, tmp, _FULL, 1, CopyRepeatParams(1, 1, PER_BLOCK, PER_BLOCK), False)
        set_mask_norm()
        reset_mask()


def _row_broadcast_op(op, dst, src0, block, rows: int, stride: int) -> None:
    """GenericSubNDImpl / GenericDivNDImpl (softmax_common_arithmetic.h L218-276): dst = src0 op block, per row."""
    set_mask_count()
    if stride < SUB_DIV_ROW:  # one DataBlock column of every row per call
        column_blocks = stride // PER_BLOCK
        set_vector_mask(0, rows * PER_BLOCK, _FLOAT32, MaskMode.COUNTER)
        params = BinaryRepeatParams(column_blocks, column_blocks, 1, stride, stride, PER_BLOCK)
        for column in range(column_blocks):
            op(dst[column * PER_BLOCK], src0[column * PER_BLOCK], block, _FULL, 1, params, False)
    else:  # one row per call, the row's block read again for every DataBlock
        set_vector_mask(0, stride, _FLOAT32, MaskMode.COUNTER)
        params = BinaryRepeatParams(1, 1, 0, PER_BLOCK, PER_BLOCK, 0)
        for row in range(rows):
            op(dst[row * stride], src0[row * stride], block[row * PER_BLOCK], _FULL, 1, params, False)
    set_mask_norm()
    reset_mask()


def _split(dst, sum_, max_t, src, work, rows: int, stride: int, original_k: int, split_m: int) -> None:
    """SoftMaxGenericNDImpl, float (softmax_generic_nd_impl.h L27-53), one split of ``rows`` rows."""
    part = work[split_m * LANES]
    _row_reduce(_MAX, max_t, src, work, part, rows, stride, original_k)
    pipe_barrier(PipeID.PIPE_V)
    _row_broadcast_op(sub, dst, src, max_t, rows, stride)
    pipe_barrier(PipeID.PIPE_V)
    exp(dst, dst, rows * stride)
    pipe_barrier(PipeID.PIPE_V)
    _row_reduce(_SUM, sum_, dst, work, part, rows, stride, original_k)
    pipe_barrier(PipeID.PIPE_V)
    _row_broadcast_op(div, dst, dst, sum_, rows, stride)


def softmax(dst: LocalTensor, sum: LocalTensor, max: LocalTensor, src: LocalTensor,  # noqa: A002 - pyasc's names
            tiling: SoftmaxTiling, temp_buffer: LocalTensor | None = None, reuse_source: bool = False,
            basic_block: bool = False, data_format_nz: bool = False) -> None:
    """SoftMax of every row of ``src`` into ``dst``, the row maxima into ``max`` and the row sums into ``sum``.

    ``sum``/``max`` hold 8 floats (one 32-byte block, the same value) per row.  ``src`` and
    ``dst`` may be the same tensor.  ``temp_buffer`` (uint8, at least GetSoftMaxMinTmpSize bytes)
    is the sharedTmpBuffer form; without it the API uses its own scratch.  Accuracy model (the
    module docstring): exact given npusim's ``exp``.  Memory and registers are left unchanged
    when a check rejects the call or the call is interrupted.
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
    _require_supported(core)
    if basic_block:
        raise UnsupportedError(NAME, "basic_block", True, "npusim does not model the basic-block implementation "
                               "(SoftMaxBasicBlock)", "False", f"{pages.SOFTMAX} 参数说明 (isBasicBlock)")
    if data_format_nz:
        raise UnsupportedError(NAME, "data_format_nz", True, "npusim models the ND format only", "False",
                               f"{pages.SOFTMAX} 参数说明 (isDataFormatNZ)")
    # reuse_source is reserved (SoftMax.md 表1); the form with sum and max never forwards it (L144-168).
    _check_operands(core, dst, sum, max, src)
    shape = _shape_of(src)
    _check_sizes(dst, sum, max, src, shape)
    work, work_floats = _work_buffer(core, temp_buffer, shape)
    chosen = _checked_tiling(tiling, shape, work_floats)
    _check_repeat_limits(shape)
    _check_overlaps(dst, sum, max, src, work, shape, work_floats)
    with _restored_on_failure(core, [_span(t, n) for t, n in (
            (dst, shape.rows * shape.row_stride), (sum, shape.rows * PER_BLOCK), (max, shape.rows * PER_BLOCK),
            (work, work_floats))]):
        _run(dst, sum, max, src, work, shape, chosen)


def _run(dst, sum_, max_t, src, work, shape: _Shape, tiling: SoftmaxTiling) -> None:
    """SoftMaxNDImpl + SoftMaxNDExtImpl (membase/v220/softmax_impl.h L34-75, softmax_generic_nd_impl.h L123-152)."""
    set_mask_norm()
    reset_mask()
    pipe_barrier(PipeID.PIPE_V)
    stride = shape.row_stride
    splits = [(index * tiling.split_m, tiling.split_m) for index in range(tiling.range_m)]
    if tiling.tail_m:
        splits.append((tiling.range_m * tiling.split_m, tiling.tail_m))
    for number, (first_row, rows) in enumerate(splits):
        if number:
            pipe_barrier(PipeID.PIPE_V)
        _split(dst[first_row * stride], sum_[first_row * PER_BLOCK], max_t[first_row * PER_BLOCK],
               src[first_row * stride], work, rows, stride, shape.original_k, tiling.split_m)


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
        self.core.set_mask_words(*self.registers[0])
        self.core.set_mask_mode(self.registers[1])
