"""One access record split into repeats, DataBlocks and lanes.

An access record (:class:`~npusim.engine.trace.AccessRecord`) gives the merged byte ranges
a call read and wrote.  Its *anatomy* says which lane of which repeat of which operand
each byte belongs to, from the call's parameters and the Ascend addressing layer's one
formula (:func:`~npusim.ascend.addressing.lane_offsets`, docs/semantics.md §1.1-1.4).

An anatomy is only ever shown when it reproduces the record: the bytes of its
operands are exactly the record's reads and writes, or, for an instruction whose API
uses a scratch area (Select, docs/semantics.md §2.3), lie inside them, the rest being
its *side effects*.  A call whose parameters it cannot
decompose (an instruction it has no rule for, a mask form on a core in counter mode)
gets the record's ranges as one operand per range, marked ``whole``.

Rules (by the instruction's family):

* element-wise (``add`` ... ``duplicate``), ``select``: ``dst``, ``src0``, ``src1`` (or
  ``src``) per lane, strides from the repeat parameters; Select's ``sel_mask`` per byte:
  mode 0 its first 16 bytes (CMPMASK, every repeat), modes 1 and 2 ``E / 8`` bytes per
  repeat (docs/semantics.md §2.1);
* ``compare``, ``compare_scalar``, ``asc_<cmp>``, ``asc_<cmp>_scalar``: sources per lane,
  ``dst`` ``E / 8`` bytes per repeat at ``dst + r * E / 8`` (docs/semantics.md §3.1);
* ``trans_data_to_5hd`` with address lists (ints or tensors): one unit per list entry,
  16 source and 16 destination DataBlocks per repeat (docs/semantics.md §4).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..engine.trace import AccessRecord, ByteRange, merge_ranges, ranges_of_addresses

__all__ = ["Anatomy", "OperandLanes", "anatomy", "subtract_ranges", "tensor_of"]

_TENSOR = re.compile(r"LocalTensor\((\w+), \w+, addr=0x([0-9a-f]+), tile_size=(\d+)\)")
_ITEMSIZE = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4,
             "uint32": 4, "float32": 4, "int64": 8, "uint64": 8, "float64": 8}
ELEMENTWISE = {"add": ("src0", "src1"), "sub": ("src0", "src1"), "mul": ("src0", "src1"), "max": ("src0", "src1"),
               "min": ("src0", "src1"), "abs": ("src",), "adds": ("src",), "muls": ("src",), "duplicate": ()}
_CMP_NAMES = ("eq", "ne", "lt", "le", "gt", "ge")
COMPARES = {"compare": ("src0", "src1"), "compare_scalar": ("src0",),
            **{f"asc_{m}": ("src0", "src1") for m in _CMP_NAMES}, **{f"asc_{m}_scalar": ("src",) for m in _CMP_NAMES}}


@dataclass(frozen=True)
class Tensor:
    """A UB tensor as a record's parameters describe it."""

    dtype: str
    addr: int
    size: int

    @property
    def itemsize(self) -> int:
        return _ITEMSIZE[self.dtype]


def tensor_of(param) -> Tensor | None:
    """The tensor a record parameter describes (``"LocalTensor(float16, VECIN, addr=0x0, tile_size=256)"``), or None."""
    match = _TENSOR.fullmatch(param) if isinstance(param, str) else None
    if match is None or match.group(1) not in _ITEMSIZE:
        return None
    return Tensor(match.group(1), int(match.group(2), 16), int(match.group(3)))


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
    """

    record: AccessRecord
    repeats: int
    lanes: int
    operands: tuple[OperandLanes, ...]
    side_reads: tuple[ByteRange, ...] = ()
    side_writes: tuple[ByteRange, ...] = ()
    notes: tuple[str, ...] = field(default=())
    decomposed: bool = True

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


def _covers(outer, inner) -> bool:
    return not subtract_ranges(inner, outer)


# ------------------------------------------------------------------ rules
def _mask_lanes(params: dict, itemsize: int, repeats: int) -> np.ndarray | None:
    """``(repeats, E)`` active lanes of a mask or count form; None for a form that uses the register."""
    from ..ascend.addressing import counter_mode_lanes, lanes_per_repeat, normal_mode_lanes
    from ..ascend.masking import mask_arg_words

    lanes = lanes_per_repeat(itemsize)
    if "count" in params:
        active = counter_mode_lanes(int(params["count"]), lanes)
    elif "mask" in params and params.get("is_set_mask", True):
        words = mask_arg_words("explain", params["mask"], itemsize, lowering_counts_raw=False, counter=False)
        active = normal_mode_lanes(words, lanes, repeats)
    else:
        return None
    return np.ones((active.repeats, lanes), bool) if active.mask is None else np.array(active.mask)


def _strides(params: dict, name: str) -> tuple[int, int]:
    """``(block stride, repeat stride)`` of operand ``name`` in DataBlocks (1, 8 when the form has none)."""
    repeat_params = params.get("repeat_params")
    if isinstance(repeat_params, dict):
        short = "src" if name.startswith("src") and "src_blk_stride" in repeat_params else name  # UnaryRepeatParams
        if f"{short}_blk_stride" in repeat_params:
            return int(repeat_params[f"{short}_blk_stride"]), int(repeat_params[f"{short}_rep_stride"])
    if f"{name}_block_stride" in params:
        return int(params[f"{name}_block_stride"]), int(params[f"{name}_repeat_stride"])
    return 1, 8


def _lane_operand(name: str, role: str, tensor: Tensor, params: dict, active: np.ndarray) -> OperandLanes:
    from ..ascend.addressing import elems_per_block, lane_offsets

    blk, rep = _strides(params, name)
    offsets = lane_offsets(active.shape[0], tensor.itemsize, blk, rep)
    return OperandLanes(name, role, "lane", tensor.itemsize, tensor.addr + offsets, active,
                        elems_per_block(tensor.itemsize), note=f"block stride {blk}, repeat stride {rep}")


def _bit_bytes(name: str, role: str, base: int, repeats: int, lanes: int, per_repeat: bool,
               active: np.ndarray, note: str) -> OperandLanes:
    """A bit operand, one unit per byte (8 lanes): ``E / 8`` bytes per repeat, or the same ones every repeat."""
    nbytes = lanes // 8
    r = np.arange(repeats)[:, None] * (nbytes if per_repeat else 0)
    addresses = base + r + np.arange(nbytes)[None, :]
    byte_active = active.reshape(repeats, nbytes, 8).any(axis=2)
    return OperandLanes(name, role, "byte", 1, addresses, byte_active, 4, note=note)


def _repeats(params: dict, itemsize: int) -> int:
    from ..ascend.addressing import lanes_per_repeat

    if "count" in params:
        return -(-int(params["count"]) // lanes_per_repeat(itemsize))
    return int(params.get("repeat_times", params.get("repeat", 1)))


def _elementwise(record: AccessRecord) -> tuple[list[OperandLanes], list[str], bool] | None:
    params = record.params
    dst = tensor_of(params.get("dst"))
    if dst is None:
        return None
    active = _mask_lanes(params, dst.itemsize, _repeats(params, dst.itemsize))
    if active is None:
        return None
    operands = [_lane_operand("dst", "write", dst, params, active)]
    for name in ELEMENTWISE[record.instruction]:
        source = tensor_of(params.get(name))
        if source is None:
            return None
        operands.append(_lane_operand(name, "read", source, params, active))
    return operands, [], False


def _select(record: AccessRecord) -> tuple[list[OperandLanes], list[str], bool] | None:
    params = record.params
    dst, sel = tensor_of(params.get("dst")), tensor_of(params.get("sel_mask"))
    if dst is None or sel is None:
        return None
    active = _mask_lanes(params, dst.itemsize, _repeats(params, dst.itemsize))
    if active is None:
        return None
    repeats, lanes = active.shape
    mode = str(params.get("sel_mode"))
    operands = [_lane_operand("dst", "write", dst, params, active),
                _lane_operand("src0", "read", tensor_of(params["src0"]), params, active)]
    notes = [f"sel_mode {mode}"]
    src1 = tensor_of(params.get("src1"))
    if src1 is not None:
        operands.append(_lane_operand("src1", "read", src1, params, active))
    else:
        notes.append(f"src1 is the scalar {params.get('src1')!r}")
    if mode in ("VSEL_CMPMASK_SPR", "0"):
        ones = np.ones((repeats, 16), bool)
        operands.append(OperandLanes("sel_mask", "read", "byte", 1, sel.addr + np.zeros((repeats, 1), np.int64)
                                     + np.arange(16)[None, :], ones, 4,
                                     note=f"CMPMASK: lane j of every repeat uses bit j (bits 0..{lanes - 1})"))
    else:
        operands.append(_bit_bytes("sel_mask", "read", sel.addr, repeats, lanes, True, active,
                                   f"lane j of repeat r uses bit r*{lanes} + j"))
    return operands, notes, True  # the scalar / address copies in the API scratch (§2.3)


def _compare(record: AccessRecord) -> tuple[list[OperandLanes], list[str], bool] | None:
    params = record.params
    sources = COMPARES[record.instruction]
    first = tensor_of(params.get(sources[0]))
    dst = tensor_of(params.get("dst"))
    if first is None or dst is None:
        return None
    if record.instruction.startswith("asc_"):
        repeats = int(params.get("repeat", -(-int(params.get("count", 0)) // (256 // first.itemsize))))
        lanes = 256 // first.itemsize
        active = (np.arange(repeats * lanes).reshape(repeats, lanes) < int(params["count"])
                  if "count" in params else np.ones((repeats, lanes), bool))
    else:
        active = _mask_lanes(params, first.itemsize, _repeats(params, first.itemsize))
        if active is None:
            return None
        repeats, lanes = active.shape
    operands = [_lane_operand(name, "read", tensor_of(params[name]), params, active) for name in sources]
    operands.append(_bit_bytes("dst", "write", dst.addr, repeats, lanes, True, np.ones_like(active),
                               f"repeat r writes bits r*{lanes} .. r*{lanes}+{lanes - 1} (one per lane)"))
    return operands, [f"cmp_mode {params['cmp_mode']}"] if "cmp_mode" in params else [], False


def _address(param) -> tuple[int, str | None] | None:
    """An address-list entry: an int, or a tensor (then with its dtype)."""
    if isinstance(param, int) and not isinstance(param, bool):
        return param, None
    tensor = tensor_of(param)
    return None if tensor is None else (tensor.addr, tensor.dtype)


def _dtype_name(param) -> str | None:
    text = str(param)
    return next((name for name in sorted(_ITEMSIZE, key=len, reverse=True) if name in text), None)


def _trans_data_to_5hd(record: AccessRecord) -> tuple[list[OperandLanes], list[str], bool] | None:
    """TransDataTo5HD's list form (docs/semantics.md §4.1-4.3): 16 source and 16 destination DataBlocks
    per repeat, repeat ``r`` at ``list[i] + off(r) * 32``, ``off(r) = stride`` for one repeat, else
    ``r * stride``; 8-bit data moves one 16-byte half of each block."""
    params = record.params
    dst_list, src_list, call = params.get("dst_list"), params.get("src_list"), params.get("params")
    if not (isinstance(dst_list, list) and isinstance(src_list, list) and isinstance(call, dict)):
        return None
    dsts, srcs = [_address(p) for p in dst_list], [_address(p) for p in src_list]
    if None in dsts or None in srcs or len(dsts) != 16 or len(srcs) != 16:
        return None
    dtype = _dtype_name(params.get("dtype")) if params.get("dtype") is not None else (dsts[0][1] or srcs[0][1])
    if dtype is None:
        return None
    repeats = int(call["repeat_times"])
    itemsize = _ITEMSIZE[dtype]
    half = 16 if itemsize == 1 else 0
    operands, notes = [], []
    for name, entries, stride, high in (("src", srcs, "src_rep_stride", "src_high_half"),
                                        ("dst", dsts, "dst_rep_stride", "dst_high_half")):
        step = int(call[stride])
        offsets = np.array([step] if repeats == 1 else [r * step for r in range(repeats)], np.int64) * 32
        shift = 16 if half and call[high] else 0
        bases = np.array([addr for addr, _ in entries], np.int64) + shift
        addresses = offsets[:, None] + bases[None, :]
        operands.append(OperandLanes(name, "read" if name == "src" else "write", "lane", half or 32, addresses,
                                     np.ones(addresses.shape, bool), 1,
                                     note=f"{name}_list[i] + {'r * ' if repeats > 1 else ''}{step} * 32"
                                          + (f", {'high' if shift else 'low'} 16 bytes" if half else "")))
    mapping = {1: "D[e][k + 16*dstHighHalf] = S[k][e + 16*srcHighHalf], e, k < 16",
               2: "D[e][k] = S[k][e], e, k < 16 (16 x 16 transpose)",
               4: "D[2e][k] = S[k][e], D[2e+1][k] = S[k+8][e], e, k < 8"}[itemsize]
    notes.append(f"{dtype}: {mapping}; a unit is one list entry (lane i = src_list[i] / dst_list[i])")
    return operands, notes, False


_RULES = {"trans_data_to_5hd": _trans_data_to_5hd, "select": _select,
          **{name: _elementwise for name in ELEMENTWISE}, **{name: _compare for name in COMPARES}}


def _whole(record: AccessRecord) -> tuple[OperandLanes, ...]:
    operands = []
    for role, ranges in (("read", record.reads), ("write", record.writes)):
        for i, r in enumerate(ranges):
            operands.append(OperandLanes(f"{role}s[{i}]", role, "whole", r.stop - r.start, np.array([[r.start]]),
                                         np.ones((1, 1), bool), space=r.space, buffer=r.buffer))
    return tuple(operands)


def anatomy(record: AccessRecord) -> Anatomy:
    """The record split per repeat, DataBlock and lane, or shown whole (module docstring)."""
    rule = _RULES.get(record.instruction) if record.vendor == "ascend" else None
    notes = [f"registers read: {', '.join(record.registers_read) or '-'}; "
             f"written: {', '.join(record.registers_written) or '-'}"]
    built = None
    if rule is not None:
        try:
            built = rule(record)
        except (KeyError, TypeError, ValueError):  # parameters this rule cannot read: show the record whole
            built = None
    if built is not None:
        operands, extra, scratch = built
        reads = merge_ranges(r for o in operands if o.role == "read" for r in o.repeat_ranges())
        writes = merge_ranges(r for o in operands if o.role == "write" for r in o.repeat_ranges())
        exact = scratch or (reads == merge_ranges(record.reads) and writes == merge_ranges(record.writes))
        if exact and _covers(record.reads, reads) and _covers(record.writes, writes):
            repeats = operands[0].repeats
            lanes = operands[0].addresses.shape[1] if operands[0].unit == "lane" else 0
            return Anatomy(record, repeats, lanes, tuple(operands), subtract_ranges(record.reads, reads),
                           subtract_ranges(record.writes, writes), tuple(notes + extra))
        notes.append("the parameters' lanes do not reproduce the record (a mode the record does not show): "
                     "ranges shown whole")
    return Anatomy(record, 1, 0, _whole(record), notes=tuple(notes), decomposed=False)
