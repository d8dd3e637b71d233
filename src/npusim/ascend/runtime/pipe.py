"""The TPipe / TQue / TBuf framework: who owns which Unified Buffer bytes, and when.

``TPipe.init_buffer`` carves the UB of the running core into buffers, from address 0
upward, each length rounded up to 32 bytes, never past the product's
``vec_local_bytes`` (``TOTAL_VEC_LOCAL_SIZE``: on Atlas A2/A3 the 8 KiB above 184 KiB
are the API scratch that Select and others write, docs/semantics.md §1.7, §2.3).

A :class:`TQue` hands its buffers out as tensors (``alloc_tensor``), passes them between
pipeline stages (``enque`` / ``deque``, first in first out, at most ``depth`` at once) and
takes them back (``free_tensor``).  A :class:`TBuf` is one scratch buffer (``get``).

Every tensor handed out carries a :class:`~npusim.ascend.tensor.Lease`; freeing the
buffer (``free_tensor``, ``TPipe.reset`` / ``destroy``) revokes it, so any later use of
the tensor is a :class:`~npusim.errors.RuntimeMisuseError`.  Every protocol violation
raises before any state changes.

Sources (``docs/zh/api/SIMD-API/基础API/资源管理/Pipe和Que框架/``): ``TPipe/InitBuffer.md``
(rounding to 32 bytes, at most 64 buffers), ``TQue/TQue简介.md`` (depth; at most 8 buffers,
4 on the training series, per TPosition), ``TQue/AllocTensor.md``, ``EnQue.md``,
``DeQue.md`` ("对空队列执行DeQue是一种异常行为"), ``FreeTensor.md``; the allocation order
(round robin from a cursor) follows ``impl/basic_api/kernel_tquebind_impl.h`` ``AllocBuffer``.
"""

from __future__ import annotations

import numbers
import weakref
from collections import deque as _fifo
from dataclasses import dataclass

import numpy as np

from ...dtypes import DType
from ...errors import AlignmentError, ParameterRangeError, RuntimeMisuseError, UnsupportedError
from ...overloads import Form, Param, bind
from ...sources import semantics
from ...validate import align_up, require_int
from .. import pages
from ..chips import unsupported_on
from ..core import Core, SyncRecord, active_core, current_core
from ..races import event_pipes
from ..tensor import Lease, LocalTensor
from ..types import UB_POSITIONS, HardEvent, PipeID, TPosition
from .owners import allocator_of, live_pipe_of, set_pipe

__all__ = ["TBuf", "TBufPool", "TPipe", "TQue", "TQueBind", "get_tpipe_ptr", "queue_events"]

BUFFER_ALIGN = 32  # InitBuffer.md: len is rounded up to a multiple of 32 bytes
MAX_BUFFERS = 64  # InitBuffer.md: at most 64 buffers per kernel (QBUF_MAX_LEN)
RULES = semantics("5.5")
PIPE_SOURCE = f"{pages.INIT_BUFFER} 参数说明; {RULES}"
QUE_SOURCE = f"{pages.TQUE_INTRO} TQue简介; {RULES}"
CORE_SOURCE = semantics("10.2")  # a queue, pipe or tensor is used on its own core only



def _misuse(instruction: str, operand: str, value, rule: str, allowed: str, source: str = QUE_SOURCE):
    return RuntimeMisuseError(instruction, operand, value, rule, allowed, source)


def _is_int(value) -> bool:
    return isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, (bool, np.bool_))


def _require_ub_position(instruction: str, pos) -> TPosition:
    if not isinstance(pos, TPosition):
        raise TypeError(f"{instruction}: pos must be an asc.TPosition, got {pos!r}")
    if pos not in UB_POSITIONS:
        raise UnsupportedError(
            instruction, "pos", pos.name, "npusim models the Unified Buffer only (vector cores)",
            "VECIN, VECOUT, VECCALC", semantics("1.8"),
        )
    return pos


@dataclass
class _Slot:
    """One buffer of a queue: its UB bytes and where it is in the alloc/enque/deque/free cycle."""

    addr: int
    nbytes: int
    owner: str  # how messages name the buffer (its leases' owner)
    state: str = "free"  # free -> occupied -> enqueued -> dequeued -> free
    lease: Lease | None = None


#: the events a queue's operations imply, per data path (source position, destination position) of
#: its buffers (docs/semantics.md §11.3; asc-devkit ``GetQueEvt``): enque sets and deque waits for the
#: first, free_tensor sets and the next alloc_tensor of the buffer waits for the second.  A path not
#: listed (VECCALC: its buffers stay on the V pipe) implies no flag.
QUEUE_EVENTS = {(TPosition.GM, TPosition.VECIN): (HardEvent.MTE2_V, HardEvent.V_MTE2),
                (TPosition.VECOUT, TPosition.GM): (HardEvent.V_MTE3, HardEvent.MTE3_V),
                (TPosition.VECIN, TPosition.VECOUT): (HardEvent.MTE2_MTE3, HardEvent.MTE3_MTE2)}
ENQUEUE_EVENT, FREE_EVENT = 0, 1
#: TQue(pos): the data path of its buffers (pyasc ``TQue`` is ``TQueBind`` of these two positions)
TQUE_PATHS = {TPosition.VECIN: (TPosition.GM, TPosition.VECIN),
              TPosition.VECOUT: (TPosition.VECOUT, TPosition.GM),
              TPosition.VECCALC: (TPosition.VECCALC, TPosition.VECCALC)}


def queue_events(src: TPosition, dst: TPosition) -> tuple[HardEvent, HardEvent] | None:
    """The (enqueue, free) events of a queue whose buffers go from ``src`` to ``dst``; None: no flag."""
    return QUEUE_EVENTS.get((src, dst))


def _queue_event(core: Core, path: tuple[TPosition, TPosition], slot, which: int, wait: bool) -> None:
    """Tell the core's sync checker (if any) about the flag a queue operation implies."""
    checker = core.observer
    events = QUEUE_EVENTS.get(path)
    if checker is None or events is None:
        return
    source, destination = event_pipes(events[which])
    key = ("queue", id(slot), which)
    if wait:
        checker.queue_wait(key, destination)
    else:
        checker.queue_set(key, source)


def _live_pipe(instruction: str, holder, operand: str, rule: str, allowed: str):
    """The TPipe a queue, TBuf or TBufPool has its memory from; a misuse error when it has none."""
    pipe = holder._pipe
    if pipe is None or pipe.destroyed:
        raise _misuse(instruction, operand, repr(holder), f"{rule} (not initialised, or its TPipe was reset or "
                      "destroyed)", allowed, f"{pages.INIT_BUFFER} 功能说明; {RULES}")
    return pipe


def _in_place_target(instruction: str, value) -> LocalTensor | None:
    """The tensor of an in-place form (``alloc_tensor(t)``, ``deque(t)``), None for a dtype; else TypeError."""
    if isinstance(value, LocalTensor):
        value._check_host(instruction.split(".")[-1])
        return value
    if not isinstance(value, DType):
        raise TypeError(f"{instruction}: give a dtype such as asc.float16, or a LocalTensor to fill in place, "
                        f"got {value!r}")
    return None


def _require_position(instruction: str, operand: str, pos) -> TPosition:
    if not isinstance(pos, TPosition):
        raise TypeError(f"{instruction}: {operand} must be an asc.TPosition, got {pos!r}")
    return pos


def _user_path(instruction: str, default: tuple[TPosition, TPosition], positions: tuple) -> tuple:
    """The data path of a position form (``enque(t, src_user_pos, dst_user_pos)``), else the queue's."""
    if not positions:
        return default
    if len(positions) != 2:
        raise TypeError(f"{instruction}: give both src_user_pos and dst_user_pos or neither, got "
                        f"{len(positions)} positions")
    return (_require_position(instruction, "src_user_pos", positions[0]),
            _require_position(instruction, "dst_user_pos", positions[1]))


class TQueBind:
    """A queue of UB buffers whose data goes from position ``src`` to ``dst`` (pyasc ``TQueBind``).

    Args:
        src, dst: the logical positions of the data path; ``TQueBind(VECIN, VECOUT)`` holds data
            that MTE2 loads and MTE3 stores with no vector stage between.  The buffers live in UB,
            at ``dst`` when ``src`` is GM, else at ``src``.
        depth: how many tensors may be enqueued at once (``TQue简介.md``); 1 is the usual value.
        mask: pyasc's ``mask`` argument, accepted and not used (as in pyasc).
    """

    def __init__(self, src: TPosition = TPosition.VECIN, dst: TPosition = TPosition.VECIN, depth: int = 0,
                 mask: int = 0, *, who: str = "TQueBind") -> None:
        self.src = _require_position(who, "src", src)
        self.dst = _require_position(who, "dst", dst)
        self.position = _require_ub_position(who, dst if src == TPosition.GM else src)
        self.depth = require_int(who, "depth", depth, 0, 255, f"{pages.TQUE_INTRO} 模板参数; {RULES}")
        self.mask = require_int(who, "mask", mask, 0, (1 << 64) - 1, f"{pages.TQUE_INTRO} 模板参数; {RULES}")
        self._pipe: TPipe | None = None
        self._slots: list[_Slot] = []
        self._cursor = 0
        self._queued: _fifo[_Slot] = _fifo()

    @property
    def path(self) -> tuple[TPosition, TPosition]:
        return self.src, self.dst

    def __repr__(self) -> str:
        return (f"TQueBind({self.src.name}, {self.dst.name}, depth={self.depth}, "
                f"buffers={len(self._slots)})")

    # -------------------------------------------------------------- helpers
    def _ready(self, instruction: str) -> Core:
        """The running core, after checking the queue has buffers and belongs to it."""
        pipe = _live_pipe(instruction, self, "queue", "the queue has no buffers",
                          "call pipe.init_buffer(que, num, len) first")
        core = pipe._core()
        if active_core() is not core:
            current_core(instruction)  # raises when no core is running
            raise _misuse(instruction, "queue", repr(self), "the queue belongs to another core's TPipe",
                          "queues of the running core", CORE_SOURCE)
        return core

    def _slot_of(self, instruction: str, tensor) -> _Slot:
        if not isinstance(tensor, LocalTensor):
            raise TypeError(f"{instruction}: tensor must be a LocalTensor, got {type(tensor).__name__}")
        for slot in self._slots:
            if slot.lease is not None and tensor.lease is slot.lease:
                return slot
        if tensor.lease is not None and not tensor.lease.alive:
            raise _misuse(instruction, "tensor", repr(tensor), f"the tensor's buffer was already freed "
                          f"({tensor.lease.owner})", "a tensor allocated from this queue and not yet freed",
                          f"{pages.FREE_TENSOR} 约束说明; {RULES}")
        raise _misuse(instruction, "tensor", repr(tensor), "the tensor was not allocated from this queue",
                      "tensors returned by this queue's alloc_tensor / deque",
                      f"{pages.ALLOC_TENSOR} 功能说明; {RULES}")

    def _tensor(self, core: Core, dtype: DType, slot: _Slot) -> LocalTensor:
        # The slot's bytes were checked against the pipe's UB pool by init_buffer.
        return LocalTensor.over_checked_bytes(core, dtype, self.position, slot.addr, dtype.count_in(slot.nbytes),
                                              slot.lease)

    # --------------------------------------------------------------- API
    def alloc_tensor(self, dtype_or_tensor: DType | LocalTensor) -> LocalTensor | None:
        """A free buffer of the queue as a tensor covering the whole buffer (``AllocTensor``).

        ``alloc_tensor(dtype)`` returns a new ``dtype`` tensor; ``alloc_tensor(tensor)`` (pyasc's
        in-place form) points ``tensor`` at the buffer, keeping its type, and returns None.
        Buffers are tried round robin from a cursor, as the runtime does; the tensor's
        contents are whatever the buffer last held.
        """
        instruction = "TQue.alloc_tensor"
        in_place = _in_place_target(instruction, dtype_or_tensor)
        dtype = in_place.dtype if in_place is not None else dtype_or_tensor
        core = self._ready(instruction)
        if self.depth == 0 and in_place is None:
            raise _misuse(instruction, "depth", 0, "alloc_tensor(dtype) needs a queue depth of at least 1",
                          "TQue(pos, depth >= 1), or the in-place form alloc_tensor(tensor)",
                          f"{pages.ALLOC_TENSOR} 约束说明; {RULES}")
        limit = core.chip.hard_event_ids
        busy = self._pipe.busy_by_position
        if busy.get(self.position, 0) >= limit:
            raise _misuse(instruction, "buffers in use", f"{limit} on {self.position.name}",
                          f"at most {limit} queue buffers of one TPosition may be allocated at once on "
                          f"{core.chip.product} (one hardware event each)", "free a tensor first",
                          f"{pages.ALLOC_TENSOR} 约束说明; {pages.TQUE_INTRO} TQue Buffer限制; {RULES}")
        slots = self._slots
        count = len(slots)
        for k in range(count):
            index = (self._cursor + k) % count
            if slots[index].state == "free":
                break
        else:
            raise _misuse(instruction, "queue", repr(self), f"all {count} buffers of the queue are allocated",
                          "free_tensor one of them first", f"{pages.ALLOC_TENSOR} 功能说明; {RULES}")
        slot = slots[index]
        if count != 1:
            self._cursor = (index + 1) % count
        slot.state, slot.lease = "occupied", Lease(slot.owner)
        busy[self.position] = busy.get(self.position, 0) + 1
        _queue_event(core, self.path, slot, FREE_EVENT, wait=True)
        return self._hand_out(core, dtype, slot, in_place)

    def enque(self, tensor: LocalTensor, *user_positions: TPosition) -> bool:
        """Put an allocated (or dequeued) tensor at the back of the queue (``EnQue``).

        ``enque(tensor, src_user_pos, dst_user_pos)`` names the data path whose event it sets
        (instead of the queue's own).
        """
        instruction = "TQue.enque"
        path = _user_path(instruction, self.path, user_positions)
        core = self._ready(instruction)
        slot = self._slot_of(instruction, tensor)
        if slot.state == "enqueued":
            raise _misuse(instruction, "tensor", repr(tensor), "the tensor is already in the queue",
                          "an allocated or dequeued tensor", f"{pages.ENQUE} 约束说明; {RULES}")
        if len(self._queued) >= self.depth:
            raise _misuse(instruction, "queue length", len(self._queued),
                          f"the queue already holds depth = {self.depth} tensors",
                          f"at most {self.depth} enqueued at once (raise depth or deque first)",
                          f"{pages.TQUE_INTRO} 模板参数 (depth); {RULES}")
        slot.state = "enqueued"
        self._queued.append(slot)
        _queue_event(core, path, slot, ENQUEUE_EVENT, wait=False)
        return True

    def deque(self, dtype_or_tensor: DType | LocalTensor, *user_positions: TPosition) -> LocalTensor | None:
        """Take the front tensor off the queue, viewed as ``dtype`` (``DeQue``).

        ``deque(tensor)`` (in place) points ``tensor`` at it and returns None;
        ``deque(dtype, src_user_pos, dst_user_pos)`` waits for that data path's event.
        """
        instruction = "TQue.deque"
        in_place = _in_place_target(instruction, dtype_or_tensor)
        dtype = in_place.dtype if in_place is not None else dtype_or_tensor
        path = _user_path(instruction, self.path, user_positions)
        core = self._ready(instruction)
        if not self._queued:
            raise _misuse(instruction, "queue", repr(self), "deque on an empty queue",
                          "enque a tensor first", f"{pages.DEQUE} 约束说明; {RULES}")
        slot = self._queued.popleft()
        slot.state = "dequeued"
        _queue_event(core, path, slot, ENQUEUE_EVENT, wait=True)
        return self._hand_out(core, dtype, slot, in_place)

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Give the tensor's buffer back to the queue; the tensor (and its views) become unusable."""
        instruction = "TQue.free_tensor"
        core = self._ready(instruction)
        slot = self._slot_of(instruction, tensor)
        if slot.state == "enqueued":
            raise _misuse(instruction, "tensor", repr(tensor), "the tensor is still in the queue",
                          "deque it before freeing it", f"{pages.FREE_TENSOR} 约束说明; {RULES}")
        slot.lease.revoke()
        slot.state, slot.lease = "free", None
        self._pipe.busy_by_position[self.position] -= 1
        _queue_event(core, self.path, slot, FREE_EVENT, wait=False)

    def _hand_out(self, core: Core, dtype: DType, slot: _Slot, in_place: LocalTensor | None) -> LocalTensor | None:
        tensor = self._tensor(core, dtype, slot)
        if in_place is None:
            return tensor
        in_place._init(core, dtype, tensor.position, tensor.addr, tensor.tile_size, tensor.lease)
        return None

    def get_tensor_count_in_que(self) -> int:
        return len(self._queued)

    def has_tensor_in_que(self) -> bool:
        return bool(self._queued)

    def vacant_in_que(self) -> bool:
        return len(self._queued) < self.depth

    def has_idle_buffer(self) -> bool:
        return any(slot.state == "free" for slot in self._slots)

    def free_all_event(self) -> None:
        """Accepted for compatibility: npusim keeps no hardware event state per queue."""

    def state(self) -> tuple:
        """Everything the queue's calls can change, for comparing state before and after a call."""
        slots = tuple((slot.addr, slot.nbytes, slot.state, id(slot.lease), slot.lease is not None and slot.lease.alive)
                      for slot in self._slots)
        return id(self._pipe), self._cursor, slots, tuple(self._slots.index(slot) for slot in self._queued)

    # ------------------------------------------------------ pipe side
    def _attach(self, pipe: TPipe, base: int, num: int, nbytes: int) -> None:
        self._pipe = pipe
        self._slots = [_Slot(base + i * nbytes, nbytes, f"{self.position.name} queue buffer at {base + i * nbytes:#x}")
                       for i in range(num)]
        self._cursor = 0
        self._queued.clear()

    def _detach(self) -> None:
        for slot in self._slots:
            if slot.lease is not None:
                slot.lease.revoke()
        self._pipe, self._slots = None, []
        self._queued.clear()


class TQue(TQueBind):
    """A queue of UB buffers between pipeline stages (pyasc ``TQue(pos, depth, mask)``).

    Args:
        pos: VECIN (data from GM to the vector unit), VECOUT (from it to GM) or VECCALC.
        depth: how many tensors may be enqueued at once (``TQue简介.md``); 1 is the usual value.
        mask: accepted and not used (as in pyasc).
    """

    def __init__(self, pos: TPosition = TPosition.VECIN, depth: int = 1, mask: int = 0) -> None:
        pos = _require_ub_position("TQue", pos)
        super().__init__(*TQUE_PATHS[pos], depth, mask, who="TQue")

    def __repr__(self) -> str:
        return f"TQue({self.position.name}, depth={self.depth}, buffers={len(self._slots)})"


class TBuf:
    """One scratch buffer of the UB (pyasc ``TBuf(pos)``), typically at VECCALC."""

    def __init__(self, pos: TPosition = TPosition.VECCALC) -> None:
        self.position = _require_ub_position("TBuf", pos)
        self._pipe: TPipe | None = None
        self._addr = 0
        self._nbytes = 0
        self._lease: Lease | None = None

    def __repr__(self) -> str:
        return f"TBuf({self.position.name}, {self._nbytes} bytes)"

    def _ready(self, instruction: str) -> TPipe:
        return _live_pipe(instruction, self, "buffer", "the TBuf has no memory",
                          "call pipe.init_buffer(buf, len) first")

    def get(self, dtype: DType, len: int | None = None) -> LocalTensor:
        """The buffer (or its first ``len`` elements) as a ``dtype`` tensor (pyasc ``TBuf.get``)."""
        if not isinstance(dtype, DType):
            raise TypeError(f"TBuf.get: dtype must be an npusim dtype such as asc.float16, got {dtype!r}")
        return self.get_with_offset(dtype.count_in(self._nbytes) if len is None else len, 0, dtype,
                                    instruction="TBuf.get")

    def get_with_offset(self, size: int, buf_offset: int, dtype: DType, *,
                        instruction: str = "TBuf.get_with_offset") -> LocalTensor:
        """``size`` elements of ``dtype`` starting ``buf_offset`` bytes into the buffer (32-byte aligned)."""
        if not isinstance(dtype, DType):
            raise TypeError(f"{instruction}: dtype must be an npusim dtype such as asc.float16, got {dtype!r}")
        pipe = self._ready(instruction)
        source = f"{pages.TBUF_GET_WITH_OFFSET} 约束说明; {RULES}"
        buf_offset = require_int(instruction, "buf_offset", buf_offset, 0, self._nbytes, source)
        if buf_offset % BUFFER_ALIGN:
            raise AlignmentError(instruction, "buf_offset", buf_offset, "the offset must be 32-byte aligned",
                                 "multiples of 32", source)
        capacity = dtype.count_in(self._nbytes - buf_offset)
        size = require_int(instruction, "size", size, 1, capacity, source,  # 0 elements would mean "to UB end"
                           rule=f"no elements, or more elements than the {self._nbytes}-byte buffer holds after "
                           "the offset")
        return LocalTensor(dtype, self.position, self._addr + buf_offset, size, core=pipe.core, lease=self._lease)

    # A TBuf is a TQueBind of depth 0 underneath (asc-devkit kernel_tbuf_impl.h): its queue calls
    # give the whole buffer or do nothing, and imply no flag (docs/semantics.md §11.3).
    def alloc_tensor(self, dtype_or_tensor: DType | LocalTensor) -> LocalTensor | None:
        """The whole buffer, as ``get(dtype)``; the in-place form ``alloc_tensor(t)`` points ``t`` at it."""
        return self._whole("TBuf.alloc_tensor", dtype_or_tensor)

    def deque(self, dtype_or_tensor: DType | LocalTensor) -> LocalTensor | None:
        """The whole buffer again (a TBuf holds no queue of tensors)."""
        return self._whole("TBuf.deque", dtype_or_tensor)

    def enque(self, tensor: LocalTensor) -> bool:
        """Does nothing on a TBuf (no event is set), after checking ``tensor`` is this buffer's."""
        self._own("TBuf.enque", tensor)
        return True

    def free_tensor(self, tensor: LocalTensor) -> None:
        """Does nothing on a TBuf: the buffer stays the tensor's, no event is set."""
        self._own("TBuf.free_tensor", tensor)

    def _whole(self, instruction: str, dtype_or_tensor) -> LocalTensor | None:
        in_place = _in_place_target(instruction, dtype_or_tensor)
        dtype = in_place.dtype if in_place is not None else dtype_or_tensor
        tensor = self.get_with_offset(dtype.count_in(self._nbytes), 0, dtype, instruction=instruction)
        if in_place is None:
            return tensor
        in_place._init(tensor.core, dtype, tensor.position, tensor.addr, tensor.tile_size, tensor.lease)
        return None

    def _own(self, instruction: str, tensor) -> None:
        if not isinstance(tensor, LocalTensor):
            raise TypeError(f"{instruction}: tensor must be a LocalTensor, got {type(tensor).__name__}")
        self._ready(instruction)
        if tensor.lease is None or tensor.lease is not self._lease:
            raise _misuse(instruction, "tensor", repr(tensor), "the tensor is not a view of this buffer",
                          "tensors from this TBuf's get / alloc_tensor", f"{pages.ALLOC_TENSOR} 功能说明; {RULES}")

    def state(self) -> tuple:
        """Everything the buffer's calls can change, for comparing state before and after a call."""
        return id(self._pipe), self._addr, self._nbytes, id(self._lease), self._lease is not None and self._lease.alive

    def _attach(self, pipe: TPipe, base: int, nbytes: int) -> None:
        self._pipe, self._addr, self._nbytes = pipe, base, nbytes
        self._lease = Lease(f"TBuf at {base:#x}")

    def _detach(self) -> None:
        if self._lease is not None:
            self._lease.revoke()
        self._pipe, self._lease = None, None


class TBufPool:
    """A range of the UB that a TPipe lends out again (pyasc ``TBufPool(pos, buf_id_size)``, ``TBufPool.md``).

    ``pipe.init_buf_pool(pool, len)`` gives it ``len`` bytes (or, with ``share_buf``, the bytes
    of another pool: both then lend the same memory, for stages that never overlap);
    ``pool.init_buffer(que, num, len)`` / ``pool.init_buffer(buf=, len=)`` carve queues and TBufs
    from it, at most ``buf_id_size`` buffers; ``pool.reset()`` takes them all back.
    """

    def __init__(self, pos: TPosition = TPosition.VECCALC, buf_id_size: int = 4) -> None:
        self.position = _require_ub_position("TBufPool", pos)
        self.buf_id_size = require_int("TBufPool", "buf_id_size", buf_id_size, 1, MAX_BUFFERS, PIPE_SOURCE)
        self._pipe: TPipe | None = None
        self.start_addr = self.end_addr = self.next_addr = 0
        self.buffer_count = 0
        self._members: list = []
        self._pools: list[TBufPool] = []  # the pools carved from this one (init_buf_pool)

    def __repr__(self) -> str:
        return f"TBufPool({self.position.name}, [{self.start_addr:#x}, {self.end_addr:#x}))"

    def init_buffer(self, *args, **kwargs) -> bool:
        """``init_buffer(que, num, len)`` or ``init_buffer(buf=tbuf, len=nbytes)``, from the pool's bytes."""
        instruction = "TBufPool.init_buffer"
        form, bound = bind(instruction, _POOL_INIT_FORMS, args, kwargs)
        pipe = self._ready(instruction)
        queues, bufs = len(pipe.queues), len(pipe.bufs)
        pipe._carve(instruction, form, bound, self)
        self._members += pipe.queues[queues:] + pipe.bufs[bufs:]
        return True

    def init_buf_pool(self, buf_pool: TBufPool, len: int = 0, share_buf: TBufPool | None = None) -> bool:  # noqa: A002
        """Carve ``buf_pool`` from this pool (TBufPool ``InitBufPool``): ``len`` bytes at the pool's next free
        address, or with ``share_buf`` that pool's bytes to share (TBufPool/InitBufPool-55.md)."""
        instruction = "TBufPool.init_buf_pool"
        return self._ready(instruction)._init_pool(instruction, self, buf_pool, len, share_buf)

    def reset(self) -> None:
        """Take back every buffer of the pool and every pool carved from it (their tensors become unusable);
        carving starts again."""
        pipe = self._ready("TBufPool.reset")
        self._take_back(pipe)
        self.next_addr = self.start_addr

    def _take_back(self, pipe: TPipe) -> None:
        for pool in self._pools:
            pool._take_back(pipe)
            pool._detach()
            pipe.pools.remove(pool)
        for member in self._members:
            member._detach()
            (pipe.queues if isinstance(member, TQueBind) else pipe.bufs).remove(member)
        pipe.buffer_count -= self.buffer_count
        self._members, self._pools, self.buffer_count = [], [], 0

    def check_count(self, instruction: str, num: int) -> None:
        if self.buffer_count + num > self.buf_id_size:
            raise _misuse(instruction, "num", num, f"the pool already lends {self.buffer_count} buffers",
                          f"at most buf_id_size = {self.buf_id_size}", PIPE_SOURCE)

    def overflow_rule(self, num: int, nbytes: int, end: int) -> str:
        return (f"{num} x {nbytes} bytes from UB address {self.next_addr:#x} end at {end:#x}, past the pool's "
                f"end {self.end_addr:#x}")

    def _ready(self, instruction: str) -> TPipe:
        return _live_pipe(instruction, self, "buf_pool", "the pool has no memory",
                          "call pipe.init_buf_pool(pool, len) first")

    def _attach(self, pipe: TPipe, start: int, end: int) -> None:
        self._pipe, self.start_addr, self.end_addr, self.next_addr = pipe, start, end, start
        self._members, self._pools, self.buffer_count = [], [], 0

    def _detach(self) -> None:
        self._pipe, self._members, self._pools, self.buffer_count = None, [], [], 0


def _is_que(value) -> bool:
    return isinstance(value, TQueBind)


def _is_buf(value) -> bool:
    return isinstance(value, TBuf)


_INIT_FORMS = (
    Form("queue", (Param("que", _is_que), Param("num", _is_int), Param("len", _is_int))),
    Form("tbuf", (Param("buf", _is_buf), Param("num", _is_int))),  # pyasc: init_buffer(buf=..., num=length)
    Form("tbuf_len", (Param("buf", _is_buf), Param("len", _is_int))),
)


_POOL_INIT_FORMS = (_INIT_FORMS[0], _INIT_FORMS[2])  # TBufPool: the TBuf form's keyword is len


class TPipe:
    """The UB allocator of one core (pyasc ``TPipe()``); a kernel creates one per core."""

    def __init__(self) -> None:
        core = current_core("TPipe")
        if core.chip.vec_local_bytes is None:
            raise unsupported_on(core.chip, "TPipe", "the TPipe/TQue framework",
                                 lambda c: c.vec_local_bytes is not None, f"{pages.INIT_BUFFER} 产品支持情况; {RULES}")
        _require_no_allocator("TPipe", core)
        existing = live_pipe_of(core)
        if existing is not None:
            raise _misuse("TPipe", "pipe", repr(existing), "this core already has a TPipe (a kernel creates one "
                          "TPipe)", "pipe.destroy() the first one, or reuse it",
                          f"{pages.TPIPE_INTRO} TPipe简介; {RULES}")
        self._core = weakref.ref(core)
        self.capacity_bytes: int = core.chip.vec_local_bytes
        self.queues: list[TQueBind] = []
        self.bufs: list[TBuf] = []
        self.next_addr = 0
        self.buffer_count = 0
        self.busy_by_position: dict[TPosition, int] = {}  # queue buffers allocated and not yet freed
        self.event_ids: dict[HardEvent, int] = {}  # per event, a bit set of the ids alloc_event_id handed out
        self.pools: list[TBufPool] = []
        self.destroyed = False
        set_pipe(core, self)

    @property
    def core(self) -> Core:
        """The core the pipe was made on.

        Held weakly: a pipe and its queues refer to each other, so they are freed together
        by the cycle collector, later than plain garbage; a strong reference would keep the
        core, and its UB arrays, alive until then (``npusim.memory.zeroed_bytes`` reuses
        them as soon as nothing refers to them).
        """
        return self._core()

    def __repr__(self) -> str:
        return (f"TPipe({self.core.chip.name}, {self.next_addr} of {self.capacity_bytes} UB bytes, "
                f"{self.buffer_count} buffers)")

    def init_buffer(self, *args, **kwargs) -> bool:
        """Give a queue ``num`` buffers of ``len`` bytes, or a TBuf one buffer, from the UB pool.

        Forms (pyasc)::

            pipe.init_buffer(que, num, len)          # TQue: num buffers of len bytes each
            pipe.init_buffer(buf, num)               # TBuf: num is the length in bytes (pyasc naming)
            pipe.init_buffer(buf=buf, len=nbytes)

        Lengths are rounded up to 32 bytes.
        """
        instruction = "TPipe.init_buffer"
        form, bound = bind(instruction, _INIT_FORMS, args, kwargs)
        self._require_alive(instruction)
        return self._carve(instruction, form, bound, self)

    def overflow_rule(self, num: int, nbytes: int, end: int) -> str:
        return (f"{num} x {nbytes} bytes from UB address {self.next_addr:#x} end at {end:#x}, past the "
                f"{self.capacity_bytes // 1024} KiB the pipe may use on {self.core.chip.product} (above it lies "
                "the API scratch)")

    @property
    def end_addr(self) -> int:
        return self.capacity_bytes

    def _carve(self, instruction: str, form: str, bound: dict, region) -> bool:
        """Give the queue or TBuf of ``bound`` its buffers from ``region`` (this pipe, or a TBufPool of it)."""
        self._require_own_core(instruction)
        if form == "queue":
            target, num = bound["que"], require_int(instruction, "num", bound["num"], 1, MAX_BUFFERS, PIPE_SOURCE)
            length = bound["len"]
        else:
            target, num = bound["buf"], 1
            length = bound["num"] if form == "tbuf" else bound["len"]
        length = require_int(instruction, "len", length, 1, (1 << 32) - 1, PIPE_SOURCE,
                             rule="a buffer length is a uint32_t of at least 1 byte")
        if target._pipe is not None and not target._pipe.destroyed:
            raise _misuse(instruction, "que" if form == "queue" else "buf", repr(target),
                          "the queue or buffer already has memory", "call pipe.reset() before re-initialising",
                          PIPE_SOURCE)
        nbytes = align_up(length, BUFFER_ALIGN)
        if self.buffer_count + num > MAX_BUFFERS:
            raise _misuse(instruction, "num", num, f"the pipe already manages {self.buffer_count} buffers",
                          f"at most {MAX_BUFFERS} in total", f"{pages.INIT_BUFFER} 约束说明; {RULES}")
        if region is not self:
            region.check_count(instruction, num)
        end = region.next_addr + num * nbytes
        if end > region.end_addr:
            raise _misuse(instruction, "len", length, region.overflow_rule(num, nbytes, end),
                          f"at most {region.end_addr - region.next_addr} more bytes",
                          f"{pages.INIT_BUFFER} 约束说明; {semantics('1.7', '5.5')}")
        if form == "queue":
            target._attach(self, region.next_addr, num, nbytes)
            self.queues.append(target)
        else:
            target._attach(self, region.next_addr, nbytes)
            self.bufs.append(target)
        region.next_addr = end
        self.buffer_count += num
        if region is not self:
            region.buffer_count += num
        return True

    def init_buf_pool(self, buf_pool: TBufPool, len: int = 0, share_buf: TBufPool | None = None) -> bool:  # noqa: A002
        """Give ``buf_pool`` ``len`` bytes of the UB (``InitBufPool``), or ``share_buf``'s bytes to share.

        The pool then hands its bytes to queues and TBufs with its own ``init_buffer``.
        """
        self._require_alive("TPipe.init_buf_pool")
        return self._init_pool("TPipe.init_buf_pool", self, buf_pool, len, share_buf)

    def _init_pool(self, instruction: str, region, buf_pool: TBufPool, length, share_buf: TBufPool | None) -> bool:
        """``InitBufPool`` from ``region`` (this pipe, or a TBufPool of it: TBufPool/InitBufPool-55.md): ``length``
        bytes, rounded up to 32, at the region's next free address, or in share mode ``share_buf``'s start and
        length, which ``length`` may not exceed (``kernel_tbufpool_impl.h``)."""
        self._require_own_core(instruction)
        if not isinstance(buf_pool, TBufPool):
            raise TypeError(f"{instruction}: buf_pool must be an asc.TBufPool, got {type(buf_pool).__name__}")
        if buf_pool is region:
            raise _misuse(instruction, "buf_pool", repr(buf_pool), "a pool cannot be carved from itself",
                          "another TBufPool", f"{pages.TBUFPOOL_INIT_BUF_POOL} 功能说明; {RULES}")
        if buf_pool._pipe is not None and not buf_pool._pipe.destroyed:
            raise _misuse(instruction, "buf_pool", repr(buf_pool), "the pool already has memory",
                          "call pipe.reset() before re-initialising", PIPE_SOURCE)
        if share_buf is not None and not isinstance(share_buf, TBufPool):
            raise TypeError(f"{instruction}: share_buf must be an asc.TBufPool, got {type(share_buf).__name__}")
        # in share mode the length is only held against the shared pool's (约束说明), so 0, pyasc's default, is fine
        low = 0 if share_buf is not None else 1
        nbytes = align_up(require_int(instruction, "len", length, low, (1 << 32) - 1, PIPE_SOURCE), BUFFER_ALIGN)
        if share_buf is not None:
            if share_buf._pipe is not self:
                raise _misuse(instruction, "share_buf", repr(share_buf), "the pool to share has no memory of this "
                              "pipe", "a pool this pipe's init_buf_pool initialised", PIPE_SOURCE)
            shared = share_buf.end_addr - share_buf.start_addr
            if nbytes > shared:
                raise _misuse(instruction, "len", length, f"{nbytes} bytes (rounded up to 32) are more than the "
                              f"{shared} bytes of the pool to share", f"at most {shared}",
                              f"{pages.TBUFPOOL_INIT_BUF_POOL} 约束说明; {RULES}")
            buf_pool._attach(self, share_buf.start_addr, share_buf.end_addr)
        else:
            end = region.next_addr + nbytes
            if end > region.end_addr:
                raise _misuse(instruction, "len", length, region.overflow_rule(1, nbytes, end),
                              f"at most {region.end_addr - region.next_addr} more bytes",
                              f"{pages.INIT_BUFFER} 约束说明; {semantics('1.7', '5.5')}")
            buf_pool._attach(self, region.next_addr, end)
            region.next_addr = end
        self.pools.append(buf_pool)
        if region is not self:
            region._pools.append(buf_pool)
        return True

    def reset(self) -> None:
        """Take every buffer back (their tensors become unusable); the pool starts again at 0."""
        self._require_alive("TPipe.reset")
        self._release()

    def destroy(self) -> None:
        """Release everything, as ``reset``, and end the pipe (it records a ``pipe_barrier(PIPE_ALL)``)."""
        self._require_alive("TPipe.destroy")
        self._release()
        self.destroyed = True
        self.core.sync_log.append(SyncRecord("pipe_barrier", int(PipeID.PIPE_ALL), 0))
        if self.core.observer is not None:
            self.core.observer.model.barrier(PipeID.PIPE_ALL)

    def init(self) -> None:
        """Make a destroyed pipe usable again, with an empty pool and no event ids (``TPipe::Init``).

        A pipe that was never destroyed is ready already: then nothing changes.
        """
        if not self.destroyed:
            return
        self._require_own_core("TPipe.init")
        core = self.core
        _require_no_allocator("TPipe.init", core)
        existing = live_pipe_of(core)
        if existing is not None and existing is not self:
            raise _misuse("TPipe.init", "pipe", repr(existing), "this core has another live TPipe",
                          "destroy it first", f"{pages.TPIPE_INTRO} TPipe简介; {RULES}")
        self.destroyed = False
        self.event_ids = {}
        set_pipe(core, self)

    def get_base_addr(self, logic_pos: TPosition) -> int:
        """The base address of ``logic_pos``'s memory (``GetBaseAddr``): 0 for the UB positions.

        ``GetBaseAddr.md``: a CPU-debug aid, the tensor address minus it is the device offset;
        npusim's tensor addresses are device offsets already.  GM has no base in a pipe.
        """
        instruction = "TPipe.get_base_addr"
        self._require_alive(instruction)
        pos = _require_position(instruction, "logic_pos", logic_pos)
        if pos == TPosition.GM:
            raise ParameterRangeError(instruction, "logic_pos", pos.name, "GM is not a memory of the pipe",
                                      "VECIN, VECOUT, VECCALC", RULES)
        _require_ub_position(instruction, pos)
        return 0

    # ------------------------------------------------------------ event ids
    def _event(self, instruction: str, event) -> HardEvent:
        self._require_alive(instruction)
        if not isinstance(event, HardEvent):
            raise TypeError(f"{instruction}: event must be an asc.HardEvent, got {event!r}")
        return event

    def _free_id(self, instruction: str, event: HardEvent) -> int:
        limit = self.core.chip.hard_event_ids
        used = self.event_ids.get(event, 0)
        for event_id in range(limit):
            if not used >> event_id & 1:
                return event_id
        raise _misuse(instruction, "event ids", f"{limit} of {event.name} in use",
                      f"{self.core.chip.product} has {limit} ids per event", "release_event_id one first",
                      f"{pages.SET_FLAG} 参数说明; {semantics('5.6')}")

    def alloc_event_id(self, event: HardEvent = HardEvent.V_S) -> int:
        """The lowest free id of ``event``, now in use (pyasc ``alloc_event_id``, ``TPipe::AllocEventID``)."""
        event = self._event("TPipe.alloc_event_id", event)
        event_id = self._free_id("TPipe.alloc_event_id", event)
        self.event_ids[event] = self.event_ids.get(event, 0) | 1 << event_id
        return event_id

    def fetch_event_id(self, event: HardEvent = HardEvent.V_S) -> int:
        """The lowest free id of ``event``, without taking it (``TPipe::FetchEventID``)."""
        event = self._event("TPipe.fetch_event_id", event)
        return self._free_id("TPipe.fetch_event_id", event)

    def release_event_id(self, id: int, event: HardEvent = HardEvent.V_S) -> None:  # noqa: A002 - pyasc's name
        """Give back an id from :meth:`alloc_event_id` (``TPipe::ReleaseEventID``)."""
        event = self._event("TPipe.release_event_id", event)
        limit = self.core.chip.hard_event_ids
        event_id = require_int("TPipe.release_event_id", "id", id, 0, limit - 1,
                               f"{pages.SET_FLAG} 参数说明; {semantics('5.6')}")
        used = self.event_ids.get(event, 0)
        if not used >> event_id & 1:
            raise _misuse("TPipe.release_event_id", "id", event_id, f"the id of {event.name} is not allocated",
                          "an id returned by alloc_event_id and not yet released",
                          f"{pages.SET_FLAG} 参数说明; {semantics('5.6')}")
        self.event_ids[event] = used & ~(1 << event_id)

    def state(self) -> tuple:
        """Everything the pipe's calls can change (its queues and buffers included), for comparisons."""
        return (self.destroyed, self.next_addr, self.buffer_count, sorted(self.busy_by_position.items()),
                tuple(que.state() for que in self.queues), tuple(buf.state() for buf in self.bufs))

    def _release(self) -> None:
        for que in self.queues:
            que._detach()
        for buf in self.bufs:
            buf._detach()
        for pool in self.pools:
            pool._detach()
        self.queues, self.bufs, self.pools = [], [], []
        self.busy_by_position = {}
        self.next_addr = self.buffer_count = 0

    def _require_own_core(self, instruction: str) -> None:
        if current_core(instruction) is not self.core:
            raise _misuse(instruction, "pipe", repr(self), "the TPipe belongs to another core", "the running core's",
                          CORE_SOURCE)

    def _require_alive(self, instruction: str) -> None:
        if self.destroyed:
            raise _misuse(instruction, "pipe", "destroyed", "the TPipe was destroyed", "create a new TPipe",
                          f"{pages.TPIPE_DESTROY} 功能说明; {RULES}")


def _require_no_allocator(instruction: str, core: Core) -> None:
    """A TPipe is not made beside a LocalMemAllocator (LocalMemAllocator简介.md; docs/semantics.md §5.36)."""
    allocator = allocator_of(core)
    if allocator is not None:
        raise _misuse(instruction, "allocator", repr(allocator), "a TPipe is not mixed with a LocalMemAllocator",
                      "the TPipe / TQue framework or static-Tensor programming, not both",
                      f"{pages.LOCAL_MEM_ALLOCATOR_INTRO} LocalMemAllocator简介; {semantics('5.36')}")


def tensors_in_use(core: Core) -> list[str]:
    """The queue buffers of ``core``'s live TPipe still allocated, enqueued or dequeued (for the sync checker)."""
    pipe = live_pipe_of(core)
    if pipe is None:
        return []
    return [f"{slot.owner} ({slot.state})" for que in pipe.queues for slot in que._slots if slot.state != "free"]
def get_tpipe_ptr() -> TPipe:
    """The running core's live TPipe (pyasc ``get_tpipe_ptr``, Ascend C ``GetTPipePtr``)."""
    existing = live_pipe_of(current_core("get_tpipe_ptr"))
    if existing is None:
        raise _misuse("get_tpipe_ptr", "pipe", "none", "the running core has no live TPipe", "create one: asc.TPipe()",
                      f"{pages.TPIPE_INTRO} TPipe简介; {RULES}")
    return existing
