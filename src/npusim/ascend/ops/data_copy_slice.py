"""``DataCopy`` with ``SliceInfo``: the checked runs of a GM <-> UB slice copy.

GM与UB切片数据搬运(DataCopy).md: each side of the copy is a tensor of ``dim_value`` dimensions
(dimension 0 innermost, ``shape_value`` elements long) and a ``SliceInfo`` per dimension.  In
dimension 0 the slice is ``N`` runs of ``burst_len`` DataBlocks, ``stride`` elements apart,
from ``start_index`` to ``end_index`` (inclusive); in every other dimension it is ``N`` indices,
``stride`` indices apart.  The page's rule (约束说明)::

    end_index - start_index + 1 = (N - 1) * stride + N * unit,   N a positive integer

with ``unit = burst_len * 32 / sizeof(T)`` elements in dimension 0.  The page prints the rule
with that unit for every dimension, but its own example (``{0, 2, 1, 1, 3}``: rows 0 and 2 of 3)
only satisfies it with ``unit = 1`` outside dimension 0, which is also how the vendor
implementation counts (``DataCopyGetOffsetList``: ``(end - start + 1 + stride) / (1 + stride)``,
``impl/basic_api/kernel_operator_data_copy_base_impl.h``); npusim reads it so (docs/semantics.md §5.9, erratum 1).

Element ``(i_{d-1}, ..., i_1, j, e)`` of the copy (run ``j`` of dimension 0, element ``e`` of the
run) lies at::

    sum_k (start_k + i_k * (1 + stride_k)) * P_k + j * (unit + stride_0) + e,   P_k = prod(shape_<k)

on each side with that side's SliceInfo (``DataCopyGetPhyStartIndex``; the runs are issued with
the outermost dimension slowest).  The vendor takes the run counts from ``srcSliceInfo``; npusim
requires both sides to count the same runs in every dimension, so that the copy is the
slice-to-slice copy the page describes.

Beyond the page's rules npusim enforces what the vendor lowering needs to be that copy
(``kernel_operator_data_copy_intf_impl.h``, ``DataCopy`` with ``SliceInfo``): the run grid is
one ``DataCopyParams`` per row, so ``N <= 4095`` and ``burst_len`` and the DataBlock strides fit
``uint16_t``; a GM-side stride that is not whole DataBlocks goes through ``DataCopyPad`` with
byte strides and (GM -> UB) a ``uint16_t`` byte length; at most ``MAX_SLICE_SIZE`` = 1536 rows
(``kernel_utils_constants.h``); every UB run starts 32-byte aligned (the page: UB addresses
32-byte aligned); and destination runs do not overlap one another (checked by the caller, after
the bounds).
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType
from ...errors import AlignmentError, ParameterRangeError
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..addressing import BLOCK_BYTES, SliceRuns
from ..types import SliceInfo
from .common import require_repeat_params

__all__ = ["MAX_DIMS", "MAX_SLICE_ROWS", "is_slice_list", "slice_runs"]

DOC = pages.DATA_COPY_SLICE
RULES = semantics("5.9")
MAX_DIMS = 8  # K_MAX_DIM: "不超过8"
MAX_SLICE_ROWS = 6 * 256  # MAX_SLICE_SIZE: the offset list of the outer dimensions
MAX_RUNS = 4095  # DataCopyParams.blockCount
U16 = (1 << 16) - 1
LISTS = {"src": "slice_list2", "dst": "slice_list1"}  # pyasc's names: destination first


def is_slice_list(value) -> bool:
    """The form's type test (by type only, as ``overloads.Param`` requires); the items are checked later."""
    return isinstance(value, (list, tuple))


def _rule(instruction: str, operand: str, value, rule: str, allowed: str, section: str = "约束说明"):
    return ParameterRangeError(instruction, operand, value, rule, allowed, f"{DOC} {section}; {RULES}")


def _side(instruction: str, label: str, infos, dim_value: int) -> list[tuple[int, ...]]:
    """Every SliceInfo of one side checked on its own: field widths, ``start < end <= shape``, the burst."""
    if len(infos) != dim_value:
        raise _rule(instruction, f"len({label})", len(infos), "the SliceInfo list must have dim_value entries",
                    f"{dim_value} (dim_value)")
    fields = []
    for dim, info in enumerate(infos):
        name = f"{label}[{dim}]"
        start, end, stride, burst, shape = require_repeat_params(instruction, info, SliceInfo, name)
        if not start < end <= shape:
            raise _rule(instruction, f"{name}", f"start_index={start}, end_index={end}, shape_value={shape}",
                        "start_index < end_index <= shape_value must hold", "start_index < end_index <= shape_value")
        if dim == 0 and burst == 0:
            raise _rule(instruction, f"{name}.burst_len", burst, "a run is at least one DataBlock long",
                        "at least 1", "参数说明")
        if dim > 0 and burst != 1:
            raise _rule(instruction, f"{name}.burst_len", burst, "burst_len applies to dimension 0 only; in the "
                        "other dimensions it must be 1", "1")
        fields.append((start, end, stride, burst, shape))
    return fields


def _counts(instruction: str, label: str, fields: list[tuple[int, ...]], dtype: DType) -> list[int]:
    """``N`` per dimension: the page's rule ``end - start + 1 = (N - 1) * stride + N * unit``."""
    counts = []
    for dim, (start, end, stride, burst, _shape) in enumerate(fields):
        unit = burst * BLOCK_BYTES // dtype.itemsize if dim == 0 else 1
        span = end - start + 1
        if (span + stride) % (unit + stride):
            raise _rule(instruction, f"{label}[{dim}]", f"end_index - start_index + 1 = {span}",
                        f"the span is not (N - 1) * stride + N * {unit} for a positive integer N "
                        f"(stride {stride}, run {unit} elements)",
                        f"(N - 1) * {stride} + N * {unit}, N = 1, 2, ...")
        counts.append((span + stride) // (unit + stride))
    return counts


def _lowering_limits(instruction: str, runs: int, burst: int, rows: int) -> None:
    """What one ``DataCopyParams`` per row and the vendor's offset list can hold."""
    require_int(instruction, "slice_list2[0] runs (N)", runs, 1, MAX_RUNS,
                f"{pages.DATA_COPY_PARAMS} 参数说明; {RULES}")
    require_int(instruction, "slice_list2[0].burst_len", burst, 1, U16, f"{pages.DATA_COPY_PARAMS} 参数说明; {RULES}")
    if rows > MAX_SLICE_ROWS:
        raise ParameterRangeError(instruction, "slice rows (outer dimensions)", rows,
                                  "the vendor implementation lists at most MAX_SLICE_SIZE rows",
                                  f"at most {MAX_SLICE_ROWS}", RULES)


def _gm_stride(instruction: str, side: str, stride_bytes: int, burst: int, inbound: bool) -> None:
    """A GM stride in DataBlocks (``DataCopy``) or, if not whole DataBlocks, bytes (``DataCopyPad``)."""
    operand = f"{LISTS[side]}[0].stride"
    source = f"{pages.DATA_COPY_PARAMS} 参数说明; {RULES}"
    if stride_bytes % BLOCK_BYTES == 0:
        require_int(instruction, f"{operand} (DataBlocks)", stride_bytes // BLOCK_BYTES, 0, U16, source)
        return
    require_int(instruction, f"{operand} (bytes)", stride_bytes, 0, U16, source)
    if inbound:  # DataCopySliceGm2UBImpl: uint16_t burstLen = blockLen * 32
        require_int(instruction, "slice_list2[0].burst_len (bytes, with a GM stride not whole DataBlocks)",
                    burst * BLOCK_BYTES, 1, U16, source)


def _runs(fields: list[tuple[int, ...]], counts: list[int], dtype: DType) -> SliceRuns:
    size = dtype.itemsize
    sizes = [1]
    for _start, _end, _stride, _burst, shape in fields[:-1]:
        sizes.append(sizes[-1] * shape)
    offset = sum(start * sizes[dim] for dim, (start, *_rest) in enumerate(fields)) * size
    burst, stride = fields[0][3], fields[0][2]
    unit = burst * BLOCK_BYTES // size
    outer = range(len(fields) - 1, 0, -1)  # outermost first
    pitches = tuple((1 + fields[d][2]) * sizes[d] * size for d in outer)
    return SliceRuns(offset, tuple(counts[d] for d in outer), pitches, counts[0], (unit + stride) * size,
                     burst * BLOCK_BYTES)


def _ub_aligned(instruction: str, side: str, runs: SliceRuns) -> None:
    """Every UB run starts 32-byte aligned (the tensor's start already is)."""
    for what, value in (("start", runs.offset), ("dimension 0 run pitch", runs.pitch),
                        *((f"dimension {len(runs.outer_pitches) - k} pitch", pitch)
                          for k, pitch in enumerate(runs.outer_pitches))):
        if value % BLOCK_BYTES:
            raise AlignmentError(instruction, f"{LISTS[side]} ({what})", f"{value} bytes",
                                 "a UB run would start off a 32-byte boundary", "multiples of 32 bytes",
                                 f"{DOC} 约束说明; {RULES}")


def slice_runs(instruction: str, dtype: DType, inbound: bool, dst_list, src_list,
               dim_value) -> tuple[SliceRuns, SliceRuns]:
    """``(src runs, dst runs)`` of a slice copy after every rule of the module docstring, in page order."""
    for label, value in (("slice_list1", dst_list), ("slice_list2", src_list)):
        if not all(isinstance(item, SliceInfo) for item in value):
            raise TypeError(f"{instruction}: {label} must be a list of asc.SliceInfo, got {type(value).__name__}")
    dim_value = require_int(instruction, "dim_value", dim_value, 1, MAX_DIMS, f"{DOC} 约束说明; {RULES}")
    dst_fields = _side(instruction, "slice_list1", dst_list, dim_value)
    src_fields = _side(instruction, "slice_list2", src_list, dim_value)
    for dim, (d, s) in enumerate(zip(dst_fields, src_fields, strict=True)):
        if d[3] != s[3]:
            raise _rule(instruction, f"slice_list1[{dim}].burst_len", d[3], "source and destination runs must "
                        "have the same burst_len", f"{s[3]} (slice_list2[{dim}].burst_len)")
    dst_counts = _counts(instruction, "slice_list1", dst_fields, dtype)
    src_counts = _counts(instruction, "slice_list2", src_fields, dtype)
    for dim, (d, s) in enumerate(zip(dst_counts, src_counts, strict=True)):
        if d != s:
            raise _rule(instruction, f"slice_list1[{dim}]", f"{d} runs", "source and destination slices must "
                        "select the same number of runs in every dimension (the copy moves the source's runs "
                        "to the destination's)", f"{s} (the runs of slice_list2[{dim}])")
    _lowering_limits(instruction, src_counts[0], src_fields[0][3], int(np.prod(src_counts[1:], dtype=np.int64)))
    src, dst = _runs(src_fields, src_counts, dtype), _runs(dst_fields, dst_counts, dtype)
    gm_side, ub_side = ("src", "dst") if inbound else ("dst", "src")
    gm_fields = src_fields if inbound else dst_fields
    ub_runs = dst if inbound else src
    _gm_stride(instruction, gm_side, gm_fields[0][2] * dtype.itemsize, src_fields[0][3], inbound)
    _ub_aligned(instruction, ub_side, ub_runs)
    require_int(instruction, f"{LISTS[ub_side]}[0].stride (DataBlocks)",
                (ub_runs.pitch - ub_runs.nbytes) // BLOCK_BYTES, 0, U16, f"{pages.DATA_COPY_PARAMS} 参数说明; {RULES}")
    return src, dst
