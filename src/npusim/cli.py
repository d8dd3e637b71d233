"""The ``npusim`` command line."""

from __future__ import annotations

import argparse
import sys

__all__ = ["main"]


def cmd_demo(_args: argparse.Namespace) -> int:
    """Run every bundled example; one PASS/FAIL line each; exit 0 only if all pass."""
    from .examples import run_all

    outcomes = run_all()
    for outcome in outcomes:
        print(f"{'PASS' if outcome.passed else 'FAIL'}  {outcome.name}\n      {outcome.detail}")
    failed = sum(not o.passed for o in outcomes)
    print(f"{len(outcomes) - failed}/{len(outcomes)} examples passed")
    return 1 if failed else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="npusim", description="Bit-exact NPU vector-instruction emulator")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run every bundled example against its golden data")
    demo.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
