"""``LocalMemAllocator``: UB tensors for static-Tensor programming, with no TPipe (docs/semantics.md §5.36).

The allocator hands out consecutive UB bytes from its head, which starts at 0 (on the 950 at the start of dynamic
memory, past the kernel's static arrays, which npusim has none of): ``alloc`` makes a LocalTensor at the head
and moves it on by the tensor's bytes, exactly, with no rounding to 32 (``kernel_tensor_impl.h``), so a tensor
whose bytes are not a multiple of 32 leaves the next one unaligned, and the instructions that need 32-byte
addresses reject it.  The pages' rules (资源管理/内存管理/LocalMemAllocator/*.md):

* ``hard`` is a physical memory, not GM or MAX; npusim models UB only (the others are the cube's);
* one allocator of a physical memory at a time (构造函数 约束说明; the vendor's CPU-debug check says "at any given
  time"), and none beside a live TPipe (简介: "不可以与TPipe等接口混用");
* ``pos`` must lie in ``hard`` (VECIN / VECOUT / VECCALC for UB); without it VECCALC, the vendor's default;
* ``tile_size`` elements must fit in what is left: UB's size less :meth:`get_cur_addr` (Alloc 表2).
"""

from __future__ import annotations

import weakref
from enum import IntEnum

from ...dtypes import DType
from ...errors import OutOfBoundsError, ParameterRangeError, RuntimeMisuseError, UnsupportedError
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..chips import unsupported_on
from ..core import current_core
from ..tensor import LocalTensor
from ..types import TPosition
from .owners import AUTO_POOLS, allocator_of, live_pipe_of, set_allocator

__all__ = ["Hardware", "LocalMemAllocator"]

_INTRO, _CONSTRUCTOR, _ALLOC = (pages.LOCAL_MEM_ALLOCATOR_INTRO, pages.LOCAL_MEM_ALLOCATOR_CONSTRUCTOR,
                                 pages.LOCAL_MEM_ALLOCATOR_ALLOC)
RULES = semantics("5.36")
_UB_POSITIONS = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC)


class Hardware(IntEnum):
    """The physical memories (pyasc ``asc.Hardware``, Ascend C ``enum class Hardware``)."""

    GM = 0
    UB = 1
    L1 = 2
    L0A = 3
    L0B = 4
    L0C = 5
    BIAS = 6
    FIXBUF = 7
    MAX = 8


class LocalMemAllocator:
    """pyasc ``LocalMemAllocator(hard=Hardware.UB)``: consecutive UB tensors from a head address."""

    def __init__(self, hard: Hardware = Hardware.UB) -> None:
        core = current_core("LocalMemAllocator")
        if not isinstance(hard, Hardware):
            raise TypeError(f"LocalMemAllocator: hard must be an asc.Hardware, got {hard!r}")
        if not core.chip.local_mem_allocator:
            raise unsupported_on(core.chip, "LocalMemAllocator", "LocalMemAllocator",
                                 lambda chip: chip.local_mem_allocator, f"{_CONSTRUCTOR} 产品支持情况; {RULES}")
        if hard in (Hardware.GM, Hardware.MAX):
            raise ParameterRangeError("LocalMemAllocator", "hard", hard.name, "GM and MAX are no on-chip memory",
                                      "UB, L1, L0A, L0B, L0C, BIAS, FIXBUF", f"{_INTRO} 模板参数; {RULES}")
        if hard != Hardware.UB:
            raise UnsupportedError("LocalMemAllocator", "hard", hard.name, "npusim models the Unified Buffer only "
                                   "(the other memories are the cube's)", "Hardware.UB", f"{_INTRO} 模板参数; {RULES}")
        if allocator_of(core) is not None:
            raise RuntimeMisuseError("LocalMemAllocator", "hard", hard.name, "only one LocalMemAllocator of a "
                                     "physical memory exists at a time", "drop the first one, or reuse it",
                                     f"{_CONSTRUCTOR} 约束说明; {RULES}")
        pipe = live_pipe_of(core)
        auto = AUTO_POOLS.get(core)
        if pipe is not None or (auto is not None and auto.ranges):
            raise RuntimeMisuseError("LocalMemAllocator", "pipe", repr(pipe) if pipe is not None else "LocalTensorAuto "
                                     "buffers (pyasc's insert_sync makes them TPipe buffers)", "a LocalMemAllocator is "
                                     "not mixed with a TPipe", "static-Tensor programming without TPipe / TQue",
                                     f"{_INTRO} LocalMemAllocator简介; {RULES}")
        self._core = weakref.ref(core)
        self.hard = hard
        self._head = 0
        set_allocator(core, self)

    def __repr__(self) -> str:
        return f"LocalMemAllocator({self.hard.name}, head=0x{self._head:x})"

    def get_cur_addr(self) -> int:
        """The first free byte address (GetCurAddr)."""
        return self._head

    def alloc(self, *args, **kwargs) -> LocalTensor:
        """``alloc(pos, data_type, tile_size)`` (pyasc) or ``alloc(data_type, tile_size)`` (the C++ prototypes
        without a position: VECCALC): a LocalTensor of ``tile_size`` elements at the head, which moves on by its
        bytes."""
        pos, dtype, tile_size = _alloc_arguments(args, kwargs)
        core = self._core()
        if core is None or current_core("LocalMemAllocator.alloc") is not core:
            raise RuntimeMisuseError("LocalMemAllocator.alloc", "allocator", repr(self), "the allocator belongs to "
                                     "another core", "the core it was made on", RULES)
        if pos not in _UB_POSITIONS:
            raise ParameterRangeError("LocalMemAllocator.alloc", "pos", pos.name, "the position must lie in the "
                                      "allocator's memory (UB)", "VECIN, VECOUT, VECCALC",
                                      f"{_ALLOC} 参数说明; {RULES}")
        tile = require_int("LocalMemAllocator.alloc", "tile_size", tile_size, 1, (1 << 32) - 1,
                           f"{_ALLOC} 参数说明 (uint32_t, npusim makes no empty tensor); {RULES}")
        left = core.ub.size_bytes - self._head
        fits = left * 8 // dtype.bits
        if tile > fits:
            raise OutOfBoundsError("LocalMemAllocator.alloc", "tile_size", tile, f"more {dtype.name} elements than "
                                   f"the {left} UB bytes after the head 0x{self._head:x} hold", f"at most {fits}",
                                   f"{_ALLOC} 参数说明 (表2); {RULES}")
        tensor = LocalTensor(dtype, pos, self._head, tile, core=core)
        self._head += dtype.bits * tile // 8
        return tensor


def _alloc_arguments(args: tuple, kwargs: dict) -> tuple[TPosition, DType, object]:
    """``(pos, data_type, tile_size)`` of an ``alloc`` call, ``pos`` VECCALC when the call gives none."""
    names = ("pos", "data_type", "tile_size") if args[:1] and isinstance(args[0], TPosition) or "pos" in kwargs \
        else ("data_type", "tile_size")
    if len(args) > len(names):
        raise TypeError(f"LocalMemAllocator.alloc: expected ({', '.join(names)}), got {len(args)} arguments")
    given = dict(zip(names, args, strict=False))
    for name, value in kwargs.items():
        if name not in names or name in given:
            raise TypeError(f"LocalMemAllocator.alloc: unexpected or repeated argument {name!r}")
        given[name] = value
    missing = [name for name in names if name not in given]
    if missing:
        raise TypeError(f"LocalMemAllocator.alloc: missing argument(s) {missing}")
    pos = given.get("pos", TPosition.VECCALC)
    if not isinstance(pos, TPosition):
        raise TypeError(f"LocalMemAllocator.alloc: pos must be an asc.TPosition, got {pos!r}")
    if not isinstance(given["data_type"], DType):
        raise TypeError(f"LocalMemAllocator.alloc: data_type must be an npusim dtype such as asc.float32, "
                        f"got {given['data_type']!r}")
    return pos, given["data_type"], given["tile_size"]
