"""Per-element reference models of Ascend vector instructions, written from the documents.

These are deliberately naive: Python loops over repeats and lanes, byte
arithmetic on a ``bytearray``, no numpy, and no import from ``npusim``.  The
vectorised emulator is tested against them.

Sources: ``shared/reference/ascend-semantics.md`` ("ref") §1.1 (lane address),
§1.2 (masks), §1.3 (counter mode), §1.4 (overlap), §2 (Select).
"""

from __future__ import annotations

from dataclasses import dataclass, field

BLOCK = 32
REPEAT = 256
FULL = (1 << 64) - 1


def lane_address(base: int, r: int, j: int, size: int, blk: int, rep: int) -> int:
    """ref §1.1: base + r*rep*32 + floor(j/B)*blk*32 + (j mod B)*size, B = 32/size."""
    per_block = BLOCK // size
    return base + r * rep * BLOCK + (j // per_block) * blk * BLOCK + (j % per_block) * size


def set_mask_words(length: int, size: int) -> tuple[int, int]:
    """ref §1.2, ``SetMask<T>(len)``: 64 -> (~0, 0); E or >= 128 -> all ones; else the low bits."""
    lanes = REPEAT // size
    if length == 64:
        return FULL, 0
    if length == lanes or length >= 128:
        return FULL, FULL
    if length > 64:
        return FULL, (1 << (length - 64)) - 1
    return (1 << length) - 1, 0


@dataclass
class Lanes:
    """Which (repeat, lane) pairs are active: a normal-mode bit pattern or a counter-mode count."""

    repeats: int
    lanes: int
    low: int = FULL
    high: int = FULL
    count: int | None = None

    def active(self, r: int, j: int) -> bool:
        if self.count is not None:
            return r * self.lanes + j < self.count
        word = self.low if j < 64 else self.high
        return (word >> (j % 64)) & 1 == 1


def normal_lanes(low: int, high: int, repeats: int, size: int) -> Lanes:
    return Lanes(repeats, REPEAT // size, low, high)


def counter_lanes(count: int, size: int) -> Lanes:
    lanes = REPEAT // size
    return Lanes(-(-count // lanes), lanes, count=count)


def get_bit(stream: bytes | bytearray, index: int) -> int:
    """ref §2.1: bit i = (byte[i >> 3] >> (i & 7)) & 1."""
    return (stream[index >> 3] >> (index & 7)) & 1


@dataclass
class SelectCase:
    """One Select call in the model's terms (addresses are UB byte offsets)."""

    mode: int
    size: int
    dst: int
    src0: int
    src1: int | None  # None in mode 1
    scalar: bytes | None  # raw bits of the mode-1 scalar
    sel: int | None  # selMask address (modes 1/2, or mode 0 read directly from selMask)
    cmpmask: bytes  # CMPMASK as the vsel sees it (mode 0)
    lanes: Lanes
    strides: tuple[int, int, int, int, int, int] = (1, 1, 1, 8, 8, 8)
    accesses: list = field(default_factory=list)


def run_select(ub: bytearray, case: SelectCase) -> bytearray:
    """Execute ``vsel`` repeat by repeat, lane by lane (reads of a repeat before its writes)."""
    out = bytearray(ub)
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case.strides
    size, lanes = case.size, case.lanes
    for r in range(lanes.repeats):
        writes = []
        for j in range(lanes.lanes):
            if not lanes.active(r, j):
                continue
            if case.mode == 0:
                bit = get_bit(case.cmpmask, j) if case.sel is None else get_bit(out, case.sel * 8 + j)
            else:
                bit = get_bit(out, case.sel * 8 + r * lanes.lanes + j)
            if bit:
                a = lane_address(case.src0, r, j, size, s0_blk, s0_rep)
                value = out[a : a + size]
            elif case.mode == 1:
                value = case.scalar
            else:
                a = lane_address(case.src1, r, j, size, s1_blk, s1_rep)
                value = out[a : a + size]
            writes.append((lane_address(case.dst, r, j, size, d_blk, d_rep), bytes(value)))
        for address, value in writes:
            out[address : address + size] = value
    return out


def footprints(case: SelectCase) -> tuple[list[set], list[set]]:
    """Per repeat: bytes written, bytes read (for the overlap oracle)."""
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case.strides
    size, lanes = case.size, case.lanes
    written, read = [], []
    for r in range(lanes.repeats):
        w, rd = set(), set()
        for j in range(lanes.lanes):
            if not lanes.active(r, j):
                continue
            a = lane_address(case.dst, r, j, size, d_blk, d_rep)
            w.update(range(a, a + size))
            a = lane_address(case.src0, r, j, size, s0_blk, s0_rep)
            rd.update(range(a, a + size))
            if case.src1 is not None:
                a = lane_address(case.src1, r, j, size, s1_blk, s1_rep)
                rd.update(range(a, a + size))
            if case.sel is not None:
                bit = j if case.mode == 0 else r * lanes.lanes + j
                rd.add(case.sel + (bit >> 3))
        written.append(w)
        read.append(rd)
    return written, read


def violates_overlap_rules(case: SelectCase) -> bool:
    """ref §1.4: a later repeat reads what an earlier one wrote, or a repeat overlaps partially.

    "Partial" here: a repeat's written and read bytes intersect while the operand is not
    exactly in place (same address lane for lane, same element size).
    """
    written, read = footprints(case)
    for r, w in enumerate(written):
        for later in read[r + 1 :]:
            if w & later:
                return True
    d_blk, s0_blk, s1_blk, d_rep, s0_rep, s1_rep = case.strides
    size, lanes = case.size, case.lanes
    operands = [(case.src0, s0_blk, s0_rep)]
    if case.src1 is not None:
        operands.append((case.src1, s1_blk, s1_rep))
    for r in range(lanes.repeats):
        active = [j for j in range(lanes.lanes) if lanes.active(r, j)]
        dst_addrs = [lane_address(case.dst, r, j, size, d_blk, d_rep) for j in active]
        dst_bytes = {a + k for a in dst_addrs for k in range(size)}
        for base, blk, rep in operands:
            src_addrs = [lane_address(base, r, j, size, blk, rep) for j in active]
            src_bytes = {a + k for a in src_addrs for k in range(size)}
            if dst_bytes & src_bytes and src_addrs != dst_addrs:
                return True
        if case.sel is not None:
            sel_bytes = {case.sel + ((j if case.mode == 0 else r * lanes.lanes + j) >> 3) for j in active}
            if dst_bytes & sel_bytes:
                return True
    return False
