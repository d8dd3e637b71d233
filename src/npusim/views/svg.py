"""The access picture of one call, as SVG (built with the standard library's ElementTree).

Ascend layout: **x** is UB in 32-byte DataBlocks (only the blocks the call touches, a
gap column ``⋯`` where it skips some), **y** is the repeat; each repeat row has a read
half (top) and a write half (bottom).  Each operand has its colour: a written unit is
filled solid, a read unit is filled light with its colour's outline (a TransDataTo5HD list
entry carries its index, so the picture shows where each list puts its blocks); a masked-off lane
inside an operand's DataBlock is grey and crossed; bytes two operands share in one repeat
are outlined red (overlap, an in-place call included); API scratch side effects are black-hatched in their own
row.  Every unit drawn is a unit of the :class:`~npusim.views.anatomy.Anatomy`, whose
bytes are the access record's.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from .anatomy import Anatomy, OperandLanes

__all__ = ["COLOURS", "access_svg"]

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
BLOCK = 32
LEFT, TOP, ROW = 90, 70, 22


def _columns(anatomy: Anatomy) -> dict[tuple, int]:
    """Column of every touched (space, buffer, block), a gap column left between non-adjacent blocks."""
    blocks = set()
    for operand in anatomy.operands:
        starts = operand.addresses[operand.active | (operand.unit == "lane")]
        for start in np.unique(starts):
            for block in range(int(start) // BLOCK, (int(start) + operand.unit_bytes - 1) // BLOCK + 1):
                blocks.add((operand.space, operand.buffer or "", block))
    for r in (*anatomy.side_reads, *anatomy.side_writes):
        blocks.update((r.space, r.buffer or "", b) for b in range(r.start // BLOCK, (r.stop - 1) // BLOCK + 1))
    columns, column, last = {}, 0, None
    for key in sorted(blocks):
        if last is not None and (key[:2] != last[:2] or key[2] != last[2] + 1):
            column += 1  # the gap
        columns[key] = column
        column += 1
        last = key
    return columns


def access_svg(anatomy: Anatomy) -> str:
    """The picture as an SVG document (module docstring)."""
    columns = _columns(anatomy)
    width_blocks = max(columns.values(), default=0) + 1
    cell = max(4.0, min(48.0, 1400 / width_blocks))
    scratch_rows = 1 if anatomy.side_reads or anatomy.side_writes else 0
    rows = anatomy.repeats + scratch_rows
    width = LEFT + width_blocks * cell + 20
    height = TOP + rows * 2 * ROW + 30 + 20 * (len(anatomy.operands) + len(_notes(anatomy)) + 4)
    record = anatomy.record
    svg = ET.Element("svg", xmlns="http://www.w3.org/2000/svg", width=f"{width:.0f}", height=f"{height:.0f}",
                     viewBox=f"0 0 {width:.0f} {height:.0f}", **{"font-family": "monospace", "font-size": "11"})
    ET.SubElement(svg, "title").text = f"{record.instruction} (seq {record.seq}, {record.source})"
    defs = ET.SubElement(svg, "defs")
    hatch = ET.SubElement(defs, "pattern", id="hatch", width="4", height="4", patternUnits="userSpaceOnUse")
    ET.SubElement(hatch, "path", d="M0,4 L4,0", stroke="black", **{"stroke-width": "1"})
    ET.SubElement(svg, "text", x="4", y="14").text = (f"{record.instruction}  seq {record.seq}  block {record.block}  "
                                                      f"{record.source}")
    for (space, buffer, block), column in columns.items():
        if column % max(1, int(60 / cell)) == 0:
            x = LEFT + column * cell
            label = ET.SubElement(svg, "text", x=f"{x:.1f}", y=str(TOP - 6), transform=f"rotate(-45 {x:.1f} {TOP - 6})")
            label.text = f"{space}{':' + buffer if buffer else ''} {block * BLOCK:#x}"
    gaps = sorted(set(range(width_blocks)) - set(columns.values()))
    for column in gaps:
        ET.SubElement(svg, "text", x=f"{LEFT + column * cell:.1f}", y=str(TOP + 14)).text = "⋯"
    for repeat in range(anatomy.repeats):
        ET.SubElement(svg, "text", x="4", y=str(TOP + repeat * 2 * ROW + 15)).text = f"repeat {repeat} R"
        ET.SubElement(svg, "text", x="4", y=str(TOP + repeat * 2 * ROW + ROW + 15)).text = f"repeat {repeat} W"
    counts: dict[tuple, int] = {}
    for index, operand in enumerate(anatomy.operands):
        colour = COLOURS[index % len(COLOURS)]
        group = ET.SubElement(svg, "g", **{"class": f"operand {operand.role}", "data-operand": operand.name})
        _draw_operand(group, operand, colour, columns, cell, counts)
    _draw_overlaps(svg, counts, columns, cell)
    if scratch_rows:
        y = TOP + anatomy.repeats * 2 * ROW
        ET.SubElement(svg, "text", x="4", y=str(y + 15)).text = "scratch"
        for r in (*anatomy.side_reads, *anatomy.side_writes):
            for byte_block in range(r.start // BLOCK, (r.stop - 1) // BLOCK + 1):
                lo, hi = max(r.start, byte_block * BLOCK), min(r.stop, (byte_block + 1) * BLOCK)
                x = LEFT + columns[(r.space, r.buffer or "", byte_block)] * cell + (lo % BLOCK) * cell / BLOCK
                ET.SubElement(svg, "rect", x=f"{x:.2f}", y=str(y + 2), width=f"{(hi - lo) * cell / BLOCK:.2f}",
                              height=str(2 * ROW - 4), fill="url(#hatch)", stroke="black",
                              **{"class": "scratch", "stroke-width": "0.5"})
    _legend(svg, anatomy, TOP + rows * 2 * ROW + 20)
    return ET.tostring(svg, encoding="unicode")


def _draw_operand(group, operand: OperandLanes, colour: str, columns, cell: float, counts: dict) -> None:
    write = operand.role == "write"
    for repeat in range(operand.repeats):
        y = TOP + repeat * 2 * ROW + (ROW if write else 0) + 2
        for unit, start in enumerate(operand.addresses[repeat]):
            start = int(start)
            active = bool(operand.active[repeat, unit])
            for lo in range(start, start + operand.unit_bytes, BLOCK - start % BLOCK if operand.unit == "whole"
                            else operand.unit_bytes):
                hi = min(start + operand.unit_bytes, (lo // BLOCK + 1) * BLOCK)
                key = (operand.space, operand.buffer or "", lo // BLOCK)
                if key not in columns:  # an inactive unit in no block the call touches (a masked-off int4b_t byte, a
                    # shorter row's padding at address -1): not drawn
                    continue
                x = LEFT + columns[key] * cell + (lo % BLOCK) * cell / BLOCK
                w = max(0.5, (hi - lo) * cell / BLOCK)
                attrs = {"x": f"{x:.2f}", "y": str(y), "width": f"{w:.2f}", "height": str(ROW - 4)}
                if active:
                    ET.SubElement(group, "rect", **attrs, fill=colour, stroke=colour,
                                  **{"fill-opacity": "1" if write else "0.3", "stroke-width": "0.5",
                                     "class": "unit", "data-repeat": str(repeat), "data-unit": str(unit)})
                    if operand.unit == "entry" and lo == start and w >= 12:  # a list entry: its index on it
                        label = ET.SubElement(group, "text", x=f"{x + w / 2:.2f}", y=str(y + ROW - 8),
                                              **{"text-anchor": "middle", "font-size": "8",
                                                 "fill": "white" if write else "black"})
                        label.text = str(unit)
                    counts.setdefault((repeat, lo, hi, key), []).append((operand.role, operand.name))
                else:
                    ET.SubElement(group, "rect", **attrs, fill="#dddddd", stroke="#999999",
                                  **{"stroke-width": "0.5", "class": "masked", "data-repeat": str(repeat)})
                    ET.SubElement(group, "path", d=f"M{x:.2f},{y} l{w:.2f},{ROW - 4}", stroke="#999999",
                                  **{"stroke-width": "0.5"})


def _draw_overlaps(svg, counts: dict, columns, cell: float) -> None:
    """Outline in red the units whose bytes two operands share in one repeat (an in-place dst and src too)."""
    for (repeat, lo, hi, key), users in counts.items():
        names = sorted({name for _, name in users})
        if len(names) < 2:
            continue
        x = LEFT + columns[key] * cell + (lo % BLOCK) * cell / BLOCK
        for role in sorted({role for role, _ in users}):
            y = TOP + repeat * 2 * ROW + (ROW if role == "write" else 0) + 1
            rect = ET.SubElement(svg, "rect", x=f"{x:.2f}", y=str(y), width=f"{(hi - lo) * cell / BLOCK:.2f}",
                                 height=str(ROW - 2), fill="none", stroke="red",
                                 **{"stroke-width": "1.5", "class": "overlap"})
            ET.SubElement(rect, "title").text = f"{' and '.join(names)} share these bytes"


def _notes(anatomy: Anatomy) -> tuple[str, ...]:
    """The table's notes the picture repeats: modes, scalars, scratch, the TransDataTo5HD mapping (not the
    register list)."""
    return anatomy.notes[1:] if anatomy.decomposed else ()


def _legend(svg, anatomy: Anatomy, y: int) -> None:
    entries = [(COLOURS[i % len(COLOURS)], f"{o.name} ({o.role}{', ' + o.note if o.note else ''})")
               for i, o in enumerate(anatomy.operands)]
    entries += [("#dddddd", "masked-off lane"), ("red", "red outline: bytes two operands share in a repeat")]
    if anatomy.side_reads or anatomy.side_writes:
        entries.append(("url(#hatch)", "API scratch side effect"))
    entries.append(("none", "x: 32-byte DataBlocks; y: repeats (R = reads, W = writes; light = read, solid = write)"))
    entries += [("none", note) for note in _notes(anatomy)]
    for i, (fill, text) in enumerate(entries):
        ET.SubElement(svg, "rect", x="4", y=str(y + 20 * i), width="14", height="14", fill=fill, stroke="black",
                      **{"stroke-width": "0.5"})
        ET.SubElement(svg, "text", x="24", y=str(y + 20 * i + 11), **{"class": "legend"}).text = text


# ------------------------------------------------------------------ Sophgo: lanes x in-lane offset
LANE_ROW_BYTES = 64  # one picture row: 64 bytes of a lane


def lanes_svg(view) -> str:
    """Sophgo LOCAL as lanes (x) by in-lane offset (y, rows of :data:`LANE_ROW_BYTES`), for one call.

    Each lane column has a read half (left, light) and a write half (right, solid); each operand
    has its colour (:data:`COLOURS`, in the order the operands are listed).  An operand's padding
    (an aligned layout's bytes between the end of a channel row and the next EU boundary) is drawn
    hatched in its colour.  Only the rows some lane touches are drawn (a ``⋯`` row where offsets
    are skipped).
    """
    record = view.record
    pieces = lambda g: (*g.offsets, *g.padding)  # noqa: E731
    touched = sorted({row for g in view.groups for a, b in pieces(g)
                      for row in range(a // LANE_ROW_BYTES, (b - 1) // LANE_ROW_BYTES + 1)})
    slots, slot, last = {}, 0, None
    for row in touched:
        if last is not None and row != last + 1:
            slot += 1  # the gap
        slots[row] = slot
        slot += 1
        last = row
    rows = max(slot, 1)
    col = max(6.0, min(24.0, 1200 / view.npu_num))
    row_h = 16.0
    names = list(dict.fromkeys((g.operand, g.role) for g in view.groups))
    width = LEFT + view.npu_num * col + 20
    height = TOP + rows * row_h + 80 + 20 * len(names)
    svg = ET.Element("svg", xmlns="http://www.w3.org/2000/svg", width=f"{width:.0f}", height=f"{height:.0f}",
                     viewBox=f"0 0 {width:.0f} {height:.0f}", **{"font-family": "monospace", "font-size": "11"})
    ET.SubElement(svg, "title").text = f"{record.instruction} (seq {record.seq}, {record.source})"
    defs = ET.SubElement(svg, "defs")
    for i in range(len(COLOURS)):
        hatch = ET.SubElement(defs, "pattern", id=f"pad{i}", width="4", height="4", patternUnits="userSpaceOnUse")
        ET.SubElement(hatch, "path", d="M0,4 L4,0", stroke=COLOURS[i], **{"stroke-width": "1"})
    ET.SubElement(svg, "text", x="4", y="14").text = (f"{record.instruction}  seq {record.seq}  {record.source}  "
                                                      f"(x: lane, y: in-lane offset, {LANE_ROW_BYTES} bytes a row)")
    for lane in range(0, view.npu_num, max(1, int(40 / col))):
        ET.SubElement(svg, "text", x=f"{LEFT + lane * col:.1f}", y=str(TOP - 8)).text = str(lane)
    for row, where in slots.items():
        ET.SubElement(svg, "text", x="4", y=f"{TOP + where * row_h + 12:.1f}").text = f"{row * LANE_ROW_BYTES:#x}"
    for gap in sorted(set(range(rows)) - set(slots.values())):
        ET.SubElement(svg, "text", x="4", y=f"{TOP + gap * row_h + 12:.1f}").text = "⋯"

    def draw(g, lane: int, a: int, b: int, write: bool, **attrs) -> None:
        x = LEFT + lane * col + (col / 2 if write else 0)
        for row in range(a // LANE_ROW_BYTES, (b - 1) // LANE_ROW_BYTES + 1):
            lo, hi = max(a, row * LANE_ROW_BYTES), min(b, (row + 1) * LANE_ROW_BYTES)
            y = TOP + slots[row] * row_h + (lo % LANE_ROW_BYTES) / LANE_ROW_BYTES * (row_h - 2)
            ET.SubElement(g, "rect", x=f"{x:.2f}", y=f"{y:.2f}", width=f"{col / 2 - 0.5:.2f}",
                          height=f"{max(2.0, (hi - lo) / LANE_ROW_BYTES * (row_h - 2)):.2f}",
                          **{"data-lane": str(lane)}, **attrs)

    for group in view.groups:
        write = group.role == "write"
        index = names.index((group.operand, group.role)) % len(COLOURS)
        g = ET.SubElement(svg, "g", **{"class": f"lanes {group.role}", "data-operand": group.operand})
        for lane in group.lanes:
            for a, b in group.offsets:
                draw(g, lane, a, b, write, fill=COLOURS[index],
                     **{"fill-opacity": "1" if write else "0.4", "class": "bytes"})
            for a, b in group.padding:
                draw(g, lane, a, b, write, fill=f"url(#pad{index})", **{"class": "padding"})
    y = TOP + rows * row_h + 20
    halves = {"read": "read: left", "write": "written: right"}
    legend = [(COLOURS[i % len(COLOURS)], f"{name or 'bytes'} ({halves[role]} half of a lane)")
              for i, (name, role) in enumerate(names)]
    legend.append(("url(#pad0)", "hatched: the operand's padding (channel rows start on EU boundaries)"))
    for i, (fill, text) in enumerate(legend):
        ET.SubElement(svg, "rect", x="4", y=str(y + 20 * i), width="14", height="14", fill=fill)
        ET.SubElement(svg, "text", x="24", y=str(y + 20 * i + 11)).text = text
    return ET.tostring(svg, encoding="unicode")
