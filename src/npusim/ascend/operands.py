"""Reading and writing a strided repeat operand fast, once its plan has been checked.

After the plan step has checked bounds and overlap, an operand of a repeat
instruction is read and written through an :class:`OperandAccess`.  Two
layouts exist, chosen once per plan:

* ``"view"``: the operand is a numpy view of shape ``(repeats, 8, B)`` with byte
  strides ``(rep_stride*32, blk_stride*32, sizeof(T))`` straight over the UB
  bytes — the address formula of docs/semantics.md §1.1 expressed as strides.  With the
  default strides (block stride 1, repeat stride 8, or a single repeat with block
  stride 1) the view is one contiguous slice of UB and is used as it is.  Other
  strides gather the operand's DataBlocks (32 contiguous bytes each) into a
  contiguous buffer with one block copy, and scatter results back the same way,
  so the arithmetic always runs on contiguous arrays.  Masked-off lanes are
  covered by the view but never written, and excluded from the
  uninitialised-read check.
* ``"flat"``: the active lanes gathered by element index, in issue order.  Used
  when a full view would reach past the end of UB (only active lanes are checked
  to lie inside it), when a destination writes some element twice (then the
  last write in issue order wins), and by instructions whose operands have
  different element widths (Cast).  Lanes that are one ascending run of elements
  (a count form) are read and written as slices.

All operands of one plan share the layout, so instructions compute on arrays of
one shape.

Uninitialised-read checks and written-shadow updates cost a pass over the
shadow; since the shadow only gains written bytes until ``Memory.shadow_epoch``
changes, each access remembers the epoch in which it saw (or made) all its
active elements written and skips the work while the epoch is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..memory import Memory, run_start
from .addressing import BLOCK_BYTES, BLOCKS_PER_REPEAT, ActiveLanes, elems_per_block
from .footprint import Footprint

__all__ = ["ALL_WRITTEN", "BLOCK", "NEVER", "ByteSpan", "ElementRuns", "Layout", "OperandAccess", "StridedOperand",
           "choose_layout", "element_runs"]

Layout = Literal["view", "flat"]
ALL_WRITTEN = {1: 0x01, 2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}
BLOCK = np.dtype(f"V{BLOCK_BYTES}")  # one DataBlock as an opaque 32-byte item
NEVER = -1  # an epoch no memory has


@dataclass(frozen=True)
class StridedOperand:
    """Where an operand lives: its base byte address, footprint and DataBlock strides."""

    base: int
    footprint: Footprint
    blk_stride: int
    rep_stride: int

    def view_end(self, lanes: ActiveLanes) -> int:
        """One past the highest byte a full ``(repeats, 8, B)`` view covers."""
        if lanes.repeats == 0:
            return self.base
        last_block = (lanes.repeats - 1) * self.rep_stride + (BLOCKS_PER_REPEAT - 1) * self.blk_stride
        return self.base + (last_block + 1) * BLOCK_BYTES

    def is_dense(self, repeats: int) -> bool:
        """The full view is one contiguous run of bytes (default strides)."""
        return self.blk_stride == 1 and (self.rep_stride == BLOCKS_PER_REPEAT or repeats <= 1)


def choose_layout(memory: Memory, operands: list[StridedOperand], lanes: ActiveLanes,
                  destination: StridedOperand | None) -> Layout:
    """``"view"`` when every full view lies in memory and ``destination`` writes no element twice."""
    if any(op.view_end(lanes) > memory.size_bytes for op in operands):
        return "flat"
    if destination is not None:
        addrs = destination.footprint.addrs
        if addrs.size and np.unique(addrs).size != addrs.size:
            return "flat"
    return "view"


@dataclass
class OperandAccess:
    """One operand's elements and written-shadow in the plan's layout.

    Attributes:
        name: operand name for messages.
        itemsize: element size in bytes.
        layout: ``"view"`` or ``"flat"``.
        values: view layout: typed raw-bits strided view ``(repeats, 8, B)`` over UB.
        shadow: view layout: the written-shadow, same shape.
        active: view layout: bool ``(repeats, 8, B)``, ``None`` when all lanes are active.
        index: element indices (byte address / itemsize) of the active lanes, issue order.
        blocks: view layout, non-default strides: the operand's DataBlocks as a ``(repeats, 8)``
            view of 32-byte items; ``None`` when ``values`` is contiguous.
        buffer: view layout, non-default strides or masked lanes: a contiguous ``(repeats, 8, B)``
            array that gathered reads land in and results are computed into before they are
            scattered; ``None`` otherwise.
        buffer_blocks: ``buffer`` as ``(repeats, 8)`` 32-byte items (the partner of ``blocks``).
        last_index, last_pick: flat destination written twice: unique element indices and,
            for each, the position in issue order of its last write.
        run_start: flat layout whose lanes are the consecutive elements ``index[0], index[0] + 1, ...``:
            ``index[0]`` (read and written as slices); ``None`` otherwise.
        run_values, run_shadow: with ``run_start``: the run's elements (raw type) and its bytes' shadow, as
            views of memory made once (every call would otherwise make them anew).
        seen_written: the memory's ``shadow_epoch`` in which every active element was seen (or
            made) written, ``NEVER`` if not yet.
    """

    name: str
    itemsize: int
    layout: Layout
    values: np.ndarray | None
    shadow: np.ndarray | None
    active: np.ndarray | None
    index: np.ndarray
    blocks: np.ndarray | None = None
    buffer: np.ndarray | None = None
    buffer_blocks: np.ndarray | None = None
    last_index: np.ndarray | None = None
    last_pick: np.ndarray | None = None
    run_start: int | None = None
    run_values: np.ndarray | None = None
    run_shadow: np.ndarray | None = None
    seen_written: int = NEVER

    @classmethod
    def build(cls, memory: Memory, operand: StridedOperand, raw: np.dtype, lanes: ActiveLanes,
              layout: Layout) -> OperandAccess:
        itemsize = raw.itemsize
        footprint = operand.footprint
        index = footprint.elem_index
        if layout == "flat":
            access = cls(footprint.name, itemsize, layout, None, None, None, index)
            start = access.run_start = run_start(index)
            if start is not None:
                access.run_values = memory.data.view(raw)[start : start + index.size]
                access.run_shadow = memory.written[start * itemsize : (start + index.size) * itemsize]
                return access
            unique, first = np.unique(index[::-1], return_index=True)
            if unique.size != index.size:
                access.last_index, access.last_pick = unique, index.size - 1 - first
            return access
        shape = (lanes.repeats, BLOCKS_PER_REPEAT, elems_per_block(itemsize))
        strides = (operand.rep_stride * BLOCK_BYTES, operand.blk_stride * BLOCK_BYTES, itemsize)
        values = np.ndarray(shape, raw, buffer=memory.data, offset=operand.base, strides=strides)
        shadow = np.ndarray(shape, np.dtype(f"<u{itemsize}"), buffer=memory.written, offset=operand.base,
                            strides=strides)
        active = None if lanes.mask is None else lanes.mask.reshape(shape)
        blocks = buffer = buffer_blocks = None
        if not operand.is_dense(lanes.repeats):
            blocks = np.ndarray(shape[:2], BLOCK, buffer=memory.data, offset=operand.base, strides=strides[:2])
        if blocks is not None or active is not None:
            buffer = np.empty(shape, raw)
            buffer_blocks = buffer.view(BLOCK).reshape(shape[:2])
        return cls(footprint.name, itemsize, layout, values, shadow, active, index, blocks, buffer, buffer_blocks)

    # ------------------------------------------------------------------ reads
    def gather(self, memory: Memory, raw: np.dtype) -> np.ndarray:
        """The operand's elements: contiguous ``(repeats, 8, B)`` (view layout) or the active ones by index.

        Default strides return the UB view itself (no copy); other strides gather the
        DataBlocks into :attr:`buffer`, which the next call overwrites.
        """
        if self.layout == "flat":
            if self.run_values is not None:  # a copy, as the index gather gives
                return self._run(memory, raw).copy()
            return memory.data.view(raw)[self.index]
        if self.blocks is None:
            return self.values
        self.buffer_blocks[...] = self.blocks
        return self.buffer

    def read(self, memory: Memory, raw: np.ndarray) -> np.ndarray:
        """:meth:`gather`, except that a flat run of elements is a view of memory, not a copy: for a caller that
        has done with the values before anything is written."""
        if self.run_values is not None:
            return self._run(memory, raw)
        return self.gather(memory, raw)

    def _run(self, memory: Memory, raw: np.dtype) -> np.ndarray:
        """A flat run's elements as a view: the one made with the access, or one made now for another raw type."""
        if raw == self.run_values.dtype:
            return self.run_values
        return memory.data.view(raw)[self.run_start : self.run_start + self.index.size]

    def active_values(self, gathered: np.ndarray) -> np.ndarray:
        """The active lanes of what :meth:`gather` returned, in issue order."""
        if self.layout == "view" and self.active is not None:
            return gathered[self.active]
        return gathered

    def check_initialized(self, memory: Memory, instruction: str) -> None:
        """Report the first never-written byte among the active elements (see ``Memory``)."""
        if self.seen_written == memory.shadow_epoch or memory.uninit == "ignore" or self.index.size == 0:
            return
        if self.layout == "view":
            ok = self.shadow == ALL_WRITTEN[self.itemsize]
            if self.active is not None:
                ok |= ~self.active
            if ok.all():
                self.seen_written = memory.shadow_epoch
                return
        memory.check_initialized(instruction, self.name, self.index, self.itemsize)
        self.seen_written = memory.shadow_epoch

    # ----------------------------------------------------------------- writes
    def output(self) -> np.ndarray:
        """Where to compute a result in the view layout.

        The UB view itself when it is contiguous and every lane is active (computing into
        it *is* the write; the caller must have read every source first), else
        :attr:`buffer`.
        """
        if self.blocks is None and self.active is None:
            return self.values
        return self.buffer

    def write(self, memory: Memory, result: np.ndarray) -> None:
        """Write ``result`` (in the plan's layout) to the active lanes and mark them written.

        ``result`` may be :meth:`output`'s array; when that is the UB view the values are
        already in place and only the shadow is updated.
        """
        if self.index.size == 0:
            return
        if self.layout == "view":
            if self.active is not None:
                np.copyto(self.values, result, where=self.active)
            elif self.blocks is not None:
                if result is not self.buffer:
                    self.buffer[...] = result
                self.blocks[...] = self.buffer_blocks
            elif result is not self.values:
                self.values[...] = result
            if self.seen_written != memory.shadow_epoch:
                if self.active is None:
                    self.shadow[...] = ALL_WRITTEN[self.itemsize]
                else:
                    np.copyto(self.shadow, ALL_WRITTEN[self.itemsize], where=self.active)
        elif self.run_values is not None:
            self.run_values[...] = result
            if self.seen_written != memory.shadow_epoch:  # the shadow's bytes are set until the epoch moves on
                self.run_shadow[...] = 1
        elif self.last_index is None:
            memory.scatter(self.index, result)
        else:
            memory.scatter(self.last_index, result[self.last_pick])
        self.seen_written = memory.shadow_epoch


@dataclass
class ByteSpan:
    """A run of bytes ``[start, stop)`` an instruction reads or writes whole, already bounds-checked.

    Used for packed bit streams (a Select's selMask, a Compare's bitmask) and the API
    scratch.  Like :class:`OperandAccess`, it remembers the shadow epoch in which its
    bytes were seen or made written, and skips the shadow work until the epoch changes.
    """

    name: str
    start: int
    stop: int
    seen_written: int = NEVER

    def read(self, memory: Memory) -> np.ndarray:
        """The bytes, as a view of memory (no copy)."""
        return memory.data[self.start : self.stop]

    def check_initialized(self, memory: Memory, instruction: str) -> None:
        """Report the first never-written byte (see ``Memory``); like every access, once per epoch."""
        if self.seen_written == memory.shadow_epoch or memory.uninit == "ignore":
            return
        memory.check_initialized_span(instruction, self.name, self.start, self.stop)
        self.seen_written = memory.shadow_epoch

    def write(self, memory: Memory, raw: np.ndarray) -> None:
        """Store ``raw`` (uint8, ``stop - start`` bytes) and mark the span written."""
        memory.data[self.start : self.stop] = raw
        if self.seen_written != memory.shadow_epoch:
            memory.mark_written(self.start, self.stop)
            self.seen_written = memory.shadow_epoch


@dataclass(frozen=True)
class ElementRuns:
    """Element indices (issue order) as a few ascending runs of consecutive elements, written as slices.

    Attributes:
        runs: per run, ``(first element index, start, stop)``: the values ``[start, stop)`` go to the elements
            from the first on.  Runs are stored in issue order, so an element two runs write ends holding the
            later run's value, as :meth:`Memory.scatter` leaves it.
    """

    runs: tuple[tuple[int, int, int], ...]

    def store(self, memory: Memory, values: np.ndarray, marked: bool = False) -> None:
        """:meth:`Memory.scatter` of ``values`` (1-D, in the indices' order) to the indices, run by run
        (``marked``: the elements are known written in this shadow epoch; only the values are stored)."""
        if marked:
            typed = memory.data.view(values.dtype)
            for first, start, stop in self.runs:
                typed[first : first + stop - start] = values[start:stop]
            return
        for first, start, stop in self.runs:
            memory.store_run(first, values[start:stop])


def element_runs(index: np.ndarray, most: int = 16) -> ElementRuns | None:
    """``index`` (1-D element indices) as :class:`ElementRuns`, or ``None`` when it has more than ``most`` runs."""
    if not index.size:
        return ElementRuns(())
    breaks = np.flatnonzero(np.diff(index) != 1) + 1
    if breaks.size >= most:
        return None
    starts, stops = np.r_[0, breaks], np.r_[breaks, index.size]
    return ElementRuns(tuple((int(index[a]), int(a), int(b)) for a, b in zip(starts, stops, strict=True)))
