"""SoftMax (ND) on the register-ISA products: the vector function of ``regbase/3510/softmax_impl.h``.

``softmax_base_impl.h`` L25-27 includes ``regbase/3510/softmax_impl.h`` for ``__NPU_ARCH__`` 3510 (Ascend 950),
3003 (Kirin X90), 3113 (Kirin 9030) and 5102; ``regbase/l300/`` is included by nothing.  The API
(``SoftMaxNDImpl``, L964-994) runs one ``__simd_vf__`` vector function over every original row at once — no
split of rows, whatever the tiling says — chosen by the shape (docs/softmax.md §2.2):

* ``srcK == 8`` with float data: ``SingleSoftMaxGenericNDForBlkVFImpl`` (L562-687), eight rows per vector
  register, the row values by ReduceDataBlock; the lanes of each row come from the mask register, which
  ``SingleSoftMaxGenericNDForBlkImpl`` sets first (``CreateSpecialFormatMask`` + ``SetVectorMask``);
* ``srcK == 16``: ``SingleSoftMaxGenericNDAlignedWithBlkVFImpl`` (L689-866), four rows per register: the
  two DataBlock values of a row (ReduceDataBlock) DeInterleave'd and combined, the mask register set as above;
* ``oriSrcK <= 64``: ``SingleSoftMaxGenericNDVFImpl`` (L868-962), one register per row, masked to oriSrcK;
* ``oriSrcK mod 64 != 0``: ``SoftMaxGenericNDWithTailVFImpl`` (L443-560);
* otherwise ``SoftMaxGenericNDVFImpl`` (L338-441).

In every path a row is computed in float (half loaded and widened exactly, ``LoadIfNeedCast``,
``regbase/3510/softmax_common_impl.h`` L29-39) over its first ``oriSrcK`` elements, in this order:

1. max: the lane-wise Max of the row's 64-element chunks from -inf, then ReduceMax of the 64 lanes (Max is
   exact, so the order fixes nothing but itself);
2. ``e = Exp(x - max)``, stored to the work area; the sum: lane ``l`` accumulates ``+0 + e[l] + e[64 + l] +
   ...`` (lane-wise Add, one chunk after the other), then ReduceSum's adjacent-pair tree of the 64 lanes
   (Reduce.md "ReduceType::SUM累加顺序"); the masked lanes count as +0 (ZEROING);
3. ``dst = e / sum``, only the row's first ``oriSrcK`` elements are stored (the masks of the loops);
4. sum and max: one 32-byte block per row (8 floats, or 16 float lanes cast to half), ``StoreIfNeedCast``.

The ForBlk path sums the 8 lanes of a row by ReduceDataBlock's adjacent-pair tree (ReduceDataBlock.md), the
same values as a 64-lane tree with zeros; the srcK == 16 path adds the trees of a row's two DataBlocks, the
16-lane tree.  Accuracy model: Reg-level ``Exp`` and ``Div`` in their default
``INTRINSIC`` algorithm are "1 ulp" with subnormal results flushed to zero (Exp.md / Div.md 关键特性说明);
npusim computes its ``exp`` model (float64 ``exp`` rounded to float32, docs/numerics.md) and the IEEE quotient,
and flushes a subnormal result to a zero of its sign.  Add, Sub and Max are IEEE float32.  Float to half:
``castTraitB32ToB16`` is CAST_RINT, no saturation (``impl/adv_api/detail/common/common.h`` L27-28).

The whole vector function is one access record (pipe V): what its loads read (whole 64-lane registers, so
past ``oriSrcK`` and, on the packed paths, past the last row), what its stores write (dst, sum, max, the work
area).  The packed paths (srcK 8 and 16) first issue npusim's ``set_vector_mask``, as their callers issue
SetVectorMask.  Every check runs, and every value is computed in private arrays, before the first byte is
written.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DTYPES
from ...engine.trace import AccessRecord, caller_source, json_value, merge_ranges
from ...errors import OutOfBoundsError, ParameterRangeError, UnsupportedError
from ...rounding import float_array_bits
from .. import pages
from ..ops.arith import compute
from ..ops.registers import set_vector_mask
from ..types import MaskMode

__all__ = ["GENERIC", "MIN_TMP_3510", "RegPlan", "check_buffer", "check_initialized", "check_mask_call", "check_reads",
           "min_tmp_floats", "plan", "run"]

NAME = "softmax"
LANES = 64  # VECTOR_REG_WIDTH (256 bytes) / sizeof(float)
BLOCK_FLOATS = 8  # B32_DATA_NUM_PER_BLOCK
F32, F16 = DTYPES["float32"], DTYPES["float16"]
REGBASE_NOTE = "docs/softmax.md §2"
FOR_BLK, ALIGNED_WITH_BLK, SINGLE, WITH_TAIL, GENERIC = "for_blk", "aligned_with_blk", "single", "with_tail", "generic"
PACKED = frozenset({FOR_BLK, ALIGNED_WITH_BLK})  # several rows a register, their lanes from the mask register
#: the arches whose host GetSoftMaxMinTmpSize takes the register-ISA formula (softmax_tiling.cpp L148-152)
MIN_TMP_3510 = frozenset({3510, 3003, 5102})
_NEG_INF = np.uint32(0xFF800000)
_SMALLEST_NORMAL = np.float32(np.finfo(np.float32).tiny)


def min_tmp_floats(npu_arch: int, rows: int, row_stride: int, src_itemsize: int) -> int:
    """Host ``GetSoftMaxMinTmpSize`` / 4 (``impl/adv_api/tiling/activation/softmax_tiling.cpp`` L125-157): on
    DAV_3510/3003/5102 ``max(m (8 + k) + 64 * 4 + ceil8(m), m (32 / sizeof(T) + k))``, elsewhere
    ``32 / sizeof(T) + k + 64``."""
    per_block = 32 // src_itemsize
    if npu_arch in MIN_TMP_3510:
        return max(rows * (BLOCK_FLOATS + row_stride) + LANES * 4 + -(-rows // 8) * 8, rows * (per_block + row_stride))
    return per_block + row_stride + LANES


@dataclass(frozen=True)
class RegPlan:
    """One call's geometry (element counts; offsets in floats of the work area)."""

    path: str
    rows: int  # oriSrcM: the rows computed
    stride: int  # srcK
    k: int  # oriSrcK
    src_itemsize: int
    stat_itemsize: int
    low_mask: int  # the packed paths' mask register word (0 on the other paths)

    @property
    def block(self) -> int:
        """blockStride: elements of T2 in one 32-byte block."""
        return 32 // self.stat_itemsize

    @property
    def per_register(self) -> int:
        """factorRow: rows in one 64-lane register (8 for srcK == 8, 4 for srcK == 16; 1 otherwise)."""
        return LANES // self.stride if self.path in PACKED else 1

    @property
    def groups(self) -> int:
        """factor: the registers of ``per_register`` rows that cover the original rows."""
        return -(-self.rows // self.per_register)

    def aligned_offsets(self) -> tuple[int, int, int]:
        """srcK == 16: the float offsets of tmpUb0, tmpUb and tmpUb1 in the work area (L848-862)."""
        tmp0 = self.rows * self.stride
        tmp = tmp0 + -(-self.rows // BLOCK_FLOATS) * BLOCK_FLOATS
        return tmp0, tmp, tmp + (self.groups - 1) * self.per_register * 2 + LANES * 2

    def load_elements(self) -> int:
        """Elements each row's loads span from its start (whole 64-lane registers)."""
        if self.path == SINGLE:
            return LANES
        if self.path == WITH_TAIL:
            return -(-self.k // LANES) * LANES
        return self.k

    def work_floats(self) -> int:
        """Floats of the work area the vector function touches."""
        if self.path == FOR_BLK:
            return 2 * BLOCK_FLOATS * self.groups + BLOCK_FLOATS * self.rows
        if self.path == ALIGNED_WITH_BLK:
            return self.aligned_offsets()[2] + 2 * self.per_register * self.groups
        return self.rows * self.block + (self.rows - 1) * self.stride + self.k

    def src_ranges(self, addr: int) -> list[tuple[int, int]]:
        item = self.src_itemsize
        if self.path in PACKED:
            return [(addr, addr + self.groups * LANES * item)]
        span = self.load_elements() * item
        return [(addr + row * self.stride * item, addr + row * self.stride * item + span) for row in range(self.rows)]

    def dst_ranges(self, addr: int) -> list[tuple[int, int]]:
        item = self.src_itemsize
        return [(addr + row * self.stride * item, addr + (row * self.stride + self.k) * item)
                for row in range(self.rows)]

    def work_ranges(self, addr: int) -> list[tuple[int, int]]:
        if self.path == FOR_BLK:
            return [(addr, addr + self.work_floats() * 4)]
        if self.path == ALIGNED_WITH_BLK:
            return [(addr + offset * 4, addr + (offset + size) * 4) for offset, size in self._aligned_pieces()]
        exps = addr + self.rows * self.block * 4
        ranges = [(exps + row * self.stride * 4, exps + (row * self.stride + self.k) * 4) for row in range(self.rows)]
        if self.stat_itemsize == 2:  # the float sums (tmpUb), 16 lanes a row
            ranges.append((addr, addr + self.rows * self.block * 4))
        return ranges


    def _aligned_pieces(self) -> list[tuple[int, int]]:
        """srcK == 16: (float offset, floats) of the exps, tmpUb0 (the row sums, float sum/max only), tmpUb and
        tmpUb1 (the interleaved sums and maxima)."""
        tmp0, tmp, tmp1 = self.aligned_offsets()
        pieces = [(0, self.rows * self.stride)]
        if self.stat_itemsize == 4:
            pieces.append((tmp0, self.per_register * self.groups))
        return pieces + [(tmp, 2 * self.per_register * self.groups), (tmp1, 2 * self.per_register * self.groups)]


def _path(row_stride: int, k: int, src_itemsize: int) -> str:
    """SoftMaxNDImpl's choice (regbase/3510/softmax_impl.h L975-992, isBasicBlock false)."""
    if row_stride == BLOCK_FLOATS and src_itemsize == 4:
        return FOR_BLK
    if row_stride == 2 * BLOCK_FLOATS:
        return ALIGNED_WITH_BLK
    if k <= LANES:
        return SINGLE
    return WITH_TAIL if k % LANES else GENERIC


def special_mask(k: int, row_stride: int) -> int:
    """CreateSpecialFormatMask(lowMask, k, 64 / srcK, srcK) (softmax_common.h L46-71): the first ``k`` lanes of
    each row of a 64-lane register (srcK 8 or 16)."""
    row = ((1 << row_stride) - 1) >> (row_stride - k)
    return sum(row << (row_stride * group) for group in range(LANES // row_stride))


def plan(core, shape, src_dtype, stat_dtype) -> RegPlan:
    """The call's path and geometry, refused where npusim does not model it (§2.2)."""
    path = _path(shape.row_stride, shape.original_k, shape.src_itemsize)
    low = 0
    if path in PACKED:
        if core.mask_mode != MaskMode.NORMAL:
            raise UnsupportedError(NAME, "mask mode", core.mask_mode.name, f"for srcK == {shape.row_stride} the "
                                   "vector function reads the lanes from the mask register SetVectorMask writes; "
                                   "npusim models that in normal mode only", "NORMAL (asc.set_mask_norm())",
                                   REGBASE_NOTE)
        low = special_mask(shape.original_k, shape.row_stride)
    return RegPlan(path, shape.original_rows, shape.row_stride, shape.original_k, shape.src_itemsize,
                   stat_dtype.itemsize, low)


def check_buffer(core, reg: RegPlan, shape, work_floats: int) -> None:
    """The temporary buffer holds GetSoftMaxMinTmpSize of the product and what the vector function touches."""
    documented = min_tmp_floats(core.chip.npu_arch, shape.rows, shape.row_stride, shape.src_itemsize)
    needed = max(documented, reg.work_floats())
    if work_floats < needed:
        rule = (f"the temporary buffer holds GetSoftMaxMinTmpSize ({documented * 4} bytes for this shape on "
                f"{core.chip.product})")
        if reg.work_floats() > documented:
            rule += f" and the {reg.work_floats() * 4} bytes the register-ISA vector function writes"
        raise ParameterRangeError(NAME, "temp_buffer bytes", work_floats * 4, rule, f">= {needed * 4}",
                                  f"{pages.SOFTMAX_TILING} 参数说明 (表2 localWorkSpaceSize); {REGBASE_NOTE}")


# ------------------------------------------------------------------------------------------ lanes
def _op(operation: str, *operands: np.ndarray) -> np.ndarray:
    """One lane-wise float32 operation on raw bits (npusim's arithmetic, docs/numerics.md)."""
    return compute(operation, F32, list(operands))


def _flush(bits: np.ndarray) -> np.ndarray:
    """FTZ of the INTRINSIC Exp / Div (Exp.md, Div.md 关键特性说明): a subnormal result becomes a zero of its sign."""
    values = bits.view(np.float32)
    subnormal = (values != 0) & (np.abs(values) < _SMALLEST_NORMAL)
    return np.where(subnormal, bits & np.uint32(0x80000000), bits)


def _tree(kind: str, lanes: np.ndarray) -> np.ndarray:
    """ReduceSum / ReduceMax / ReduceDataBlock over the last axis (a power of 2): adjacent pairs, level by level."""
    while lanes.shape[-1] > 1:
        lanes = _op(kind, lanes[..., 0::2], lanes[..., 1::2])
    return lanes[..., 0]


def _masked(bits: np.ndarray, active: np.ndarray, fill: np.uint32) -> np.ndarray:
    return np.where(active, bits, fill)


def _rows_compute(reg: RegPlan, x: np.ndarray):
    """The vector function's values: ``x`` = raw float32 rows [rows, load span] -> (max, sum, exp, dst) raw bits.

    ``exp`` is ``Exp(x - max)`` of every loaded lane (the ForBlk path stores its 8 lanes a row unmasked; the
    others store the first ``k``); ``dst`` has the row's first ``k`` elements; max and sum one value a row.
    """
    k, span = reg.k, x.shape[1]
    chunks = -(-span // LANES)
    padded = np.zeros((x.shape[0], chunks * LANES), np.uint32)
    padded[:, :span] = x
    column = np.arange(chunks * LANES)
    active = column < k  # the lanes the masks leave on
    lanes = padded.reshape(x.shape[0], chunks, LANES)
    on = active.reshape(chunks, LANES)
    if reg.path == FOR_BLK:  # ReduceMaxWithDataBlock of the row's 8 lanes, inactive as -inf
        maximum = _tree("max", _masked(padded[:, :BLOCK_FLOATS], active[:BLOCK_FLOATS], _NEG_INF))
    elif reg.path == ALIGNED_WITH_BLK:  # the row's two DataBlock maxima, DeInterleave'd, then Max (L719-723)
        blocks = _masked(padded[:, :2 * BLOCK_FLOATS], active[:2 * BLOCK_FLOATS], _NEG_INF)
        maximum = _op("max", _tree("max", blocks[:, :BLOCK_FLOATS]), _tree("max", blocks[:, BLOCK_FLOATS:]))
    else:  # Max of -inf with each chunk (the tail's inactive lanes Select'ed to -inf), then ReduceMax
        acc = np.full((x.shape[0], LANES), _NEG_INF, np.uint32)
        for chunk in range(chunks):
            acc = _op("max", acc, _masked(lanes[:, chunk], on[chunk], _NEG_INF))
        maximum = _tree("max", acc)
    diff = _op("sub", padded, np.repeat(maximum[:, None], padded.shape[1], axis=1))
    exps = _flush(_op("exp", diff))
    e = _masked(exps, active, np.uint32(0))  # the sum's lanes: ZEROING, or ReduceSum's mask, leaves +0
    if reg.path == FOR_BLK:  # ReduceSumWithDataBlock of the row's 8 lanes
        total = _tree("add", e[:, :BLOCK_FLOATS])
    elif reg.path == ALIGNED_WITH_BLK:  # the two DataBlock sums, DeInterleave'd, then Add (L774-778)
        total = _op("add", _tree("add", e[:, :BLOCK_FLOATS]), _tree("add", e[:, BLOCK_FLOATS:2 * BLOCK_FLOATS]))
    else:
        acc = np.zeros((x.shape[0], LANES), np.uint32)
        chunked = e.reshape(x.shape[0], chunks, LANES)
        for chunk in range(chunks):
            acc = _op("add", acc, chunked[:, chunk])
        total = _tree("add", acc)
    quotient = _flush(_op("div", e[:, :k], np.repeat(total[:, None], k, axis=1)))
    return maximum, total, exps, quotient


def _narrow(bits: np.ndarray, dtype) -> np.ndarray:
    """StoreIfNeedCast: float lanes to T (CAST_RINT to half, no saturation), as raw bytes."""
    if dtype.itemsize == 4:
        return bits
    return float_array_bits(bits.view(np.float32), F16, "rint")


# ------------------------------------------------------------------------------------------ run
def check_mask_call(reg: RegPlan) -> None:
    """The packed paths' SetVectorMask, checked before anything runs (dispatch.check_call)."""
    if reg.path in PACKED:
        from ...engine.dispatch import check_call
        check_call(set_vector_mask, 0, reg.low_mask)


def ranges(reg: RegPlan, dst, sum_, max_t, src, work) -> tuple[tuple, tuple]:
    """The vector function's access record ranges (UB bytes read, written)."""
    stats = [(t.addr, t.addr + reg.rows * 32) for t in (sum_, max_t)]
    writes = reg.dst_ranges(dst.addr) + stats + reg.work_ranges(work.addr)
    return merge_ranges(("UB", *r) for r in reg.src_ranges(src.addr)), merge_ranges(("UB", *r) for r in writes)


def check_reads(core, reg: RegPlan, src) -> None:
    """Every byte the loads read lies in UB (npusim does not model a register load past its end)."""
    stop = reg.src_ranges(src.addr)[-1][1]
    if stop > core.chip.ub_bytes:
        raise OutOfBoundsError(NAME, "src address", src.addr, f"the vector function loads whole 64-lane registers, "
                               f"up to byte {stop:#x}, past the end of UB", f"loads ending by {core.chip.ub_bytes:#x}",
                               REGBASE_NOTE)


def run(core, reg: RegPlan, dst, sum_, max_t, src, work) -> None:
    """Issue the packed paths' SetVectorMask, then the vector function: one access record, computed, committed."""
    if reg.path in PACKED:
        set_vector_mask(0, reg.low_mask)
    reads, writes = ranges(reg, dst, sum_, max_t, src, work)
    record = AccessRecord(len(core.trace) if core.trace is not None else 0, NAME, "ascend", "V", reads, writes,
                          ("MASK",) if reg.path in PACKED else (), (), caller_source(),
                          {"vector_function": reg.path, "rows": reg.rows, "src_k": reg.stride,
                           "original_k": json_value(reg.k)}, getattr(core, "block_idx", 0))

    def execute() -> None:
        _execute(core, reg, dst, sum_, max_t, src, work)

    held = core.observer(record, execute) if core.observer is not None else False
    if not held:
        execute()
    if core.trace is not None:
        core.trace.append(record)


def check_initialized(core, reg: RegPlan, src) -> None:
    """Never-written src elements that decide a result are reported (raised in strict mode) before anything runs;
    the rest of a loaded register does not change a result (its lanes are masked)."""
    item = reg.src_itemsize
    for row in range(reg.rows):
        start = src.addr + row * reg.stride * item
        core.ub.check_initialized_span(NAME, "src", start, start + reg.k * item)


def _execute(core, reg: RegPlan, dst, sum_, max_t, src, work) -> None:
    ub = core.ub
    item, rows, k = reg.src_itemsize, reg.rows, reg.k
    if reg.path in PACKED:  # every row of the groups' registers (past the original rows too)
        raw = ub.data[src.addr:src.addr + reg.groups * LANES * item]
        x = raw.view(np.uint32 if item == 4 else np.uint16).reshape(-1, reg.stride)
    else:
        span = reg.load_elements()
        starts = src.addr + np.arange(rows) * reg.stride * item
        raw = ub.data[starts[:, None] + np.arange(span * item)[None, :]]
        x = raw.view(np.uint32 if item == 4 else np.uint16).reshape(rows, span)
    if item == 2:  # LoadIfNeedCast: half widened exactly
        x = x.view(np.float16).astype(np.float32).view(np.uint32)
    maximum, total, e, quotient = _rows_compute(reg, np.ascontiguousarray(x))
    stats = {"max": _stat_block(reg, maximum[:rows]), "sum": _stat_block(reg, total[:rows])}
    dst_bits = _narrow(quotient[:rows], dst.dtype)
    work_bits = _work_contents(reg, maximum, total, e[:rows, :reg.stride if reg.path in PACKED else k])
    _commit(ub, reg, dst, sum_, max_t, work, dst_bits, stats, work_bits)


def _stat_block(reg: RegPlan, values: np.ndarray) -> np.ndarray:
    """Duplicate to one block (8 float lanes, or 16 cast to half) and StoreIfNeedCast<T2>."""
    lanes = np.repeat(values[:, None], reg.block, axis=1)
    return (_narrow(lanes, F16) if reg.stat_itemsize == 2 else lanes).reshape(-1)


def _work_contents(reg: RegPlan, maximum, total, e) -> list[tuple[int, np.ndarray]]:
    """(float offset, raw float32 values) the vector function stores in the work area."""
    if reg.path == FOR_BLK:  # tmpUb0: the groups' row maxima; tmpUb1: their sums; then the exps, 8 a row
        width = reg.groups * BLOCK_FLOATS
        return [(0, maximum[:width]), (width, total[:width]), (2 * width, e.reshape(-1))]
    if reg.path == ALIGNED_WITH_BLK:  # the exps, 16 a row; tmpUb0 the sums (over the maxima); tmpUb, tmpUb1
        tmp0, tmp, tmp1 = reg.aligned_offsets()
        pieces = [(0, e.reshape(-1))]
        if reg.stat_itemsize == 4:
            pieces.append((tmp0, total))
        return pieces + [(tmp, np.repeat(total, 2)), (tmp1, np.repeat(maximum, 2))]
    first = reg.rows * reg.block
    pieces = [(first + row * reg.stride, e[row]) for row in range(reg.rows)]
    if reg.stat_itemsize == 2:
        pieces.append((0, np.repeat(total[:reg.rows, None], reg.block, axis=1).reshape(-1)))
    return pieces


def _commit(ub, reg: RegPlan, dst, sum_, max_t, work, dst_bits, stats, work_bits) -> None:
    """Store every result (nothing raises past this point)."""
    item, rows = reg.src_itemsize, reg.rows
    raw = dst_bits.view(np.uint8).reshape(rows, reg.k * item)
    for row in range(rows):
        start = dst.addr + row * reg.stride * item
        ub.data[start:start + reg.k * item] = raw[row]
        ub.mark_written(start, start + reg.k * item)
    for tensor, name in ((sum_, "sum"), (max_t, "max")):
        data = stats[name].view(np.uint8)
        ub.data[tensor.addr:tensor.addr + data.size] = data
        ub.mark_written(tensor.addr, tensor.addr + data.size)
    for offset, values in work_bits:
        data = np.ascontiguousarray(values, np.uint32).view(np.uint8)
        start = work.addr + offset * 4
        ub.data[start:start + data.size] = data
        ub.mark_written(start, start + data.size)
