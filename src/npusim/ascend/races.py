"""Pipe synchronisation checking: a happens-before model of one AI Core's pipes over the access records.

An AI Core's pipes — S (scalar), V (vector), MTE2 (GM -> UB), MTE3 (UB -> GM), and the cube's
MTE1/M/FIX — run concurrently; npusim executes every call in program order, so a kernel whose
pipes are not ordered passes here and races on the device.  This module finds those races from
what each call read and wrote (its :class:`~npusim.engine.trace.AccessRecord`), with vector clocks
(one logical clock per pipe, as in the race detectors of Pallas and ThreadSanitizer):

* calls on one pipe are ordered by program order (a pipe executes in order);
* ``set_flag(event, id)`` on the event's source pipe publishes that pipe's clock; the matching
  ``wait_flag(event, id)`` makes the destination pipe's later calls happen after it
  (docs/semantics.md §11.1; asc-devkit ``SetFlag/WaitFlag``);
* ``pipe_barrier(PIPE_ALL)`` orders every call before it before every call after it; a barrier
  on one pipe orders only that pipe, which program order already does (§11.2);
* a ``_sync`` C-API function is its instruction followed by ``pipe_barrier(PIPE_ALL)``
  (asc-devkit ``asc_sync_post_process``);
* TQue ``enque``/``deque``/``alloc_tensor``/``free_tensor`` are the flags Ascend C inserts for them
  (the queue's enqueue and free events, §11.3), given to this model as set/wait pairs;
* a scalar ``get_value``/``set_value`` of UB or GM is an access on S (§11.5), ordered like any other.

Two accesses of the same byte race when they are on different pipes, at least one writes, and
neither happens before the other.  Each race names both calls, their pipes and source lines, the
bytes, and the event that would order them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter

from ..engine.trace import AccessRecord, ByteRange
from ..errors import SyncError
from ..segments import Segments
from ..sources import semantics
from .types import HardEvent, PipeID

__all__ = ["PIPES", "PipeModel", "Race", "event_pipes"]

#: the pipes the model orders, by clock index
PIPES = ("S", "V", "MTE2", "MTE3", "MTE1", "M", "FIX")
_INDEX = {pipe: i for i, pipe in enumerate(PIPES)}
SYNC_SOURCE = semantics("11")


#: each HardEvent's (source, destination) pipes, from its name (a queue operation asks per call)
_EVENT_PIPES = {event: tuple(event.name.split("_")) for event in HardEvent}


def event_pipes(event: HardEvent) -> tuple[str, str]:
    """The (source, destination) pipes of a HardEvent: ``MTE2_V`` -> ``("MTE2", "V")``."""
    return _EVENT_PIPES[event]


def pipe_of(pipe: PipeID) -> str | None:
    """The model's name of a PipeID (``PIPE_V`` -> ``"V"``); ``None`` for PIPE_ALL."""
    return None if pipe is PipeID.PIPE_ALL else pipe.name.removeprefix("PIPE_")


@dataclass(frozen=True)
class Race:
    """Two unordered accesses of the same bytes by different pipes."""

    kind: str  # "read after write", "write after read", "write after write"
    first: AccessRecord
    second: AccessRecord
    where: ByteRange

    @property
    def event(self) -> HardEvent | None:
        """The HardEvent whose set_flag/wait_flag pair would order the two calls, if one exists."""
        return HardEvent.__members__.get(f"{self.first.pipe}_{self.second.pipe}")

    def message(self) -> str:
        fix = (f"missing set_flag/wait_flag({self.event.name})" if self.event is not None
               else "missing pipe_barrier(PIPE_ALL)")
        first, second = self.first, self.second
        return (f"{self.kind} race on {self.where!r}: {first.instruction} at {first.source} ({first.pipe} pipe) and "
                f"{second.instruction} at {second.source} ({second.pipe} pipe) are not ordered: {fix} between "
                f"{first.instruction} at {first.source} and {second.instruction} at {second.source}")

    def error(self) -> SyncError:
        return SyncError(self.second.instruction, _space_name(self.where), (self.where.start, self.where.stop),
                         self.message(), "accesses of one byte by two pipes ordered by set_flag/wait_flag, "
                         "pipe_barrier(PIPE_ALL) or a TQue enque/deque", SYNC_SOURCE)


def _space_name(where: ByteRange) -> str:
    return where.space if where.buffer is None else f"{where.space} buffer {where.buffer}"


def _widen(unseen: dict[int, list[int]], index: int, start: int, stop: int) -> None:
    span = unseen.get(index)
    if span is None:
        unseen[index] = [start, stop]
    else:
        span[0], span[1] = min(span[0], start), max(span[1], stop)


class _Shadow:
    """One memory's accesses, as segments (:class:`~npusim.segments.Segments`): the last write of
    each byte (pipe, clock, record index) and, per pipe that read it, that pipe's last read
    (clock, record index); and per pipe the newest clock of its writes / reads anywhere in the
    memory — when a pipe has seen all of them, no byte of the memory can race with it."""

    __slots__ = ("writes", "reads", "newest_write", "newest_read")

    def __init__(self) -> None:
        self.writes = Segments()
        self.reads: dict[int, Segments] = {}
        self.newest_write: dict[int, int] = {}  # pipe index -> its newest write's clock
        self.newest_read: dict[int, int] = {}


def _unseen(newest: dict[int, int], pipe: int, seen: list[int]) -> list[int]:
    """The pipes other than ``pipe`` with an access in ``newest`` that ``seen`` does not cover."""
    return [other for other, time in newest.items() if other != pipe and time > seen[other]]


_START_STOP = itemgetter(1, 2)  # a ByteRange's (start, stop)


def _by_memory(ranges: tuple[ByteRange, ...]) -> list[tuple[tuple[str, str | None], list[tuple[int, int]]]]:
    """``((space, buffer), [(start, stop), ...])`` per memory of a record's merged (so sorted) ranges."""
    first, last = ranges[0], ranges[-1]
    if first.space == last.space and first.buffer == last.buffer:  # sorted by memory: one memory (the usual case)
        return [((first.space, first.buffer), list(map(_START_STOP, ranges)))]
    groups: dict[tuple[str, str | None], list[tuple[int, int]]] = {}
    for r in ranges:
        groups.setdefault((r.space, r.buffer), []).append((r.start, r.stop))
    return list(groups.items())


@dataclass
class PipeModel:
    """The happens-before state of one core (module docstring); feed it calls in program order.

    Attributes:
        event_ids: how many event ids each HardEvent has (8 on dav-c220, ``QUE_MAX_EVENT``).
        records: every access record seen, by the index the shadows keep.
    """

    event_ids: int = 8
    records: list[AccessRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        # row p: what pipe p has seen of each pipe (Python ints: seven of them cost less than a numpy row)
        self._clock = [[0] * len(PIPES) for _ in PIPES]
        self._flags: dict[tuple, list[tuple[tuple[int, ...], AccessRecord | None]]] = {}
        self._shadows: dict[tuple[str, str | None], _Shadow] = {}

    # ------------------------------------------------------------ accesses
    def access(self, record: AccessRecord) -> list[Race]:
        """One executed call: its races with earlier calls (an empty list when it is ordered after them).

        Per memory the call touches, the newest access of each other pipe decides first: when this
        pipe has seen them all (the usual case in a synchronised kernel), no byte of that memory is
        looked up.  Every range is checked before any is recorded."""
        pipe = _INDEX[record.pipe]
        seen = self._clock[pipe]
        seen[pipe] += 1
        now = seen[pipe]
        index = len(self.records)
        self.records.append(record)
        reads = self._memories(record.reads) if record.reads else ()
        writes = self._memories(record.writes) if record.writes else ()
        races: list[Race] = []
        for key, spans, shadow in reads:
            if _unseen(shadow.newest_write, pipe, seen):
                for a, b in spans:
                    races += self._after_writes(shadow, key, a, b, pipe, seen, record, "read after write")
        for key, spans, shadow in writes:
            writers = _unseen(shadow.newest_write, pipe, seen)
            readers = _unseen(shadow.newest_read, pipe, seen)
            if writers or readers:
                for a, b in spans:
                    if writers:
                        races += self._after_writes(shadow, key, a, b, pipe, seen, record, "write after write")
                    if readers:
                        races += self._after_reads(shadow, key, a, b, readers, seen, record)
        for _key, spans, shadow in reads:
            segments = shadow.reads.get(pipe)
            if segments is None:
                segments = shadow.reads[pipe] = Segments()
            segments.assign_many(spans, (now, index))
            shadow.newest_read[pipe] = now
        for _key, spans, shadow in writes:
            shadow.writes.assign_many(spans, (pipe, now, index))
            shadow.newest_write[pipe] = now
        return races

    def stamp(self, pipe: str) -> tuple[int, tuple[int, ...]]:
        """``(pipe index, what pipe has seen of every pipe)`` right now: for the last call on ``pipe``, its
        position on its pipe is ``seen[index]``, and a call Q happens before it iff ``seen[Q's pipe] >= Q's
        position``."""
        index = _INDEX[pipe]
        return index, tuple(self._clock[index])

    def _memories(self, ranges: tuple[ByteRange, ...]) -> list[tuple[tuple[str, str | None], list, _Shadow]]:
        """``(memory, spans, its shadow)`` per memory of a record's ranges."""
        shadows = self._shadows
        found = []
        for key, spans in _by_memory(ranges):
            shadow = shadows.get(key)
            if shadow is None:
                shadow = shadows[key] = _Shadow()
            found.append((key, spans, shadow))
        return found

    def _after_writes(self, shadow: _Shadow, key: tuple, a: int, b: int, pipe: int, seen: list[int],
                      record: AccessRecord, kind: str) -> list[Race]:
        """RAW / WAW on bytes ``[a, b)``: one race per earlier write of another pipe this pipe has not seen."""
        unseen: dict[int, list[int]] = {}  # record index -> [first, last + 1] of the bytes it left unordered
        for start, stop, (other, time, index) in shadow.writes.overlapping(a, b):
            if other != pipe and time > seen[other]:
                _widen(unseen, index, start, stop)
        return self._races(unseen, key, record, kind)

    def _after_reads(self, shadow: _Shadow, key: tuple, a: int, b: int, readers: list[int], seen: list[int],
                     record: AccessRecord) -> list[Race]:
        """WAR on bytes ``[a, b)``: one race per earlier read of another pipe this pipe has not seen."""
        unseen: dict[int, list[int]] = {}
        for other in readers:
            for start, stop, (time, index) in shadow.reads[other].overlapping(a, b):
                if time > seen[other]:
                    _widen(unseen, index, start, stop)
        return self._races(unseen, key, record, "write after read")

    def _races(self, unseen: dict[int, list[int]], key: tuple, record: AccessRecord, kind: str) -> list[Race]:
        space, buffer = key
        return [Race(kind, self.records[index], record, ByteRange(space, start, stop, buffer))
                for index, (start, stop) in sorted(unseen.items())]

    # ------------------------------------------------------------ synchronisation
    def set_flag(self, event: HardEvent, event_id: int, record: AccessRecord | None = None) -> None:
        """``set_flag(event, id)``: the source pipe's calls so far happen before the matching wait."""
        self._check_id("set_flag", event, event_id)
        self.publish((event, event_id), event_pipes(event)[0], record)

    def wait_flag(self, event: HardEvent, event_id: int, record: AccessRecord | None = None) -> None:
        """``wait_flag(event, id)``: the destination pipe's later calls happen after the matching set."""
        self._check_id("wait_flag", event, event_id)
        pending = self._flags.get((event, event_id))
        if not pending:
            where = f" at {record.source}" if record is not None else ""
            raise SyncError("wait_flag", "event", f"{event.name} id {event_id}",
                            f"wait_flag{where} has no matching set_flag before it (on the device the "
                            f"{event_pipes(event)[1]} pipe waits forever)",
                            f"a set_flag({event.name}, {event_id}) earlier in program order", SYNC_SOURCE)
        self.join((event, event_id), event_pipes(event)[1])

    def publish(self, key: tuple, pipe: str, record: AccessRecord | None = None) -> None:
        """Signal ``key`` from ``pipe``: what ``pipe`` has done so far happens before the matching :meth:`join`."""
        self._flags.setdefault(key, []).append((tuple(self._clock[_INDEX[pipe]]), record))

    def join(self, key: tuple, pipe: str) -> bool:
        """Wait on ``pipe`` for the oldest signal of ``key``; ``False`` (and no order) if none is pending."""
        pending = self._flags.get(key)
        if not pending:
            return False
        published, _setter = pending.pop(0)
        row = self._clock[_INDEX[pipe]]
        row[:] = map(max, row, published)
        return True

    def barrier(self, pipe: PipeID) -> None:
        """``pipe_barrier(pipe)``: PIPE_ALL orders everything before it before everything after it."""
        if pipe is PipeID.PIPE_ALL:
            everything = list(map(max, *self._clock))
            for row in self._clock:
                row[:] = everything

    def _check_id(self, call: str, event: HardEvent, event_id: int) -> None:
        if not 0 <= event_id < self.event_ids:
            raise SyncError(call, "event_id", event_id, f"event ids of {event.name} are 0 .. {self.event_ids - 1}",
                            f"0 <= event_id < {self.event_ids}", SYNC_SOURCE)

    # ------------------------------------------------------------ the end
    def flags_left_set(self) -> list[tuple[HardEvent, int, AccessRecord | None]]:
        """Flags set and never waited for when the kernel ended (each one, oldest first)."""
        return [(key[0], key[1], setter) for key, pending in self._flags.items()
                if isinstance(key[0], HardEvent) for _published, setter in pending]
