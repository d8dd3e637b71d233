"""Lanes of a packed operand (``int4b_t``): two lanes a byte, so the lanes an instruction addresses are
the operand's bytes (docs/semantics.md §5.23).

A conversion with an int4b_t side has the lanes of its wider type (half: 128 a repeat); the int4b_t
operand holds lanes ``2i`` and ``2i + 1`` in the low and high nibble of its byte ``i``, and addresses
its bytes as a one-byte type does (32 a DataBlock, 64 lanes).  The documents allow only calls whose
active lanes are whole bytes (Cast.md 约束说明: an even count or contiguous mask, bitwise-mask bits
``2i`` and ``2i + 1`` equal), so the operand is read and written a whole byte at a time.
"""

from __future__ import annotations

import numpy as np

from ...dtypes import DType, PackedDType
from ...errors import ParameterRangeError
from ...sources import semantics
from ..addressing import ActiveLanes

__all__ = ["byte_lanes", "lane_bytes", "operand_lanes", "packed_side", "require_even_count", "require_whole_bytes"]

PACKED = semantics("5.23")


def lane_bytes(dtype: DType) -> int:
    """Bytes an operand of ``dtype`` addresses per lane it accesses (a packed type: one per byte of lanes)."""
    return 1 if isinstance(dtype, PackedDType) else dtype.itemsize


def byte_lanes(lanes: ActiveLanes, per_byte: int) -> ActiveLanes:
    """The bytes of a packed operand as lanes: lane ``k`` of ``lanes`` is in byte lane ``k // per_byte``."""
    mask = None if lanes.mask is None else np.ascontiguousarray(lanes.mask[:, ::per_byte])
    return ActiveLanes(lanes.repeats, lanes.lanes // per_byte, mask, lanes.count // per_byte)


def operand_lanes(dtype: DType, lanes: ActiveLanes) -> ActiveLanes:
    """The lanes an operand of ``dtype`` is accessed by: ``lanes`` itself, or a packed type's bytes."""
    return byte_lanes(lanes, dtype.per_byte) if isinstance(dtype, PackedDType) else lanes


def packed_side(*dtypes: DType) -> PackedDType | None:
    """The packed type among ``dtypes``, if any."""
    return next((d for d in dtypes if isinstance(d, PackedDType)), None)


def require_even_count(name: str, count: int, packed: PackedDType | None, source: str, operand: str = "count",
                       what: str = "the count") -> None:
    """A count (or a contiguous mask) with a packed operand counts whole bytes: a multiple of the elements a
    byte (Cast.md 约束说明), even where a longer mask would be clamped to the repeat's lanes."""
    if packed is not None and count % packed.per_byte:
        raise ParameterRangeError(name, operand, count, f"with {packed} {what} must be even: "
                                  f"{packed.per_byte} elements share a byte", f"even values of {operand}",
                                  f"{source}; {PACKED}")


def require_whole_bytes(name: str, operand: str, value, lanes: ActiveLanes, packed: PackedDType | None,
                        source: str) -> None:
    """Every byte of the packed operand has all its lanes active or none (Cast.md 约束说明): a contiguous
    mask even, a bitwise mask's bits ``2i`` and ``2i + 1`` equal; the same for the mask register."""
    if packed is None or lanes.mask is None:
        return
    grouped = lanes.mask.reshape(lanes.repeats, -1, packed.per_byte)
    split = grouped.any(axis=2) & ~grouped.all(axis=2)
    if split.any():
        repeat, byte = (int(i) for i in np.argwhere(split)[0])
        raise ParameterRangeError(
            name, operand, value, f"with {packed} the lanes of one byte are active together: lanes "
            f"{byte * packed.per_byte}-{byte * packed.per_byte + packed.per_byte - 1} of repeat {repeat} are split",
            "an even contiguous mask; a bitwise mask whose bits 2i and 2i+1 are equal", f"{source}; {PACKED}")
