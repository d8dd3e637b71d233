"""The sync checker a core runs with ``Core(chip, sync="raise" | "warn")``: the pipe model fed by every call.

Every instruction call of the core passes its access record here before it runs
(``core.observer``, called by the engine's dispatch): ``set_flag``, ``wait_flag`` and
``pipe_barrier`` move the pipe model's clocks (:mod:`.races`), a ``_sync`` C-API function adds
its closing ``pipe_barrier(PIPE_ALL)``, every other call is checked against the accesses before
it.  The TQue runtime reports its implied flags through :meth:`SyncChecker.queue_set` and
:meth:`SyncChecker.queue_wait`.  A launch shares one :class:`BlockRaces` between its blocks for
GM races between blocks (docs/semantics.md §11.4).

Policies: ``"raise"`` raises :class:`~npusim.errors.SyncError` at the first finding, before the
call changes anything; ``"warn"`` emits one :class:`~npusim.errors.SyncWarning` per finding and
goes on; ``"off"`` builds no checker (nothing is paid).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Literal

import numpy as np

from ..engine.trace import AccessRecord, ByteRange, caller_source
from ..errors import ParameterRangeError, SyncError, SyncWarning
from ..memory import Memory
from ..segments import Segments
from ..validate import require_int
from .races import SYNC_SOURCE, PipeModel
from .types import HardEvent, PipeID

__all__ = ["SYNC_POLICIES", "BlockRaces", "Schedule", "SyncChecker", "SyncPolicy", "sync_checker"]

SyncPolicy = Literal["raise", "warn", "off"]
SYNC_POLICIES = ("raise", "warn", "off")
_FLAG_CALLS = frozenset({"set_flag", "wait_flag"})
#: calls whose ranges are known after they ran and whose vendor implementation first reads (GetValue)
#: and rewrites (SetValue) address tables on S, then orders S before V with SetFlag/WaitFlag<S_V>:
#: TransDataTo5HD with address tensors (asc-devkit kernel_operator_vec_transpose_intf_impl.h).  Its
#: record names V for the whole call, so a scalar set_value into a table is ordered before it here.
#: The record does not say which form ran: the LocalTensor-list form (ranges also known after the
#: run, no S part on the device) gets the same order, so a set_value into its sources with no S_V
#: before it goes unreported.
_PACKS_TABLES_ON_S = frozenset({"trans_data_to_5hd"})


class SyncChecker:
    """One core's checker (module docstring)."""

    def __init__(self, policy: SyncPolicy, event_ids: int = 8, blocks: BlockRaces | None = None,
                 schedule: Schedule | None = None) -> None:
        self.policy = policy
        self.model = PipeModel(event_ids)
        self.blocks = blocks
        self.schedule = schedule
        self.findings: list[SyncError] = []
        self.auto_buffers: dict[int, int] = {}  # LocalTensorAuto buffers: UB start -> stop

    def __call__(self, record: AccessRecord, run: Callable[[], object] | None) -> bool:
        """Check one call before it runs; ``True`` if the schedule took it to run later (``run`` runs it).

        ``run`` is ``None`` for a call that already ran (its ranges are known only afterwards: the
        held calls were run first, and it is checked and ordered like any other)."""
        name = record.instruction
        if name in _FLAG_CALLS:
            event = HardEvent[record.params["event"]]
            self._guard(lambda: getattr(self.model, name)(event, record.params["event_id"], record))
            return False
        if name == "pipe_barrier":
            self.model.barrier(PipeID[record.params["pipe"]])
            return False
        if run is None and name in _PACKS_TABLES_ON_S:
            # its scalar part (reading and packing address tables) ends in SetFlag/WaitFlag<S_V>
            self.model.publish(("implied S_V", name), "S")
            self.model.join(("implied S_V", name), "V")
        auto_keys = self._auto_keys(record) if self.auto_buffers else ()
        for key in auto_keys:  # insert_sync's deque / alloc before this use of the buffer
            self.model.join(key, record.pipe)
        for race in self.model.access(record):
            self._report(race.error())
        for key in auto_keys:  # ... and its enque / free after it: a later use on any pipe waits for it
            self.model.publish(key, record.pipe)
        if self.blocks is not None:
            for error in self.blocks.access(record):
                self._report(error)
        deferred = False
        if self.schedule is not None:
            deferred = self.schedule.take(record, self.model.stamp(record.pipe), run)
        if name.endswith("_sync"):
            self.model.barrier(PipeID.PIPE_ALL)
        return deferred

    def scalar(self, instruction: str, reads: tuple[ByteRange, ...], writes: tuple[ByteRange, ...],
               block: int = 0) -> None:
        """A scalar read or write of UB or GM bytes (``get_value`` / ``set_value``), before it happens.

        The scalar unit issues it on the S pipe (``__inout_pipe__(S)``, GetValue.md / SetValue.md), so
        it is ordered with the other pipes only by the V_S, S_V, MTE2_S, MTE3_S ... flags
        (docs/semantics.md §11.5).  A fuzzed schedule first runs the held calls it must come after.
        """
        self(AccessRecord(0, instruction, "ascend", "S", reads, writes, (), (), caller_source(), {}, block), None)

    def flush(self) -> None:
        """Run every call the schedule still holds (before the host looks at memory, and at the kernel's end)."""
        if self.schedule is not None:
            self.schedule.flush()

    # -------------------------------------------------------------- queues
    def queue_set(self, key: tuple, pipe: str) -> None:
        """A TQue operation that sets one of the queue's events (enque, free_tensor) on ``pipe``."""
        self.model.publish(key, pipe)

    def queue_wait(self, key: tuple, pipe: str) -> None:
        """A TQue operation that waits for one (deque, alloc_tensor) on ``pipe``; no earlier set: nothing to wait."""
        self.model.join(key, pipe)

    # ------------------------------------------------------ LocalTensorAuto
    def auto_buffer(self, start: int, stop: int) -> None:
        """UB ``[start, stop)`` is a LocalTensorAuto buffer: pyasc's insert_sync orders every use of it
        after the one before (docs/semantics.md §10.7); a buffer it overlaps is gone."""
        for other in [s for s, e in self.auto_buffers.items() if s < stop and start < e]:
            del self.auto_buffers[other]
        self.auto_buffers[start] = stop

    def _auto_keys(self, record: AccessRecord) -> list[tuple]:
        keys = []
        for where in record.reads + record.writes:
            if where.space == "UB":
                keys += [("auto", s) for s, e in self.auto_buffers.items() if s < where.stop and where.start < e]
        return list(dict.fromkeys(keys))

    # -------------------------------------------------------------- the end
    def finish(self, kernel: str, in_use: list[str] = ()) -> None:
        """The kernel returned: every flag still set, and every queue buffer still in use, is a finding."""
        self.flush()
        for buffer in in_use:
            self._report(SyncError(kernel, "queue buffer", buffer, "still allocated when the kernel ended "
                                   "(its free event is never set: the next kernel's alloc of it waits forever)",
                                   "free_tensor every tensor a queue gave out", SYNC_SOURCE))
        for event, event_id, setter in self.model.flags_left_set():
            where = f" (set at {setter.source})" if setter is not None else ""
            self._report(SyncError(kernel, "event", f"{event.name} id {event_id}",
                                   f"set_flag{where} was never waited for when the kernel ended",
                                   "every set_flag matched by a wait_flag of the same event and id", SYNC_SOURCE))

    def _guard(self, action) -> None:
        try:
            action()
        except SyncError as err:
            self._report(err)

    def _report(self, error: SyncError) -> None:
        self.findings.append(error)
        if self.policy == "raise":
            raise error
        warnings.warn(str(error), SyncWarning, stacklevel=4)


class Schedule:
    """Schedule fuzzing: calls run in a seeded random order that keeps every happens-before edge.

    Each call on a pipe other than S is held back; after each new call, held calls whose every
    predecessor (by the pipe model's clocks) has run are run at random, each with probability
    one half, and the rest stay held.  A call on S, or one that ran by itself, runs at once, after
    the held calls it must come after.

    A vector call that writes a register (every count form sets MASK and MASK_MODE) or reads
    CMPMASK's contents also runs at issue, after the held calls it must come after, because
    registers are not modelled per pipe (a later call's plan reads the mask registers when it is
    issued); but the UB bytes it wrote are put back as they were and land when the schedule runs
    it, as the bytes of a held call do.  So a copy on another pipe with no flag after such a call
    may read the bytes before it, or write them before it, as on the device; the vector call
    itself read its sources at issue, which is one of the device's orders too.

    So a kernel whose pipes are properly ordered computes the same bytes under every seed, and a
    missing sync lets a consumer run before its producer, as on the device.
    """

    def __init__(self, seed: int, ub: Memory | None = None) -> None:
        self.rng = np.random.default_rng(seed)
        self.ub = ub  # where a register-writing vector call's bytes are held back (None: they land at once)
        self.held: list[tuple[int, int, tuple[int, ...], Callable[[], object]]] = []  # pipe, position, seen, run

    def take(self, record: AccessRecord, stamp: tuple[int, tuple[int, ...]], run: Callable[[], object] | None) -> bool:
        """Hold ``run`` (``True``: the caller must not run it), or let the call run now (``False``; ``run``
        is ``None`` for a call that runs by itself: a scalar access, or one that already ran)."""
        pipe, seen = stamp
        if run is None or record.pipe == "S":
            self._run_before(seen)  # it runs now: what it must come after runs first, the rest stays held
            return False
        if record.registers_written or "CMPMASK" in record.registers_read:
            self._run_before(seen)
            if self.ub is None or any(where.space != "UB" for where in record.writes):
                return False
            run = self._run_now_land_later(record.writes, run)
        self.held.append((pipe, int(seen[pipe]), seen, run))
        while self.held and self.rng.random() < 0.5:
            self._run_one(range(len(self.held)))
        return True

    def _run_now_land_later(self, writes: tuple[ByteRange, ...], run: Callable[[], object]) -> Callable[[], None]:
        """Run the call (registers, and its reads of UB, at issue), put the bytes it wrote back as they
        were, and return what writes its results when the schedule runs it."""
        data = self.ub.data
        before = [data[where.start:where.stop].copy() for where in writes]
        run()
        after = [data[where.start:where.stop].copy() for where in writes]
        for where, old in zip(writes, before, strict=True):
            data[where.start:where.stop] = old

        def land() -> None:
            for where, new in zip(writes, after, strict=True):
                data[where.start:where.stop] = new

        return land

    def flush(self) -> None:
        while self.held:
            self._run_one(range(len(self.held)))

    def _run_before(self, seen: tuple[int, ...]) -> None:
        """Run every held call that happens before a call that has seen ``seen``."""
        while True:
            before = [i for i, (pipe, position, _seen, _run) in enumerate(self.held) if seen[pipe] >= position]
            if not before:
                return
            self._run_one(before)

    def _run_one(self, among) -> None:
        """Run one held call of ``among`` (indices) whose held predecessors have all run, chosen at random."""
        held = self.held
        ready = [i for i in among if not any(held[i][2][other] >= position
                                             for j, (other, position, _s, _r) in enumerate(held) if j != i)]
        _pipe, _position, _seen, run = held.pop(ready[int(self.rng.integers(len(ready)))])
        run()


class BlockRaces:
    """GM bytes written or read by the blocks of one launch: two blocks on the same bytes, one writing, race.

    Per GM buffer, segments of the block that last wrote each byte and of the block that last read it.
    """

    def __init__(self) -> None:
        self._writer: dict[str | None, Segments] = {}
        self._reader: dict[str | None, Segments] = {}

    def access(self, record: AccessRecord) -> list[SyncError]:
        errors = []
        block = record.block
        for where, writes in [*((r, False) for r in record.reads), *((r, True) for r in record.writes)]:
            if where.space != "GM":
                continue
            writer = self._writer.setdefault(where.buffer, Segments())
            reader = self._reader.setdefault(where.buffer, Segments())
            others = [(start, other) for start, _stop, other in writer.overlapping(where.start, where.stop)
                      if other != block]
            if writes:
                others += [(start, other) for start, _stop, other in reader.overlapping(where.start, where.stop)
                           if other != block]
            if others:
                start, other = min(others)
                errors.append(self._error(record, where, start - where.start, other))
            (writer if writes else reader).assign(where.start, where.stop, block)
        return errors

    def _error(self, record: AccessRecord, where: ByteRange, offset: int, other: int) -> SyncError:
        byte = where.start + offset
        return SyncError(record.instruction, f"GM buffer {where.buffer}", byte,
                         f"block {record.block} ({record.instruction} at {record.source}) and block {other} access "
                         f"the same GM byte, one of them writing, with nothing ordering blocks",
                         "disjoint GM bytes per block (or atomic accumulation)", SYNC_SOURCE)



def sync_checker(who: str, policy, event_ids: int, blocks: BlockRaces | None = None,
                 schedule_seed: int | None = None, ub: Memory | None = None) -> SyncChecker | None:
    """The checker for ``sync=policy`` (``None`` for ``"off"``); an unknown policy is rejected.

    ``schedule_seed``: fuzz the schedule with this seed (:class:`Schedule`; needs a policy other than "off");
    ``ub``: the core's UB, where the schedule holds back a register-writing vector call's bytes.
    """
    if not isinstance(policy, str):
        raise TypeError(f"{who}: sync must be one of {SYNC_POLICIES} (a str), got {type(policy).__name__}")
    if policy not in SYNC_POLICIES:
        allowed = " or ".join(map(repr, SYNC_POLICIES))
        raise ParameterRangeError(who, "sync", policy, "the sync checker's policy", allowed, SYNC_SOURCE)
    if schedule_seed is not None:
        require_int(who, "schedule_seed", schedule_seed, 0, 2**63 - 1, SYNC_SOURCE)
        if policy == "off":
            raise ParameterRangeError(who, "sync", policy, "a fuzzed schedule runs under the sync checker",
                                      "'warn' or 'raise' with schedule_seed", SYNC_SOURCE)
    if policy == "off":
        return None
    return SyncChecker(policy, event_ids, blocks, None if schedule_seed is None else Schedule(schedule_seed, ub))
