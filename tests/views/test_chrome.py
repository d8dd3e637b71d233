"""Chrome trace-event export: npusim run --trace, launch(trace=...), and the event layout."""

import json

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.cli import main
from npusim.engine.trace import AccessRecord, ByteRange, CoreTrace
from npusim.errors import ConstraintError
from npusim.views.chrome import CLOCK, load_trace, trace_events

KERNEL = '''
import numpy as np
from npusim import ascend as asc

@asc.jit
def fill(y: asc.GlobalAddress) -> None:
    ub = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0, 256)
    asc.duplicate(ub, float(asc.get_block_idx()), 256)
    asc.adds(ub, ub, 1.0, 128, 2, asc.UnaryRepeatParams(1, 1, 8, 8))

if __name__ == "__main__":
    fill.launch(2, (np.zeros(256, np.float16),), chip="A2")
'''


def _slices(document, name=None):
    return [e for e in document["traceEvents"] if e["ph"] == "X" and (name is None or e["name"] == name)]


def test_run_trace_writes_one_process_per_block_a_track_per_pipe_and_a_slice_per_call(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(KERNEL)
    out = tmp_path / "out.json"
    assert main(["run", "--trace", str(out), str(script)]) == 0
    document = json.loads(out.read_text())
    assert document["otherData"]["clock"] == CLOCK and "not a cycle estimate" in CLOCK
    processes = {e["pid"]: e["args"]["name"] for e in document["traceEvents"] if e["name"] == "process_name"}
    assert processes == {0: "block 0 (ascend A2)", 1: "block 1 (ascend A2)"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in document["traceEvents"] if e["name"] == "thread_name"}
    assert set(threads.values()) == {"V"}
    slices = _slices(document)
    assert [(e["pid"], e["name"], e["ts"], e["dur"]) for e in slices] == [
        (0, "duplicate", 0, 1), (0, "adds", 1, 1), (1, "duplicate", 0, 1), (1, "adds", 1, 1)]
    adds = slices[1]["args"]
    assert adds["source"] == "kernel.py:9"
    assert adds["params"]["mask"] == 128 and adds["params"]["repeat_times"] == 2
    assert adds["reads"] == [["UB", 0, 512, None]] and adds["writes"] == [["UB", 0, 512, None]]
    assert slices[2]["args"]["params"]["scalar"] == 1.0  # block 1 duplicated its block index


def test_launch_trace_keeps_the_records_and_writes_the_file(tmp_path):
    @asc.jit
    def twice(y: asc.GlobalAddress) -> None:
        ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
        asc.duplicate(ub, 2.0, 64)

    out = tmp_path / "t.json"
    launch = twice.launch(3, (np.zeros(4, np.float32),), chip="A2", trace=out)
    assert [(c.block, [r.instruction for r in c.records]) for c in launch.trace] == [
        (0, ["duplicate"]), (1, ["duplicate"]), (2, ["duplicate"])]
    loaded = load_trace(out)
    assert [(c.vendor, c.block, c.records) for c in loaded] == [(c.vendor, c.block, c.records) for c in launch.trace]
    assert twice.launch(1, (np.zeros(4, np.float32),), chip="A2").trace is None
    assert twice.launch(1, (np.zeros(4, np.float32),), chip="A2", trace=True).trace[0].records[0].writes == (
        ByteRange("UB", 0, 256),)


def test_a_failing_run_still_writes_what_ran(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text(KERNEL.replace("asc.adds(ub, ub, 1.0, 128, 2,", "asc.adds(ub, ub, 1.0, 128, 300,"))
    out = tmp_path / "out.json"
    with pytest.raises(ConstraintError, match="repeat_times = 300"):
        main(["run", "--trace", str(out), str(script)])
    assert [e["name"] for e in _slices(json.loads(out.read_text()))] == ["duplicate"]


def _record(seq, name, pipe, **params):
    return AccessRecord(seq, name, "ascend", pipe, (), (), (), (), "k.py:1", params)


def test_sync_operations_are_instants_and_a_set_flag_flows_to_its_wait_flag():
    records = [
        _record(0, "set_flag", "MTE2", src="MTE2", dst="V", event_id=0),
        _record(1, "set_flag", "MTE2", src="MTE2", dst="V", event_id=1),
        _record(2, "wait_flag", "V", src="MTE2", dst="V", event_id=1),
        _record(3, "add", "V"),
        _record(4, "wait_flag", "V", src="MTE2", dst="V", event_id=0),
    ]
    events = trace_events([CoreTrace("ascend", "A2", 0, records)])["traceEvents"]
    assert [e["name"] for e in events if e["ph"] == "i"] == ["set_flag", "set_flag", "wait_flag", "wait_flag"]
    assert [e["name"] for e in events if e["ph"] == "X"] == ["add"]
    starts = {e["id"]: e["ts"] for e in events if e["ph"] == "s"}
    finishes = {e["id"]: e["ts"] for e in events if e["ph"] == "f"}
    assert sorted((starts[i], finishes[i]) for i in finishes) == [(0, 4), (1, 2)]
    tracks = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert list(tracks.values()) == ["V", "MTE2"]  # the vector pipe first, then the copy pipes


def test_a_bundled_example_kernel_is_user_code_its_records_name_its_own_lines():
    """The example kernels live inside the package, but their lines are the kernel's: a record (and a
    race report) names the kernel's line, not the line that called ``convert``."""
    import inspect

    from npusim.examples import nchw_to_nc1hwc0 as example

    x = example.example_input((1, 16, 4, 4))
    y = np.zeros((1, 1, 4, 4, 16), np.float16)
    launch = example.nchw_to_nc1hwc0_kernel.launch(1, (x, y, 1, 16, 4, 4), chip="A2", trace=True)
    lines = {name: inspect.getsourcelines(getattr(example.KernelNchwToNc1hwc0, name))
             for name in ("copy_in", "compute", "copy_out")}
    calls = {"copy_in": "asc.data_copy(", "compute": "asc.trans_data_to_5hd(", "copy_out": "asc.data_copy("}
    expected = {f"nchw_to_nc1hwc0.py:{start + i}" for name, (body, start) in lines.items()
                for i, text in enumerate(body) if calls[name] in text}
    assert {r.source for r in launch.trace[0].records} == expected
