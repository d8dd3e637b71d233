"""The five BDC compare-select instructions (TPU-Kernel 比较选择函数, cmp.html; docs/semantics.md §8).

::

    dst(n,c,h,w) = src2 if cond(src0, src1) else src3          greater / less / equal _select
    dst0 = src0 if cond else src1;  dst1 = src2 if cond else src3  maximum_greater / minimum_less _select

Each operand is a TENSOR (its own 64-byte aligned layout, same shape as dst), a VECTOR
(src0/src1 only: channel ``c`` reads lane ``(start_lane + c) % NPU_NUM`` at the vector's
own offset, docs/semantics.md §8.2 - the page's ``src(0, c mod NPU_NUM, 0, 0)`` agrees only for start lane 0;
checked on the cmodel) or a SCALAR (the low ``bits(dtype)`` bits of the ``scalar_t``).  The chosen
src2/src3 bits are copied unchanged; only the dtype *width* of dst matters (§8.1).
Only valid elements of dst are written; its padding is untouched.

Every call runs in three steps (docs/architecture.md):

1. **plan** (:func:`_plan`, cached on the call's hashable parameters): check every rule,
   and describe each operand as an in-lane element offset, a stride and the channel runs
   (:func:`~npusim.sophgo.layout.channel_runs`).  A rejected call has changed nothing.
2. **execute**: build strided numpy views of local memory per run, report never-written
   source bytes, compare on raw bits (:mod:`.fused_compare`) and select.
3. **commit**: write dst (dst0 then dst1) through the same views.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ...dtypes import DType
from ...errors import ParameterRangeError, UnsupportedError
from ...memory import Memory
from ...sources import semantics
from .. import pages
from ..chips import Chip
from ..core import current_core
from ..layout import ChannelRun, channel_runs, element_lane_offset, local_stride, split_address
from ..placement import SHAPE_MAX, check_shape, place_local, require_address
from ..types import (
    SCALAR,
    TENSOR,
    VECTOR,
    as_data_type,
    data_type_t,
    dim4,
    scalar_t,
    storage_dtype,
    tpu_data_type_bits,
    var_type_t,
    variable_t,
)
from .fused_compare import Condition, compare, flush_chosen

__all__ = [
    "tpu_bdc_equal_select",
    "tpu_bdc_greater_select",
    "tpu_bdc_less_select",
    "tpu_bdc_maximum_greater_select",
    "tpu_bdc_minimum_less_select",
]

_NOTES = f"{pages.COMPARE_SELECT} 注意事项"
_SRC_NAMES = ("src0", "src1", "src2", "src3")
_ALL_WRITTEN = {1: 0x01, 2: 0x0101, 4: 0x01010101}  # Memory's shadow: one 0x01 byte per written byte


# ------------------------------------------------------------------------------ public API


def tpu_bdc_greater_select(
    dst_addr: int, src0: variable_t, src1: variable_t, src2: variable_t, src3: variable_t,
    shape: dim4, src0_src1_dtype: data_type_t, dst_dtype: data_type_t,
) -> None:  # fmt: skip
    """``dst = src2 if src0 > src1 else src3`` (IEEE ordered; FP32/BF16 subnormals compare as 0)."""
    _select("tpu_bdc_greater_select", "greater", False, (dst_addr,), (src0, src1, src2, src3), shape,
            src0_src1_dtype, dst_dtype)  # fmt: skip


def tpu_bdc_less_select(
    dst_addr: int, src0: variable_t, src1: variable_t, src2: variable_t, src3: variable_t,
    shape: dim4, src0_src1_dtype: data_type_t, dst_dtype: data_type_t,
) -> None:  # fmt: skip
    """``dst = src2 if src0 < src1 else src3`` (true with a NaN unless both bit patterns are identical)."""
    _select("tpu_bdc_less_select", "less", False, (dst_addr,), (src0, src1, src2, src3), shape,
            src0_src1_dtype, dst_dtype)  # fmt: skip


def tpu_bdc_equal_select(
    dst_addr: int, src0: variable_t, src1: variable_t, src2: variable_t, src3: variable_t,
    shape: dim4, src0_src1_dtype: data_type_t, dst_dtype: data_type_t,
) -> None:  # fmt: skip
    """``dst = src2 if bits(src0) == bits(src1) else src3`` (bitwise, floats included)."""
    _select("tpu_bdc_equal_select", "equal", False, (dst_addr,), (src0, src1, src2, src3), shape,
            src0_src1_dtype, dst_dtype)  # fmt: skip


def tpu_bdc_maximum_greater_select(
    dst0_addr: int, dst1_addr: int, src0: variable_t, src1: variable_t, src2: variable_t, src3: variable_t,
    shape: dim4, dst0_dtype: data_type_t, dst1_dtype: data_type_t,
) -> None:  # fmt: skip
    """``g = src0 > src1``; ``dst0 = src0 if g else src1`` (FP32/BF16 subnormals -> signed 0);
    ``dst1 = src2 if g else src3``.  ``dst0_dtype`` is also the compare type."""
    _select("tpu_bdc_maximum_greater_select", "greater", True, (dst0_addr, dst1_addr),
            (src0, src1, src2, src3), shape, dst0_dtype, dst1_dtype)  # fmt: skip


def tpu_bdc_minimum_less_select(
    dst0_addr: int, dst1_addr: int, src0: variable_t, src1: variable_t, src2: variable_t, src3: variable_t,
    shape: dim4, dst0_dtype: data_type_t, dst1_dtype: data_type_t,
) -> None:  # fmt: skip
    """``l = src0 < src1``; ``dst0 = src0 if l else src1`` (FP32/BF16 subnormals -> signed 0);
    ``dst1 = src2 if l else src3``.  ``dst0_dtype`` is also the compare type."""
    _select("tpu_bdc_minimum_less_select", "less", True, (dst0_addr, dst1_addr),
            (src0, src1, src2, src3), shape, dst0_dtype, dst1_dtype)  # fmt: skip


# ------------------------------------------------------------------------------ plan


@dataclass(frozen=True)
class _Operand:
    """One operand as the plan sees it.

    ``base_elem`` is the in-lane byte offset divided by the element size; ``stride`` is the
    TENSOR's aligned stride (None for VECTOR and SCALAR).
    """

    name: str
    kind: var_type_t
    dtype: DType
    addr: int | None = None
    base_elem: int = 0
    stride: dim4 | None = None


@dataclass(frozen=True)
class _Plan:
    instruction: str
    condition: Condition
    min_max: bool
    shape: dim4
    start_lane: int
    runs: tuple[ChannelRun, ...]
    compare_type: data_type_t
    value_type: data_type_t
    sources: tuple[_Operand, _Operand, _Operand, _Operand]
    dests: tuple[_Operand, ...]


def _select(
    instruction: str, condition: Condition, min_max: bool, dst_addrs: tuple[Any, ...],
    sources: tuple[Any, ...], shape: Any, compare_dtype: Any, value_dtype: Any,
) -> None:  # fmt: skip
    core = current_core(instruction)
    dst_names = ("dst0_addr", "dst1_addr") if min_max else ("dst_addr",)
    for name, addr in zip(dst_names, dst_addrs, strict=True):
        require_address(instruction, name, addr, "int local address")
    for name, src in zip(_SRC_NAMES, sources, strict=True):
        if not isinstance(src, variable_t):
            raise TypeError(f"{instruction}: {name} must be a variable_t, got {type(src).__name__}")
    if not isinstance(shape, dim4):
        raise TypeError(f"{instruction}: shape must be a dim4, got {type(shape).__name__}")
    plan = _plan(
        core.chip, instruction, condition, min_max,
        tuple(int(a) for a in dst_addrs),
        tuple((src.type, src.addr) for src in sources),
        shape,
        as_data_type(compare_dtype, instruction, "dst0_dtype" if min_max else "src0_src1_dtype"),
        as_data_type(value_dtype, instruction, "dst1_dtype" if min_max else "dst_dtype"),
    )  # fmt: skip
    results = _execute(plan, core.lmem, core.chip, tuple(src.scalar for src in sources))
    _commit(plan, core.lmem, core.chip, results)


@functools.lru_cache(maxsize=512)
def _plan(
    chip: Chip, instruction: str, condition: Condition, min_max: bool, dst_addrs: tuple[int, ...],
    sources: tuple[tuple[var_type_t, int | None], ...], shape: dim4,
    compare_type: data_type_t, value_type: data_type_t,
) -> _Plan:  # fmt: skip
    """Check every rule of the call and describe its operands; raises before anything is written."""
    cmp_name = "dst0_dtype" if min_max else "src0_src1_dtype"
    val_name = "dst1_dtype" if min_max else "dst_dtype"
    check_shape(instruction, shape, SHAPE_MAX, f"{_NOTES}; {semantics('8.5')}")
    _check_dtypes(instruction, chip, min_max, compare_type, value_type, cmp_name, val_name)
    for name, (kind, _) in zip(_SRC_NAMES[2:], sources[2:], strict=True):
        if kind is VECTOR:
            raise UnsupportedError(
                instruction, name, "VECTOR", "src2 and src3 cannot be VECTOR operands", "TENSOR or SCALAR",
                semantics("8.2"),
            )
    cmp_storage = storage_dtype(compare_type, instruction, cmp_name)
    val_storage = storage_dtype(value_type, instruction, val_name)

    dst_names = ("dst0", "dst1") if min_max else ("dst",)
    dst_dtypes = (cmp_storage, val_storage) if min_max else (val_storage,)
    start_lane = dst_addrs[0] // chip.local_mem_bytes  # meaningful once dst0 passes _locate, which runs first
    dests = tuple(
        _locate(instruction, chip, name, TENSOR, addr, dt, shape, start_lane)
        for name, addr, dt in zip(dst_names, dst_addrs, dst_dtypes, strict=True)
    )
    src_dtypes = (cmp_storage, cmp_storage, val_storage, val_storage)
    located = tuple(
        _Operand(name, kind, dt)
        if kind is SCALAR
        else _locate(instruction, chip, name, kind, addr, dt, shape, start_lane)
        for name, (kind, addr), dt in zip(_SRC_NAMES, sources, src_dtypes, strict=True)
    )
    return _Plan(
        instruction, condition, min_max, shape, start_lane, channel_runs(start_lane, shape.c, chip.npu_num),
        compare_type, value_type, located, dests,
    )  # fmt: skip


def _check_dtypes(
    instruction: str, chip: Chip, min_max: bool, compare_type: data_type_t, value_type: data_type_t,
    cmp_name: str, val_name: str,
) -> None:  # fmt: skip
    """Dtype support on the chip and the width rules (docs/semantics.md §8.4).

    The document's rules (the compare type no wider than dst; maximum/minimum dst0 and dst1 of one
    width) hold on every chip, also on SG2260, whose emulator computes such calls anyway
    (docs/sophgo.md).  The equal-width rule of a float compare is the BM cmodels' own assert.
    """
    for name, dt, allowed in (
        (cmp_name, compare_type, chip.select_compare_dtypes),
        (val_name, value_type, chip.select_value_dtypes),
    ):
        if dt not in allowed:
            raise UnsupportedError(
                instruction, name, dt.name, f"is not supported by the select instructions on {chip.name}",
                ", ".join(d.name for d in sorted(allowed)), semantics("8.4"),
            )
    cmp_bits, val_bits = tpu_data_type_bits(compare_type), tpu_data_type_bits(value_type)
    if min_max:
        if cmp_bits != val_bits:
            raise UnsupportedError(
                instruction, val_name, value_type.name,
                f"is {val_bits} bits wide but dst0_dtype {compare_type.name} is {cmp_bits} "
                "(the vendor asserts WIDTH(dst0) == WIDTH(dst1))",
                f"a {cmp_bits}-bit dst1_dtype", semantics("8.4"),
            )
        return
    if cmp_bits > val_bits:
        raise UnsupportedError(
            instruction, cmp_name, compare_type.name,
            f"is {cmp_bits} bits wide, wider than dst_dtype {value_type.name} ({val_bits} bits)",
            f"a compare type of at most {val_bits} bits", f"{_NOTES}; {semantics('8.4')}",
        )
    if compare_type in chip.select_equal_width_compare_dtypes and cmp_bits != val_bits:
        raise UnsupportedError(
            instruction, val_name, value_type.name,
            f"is {val_bits} bits wide; a float compare ({compare_type.name}) needs a dst of the same width "
            "(the cmodel asserts AB_type_size == CD_type_size)",
            f"a {cmp_bits}-bit dst_dtype", semantics("8.4"),
        )


def _locate(
    instruction: str, chip: Chip, name: str, kind: var_type_t, addr: int, dtype: DType, shape: dim4,
    start_lane: int,
) -> _Operand:  # fmt: skip
    """Check an address operand (range, alignment, extent, start lane) and describe it."""
    operand = f"{name} address"
    if kind is VECTOR:  # one element per lane, at the vector's own offset (docs/semantics.md §8.2)
        place_local(instruction, chip, operand, addr, dim4(1, 1, 1, 1), dim4(1, 1, 1, 1), dtype.itemsize,
                    dtype.itemsize, f"a VECTOR operand must be aligned to its {dtype.itemsize}-byte element",
                    semantics("8.2"))  # fmt: skip
        stride = None
    else:
        stride = local_stride("aligned", shape, split_address(addr, chip)[0] if addr >= 0 else 0, dtype.bits, chip)
        place_local(instruction, chip, operand, addr, shape, stride, dtype.itemsize, chip.align_bytes,
                    f"a TENSOR operand must be {chip.align_bytes}-byte (EU) aligned", f"{_NOTES}; {semantics('8.2')}")
    lane, offset = split_address(addr, chip)
    if lane != start_lane:
        raise ParameterRangeError(
            instruction, operand, addr, f"starts on NPU lane {lane}, but dst starts on lane {start_lane}",
            f"an address on lane {start_lane}: [{start_lane * chip.local_mem_bytes:#x}, "
            f"{(start_lane + 1) * chip.local_mem_bytes:#x})",
            f"{_NOTES}; {semantics('8.5')}",
        )
    return _Operand(name, kind, dtype, addr, offset // dtype.itemsize, stride)


# ------------------------------------------------------------------------------ execute


def _lanes(array: np.ndarray, raw: np.dtype, chip: Chip) -> np.ndarray:
    """A byte array of the whole local memory viewed as ``[NPU_NUM, LOCAL_MEM_SIZE / size]`` elements."""
    return array.view(raw).reshape(chip.npu_num, -1)


def _run_view(lanes: np.ndarray, op: _Operand, run: ChannelRun, shape: dim4) -> np.ndarray:
    """The elements of ``op`` in one channel run, shaped ``(N, slots, lanes, H, W)`` (or broadcastable).

    A TENSOR element (n, slot, lane, h, w) sits at ``lanes[lane, base + n*ns + slot*cs + h*hs + w*ws]``
    (docs/semantics.md §7.3); a VECTOR holds one element per lane at ``lanes[lane, base]`` (§8.2).
    Bounds were checked by the plan.
    """
    lane_stride, item = lanes.strides
    if op.kind is VECTOR:
        start = lanes[run.lane, op.base_elem :]
        return as_strided(start, (1, 1, run.lanes, 1, 1), (0, 0, lane_stride, 0, 0))
    st = op.stride
    start = lanes[run.lane, op.base_elem + run.slot * st.c :]
    return as_strided(
        start,
        (shape.n, run.slots, run.lanes, shape.h, shape.w),
        (st.n * item, st.c * item, lane_stride, st.h * item, st.w * item),
    )


def _execute(
    plan: _Plan, mem: Memory, chip: Chip, scalars: tuple[scalar_t | None, ...]
) -> list[list[np.ndarray]]:
    """Per dst, per run: the raw bits to write.  Reads only; warns about never-written sources."""
    if mem.uninit != "ignore":
        for op in plan.sources:
            if op.kind is not SCALAR:
                _check_initialized(plan, mem, chip, op)
    results: list[list[np.ndarray]] = [[] for _ in plan.dests]
    for run in plan.runs:
        a, b, c, d = (
            _source_bits(plan, mem, chip, op, run, s) for op, s in zip(plan.sources, scalars, strict=True)
        )
        chosen = compare(plan.condition, a, b, plan.compare_type)
        if plan.min_max:
            results[0].append(flush_chosen(_choose(chosen, a, b), plan.compare_type))
        results[-1].append(_choose(chosen, c, d))
    return results


def _choose(mask: np.ndarray, when_true: np.ndarray, when_false: np.ndarray) -> np.ndarray:
    """``np.where(mask, when_true, when_false)`` for unsigned bit patterns, as a branch-free blend.

    ``false ^ ((true ^ false) & -mask)``: same bits as ``np.where``, about three times faster
    on the unpredictable masks a compare produces.  Always returns a new array.
    """
    select_all_ones = np.asarray(mask, dtype=when_true.dtype)
    np.negative(select_all_ones, out=select_all_ones)  # 1 -> all ones (unsigned wrap-around), 0 -> 0
    blended = np.bitwise_and(np.bitwise_xor(when_true, when_false), select_all_ones)
    blended ^= when_false
    return blended


def _source_bits(
    plan: _Plan, mem: Memory, chip: Chip, op: _Operand, run: ChannelRun, scalar: scalar_t | None
) -> np.ndarray:
    raw = op.dtype.raw
    if op.kind is SCALAR:
        return np.array(scalar.low_bits(op.dtype.bits), dtype=raw)  # docs/semantics.md §6.2
    return _run_view(_lanes(mem.data, raw, chip), op, run, plan.shape)


def _check_initialized(plan: _Plan, mem: Memory, chip: Chip, op: _Operand) -> None:
    """Report the lowest never-written byte the operand reads (through Memory's policy)."""
    raw = op.dtype.raw
    shadow = _lanes(mem.written, raw, chip)
    full = _ALL_WRITTEN[op.dtype.itemsize]
    if all(int(_run_view(shadow, op, run, plan.shape).min()) == full for run in plan.runs):
        return
    mem.check_initialized(plan.instruction, op.name, _element_index(plan, chip, op), op.dtype.itemsize)


def _element_index(plan: _Plan, chip: Chip, op: _Operand) -> np.ndarray:
    """Flat element indices of everything ``op`` reads (slow path, for reporting only)."""
    if op.kind is VECTOR:
        lanes = (plan.start_lane + np.arange(min(plan.shape.c, chip.npu_num))) % chip.npu_num
        return lanes * (chip.local_mem_bytes // op.dtype.itemsize) + op.base_elem
    lane, offset = element_lane_offset(op.addr, plan.shape, op.stride, op.dtype.itemsize, chip)
    return (lane * chip.local_mem_bytes + offset) // op.dtype.itemsize


# ------------------------------------------------------------------------------ commit


def _commit(plan: _Plan, mem: Memory, chip: Chip, results: list[list[np.ndarray]]) -> None:
    """Write every dst, dst0 before dst1 (when dst0 == dst1 the cmodel keeps dst1)."""
    for op, per_run in zip(plan.dests, results, strict=True):
        raw = op.dtype.raw
        data, shadow = _lanes(mem.data, raw, chip), _lanes(mem.written, raw, chip)
        for run, bits in zip(plan.runs, per_run, strict=True):
            _run_view(data, op, run, plan.shape)[...] = bits
            _run_view(shadow, op, run, plan.shape)[...] = _ALL_WRITTEN[op.dtype.itemsize]
