"""Cores prepared for fuzzing, and snapshots of everything a call could change.

A snapshot is compared with ``==`` before and after a rejected call, so it must hold
every byte and register: memory contents *and* written-shadows, every register, the
sync log, the runtime's allocations, and global memory.

Ascend cores are cheap (a 192-256 KiB UB): each example gets a fresh core whose UB is
pre-filled with random bytes and marked written.  Sophgo local memory is up to 16 MiB
(64 lanes x 256 KiB), too big to copy twice per example, so a Sophgo fuzz core is
*canonical*: the first :data:`LANE_FILL` bytes of every lane hold known random bytes
(every test operand lives there), the rest of every lane is zero and never written.  Its
snapshot is that prefix plus one flag saying whether anything beyond it was touched,
which is exact for such a core (any write there sets written-shadow bytes).
"""

from __future__ import annotations

import numpy as np

from npusim import ascend as asc
from npusim import sophgo as tpu
from npusim.ascend.runtime import owners

__all__ = ["LANE_FILL", "ascend_core", "ascend_state", "sophgo_core", "sophgo_state"]

UB_FILL = np.random.default_rng(0).integers(0, 256, 256 * 1024, dtype=np.uint8)
LANE_FILL = 16 * 1024
LANE_PATTERN = np.random.default_rng(1).integers(0, 256, (64, LANE_FILL), dtype=np.uint8)


# ----------------------------------------------------------------------- Ascend
def ascend_core(chip: str, strict: bool = False, **options) -> asc.Core:
    """A fresh Ascend core whose whole UB holds random bytes, all marked written."""
    core = asc.Core(chip, strict=strict, **options)
    core.ub.data[:] = UB_FILL[: core.ub.size_bytes]
    core.ub.written[:] = 1
    return core


def ascend_state(core: asc.Core, *gm, runtime: tuple = ()) -> tuple:
    """UB, registers and sync log of ``core``; the memory of GM buffers or addresses ``gm``;
    the state of runtime objects (TPipe, TQue, TBuf) ``runtime``, and which TPipe and LocalMemAllocator the core
    has."""
    buffers = [g.buffer if hasattr(g, "buffer") else g for g in gm]
    return (core.ub.snapshot(), core.register_state(), tuple(core.sync_log),
            tuple(b.memory.snapshot() for b in buffers), tuple(obj.state() for obj in runtime),
            id(owners.live_pipe_of(core)), id(owners.allocator_of(core)))


# ----------------------------------------------------------------------- Sophgo
_CANONICAL: dict[tuple[str, str], tpu.Core] = {}


def sophgo_core(chip: str, uninit: str = "warn") -> tpu.Core:
    """A canonical Sophgo core: known bytes in the first LANE_FILL bytes of each lane, zeros elsewhere.

    One core per (chip, policy) is kept and reset to that state for every example: resetting
    touches memory that is already mapped, where a fresh 16 MiB core pays a page fault per page.
    """
    core = _CANONICAL.get((chip, uninit))
    if core is None:
        core = _CANONICAL[(chip, uninit)] = tpu.Core(chip, uninit=uninit)
    lanes = core.chip.npu_num
    data, written = core.lmem.data.reshape(lanes, -1), core.lmem.written.reshape(lanes, -1)
    data[:, :LANE_FILL] = LANE_PATTERN[:lanes]
    written[:, :LANE_FILL] = 1
    data[:, LANE_FILL:] = 0
    written[:, LANE_FILL:] = 0
    # the written-shadow lost bytes: tell plan caches that rely on it (Memory.shadow_epoch, where it exists)
    core.lmem.shadow_epoch = getattr(core.lmem, "shadow_epoch", 0) + 1
    return core


def sophgo_state(core: tpu.Core) -> tuple:
    """Exact state of a canonical core: the filled prefix of each lane (contents and shadow),
    whether any byte beyond it was written or changed, and global memory if it was ever used."""
    lanes = core.chip.npu_num
    data, written = core.lmem.data.reshape(lanes, -1), core.lmem.written.reshape(lanes, -1)
    rest_touched = bool(data[:, LANE_FILL:].view(np.uint64).max() or written[:, LANE_FILL:].view(np.uint64).max())
    gmem = vars(core).get("gmem")  # created on first use; creating it here would cost 256 MiB
    return (data[:, :LANE_FILL].tobytes(), written[:, :LANE_FILL].tobytes(), rest_touched,
            None if gmem is None else gmem.snapshot())
