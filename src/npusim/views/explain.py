"""An access record explained: a table per repeat and, on request, a picture.

``npusim.explain(record)`` (or ``npusim explain CASE.json`` / ``TRACE.json``) returns an
:class:`Explanation`; ``str()`` of it is the table::

    add  seq 0  pipe V  kernel.py:9
      params: mask=64 repeat_times=2 repeat_params={...}
      registers read: MASK_MODE, CTRL; written: MASK
      repeat  operand  role   active      masked off    bytes
      0       dst      write  lanes 0-63  lanes 64-127  UB[0x400, 0x480)
      ...

Every byte range in it is one of the access record's (:mod:`.anatomy`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..engine.trace import AccessRecord
from .anatomy import Anatomy, OperandLanes, anatomy, destination_sources
from .lanes import LaneView, lane_view

__all__ = ["Explanation", "LaneExplanation", "explain", "spans"]


def spans(indices) -> str:
    """Sorted indices as runs: ``[0, 1, 2, 5, 7, 9, 11, 12]`` is ``"0-2, 5-11 step 2, 12"`` (``"-"`` when empty).

    Greedy: each run is the longest arithmetic progression from its first index; a run of
    fewer than three indices is written out.
    """
    items = [int(i) for i in indices]
    if not items:
        return "-"
    parts, i = [], 0
    while i < len(items):
        j = i + 1
        if j < len(items):
            step = items[j] - items[i]
            while j + 1 < len(items) and items[j + 1] - items[j] == step:
                j += 1
        if j - i + 1 >= 3:
            parts.append(f"{items[i]}-{items[j]}" + ("" if step == 1 else f" step {step}"))
            i = j + 1
        else:
            parts.append(str(items[i]))
            i += 1
    return ", ".join(parts)


def _ranges_text(ranges) -> str:
    return " ".join(repr(r) for r in ranges) or "-"


def _unit_rows(operand: OperandLanes, repeat: int) -> tuple[str, str]:
    if operand.unit == "whole":
        return "all bytes", "-"
    active = operand.active[repeat]
    word = {"lane": "lanes", "byte": "bytes", "entry": "entries"}[operand.unit]
    return f"{word} {spans(np.flatnonzero(active))}", f"{word} {spans(np.flatnonzero(~active))}" if (~active).any() \
        else "-"


def _header(record: AccessRecord) -> list[str]:
    """The first lines of a table: which call, where from, and its parameters."""
    params = " ".join(f"{k}={json.dumps(v)}" for k, v in record.params.items())
    return [f"{record.instruction}  seq {record.seq}  block {record.block}  pipe {record.pipe}  {record.source}",
            f"  params: {params}"]


@dataclass(frozen=True)
class LaneExplanation:
    """What one Sophgo call touched, lane by lane (:mod:`.lanes`)."""

    view: LaneView

    @property
    def record(self) -> AccessRecord:
        return self.view.record

    def table(self) -> str:
        view = self.view
        lines = [*_header(self.record),
                 f"  LOCAL: {view.npu_num} lanes x {view.lane_bytes:#x} bytes; offsets are in-lane"]
        if not view.attributed:
            lines.append("  (the call could not be planned again: its bytes are not attributed to operands)")
        for group in view.groups:
            offsets = " ".join(f"[{a:#x}, {b:#x})" for a, b in group.offsets)
            who = f"  {group.operand} ({group.kind})" if group.operand else ""
            padding = "  padding " + " ".join(f"[{a:#x}, {b:#x})" for a, b in group.padding) if group.padding else ""
            lines.append(f"  {group.role:<5}{who}  lanes {spans(group.lanes)}: {offsets}{padding}")
        lines += [f"  {role:<5}{'  ' + name if name else ''}  {r!r}" for role, r, name in view.global_ranges]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def svg(self) -> str:
        from .svg import lanes_svg

        return lanes_svg(self.view)

    def png(self) -> bytes:
        """The picture as PNG (:mod:`.png`: needs the ``png`` extra)."""
        from .png import svg_to_png

        return svg_to_png(self.svg())


@dataclass(frozen=True)
class Explanation:
    """What one call touched, repeat by repeat (module docstring)."""

    anatomy: Anatomy

    @property
    def record(self) -> AccessRecord:
        return self.anatomy.record

    def rows(self) -> list[tuple[str, ...]]:
        """Table rows: repeat, operand, role, active units, masked-off units, byte ranges."""
        rows = []
        for repeat in range(self.anatomy.repeats):
            for operand in self.anatomy.operands:
                if repeat >= operand.repeats:
                    continue
                active, masked = _unit_rows(operand, repeat)
                rows.append((str(repeat), operand.name, operand.role, active, masked,
                             _ranges_text(operand.repeat_ranges(repeat))))
        return rows

    def table(self) -> str:
        lines = _header(self.record)
        lines += [f"  {note}" for note in self.anatomy.notes]
        lines += [f"  {o.name}: {o.note}" for o in self.anatomy.operands if o.note]
        header = ("repeat", "operand", "role", "active", "masked off", "bytes")
        rows = [header, *self.rows()]
        widths = [max(len(row[i]) for row in rows) for i in range(len(header) - 1)]
        for row in rows:
            lines.append("  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=False)) + "  " + row[-1])
        for role, side in (("reads", self.anatomy.side_reads), ("writes", self.anatomy.side_writes)):
            if side:
                lines.append(f"  side effect (API scratch) {role}: {_ranges_text(side)}")
        lines += self._where_rows_go()
        return "\n".join(lines)

    def _where_rows_go(self) -> list[str]:
        """TransDataTo5HD with its lists in the record: which source elements each destination entry takes."""
        parts = self.anatomy
        names = {o.name for o in parts.operands}
        if not parts.decomposed or names != {"src", "dst"} or parts.operands[0].unit != "entry":
            return []
        lines = ["  where the rows go (dst entry <- (src entry, element) of each element, in order):"]
        for repeat, entry, taken in destination_sources(parts):
            if len({element for _, element in taken}) == 1:
                text = f"element {taken[0][1]} of src entries {spans([i for i, _ in taken])}"
            else:
                text = ", ".join(f"S{i}[{k}]" for i, k in taken)
            lines.append(f"    repeat {repeat}  dst entry {entry:<2} <- {text}")
        return lines

    def __str__(self) -> str:
        return self.table()

    def svg(self) -> str:
        """The access picture (:func:`npusim.views.svg.access_svg`)."""
        from .svg import access_svg

        return access_svg(self.anatomy)

    def png(self) -> bytes:
        """The access picture as PNG (:mod:`.png`: needs the ``png`` extra)."""
        from .png import svg_to_png

        return svg_to_png(self.svg())


def explain(record: AccessRecord, chip: str | None = None) -> Explanation | LaneExplanation:
    """Explain one access record (``core.trace[i]``): per repeat, the bytes each operand touched.

    ``chip`` names the chip the call ran on (default: the vendor's default chip): an Ascend
    record's select, compare and TransDataTo5HD calls are planned again on it (:mod:`.replan`);
    a Sophgo record is shown lane by lane, with its chip's lanes and ``LOCAL_MEM_SIZE``.
    """
    if not isinstance(record, AccessRecord):
        raise TypeError(f"explain: record must be an AccessRecord (an entry of core.trace), got "
                        f"{type(record).__name__}")
    if record.vendor == "sophgo":
        from ..sophgo.chips import get_chip, get_default_chip

        product = get_default_chip() if chip is None else get_chip(chip)
        return LaneExplanation(lane_view(record, product))
    return Explanation(anatomy(record, chip))
