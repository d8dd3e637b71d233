"""``LocalTensorAuto``: a UB tensor whose buffer and synchronisation the compiler provides (pyasc insert_sync).

pyasc turns every ``LocalTensorAuto(dtype, shape)`` into a queue or scratch buffer of its
function's TPipe, hoisted out of loops: one buffer per place in the kernel where a tensor is
made, allocated there and freed at the end of the enclosing block; it inserts the queue
events itself.  npusim runs in program order, so no event is needed.  Each place in the
kernel's source (the chain of calling lines, so a helper called from two places has two)
gets one buffer from a per-core pool at the top of the UB the pipe may use
(``vec_local_bytes``); when the same place makes its next tensor (the next loop iteration),
the previous one, and every view of it (``t[off:]`` shares its lease), dies and the buffer is
reused.  A pool that meets the TPipe's buffers is a :class:`~npusim.errors.RuntimeMisuseError`
(docs/semantics.md §10.7).
"""

from __future__ import annotations

import bisect
import math
import os
import sys

from ...dtypes import DType
from ...errors import RuntimeMisuseError
from ...sources import semantics
from ...validate import align_up, require_int
from .. import pages
from ..core import Core, current_core
from ..tensor import Lease, LocalTensor
from ..types import TPosition
from .owners import AUTO_POOLS, allocator_of, live_pipe_of

__all__ = ["LocalTensorAuto"]

SOURCE = semantics("10.7")


class _AutoPool:
    """First-fit from the top: the allocated ``(addr, nbytes)`` ranges of one core, sorted by address."""

    def __init__(self, top: int) -> None:
        self.top = top
        self.ranges: list[tuple[int, int]] = []
        self.sites: dict[tuple, tuple[int, int, Lease]] = {}  # place in the kernel -> (addr, nbytes, lease)

    def buffer_for(self, core: Core, site: tuple, nbytes: int) -> tuple[int, Lease]:
        """The buffer of ``site``: the previous tensor made there dies; the bytes are reused when they fit."""
        previous = self.sites.pop(site, None)
        if previous is not None:
            previous[2].revoke()
            if previous[1] == nbytes:
                lease = Lease(f"LocalTensorAuto at {previous[0]:#x}")
                self.sites[site] = (previous[0], nbytes, lease)
                return previous[0], lease
            self.free(previous[0], previous[1])
        addr = self.alloc(core, nbytes)
        lease = Lease(f"LocalTensorAuto at {addr:#x}")
        self.sites[site] = (addr, nbytes, lease)
        return addr, lease

    def alloc(self, core: Core, nbytes: int) -> int:
        ceiling = self.top
        for addr, size in reversed(self.ranges):
            if ceiling - (addr + size) >= nbytes:
                break
            ceiling = addr
        start = ceiling - nbytes
        pipe = live_pipe_of(core)
        floor = pipe.next_addr if pipe is not None else 0
        if start < floor:
            raise RuntimeMisuseError(
                "LocalTensorAuto", "bytes", nbytes, f"the UB below {self.top:#x} has no free {nbytes}-byte range "
                f"above the TPipe's buffers (which end at {floor:#x})", "fewer or smaller live LocalTensorAuto "
                "tensors", SOURCE)
        bisect.insort(self.ranges, (start, nbytes))
        return start

    def free(self, addr: int, nbytes: int) -> None:
        self.ranges.remove((addr, nbytes))


class LocalTensorAuto(LocalTensor):
    """pyasc ``LocalTensorAuto(dtype, shape)``: ``shape`` an element count or a tuple of dimensions."""

    def __init__(self, dtype: DType, shape=0, pos: TPosition = TPosition.VECCALC) -> None:
        if not isinstance(dtype, DType):
            raise TypeError(f"LocalTensorAuto: dtype must be an npusim dtype such as asc.float16, got {dtype!r}")
        if not isinstance(pos, TPosition):
            raise TypeError(f"LocalTensorAuto: pos must be an asc.TPosition, got {pos!r}")
        core = current_core("LocalTensorAuto")
        top = core.chip.vec_local_bytes or core.ub.size_bytes
        dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        dims = tuple(require_int("LocalTensorAuto", "shape", d, 1, top // dtype.itemsize, SOURCE) for d in dims)
        count = require_int("LocalTensorAuto", "elements", math.prod(dims), 1, top // dtype.itemsize, SOURCE)
        allocator = allocator_of(core)
        if allocator is not None:
            raise RuntimeMisuseError("LocalTensorAuto", "allocator", repr(allocator), "pyasc's insert_sync makes "
                                     "LocalTensorAuto buffers TPipe buffers, and a TPipe is not mixed with a "
                                     "LocalMemAllocator", "LocalTensorAuto or LocalMemAllocator, not both",
                                     f"{pages.LOCAL_MEM_ALLOCATOR_INTRO} LocalMemAllocator简介; {semantics('5.36')}")
        pool = AUTO_POOLS.get(core)
        if pool is None:
            pool = AUTO_POOLS[core] = _AutoPool(top)
        nbytes = align_up(count * dtype.itemsize, 32)
        addr, lease = pool.buffer_for(core, _call_site(), nbytes)
        if core.observer is not None:  # its uses are ordered by pyasc's insert_sync, not by the kernel's flags
            core.observer.auto_buffer(addr, addr + nbytes)
        self._init(core, dtype, pos, addr, count, lease)
        object.__setattr__(self, "shape", dims)


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_SITE_DEPTH = 8


def _call_site() -> tuple:
    """The calling lines outside npusim, innermost first (at most eight frames)."""
    frame = sys._getframe(2)
    site = []
    while frame is not None and len(site) < _SITE_DEPTH:
        if not os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
            site.append((frame.f_code, frame.f_lasti))
        frame = frame.f_back
    return tuple(site)
