"""Intra-core synchronisation: ``set_flag``, ``wait_flag``, ``pipe_barrier``, accepted and recorded.

npusim executes every instruction to completion in program order, so a kernel that runs
correctly here may still race on hardware if it omits a ``set_flag``/``wait_flag`` pair.
The calls are validated and kept, in order, as :class:`~npusim.ascend.core.SyncRecord`
entries on ``core.sync_log``; with ``Core(trace=True)`` each is also an access record on
the pipe it issues on — ``set_flag`` on the event's source pipe, ``wait_flag`` on its
destination pipe (``HardEvent.MTE2_V``: MTE2, then V), ``pipe_barrier`` on the pipe it
names ("ALL" for ``PIPE_ALL``) — with the event and its ID in ``params``, for a pipe
checker to compare against the instruction stream.

Sources: ``同步控制/核内同步/SetFlag-WaitFlag(ISASI).md`` (event IDs 0-7, 0-3 on the
Atlas training series) and ``PipeBarrier(ISASI).md``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...engine.plan import SelfBinding
from ...engine.registry import Instruction, register
from ...overloads import Form, Param
from ...sources import semantics
from ...validate import require_int
from .. import pages
from ..core import Core, SyncRecord
from ..types import HardEvent, PipeID

__all__ = ["SyncPlan", "pipe_barrier", "set_flag", "wait_flag"]

SYNC_SOURCE = f"{pages.SET_FLAG} 参数说明; {semantics('5.6')}"


def _anything(_value) -> bool:
    return True  # checked by the plan step, with the message naming the parameter


@dataclass(eq=False)
class SyncPlan(SelfBinding):
    """A checked synchronisation call: the record it appends, and the pipe it issues on."""

    record: SyncRecord = SyncRecord("", 0, 0)
    pipe: str = "S"

    def run(self, core: Core, values: tuple) -> None:
        core.sync_log.append(self.record)


def _compile_flag(kind: str, core: Core, values: dict) -> SyncPlan:
    event, event_id = values["event"], values["event_id"]
    if not isinstance(event, HardEvent):
        raise TypeError(f"{kind}: event must be an asc.HardEvent, got {event!r}")
    event_id = require_int(kind, "event_id", event_id, 0, core.chip.hard_event_ids - 1, SYNC_SOURCE,
                           rule=f"{core.chip.product} has {core.chip.hard_event_ids} event IDs")
    source, target = event.name.split("_")
    return SyncPlan(record=SyncRecord(kind, int(event), event_id), pipe=source if kind == "set_flag" else target)


def _compile_barrier(core: Core, form: str, values: dict) -> SyncPlan:
    pipe = values["pipe"]
    if not isinstance(pipe, PipeID):
        raise TypeError(f"pipe_barrier: pipe must be an asc.PipeID, got {pipe!r}")
    return SyncPlan(record=SyncRecord("pipe_barrier", int(pipe), 0), pipe=pipe.name.removeprefix("PIPE_"))


FLAG_FORMS = (Form("", (Param("event", _anything), Param("event_id", _anything, 0))),)


def _register_flag(kind: str, summary: str, example: str):
    return register(Instruction(
        kind, "ascend", "sync", "S", FLAG_FORMS, lambda core, form, values: _compile_flag(kind, core, values),
        SYNC_SOURCE, support=lambda chip: True, summary=summary, examples=(example,),
        fast_context=lambda core: (), doc=f"{summary} (pyasc ``{kind}``).",
    ))


set_flag = _register_flag("set_flag", "Signal an event from its source pipe (SetFlag), with an event ID",
                          "asc.set_flag(asc.HardEvent.MTE2_V, 1)")
wait_flag = _register_flag("wait_flag", "Wait on the event's destination pipe until its source signalled it "
                           "(WaitFlag)", "asc.wait_flag(asc.HardEvent.V_MTE3)")
pipe_barrier = register(Instruction(
    "pipe_barrier", "ascend", "sync", "S", (Form("", (Param("pipe", _anything),)),), _compile_barrier,
    f"{pages.SET_FLAG.replace('SetFlag-WaitFlag', 'PipeBarrier')} 参数说明; {semantics('5.6')}",
    support=lambda chip: True, summary="Wait until every instruction issued to a pipe has completed (PipeBarrier)",
    examples=("asc.pipe_barrier(asc.PipeID.PIPE_V)",), fast_context=lambda core: (),
    doc="Wait until every instruction issued to ``pipe`` has completed (pyasc ``pipe_barrier``).",
))
