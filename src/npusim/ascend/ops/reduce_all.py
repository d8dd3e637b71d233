"""Whole-tensor reductions with a work buffer: ReduceSum, ReduceMax, ReduceMin (归约计算/ReduceSum.md,
ReduceMax.md, ReduceMin.md), pyasc ``basic/vec_reduce.py``::

    reduce_sum(dst, src, shared_tmp_buffer, mask, repeat_time, src_rep_stride)
    reduce_sum(dst, src, shared_tmp_buffer, count)
    reduce_max(dst, src, shared_tmp_buffer, mask, repeat_time, src_rep_stride, cal_index=False)
    reduce_max(dst, src, shared_tmp_buffer, count, cal_index=False)          # and reduce_min

The mask form reads ``repeat_time`` repeats of ``E = 256 / sizeof(T)`` lanes, ``src_rep_stride``
DataBlocks apart (block stride 1), the same lanes of each selected by ``mask``; ``repeat_time`` may
exceed 255 (ReduceSum.md 参数说明: up to int32).  The count form reads the first ``count`` elements.
``dst[0]`` receives the result; with ``cal_index`` ``dst[1]`` the index of the first extremum
(``r * E + lane``), as the integer bit pattern in a T slot (ReduceMax.md 约束说明; half: at most 65535).

**Sum order** (ReduceSum.md 关键特性说明; implementation_notes §3.2 with the vendor code): every repeat is an
adjacent-pair tree (:func:`.reduce.tree_sum`), then

* 方式一 (the A2/A3 count form, ``vcadd`` accumulating in ACC, ``dav_c220`` L166-191): the repeat sums
  added in order, each add rounded to T;
* 方式二 (the A2/A3 mask form and every other product): the repeat sums summed again by trees of E
  (``vcadd`` in counter mode over the work buffer, L684-745), round after round until one value remains;
* 方式三 (the 950 count form over 256-1024 bytes, ``dav_3510`` L566-603): the repeats first merged
  lane by lane — ``s0 + s1``, ``(s0 + s1) + s2``, ``(s2 + s3) + (s0 + s1)``, a partial repeat's missing
  lanes keeping the other operand — then one tree; the 950's int64/uint64 sums wrap, in any order.

**Max/min** have no rounding: the IEEE extremum (a NaN wins, -0 < +0) and its first index.

**The work buffer** (``shared_tmp_buffer``, T, 32-byte aligned) must hold what the page's formula asks
(关键特性说明) where it is used (not on the 950, not by the A2/A3 ReduceSum count form).  What the
vendor's rounds leave in it is not documented, so npusim marks those elements undefined (a later read
warns as an uninitialised read) instead of guessing their values.  It may overlap src and dst
(约束说明, 关键特性说明).  ReduceMax/ReduceMin leave their extremum in MAX_MIN_CNT where the product has it,
without an accurate index (:mod:`.reduce_max_min_spr`, docs/semantics.md §5.18).  Not modelled: the mask
registers the lowering leaves (untouched here), the mask register with ``isSetMask`` (not in pyasc).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...engine.registry import BIT_EXACT, IEEE_RNE, Instruction, register
from ...engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ...errors import ParameterRangeError, UnsupportedError
from ...lazy import cached_attribute
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..addressing import ActiveLanes, elems_per_block, lanes_per_repeat, normal_mode_lanes
from ..chips import unsupported_on
from ..core import Core
from ..footprint import Footprint, bytes_footprint, check_overlap, strided_footprint
from ..masking import MAX_MODELLED_REPEATS, checked_counter_lanes, mask_arg_words
from ..operands import NEVER
from ..tensor import LocalTensor
from . import arith
from .common import is_bool_arg, is_int_arg, is_mask_arg, require_dtype, require_ub_tensor
from .reduce import extremum, tree_sum
from .reduce_max_min_spr import REGISTER as MAX_MIN_CNT
from .reduce_max_min_spr import MaxMinCntWrite, max_min_cnt_write
from .reduce_tree import bounded_running_sum

__all__ = ["REDUCE_ALL_OPS", "ReduceAllPlan", "reduce_max", "reduce_min", "reduce_sum"]

DOC_DIR = pages.REDUCE
INT32_MAX = (1 << 31) - 1
_HALF_OR_SINGLE = (np.dtype(np.float16), np.dtype(np.float32))
METHOD_1 = frozenset({"A2", "A3"})  # the count form accumulates in order (方式一)


def _any(_value) -> bool:
    return True


_HEAD = (Param("dst", _any), Param("src", _any), Param("shared_tmp_buffer", _any))
_MASK_PARAMS = (Param("mask", is_mask_arg), Param("repeat_time", is_int_arg), Param("src_rep_stride", is_int_arg))
SUM_FORMS = (Form("mask", (*_HEAD, *_MASK_PARAMS)), Form("count", (*_HEAD, Param("count", is_int_arg))))
CAL_INDEX = Param("cal_index", is_bool_arg, False)
EXTREMUM_FORMS = (Form("mask", (*_HEAD, *_MASK_PARAMS, CAL_INDEX)),
                  Form("count", (*_HEAD, Param("count", is_int_arg), CAL_INDEX)))

_HALF_FLOAT = frozenset({"float16", "float32"})
_CLASSIC = ("A2", "A3", "310B", "310P", "KirinX90", "Kirin9030")
_950_EXTREMUM = frozenset({"int16", "uint16", "float16", "int32", "uint32", "float32"})
_WIDE_INT = frozenset({"int64", "uint64"})  # the 950's count form only

# (every form, count form only) per product: ReduceSum.md / ReduceMax.md / ReduceMin.md 数据类型
_SUM_DTYPES = {**{chip: (_HALF_FLOAT, frozenset()) for chip in _CLASSIC}, "910": (frozenset({"float16"}), frozenset()),
               "950": (_HALF_FLOAT, _WIDE_INT)}
_EXTREMUM_DTYPES = {**{chip: (_HALF_FLOAT, frozenset()) for chip in _CLASSIC},
                    "910": (frozenset({"float16"}), frozenset()), "950": (_950_EXTREMUM, _WIDE_INT)}
NO_WORK_BUFFER = frozenset({"950"})  # "sharedTmpBuffer is not used (different algorithm)" (约束说明)


@dataclass(frozen=True)
class ReduceAllOp:
    name: str
    operation: str  # "sum", "max", "min"
    page: str
    forms: tuple[Form, ...]
    dtypes: dict[str, tuple[frozenset[str], frozenset[str]]]
    summary: str

    @property
    def exactness(self) -> str:
        return IEEE_RNE if self.operation == "sum" else BIT_EXACT


REDUCE_ALL_OPS = {op.name: op for op in (
    ReduceAllOp("reduce_sum", "sum", f"{DOC_DIR}/ReduceSum.md", SUM_FORMS, _SUM_DTYPES,
                "dst[0] = sum of every active element: per-repeat trees, then the product's order across repeats"),
    ReduceAllOp("reduce_max", "max", f"{DOC_DIR}/ReduceMax.md", EXTREMUM_FORMS, _EXTREMUM_DTYPES,
                "dst[0] = max of every active element; with cal_index dst[1] = index of its first occurrence"),
    ReduceAllOp("reduce_min", "min", f"{DOC_DIR}/ReduceMin.md", EXTREMUM_FORMS, _EXTREMUM_DTYPES,
                "dst[0] = min of every active element; with cal_index dst[1] = index of its first occurrence"),
)}


#: the types whose count-form ReduceSum result GetReduceRepeatSumSpr returns (its page: half, float)
ACC_DTYPES = frozenset({"float16", "float32"})


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def work_elements(op: ReduceAllOp, itemsize: int, first_max_repeat: int, cal_index: bool) -> int:
    """The work-buffer elements the page's 关键特性说明 formula asks for."""
    per_block, per_repeat = elems_per_block(itemsize), lanes_per_repeat(itemsize)
    if op.operation == "sum":
        return _ceil(first_max_repeat, per_block) * per_block
    iter1 = first_max_repeat * 2
    if not cal_index:
        return _ceil(iter1, per_block) * per_block
    iter2_start = _ceil(iter1, per_block) * per_block
    iter2 = _ceil(iter1, per_repeat) * 2
    iter2_end = _ceil(iter2, per_block) * per_block
    if iter2 <= 2:
        return iter2_start + iter2_end
    iter3 = _ceil(iter2, per_repeat) * 2
    return iter2_start + iter2_end + _ceil(iter3, per_block) * per_block


def _compile(op: ReduceAllOp, core: Core, form: str, bound: dict) -> ReduceAllPlan:
    name = op.name
    cal_index = require_bool(name, "cal_index", bound.get("cal_index", False))
    dst_arg = bound["dst"]
    if not isinstance(dst_arg, LocalTensor):
        raise TypeError(f"{name}: dst must be a LocalTensor, got {type(dst_arg).__name__}")
    alignment = dst_arg.dtype.itemsize * (2 if cal_index else 1)
    dst = require_ub_tensor(name, "dst", dst_arg, core, alignment,
                            f"{pages.REDUCE}/ReduceRepeat.md 约束说明 (表3); {semantics('1.5')}")
    src = require_ub_tensor(name, "src", bound["src"], core)
    work = require_ub_tensor(name, "shared_tmp_buffer", bound["shared_tmp_buffer"], core)
    row = op.dtypes.get(core.chip.name)
    if row is None:
        raise unsupported_on(core.chip, name, name, lambda chip: chip.name in op.dtypes, f"{op.page} 产品支持情况")
    dtype = src.dtype
    allowed = row[0] | (row[1] if form == "count" else frozenset())
    require_dtype(name, "src", dtype, allowed, f"{name} does not support this data type in this form on "
                  f"{core.chip.product}", f"{op.page} 数据类型")
    for label, tensor in (("dst", dst), ("shared_tmp_buffer", work)):
        if tensor.dtype != dtype and not (label == "shared_tmp_buffer" and core.chip.name in NO_WORK_BUFFER):
            raise UnsupportedError(name, f"{label} dtype", tensor.dtype.name, f"{label} must have src's dtype",
                                   dtype.name, f"{op.page} 函数原型")
    lanes_per = lanes_per_repeat(dtype.itemsize)
    if form == "count":
        count = require_int(name, "count", bound["count"], 0, INT32_MAX, f"{op.page} 参数说明", rule="an int32_t")
        if count == 0:
            return _nop(op, core, "count")
        lanes = checked_counter_lanes(name, count, lanes_per, "count")
        rep_stride, first_max_repeat = 8, max(1, count // lanes_per)
    else:
        words = mask_arg_words(name, bound["mask"], dtype.itemsize, False, False, core.tolerance)
        repeats = require_int(name, "repeat_time", bound["repeat_time"], 0, MAX_MODELLED_REPEATS,
                              f"{op.page} 参数说明 (repeatTime); {semantics('1.1')}",
                              rule="an int32_t; npusim models at most 65535 repeats")
        rep_stride = require_uint(name, "src_rep_stride", bound["src_rep_stride"], 16, f"{op.page} 参数说明")
        lanes = normal_mode_lanes(words, lanes_per, repeats)
        if lanes.count == 0:
            return _nop(op, core, "repeat_time" if repeats == 0 else "mask")
        first_max_repeat = repeats
    if cal_index and dtype.name == "float16" and lanes.repeats * lanes_per > 65536:
        raise ParameterRangeError(name, "count" if form == "count" else "repeat_time", lanes.repeats * lanes_per,
                                  "a half index holds at most 65535 (uint16)", "at most 65536 elements",
                                  f"{op.page} 约束说明")
    method = _method(op, core, form, dtype, lanes)
    work_used = 0
    if core.chip.name not in NO_WORK_BUFFER and method != 1:
        work_used = work_elements(op, dtype.itemsize, first_max_repeat, cal_index)
        if work.tile_size < work_used:
            raise ParameterRangeError(name, "shared_tmp_buffer size", work.tile_size,
                                      "the work buffer must hold what 关键特性说明 asks for",
                                      f"at least {work_used} elements", f"{op.page} 关键特性说明")
    plan = ReduceAllPlan(op, dtype, lanes, method, cal_index,
                         strided_footprint("src", 0, lanes, dtype.itemsize, 1, rep_stride),
                         bytes_footprint("dst", 0, alignment, 1),
                         bytes_footprint("shared_tmp_buffer", 0, work_used * dtype.itemsize, 1),
                         ("CTRL",) if op.operation == "sum" and dtype.name in core.chip.float_saturation_dtypes else (),
                         writes_acc=op.operation == "sum" and form == "count" and core.chip.reduce_sum_spr
                         and dtype.name in ACC_DTYPES,
                         max_min_cnt=None if op.operation == "sum" else max_min_cnt_write(
                             core, op.operation, dtype, lanes, contiguous=rep_stride == 8, counter=False,
                             exact_index=False, cal_index=cal_index))
    plan.placed([dst, src, work])
    return plan


def _method(op: ReduceAllOp, core: Core, form: str, dtype: DType, lanes: ActiveLanes) -> int:
    """Which of ReduceSum.md's three orders a sum follows (关键特性说明, per product)."""
    if op.operation != "sum":
        return 0
    if core.chip.name == "950" and form == "count":
        if dtype.name in ("int64", "uint64") or 256 < lanes.count * dtype.itemsize <= 1024:
            return 3
        return 2
    return 1 if form == "count" and core.chip.name in METHOD_1 else 2


def _nop(op: ReduceAllOp, core: Core, operand: str) -> ReduceAllPlan:
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(op.name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{op.page} 约束说明; {semantics('1.9')}")
    return ReduceAllPlan(op, None, None, 0, False, None, None, None, ())


@dataclass(eq=False)
class ReduceAllPlan:
    """A checked whole-tensor reduction, relative to its tensors (a NOP when ``lanes`` is None)."""

    op: ReduceAllOp
    dtype: DType | None
    lanes: ActiveLanes | None
    method: int
    cal_index: bool
    src_fp: Footprint | None
    dst_fp: Footprint | None
    work_fp: Footprint | None
    registers: tuple[str, ...]
    operands: tuple[str, ...] = ("dst", "src", "shared_tmp_buffer")
    writes_acc: bool = False  # a count-form half/float ReduceSum leaves its result in ACC (GetReduceRepeatSumSpr)
    max_min_cnt: MaxMinCntWrite | None = None  # ReduceMax/Min: the extremum into MAX_MIN_CNT (A2/A3, 310P)

    def bind(self, core: Core, tensors: list[LocalTensor]) -> ReduceAllBinding:
        dst, src, work = tensors
        if self.lanes is None:
            for label, tensor in zip(self.operands, tensors, strict=True):
                require_ub_tensor(self.op.name, label, tensor, core)
            return ReduceAllBinding(self, None)
        require_ub_tensor(self.op.name, "dst", dst, core, self.dst_fp.addrs.size,
                          f"{pages.REDUCE}/ReduceRepeat.md 约束说明 (表3); {semantics('1.5')}")
        require_ub_tensor(self.op.name, "src", src, core)
        require_ub_tensor(self.op.name, "shared_tmp_buffer", work, core)
        return ReduceAllBinding(self, self.placed(tensors))

    def placed(self, tensors: list[LocalTensor]) -> tuple[Footprint, Footprint, Footprint]:
        """Bounds, and dst clear of src (通用地址重叠约束); the work buffer may overlap both (约束说明)."""
        footprints = tuple(fp.moved(t.addr) for fp, t in zip((self.dst_fp, self.src_fp, self.work_fp), tensors,
                                                              strict=True))
        for fp, tensor in zip(footprints, tensors, strict=True):
            fp.check_in(self.op.name, tensor)
        check_overlap(self.op.name, footprints[0], footprints[1])
        return footprints


class ReduceAllBinding:
    def __init__(self, plan: ReduceAllPlan, footprints: tuple[Footprint, Footprint, Footprint] | None) -> None:
        self.plan = plan
        self.footprints = footprints
        self.registers_read = plan.registers
        self.registers_written = (("ACC",) if plan.writes_acc else ()) + \
            ((MAX_MIN_CNT,) if plan.max_min_cnt is not None else ())
        self.src_index = None if footprints is None else footprints[1].elem_index  # computed once
        self.src_seen = NEVER  # the shadow epoch in which every source element was seen written

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        if self.footprints is None:
            return ()
        return merge_ranges(ranges_of_addresses("UB", self.footprints[1].byte_addrs()[0]))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        if self.footprints is None:
            return ()
        dst, _src, work = self.footprints
        return merge_ranges(ranges_of_addresses("UB", np.concatenate([dst.addrs, work.addrs])))

    def run(self, core: Core, values: tuple) -> None:
        plan = self.plan
        if plan.lanes is None:
            return
        dtype, lanes = plan.dtype, plan.lanes
        ub, index = core.ub, self.src_index
        if self.src_seen != ub.shadow_epoch:  # written bytes stay written until the epoch changes
            ub.check_initialized(plan.op.name, "src", index, dtype.itemsize)
            self.src_seen = ub.shadow_epoch
        grid = np.zeros((lanes.repeats, lanes.lanes), dtype=dtype.raw)
        if lanes.mask is None:
            grid[:] = ub.gather(index, dtype.raw).reshape(grid.shape)
        else:
            grid[lanes.mask] = ub.gather(index, dtype.raw)
        spr_state = None
        if plan.op.operation == "sum":
            saturate = core.float_saturation and dtype.name in core.chip.float_saturation_dtypes
            parts = [np.array([whole_sum(grid, lanes, dtype, plan.method, saturate)], dtype=dtype.raw)]
        else:
            active = None if lanes.mask is None else lanes.mask.reshape(1, -1)
            value, index = extremum(grid.reshape(1, -1), active, dtype, plan.op.operation == "max")
            parts = [value.astype(dtype.raw)]
            if plan.max_min_cnt is not None:
                spr_state = plan.max_min_cnt.state(value[0], index[0])
            if plan.cal_index:
                parts.append(index.astype(np.dtype(f"<u{dtype.itemsize}")))
        self._commit(core, np.concatenate([p.view(np.uint8) for p in parts]), spr_state)

    def _commit(self, core: Core, result: np.ndarray, spr_state=None) -> None:
        """The result bytes; the work buffer's elements are left undefined (module docstring); the registers."""
        dst, _src, work = self.footprints
        core.ub.scatter(dst.addrs, result)
        if work.addrs.size:
            core.ub.mark_undefined(work.addrs)
        if self.plan.writes_acc:  # dav_c220 ReduceSum count form: vcadd into ACC; dav_3510: accValHalf/Float
            core.acc = (self.plan.dtype.name, result[: self.plan.dtype.itemsize].tobytes())
        if self.plan.max_min_cnt is not None:
            core.max_min_cnt = spr_state


def whole_sum(grid: np.ndarray, lanes: ActiveLanes, dtype: DType, method: int, saturate: bool):
    """One sum of the ``(repeats, E)`` lanes (inactive lanes 0) in ReduceSum.md's order ``method``."""
    if not dtype.is_float:  # the 950's int64 / uint64: wraps, any order
        return np.array([int(grid.astype(np.uint64).sum(dtype=np.uint64))], dtype=np.uint64).view(dtype.raw)[0]
    if method == 3:
        return _merged_tree(grid, lanes, dtype, saturate)
    sums = tree_sum(grid, dtype, dtype, saturate)
    if method == 1:
        if dtype.np_dtype in _HALF_OR_SINGLE:
            running = bounded_running_sum(sums, dtype)
            if running is not None:
                return dtype.raw.type(running)
        total = sums[:1]
        for r in range(1, sums.size):
            total = arith.compute("add", dtype, [total, sums[r:r + 1]], saturate)
        return total[0]
    width = lanes.lanes
    while sums.size > 1:
        padded = np.zeros(_ceil(sums.size, width) * width, dtype=dtype.raw)
        padded[:sums.size] = sums
        sums = tree_sum(padded.reshape(-1, width), dtype, dtype, saturate)
    return sums[0]


def _merged_tree(grid: np.ndarray, lanes: ActiveLanes, dtype: DType, saturate: bool):
    """方式三 on the 950 (``dav_3510`` L566-603): 2-4 repeats merged lane by lane, a partial repeat's
    missing lanes keeping the other operand (MERGING), then one tree."""
    active = np.ones(grid.shape, dtype=bool) if lanes.mask is None else lanes.mask

    def add(a, b, b_active):
        return np.where(b_active, arith.compute("add", dtype, [a, b], saturate), a)

    s = list(grid)
    n = len(s)
    if n == 2:
        merged = add(s[0], s[1], active[1])
    elif n == 3:
        merged = add(add(s[0], s[1], active[1]), s[2], active[2])
    else:
        merged = arith.compute("add", dtype, [add(s[2], s[3], active[3]), add(s[0], s[1], active[1])], saturate)
    return tree_sum(merged[None, :], dtype, dtype, saturate)[0]


_SNIPPET = ("x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)\n"
            "w = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 4096, 64)\n"
            "z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 8192, 16)\n")
_CALLS = {
    "reduce_sum": ("asc.reduce_sum(z, x, w, 1000)", "asc.reduce_sum(z, x, w, 128, 8, 8)",
                   "asc.reduce_sum(z, x, w, [0xFFFF0000FFFF0000, 0xFF], 4, 16)"),
    "reduce_max": ("asc.reduce_max(z, x, w, 1000, True)", "asc.reduce_max(z, x, w, 128, 8, 8, True)",
                   "asc.reduce_max(z, x, w, [0xFF, 0xFF00], 3, 8)"),
    "reduce_min": ("asc.reduce_min(z, x, w, 300)", "asc.reduce_min(z, x, w, 100, 4, 16, True)"),
}


def _register(op: ReduceAllOp):
    return register(Instruction(
        op.name, "ascend", "reduce", "V", op.forms,
        lambda core, form, values, op=op: _compile(op, core, form, values), op.page,
        support=lambda chip, op=op: op.dtypes.get(chip.name), exactness=op.exactness, summary=op.summary,
        examples=tuple(_SNIPPET + call for call in _CALLS[op.name]), doc=f"``{op.summary}`` ({op.page}).",
        fast_context=lambda core: (),  # the plans read no register (the mask is an argument; CTRL per call)
    ))


reduce_sum = _register(REDUCE_ALL_OPS["reduce_sum"])
reduce_max = _register(REDUCE_ALL_OPS["reduce_max"])
reduce_min = _register(REDUCE_ALL_OPS["reduce_min"])
