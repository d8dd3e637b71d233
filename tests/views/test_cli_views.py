"""npusim explain and npusim report on the command line: trace files, choices, and bad input."""

import json

import numpy as np

from npusim import ascend as asc
from npusim.cli import main


@asc.jit
def _kernel(y: asc.GlobalAddress) -> None:
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
    asc.duplicate(a, 1.0, 64)
    asc.adds(a, a, 1.0, 64)


def _trace(tmp_path):
    path = tmp_path / "t.json"
    _kernel.launch(2, (np.zeros(4, np.float32),), chip="A2", trace=path)
    return str(path)


def test_explain_picks_calls_of_a_trace_by_block_and_seq(tmp_path, capsys):
    trace = _trace(tmp_path)
    assert main(["explain", trace, "--block", "1", "--seq", "1", "--svg", str(tmp_path / "x.svg")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("adds  seq 1  block 1  pipe V  test_cli_views.py:15")
    assert "UB[0x0, 0x100)" in out and (tmp_path / "x.svg").read_text().startswith("<svg")
    assert main(["explain", trace]) == 0
    assert capsys.readouterr().out.count("  seq ") == 4  # every call of both blocks


def test_explain_refuses_to_draw_several_calls_and_reports_unreadable_files(tmp_path, capsys):
    trace = _trace(tmp_path)
    assert main(["explain", trace, "--svg", str(tmp_path / "x.svg")]) == 2
    assert "--svg draws one call; 4 match" in capsys.readouterr().err
    assert main(["explain", trace, "--seq", "9"]) == 1
    assert "no traced call matches" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{")
    assert main(["explain", str(tmp_path / "bad.json")]) == 2
    (tmp_path / "other.json").write_text(json.dumps({"traceEvents": []}))
    assert main(["explain", str(tmp_path / "other.json")]) == 2
    assert "not an npusim trace" in capsys.readouterr().err


def test_explain_of_a_rejected_case_says_so(tmp_path, capsys):
    case = {"instruction": "add", "tensors": {"dst": {"dtype": "float16", "size": 16, "init": {"fill": 0}},
                                              "src0": {"dtype": "float16", "size": 16, "init": {"fill": 0}},
                                              "src1": {"dtype": "float16", "size": 16, "init": {"fill": 0}}},
            "args": {"count": 300}}
    (tmp_path / "c.json").write_text(json.dumps(case))
    assert main(["explain", str(tmp_path / "c.json")]) == 1
    assert "the instruction rejected the call" in capsys.readouterr().err


def test_report_checks_its_picks(tmp_path, capsys):
    trace = _trace(tmp_path)
    assert main(["report", trace, "-o", str(tmp_path / "r.html"), "--pick", "1"]) == 2
    assert "BLOCK:SEQ" in capsys.readouterr().err
    assert main(["report", trace, "-o", str(tmp_path / "r.html"), "--pick", "1:1"]) == 0
    assert (tmp_path / "r.html").read_text().count("<svg") >= 4  # first call of each instruction on each core


def test_a_trace_file_is_explained_per_repeat_in_a_fresh_process(tmp_path):
    """``npusim explain TRACE.json`` in a new interpreter (nothing but the CLI imported): the select of the trace
    is planned again and split per repeat — selMask bytes 8r .. 8r+3 for mask 32 of float32 (docs/semantics.md §2.1)."""
    import subprocess
    import sys

    from npusim.engine.trace import collecting
    from npusim.views.chrome import write_trace

    with collecting() as collector, asc.Core("A2") as core:
        core.ub_write(0, bytes(4096))
        src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 2048, 32)
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 3072, 256)
        asc.select(dst, sel, src0, 1.5, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 32, 4, asc.BinaryRepeatParams())
    path = tmp_path / "t.json"
    write_trace(path, collector.cores)
    out = subprocess.run([sys.executable, "-c", "import sys; from npusim.cli import main; sys.exit(main())",
                          "explain", str(path), "--seq", "0"], capture_output=True, text=True, check=True).stdout
    assert [line.split() for line in out.splitlines() if line.startswith("  3       sel_mask")] == [
        ["3", "sel_mask", "read", "bytes", "0-3", "-", "UB[0x818,", "0x81c)"]]
