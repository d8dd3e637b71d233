"""Byte-addressable on-chip memory with a shadow map of written bytes.

A :class:`Memory` is a flat ``uint8`` array plus a same-sized shadow array
that records, byte by byte, whether the byte was ever written since the memory
was created.  Instructions read through :meth:`Memory.gather` (typed element
reads at byte addresses) and write through :meth:`Memory.scatter`; the shadow
lets every read report the first never-written address it touched.

The shadow only ever gains written bytes, except through a method that clears
it, and every such method bumps :attr:`Memory.shadow_epoch` when it clears a
written byte (clearing bytes never written changes nothing).  Cached
instruction plans rely on this: once they have seen an operand fully written
they skip its check until the epoch changes.  A memory over a caller's array
starts :attr:`Memory.fully_written` (every byte defined); that flag, too, only
ends through a method that clears shadow bytes, so reads of such a memory need
no shadow pass, and its shadow array is only created when something asks for it.

This module knows nothing about any vendor: Ascend's Unified Buffer and
Sophgo's lane-major local memory are both a :class:`Memory`.
"""

from __future__ import annotations

import _thread  # the lock of zeroed_bytes, without importing threading at start-up
import contextlib
import contextvars
import os
import sys
import warnings
from typing import Literal

import numpy as np

from .errors import OutOfBoundsError, ParameterRangeError, UninitializedReadError, UninitializedReadWarning
from .sources import semantics
from .validate import require_bool, require_bytes, require_int

__all__ = ["ALL_WRITTEN", "Memory", "UninitPolicy", "core_uninit_policy", "require_uninit_policy", "run_start",
           "strict_reads", "user_stacklevel"]

UninitPolicy = Literal["warn", "raise", "ignore"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
MAX_MEMORY_BYTES = 1 << 40  # 1 TiB: far beyond any product; numpy allocates lazily, but not past this
ALL_WRITTEN = {1: 0x01, 2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}  # a written element's shadow, by size
POLICY_SOURCE = semantics("10.3")
BOUNDS_SOURCE = semantics("10.6")
SIZE_SOURCE = semantics("10.4")


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside npusim."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    return level


def require_uninit_policy(instruction: str, uninit) -> UninitPolicy:
    """``uninit`` checked as one of ``"warn"``, ``"raise"``, ``"ignore"``."""
    if not isinstance(uninit, str):
        raise TypeError(f"{instruction}: uninit must be 'warn', 'raise' or 'ignore', got {type(uninit).__name__}")
    if uninit not in ("warn", "raise", "ignore"):
        raise ParameterRangeError(instruction, "uninit", uninit, "unknown policy for reads of never-written bytes",
                                  "'warn', 'raise', 'ignore'", POLICY_SOURCE)
    return uninit  # type: ignore[return-value]


def core_uninit_policy(instruction: str, strict, uninit) -> UninitPolicy:
    """The policy a core's memories use: ``strict=True`` means ``"raise"``; ``uninit`` picks any policy.

    Both vendors' ``Core`` take the two keywords (docs/semantics.md §10.3: strict mode makes reads
    of never-written bytes an error).  Asking for ``strict=True`` together with another policy
    is a contradiction and rejected.
    """
    strict = require_bool(instruction, "strict", strict)
    if uninit is None:
        return "raise" if strict else "warn"
    uninit = require_uninit_policy(instruction, uninit)
    if strict and uninit != "raise":
        raise ParameterRangeError(instruction, "uninit", uninit, "strict=True already means uninit='raise'",
                                  "'raise' or None together with strict=True", POLICY_SOURCE)
    return uninit


_STRICT_READS: contextvars.ContextVar[bool] = contextvars.ContextVar("npusim_strict_reads", default=False)


@contextlib.contextmanager
def strict_reads(strict: bool = True):
    """While active (in this thread or task), a memory whose policy is ``"warn"`` raises instead.

    A strict launch runs its blocks inside it, so reads of never-written GM — a workspace from
    ``gm_alloc``, which has its own policy — are errors like reads of never-written UB.  A memory
    whose policy is ``"ignore"`` opted out and stays silent.
    """
    token = _STRICT_READS.set(bool(strict) or _STRICT_READS.get())
    try:
        yield
    finally:
        _STRICT_READS.reset(token)


def run_start(elem_index: np.ndarray) -> int | None:
    """The first index when ``elem_index`` is one ascending run of consecutive indices (a count form's
    lanes), else ``None``: such lanes are read and written as slices (:meth:`Memory.store_run`)."""
    if not elem_index.size or int(elem_index[-1]) - int(elem_index[0]) != elem_index.size - 1:
        return None
    return int(elem_index[0]) if (np.diff(elem_index) == 1).all() else None


class Memory:
    """A flat byte-addressed memory.

    Args:
        size_bytes: capacity in bytes (a multiple of 8).
        name: how messages refer to it (``"UB"``, ``"local memory"``, ``"GM"``).
        uninit: what a read of never-written bytes does: ``"warn"`` (default),
            ``"raise"`` (strict mode) or ``"ignore"``.

    Attributes:
        shadow_epoch: bumped whenever written-shadow bytes are cleared (see the module
            docstring); a method that clears ``written`` must increment it.
        fully_written: every byte is known to be written (the shadow is all ones).  Set
            only by :meth:`over` for a caller's array; a method that clears ``written``
            must reset it.  Never set again once reset (finding out would cost a pass).
        written: the shadow, one byte per byte (1: written).  For a memory created
            ``fully_written`` it is made (all ones) on first use.
    """

    shadow_epoch = 0
    fully_written = False

    def __init__(self, size_bytes: int, name: str, uninit: UninitPolicy = "warn") -> None:
        size_bytes = require_int(name, "size", size_bytes, 8, MAX_MEMORY_BYTES, SIZE_SOURCE)
        if size_bytes % 8:
            raise ParameterRangeError(name, "size", size_bytes, "a memory is a whole number of 8-byte words",
                                      "multiples of 8", SIZE_SOURCE)
        uninit = require_uninit_policy(name, uninit)
        self.size_bytes = size_bytes
        self.name = name
        self.uninit: UninitPolicy = uninit
        self.data = zeroed_bytes(size_bytes)
        self.written = zeroed_bytes(size_bytes)

    @classmethod
    def over(cls, data: np.ndarray, name: str, uninit: UninitPolicy = "warn", written: bool = True) -> Memory:
        """A memory whose bytes *are* ``data`` (a 1-D ``uint8`` array, any size, not copied).

        Used for global memory backed by a caller's array, so that writes land in it.
        ``written`` marks every byte as written (a caller's array holds defined values).
        """
        if data.dtype != np.uint8 or data.ndim != 1:
            raise ValueError(f"Memory.over needs a 1-D uint8 array, got {data.dtype} with shape {data.shape}")
        uninit = require_uninit_policy(name, uninit)
        memory = cls.__new__(cls)
        memory.size_bytes = int(data.size)
        memory.name = name
        memory.uninit = uninit
        memory.data = data
        if written:
            memory.fully_written = True  # ``written`` follows on first use (``__getattr__``)
        else:
            memory.written = np.zeros(data.size, dtype=np.uint8)
        return memory

    def __getattr__(self, name: str):
        """Only reached for attributes not set: the shadow of a ``fully_written`` memory, made on first use."""
        if name == "written" and self.__dict__.get("fully_written"):
            written = self.written = np.ones(self.size_bytes, dtype=np.uint8)
            return written
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # ----------------------------------------------------------------- bounds
    def check_span(self, instruction: str, operand: str, start: int, stop: int) -> None:
        """Raise :class:`OutOfBoundsError` unless bytes ``[start, stop)`` lie inside the memory."""
        if start < 0 or stop > self.size_bytes:
            first_bad = start if start < 0 else max(start, self.size_bytes)
            raise OutOfBoundsError(
                instruction,
                f"{operand} byte address",
                first_bad,
                f"touches bytes [{_hex(start)}, {_hex(stop)}) outside {self.name}",
                f"[0x0, {_hex(self.size_bytes)})",
                BOUNDS_SOURCE,
            )

    # ------------------------------------------------------------ host access
    def read_bytes(self, addr: int, nbytes: int, who: str = "read") -> bytes:
        """Host read of raw bytes (no uninitialised-read report)."""
        addr = require_int(who, "addr", addr, 0, self.size_bytes, BOUNDS_SOURCE)
        nbytes = require_int(who, "nbytes", nbytes, 0, self.size_bytes, BOUNDS_SOURCE)
        self.check_span(who, "range", addr, addr + nbytes)
        return self.data[addr : addr + nbytes].tobytes()

    def write_bytes(self, addr: int, payload: bytes | bytearray | memoryview | np.ndarray, who: str = "write") -> None:
        """Host write of raw bytes; marks them written."""
        raw = np.frombuffer(require_bytes(who, "data", payload), dtype=np.uint8)
        addr = require_int(who, "addr", addr, 0, self.size_bytes, BOUNDS_SOURCE)
        self.check_span(who, "range", addr, addr + raw.size)
        self.data[addr : addr + raw.size] = raw
        self.written[addr : addr + raw.size] = 1

    # ------------------------------------------------------- instruction access
    def typed(self, dtype: np.dtype) -> np.ndarray:
        """The whole memory viewed as elements of ``dtype`` (element i at byte i*itemsize)."""
        return self.data.view(dtype)

    def gather(self, elem_index: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """Read elements of ``dtype`` at element indices (byte address / itemsize)."""
        return self.data.view(dtype)[elem_index]

    def scatter(self, elem_index: np.ndarray, values: np.ndarray) -> None:
        """Write elements at element indices and mark their bytes written.

        When an index repeats, the value that comes last in ``elem_index`` wins,
        which is the order the hardware issues repeats in.
        """
        dtype = values.dtype
        self.data.view(dtype)[elem_index] = values
        self.written.view(np.dtype(f"<u{dtype.itemsize}"))[elem_index] = ALL_WRITTEN[dtype.itemsize]

    def store_run(self, elem_start: int, values: np.ndarray) -> None:
        """Write a 1-D array of elements at consecutive element indices from ``elem_start`` and mark
        their bytes written (:meth:`scatter` of one ascending run, as slices)."""
        dtype = values.dtype
        self.data.view(dtype)[elem_start : elem_start + values.size] = values
        self.written[elem_start * dtype.itemsize : (elem_start + values.size) * dtype.itemsize] = 1

    def mark_written(self, start: int, stop: int) -> None:
        self.written[start:stop] = 1

    def mark_undefined(self, byte_index: np.ndarray) -> None:
        """Record that an instruction left these bytes with undefined content.

        The contents stay as they are; the shadow forgets that they were written, so a
        later read reports them like never-written bytes.  Bumps :attr:`shadow_epoch` (unless none of
        the bytes was written: then nothing changes).
        """
        if not self.written[byte_index].any():  # none of them written: the shadow stays as it is (a call
            return  # that leaves the same scratch undefined every time keeps the epoch, and the plans' checks)
        self.written[byte_index] = 0
        self.fully_written = False
        self.shadow_epoch += 1

    def check_initialized(
        self, instruction: str, operand: str, elem_index: np.ndarray, itemsize: int
    ) -> bool:
        """Report the first never-written element among ``elem_index`` (indices in itemsize units).

        Depending on :attr:`uninit`, warns (:class:`UninitializedReadWarning`), raises
        (:class:`UninitializedReadError`) or does nothing.  Returns whether every byte was found written
        (``False`` under ``"ignore"``, which does not look), which stays true until :attr:`shadow_epoch` changes.
        """
        if self.uninit == "ignore":
            return False
        if self.fully_written or np.size(elem_index) == 0:
            return True
        shadow = self.written.view(np.dtype(f"<u{itemsize}"))[elem_index]
        full = ALL_WRITTEN[itemsize]
        if bool(np.all(shadow == full)):
            return True
        flat_idx = np.asarray(elem_index).reshape(-1)
        flat_shadow = shadow.reshape(-1)
        bad = flat_idx[flat_shadow != full]
        first_elem = int(bad.min())
        first_byte = first_elem * itemsize + int(
            np.argmin(self.written[first_elem * itemsize : (first_elem + 1) * itemsize])
        )
        self.report_uninitialized(instruction, operand, first_byte)
        return False

    def check_initialized_span(self, instruction: str, operand: str, start: int, stop: int) -> None:
        """Like :meth:`check_initialized`, for the contiguous byte range ``[start, stop)``."""
        if self.fully_written or self.uninit == "ignore" or stop <= start:
            return
        window = self.written[start:stop]
        if window.all():
            return
        self.report_uninitialized(instruction, operand, start + int(np.argmin(window)))

    def raises_on_uninitialized(self) -> bool:
        """A read of never-written bytes raises: the policy is ``"raise"``, or ``"warn"`` under :func:`strict_reads`."""
        return self.uninit == "raise" or (self.uninit == "warn" and _STRICT_READS.get())

    def report_uninitialized(self, instruction: str, operand: str, byte_addr: int) -> None:
        message = f"{instruction}: {operand} reads never-written {self.name} byte {_hex(byte_addr)}"
        if self.raises_on_uninitialized():
            raise UninitializedReadError(
                instruction,
                f"{operand} byte address",
                byte_addr,
                f"reads {self.name} bytes never written since the core started (strict mode)",
                "addresses written earlier by a host write or an instruction",
                POLICY_SOURCE,
            )
        if self.uninit == "warn":
            warnings.warn(UninitializedReadWarning(message), stacklevel=user_stacklevel())

    # ------------------------------------------------------------ snapshots
    def snapshot(self) -> tuple[bytes, bytes]:
        """Contents and shadow, for comparing state before and after a call."""
        return self.data.tobytes(), self.written.tobytes()


# ------------------------------------------------------------- recycled arrays
RECYCLED_SIZES = range(1 << 16, (1 << 20) + 1)  # byte sizes whose arrays are recycled (UB: 192-256 KiB)
RECYCLED_PER_SIZE = 8
_recycled: dict[int, list[np.ndarray]] = {}
_recycling = _thread.allocate_lock()


def zeroed_bytes(size: int) -> np.ndarray:
    """A new-looking ``uint8`` array of ``size`` zero bytes, recycled when possible.

    Every kernel launch makes a fresh core, whose UB (data and shadow) is an array of a few
    hundred KiB.  An array that large comes straight from the operating system, and the
    first touch of each of its pages is a page fault: together more than the rest of a
    short launch.  So arrays of :data:`RECYCLED_SIZES` are kept and handed out again once
    nothing refers to them any more — no memory, no numpy view (a view holds a reference
    to the array that owns its bytes), no buffer export — which the interpreter's reference
    count tells exactly (``numpy.ndarray.resize`` checks the same way).  A recycled array is
    zeroed before it is handed out, so nothing can tell it from a fresh one.
    """
    if size not in RECYCLED_SIZES or _UNUSED is None:
        return np.zeros(size, dtype=np.uint8)
    with _recycling:  # two threads must not both take the same free array
        pool = _recycled.setdefault(size, [])
        for array, refs in zip(pool, _reference_counts(pool), strict=True):
            if refs == _UNUSED:
                array.fill(0)
                return array
        array = np.zeros(size, dtype=np.uint8)
        if len(pool) < RECYCLED_PER_SIZE:
            pool.append(array)
        return array


def _reference_counts(pool: list) -> list[int]:
    """The reference count of each array in ``pool``, as seen from here."""
    return [sys.getrefcount(array) for array in pool]


# What _reference_counts reports for an array only the pool refers to (measured, not assumed:
# the count an interpreter reports for a loop variable differs between versions).
_UNUSED = _reference_counts([np.empty(0, dtype=np.uint8)])[0] if hasattr(sys, "getrefcount") else None


def _hex(value: int) -> str:
    return f"{value:#x}" if value >= 0 else f"-{-value:#x}"
