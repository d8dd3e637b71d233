"""Where a 4-D tensor operand lies, and the checks that it fits its memory.

Every Sophgo entry point that reads or writes a tensor asks one of two questions:

* :func:`place_local`: does a tensor of ``shape`` and ``stride`` at local address ``addr``
  fit?  The address must lie in the local address space, be aligned as the caller
  requires, and every element must stay inside its lane (docs/semantics.md §7.2, §7.3);
* :func:`place_global`: does it fit in global memory (a flat byte space)?

Both return a placement that knows the flat element index of every element (byte address
divided by the element size, which alignment to the element size makes exact), in NCHW
order, its strided views per channel run, and the byte ranges it covers (an access record's
``"LOCAL"`` and ``"GLOBAL"`` ranges).  The formulas are those of :mod:`.layout`; nothing here
restates them.

:func:`check_shape` and :func:`check_stride` are the shared parameter-range checks of
``dim4`` arguments; :func:`check_element_count` is npusim's own limit on the work of one call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..engine.trace import ByteRange, merge_ranges, ranges_of_addresses
from ..errors import AlignmentError, OutOfBoundsError, ParameterRangeError, UnsupportedError
from ..lazy import cached_attribute
from ..sources import semantics
from .chips import Chip
from .layout import channel_runs, element_lane_offset, lane_span_bytes, run_view, split_address
from .types import dim4

__all__ = ["SHAPE_MAX", "GlobalPlacement", "LocalPlacement", "PlacedBinding", "as_dim4", "check_element_count",
           "check_shape", "check_stride", "element_ranges", "place_global", "place_local", "require_address"]

LOCAL_SOURCE = semantics("7.2", "7.3")
SHAPE_MAX = 65535  # each of N, C, H, W is a 16-bit field that must be > 0 (docs/semantics.md §8.5)
ELEMENT_COUNT_SOURCE = semantics("9.3")


def require_address(instruction: str, name: str, addr: Any, kind: str = "int address") -> int:
    """``addr`` as an int (a Python or numpy integer, not a bool); anything else is a TypeError naming it."""
    if isinstance(addr, bool) or not isinstance(addr, (int, np.integer)):
        raise TypeError(f"{instruction}: {name} must be an {kind}, got {type(addr).__name__}")
    return int(addr)


def as_dim4(instruction: str, name: str, value: Any, allow_none: bool = False) -> dim4 | None:
    """``value`` as a :class:`dim4` (``None`` passes through when ``allow_none``, as C's NULL).

    Raises:
        TypeError: anything else (the C API takes ``const dim4 *``).
    """
    if value is None and allow_none:
        return None
    if isinstance(value, dim4):
        return value
    kind = "a dim4 or None (NULL)" if allow_none else "a dim4"
    raise TypeError(f"{instruction}: {name} must be {kind}, got {type(value).__name__}")


def check_shape(instruction: str, shape: dim4, high: int, source: str) -> None:
    """Each of N, C, H, W in ``[1, high]``, else :class:`ParameterRangeError` naming the axis."""
    for axis, size in zip("nchw", shape, strict=True):
        if not 1 <= size <= high:
            raise ParameterRangeError(instruction, f"shape.{axis}", size, "is out of range", f"[1, {high}]", source)


def check_stride(instruction: str, name: str, stride: dim4, lows: dim4, highs: dim4, source: str) -> None:
    """Each stride component in ``[low, high]`` of its axis, else :class:`ParameterRangeError`."""
    for axis, value, low, high in zip("nchw", stride, lows, highs, strict=True):
        if not low <= value <= high:
            raise ParameterRangeError(instruction, f"{name}.{axis}", value, "is out of range", f"[{low}, {high}]",
                                      source)


def check_element_count(instruction: str, shape: dim4, limit: int, memory_name: str) -> None:
    """Refuse a call of more than ``limit`` elements, the size in bytes of the memory it works in.

    Such a call is legal on the hardware only with zero or overlapping strides (it must touch some
    element more than once), and emulating it element by element would need unbounded host memory,
    so npusim reports it instead (an emulator limit, not a vendor rule).
    """
    count = shape.n * shape.c * shape.h * shape.w
    if count > limit:
        raise UnsupportedError(
            instruction, "shape", shape.as_tuple(),
            f"{count} elements: more than the {limit} bytes of {memory_name}, so the strides overlap; npusim "
            "emulates at most one element per byte", f"at most {limit} elements", ELEMENT_COUNT_SOURCE,
        )  # fmt: skip


@dataclass(frozen=True)
class LocalPlacement:
    """A tensor in local memory: ``shape`` elements of ``itemsize`` bytes at ``addr`` with ``stride``."""

    addr: int
    shape: dim4
    stride: dim4
    itemsize: int

    def element_index(self, chip: Chip) -> np.ndarray:
        """Flat element index (local address / itemsize) of every element, shape ``(N, C, H, W)``."""
        lane, offset = element_lane_offset(self.addr, self.shape, self.stride, self.itemsize, chip)
        return (lane * chip.local_mem_bytes + offset) // self.itemsize

    def run_views(self, array: np.ndarray, raw: np.dtype, chip: Chip) -> tuple[np.ndarray, ...]:
        """Per channel run, the elements as a ``(N, slots, lanes, H, W)`` view of ``array`` (local
        memory's bytes or its shadow) holding ``raw`` elements (:func:`~.layout.run_view`)."""
        (lane, offset), lanes = split_address(self.addr, chip), array.view(raw).reshape(chip.npu_num, -1)
        return tuple(run_view(lanes, offset // self.itemsize, run, self.shape, self.stride)
                     for run in channel_runs(lane, self.shape.c, chip.npu_num))

    def byte_ranges(self, chip: Chip) -> list[ByteRange]:
        """The bytes of its elements, as ``"LOCAL"`` ranges (padding between them excluded)."""
        return element_ranges("LOCAL", self.element_index(chip), self.itemsize)


def place_local(
    instruction: str, chip: Chip, operand: str, addr: int, shape: dim4, stride: dim4, itemsize: int,
    alignment: int, alignment_rule: str, source: str = LOCAL_SOURCE,
) -> LocalPlacement:  # fmt: skip
    """Check a local tensor operand and return where it is.

    Args:
        operand: how messages name the address (``"dst address"``).
        stride: element strides, all non-negative (the caller checked them).
        alignment: the byte alignment ``addr`` needs; ``alignment_rule`` says why, in words.

    Raises:
        OutOfBoundsError: ``addr`` is outside the local address space, or an element lies
            past the end of its lane.
        AlignmentError: ``addr`` is not a multiple of ``alignment``.
    """
    if not 0 <= addr < chip.total_local_mem_bytes:
        raise OutOfBoundsError(
            instruction, operand, addr, "is not a local address",
            f"[0x0, {chip.total_local_mem_bytes:#x}) = NPU_NUM * LOCAL_MEM_SIZE", LOCAL_SOURCE,
        )  # fmt: skip
    if addr % alignment:
        raise AlignmentError(instruction, operand, addr, alignment_rule, f"multiples of {alignment}", source)
    start_lane, offset = split_address(addr, chip)
    end = offset + lane_span_bytes(shape, stride, start_lane, itemsize, chip)
    if end > chip.local_mem_bytes:
        raise OutOfBoundsError(
            instruction, operand, addr, f"the tensor ends at lane offset {end:#x}, past the end of the lane",
            f"a tensor ending at or before {chip.local_mem_bytes:#x}", LOCAL_SOURCE,
        )  # fmt: skip
    return LocalPlacement(addr, shape, stride, itemsize)


@dataclass(frozen=True)
class GlobalPlacement:
    """A tensor in global memory: element ``(n, c, h, w)`` at ``addr + itemsize * (n*ns + c*cs + h*hs + w*ws)``."""

    addr: int
    shape: dim4
    stride: dim4
    itemsize: int

    def element_index(self, chip: Chip | None = None) -> np.ndarray:  # chip: as LocalPlacement's, not needed
        """Flat element index (global address / itemsize) of every element, shape ``(N, C, H, W)``."""
        index = np.int64(self.addr // self.itemsize)
        for axis, (size, step) in enumerate(zip(self.shape, self.stride, strict=True)):
            shape = [1, 1, 1, 1]
            shape[axis] = size
            index = index + np.arange(size, dtype=np.int64).reshape(shape) * step
        return np.broadcast_to(index, self.shape.as_tuple())

    def byte_ranges(self, chip: Chip | None = None) -> list[ByteRange]:
        """The bytes of its elements, as ``"GLOBAL"`` ranges."""
        return element_ranges("GLOBAL", self.element_index(), self.itemsize)

    def span(self) -> tuple[int, int]:
        """Bytes ``[first, end)`` the tensor touches (strides are non-negative)."""
        last = sum((size - 1) * step for size, step in zip(self.shape, self.stride, strict=True))
        return self.addr, self.addr + self.itemsize * (last + 1)


def place_global(
    instruction: str, memory_bytes: int, operand: str, addr: int, shape: dim4, stride: dim4, itemsize: int,
    source: str,
) -> GlobalPlacement:  # fmt: skip
    """Check a global tensor operand (element-aligned, inside global memory) and return where it is.

    Raises:
        AlignmentError: ``addr`` is not a multiple of the element size.
        OutOfBoundsError: a touched byte lies outside ``[0, memory_bytes)``.
    """
    if addr < 0 or addr >= memory_bytes:
        raise OutOfBoundsError(instruction, operand, addr, "is not a global-memory address",
                               f"[0x0, {memory_bytes:#x})", source)
    if addr % itemsize:
        raise AlignmentError(instruction, operand, addr, f"must be aligned to its {itemsize}-byte element",
                             f"multiples of {itemsize}", source)
    placement = GlobalPlacement(addr, shape, stride, itemsize)
    end = placement.span()[1]
    if end > memory_bytes:
        raise OutOfBoundsError(
            instruction, operand, addr, f"the tensor ends at byte {end:#x}, past the end of global memory",
            f"a tensor ending at or before {memory_bytes:#x}", source,
        )  # fmt: skip
    return placement


class PlacedBinding:
    """What every Sophgo binding shares: no registers, and access records that are the bytes of the
    elements of its placements (the ``reads`` / ``writes`` placements a binding sets)."""

    registers_read = registers_written = ()
    chip: Chip
    read_placements: tuple[LocalPlacement | GlobalPlacement, ...] = ()
    write_placements: tuple[LocalPlacement | GlobalPlacement, ...] = ()

    @cached_attribute
    def reads(self) -> tuple[ByteRange, ...]:
        return merge_ranges(r for placement in self.read_placements for r in placement.byte_ranges(self.chip))

    @cached_attribute
    def writes(self) -> tuple[ByteRange, ...]:
        return merge_ranges(r for placement in self.write_placements for r in placement.byte_ranges(self.chip))


def element_ranges(space: str, elem_index: np.ndarray, itemsize: int) -> list[ByteRange]:
    """The bytes of the elements at ``elem_index`` (byte address / itemsize, any order, repeats allowed)."""
    return [ByteRange(space, r.start * itemsize, r.stop * itemsize)
            for r in ranges_of_addresses(space, np.asarray(elem_index).reshape(-1))]
