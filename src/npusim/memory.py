"""Byte-addressable on-chip memory with a shadow map of written bytes.

A :class:`Memory` is a flat ``uint8`` array plus a same-sized shadow array
that records, byte by byte, whether the byte was ever written since the memory
was created.  Instructions read through :meth:`Memory.gather` (typed element
reads at byte addresses) and write through :meth:`Memory.scatter`; the shadow
lets every read report the first never-written address it touched.

The shadow only ever gains written bytes, except through a method that clears
it, and every such method bumps :attr:`Memory.shadow_epoch`.  Cached
instruction plans rely on this: once they have seen an operand fully written
they skip its check until the epoch changes.

This module knows nothing about any vendor: Ascend's Unified Buffer and
Sophgo's lane-major local memory are both a :class:`Memory`.
"""

from __future__ import annotations

import os
import warnings
from typing import Literal

import numpy as np

from .errors import OutOfBoundsError, ParameterRangeError, UninitializedReadError, UninitializedReadWarning
from .validate import require_bytes, require_int

__all__ = ["Memory", "UninitPolicy", "core_uninit_policy", "require_uninit_policy", "user_stacklevel"]

UninitPolicy = Literal["warn", "raise", "ignore"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
MAX_MEMORY_BYTES = 1 << 40  # 1 TiB: far beyond any product; numpy allocates lazily, but not past this
_ALL_WRITTEN = {1: 0x01, 2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside npusim."""
    import sys

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
                                  "'warn', 'raise', 'ignore'")
    return uninit  # type: ignore[return-value]


def core_uninit_policy(instruction: str, strict, uninit) -> UninitPolicy:
    """The policy a core's memories use: ``strict=True`` means ``"raise"``; ``uninit`` picks any policy.

    Both vendors' ``Core`` take the two keywords (design.md §3: strict mode makes reads of
    never-written bytes an error).  Asking for ``strict=True`` together with another policy
    is a contradiction and rejected.
    """
    from .validate import require_bool

    strict = require_bool(instruction, "strict", strict)
    if uninit is None:
        return "raise" if strict else "warn"
    uninit = require_uninit_policy(instruction, uninit)
    if strict and uninit != "raise":
        raise ParameterRangeError(instruction, "uninit", uninit, "strict=True already means uninit='raise'",
                                  "'raise' or None together with strict=True")
    return uninit


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
    """

    shadow_epoch = 0

    def __init__(self, size_bytes: int, name: str, uninit: UninitPolicy = "warn") -> None:
        size_bytes = require_int(name, "size", size_bytes, 8, MAX_MEMORY_BYTES)
        if size_bytes % 8:
            raise ParameterRangeError(name, "size", size_bytes, "a memory is a whole number of 8-byte words",
                                      "multiples of 8")
        uninit = require_uninit_policy(name, uninit)
        self.size_bytes = size_bytes
        self.name = name
        self.uninit: UninitPolicy = uninit
        self.data = np.zeros(size_bytes, dtype=np.uint8)
        self.written = np.zeros(size_bytes, dtype=np.uint8)

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
        memory.written = np.full(data.size, 1 if written else 0, dtype=np.uint8)
        return memory

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
            )

    # ------------------------------------------------------------ host access
    def read_bytes(self, addr: int, nbytes: int, who: str = "read") -> bytes:
        """Host read of raw bytes (no uninitialised-read report)."""
        addr = require_int(who, "addr", addr, 0, self.size_bytes)
        nbytes = require_int(who, "nbytes", nbytes, 0, self.size_bytes)
        self.check_span(who, "range", addr, addr + nbytes)
        return self.data[addr : addr + nbytes].tobytes()

    def write_bytes(self, addr: int, payload: bytes | bytearray | memoryview | np.ndarray, who: str = "write") -> None:
        """Host write of raw bytes; marks them written."""
        raw = np.frombuffer(require_bytes(who, "data", payload), dtype=np.uint8)
        addr = require_int(who, "addr", addr, 0, self.size_bytes)
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
        self.written.view(np.dtype(f"<u{dtype.itemsize}"))[elem_index] = _ALL_WRITTEN[dtype.itemsize]

    def mark_written(self, start: int, stop: int) -> None:
        self.written[start:stop] = 1

    def mark_undefined(self, byte_index: np.ndarray) -> None:
        """Record that an instruction left these bytes with undefined content.

        The contents stay as they are; the shadow forgets that they were written, so a
        later read reports them like never-written bytes.  Bumps :attr:`shadow_epoch`.
        """
        self.written[byte_index] = 0
        self.shadow_epoch += 1

    def check_initialized(
        self, instruction: str, operand: str, elem_index: np.ndarray, itemsize: int
    ) -> None:
        """Report the first never-written element among ``elem_index`` (indices in itemsize units).

        Depending on :attr:`uninit`, warns (:class:`UninitializedReadWarning`), raises
        (:class:`UninitializedReadError`) or does nothing.
        """
        if self.uninit == "ignore" or np.size(elem_index) == 0:
            return
        shadow = self.written.view(np.dtype(f"<u{itemsize}"))[elem_index]
        full = _ALL_WRITTEN[itemsize]
        if bool(np.all(shadow == full)):
            return
        flat_idx = np.asarray(elem_index).reshape(-1)
        flat_shadow = shadow.reshape(-1)
        bad = flat_idx[flat_shadow != full]
        first_elem = int(bad.min())
        first_byte = first_elem * itemsize + int(
            np.argmin(self.written[first_elem * itemsize : (first_elem + 1) * itemsize])
        )
        self.report_uninitialized(instruction, operand, first_byte)

    def check_initialized_span(self, instruction: str, operand: str, start: int, stop: int) -> None:
        """Like :meth:`check_initialized`, for the contiguous byte range ``[start, stop)``."""
        if self.uninit == "ignore" or stop <= start:
            return
        window = self.written[start:stop]
        if window.all():
            return
        self.report_uninitialized(instruction, operand, start + int(np.argmin(window)))

    def report_uninitialized(self, instruction: str, operand: str, byte_addr: int) -> None:
        message = f"{instruction}: {operand} reads never-written {self.name} byte {_hex(byte_addr)}"
        if self.uninit == "raise":
            raise UninitializedReadError(
                instruction,
                f"{operand} byte address",
                byte_addr,
                f"reads {self.name} bytes never written since the core started (strict mode)",
                "addresses written earlier by a host write or an instruction",
            )
        if self.uninit == "warn":
            warnings.warn(UninitializedReadWarning(message), stacklevel=user_stacklevel())

    # ------------------------------------------------------------ snapshots
    def snapshot(self) -> tuple[bytes, bytes]:
        """Contents and shadow, for comparing state before and after a call."""
        return self.data.tobytes(), self.written.tobytes()


def _hex(value: int) -> str:
    return f"{value:#x}" if value >= 0 else f"-{-value:#x}"
