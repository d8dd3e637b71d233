"""Start-up cost: ``import npusim`` in a fresh interpreter, beside ``import numpy``.

The import is timed inside the child process (its CPU time around the import
statement, like every other timing here), so interpreter start-up is not counted
on either side.
"""

from __future__ import annotations

import subprocess
import sys

from registry import Bench

__all__ = ["import_bench"]

_PROBE = "import time; t = time.process_time(); import {module}; print(time.process_time() - t)"


def _import_seconds(module: str) -> float:
    """Seconds ``import <module>`` takes in a new interpreter."""
    done = subprocess.run([sys.executable, "-c", _PROBE.format(module=module)], capture_output=True, text=True,
                          check=True)
    return float(done.stdout.strip().splitlines()[-1])


def import_bench(module: str) -> Bench:
    return Bench(npusim=lambda: _import_seconds(module), numpy=lambda: _import_seconds("numpy"), self_timed=True)
