"""``python -m npusim.pyasc SCRIPT [ARGS...]``: the same as ``npusim run SCRIPT -- ARGS...``."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m npusim.pyasc SCRIPT [ARGS...]   (run a pyasc script on npusim)")
        return 0 if argv else 2
    from ..cli import main as cli_main

    return cli_main(["run", argv[0], "--", *argv[1:]])
