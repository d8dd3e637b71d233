"""Placing benchmark operands in UB and reading them back, independently of npusim's code.

An operand of a repeat instruction is ``repeats x 8 DataBlocks x B elements`` at byte
``base + r * rep * 32 + k * blk * 32 + e * sizeof(T)`` (ref §1.1).  The benchmarks build
one host image of the UB bytes they use, place every operand through such a view, and
write the image once, so interleaved operands (strided cases) do not clobber each other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Placement", "place", "read_back", "strided_view"]

BLOCK = 32


@dataclass(frozen=True)
class Placement:
    """Where one operand lives: base byte address and strides in DataBlocks."""

    base: int
    blk: int = 1
    rep: int = 8

    def span(self, repeats: int) -> int:
        """Bytes from ``base`` to one past the last byte of the last DataBlock."""
        return ((repeats - 1) * self.rep + 7 * self.blk + 1) * BLOCK if repeats else 0


def strided_view(buffer: np.ndarray, where: Placement, dtype, repeats: int) -> np.ndarray:
    """The operand's elements as a ``(repeats, 8, B)`` view of ``buffer`` (a uint8 array)."""
    dtype = np.dtype(dtype)
    per_block = BLOCK // dtype.itemsize
    return np.ndarray((repeats, 8, per_block), dtype, buffer=buffer, offset=where.base,
                      strides=(where.rep * BLOCK, where.blk * BLOCK, dtype.itemsize))


def place(image: np.ndarray, where: Placement, values: np.ndarray, repeats: int) -> None:
    """Write ``values`` (repeat-major, lane order) into ``image`` at the operand's addresses."""
    strided_view(image, where, values.dtype, repeats)[...] = values.reshape(repeats, 8, -1)


def read_back(ub: bytes, where: Placement, dtype, repeats: int) -> bytes:
    """The operand's elements gathered in lane order, as contiguous bytes."""
    buffer = np.frombuffer(ub, dtype=np.uint8)
    return np.ascontiguousarray(strided_view(buffer, where, dtype, repeats)).tobytes()
