"""Plain reference of the reductions (whole_reduce_*, block_reduce_*, pair_reduce_sum,
repeat_reduce_sum), one result at a time, written from the pages and sharing no code with npusim.

* A repeat reads lane ``j`` at ``reference_model.lane_address``; a result reduces a *group* of
  lanes: the whole repeat, one 32-byte block (8 results per repeat) or one pair (E/2 results).
* SUM: the adjacent-pair tree of ReduceDataBlock.md 关键特性说明 — pair up neighbours, add each pair
  (exact, rounded once to T: ``elementwise_reference.float_bits``), repeat until one value; masked-off
  lanes count as +0.  Integers (the 950's int16 -> int32 ...) add exactly, modulo 2^32.
* MAX/MIN: the first lane holding the extremum, by IEEE order with -0 < +0; the first NaN wins.
* Result ``g`` of repeat ``r`` at ``dst + r * unit + g * itemsize``; for max/min with an index,
  the layout of ReduceRepeat.md 表3.
"""

from __future__ import annotations

from fractions import Fraction

from . import elementwise_reference as ew
from . import reference_model as ref

ORDERS = ("value_index", "index_value", "only_value", "only_index")


def _get(ub, addr: int, size: int) -> int:
    return int.from_bytes(ub[addr:addr + size], "little")


def _put(ub, addr: int, size: int, bits: int) -> None:
    ub[addr:addr + size] = (bits & ((1 << 8 * size) - 1)).to_bytes(size, "little")


def _key(bits: int, fmt: str):
    value = ref.decode(bits, fmt)
    if value == "-inf":
        return (-2, Fraction(0), 0)
    if value == "+inf":
        return (2, Fraction(0), 0)
    if isinstance(value, tuple):  # ("zero", sign): -0 below +0
        return (0, Fraction(0), 0 if value[1] else 1)
    return (0, value, 0)


def _is_nan(bits: int, fmt: str) -> bool:
    return ref.decode(bits, fmt) == "nan"


def _signed(bits: int, fmt: str) -> int:
    size, kind, _e, _m = ref.FORMATS[fmt]
    if kind == "int" and bits >= 1 << (8 * size - 1):
        return bits - (1 << 8 * size)
    return bits


def tree_sum(values: list[int], fmt: str, src_fmt: str, saturate: bool) -> int:
    if ref.FORMATS[fmt][1] != "float":
        return sum(_signed(v, src_fmt) for v in values) & 0xFFFFFFFF
    level = list(values)
    while len(level) > 1:
        level = [ew.float_bits("add", fmt, level[i], level[i + 1], saturate) for i in range(0, len(level), 2)]
    return level[0]


def extremum(values: list[int], active: list[bool], fmt: str, maximum: bool) -> tuple[int, int] | None:
    """(value bits, lane) of the extremum of the active lanes; None if no lane is active."""
    best = None
    for lane, (bits, on) in enumerate(zip(values, active, strict=True)):
        if not on:
            continue
        if ref.FORMATS[fmt][1] == "float" and _is_nan(bits, fmt):
            quiet = {"float16": 0x7E00, "float32": 0x7FC00000}[fmt]
            return quiet, lane
        key = _key(bits, fmt) if ref.FORMATS[fmt][1] == "float" else _signed(bits, fmt)
        if best is None or (key > best[0] if maximum else key < best[0]):
            best = (key, bits, lane)
    return None if best is None else (best[1], best[2])


def empty_value(chip: str, fmt: str, maximum: bool) -> int:
    """ReduceDataBlock.md 约束说明: 310B MAX -inf (half -65504), MIN +inf (half 65504); 950 -inf / +inf."""
    if fmt == "float16":
        magnitude = 0x7BFF if chip == "310B" else 0x7C00
        return magnitude | (0x8000 if maximum else 0)
    return 0x7F800000 | (0x80000000 if maximum else 0)


def run(ub: bytearray, *, op: str, kind: str, dst_fmt: str, src_fmt: str, dst: int, src: int,
        active: list[list[bool]], dst_rep_stride: int, blk: int, rep: int, order: str = "value_index",
        saturate: bool = False, fills_empty: bool = False, chip: str = "A2") -> bytearray:
    """One call on a copy of ``ub``: ``active[r][j]`` says whether lane j of repeat r is active."""
    out = bytearray(ub)
    size = ref.FORMATS[src_fmt][0]
    dsize = ref.FORMATS[dst_fmt][0]
    lanes = 256 // size
    width = {"repeat": lanes, "block": lanes // 8, "pair": 2}[kind]
    for r, lane_on in enumerate(active):
        values = [_get(ub, ref.lane_address(src, r, j, size, blk, rep), size) if lane_on[j] else 0
                  for j in range(lanes)]
        for g in range(lanes // width):
            group = values[g * width:(g + 1) * width]
            on = lane_on[g * width:(g + 1) * width]
            if not any(on) and not fills_empty:
                continue
            if op == "sum":
                value, index = tree_sum(group, dst_fmt, src_fmt, saturate), None
            else:
                found = extremum(group, on, src_fmt, op == "max")
                value, index = found if found else (empty_value(chip, dst_fmt, op == "max"), 0)
            if kind == "block":
                _put(out, dst + r * dst_rep_stride * 8 * dsize + g * dsize, dsize, value)
            elif kind == "pair":
                _put(out, dst + r * dst_rep_stride * 128 + g * dsize, dsize, value)
            elif op == "sum":
                _put(out, dst + r * dst_rep_stride * dsize, dsize, value)
            elif order == "only_index":
                _put(out, dst + r * dst_rep_stride * 4, 4, index)
            elif order == "only_value":
                _put(out, dst + r * dst_rep_stride * dsize, dsize, value)
            else:
                at = dst + r * dst_rep_stride * 2 * dsize
                first, second = (value, index) if order == "value_index" else (index, value)
                _put(out, at, dsize, first)
                _put(out, at + dsize, dsize, second)
    return out
