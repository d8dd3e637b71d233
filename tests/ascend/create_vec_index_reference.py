"""A per-element reference of CreateVecIndex, written from docs/semantics.md §5.19 and the lowerings it
describes (dav_c220 / dav_m200 scalar blocks, dav_m300 / dav_3510 one register), with plain loops and numpy
scalars of T for every rounded step; it imports nothing from npusim's instruction code."""

from __future__ import annotations

import numpy as np

SCALAR_BLOCKS = {"A2": "int64", "A3": "int64", "310P": "float"}  # how the scalar unit adds first + j
ONE_REGISTER = {"310B", "950"}


def _wrap(value: int, np_dtype) -> int:
    bits = 8 * np.dtype(np_dtype).itemsize
    value &= (1 << bits) - 1
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def lane_value(chip: str, np_dtype, first, r: int, lane: int):
    """The value of lane ``lane`` of repeat ``r`` as a numpy scalar of ``np_dtype``."""
    t = np.dtype(np_dtype).type
    size = np.dtype(np_dtype).itemsize
    block, lanes = 32 // size, 256 // size
    is_float = np.issubdtype(np_dtype, np.floating)
    if not is_float:
        first = int(first)
        if chip in ONE_REGISTER or SCALAR_BLOCKS[chip] == "int64":
            return t(_wrap(first + r * lanes + lane, np_dtype))
        b, j = divmod(lane, block)
        start = int(np.trunc(np.float32(first) + np.float32(j)))  # float add, then the C conversion (truncation)
        return t(_wrap(start + b * block + r * lanes, np_dtype))
    with np.errstate(over="ignore"):
        if chip in ONE_REGISTER:
            value = t(float(first) + lane)  # the exact value rounded once (numpy: round to nearest even)
        else:
            b, j = divmod(lane, block)
            value = t(np.float32(first) + np.float32(j))
            for _ in range(b):
                value = t(value + t(block))
        for _ in range(r):
            value = t(value + t(lanes))
    return value


def active(mask, lane: int, size: int) -> bool:
    """Whether ``lane`` is active under an int (contiguous) or a list of words (bitwise) mask."""
    if isinstance(mask, int):
        return lane < mask
    return bool((mask[lane // 64] >> (lane % 64)) & 1)


def expected_ub(chip: str, np_dtype, ub: bytes, base: int, first, *, count=None, mask=None, repeats=0,
                blk=1, rep=8) -> bytes:
    """UB after the call: every written element's bytes put in place, element by element."""
    out = bytearray(ub)
    size = np.dtype(np_dtype).itemsize
    block, lanes = 32 // size, 256 // size
    if count is not None:
        cells = [(i // lanes, i % lanes) for i in range(count)]
    else:
        cells = [(r, lane) for r in range(repeats) for lane in range(lanes) if active(mask, lane, size)]
    for r, lane in cells:
        addr = base + r * rep * 32 + (lane // block) * blk * 32 + (lane % block) * size
        out[addr: addr + size] = np.array([lane_value(chip, np_dtype, first, r, lane)], dtype=np_dtype).tobytes()
    return bytes(out)
