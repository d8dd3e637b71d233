"""Start-up cost: ``import npusim`` in a fresh interpreter, beside ``import numpy``.

The import is timed inside the child process (its CPU time around the import
statement, like every other timing here), so interpreter start-up is not counted
on either side.  The child may write bytecode caches even where the environment
says not to (``PYTHONDONTWRITEBYTECODE``): an installed numpy is imported from its
``.pyc`` files, and the warm-up import gives npusim the same footing, as any
installation after its first use has.
"""

from __future__ import annotations

import os
import subprocess
import sys

from registry import Bench

__all__ = ["import_bench"]

_PROBE = "import time; t = time.process_time(); {statement}; print(time.process_time() - t)"


def _import_seconds(statement: str) -> float:
    """Seconds the import ``statement`` takes in a new interpreter."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, "-c", _PROBE.format(statement=statement)], capture_output=True, text=True,
                          check=True, env=env)
    return float(done.stdout.strip().splitlines()[-1])


def import_bench(statement: str) -> Bench:
    """``statement`` (``"import npusim"``) against ``import numpy``, each in a fresh interpreter."""
    return Bench(npusim=lambda: _import_seconds(statement), numpy=lambda: _import_seconds("import numpy"),
                 self_timed=True)
