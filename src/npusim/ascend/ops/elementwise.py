"""Element-wise vector instructions: Add, Sub, Mul, Max, Min, Abs, Adds, Muls and Duplicate.

They differ only in their operands and in what a lane computes, so they share one table
(:data:`VECTOR_OPS`) and one path, plan -> execute -> commit, as ``select`` does:

* **plan** — bind the call to one of the documented forms, check every tensor (alive, on
  this core, in UB, 32-byte aligned), the product's dtypes, the scalar, the mask, the
  repeat parameters; turn them into the active lanes (:mod:`..masking`) and each
  operand's byte footprint (:mod:`..footprint`); check bounds and overlap.
* **execute** — gather the sources through typed views and compute every active lane at
  once (:func:`.arith.compute`).
* **commit** — write the destination lanes and the registers the lowering leaves behind
  (mask forms: the mask; count forms: normal mode with the mask all ones, docs/semantics.md §1.4).

Forms (pyasc ``basic/vec_binary.py``, ``vec_binary_scalar.py``, ``vec_unary.py``,
``vec_duplicate.py``)::

    add(dst, src0, src1, count)
    add(dst, src0, src1, mask, repeat_times, repeat_params, is_set_mask=True)   # BinaryRepeatParams
    adds(dst, src, scalar, count)
    adds(dst, src, scalar, mask, repeat_times, repeat_params, is_set_mask=True) # UnaryRepeatParams
    abs(dst, src, count)
    abs(dst, src, mask, repeat_times, repeat_params, is_set_mask=True)
    duplicate(dst, scalar, count)
    duplicate(dst, scalar, mask, repeat_times, dst_block_stride, dst_repeat_stride, is_set_mask=True)

``mask`` is an int (contiguous mode) or a list of uint64 words (bitwise mode); with
``is_set_mask=False`` it is a placeholder and the mask set beforehand (``set_vector_mask``)
applies.

Overlap (docs/semantics.md §1.6): within a repeat a source and dst overlap completely or not at all; no
repeat may read what an earlier one wrote — except, for Add/Sub/Mul/Max/Min on half,
int32 and float, dst over **src1** when src1's or dst's repeat stride is 0.  That case
chains the repeats (``dst = src0[r] + dst`` accumulates), so those repeats run in order;
it is the one place a loop runs per repeat, each step still vectorised over its lanes.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...overloads import Form, Param, bind
from ...sources import semantics
from ...validate import require_bool, require_int, require_uint
from .. import pages
from ..addressing import FULL_WORD, ActiveLanes, contiguous_mask_words, counter_mode_lanes, lanes_per_repeat
from ..chips import unsupported_on
from ..core import Core, current_core
from ..footprint import Footprint, check_overlap, strided_footprint, written_earlier
from ..masking import MaskWords, lanes_from_mask_arg, lanes_from_register
from ..tensor import LocalTensor
from ..types import BinaryRepeatParams, MaskMode, UnaryRepeatParams
from . import arith
from .common import is_scalar, is_tensor, require_dtype, require_repeat_params, require_ub_tensor, scalar_bits

__all__ = ["VECTOR_OPS", "VectorOp", "abs_", "add", "adds", "duplicate", "max_", "min_", "mul", "muls",
           "run_vector_op", "sub"]

DOC_DIR = pages.ARITHMETIC
CHAIN_DTYPES = frozenset({"float16", "int32", "float32"})  # the dst/src1 exception's types (docs/semantics.md §1.6)
DST_STRIDE_SOURCE = f"{pages.HIGH_DIM} 地址间隔配置; {semantics('1.2')}"
INT32_MAX = (1 << 31) - 1  # count is an int32_t


def _is_int(v) -> bool:
    return isinstance(v, (numbers.Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _is_mask(v) -> bool:
    return _is_int(v) or (isinstance(v, (list, tuple, np.ndarray)) and not isinstance(v, (str, bytes)))


def _is_bool(v) -> bool:
    return isinstance(v, (bool, np.bool_))


def _binary_params(v) -> bool:
    return isinstance(v, BinaryRepeatParams)


def _binary_forms() -> tuple[Form, ...]:
    return (
        Form("mask", (Param("src0", is_tensor), Param("src1", is_tensor), Param("mask", _is_mask),
                      Param("repeat_times", _is_int), Param("repeat_params", _binary_params),
                      Param("is_set_mask", _is_bool, True))),
        Form("count", (Param("src0", is_tensor), Param("src1", is_tensor), Param("count", _is_int),
                       Param("is_set_mask", _is_bool, True))),
    )


def _unary_params(v) -> bool:
    return isinstance(v, UnaryRepeatParams)


SCALAR_FORMS = (
    Form("mask", (Param("src", is_tensor), Param("scalar", is_scalar), Param("mask", _is_mask),
                  Param("repeat_times", _is_int), Param("repeat_params", _unary_params),
                  Param("is_set_mask", _is_bool, True))),
    Form("count", (Param("src", is_tensor), Param("scalar", is_scalar), Param("count", _is_int),
                   Param("is_set_mask", _is_bool, True))),
)
UNARY_FORMS = (
    Form("mask", (Param("src", is_tensor), Param("mask", _is_mask), Param("repeat_times", _is_int),
                  Param("repeat_params", _unary_params), Param("is_set_mask", _is_bool, True))),
    Form("count", (Param("src", is_tensor), Param("count", _is_int))),
)
DUPLICATE_FORMS = (
    Form("mask", (Param("scalar", is_scalar), Param("mask", _is_mask), Param("repeat_times", _is_int),
                  Param("dst_block_stride", _is_int), Param("dst_repeat_stride", _is_int),
                  Param("is_set_mask", _is_bool, True))),
    Form("count", (Param("scalar", is_scalar), Param("count", _is_int), Param("is_set_mask", _is_bool, True))),
)


@dataclass(frozen=True)
class VectorOp:
    """One element-wise instruction.

    Attributes:
        name: pyasc name, also the key of ``AscendChip.vector_dtypes``.
        doc: the page it follows (``ascend.pages``); sources add a section heading.
        sources: names of its tensor sources, in call order.
        operation: what a lane computes (:data:`.arith.OPERATIONS`), ``None`` for a fill.
        scalar: it takes a scalar operand (after the tensors).
        src1_chain: the dst/src1 cross-repeat exception of docs/semantics.md §1.6 applies.
        forms: its call forms.
    """

    name: str
    doc: str
    sources: tuple[str, ...]
    operation: str | None
    scalar: bool
    src1_chain: bool
    forms: tuple[Form, ...]


VECTOR_OPS: dict[str, VectorOp] = {op.name: op for op in (
    VectorOp("add", f"{DOC_DIR}/Add.md", ("src0", "src1"), "add", False, True, _binary_forms()),
    VectorOp("sub", f"{DOC_DIR}/Sub.md", ("src0", "src1"), "sub", False, True, _binary_forms()),
    VectorOp("mul", f"{DOC_DIR}/Mul.md", ("src0", "src1"), "mul", False, True, _binary_forms()),
    VectorOp("max", f"{DOC_DIR}/Max.md", ("src0", "src1"), "max", False, True, _binary_forms()),
    VectorOp("min", f"{DOC_DIR}/Min.md", ("src0", "src1"), "min", False, True, _binary_forms()),
    VectorOp("abs", f"{DOC_DIR}/Abs.md", ("src",), "abs", False, False, UNARY_FORMS),
    VectorOp("adds", f"{DOC_DIR}/Adds.md", ("src",), "add", True, False, SCALAR_FORMS),
    VectorOp("muls", f"{DOC_DIR}/Muls.md", ("src",), "mul", True, False, SCALAR_FORMS),
    VectorOp("duplicate", pages.DUPLICATE, (), None, True, False, DUPLICATE_FORMS),
)}


@dataclass
class VectorCall:
    """A planned call: operands, lanes, footprints and the register state to commit."""

    op: VectorOp
    core: Core
    dtype: DType
    lanes: ActiveLanes
    dst: Footprint
    sources: list[Footprint]
    scalar_raw: np.ndarray | None
    chained: bool
    mask_words_after: MaskWords | None = None
    mask_mode_after: MaskMode | None = None


def run_vector_op(name: str, dst, args: tuple, kwargs: dict) -> None:
    """Plan, execute and commit one call of the instruction ``name`` (a key of :data:`VECTOR_OPS`)."""
    op = VECTOR_OPS[name]
    form, bound = bind(name, op.forms, args, kwargs)
    core = current_core(name)
    call = _plan(op, core, form, dst, bound)
    if call is not None:
        _execute(call)


# ----------------------------------------------------------------- planning
def _plan(op: VectorOp, core: Core, form: str, dst, bound: dict) -> VectorCall | None:
    name = op.name
    dst = require_ub_tensor(name, "dst", dst, core)
    dtype = dst.dtype
    tensors = [require_ub_tensor(name, src, bound[src], core) for src in op.sources]
    for src, tensor in zip(op.sources, tensors, strict=True):
        if tensor.dtype != dtype:
            raise UnsupportedError(name, f"{src} dtype", tensor.dtype.name, f"{src} must have dst's dtype",
                                   dtype.name, f"{op.doc} 参数说明; {semantics('5.3')}")
    support = core.chip.vector_dtypes.get(name)
    if support is None:
        raise unsupported_on(core.chip, name, name, lambda c: name in c.vector_dtypes,
                             f"{op.doc} 产品支持情况; {semantics('5.3')}")
    require_dtype(name, "dst", dtype, support.for_form(form == "count"),
                  f"{name} does not support this data type in this form on {core.chip.product}",
                  f"{op.doc} 数据类型; {semantics('5.3')}")
    scalar_raw = scalar_bits(name, "scalar", bound["scalar"], dtype) if op.scalar else None

    itemsize = dtype.itemsize
    native = core.chip.vector_lowering == "native"
    words_after: MaskWords | None = None
    mode_after: MaskMode | None = None
    if form == "count":
        count = require_int(name, "count", bound["count"], 0, INT32_MAX, f"{op.doc} 函数原型; {semantics('1.4')}",
                            rule="count is an int32_t")
        if count == 0:
            return _nop(op, core, "count")
        for tensor, label in ((dst, "dst"), *zip(tensors, op.sources, strict=True)):
            tensor.check_span(name, label, tensor.addr, tensor.addr + count * itemsize)
        lanes = counter_mode_lanes(count, lanes_per_repeat(itemsize))
        strides = _default_strides(op)
        if native:
            words_after, mode_after = _count_form_registers(core, count, itemsize)
    else:
        strides = _strides(op, bound)
        if require_bool(name, "is_set_mask", bound["is_set_mask"]):
            lanes, words = lanes_from_mask_arg(core, name, bound["mask"], bound["repeat_times"], itemsize,
                                               lowering_counts_raw=not native)
            if native:
                words_after = words
        else:
            lanes = lanes_from_register(core, name, bound["repeat_times"], itemsize)
        if lanes.repeats == 0:
            return _nop(op, core, "repeat_times")
    dst_blk, dst_rep = strides[0]
    if dst_blk == 0:
        raise ParameterRangeError(name, "dst block stride", 0, "a destination block stride of 0 is undefined "
                                  "behaviour", "at least 1", DST_STRIDE_SOURCE)

    dst_fp = strided_footprint("dst", dst.addr, lanes, itemsize, dst_blk, dst_rep)
    src_fps = [strided_footprint(src, tensor.addr, lanes, itemsize, blk, rep)
               for src, tensor, (blk, rep) in zip(op.sources, tensors, strides[1:], strict=True)]
    dst_fp.check_in(name, dst)
    for fp, tensor in zip(src_fps, tensors, strict=True):
        fp.check_in(name, tensor)
    chained = False
    for fp, (_blk, rep) in zip(src_fps, strides[1:], strict=True):
        allowed = (op.src1_chain and fp.name == "src1" and dtype.name in CHAIN_DTYPES and (rep == 0 or dst_rep == 0))
        chained |= check_overlap(name, dst_fp, fp, cross_repeat_allowed=allowed)
    return VectorCall(op, core, dtype, lanes, dst_fp, src_fps, scalar_raw, chained, words_after, mode_after)


def _nop(op: VectorOp, core: Core, operand: str) -> None:
    """count = 0 or repeat_times = 0: a NOP where documented as one (A2/A3 ...), an error on the 950."""
    if not core.chip.zero_repeat_nop:
        raise ParameterRangeError(op.name, operand, 0, f"{operand} = 0 is not guaranteed to be a NOP on "
                                  f"{core.chip.product}", "at least 1", f"{op.doc} 约束说明; {semantics('1.9')}")
    return None


def _default_strides(op: VectorOp) -> list[tuple[int, int]]:
    """(block stride, repeat stride) of dst and each source for the count forms: contiguous."""
    return [(1, 8)] * (1 + len(op.sources))


def _strides(op: VectorOp, bound: dict) -> list[tuple[int, int]]:
    """(block stride, repeat stride) of dst and then each source, checked against the C field widths."""
    name = op.name
    if op.name == "duplicate":
        source = f"{op.doc} 函数原型; {semantics('1.2')}"
        blk = require_uint(name, "dst_block_stride", bound["dst_block_stride"], 16, source)
        rep = require_uint(name, "dst_repeat_stride", bound["dst_repeat_stride"], 8, source)
        return [(blk, rep)]
    if len(op.sources) == 2:
        d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = require_repeat_params(name, bound["repeat_params"],
                                                                             BinaryRepeatParams)
        return [(d_blk, d_rep), (s0_blk, s0_rep), (s1_blk, s1_rep)]
    d_blk, s_blk, d_rep, s_rep = require_repeat_params(name, bound["repeat_params"], UnaryRepeatParams)
    return [(d_blk, d_rep), (s_blk, s_rep)]


def _count_form_registers(core: Core, count: int, itemsize: int) -> tuple[MaskWords, MaskMode | None]:
    """The mask state a native count form leaves behind (docs/semantics.md §1.4).

    With counter mode (A2/A3, 310P): ``set_mask_norm(); set_vector_mask(-1, -1)``.  Without
    it (910) the API issues full repeats and then a tail repeat with ``SetMask<T>(tail)``,
    so the register keeps the last mask it set (``dav_c100 BinaryCompute``).
    """
    if core.chip.counter_mode:
        return (FULL_WORD, FULL_WORD, 0, 0), MaskMode.NORMAL
    lanes = lanes_per_repeat(itemsize)
    low, high = contiguous_mask_words(count % lanes or lanes, itemsize)
    return (low, high, 0, 0), None


# ---------------------------------------------------------------- execution
def _saturates(call: VectorCall) -> bool:
    return call.core.float_saturation and call.dtype.name in call.core.chip.float_saturation_dtypes


def _check_sources_initialized(call: VectorCall) -> None:
    ub = call.core.ub
    for fp in call.sources:
        index = fp.elem_index
        if call.chained:
            index = index[~written_earlier(call.dst, fp)]
        ub.check_initialized(call.op.name, fp.name, index, call.dtype.itemsize)


def _results(call: VectorCall, sources: list[np.ndarray], count: int) -> np.ndarray:
    if call.op.operation is None:
        return np.broadcast_to(call.scalar_raw, (count,))
    operands = sources + ([call.scalar_raw] if call.scalar_raw is not None else [])
    return arith.compute(call.op.operation, call.dtype, operands, _saturates(call))


def _execute(call: VectorCall) -> None:
    """Compute every destination lane, then commit (docs/architecture.md): nothing changes before."""
    ub = call.core.ub
    raw = call.dtype.raw
    _check_sources_initialized(call)
    values = None
    if call.dst.empty:
        pass
    elif not call.chained:
        sources = [ub.gather(fp.elem_index, raw) for fp in call.sources]
        values = _results(call, sources, call.dst.addrs.size)
    else:
        values = _chained_results(call)
    _commit(call, values)


def _chained_results(call: VectorCall) -> np.ndarray:
    """The dst/src1 chain (docs/semantics.md §1.6): repeat r reads what repeat r - 1 wrote, so repeats run in order.

    They run on a private copy of every element the call touches (each step still vectorised over
    its lanes); the values of the destination lanes, in issue order, are returned for the commit.
    """
    touched = [fp.elem_index for fp in call.sources] + [call.dst.elem_index]
    elements, where = np.unique(np.concatenate(touched), return_inverse=True)
    work = call.core.ub.data.view(call.dtype.raw)[elements]
    ends = np.cumsum([index.size for index in touched])[:-1]
    *source_at, dst_at = np.split(where, ends)
    bounds = np.searchsorted(call.dst.repeats, np.arange(call.lanes.repeats + 1))
    for start, stop in zip(bounds[:-1], bounds[1:], strict=True):
        if start < stop:
            sources = [work[at[start:stop]] for at in source_at]
            work[dst_at[start:stop]] = _results(call, sources, stop - start)
    return work[dst_at]


def _commit(call: VectorCall, values: np.ndarray | None) -> None:
    """Store the computed lanes, then the mask registers the lowering leaves behind."""
    core = call.core
    if values is not None:
        core.ub.scatter(call.dst.elem_index, values)
    if call.mask_words_after is not None:
        core.mask_words = call.mask_words_after
    if call.mask_mode_after is not None:
        core.mask_mode = call.mask_mode_after


# ------------------------------------------------------------------ the API
def add(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = src0 + src1`` per lane (Add.md)."""
    run_vector_op("add", dst, args, kwargs)


def sub(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = src0 - src1`` per lane (Sub.md)."""
    run_vector_op("sub", dst, args, kwargs)


def mul(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = src0 * src1`` per lane (Mul.md)."""
    run_vector_op("mul", dst, args, kwargs)


def max_(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = max(src0, src1)`` per lane (Max.md); exported as ``asc.max``."""
    run_vector_op("max", dst, args, kwargs)


def min_(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = min(src0, src1)`` per lane (Min.md); exported as ``asc.min``."""
    run_vector_op("min", dst, args, kwargs)


def abs_(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = |src|`` per lane (Abs.md); exported as ``asc.abs``."""
    run_vector_op("abs", dst, args, kwargs)


def adds(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = src + scalar`` per lane, the scalar converted to T first (Adds.md)."""
    run_vector_op("adds", dst, args, kwargs)


def muls(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = src * scalar`` per lane, the scalar converted to T first (Muls.md)."""
    run_vector_op("muls", dst, args, kwargs)


def duplicate(dst: LocalTensor, *args, **kwargs) -> None:
    """``dst = scalar`` at every active lane (Duplicate.md)."""
    run_vector_op("duplicate", dst, args, kwargs)
