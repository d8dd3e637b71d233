"""Intra-core synchronisation: accepted and recorded, in order, on the core's ``sync_log``.

npusim executes every instruction to completion in program order, so a kernel that runs
correctly here may still race on hardware if it omits a ``set_flag``/``wait_flag`` pair.
The calls are validated and kept as :class:`~npusim.ascend.core.SyncRecord` entries, for
a race checker to compare against the instruction stream.

Sources: ``同步控制/核内同步/SetFlag-WaitFlag(ISASI).md`` (event IDs 0-7, 0-3 on the
Atlas training series) and ``PipeBarrier(ISASI).md``.
"""

from __future__ import annotations

from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..core import SyncRecord, current_core
from ..types import HardEvent, PipeID

__all__ = ["pipe_barrier", "set_flag", "wait_flag"]

SYNC_SOURCE = f"{pages.SET_FLAG} 参数说明; {semantics('5.6')}"


def _record_flag(kind: str, event: HardEvent, event_id: int) -> None:
    core = current_core(kind)
    if not isinstance(event, HardEvent):
        raise TypeError(f"{kind}: event must be an asc.HardEvent, got {event!r}")
    event_id = require_int(kind, "event_id", event_id, 0, core.chip.hard_event_ids - 1, SYNC_SOURCE,
                           rule=f"{core.chip.product} has {core.chip.hard_event_ids} event IDs")
    core.sync_log.append(SyncRecord(kind, int(event), event_id))


def set_flag(event: HardEvent, event_id: int = 0) -> None:
    """Signal ``event`` (source pipe done) with ``event_id`` (pyasc ``set_flag``)."""
    _record_flag("set_flag", event, event_id)


def wait_flag(event: HardEvent, event_id: int = 0) -> None:
    """Wait for ``event`` with ``event_id`` (pyasc ``wait_flag``)."""
    _record_flag("wait_flag", event, event_id)


def pipe_barrier(pipe: PipeID) -> None:
    """Wait until every instruction issued to ``pipe`` has completed (pyasc ``pipe_barrier``)."""
    core = current_core("pipe_barrier")
    if not isinstance(pipe, PipeID):
        raise TypeError(f"pipe_barrier: pipe must be an asc.PipeID, got {pipe!r}")
    core.sync_log.append(SyncRecord("pipe_barrier", int(pipe), 0))
