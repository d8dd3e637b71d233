"""One access record split into repeats, DataBlocks and lanes.

An access record (:class:`~npusim.engine.trace.AccessRecord`) gives the merged byte ranges
a call read and wrote.  Its *anatomy* says which lane of which repeat of which operand
each byte belongs to.  The geometry comes from the instruction itself: the call is planned
and bound again from the record's parameters (:mod:`.replan`) and the anatomy reads the
plan — its lanes, element sizes, strides, selMask footprint, bitmask bytes, result slots,
API scratch, TransDataTo5HD layout; lanes are placed by the Ascend addressing layer's one
formula (:func:`~npusim.ascend.addressing.lane_offsets`, docs/semantics.md §1.1-1.4).  Which
rule applies follows the registry (:func:`rule_for`: the instruction's family, or its C API
alias's instruction).

An anatomy is only ever shown when it reproduces the record: the bytes of its operands
and of the side effects the plan names (the API scratch of Select's modes 1 and 2,
docs/semantics.md §2.3; the 950's compare staging, §3.5) are exactly the record's reads and
writes.  A call it cannot decompose (an instruction it has no rule for, a mask form on a
core in counter mode, parameters it cannot read back, a rule that fails in any way) gets the
record's ranges as one operand per range, marked ``whole``: :func:`anatomy` never raises.

Rules (by the instruction's family):

* element-wise (:data:`ELEMENTWISE_FAMILIES`: arith, logic, compound, cast, fill; and Copy),
  whose plan is a lane plan (:func:`_lane_geometry`): every operand per lane at its own element
  size and strides, dst also read where the plan reads it; int4b_t operands per byte; the 950's
  scalar tensor element once; int16 -> b8 per the plan's half-block placement and its vdeq table;
  AddDeqRelu's staged intermediates (per active lane) and its API scratch (a side effect);
* the per-repeat reductions (``reduce``: whole/block/pair/repeat reduce): src per lane, dst per
  result slot (:func:`_reduction`);
* ``select`` (and ``asc_select``): dst and the sources per lane; ``sel_mask`` per byte as
  the plan reads it — modes 1 and 2 ``E / 8`` bytes per repeat, consumed continuously
  (bit ``r * E + j``), mode 0 its first 16 bytes loaded into CMPMASK; the scratch as a
  side effect (docs/semantics.md §2.1-2.3);
* the compares (``compare``, ``compare_scalar``, ``asc_<cmp>[_scalar]``): sources per lane,
  ``dst`` ``E / 8`` bytes per repeat at ``dst + r * E / 8``, or CMPMASK (§3.1, §3.5);
* TransDataTo5HD (list forms and the C API): one unit per list entry, 16 source and 16
  destination (half-)DataBlocks per repeat, and which source elements each destination
  entry takes (:func:`destination_sources`, §4); the address-tensor form: its two tables,
  the entries it rewrites, and the moved blocks in address order (the lists are UB data).

Lanes a form takes from the vector mask register (whose value no record holds) are
planned all active, and those the record shows are kept (:func:`_shown_lanes`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..engine.trace import AccessRecord, ByteRange, merge_ranges, ranges_of_addresses
from .replan import replan

__all__ = ["ELEMENTWISE_FAMILIES", "Anatomy", "OperandLanes", "anatomy", "rule_for", "subtract_ranges"]

@dataclass(frozen=True)
class OperandLanes:
    """Where one operand's units (lanes, or bytes of a bit mask) lie, repeat by repeat.

    Attributes:
        name: the parameter name (``"dst"``, ``"src0"``, ``"sel_mask"``).
        role: ``"read"`` or ``"write"``.
        unit: ``"lane"`` (an element) or ``"byte"`` (8 bits of a mask), or ``"whole"`` (a
            record range that was not decomposed).
        unit_bytes: bytes per unit.
        addresses: ``(repeats, units)`` UB byte address of each unit's first byte.
        active: ``(repeats, units)`` bool: the unit is accessed (False: masked off).
        per_block: units per 32-byte DataBlock (0 when DataBlocks do not apply).
        space, buffer: the memory space (``"UB"``, ``"GM"`` ...) and GM buffer.
        note: how the units are consumed (``"bits r*128 + j"``), for tables.
    """

    name: str
    role: str
    unit: str
    unit_bytes: int
    addresses: np.ndarray
    active: np.ndarray
    per_block: int = 0
    space: str = "UB"
    buffer: str | None = None
    note: str = ""

    @property
    def repeats(self) -> int:
        return self.addresses.shape[0]

    def repeat_ranges(self, repeat: int | None = None) -> tuple[ByteRange, ...]:
        """Merged byte ranges of the active units (of one repeat, or of all)."""
        addrs = self.addresses if repeat is None else self.addresses[repeat:repeat + 1]
        active = self.active if repeat is None else self.active[repeat:repeat + 1]
        starts = addrs[active]
        if starts.size == 0:
            return ()
        if self.unit == "whole":
            return merge_ranges((self.space, int(a), int(a) + self.unit_bytes, self.buffer) for a in starts)
        every = (starts[:, None] + np.arange(self.unit_bytes)[None, :]).reshape(-1)
        return merge_ranges(ranges_of_addresses(self.space, every, self.buffer))

    def locate(self, byte: int, space: str = "UB", buffer: str | None = None) -> tuple[int, int] | None:
        """``(repeat, unit)`` of the last active unit that holds ``byte``, or None."""
        if space != self.space or buffer != self.buffer:
            return None
        hit = self.active & (self.addresses <= byte) & (byte < self.addresses + self.unit_bytes)
        found = np.argwhere(hit)
        if found.size == 0:
            return None
        repeat, unit = found[-1]
        return int(repeat), int(unit)


@dataclass(frozen=True)
class Anatomy:
    """A record split per repeat (module docstring).

    Attributes:
        record: the record explained.
        repeats: repeats the call issued; lanes: ``E``, lanes per repeat (0 if none apply).
        operands: every operand's units.
        side_reads, side_writes: the record's bytes no operand accounts for (API scratch).
        notes: registers and modes, one line each.
        decomposed: False when the record's ranges are shown whole (module docstring).
        chip: the chip the call ran on (None: the default chip).
    """

    record: AccessRecord
    repeats: int
    lanes: int
    operands: tuple[OperandLanes, ...]
    side_reads: tuple[ByteRange, ...] = ()
    side_writes: tuple[ByteRange, ...] = ()
    notes: tuple[str, ...] = field(default=())
    decomposed: bool = True
    chip: str | None = None

    def ranges(self, role: str) -> tuple[ByteRange, ...]:
        """Every byte of this role, operands and side effects together (equals the record's)."""
        side = self.side_reads if role == "read" else self.side_writes
        return merge_ranges([*[r for o in self.operands if o.role == role for r in o.repeat_ranges()], *side])


def subtract_ranges(ranges, taken) -> tuple[ByteRange, ...]:
    """The bytes of ``ranges`` outside ``taken`` (both merged range lists)."""
    left: list[ByteRange] = []
    for item in ranges:
        pieces = [item]
        for cut in taken:
            if cut.space != item.space or cut.buffer != item.buffer:
                continue
            pieces = [part for piece in pieces for part in (
                piece._replace(stop=min(piece.stop, cut.start)), piece._replace(start=max(piece.start, cut.stop)))
                if part.stop > part.start]
        left.extend(pieces)
    return merge_ranges(left)


# ------------------------------------------------------------------ rules
#: what a rule gives: the operands, notes, and the side effects (reads, writes) the plan says it has
Built = tuple[list[OperandLanes], list[str], tuple[ByteRange, ...], tuple[ByteRange, ...]]


# ------------------------------------------------------------------ rules from the instruction's own plan
def _active_grid(lanes) -> np.ndarray:
    """``(repeats, E)`` active lanes of a plan's :class:`~npusim.ascend.addressing.ActiveLanes`."""
    return np.ones((lanes.repeats, lanes.lanes), bool) if lanes.mask is None else np.array(lanes.mask)


@dataclass(frozen=True)
class _LaneGeometry:
    """What an element-wise plan says of its operands (in footprint order: dst, then the sources).

    Attributes:
        lanes: the call's ActiveLanes.
        strides: each operand's ``(block stride, repeat stride)`` in DataBlocks.
        reads_dst: dst is also an input (the multiply-adds).
        placed: per operand, every lane's offset from its tensor, ``(repeats, E)``, where the plan does not place
            lanes by the one formula (``None``: :func:`~npusim.ascend.addressing.lane_offsets`).
        per_block: per operand, lanes a DataBlock, where not ``32 / size``.
        table_entries: the 8-byte entries of a parameter table the call reads at an address a register holds
            (the vdeq table of int16 -> b8 with is_vec_deq, at DEQSCALE's address), 0 for none.
    """

    lanes: object
    strides: tuple
    reads_dst: bool = False
    placed: tuple | None = None
    per_block: tuple | None = None
    table_entries: int = 0


def _lane_geometry(plan) -> _LaneGeometry | None:
    """The geometry of an element-wise plan (:class:`~npusim.ascend.ops.elementwise.VectorPlan`,
    :class:`~npusim.ascend.ops.cast.CastPlan`, the int16 -> b8 :class:`~npusim.ascend.ops.dequant.B8Plan`), or
    None for a plan of another shape."""
    from ..ascend.addressing import ActiveLanes
    from ..ascend.ops.cast import CastPlan
    from ..ascend.ops.dequant import VDEQ_ENTRIES, B8Plan, _b8_footprints
    from ..ascend.ops.elementwise import VectorPlan

    if isinstance(plan, VectorPlan):
        return _LaneGeometry(plan.lanes, plan.strides, plan.op.reads_dst)
    if isinstance(plan, CastPlan):
        return _LaneGeometry(plan.geometry.lanes, plan.geometry.strides)
    if isinstance(plan, B8Plan):  # a lane's dst byte at its int16 lane's place in a half block (CastDequant.md)
        geometry = plan.geometry
        lanes = geometry.lanes
        every = ActiveLanes(lanes.repeats, lanes.lanes, None, lanes.repeats * lanes.lanes)
        placed, _ = _b8_footprints(every, geometry.strides, geometry.upper_half)  # the plan's own placement
        return _LaneGeometry(lanes, geometry.strides, placed=tuple(fp.addrs.reshape(lanes.repeats, lanes.lanes)
                                                                   for fp in placed), per_block=(16, 16),
                             table_entries=0 if geometry.table_addr is None else VDEQ_ENTRIES)
    return None


def _lane_plan(record: AccessRecord, chip: str | None) -> Built | None:
    """The element-wise instructions (docs/semantics.md §1.1-1.4), from their own plan (:func:`_lane_geometry`):
    each operand with the plan's lanes (a conversion's narrower operand the wider one's count, the first lanes; a
    packed int4b_t operand its bytes), its element size and its strides, placed by the one address formula (the
    plan's footprints are made by it, :func:`~npusim.ascend.footprint.strided_footprint`) or, for int16 -> b8,
    by the plan's own placement; a tensor element used as the scalar (the 950's flexible scalar) read once;
    AddDeqRelu's A2/A3 intermediates and scratch (:func:`_staged`).  A plan of another shape gives None."""
    from ..ascend.addressing import elems_per_block, lane_offsets, lanes_per_repeat
    from ..ascend.ops.flexible_scalar import ElementScalarBinding
    from ..ascend.ops.packed_lanes import operand_lanes
    from ..ascend.tensor import LocalTensor
    from ..dtypes import PackedDType

    planned = replan(record, chip)
    if planned is None:
        return None
    binding, operands, notes = planned.binding, [], []  # (a C API wrapper's plan is its instruction's, by delegation)
    scalar_element = None
    if isinstance(binding, ElementScalarBinding):
        size = binding.plan.dtype.itemsize
        scalar_element = OperandLanes(
            binding.plan.position.scalar, "read", "lane", size, np.array([[binding.addr]]), np.ones((1, 1), bool),
            elems_per_block(size), note="its first element is the scalar, read once per call")
        binding = binding.inner
    plan = getattr(binding, "plan", None)
    geometry = _lane_geometry(plan)
    if geometry is None or not plan.footprints or len(plan.footprints) != len(geometry.strides):
        return None  # (a NOP: count 0 or repeat_times 0)
    for index, (fp, (blk, rep)) in enumerate(zip(plan.footprints, geometry.strides, strict=True)):
        tensor = planned.values.get(fp.name)
        if not isinstance(tensor, LocalTensor):
            return None
        own = operand_lanes(tensor.dtype, geometry.lanes)
        offsets = (lane_offsets(own.repeats, fp.itemsize, blk, rep)[:, :own.lanes] if geometry.placed is None
                   else geometry.placed[index])
        packed = isinstance(tensor.dtype, PackedDType)
        note = f"block stride {blk}, repeat stride {rep}"
        if packed:
            note += f"; {tensor.dtype.per_byte} {tensor.dtype} lanes a byte"
        elif geometry.placed is not None:
            note += f"; lane k in DataBlock k // {geometry.per_block[index]}"
        elif own.lanes < lanes_per_repeat(fp.itemsize):
            note += f"; {own.lanes} of the {lanes_per_repeat(fp.itemsize)} lanes a repeat of {tensor.dtype} holds " \
                    "(the first)"
        roles = ("write", "read") if index == 0 and geometry.reads_dst else ("write",) if index == 0 else ("read",)
        per_block = elems_per_block(fp.itemsize) if geometry.per_block is None else geometry.per_block[index]
        operands += [OperandLanes(fp.name, role, "byte" if packed else "lane", fp.itemsize, tensor.addr + offsets,
                                  _active_grid(own), per_block, note=note if role == "write" or index else
                                  "its lanes are read too, before they are written (an input of the multiply-add)")
                     for role in roles]
    if scalar_element is not None:
        operands.append(scalar_element)
    if geometry.table_entries:
        operands.append(_register_table(record, operands, geometry.table_entries))
    staged, scratch = _staged(binding, geometry.lanes.repeats)
    _shown_lanes(planned, operands, notes)
    return operands + staged, notes, (), scratch


def _staged(binding, repeats: int) -> tuple[list[OperandLanes], tuple[ByteRange, ...]]:
    """What AddDeqRelu's A2/A3 lowering leaves besides dst (docs/semantics.md §5.22, :mod:`~npusim.ascend.ops.
    add_deq_relu`): the float32 sums staged in src0 and the half results in src1, one per active lane of each
    repeat, and the API scratch the passes write; nothing for any other binding."""
    from ..ascend.ops.add_deq_relu import StagedBinding

    if not isinstance(binding, StagedBinding):
        return [], ()
    units = [_per_repeat_bytes(fp.name, "write", fp, repeats, f"one {kind} per active lane, staged by the API "
                               "(written over the source's bytes)", unit="entry")
             for fp, kind in ((binding.products, "float32 product"), (binding.halves, "half result"))]
    return units, merge_ranges(ranges_of_addresses("UB", binding.scratch))


def _register_table(record: AccessRecord, operands: list[OperandLanes], entries: int) -> OperandLanes:
    """The vdeq table DEQSCALE points to (docs/semantics.md §5.21): its address is a register's, not in the record,
    so it is the record's one read the lane operands leave, if that is the table's size (else not shown: the
    anatomy then does not reproduce the record and is shown whole)."""
    left = subtract_ranges(merge_ranges(record.reads),
                           merge_ranges(r for o in operands if o.role == "read" for r in o.repeat_ranges()))
    found = len(left) == 1 and left[0].stop - left[0].start == 8 * entries
    addresses = (left[0].start if found else 0) + 8 * np.arange(entries)[None, :]
    return OperandLanes("vdeq table", "read", "entry", 8, addresses, np.full(addresses.shape, found),
                        4, note=f"the {entries} parameter sets at DEQSCALE's address (the record's read the lanes "
                                "leave); lane k uses entry k % 16")


def _reduction(record: AccessRecord, chip: str | None) -> Built | None:
    """WholeReduce*, BlockReduce*, PairReduceSum, RepeatReduceSum and their C API forms (ReduceRepeat.md,
    ReduceDataBlock.md, ReducePairElem.md), from :class:`~npusim.ascend.ops.reduce.ReducePlan`: src per lane at its
    strides; dst per result slot of each repeat (``r * unit + g * pitch``, the plan's layout), the slots the
    plan writes active (a group with no active lane is left unchanged where the product does so)."""
    from ..ascend.addressing import elems_per_block, lane_offsets
    from ..ascend.ops.reduce import ReducePlan

    planned = replan(record, chip)
    plan = None if planned is None else planned.binding.plan
    if not isinstance(plan, ReducePlan) or plan.lanes is None:
        return None
    lanes, layout, (blk, rep) = plan.lanes, plan.layout, plan.src_strides
    src, dst = planned.values["src"], planned.values["dst"]
    size = plan.src_dtype.itemsize
    operands = [OperandLanes("src", "read", "lane", size, src.addr + lane_offsets(lanes.repeats, size, blk, rep),
                             _active_grid(lanes), elems_per_block(size),
                             note=f"block stride {blk}, repeat stride {rep}")]
    notes = ["MAX_MIN_CNT: the extremum over every repeat and its first index (docs/semantics.md §5.18)"] \
        if plan.max_min_cnt is not None else []
    _shown_lanes(planned, operands, notes)
    written = np.array(plan.written)
    if planned.mask_from_register and not plan.fills_empty:  # a group with none of the lanes shown is not written
        written &= operands[0].active.reshape(lanes.repeats, layout.groups, layout.width).any(axis=2)
    operands.append(OperandLanes(
        "dst", "write", "entry", layout.result_bytes, dst.addr + np.arange(lanes.repeats)[:, None] * layout.unit
        + np.arange(layout.groups)[None, :] * layout.pitch, written, 1,
        note=f"result g of repeat r at dst + r * {layout.unit} + g * {layout.pitch} bytes, one per {layout.width} "
             f"source lanes ({', '.join(kind for kind, _ in layout.slots)})"))
    return operands, notes, (), ()


def _planned_lanes(name: str, role: str, tensor, lanes, blk: int, rep: int) -> OperandLanes:
    """A strided operand's lanes as the plan made them: its ActiveLanes and strides, placed by the one address
    formula (:func:`npusim.ascend.addressing.lane_offsets`, docs/semantics.md §1.1)."""
    from ..ascend.addressing import elems_per_block, lane_offsets

    itemsize = tensor.dtype.itemsize
    offsets = lane_offsets(lanes.repeats, itemsize, blk, rep)
    return OperandLanes(name, role, "lane", itemsize, tensor.addr + offsets, _active_grid(lanes),
                        elems_per_block(itemsize), note=f"block stride {blk}, repeat stride {rep}")


def _per_repeat_bytes(name: str, role: str, footprint, repeats: int, note: str, unit: str = "byte") -> OperandLanes:
    """A plan's footprint (each access one unit of its itemsize, with its repeat) as units per repeat, in address
    order (``unit``: ``"byte"`` for the bytes of a bit mask, ``"entry"`` for staged values); a shorter repeat's
    row is padded with inactive units at address -1 (no byte: not drawn)."""
    rows = [np.unique(footprint.addrs[footprint.repeats == r]) for r in range(repeats)]
    width = max((row.size for row in rows), default=0)
    addresses = np.full((repeats, width), -1, np.int64)
    active = np.zeros((repeats, width), bool)
    for r, row in enumerate(rows):
        addresses[r, :row.size], active[r, :row.size] = row, True
    return OperandLanes(name, role, unit, footprint.itemsize, addresses, active, 4, note=note)


def _span_ranges(*spans) -> tuple[ByteRange, ...]:
    return merge_ranges(ByteRange("UB", s.start, s.stop) for s in spans if s is not None)


def _select(record: AccessRecord, chip: str | None) -> Built | None:
    """Select (docs/semantics.md §2.1-2.3), from :class:`~npusim.ascend.ops.select.SelectBinding`: dst, src0 and
    src1 per lane; selMask per byte, as the plan reads it; the API scratch its lowering writes."""
    from ..ascend.core import CMPMASK_BYTES

    planned = replan(record, chip)
    if planned is None:
        return None
    binding, values = planned.binding, planned.values
    call = binding.call
    lanes = call.lanes
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = call.strides
    operands = [_planned_lanes("dst", "write", values["dst"], lanes, d_blk, d_rep)]
    for name, blk, rep in (("src0", s0_blk, s0_rep), ("src1", s1_blk, s1_rep)):
        if name in call.operands:  # mode 1 (the 950's flexible forms: src0 or src1) has one tensor source
            operands.append(_planned_lanes(name, "read", values[name], lanes, blk, rep))
    notes = [f"sel_mode {call.mode}"]
    if call.scalar_from == "cmpmask":
        notes.append("src1 is a scalar: the first element of CMPMASK")
    elif call.scalar_from == "argument":
        notes.append(f"{call.scalar_name} is the scalar {record.params.get(call.scalar_name)!r}")
    width = lanes.lanes
    if binding.sel_fp is not None:
        how = (f"lane j of repeat r uses selMask bit r*{width} + j ({width // 8} bytes per repeat, consumed "
               "continuously whatever the strides)" if call.bits_from == "stream"
               else f"lane j of every repeat uses selMask bit j (bits 0..{width - 1})")
        operands.append(_per_repeat_bytes("sel_mask", "read", binding.sel_fp, lanes.repeats, how))
    elif call.cmpmask_after == "selmask":
        start = binding.sel_addr
        addresses = start + np.zeros((lanes.repeats, 1), np.int64) + np.arange(CMPMASK_BYTES)[None, :]
        operands.append(OperandLanes(
            "sel_mask", "read", "byte", 1, addresses, np.ones(addresses.shape, bool), 4,
            note=f"its first {CMPMASK_BYTES} bytes are loaded into CMPMASK; lane j of every repeat uses "
                 f"CMPMASK bit j (bits 0..{width - 1})"))
    else:
        notes.append(f"selection bits: CMPMASK bit j for lane j of every repeat (bits 0..{width - 1}), set "
                     "beforehand")
    if binding.scratch is not None:
        notes.append(f"API scratch: {_SCRATCH_KIND[call.scratch_kind]} (docs/semantics.md §2.3)")
    _shown_lanes(planned, operands, notes)
    return operands, notes, (), _span_ranges(binding.scratch)


_SCRATCH_KIND = {"scalar": "32 copies of the scalar; CMPMASK is loaded from their first 16 bytes",
                 "address": "32 copies of selMask's 32-bit address; CMPMASK is loaded from their first 16 bytes",
                 "cmpmask": "CMPMASK spilled before the select"}


def _compare(record: AccessRecord, chip: str | None) -> Built | None:
    """The compares (docs/semantics.md §3.1-3.6), from :class:`~npusim.ascend.ops.compare.CompareBinding`:
    the sources per lane, the packed bitmask per byte (``E / 8`` bytes per repeat) or CMPMASK."""
    planned = replan(record, chip)
    if planned is None:
        return None
    binding, values = planned.binding, planned.values
    call = binding.call
    lanes = call.lanes
    strides = (call.strides[:2], call.strides[2:])
    operands = [_planned_lanes(fp.name, "read", values[fp.name], lanes, *stride)
                for fp, stride in zip(binding.sources, strides, strict=False)]
    width = lanes.lanes
    notes = [f"cmp_mode {call.mode.name}"]
    if binding.dst_fp is not None:
        operands.append(_per_repeat_bytes(
            "dst", "write", binding.dst_fp, lanes.repeats,
            f"repeat r writes bits r*{width} .. r*{width}+{width - 1}, one per lane, LSB first ({width // 8} "
            "bytes per repeat, packed whatever the dst strides)"))
        if call.dst_tail:
            notes.append(f"the last repeat also stores {call.dst_tail} zero bytes: the 950 stores 64-bit results "
                         "8 bytes per 64 elements (docs/semantics.md §3.3)")
    else:
        notes.append(f"result: CMPMASK bits 0..{width - 1}, one per lane")
    if call.scalar is not None:
        notes.append(f"{call.scalar} is the scalar {record.params.get(call.scalar)!r}")
    _shown_lanes(planned, operands, notes)
    return operands, notes, (), _span_ranges(binding.scratch)


def _layout(record: AccessRecord, chip: str | None) -> Built | None:
    """TransDataTo5HD (docs/semantics.md §4), from its binding's layout: per repeat the 16 source and 16
    destination DataBlocks (8-bit data: the chosen 16-byte halves), and which source element each
    destination element takes."""
    planned = replan(record, chip)
    if planned is None:
        return None
    binding = planned.binding
    if binding is None:
        return _address_tensors(record, planned)
    layout, anchor = binding.layout, binding.anchor
    geometry = layout.geometry
    size = geometry.itemsize
    operands, notes = [], []
    for name, elements, stride, high, role in (
            ("src", layout.src, geometry.src_stride, geometry.src_high, "read"),
            ("dst", layout.dst, geometry.dst_stride, geometry.dst_high, "write")):
        starts = elements[:, :, 0] + anchor
        moved = elements.shape[2] * size
        half = f", the {'high' if high else 'low'} 16 bytes of each block" if size == 1 else ""
        offsets = ", ".join(str(int(o) // 32) for o in geometry.repeat_offsets(stride))
        operands.append(OperandLanes(
            name, role, "entry", moved, starts, np.ones(starts.shape, bool), 1,
            note=f"entry i of repeat r at {name}_list[i] + off(r) * 32, off = {offsets} "
                 f"({'one repeat: already one stride' if geometry.repeat_times == 1 else 'r * stride'}){half}"))
    notes.append(f"{size * 8}-bit data: {_MAPPING[size]}")
    return operands, notes, (), ()


def _address_tensors(record: AccessRecord, planned) -> Built | None:
    """TransDataTo5HD with its lists in two ``LocalTensor<uint64_t>`` (docs/semantics.md §4.1): the tables
    it reads (16 entries each) and the entries 0-3 it rewrites with packed VA words, from the transpose
    module's table layout; the moved blocks are the record's remaining bytes in the plan geometry's units.
    Which list entry a block is, is UB data the record does not hold: blocks are listed in address order,
    one repeat only (with more, a block's repeat cannot be told from its address)."""
    from ..ascend.ops.transpose import TABLE_BYTES, VA_WORDS

    geometry = planned.plan.geometry
    if geometry.repeat_times != 1:
        return None
    operands, tables = [], []
    for name in ("dst", "src"):
        table = planned.values[name]
        entries = table.addr + 8 * np.arange(TABLE_BYTES // 8)[None, :]
        tables.append(ByteRange("UB", table.addr, table.addr + TABLE_BYTES))
        operands.append(OperandLanes(f"{name} (address table)", "read", "entry", 8, entries,
                                     np.ones(entries.shape, bool), 4, note="16 uint64 UB addresses"))
    for name in ("dst", "src"):
        table = planned.values[name]
        packed = table.addr + 8 * np.arange(VA_WORDS)[None, :]
        operands.append(OperandLanes(f"{name} entries 0-{VA_WORDS - 1}", "write", "entry", 8, packed,
                                     np.ones(packed.shape, bool), 4,
                                     note="rewritten in place: four 16-bit DataBlock numbers (addr >> 5) each"))
    size, blocks = geometry.itemsize, []
    moved = 16 if size == 1 else 32
    written = subtract_ranges(record.writes, merge_ranges(r for o in operands[2:] for r in o.repeat_ranges()))
    for name, role, ranges, dst in (("src", "read", subtract_ranges(record.reads, merge_ranges(tables)), False),
                                    ("dst", "write", written, True)):
        start = geometry.block_span(dst)[0]
        starts = [a for r in ranges for a in range(r.start + (start - r.start) % 32, r.stop - moved + 1, 32)]
        if len(starts) != 16:
            return None
        addresses = np.array([starts], np.int64)
        blocks.append(OperandLanes(f"{name} blocks", role, "entry", moved, addresses, np.ones(addresses.shape, bool),
                                   1, note="in address order (the list order is UB data the record does not hold)"
                                   + (f", the {'high' if (start % 32) else 'low'} 16 bytes of each" if size == 1
                                      else "")))
    return [*blocks, *operands], [f"{size * 8}-bit data: {_MAPPING[size]}"], (), ()


_MAPPING = {1: "D[e][k + 16*dstHighHalf] = S[k][e + 16*srcHighHalf], e, k < 16",
            2: "D[e][k] = S[k][e], e, k < 16 (a 16 x 16 transpose)",
            4: "D[2e + h][k] = S[8h + k][e], e, k < 8, h < 2"}


def destination_sources(anatomy_: Anatomy) -> list[tuple[int, int, list[tuple[int, int]]]]:
    """TransDataTo5HD: per repeat and destination entry, the ``(source entry, element of its DataBlock)`` of
    each element it takes, in order (the plan's layout: :meth:`~npusim.ascend.addressing.Vnchwconv.in_dst_order`;
    blocks are 32-byte aligned, so an element's place in its block is its address mod 32)."""
    planned = replan(anatomy_.record, anatomy_.chip)
    layout = planned.binding.layout
    src, size = layout.src, layout.geometry.itemsize
    entry = np.broadcast_to(np.arange(src.shape[1])[None, :, None], src.shape)
    taken_entry = layout.geometry.in_dst_order(entry)  # (r, e, k): the source entry element (r, e, k) takes
    taken_at = layout.geometry.in_dst_order(src)  # ... and that element's offset from the anchor
    element = (taken_at + planned.binding.anchor) % 32 // size
    return [(r, e, [(int(i), int(k)) for i, k in zip(taken_entry[r, e], element[r, e], strict=True)])
            for r in range(layout.dst.shape[0]) for e in range(layout.dst.shape[1])]


def _shown_lanes(planned, operands: list[OperandLanes], notes: list[str]) -> None:
    """Lanes from the vector mask register (a value no record holds; the replanned call has them all): keep
    active the lanes whose bytes the record reads and writes in every lane operand, and the selMask bytes it
    reads.  The anatomy is still shown only if the result reproduces the record exactly."""
    if not planned.mask_from_register:
        return
    record = planned.record
    notes.append("lanes from the vector mask register set beforehand (its value is not in the record): the "
                 "active lanes are those whose bytes the record shows")
    lane_ops = [o for o in operands if o.unit == "lane"]
    if not lane_ops:
        return
    shown = np.logical_and.reduce([_inside(o, record.reads if o.role == "read" else record.writes)
                                   for o in lane_ops])
    for i, operand in enumerate(operands):
        if operand.unit == "lane":
            operands[i] = replace(operand, active=operand.active & shown)
        elif operand.unit == "byte" and operand.role == "read":
            operands[i] = replace(operand, active=operand.active & _inside(operand, record.reads))


def _inside(operand: OperandLanes, ranges) -> np.ndarray:
    """Per unit: every byte of it lies in ``ranges``."""
    inside = np.zeros(operand.addresses.shape, bool)
    first, last = operand.addresses, operand.addresses + operand.unit_bytes
    for r in ranges:
        if r.space == operand.space:
            inside |= (first >= r.start) & (last <= r.stop)
    return inside

#: the rule of each family the registry lists (element-wise instructions by name, as their family holds more)
#: the families whose instructions work lane by lane on strided operands (their own plan says whether a call does,
#: :func:`_lane_plan`: Duplicate does, CreateVecIndex and Brcb do not)
ELEMENTWISE_FAMILIES = frozenset({"arith", "logic", "compound", "cast", "fill"})
#: the rule of each family the registry lists
_FAMILY_RULES = {"select": _select, "compare": _compare, "reduce": _reduction,
                 **dict.fromkeys(ELEMENTWISE_FAMILIES, _lane_plan)}
#: ... and of single instructions of other families (with their C API aliases): of the layout family Transpose has
#: no rule yet; of data movement, Copy is element-wise
_INSTRUCTION_RULES = {"trans_data_to_5hd": _layout, "copy": _lane_plan}


def rule_for(record: AccessRecord):
    """The rule that may split this record per repeat (by its registry entry's family, or its own instruction's
    or its C API alias's), or None (then it is shown whole; so is a call that touched no memory, such as the scalar
    form of asc_float2int32_*: it has nothing to split)."""
    if record.vendor != "ascend" or not (record.reads or record.writes):
        return None
    from .. import ascend  # noqa: F401  (its import registers the Ascend instructions: a trace file may come first)
    from ..engine.registry import instructions

    entry = next((e for e in instructions("ascend") if e.name == record.instruction), None)
    if entry is None or _flexible_scalar(record):
        return None
    return _INSTRUCTION_RULES.get(entry.alias_of or entry.name) or _FAMILY_RULES.get(entry.family)


def _flexible_scalar(record: AccessRecord) -> bool:
    """A 950 Compares / Select（灵活标量位置）call (the scalar first, or a tensor's element; Select in mode 1): no
    rule yet (a replan on another product rejects it), shown whole, as the element-wise flexible forms are."""
    params = record.params
    if record.instruction == "compare_scalar":
        return "src1_scalar" not in params
    if record.instruction != "select" or _sel_mode(params.get("sel_mode")) != 1 or "sel_mask" not in params:
        return False
    return "scalar_tensor_index" in params or _is_tensor(params.get("src1")) or not _is_tensor(params.get("src0"))


def _is_tensor(value) -> bool:
    return str(value).startswith("LocalTensor(")


def _sel_mode(value) -> int | None:
    """A recorded ``sel_mode``: an int, or an enum member's text (``"SelMode.VSEL_TENSOR_SCALAR_MODE"``)."""
    if isinstance(value, int):
        return value
    return {"VSEL_CMPMASK_SPR": 0, "VSEL_TENSOR_SCALAR_MODE": 1, "VSEL_TENSOR_TENSOR_MODE": 2}.get(
        str(value).rsplit(".", 1)[-1])


def _whole(record: AccessRecord) -> tuple[OperandLanes, ...]:
    operands = []
    for role, ranges in (("read", record.reads), ("write", record.writes)):
        for i, r in enumerate(ranges):
            operands.append(OperandLanes(f"{role}s[{i}]", role, "whole", r.stop - r.start, np.array([[r.start]]),
                                         np.ones((1, 1), bool), space=r.space, buffer=r.buffer))
    return tuple(operands)


def anatomy(record: AccessRecord, chip: str | None = None) -> Anatomy:
    """The record split per repeat, DataBlock and lane, or shown whole (module docstring).

    ``chip``: the chip the call ran on (a trace's core names it; default: the default chip), whose
    plan step the select, compare and TransDataTo5HD rules run again (:mod:`.replan`).
    """
    notes = [f"registers read: {', '.join(record.registers_read) or '-'}; "
             f"written: {', '.join(record.registers_written) or '-'}"]
    try:
        split = _split(record, chip, notes)
    except Exception:  # noqa: BLE001  (parameters a rule cannot read, of any kind: a view never raises, the record
        split = None  # is shown whole)
    if split is not None:
        return split
    return Anatomy(record, 1, 0, _whole(record), notes=tuple(notes), decomposed=False, chip=chip)


def _split(record: AccessRecord, chip: str | None, notes: list[str]) -> Anatomy | None:
    """The record split by its rule, if the rule's bytes are exactly the record's (else a note says why not)."""
    rule = rule_for(record)
    built = None if rule is None else rule(record, chip)
    if built is None:
        return None
    operands, extra, side_reads, side_writes = built
    reads = merge_ranges([*(r for o in operands if o.role == "read" for r in o.repeat_ranges()), *side_reads])
    writes = merge_ranges([*(r for o in operands if o.role == "write" for r in o.repeat_ranges()), *side_writes])
    if reads == merge_ranges(record.reads) and writes == merge_ranges(record.writes):
        repeats = max(o.repeats for o in operands)
        lanes = operands[0].addresses.shape[1] if operands[0].unit == "lane" else 0
        return Anatomy(record, repeats, lanes, tuple(operands), side_reads, side_writes, tuple(notes + extra),
                       chip=chip)
    notes.append("the parameters' lanes do not reproduce the record (a mode the record does not show): "
                 "ranges shown whole")
    return None
    return Anatomy(record, 1, 0, _whole(record), notes=tuple(notes), decomposed=False, chip=chip)
