"""Fuzzing the command line in-process: ``npusim.cli.main(argv)`` with hostile arguments and files.

The contract of a command line differs from an instruction's: every call ends with an exit
status, 0 (success), 1 (a failed check) or 2 (bad usage or a malformed file), returned by
``main`` or raised as ``SystemExit`` by argparse; a failing status comes with a message (on
stderr, or a mismatch report on stdout); no exception escapes, no traceback is printed, and
the process-wide default chip is left alone.  Case files are valid cases with
a few values replaced by hostile JSON, or not JSON at all; dumps for ``verify`` are random.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import warnings

import pytest
from hypothesis import given, note

from npusim import cli
from npusim.ascend import get_default_chip

from .harness import COUNTS, FUZZ_SETTINGS, OUTCOMES
from .strategies import Tape, tapes

SEED_CASES = (
    {"instruction": "add", "chip": "A2",
     "tensors": {"dst": {"dtype": "float16", "size": 256, "init": {"fill": 0}},
                 "src0": {"dtype": "float16", "size": 256, "init": {"random": {"seed": 1, "low": -8, "high": 8}}},
                 "src1": {"dtype": "float16", "size": 256, "addr": 4096,
                          "init": {"values": [1, 2.5, "nan", "-inf"], "fill": 0.5}}},
     "args": {"mask": 128, "repeat_times": 2, "repeat_params": {"dst_rep_stride": 8}}},
    {"instruction": "select", "chip": "A2",
     "tensors": {"dst": {"dtype": "float32", "size": 64},
                 "sel_mask": {"dtype": "uint8", "size": 32, "init": {"hex": "ff00" * 16}},
                 "src0": {"dtype": "float32", "size": 64, "init": {"fill": 1}},
                 "src1": {"dtype": "float32", "size": 64, "init": {"bits": [0x7FC00001], "fill": -2}}},
     "args": {"sel_mode": "VSEL_TENSOR_TENSOR_MODE", "count": 64}},
    {"instruction": "duplicate", "chip": "950", "strict": True,
     "tensors": {"dst": {"dtype": "int16", "size": 128, "position": "VECOUT"}},
     "args": {"scalar": -3, "count": 128}},
    {"instruction": "muls",
     "tensors": {"dst": {"dtype": "float16", "size": 128, "init": {"fill": 0}},
                 "src": {"dtype": "float16", "size": 128, "init": {"fill": 3}}},
     "args": {"scalar": 0.5, "mask": [0, 2**64 - 1], "repeat_times": 1, "repeat_params": [1, 1, 8, 8],
              "is_set_mask": True},
     "registers": {"vector_mask": [0, 255], "mask_mode": "NORMAL", "cmpmask": "00" * 16}},
)
HOSTILE_JSON = (None, True, False, 0, -1, 1.5, -1e308, 1e308, 10**30, 2**64, "", "nan", "0x", "0xZZ", "zz",
                "-0.0", "VECIN", "A2", [], {}, [None], [[[]]], {"tensor": "nope"}, {"tensors": ["dst"]},
                ["1", 2], "ff" * 40, "f", 65536, -32)
BROKEN_FILES = (b"", b"{", b"[1, 2", b"\xff\xfe\x00bad utf-8", b"[" * 100_000 + b"]" * 100_000, b"NaN",
                b'{"instruction": NaN}', b"null", b'"add"', b"[]", b"{}", b'{"instruction": "add"}',
                b'{"instruction": "nope", "tensors": {}}', b"\x00" * 64, b'{"a": ' * 5000 + b"1" + b"}" * 5000)
DTYPE_NAMES = ("float16", "float32", "bfloat16", "int8", "uint64", "", "float17", "bool", "object", "int4",
               "complex64", "float8_e4m3fn", "FLOAT16", " float16", "half")
SHAPES = (None, "", "4", "2,2", "-1,4", "-2,-2", "a", "0", "1,,2", "99999999999999999999", ",".join(["1"] * 40),
          "1.5", "4,", " 4")


def mutate(tape: Tape, case):
    """``case`` with a value somewhere replaced by hostile JSON, or a key removed or added."""
    paths = []

    def walk(node, path):
        paths.append(path)
        children = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, child in children:
            walk(child, (*path, key))

    walk(case, ())
    path = tape.pick("path", paths)
    action = tape.pick("action", ("replace", "replace", "replace", "delete", "add key"))
    # Hostile values are copied: the same list or dict inserted twice could come to contain itself,
    # and a later "add key" would change the shared constant.
    if not path:
        return copy.deepcopy(tape.pick("replacement", HOSTILE_JSON))
    parent = case
    for key in path[:-1]:
        parent = parent[key]
    if action == "replace":
        parent[path[-1]] = copy.deepcopy(tape.pick("replacement", HOSTILE_JSON))
    elif action == "delete":
        del parent[path[-1]]
    elif isinstance(parent, dict):
        parent[tape.pick("new key", ("init", "addr", "junk", "size", "count"))] = copy.deepcopy(
            tape.pick("value", HOSTILE_JSON))
    return case


def run_cli(family: str, argv: list[str], tape: Tape) -> None:
    """``cli.main(argv)`` under the command-line contract (module docstring)."""
    COUNTS[family] += 1
    note(f"{family}: argv={argv!r}; {tape!r}")
    chip_before = get_default_chip().name
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        warnings.simplefilter("ignore")  # an uninitialised read in a case is the case's business
        try:
            status = cli.main(argv)
        except SystemExit as done:  # argparse: usage errors (2) and --help (0)
            status = done.code
    outcome = f"exit {status}"
    OUTCOMES[(family, outcome)] += 1
    note(f"{family}: -> {outcome}; stderr={err.getvalue()[-2000:]!r}")
    assert status in (0, 1, 2), f"{family}: exit status {status!r}"
    # a failed check reports on stdout (verify's mismatch list), everything else on stderr
    message = err.getvalue().strip() or (status == 1 and out.getvalue().strip())
    assert status == 0 or message, f"{family}: exit {status} without a message"
    assert "Traceback" not in out.getvalue() + err.getvalue(), f"{family}: printed a traceback"
    assert get_default_chip().name == chip_before, f"{family}: the default chip changed"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    (root / "a_directory").mkdir()
    (root / "script.py").write_text("x = 1\n")
    return root


@FUZZ_SETTINGS
@given(tape=tapes(64))
def test_fuzz_command_line(workdir, tape: Tape):
    command = tape.pick("command", ("golden", "golden", "verify", "verify", "run", "garbage"))
    case_path, out_dir = workdir / "case.json", workdir / "out"
    if command == "golden":
        case = copy.deepcopy(tape.pick("seed case", SEED_CASES))
        if tape.calm:
            text = json.dumps(case).encode()
        elif tape.chance("not JSON", 4):
            text = tape.pick("file", BROKEN_FILES)
        else:
            for _ in range(tape.integer("mutations", 1, 3)):
                case = mutate(tape, case)
            text = json.dumps(case).encode()
        case_path.write_bytes(text)
        target = tape.pick("case path", (case_path,) if tape.calm else (case_path,) * 6 + (
            workdir / "a_directory", workdir / "missing.json"))
        output = tape.pick("output", (out_dir,) if tape.calm else (out_dir, out_dir, case_path, workdir / "script.py"))
        argv = ["golden", str(target), "-o", str(output), "--force"]  # every case writes into the same directory
        if not tape.calm:
            argv = tape.pick("argv form", (argv,) * 6 + (argv[:2], argv + ["extra"], ["golden", "-o", str(output)]))
    elif command == "verify":
        sizes = (0, 1, 2, 3, 4, 8, 16, 32, 64)
        first = bytes(tape.below(256) for _ in range(tape.pick("size", sizes)))
        second = first if tape.chance("identical", 2) else bytes(tape.below(256) for _ in range(
            tape.pick("size", sizes)))
        (workdir / "out.bin").write_bytes(first)
        (workdir / "golden.bin").write_bytes(second)
        argv = ["verify", str(workdir / "out.bin"), str(workdir / "golden.bin"),
                "--dtype", tape.pick("dtype", DTYPE_NAMES[:5] if tape.calm else DTYPE_NAMES)]
        shape = tape.pick("shape", SHAPES[:1] if tape.calm else SHAPES)
        if shape is not None:
            argv += ["--shape", shape]
        if not tape.calm and tape.chance("max report", 3):
            argv += ["--max-report", tape.pick("max report", ("0", "-1", "3", "x", "99999999999999999999"))]
        if not tape.calm and tape.chance("missing file", 8):
            argv[tape.pick("which file", (1, 2))] = str(tape.pick("path", (workdir / "nope.bin", workdir /
                                                                             "a_directory")))
    elif command == "run":
        script = tape.pick("script", (workdir / "missing.py", workdir / "a_directory"))
        argv = ["run", str(script), "--chip", tape.pick("chip", ("A2", "bogus", "", "950"))]
    else:
        argv = tape.pick("argv", ([], ["--bogus"], ["golden"], ["verify", "x"], ["demo", "extra"], ["nope"],
                                  ["verify", "a", "b"], ["--help"], ["golden", "--help"], ["run"]))
    run_cli("cli", argv, tape)
