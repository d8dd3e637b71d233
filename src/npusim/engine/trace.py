"""Access records: what each executed instruction call read and wrote, exactly.

With ``Core(chip, trace=True)`` (either vendor) every instruction call that runs appends
one :class:`AccessRecord` to ``core.trace``.  The ranges come from the call's plan, which
knows them before it runs; nothing here re-derives an address.  *Exact* means two
things, both tested for every registered instruction:

1. every byte the call changes lies in ``writes`` (side effects such as an API scratch
   area included), and
2. the bytes it writes depend on no byte outside ``reads`` and ``writes``.

Ranges are :class:`ByteRange` tuples ``(space, start, stop, buffer)``, half-open, sorted
and merged per space (and per GM buffer).  Spaces: ``"UB"`` and ``"GM"`` for Ascend (a
GM range names its buffer and counts bytes from the buffer's start); ``"LOCAL"`` (the
lane-major offset ``lane * LOCAL_MEM_SIZE + offset``) and ``"GLOBAL"`` for Sophgo.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import enum
import math
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

from .caches import memoized

__all__ = [
    "AccessRecord", "ByteRange", "CoreTrace", "TraceCollector", "caller_source", "collecting", "core_trace",
    "json_params", "json_value", "merge_ranges", "ranges_of_addresses",
]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_EXAMPLES_DIR = os.path.join(_PACKAGE_DIR, "examples") + os.sep


class ByteRange(NamedTuple):
    """Bytes ``[start, stop)`` of one memory space (and, in GM, of one buffer)."""

    space: str
    start: int
    stop: int
    buffer: str | None = None

    def __repr__(self) -> str:
        where = self.space if self.buffer is None else f"{self.space}:{self.buffer}"
        return f"{where}[{self.start:#x}, {self.stop:#x})"


def merge_ranges(ranges: Iterable[tuple]) -> tuple[ByteRange, ...]:
    """``ranges`` sorted by space, buffer and start, with overlapping or touching ones joined.

    Empty ranges are dropped.  Example: ``[("UB", 64, 96), ("UB", 0, 32), ("UB", 32, 40)]``
    becomes ``(UB[0x0, 0x28), UB[0x40, 0x60))``.
    """
    items = sorted((ByteRange(*r) for r in ranges if r[2] > r[1]),
                   key=lambda r: (r.space, r.buffer or "", r.start))
    merged: list[ByteRange] = []
    for item in items:
        if merged:
            last = merged[-1]
            if last.space == item.space and last.buffer == item.buffer and item.start <= last.stop:
                if item.stop > last.stop:
                    merged[-1] = last._replace(stop=item.stop)
                continue
        merged.append(item)
    return tuple(merged)


def ranges_of_addresses(space: str, byte_addrs: np.ndarray, buffer: str | None = None) -> list[ByteRange]:
    """The runs of consecutive byte addresses in ``byte_addrs`` (any order, repeats allowed)."""
    if byte_addrs.size == 0:
        return []
    unique = np.unique(byte_addrs)
    breaks = np.flatnonzero(np.diff(unique) != 1)
    starts = np.concatenate(([unique[0]], unique[breaks + 1]))
    stops = np.concatenate((unique[breaks], [unique[-1]])) + 1
    return [ByteRange(space, int(a), int(b), buffer) for a, b in zip(starts, stops, strict=True)]


@dataclasses.dataclass(slots=True)  # not frozen: a frozen __init__ costs a third of a checked call
class AccessRecord:
    """One executed instruction call (read-only by convention: nothing changes a record once made).

    Attributes:
        seq: its position among the calls recorded on its core (0, 1, 2 ...).
        instruction: the public name the caller used (``"select"``, ``"asc_ne_scalar"``).
        vendor: ``"ascend"`` or ``"sophgo"``.
        pipe: the pipe it issues on (``"V"``, ``"MTE2"``, ``"MTE3"``, ``"S"``; ``"BDC"``, ``"GDMA"``).
        reads, writes: merged :class:`ByteRange` tuples (module docstring).
        registers_read, registers_written: register names (``"CMPMASK"``, ``"MASK"``, ...).
        source: ``"file.py:line"`` of the caller's call (the first frame outside npusim; a bundled
            example kernel counts as outside).
        params: the call's arguments by parameter name, JSON-serialisable; a register argument as what it
            stood for when the binding says so (``record_params``: a VA register pair as its 16 addresses).
        block: the block index of the core that ran it.
    """

    seq: int
    instruction: str
    vendor: str
    pipe: str
    reads: tuple[ByteRange, ...]
    writes: tuple[ByteRange, ...]
    registers_read: tuple[str, ...]
    registers_written: tuple[str, ...]
    source: str
    params: dict
    block: int = 0

    def to_json(self) -> dict:
        """The record as plain JSON values (ranges as ``[space, start, stop, buffer]`` lists)."""
        return {
            "seq": self.seq, "instruction": self.instruction, "vendor": self.vendor, "pipe": self.pipe,
            "reads": [list(r) for r in self.reads], "writes": [list(r) for r in self.writes],
            "registers_read": list(self.registers_read), "registers_written": list(self.registers_written),
            "source": self.source, "params": self.params, "block": self.block,
        }


@memoized("npusim source files", 4096)
def _inside_npusim(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_PACKAGE_DIR) and not path.startswith(_EXAMPLES_DIR)


def caller_source() -> str:
    """``"file:line"`` of the innermost frame outside the npusim package (the user's call); the
    bundled example kernels (``npusim/examples``) count as user code: their lines are the kernel's."""
    frame = sys._getframe(1)
    while frame is not None and _inside_npusim(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return "<unknown>"
    return f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"


def json_params(names: Iterable[str], values: Iterable[Any]) -> dict:
    """Parameter values as JSON-serialisable data (see :func:`json_value`)."""
    return {name: json_value(value) for name, value in zip(names, values, strict=True)}


def json_value(value: Any) -> Any:
    """One argument as JSON data: numbers and strings as they are (a non-finite float as its
    ``repr``), enums by name, sequences as lists, dataclasses by field, objects with a
    ``describe()`` method (tensors, addresses) by what it returns, anything else by ``repr``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return number if math.isfinite(number) else repr(number)
    describe = getattr(value, "describe", None)
    if callable(describe):
        return describe()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: json_value(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.ndarray):
        return [json_value(v) for v in value.reshape(-1)[:64].tolist()]
    if isinstance(value, (list, tuple)):
        return [json_value(v) for v in value]
    return repr(value)


# ------------------------------------------------------------------ collecting every core's trace
@dataclasses.dataclass(frozen=True, slots=True)
class CoreTrace:
    """The trace of one core made while a :class:`TraceCollector` was collecting.

    Attributes:
        vendor: ``"ascend"`` or ``"sophgo"``.
        chip: the chip's name.
        block: the core's block index (0 for a core outside a launch).
        records: the core's ``trace`` list itself (it grows while the core runs).
    """

    vendor: str
    chip: str
    block: int
    records: list


class TraceCollector:
    """Every core created while it collects keeps a trace, listed here in creation order.

    ``npusim run --trace`` and ``launch(..., trace=...)`` use it, so a script or kernel
    records without passing ``trace=True`` to each core it makes.
    """

    def __init__(self) -> None:
        self.cores: list[CoreTrace] = []

    def records(self) -> list[AccessRecord]:
        """Every record of every core, core by core."""
        return [record for core in self.cores for record in core.records]


_COLLECTOR: contextvars.ContextVar[TraceCollector | None] = contextvars.ContextVar("npusim_trace", default=None)


@contextlib.contextmanager
def collecting(collector: TraceCollector | None = None) -> Iterator[TraceCollector]:
    """Collect the trace of every core created inside the ``with`` block (nested: the innermost)."""
    collector = TraceCollector() if collector is None else collector
    token = _COLLECTOR.set(collector)
    try:
        yield collector
    finally:
        _COLLECTOR.reset(token)


def core_trace(wanted: bool, vendor: str, chip: str, block: int = 0) -> list[AccessRecord] | None:
    """The ``trace`` list a new core keeps: a list when ``wanted`` or a collector is collecting
    (which then lists it), else ``None`` (tracing off costs nothing)."""
    collector = _COLLECTOR.get()
    if not wanted and collector is None:
        return None
    records: list[AccessRecord] = []
    if collector is not None:
        collector.cores.append(CoreTrace(vendor, chip, block, records))
    return records
