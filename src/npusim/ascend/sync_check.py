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
from typing import Literal

import numpy as np

from ..engine.trace import AccessRecord, ByteRange
from ..errors import ParameterRangeError, SyncError, SyncWarning
from .races import SYNC_SOURCE, PipeModel
from .types import HardEvent, PipeID

__all__ = ["SYNC_POLICIES", "BlockRaces", "SyncChecker", "SyncPolicy", "sync_checker"]

SyncPolicy = Literal["raise", "warn", "off"]
SYNC_POLICIES = ("raise", "warn", "off")
_FLAG_CALLS = frozenset({"set_flag", "wait_flag"})


class SyncChecker:
    """One core's checker (module docstring)."""

    def __init__(self, policy: SyncPolicy, event_ids: int = 8, blocks: BlockRaces | None = None) -> None:
        self.policy = policy
        self.model = PipeModel(event_ids)
        self.blocks = blocks
        self.findings: list[SyncError] = []

    def __call__(self, record: AccessRecord) -> None:
        name = record.instruction
        if name in _FLAG_CALLS:
            event = HardEvent[record.params["event"]]
            self._guard(lambda: getattr(self.model, name)(event, record.params["event_id"], record))
            return
        if name == "pipe_barrier":
            self.model.barrier(PipeID[record.params["pipe"]])
            return
        for race in self.model.access(record):
            self._report(race.error())
        if self.blocks is not None:
            for error in self.blocks.access(record):
                self._report(error)
        if name.endswith("_sync"):
            self.model.barrier(PipeID.PIPE_ALL)

    # -------------------------------------------------------------- queues
    def queue_set(self, key: tuple, pipe: str) -> None:
        """A TQue operation that sets one of the queue's events (enque, free_tensor) on ``pipe``."""
        self.model.publish(key, pipe)

    def queue_wait(self, key: tuple, pipe: str) -> None:
        """A TQue operation that waits for one (deque, alloc_tensor) on ``pipe``; no earlier set: nothing to wait."""
        self.model.join(key, pipe)

    # -------------------------------------------------------------- the end
    def finish(self, kernel: str, in_use: list[str] = ()) -> None:
        """The kernel returned: every flag still set, and every queue buffer still in use, is a finding."""
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


class BlockRaces:
    """GM bytes written or read by the blocks of one launch: two blocks on the same bytes, one writing, race."""

    def __init__(self) -> None:
        self._writer: dict[str, np.ndarray] = {}
        self._reader: dict[str, np.ndarray] = {}
        self._records: dict[tuple[str, int], AccessRecord] = {}

    def access(self, record: AccessRecord) -> list[SyncError]:
        errors = []
        block = record.block
        for where, writes in [*((r, False) for r in record.reads), *((r, True) for r in record.writes)]:
            if where.space != "GM":
                continue
            writer, reader = self._arrays(where)
            span = slice(where.start, where.stop)
            others = (writer[span] >= 0) & (writer[span] != block)
            if writes:
                others |= (reader[span] >= 0) & (reader[span] != block)
            if others.any():
                first = int(np.flatnonzero(others)[0])
                other = int(writer[span][first]) if writer[span][first] >= 0 else int(reader[span][first])
                errors.append(self._error(record, where, first, other))
            (writer if writes else reader)[span] = block
        return errors

    def _arrays(self, where: ByteRange) -> tuple[np.ndarray, np.ndarray]:
        name = where.buffer
        writer = self._writer.get(name)
        if writer is None or writer.size < where.stop:
            size = max(where.stop, 0 if writer is None else 2 * writer.size)
            for table in (self._writer, self._reader):
                old = table.get(name, np.empty(0, np.int64))
                table[name] = np.concatenate((old, np.full(size - old.size, -1, np.int64)))
        return self._writer[name], self._reader[name]

    def _error(self, record: AccessRecord, where: ByteRange, offset: int, other: int) -> SyncError:
        byte = where.start + offset
        return SyncError(record.instruction, f"GM buffer {where.buffer}", byte,
                         f"block {record.block} ({record.instruction} at {record.source}) and block {other} access "
                         f"the same GM byte, one of them writing, with nothing ordering blocks",
                         "disjoint GM bytes per block (or atomic accumulation)", SYNC_SOURCE)



def sync_checker(who: str, policy, event_ids: int, blocks: BlockRaces | None = None) -> SyncChecker | None:
    """The checker for ``sync=policy`` (``None`` for ``"off"``); an unknown policy is rejected."""
    if not isinstance(policy, str):
        raise TypeError(f"{who}: sync must be one of {SYNC_POLICIES} (a str), got {type(policy).__name__}")
    if policy not in SYNC_POLICIES:
        allowed = " or ".join(map(repr, SYNC_POLICIES))
        raise ParameterRangeError(who, "sync", policy, "the sync checker's policy", allowed, SYNC_SOURCE)
    return None if policy == "off" else SyncChecker(policy, event_ids, blocks)
