"""Sophgo local memory as lanes by in-lane offset: where a call's LOCAL bytes lie.

A Sophgo access record gives LOCAL ranges as lane-major offsets ``lane * LOCAL_MEM_SIZE +
offset`` (docs/semantics.md §7.2).  Here they are split per lane: for each role (read,
write), the lanes that hold bytes and the in-lane offset ranges in each, lanes with the
same ranges grouped.  Gaps inside a lane's ranges are the layout's padding (an aligned
tensor's channel rows start on EU boundaries, §7.3).  GLOBAL ranges are listed as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.trace import AccessRecord, ByteRange, merge_ranges

__all__ = ["LaneGroup", "LaneView", "lane_view"]


@dataclass(frozen=True)
class LaneGroup:
    """Lanes whose bytes of one role lie at the same in-lane offsets."""

    role: str
    lanes: tuple[int, ...]
    offsets: tuple[tuple[int, int], ...]  # merged [start, stop) in-lane byte ranges


@dataclass(frozen=True)
class LaneView:
    """A Sophgo record per lane (module docstring)."""

    record: AccessRecord
    npu_num: int
    lane_bytes: int
    groups: tuple[LaneGroup, ...]
    global_ranges: tuple[tuple[str, ByteRange], ...]

    def ranges(self, role: str) -> tuple[ByteRange, ...]:
        """The LOCAL and GLOBAL bytes of this role, put back together (equals the record's)."""
        local = [ByteRange("LOCAL", lane * self.lane_bytes + a, lane * self.lane_bytes + b)
                 for g in self.groups if g.role == role for lane in g.lanes for a, b in g.offsets]
        return merge_ranges([*local, *[r for r_role, r in self.global_ranges if r_role == role]])


def lane_view(record: AccessRecord, npu_num: int, lane_bytes: int) -> LaneView:
    """Split ``record``'s LOCAL ranges per lane of a chip with ``npu_num`` lanes of ``lane_bytes`` each."""
    groups: list[LaneGroup] = []
    global_ranges: list[tuple[str, ByteRange]] = []
    for role, ranges in (("read", record.reads), ("write", record.writes)):
        per_lane: dict[int, list[tuple[int, int]]] = {}
        for r in ranges:
            if r.space != "LOCAL":
                global_ranges.append((role, r))
                continue
            start = r.start
            while start < r.stop:
                lane, offset = divmod(start, lane_bytes)
                stop = min(r.stop, (lane + 1) * lane_bytes)
                per_lane.setdefault(lane, []).append((offset, offset + stop - start))
                start = stop
        by_offsets: dict[tuple, list[int]] = {}
        for lane in sorted(per_lane):
            merged = tuple((m.start, m.stop) for m in merge_ranges(("L", a, b) for a, b in per_lane[lane]))
            by_offsets.setdefault(merged, []).append(lane)
        groups += [LaneGroup(role, tuple(lanes), offsets) for offsets, lanes in by_offsets.items()]
    return LaneView(record, npu_num, lane_bytes, tuple(groups), tuple(global_ranges))
