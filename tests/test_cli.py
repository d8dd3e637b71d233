"""The command line, through subprocesses: golden -> verify round trips, run, demo."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from tests.ascend import reference_model as ref


def npusim(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "npusim.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def write_case(tmp_path: Path, case: dict) -> Path:
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case))
    return path


ADD_CASE = {
    "instruction": "add",
    "chip": "A2",
    "tensors": {
        "dst": {"dtype": "float16", "size": 256, "init": {"fill": 0}},
        "src0": {"dtype": "float16", "size": 256, "init": {"random": {"seed": 3, "low": -60000, "high": 60000}}},
        "src1": {"dtype": "float16", "size": 256, "init": {"values": ["nan", "inf", "-0.0", 65504], "fill": 1.5}},
    },
    "args": {"mask": [0xFFFF0000FFFF0000, 0x1], "repeat_times": 2, "repeat_params": {"dst_rep_stride": 8}},
}


def test_golden_writes_the_vendor_layout_and_matches_the_reference(tmp_path):
    result = npusim("golden", str(write_case(tmp_path, ADD_CASE)), "-o", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    out = tmp_path / "out"
    manifest = json.loads((out / "manifest.json").read_text())
    assert [i["file"] for i in manifest["inputs"]] == ["input/dst.bin", "input/src0.bin", "input/src1.bin"]
    assert manifest["outputs"][0]["file"] == "output/golden.bin" and manifest["outputs"][0]["dtype"] == "float16"
    # the expected output, from the inputs the tool wrote and the reference model
    ub = bytearray(3 * 512)
    for i, name in enumerate(("dst", "src0", "src1")):
        ub[i * 512 : (i + 1) * 512] = (out / "input" / f"{name}.bin").read_bytes()
    lanes = ref.active_lanes_normal([0xFFFF0000FFFF0000, 0x1], 2)
    ref.elementwise(ub, "add", "float16", 0, [512, 1024], None, 2, lambda r: lanes, [(1, 8)] * 3, saturate=True)
    assert (out / "output" / "golden.bin").read_bytes() == bytes(ub[:512])


def test_verify_round_trip_and_a_corrupted_element(tmp_path):
    assert npusim("golden", str(write_case(tmp_path, ADD_CASE)), "-o", str(tmp_path / "g")).returncode == 0
    golden = tmp_path / "g" / "output" / "golden.bin"
    same = npusim("verify", str(golden), str(golden), "--dtype", "float16")
    assert same.returncode == 0 and "byte-identical" in same.stdout

    corrupted = bytearray(golden.read_bytes())
    corrupted[2 * 37] ^= 0x01  # element 37, lowest bit
    corrupted[2 * 200 + 1] ^= 0x80  # element 200, sign bit
    bad = tmp_path / "out.bin"
    bad.write_bytes(bytes(corrupted))
    result = npusim("verify", str(bad), str(golden), "--dtype", "float16")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("FAIL: 2 of 256 float16 elements differ")
    expected = np.frombuffer(golden.read_bytes(), np.uint16)
    assert "index 37: expected" in lines[1] and f"(0x{int(expected[37]):04x})" in lines[1]
    assert f"(0x{int(expected[37]) ^ 1:04x})" in lines[1]
    assert "index 200:" in lines[2]

    shaped = npusim("verify", str(bad), str(golden), "--dtype", "float16", "--shape", "16,16")
    assert "index (2, 5):" in shaped.stdout  # 37 = 2 * 16 + 5


def test_verify_size_mismatch_and_bad_usage(tmp_path):
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(bytes(8))
    b.write_bytes(bytes(6))
    assert npusim("verify", str(a), str(b), "--dtype", "uint16").returncode == 1
    assert npusim("verify", str(a), str(b), "--dtype", "float32").returncode == 2  # 6 bytes: not whole floats
    assert npusim("verify", str(a), str(a), "--dtype", "float17").returncode == 2


def test_golden_select_reproduces_the_seed_example(tmp_path):
    seed = json.loads(resources.files("npusim.data").joinpath("seed_examples.json").read_text())["select"][0]
    case = {
        "instruction": "select",
        "tensors": {
            "dst": {"dtype": "float32", "size": 256, "init": {"fill": 0}},
            "sel_mask": {"dtype": "uint8", "size": 32, "init": {"hex": seed["sel_mask"]["hex"]}},
            "src0": {"dtype": "float32", "size": 256, "init": {"hex": seed["src0"]["hex"]}},
            "src1": {"dtype": "float32", "size": 256, "init": {"hex": seed["src1"]["hex"]}},
        },
        "args": {"sel_mode": "VSEL_TENSOR_TENSOR_MODE", "count": 256},
    }
    assert npusim("golden", str(write_case(tmp_path, case)), "-o", str(tmp_path / "s")).returncode == 0
    assert (tmp_path / "s" / "output" / "golden.bin").read_bytes() == bytes.fromhex(seed["dst"]["hex"])


def test_golden_reports_malformed_cases_and_rejected_calls(tmp_path):
    bad_dtype = {**ADD_CASE, "tensors": {**ADD_CASE["tensors"], "dst": {"dtype": "float17", "size": 256}}}
    result = npusim("golden", str(write_case(tmp_path, bad_dtype)), "-o", str(tmp_path / "x"))
    assert result.returncode == 2 and "tensors.dst.dtype" in result.stderr
    unknown = npusim("golden", str(write_case(tmp_path, {**ADD_CASE, "instruction": "frobnicate"})), "-o", "x")
    assert unknown.returncode == 2 and "registered:" in unknown.stderr
    misaligned = {**ADD_CASE, "tensors": {**ADD_CASE["tensors"],
                                          "dst": {"dtype": "float16", "size": 256, "addr": 16, "init": {"fill": 0}}}}
    rejected = npusim("golden", str(write_case(tmp_path, misaligned)), "-o", str(tmp_path / "y"))
    assert rejected.returncode == 1 and "32-byte aligned" in rejected.stderr


def test_golden_reports_a_global_memory_beyond_the_limit_without_a_traceback(tmp_path):
    case = {"instruction": "tpu_gdma_cpy_L2S", "shape": [1, 1, 1, 4], "dtypes": {"dtype": "DT_INT8"},
            "global_mem_bytes": 1 << 40,
            "operands": {"dst_addr": {"addr": 0}, "src_addr": {"addr": 0, "init": {"fill": 1}}}}
    result = npusim("golden", str(write_case(tmp_path, case)), "-o", str(tmp_path / "out"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "global_mem_bytes = 1099511627776" in result.stderr and "4 GiB" in result.stderr


def test_run_uses_the_chip_for_cores_and_launches(tmp_path):
    script = tmp_path / "kernel.py"
    script.write_text(textwrap.dedent("""
        import sys
        import numpy as np
        from npusim import ascend as asc

        @asc.jit
        def fill(out: asc.GlobalAddress):
            g = asc.GlobalTensor()
            g.set_global_buffer(out, 16)
            ub = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 16)
            asc.duplicate(ub, 2.5, 16)
            asc.data_copy(g, ub, 16)

        out = np.zeros(16, np.float32)
        launch = fill[1](out)
        print(launch.chip.name, asc.Core().chip.name, out[0], sys.argv[1:])
    """))
    result = npusim("run", str(script), "--chip", "Ascend910_9391", "extra")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["A3", "A3", "2.5", "['extra']"]
    assert npusim("run", str(script), "--chip", "nope").returncode == 2


def test_run_chip_names_a_sophgo_chip_for_sophgo_scripts(tmp_path):
    script = tmp_path / "tpu_kernel.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        from npusim import ascend as asc
        from npusim import sophgo as tpu

        with tpu.Core() as core:
            core.write_global(0, np.arange(4, dtype=np.int32))
            tpu.tpu_gdma_cpy_S2L(0, 0, tpu.dim4(1, 4, 1, 1), None, None, tpu.DT_INT32)
            print(core.chip.name, tpu.tpu_npu_num(), asc.Core().chip.name)
    """))
    result = npusim("run", str(script), "--chip", "bm1688")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["BM1688", "32", "A2"]  # the Ascend default is untouched
    assert npusim("run", str(script)).stdout.split() == ["BM1684X", "64", "A2"]


def test_run_unknown_chip_lists_both_vendors(tmp_path):
    script = tmp_path / "empty.py"
    script.write_text("")
    result = npusim("run", str(script), "--chip", "bm9999")
    assert result.returncode == 2
    assert "bm9999" in result.stderr and "no Ascend or Sophgo chip has this name" in result.stderr
    assert "Ascend: 950" in result.stderr and "A2 (Ascend910B1)" in result.stderr and "Sophgo: BM1684X" in result.stderr


def test_run_propagates_a_constraint_error(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("from npusim import ascend as asc\n"
                      "with asc.Core():\n"
                      "    asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4, 8).write([0.0] * 8)\n"
                      "    x = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4, 8)\n"
                      "    asc.abs(x, x, 8)\n")
    result = npusim("run", str(script))
    assert result.returncode == 1 and "AlignmentError" in result.stderr


@pytest.mark.parametrize("command", [["demo"]])
def test_demo_passes_every_example(command):
    result = npusim(*command)
    assert result.returncode == 0, result.stdout
    assert "FAIL" not in result.stdout
    assert "PASS  Select.md KernelSelect template, mode 0" in result.stdout


# ------------------------------------------------------------------ in-process checks of the commands
def main(capsys, *argv: str) -> tuple[int, str, str]:
    """``npusim ARGV`` in this process: exit status (argparse's SystemExit included), stdout, stderr."""
    from npusim import cli

    try:
        status = cli.main(list(argv))
    except SystemExit as done:
        status = done.code
    out, err = capsys.readouterr()
    return status, out, err


def test_run_prints_the_message_of_sys_exit(tmp_path, capsys):
    script = tmp_path / "check.py"
    script.write_text('import sys\nsys.exit("kernel check failed: 3 of 256 elements differ")\n')
    status, out, err = main(capsys, "run", str(script))
    assert (status, out, err) == (1, "", "kernel check failed: 3 of 256 elements differ\n")  # was: no message
    script.write_text("import sys\nsys.exit(3)\n")
    assert main(capsys, "run", str(script)) == (3, "", "")


SELECT_CASE = {
    "instruction": "select",
    "tensors": {name: {"dtype": dtype, "size": size, "init": {"fill": 1}}
                for name, dtype, size in (("dst", "float32", 64), ("sel_mask", "uint8", 32), ("src0", "float32", 64),
                                          ("src1", "float32", 64))},
    "args": {"sel_mode": "VSEL_TENSOR_TENSOR_MODE", "count": 64},
}


def files_under(root: Path) -> set[str]:
    return {path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file()}


def test_golden_into_an_earlier_output_needs_force_and_replaces_only_its_own_files(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(capsys, "golden", str(write_case(tmp_path, SELECT_CASE)), "-o", str(out))[0] == 0
    first = files_under(out)
    assert "input/sel_mask.bin" in first
    (out / "notes.txt").write_text("mine")  # not one of the names npusim golden writes: left alone

    status, _, err = main(capsys, "golden", str(write_case(tmp_path, ADD_CASE)), "-o", str(out))
    assert status == 2 and "already holds golden output" in err and "--force" in err
    assert files_under(out) == first | {"notes.txt"}  # refused before anything changed

    assert main(capsys, "golden", str(write_case(tmp_path, ADD_CASE)), "-o", str(out), "--force")[0] == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["instruction"] == "add"
    # was: input/sel_mask.bin of the select case left next to the add case's files
    assert files_under(out) == {"manifest.json", "notes.txt", "output/golden.bin",
                                *(f"input/{name}.bin" for name in ("dst", "src0", "src1"))}

    (out / "input" / "extra.bin").write_bytes(b"\x00")  # a file the manifest does not list
    status, _, err = main(capsys, "golden", str(write_case(tmp_path, SELECT_CASE)), "-o", str(out), "--force")
    assert status == 2 and "input/extra.bin" in err and "not written by npusim golden" in err
    assert json.loads((out / "manifest.json").read_text())["instruction"] == "add"  # nothing removed


def test_golden_into_a_directory_holding_other_files(tmp_path, capsys):
    """``npusim golden case.json -o .`` next to the case file: nothing of an earlier output there, so it runs."""
    case = write_case(tmp_path, SELECT_CASE)
    assert main(capsys, "golden", str(case), "-o", str(tmp_path))[0] == 0
    assert (tmp_path / "output" / "golden.bin").is_file() and case.is_file()


@pytest.mark.parametrize("value", ["-5", "-1"])
def test_verify_rejects_a_negative_max_report(tmp_path, capsys, value):
    dump = tmp_path / "a.bin"
    dump.write_bytes(bytes(8))
    status, out, err = main(capsys, "verify", str(dump), str(dump), "--dtype", "uint16", "--max-report", value)
    assert status == 2 and out == "" and f"max_report = {value}" in err  # was: accepted


RACY_SCRIPT = """
import numpy as np
from npusim import ascend as asc

@asc.jit
def kernel(x):
    g = asc.GlobalTensor()
    g.set_global_buffer(x)
    t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
    asc.data_copy(t, g, 128)
    asc.adds(t, t, 1.0, 128)

kernel[1](np.zeros(128, np.float16))
print("ran to the end")
"""


@pytest.mark.parametrize(("policy", "status", "said"), [
    ("raise", 1, "SyncError"), ("warn", 0, "SyncWarning"), ("off", 0, None), (None, 0, "SyncWarning")])
def test_run_sync_sets_the_policy_of_the_scripts_launches(tmp_path, policy, status, said):
    script = tmp_path / "racy.py"
    script.write_text(RACY_SCRIPT)
    run = npusim("run", *(("--sync", policy) if policy else ()), str(script))
    assert run.returncode == status, run.stderr
    assert ("ran to the end" in run.stdout) == (status == 0)
    assert (said is None and "MTE2_V" not in run.stderr) or (said in run.stderr and "MTE2_V" in run.stderr)
