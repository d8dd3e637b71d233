"""An independent reference of Sort with SortConfig (docs/semantics.md §5.28), element by element in plain
Python, written from the 950's implementation (``sort_impl.h``, ``sort_common_utils.h``): Python's ``sorted``
is stable, so each order is one ``sorted`` with an explicit key.

Values are raw bit patterns (Python ints); ``fmt`` is the element type's name.
"""

from __future__ import annotations

import struct

FLOATS = {"float16", "bfloat16", "float32"}
SIGNED = {"int8", "int16", "int32", "int64"}
BYTES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "float16": 2, "bfloat16": 2, "int32": 4, "uint32": 4,
         "float32": 4, "int64": 8, "uint64": 8}


def radix_key(bits: int, fmt: str, descending: bool) -> int:
    """TwiddleInData: floats invert every bit when negative, else flip the sign; signed ints flip the sign;
    descending then inverts every bit."""
    width = 8 * BYTES[fmt]
    full, sign = (1 << width) - 1, 1 << (width - 1)
    if fmt in FLOATS:
        key = (bits ^ full) if bits & sign else (bits ^ sign)
    elif fmt in SIGNED:
        key = bits ^ sign
    else:
        key = bits
    return key ^ full if descending else key


def score(bits: int, fmt: str):
    """Sort32's order of a half / float score (§5.15): (1, value) for a number, (2, 0) for any NaN; -0 == +0."""
    if fmt == "float16":
        value = struct.unpack("<e", struct.pack("<H", bits))[0]
    else:
        value = struct.unpack("<f", struct.pack("<I", bits))[0]
    return (2, 0.0) if value != value else (1, value)


def sort_order(bits: list[int], fmt: str, merge: bool, descending: bool) -> list[int]:
    """Input positions in output order."""
    if not merge:
        return sorted(range(len(bits)), key=lambda i: radix_key(bits[i], fmt, descending))
    sign = 1 << (8 * BYTES[fmt] - 1)
    flipped = bits if descending else [b ^ sign for b in bits]

    def largest_first(i: int):
        rank, value = score(flipped[i], fmt)
        return (-rank, -value)

    return sorted(range(len(bits)), key=largest_first)


def expected(bits: list[int], fmt: str, merge: bool, descending: bool, src_index: list[int] | None = None,
             reuse: bool = False) -> dict:
    """dst, dst_index (positions, or src_index's elements) and the source after the call (None: unchanged)."""
    order = sort_order(bits, fmt, merge, descending)
    out = {"dst": [bits[i] for i in order],
           "dst_index": [src_index[i] for i in order] if src_index is not None else order,
           "src": None, "src_index": None}
    width = 8 * BYTES[fmt]
    if merge and not descending:
        out["src"] = [b ^ (1 << (width - 1)) for b in bits]
    if not merge and reuse and width > 8:
        keys = [radix_key(b, fmt, descending) for b in bits]
        low = (1 << (width - 8)) - 1
        partial = sorted(range(len(bits)), key=lambda i: keys[i] & low)
        out["src"] = [keys[i] for i in partial]
        if src_index is not None:
            out["src_index"] = [src_index[i] for i in partial]
    return out


def tmp_min_bytes(count: int, fmt: str, merge: bool, index_bytes: int, has_src_index: bool, has_dst_index: bool,
                  reuse: bool) -> int:
    """GetSortMaxMinTmpSize's minValue, from the tiling source's arithmetic."""
    if merge:
        return 8 * count
    n = (count + 31) // 32 * 32
    t = 0 if reuse else BYTES[fmt]
    total = 7 * n + 512
    if BYTES[fmt] == 1:
        return total - 2 * n if has_dst_index and not has_src_index else total
    if not has_dst_index:
        return total + n * t
    if not has_src_index:
        return total + n * (4 + t)
    return total + n * (t + (0 if reuse else index_bytes))
