"""Byte-exact comparison of an output dump with its golden dump (``npusim verify``).

Both files are raw little-endian arrays of one dtype, the layout of the vendor samples'
``.bin`` files (docs/golden.md).  They match only if they are byte-identical; a mismatch
is reported per element, as index (unravelled when a shape is given), expected and actual
value, and both bit patterns in hex — two NaNs with different payloads are different, as
on the hardware.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .dtypes import DType
from .views.progress import progress

__all__ = ["Comparison", "Mismatch", "compare_dumps", "first_differing_byte", "format_report"]


@dataclass(frozen=True)
class Mismatch:
    index: tuple[int, ...]
    expected: object
    got: object
    expected_bits: int
    got_bits: int
    flat: int = 0  # the element's position in the dump


@dataclass(frozen=True)
class Comparison:
    """Result of comparing two dumps."""

    dtype: DType
    elements: int
    mismatch_count: int
    first: list[Mismatch]
    size_error: str | None = None

    @property
    def identical(self) -> bool:
        return self.size_error is None and self.mismatch_count == 0


def compare_dumps(out: bytes, golden: bytes, dtype: DType, shape: tuple[int, ...] | None = None,
                  max_report: int = 10) -> Comparison:
    """Compare two raw dumps element by element, on their bits.

    Raises:
        ValueError: a file is not a whole number of elements, ``shape`` does not match, or
            ``max_report`` (the number of mismatches to list) is negative.
    """
    if isinstance(max_report, bool) or not isinstance(max_report, int):
        raise TypeError(f"max_report must be an int, got {type(max_report).__name__}")
    if max_report < 0:
        raise ValueError(f"max_report = {max_report}: the number of mismatches to list (--max-report) must be >= 0")
    for label, data in (("output", out), ("golden", golden)):
        if len(data) % dtype.itemsize:
            raise ValueError(f"{label} file has {len(data)} bytes, not a multiple of sizeof({dtype}) = "
                             f"{dtype.itemsize}")
    if len(out) != len(golden):
        return Comparison(dtype, len(golden) // dtype.itemsize, 0, [],
                          size_error=f"output has {len(out)} bytes, golden has {len(golden)}")
    count = len(golden) // dtype.itemsize
    if shape is not None and int(np.prod(shape)) != count:
        raise ValueError(f"shape {shape} has {int(np.prod(shape))} elements, the files hold {count}")
    got_bits = np.frombuffer(out, dtype.raw)
    expected_bits = np.frombuffer(golden, dtype.raw)
    bad = np.flatnonzero(got_bits != expected_bits)
    got_values = np.frombuffer(out, dtype.np_dtype)
    expected_values = np.frombuffer(golden, dtype.np_dtype)
    first = [
        Mismatch(tuple(int(i) for i in np.unravel_index(int(flat), shape)) if shape else (int(flat),),
                 expected_values[flat], got_values[flat], int(expected_bits[flat]), int(got_bits[flat]), int(flat))
        for flat in bad[:max_report]
    ]
    return Comparison(dtype, count, int(bad.size), first)


def first_differing_byte(mismatch: Mismatch, itemsize: int) -> int:
    """Byte offset in the dump of the first (lowest-addressed) byte in which the element differs."""
    diff = mismatch.expected_bits ^ mismatch.got_bits
    return mismatch.flat * itemsize + ((diff & -diff).bit_length() - 1) // 8


def format_report(result: Comparison, locate: Callable[[int], list[str]] | None = None) -> str:
    """A human-readable report: the verdict line, then one line per reported mismatch.

    ``locate``, given a byte offset in the dump, returns lines saying what wrote that
    byte (:mod:`npusim.views.provenance`); each mismatch is then followed by them for its
    first differing byte.
    """
    if result.size_error:
        return f"FAIL: size mismatch: {result.size_error}"
    if result.identical:
        return f"PASS: {result.elements} {result.dtype} elements are byte-identical"
    share = 100.0 * result.mismatch_count / max(result.elements, 1)
    digits = result.dtype.itemsize * 2
    lines = [f"FAIL: {result.mismatch_count} of {result.elements} {result.dtype} elements differ ({share:.4g}%)"]
    mismatches = result.first if locate is None else progress(result.first, "verify --trace", len(result.first),
                                                                  "mismatch")
    for m in mismatches:
        index = m.index[0] if len(m.index) == 1 else m.index
        lines.append(f"  index {index}: expected {m.expected} (0x{m.expected_bits:0{digits}x}), "
                     f"got {m.got} (0x{m.got_bits:0{digits}x})")
        if locate is not None:
            lines += [f"      {line}" for line in locate(first_differing_byte(m, result.dtype.itemsize))]
    if result.mismatch_count > len(result.first):
        lines.append(f"  ... and {result.mismatch_count - len(result.first)} more")
    return "\n".join(lines)
