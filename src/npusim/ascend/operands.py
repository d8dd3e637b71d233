"""Reading and writing a strided repeat operand fast, once its plan has been checked.

After the plan step has checked bounds and overlap, an operand of a repeat
instruction is read and written through an :class:`OperandAccess`.  Two
layouts exist, chosen once per plan:

* ``"view"``: the operand is a numpy view of shape ``(repeats, 8, B)`` with byte
  strides ``(rep_stride*32, blk_stride*32, sizeof(T))`` straight over the UB
  bytes — the address formula of ref §1.1 expressed as strides, so any stride
  setting reads at numpy speed.  Masked-off lanes are covered by the view but
  never written, and excluded from the uninitialised-read check.
* ``"flat"``: the active lanes gathered by element index, in issue order.  Used
  when a full view would reach past the end of UB (only active lanes are checked
  to lie inside it) or when a destination writes some element twice (then the
  last write in issue order wins).

All operands of one plan share the layout, so instructions compute on arrays of
one shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..memory import Memory
from .addressing import BLOCK_BYTES, BLOCKS_PER_REPEAT, ActiveLanes, elems_per_block
from .footprint import Footprint

__all__ = ["Layout", "OperandAccess", "StridedOperand", "choose_layout"]

Layout = Literal["view", "flat"]
ALL_WRITTEN = {1: 0x01, 2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}


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
        values: view layout: typed raw-bits strided view ``(repeats, 8, B)``.
        shadow: view layout: the written-shadow, same shape.
        active: view layout: bool ``(repeats, 8, B)``, ``None`` when all lanes are active.
        index: element indices (byte address / itemsize) of the active lanes, issue order.
        last_index, last_pick: flat destination written twice: unique element indices and,
            for each, the position in issue order of its last write.
    """

    name: str
    itemsize: int
    layout: Layout
    values: np.ndarray | None
    shadow: np.ndarray | None
    active: np.ndarray | None
    index: np.ndarray
    last_index: np.ndarray | None = None
    last_pick: np.ndarray | None = None
    known_written: bool = False  # every active element seen written; the shadow never clears again

    @classmethod
    def build(cls, memory: Memory, operand: StridedOperand, raw: np.dtype, lanes: ActiveLanes,
              layout: Layout) -> OperandAccess:
        itemsize = raw.itemsize
        footprint = operand.footprint
        index = footprint.elem_index
        if layout == "flat":
            access = cls(footprint.name, itemsize, layout, None, None, None, index)
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
        return cls(footprint.name, itemsize, layout, values, shadow, active, index)

    def gather(self, memory: Memory, raw: np.dtype) -> np.ndarray:
        """The operand's elements: the strided view itself (no copy), or the active ones by index."""
        if self.layout == "view":
            return self.values
        return memory.data.view(raw)[self.index]

    def check_initialized(self, memory: Memory, instruction: str) -> None:
        """Report the first never-written byte among the active elements (see ``Memory``).

        Written bytes stay written for the life of the core, so once every active element
        has been seen written the check is skipped from then on.
        """
        if self.known_written or memory.uninit == "ignore" or self.index.size == 0:
            return
        if self.layout == "view":
            ok = self.shadow == ALL_WRITTEN[self.itemsize]
            if self.active is not None:
                ok |= ~self.active
            if ok.all():
                self.known_written = True
                return
        memory.check_initialized(instruction, self.name, self.index, self.itemsize)
        self.known_written = True

    def write(self, memory: Memory, result: np.ndarray) -> None:
        """Write ``result`` (in the plan's layout) to the active lanes and mark them written."""
        if self.index.size == 0:
            return
        if self.layout == "view":
            if self.active is None:
                self.values[...] = result
                if not self.known_written:
                    self.shadow[...] = ALL_WRITTEN[self.itemsize]
            else:
                np.copyto(self.values, result, where=self.active)
                if not self.known_written:
                    np.copyto(self.shadow, ALL_WRITTEN[self.itemsize], where=self.active)
        elif self.last_index is None:
            memory.scatter(self.index, result)
        else:
            memory.scatter(self.last_index, result[self.last_pick])
        self.known_written = True
