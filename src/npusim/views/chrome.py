"""Access records as a Chrome trace-event file (loads in Perfetto and chrome://tracing).

Layout (the "JSON Object Format" of the Trace Event Format document):

* one **process** per traced core: ``pid`` is the core's position among the traced cores,
  named ``"block <b> (<vendor> <chip>)"``;
* one **thread** (track) per pipe the core used (``V``, ``MTE2``, ``MTE3``, ``S`` ...;
  ``BDC``, ``GDMA``), in a fixed order;
* every instruction call a complete slice (``"ph": "X"``) whose ``args`` hold its
  parameters, its byte ranges, its registers and the kernel's source line;
* synchronisation and queue operations (:data:`INSTANT_OPS`) instant events
  (``"ph": "i"``), and each ``set_flag`` joined to the ``wait_flag`` that consumes it by a
  flow (``"ph": "s"`` / ``"f"``).

**Time is the call's sequence number on its core**, not a cycle count: call ``n`` starts
at ``ts = n`` and lasts 1 (the viewers read it as microseconds).  npusim models no
cycles; the file says so in ``otherData.clock``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable

from ..engine.trace import AccessRecord, ByteRange, CoreTrace

__all__ = ["CLOCK", "INSTANT_OPS", "PIPE_ORDER", "TraceFileError", "load_trace", "trace_events", "write_trace"]

CLOCK = "sequence number: call n of a core starts at ts=n and lasts 1; not a cycle estimate (npusim models no cycles)"
PIPE_ORDER = ("S", "V", "MTE1", "MTE2", "MTE3", "M", "FIX", "BDC", "GDMA", "SDMA")
INSTANT_OPS = frozenset({
    "set_flag", "wait_flag", "pipe_barrier", "set_event", "wait_event", "enque", "deque", "alloc_tensor",
    "free_tensor", "sync_all", "tpu_poll",
})
_FLOW_PAIRS = {"set_flag": "wait_flag", "set_event": "wait_event"}


def _ranges(ranges) -> list[list]:
    return [list(r) for r in ranges]


def _args(record: AccessRecord) -> dict:
    return {
        "seq": record.seq, "block": record.block, "source": record.source, "params": record.params,
        "reads": _ranges(record.reads), "writes": _ranges(record.writes),
        "registers_read": list(record.registers_read), "registers_written": list(record.registers_written),
    }


def _flag_key(record: AccessRecord) -> tuple:
    """What pairs a set with its wait: the pipes and event id (whatever of them the params name)."""
    params = record.params
    return tuple(str(params.get(k)) for k in ("src", "dst", "src_pipe", "dst_pipe", "event_id", "event") if k in params)


def trace_events(cores: Iterable[CoreTrace]) -> dict:
    """The trace-event document of these cores' records (module docstring)."""
    events: list[dict] = []
    flow_id = 0
    for pid, core in enumerate(cores):
        events.append({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                       "args": {"name": f"block {core.block} ({core.vendor} {core.chip})"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": pid, "tid": 0, "args": {"sort_index": pid}})
        pipes = sorted({r.pipe for r in core.records},
                       key=lambda p: (PIPE_ORDER.index(p) if p in PIPE_ORDER else len(PIPE_ORDER), p))
        tids = {pipe: i + 1 for i, pipe in enumerate(pipes)}
        for pipe, tid in tids.items():
            events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": pipe}})
            events.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                           "args": {"sort_index": tid}})
        pending: dict[tuple, list[int]] = {}
        for record in core.records:
            base = {"name": record.instruction, "cat": record.vendor, "pid": pid, "tid": tids[record.pipe],
                    "ts": record.seq, "args": _args(record)}
            if record.instruction not in INSTANT_OPS:
                events.append({**base, "ph": "X", "dur": 1})
                continue
            events.append({**base, "ph": "i", "s": "t"})
            if record.instruction in _FLOW_PAIRS:
                flow_id += 1
                pending.setdefault((_FLOW_PAIRS[record.instruction], _flag_key(record)), []).append(flow_id)
                events.append({"ph": "s", "name": "flag", "cat": "sync", "id": flow_id, "pid": pid,
                               "tid": tids[record.pipe], "ts": record.seq})
            else:
                waiting = pending.get((record.instruction, _flag_key(record)))
                if waiting:
                    events.append({"ph": "f", "bp": "e", "name": "flag", "cat": "sync", "id": waiting.pop(0),
                                   "pid": pid, "tid": tids[record.pipe], "ts": record.seq})
    return {"traceEvents": events, "otherData": {"generator": "npusim", "clock": CLOCK}}


def write_trace(path: str | os.PathLike, cores: Iterable[CoreTrace]) -> None:
    """Write the trace-event document of ``cores`` to ``path`` (strict JSON)."""
    with open(path, "w", encoding="utf-8") as out:
        json.dump(trace_events(cores), out, allow_nan=False)


class TraceFileError(ValueError):
    """A file is not a trace this module wrote; the message says what is missing."""


def load_trace(path: str | os.PathLike) -> list[CoreTrace]:
    """The cores and records of a trace file :func:`write_trace` wrote (slices and instants, in order).

    Raises:
        TraceFileError: the file is no JSON object with npusim's ``traceEvents``.
    """
    try:
        with open(path, encoding="utf-8") as source:
            document = json.load(source)
    except json.JSONDecodeError as err:
        raise TraceFileError(f"{path}: not JSON ({err})") from None
    if not isinstance(document, dict) or document.get("otherData", {}).get("generator") != "npusim":
        raise TraceFileError(f"{path}: not an npusim trace (a JSON object whose otherData.generator is \"npusim\", "
                             "as npusim run --trace writes)")
    names: dict[int, str] = {}
    pipes: dict[tuple[int, int], str] = {}
    records: dict[int, list[AccessRecord]] = {}
    for event in document.get("traceEvents", []):
        phase, pid = event.get("ph"), event.get("pid", 0)
        if phase == "M" and event.get("name") == "process_name":
            names[pid] = event["args"]["name"]
        elif phase == "M" and event.get("name") == "thread_name":
            pipes[(pid, event["tid"])] = event["args"]["name"]
        elif phase in ("X", "i"):
            args = event["args"]
            records.setdefault(pid, []).append(AccessRecord(
                args["seq"], event["name"], event.get("cat", ""), pipes.get((pid, event["tid"]), "?"),
                tuple(ByteRange(*r) for r in args["reads"]), tuple(ByteRange(*r) for r in args["writes"]),
                tuple(args["registers_read"]), tuple(args["registers_written"]), args["source"], args["params"],
                args.get("block", 0),
            ))
    cores = []
    for pid, name in sorted(names.items()):
        block, _, rest = name.removeprefix("block ").partition(" (")
        vendor, _, chip = rest.rstrip(")").partition(" ")
        cores.append(CoreTrace(vendor, chip, int(block), records.get(pid, [])))
    return cores
