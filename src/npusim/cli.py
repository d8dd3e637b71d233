"""The ``npusim`` command line.

    npusim run FILE.py [--chip NAME] [-- ARGS]   run a kernel script (NAME: its default Ascend or Sophgo chip);
                                                 ``import asc`` in it is npusim's pyasc front end
    npusim demo                                  every bundled example against its golden data
    npusim golden CASE.json -o DIR [--force]     golden data for one instruction call (docs/golden.md)
    npusim verify OUT.bin GOLDEN.bin --dtype T   byte-exact comparison of two dumps
    npusim list [--vendor V] [--markdown]        every registered instruction (--markdown: docs/api.md)

Exit status: 0 success; 1 a failed check (an example, a verify mismatch, an instruction
that rejected the case's call); 2 bad usage or a malformed file.
"""

from __future__ import annotations

import argparse
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
    start_pyasc()
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [str(script), *args.script_args]
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


def cmd_golden(args: argparse.Namespace) -> int:
    """Compute one instruction call described in JSON; write input/*.bin, output/golden.bin, manifest.json."""
    from .errors import ConstraintError
    from .golden import CaseError, load_case, run_case, write_result

    try:
        result = run_case(load_case(args.case))
    except (CaseError, OSError) as err:
        _error("golden", str(err))
        return EXIT_USAGE
    except ConstraintError as err:
        _error("golden", f"the instruction rejected the call: {err}")
        return EXIT_FAIL
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
    print(format_report(result))
    return EXIT_OK if result.identical else EXIT_FAIL


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
    verify.set_defaults(func=cmd_verify)

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
