"""Sophgo local memory as lanes by in-lane offset: where a call's LOCAL bytes lie, operand by operand.

A Sophgo access record gives LOCAL ranges as lane-major offsets ``lane * LOCAL_MEM_SIZE +
offset`` (docs/semantics.md §7.2), all operands merged.  Here they are split per lane and
given back to their operands: the call is bound again on a scratch core
(:func:`.replan.sophgo_operands`), and each operand's placement says which bytes are its own.
For each operand, the lanes that hold its bytes and the in-lane offset ranges in each, lanes
with the same ranges grouped, and its **padding**: in an aligned layout every channel row
starts on an EU boundary (§7.3), so the bytes from the end of a row's ``h * w`` elements to
its channel stride belong to the tensor but hold no element.  GLOBAL ranges are listed as they
are.  Attribution is shown only if the operands' bytes together are exactly the record's;
otherwise (a call that cannot be planned again) the ranges are split per lane unattributed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.trace import AccessRecord, ByteRange, merge_ranges
from .anatomy import subtract_ranges

__all__ = ["LaneGroup", "LaneView", "lane_view"]


@dataclass(frozen=True)
class LaneGroup:
    """Lanes whose bytes of one operand and role lie at the same in-lane offsets.

    Attributes:
        role: ``"read"`` or ``"write"``.
        lanes: the lanes.
        offsets: merged ``[start, stop)`` in-lane byte ranges of its elements.
        operand: the operand's name (``"src0"``), ``""`` when the bytes are not attributed.
        kind: ``"TENSOR"`` or ``"VECTOR"`` (one element per lane), ``""`` when not attributed.
        padding: merged in-lane ranges of the operand's layout that hold none of its elements.
    """

    role: str
    lanes: tuple[int, ...]
    offsets: tuple[tuple[int, int], ...]
    operand: str = ""
    kind: str = ""
    padding: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class LaneView:
    """A Sophgo record per lane (module docstring).

    ``global_ranges``: ``(role, range, operand)`` of every GLOBAL range (operand ``""`` when not attributed).
    """

    record: AccessRecord
    npu_num: int
    lane_bytes: int
    groups: tuple[LaneGroup, ...]
    global_ranges: tuple[tuple[str, ByteRange, str], ...]

    @property
    def attributed(self) -> bool:
        return all(g.operand for g in self.groups)

    def ranges(self, role: str) -> tuple[ByteRange, ...]:
        """The LOCAL and GLOBAL bytes of this role, put back together (equals the record's)."""
        local = [ByteRange("LOCAL", lane * self.lane_bytes + a, lane * self.lane_bytes + b)
                 for g in self.groups if g.role == role for lane in g.lanes for a, b in g.offsets]
        return merge_ranges([*local, *[r for r_role, r, _ in self.global_ranges if r_role == role]])


def _per_lane(ranges, lane_bytes: int) -> dict[int, tuple[tuple[int, int], ...]]:
    """LOCAL ranges as merged in-lane ranges per lane."""
    per_lane: dict[int, list[tuple[int, int]]] = {}
    for r in ranges:
        start = r.start
        while start < r.stop:
            lane, offset = divmod(start, lane_bytes)
            stop = min(r.stop, (lane + 1) * lane_bytes)
            per_lane.setdefault(lane, []).append((offset, offset + stop - start))
            start = stop
    return {lane: tuple((m.start, m.stop) for m in merge_ranges(("L", a, b) for a, b in pieces))
            for lane, pieces in sorted(per_lane.items())}


def _padding(placement, chip) -> dict[int, list[tuple[int, int]]]:
    """Per lane, the in-lane bytes from the end of each channel row's ``h * w`` elements to its channel stride:
    an aligned layout's padding (docs/semantics.md §7.3).  None for a layout whose rows are not compact."""
    shape, stride, size = placement.shape, placement.stride, placement.itemsize
    row = shape.h * shape.w
    if stride.w != 1 or stride.h != shape.w or stride.c <= row:
        return {}
    first = placement.element_index(chip)[:, :, 0, 0].reshape(-1) * size  # each channel row's first byte
    padding: dict[int, list[tuple[int, int]]] = {}
    for lane, offset in zip(*np.divmod(first, chip.local_mem_bytes), strict=True):
        padding.setdefault(int(lane), []).append((int(offset) + row * size, int(offset) + stride.c * size))
    return padding


def _minus(pieces, taken) -> tuple[tuple[int, int], ...]:
    left = subtract_ranges(merge_ranges(("L", a, b) for a, b in pieces), merge_ranges(("L", a, b) for a, b in taken))
    return tuple((r.start, r.stop) for r in left)


def _attributed(record: AccessRecord, chip) -> LaneView | None:
    from .replan import sophgo_operands

    operands = sophgo_operands(record, chip.name)
    if operands is None:
        return None
    groups: list[LaneGroup] = []
    global_ranges: list[tuple[str, ByteRange, str]] = []
    for operand in operands:
        ranges = operand.placement.byte_ranges(chip)
        if operand.kind == "GLOBAL":
            global_ranges += [(operand.role, r, operand.name) for r in ranges]
            continue
        padding = _padding(operand.placement, chip)
        by_offsets: dict[tuple, list[int]] = {}
        for lane, offsets in _per_lane(ranges, chip.local_mem_bytes).items():
            by_offsets.setdefault((offsets, _minus(padding.get(lane, ()), offsets)), []).append(lane)
        groups += [LaneGroup(operand.role, tuple(lanes), offsets, operand.name, operand.kind, pad)
                   for (offsets, pad), lanes in by_offsets.items()]
    view = LaneView(record, chip.npu_num, chip.local_mem_bytes, tuple(groups), tuple(global_ranges))
    exact = all(view.ranges(role) == merge_ranges(getattr(record, f"{role}s")) for role in ("read", "write"))
    return view if exact else None


def lane_view(record: AccessRecord, chip) -> LaneView:
    """Split ``record``'s LOCAL ranges per operand and lane of ``chip`` (a Sophgo chip), or per lane only."""
    view = _attributed(record, chip)
    if view is not None:
        return view
    groups: list[LaneGroup] = []
    global_ranges: list[tuple[str, ByteRange, str]] = []
    for role, ranges in (("read", record.reads), ("write", record.writes)):
        global_ranges += [(role, r, "") for r in ranges if r.space != "LOCAL"]
        by_offsets: dict[tuple, list[int]] = {}
        for lane, offsets in _per_lane([r for r in ranges if r.space == "LOCAL"], chip.local_mem_bytes).items():
            by_offsets.setdefault(offsets, []).append(lane)
        groups += [LaneGroup(role, tuple(lanes), offsets) for offsets, lanes in by_offsets.items()]
    return LaneView(record, chip.npu_num, chip.local_mem_bytes, tuple(groups), tuple(global_ranges))
