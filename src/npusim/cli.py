"""The ``npusim`` command line.

    npusim run FILE.py [--chip NAME] [--sync raise|warn|off] [--trace OUT.json] [-- ARGS]
                                                 run a kernel script (NAME: its default Ascend or Sophgo chip;
                                                 --sync: the pipe sync checker of its launches, docs/errors.md;
                                                 OUT.json: a Chrome trace of every core it made, docs/explain.md);
                                                 ``import asc`` in it is npusim's pyasc front end
    npusim demo                                  every bundled example against its golden data
    npusim golden CASE.json -o DIR [--force]     golden data for one instruction call (docs/golden.md)
    npusim verify OUT.bin GOLDEN.bin --dtype T [--trace T.json [--buffer NAME | --ub ADDR [--block B]]]
                                                 byte-exact comparison of two dumps (with a trace: the
                                                 instruction that last wrote each mismatching element)
    npusim explain CASE.json|TRACE.json [--seq N] [--block B] [--svg FILE] [--png FILE]
                                                 per repeat, the bytes each operand of a call touched
    npusim report TRACE.json -o REPORT.html [--pick B:SEQ]  a self-contained HTML report of a trace
    npusim list [--vendor V] [--markdown]        every registered instruction (--markdown: docs/api.md)

Exit status: 0 success; 1 a failed check (an example, a verify mismatch, an instruction
that rejected the case's call); 2 bad usage or a malformed file.
"""

from __future__ import annotations

import argparse
import json
import runpy
import sys
from pathlib import Path

__all__ = ["main"]

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


def _error(command: str, message: str) -> None:
    print(f"npusim {command}: {message}", file=sys.stderr)


def cmd_demo(_args: argparse.Namespace) -> int:
    """Run every bundled example; one PASS/FAIL line each; exit 0 only if all pass."""
    from .examples import run_all

    outcomes = run_all()
    for outcome in outcomes:
        print(f"{'PASS' if outcome.passed else 'FAIL'}  {outcome.name}\n      {outcome.detail}")
    failed = sum(not o.passed for o in outcomes)
    print(f"{len(outcomes) - failed}/{len(outcomes)} examples passed")
    return EXIT_FAIL if failed else EXIT_OK


def cmd_run(args: argparse.Namespace) -> int:
    """Run a script as ``__main__`` with the chosen chip as the default of its vendor's cores and launches.

    ``import asc`` in the script (a pyasc kernel or test) resolves to npusim (:mod:`npusim.pyasc`).
    """
    from .errors import ConstraintError
    from .pyasc import start as start_pyasc

    script = Path(args.file)
    if not script.is_file():
        _error("run", f"no such file: {script}")
        return EXIT_USAGE
    if args.chip is not None:
        try:
            _set_default_chip(args.chip)
        except ConstraintError as err:
            _error("run", str(err))
            return EXIT_USAGE
    try:
        start_pyasc(sync=args.sync)  # --sync, else $NPUSIM_SYNC, else "warn": a script run to see what it does
    except ValueError as err:
        _error("run", str(err))
        return EXIT_USAGE
    if args.trace is not None:
        from .engine.trace import collecting
        from .views.chrome import write_trace

        with collecting() as collector:
            try:
                return _run_script(script, args.script_args)
            finally:  # also when the script failed: the trace shows what ran up to the failure
                write_trace(args.trace, collector.cores)
                print(f"npusim run: trace of {len(collector.cores)} core(s), {len(collector.records())} "
                      f"instruction call(s) written to {args.trace}", file=sys.stderr)
    return _run_script(script, args.script_args)


def _run_script(script: Path, script_args: list[str]) -> int:
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *script_args]
    sys.path.insert(0, str(script.resolve().parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as done:  # as Python itself: an int is the status, anything else a message (status 1)
        if done.code is None or isinstance(done.code, int):
            return EXIT_OK if done.code is None else done.code
        print(done.code, file=sys.stderr)
        return EXIT_FAIL
    finally:
        sys.argv, sys.path[:] = saved_argv, saved_path
    return EXIT_OK


def _set_default_chip(name: str) -> str:
    """Make ``name`` the default chip of its vendor; return ``"<vendor> <canonical name>"``.

    Raises:
        UnsupportedError: neither vendor knows the name; the message lists both vendors' chips.
    """
    from . import ascend, sophgo
    from .errors import UnsupportedError
    from .sources import semantics

    rejections = []
    for vendor, module in (("Ascend", ascend), ("Sophgo", sophgo)):
        try:
            chip = module.get_chip(name)
        except UnsupportedError as err:
            rejections.append(f"{vendor}: {err.allowed}")
            continue
        module.set_default_chip(chip)
        return f"{vendor} {chip.name}"
    raise UnsupportedError("set_default_chip", "chip", name, "no Ascend or Sophgo chip has this name",
                           "; ".join(rejections), semantics("10.5"))


def _run_checked(verb: str, work, usage_errors: tuple[type[Exception], ...]):
    """``(work(), None)``, or ``(None, exit code)`` after printing why: a bad case or file is a usage
    error, an instruction that rejects the call (a ConstraintError) a failure."""
    from .errors import ConstraintError

    try:
        return work(), None
    except usage_errors as err:
        _error(verb, str(err))
        return None, EXIT_USAGE
    except ConstraintError as err:
        _error(verb, f"the instruction rejected the call: {err}")
        return None, EXIT_FAIL


def cmd_golden(args: argparse.Namespace) -> int:
    """Compute one instruction call described in JSON; write input/*.bin, output/golden.bin, manifest.json."""
    from .golden import CaseError, load_case, run_case, write_result

    result, code = _run_checked("golden", lambda: run_case(load_case(args.case)), (CaseError, OSError))
    if code is not None:
        return code
    try:
        written = write_result(result, args.output, force=args.force)
    except OSError as err:
        _error("golden", f"cannot write the output directory: {err}")
        return EXIT_USAGE
    for path in written:
        print(path)
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    """Compare OUT.bin with GOLDEN.bin byte for byte; report mismatches; exit 0 only if identical."""
    from .dtypes import by_name
    from .verify import compare_dumps, format_report

    try:
        dtype = by_name(args.dtype)
        shape = tuple(int(d) for d in args.shape.split(",")) if args.shape else None
        out, golden = Path(args.output).read_bytes(), Path(args.golden).read_bytes()
        result = compare_dumps(out, golden, dtype, shape, args.max_report)
    except (KeyError, ValueError, OSError) as err:
        _error("verify", str(err).strip("'\""))
        return EXIT_USAGE
    if args.trace is None or result.identical or result.size_error:
        print(format_report(result))
        return EXIT_OK if result.identical else EXIT_FAIL
    try:
        located = _locate_dump(args)
    except (OSError, ValueError) as err:
        _error("verify", str(err))
        return EXIT_USAGE
    print(format_report(result, located))
    return EXIT_FAIL


def _locate_dump(args: argparse.Namespace):
    """A function from a mismatching element's first differing byte (offset in the dump) to its writers."""
    from .views.chrome import load_trace
    from .views.provenance import describe_steps, provenance

    cores = load_trace(args.trace)
    if args.ub is not None:
        space, buffer, base = "UB", None, int(args.ub, 0)
    else:
        buffers = sorted({r.buffer for c in cores for rec in c.records for r in rec.writes if r.space == "GM"})
        if args.buffer is None and len(buffers) != 1:
            raise ValueError(f"the trace writes {len(buffers)} GM buffers ({', '.join(map(repr, buffers)) or 'none'}):"
                             " name the dump's with --buffer NAME, or give --ub ADDR for a UB dump")
        space, buffer, base = "GM", args.buffer if args.buffer is not None else buffers[0], 0
    base += args.offset

    def locate(byte_offset: int) -> list[str]:
        return describe_steps(provenance(cores, space, base + byte_offset, buffer, args.block))

    return locate


def cmd_explain(args: argparse.Namespace) -> int:
    """Explain one call: of a case file (run on a fresh core) or of a trace file."""
    from .engine.trace import collecting
    from .golden import CaseError, load_case, run_case
    from .views.chrome import TraceFileError, load_trace
    from .views.explain import explain

    try:
        document = json.loads(Path(args.file).read_bytes())
    except (OSError, ValueError) as err:
        _error("explain", f"cannot read {args.file}: {err}")
        return EXIT_USAGE
    def traced_cores():
        if isinstance(document, dict) and "traceEvents" in document:
            return load_trace(args.file)
        with collecting() as collector:
            run_case(load_case(args.file))
        return [_from_case(core, Path(args.file).name) for core in collector.cores]

    cores, code = _run_checked("explain", traced_cores, (CaseError, TraceFileError))
    if code is not None:
        return code
    records = [(r, c.chip) for c in cores if args.block is None or c.block == args.block for r in c.records]
    if args.seq is not None:
        records = [(r, chip) for r, chip in records if r.seq == args.seq]
    elif isinstance(document, dict) and "instruction" in document:
        records = [(r, chip) for r, chip in records if r.instruction == document["instruction"]][-1:]
    if not records:
        _error("explain", "no traced call matches (the instruction may not record yet: docs/explain.md)")
        return EXIT_FAIL
    explanations = [explain(r, chip) for r, chip in records]
    print("\n\n".join(str(e) for e in explanations))
    if args.svg or args.png:
        if len(explanations) > 1:
            option = "--svg" if args.svg else "--png"
            _error("explain", f"{option} draws one call; {len(explanations)} match: choose one with --seq "
                   "(and --block)")
            return EXIT_USAGE
        if args.png:
            try:
                png = explanations[0].png()
            except ImportError as err:
                _error("explain", str(err))
                return EXIT_USAGE
            Path(args.png).write_bytes(png)
        if args.svg:
            Path(args.svg).write_text(explanations[0].svg(), encoding="utf-8")
    return EXIT_OK


def _from_case(core, case_name: str):
    """A case's core with its calls' source set to the case file (they come from it, not from a Python line)."""
    import dataclasses

    return dataclasses.replace(core, records=[dataclasses.replace(r, source=case_name) for r in core.records])


def cmd_report(args: argparse.Namespace) -> int:
    """Write the HTML report of a trace file."""
    from .views.chrome import TraceFileError, load_trace
    from .views.report import write_report

    try:
        cores = load_trace(args.trace)
        picks = [tuple(int(part) for part in pick.split(":")) for pick in args.pick]
        if any(len(p) != 2 for p in picks):
            raise ValueError("--pick takes BLOCK:SEQ, e.g. 0:12")
    except (OSError, ValueError, TraceFileError) as err:
        _error("report", str(err))
        return EXIT_USAGE
    write_report(args.output, cores, f"npusim trace {Path(args.trace).name}", picks)
    print(args.output)
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    """Print the instruction registry: a table, or (``--markdown``) the API reference docs/api.md."""
    from .apidoc import load_vendors, render_markdown, render_table
    from .engine.registry import instructions

    load_vendors()
    entries = instructions(args.vendor) if args.vendor else instructions("ascend") + instructions("sophgo")
    print(render_markdown(entries) if args.markdown else render_table(entries), end="")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="npusim", description="Bit-exact NPU vector-instruction emulator")
    sub = parser.add_subparsers(dest="command", required=True)

    demo = sub.add_parser("demo", help="run every bundled example against its golden data")
    demo.set_defaults(func=cmd_demo)

    run = sub.add_parser("run", help="run a kernel script")
    run.add_argument("file", help="the Python script")
    run.add_argument("--chip", help="default chip of the script's cores and launches: an Ascend product (A2, 950, "
                     "Ascend910B1 ...) or a Sophgo chip (BM1684X, BM1688 ...)")
    run.add_argument("--sync", choices=("raise", "warn", "off"), help="the pipe synchronisation checker of the "
                     "script's kernel launches (default warn; docs/errors.md, SyncError)")
    run.add_argument("--trace", metavar="OUT.json", help="write a Chrome trace-event file of every instruction call "
                     "(Perfetto, chrome://tracing, npusim report); time is the call's sequence number")
    run.set_defaults(func=cmd_run)  # further arguments (after "--" if they look like options) go to the script

    golden = sub.add_parser("golden", help="golden data for one instruction call described in JSON")
    golden.add_argument("case", help="the case file (schema: docs/golden.md)")
    golden.add_argument("-o", "--output", required=True, help="output directory (input/, output/, manifest.json)")
    golden.add_argument("--force", action="store_true", help="replace an earlier golden output in the directory "
                        "(only the files its manifest.json lists)")
    golden.set_defaults(func=cmd_golden)

    verify = sub.add_parser("verify", help="compare an output dump with a golden dump, byte for byte")
    verify.add_argument("output", help="the output .bin")
    verify.add_argument("golden", help="the golden .bin")
    verify.add_argument("--dtype", required=True, help="element type (float16, bfloat16, float32, int16 ...)")
    verify.add_argument("--shape", help="comma-separated shape, to report multi-dimensional indices")
    verify.add_argument("--max-report", type=int, default=10, help="mismatches to list (default 10)")
    verify.add_argument("--trace", metavar="T.json", help="a trace of the run that produced OUT (npusim run --trace): "
                        "each listed mismatch names the instruction, block, repeat, DataBlock, lane and source line "
                        "that last wrote it")
    verify.add_argument("--buffer", help="with --trace: the GM buffer OUT is a dump of (default: the only GM buffer "
                        "the trace writes)")
    verify.add_argument("--ub", metavar="ADDR", help="with --trace: OUT is a dump of UB from byte ADDR (0x... allowed)")
    verify.add_argument("--block", type=int, help="with --ub: the block whose UB it is (default 0)")
    verify.add_argument("--offset", type=int, default=0, help="with --trace: OUT starts this many bytes into the "
                        "buffer (default 0)")
    verify.set_defaults(func=cmd_verify)

    explain = sub.add_parser("explain", help="per repeat, the bytes each operand of one call read and wrote")
    explain.add_argument("file", help="a case file (the schema of npusim golden) or a trace file (npusim run --trace)")
    explain.add_argument("--seq", type=int, help="the call's sequence number (default: the case's instruction, or "
                         "every call of the trace)")
    explain.add_argument("--block", type=int, help="only calls of this block")
    explain.add_argument("--svg", metavar="FILE", help="also draw the call's access picture to FILE")
    explain.add_argument("--png", metavar="FILE", help="... or as PNG (needs the png extra: pip install 'npusim[png]')")
    explain.set_defaults(func=cmd_explain)

    report = sub.add_parser("report", help="a self-contained HTML report of a trace")
    report.add_argument("trace", help="the trace file (npusim run --trace)")
    report.add_argument("-o", "--output", required=True, help="the HTML file to write")
    report.add_argument("--pick", action="append", default=[], metavar="BLOCK:SEQ",
                        help="also picture this call (repeatable; the first call of every instruction always is)")
    report.set_defaults(func=cmd_report)

    listing = sub.add_parser("list", help="every registered instruction (name, family, pipe, products, exactness)")
    listing.add_argument("--vendor", choices=("ascend", "sophgo"), help="only this vendor's instructions")
    listing.add_argument("--markdown", action="store_true", help="the API reference (docs/api.md) instead")
    listing.set_defaults(func=cmd_list)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "run":
        args.script_args = extra[1:] if extra[:1] == ["--"] else extra
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
