"""npusim as pyasc's missing CPU backend: run pyasc kernels, tutorials and tests unmodified.

pyasc (``hicann/pyasc``) is the vendor's Python front end for Ascend C; its ``Model`` backend
is the CANN simulator.  Under the entry points below, ``import asc`` (and the ``asc.*``
modules kernels and tests use) resolves to npusim instead (an import hook, :mod:`.hook`),
ahead of any installed pyasc:

    npusim run script.py [args]                 # a tutorial or any script
    python -m npusim.pyasc script.py [args]     # the same
    python -m pytest -p npusim.pyasc tests...   # pyasc's tests (this module is the plugin)

Launches follow pyasc's conventions (:mod:`.jit`, :mod:`.config`, :mod:`.runtime`) and, by
default, the hardware-tolerance policy ``"hardware"``: what the device tolerates and the
documents forbid (a GM access past a tensor's end inside its allocation) is done and
reported with a warning.  ``--npusim-policy=strict`` (pytest) or ``NPUSIM_PYASC_POLICY=strict``
raises instead.  Their launches run the pipe sync checker (docs/semantics.md §11) as
``npusim run`` does: ``"warn"`` by default, ``--npusim-sync=raise|warn|off`` (pytest),
``npusim run --sync`` or ``NPUSIM_SYNC`` choose.  The plugin's options all start with ``--npusim-``, so they never clash
with a conftest's ``--backend`` / ``--platform``; it works under pytest-xdist (each worker
loads it).
"""

from __future__ import annotations

import os

from .hook import activate, active, deactivate
from .jit import set_policy

__all__ = ["activate", "active", "deactivate", "pytest_addoption", "pytest_load_initial_conftests", "set_policy",
           "start"]

POLICY_ENV = "NPUSIM_PYASC_POLICY"
SYNC_ENV = "NPUSIM_SYNC"
SYNC_CHOICES = ("raise", "warn", "off")


def start(policy: str | None = None, sync: str | None = None) -> None:
    """What every entry point does: choose the policies, activate the hook.

    Args:
        policy: hardware tolerance; else $NPUSIM_PYASC_POLICY, else ``"hardware"``.
        sync: the sync checker of launches that name none; else $NPUSIM_SYNC, else ``"warn"``
            (a script or test run to see what a kernel does on the device: races are reported).
    """
    sync = sync or os.environ.get(SYNC_ENV) or "warn"
    if sync not in SYNC_CHOICES:
        raise ValueError(f"npusim.pyasc: the sync policy (--npusim-sync, --sync or ${SYNC_ENV}) must be one of "
                         f"{', '.join(SYNC_CHOICES)}, got {sync!r}")
    set_policy(policy or os.environ.get(POLICY_ENV) or "hardware")
    from ..ascend.runtime.launch import DEFAULT_SYNC

    DEFAULT_SYNC.set(sync)
    activate()


# ---------------------------------------------------------------- pytest plugin (-p npusim.pyasc)
def pytest_addoption(parser) -> None:
    group = parser.getgroup("npusim", "npusim as pyasc's backend")
    group.addoption("--npusim-policy", choices=("hardware", "strict"), default=None,
                    help="hardware tolerance of pyasc launches: 'hardware' (warn, default) or 'strict' (raise); "
                         f"default from ${POLICY_ENV}")
    group.addoption("--npusim-sync", choices=SYNC_CHOICES, default=None,
                    help="the pipe sync checker of pyasc launches: 'raise' (SyncError), 'warn' (SyncWarning, "
                         f"default) or 'off'; default from ${SYNC_ENV}")


def pytest_load_initial_conftests(early_config, parser, args) -> None:
    """Activate before any conftest (pyasc's import ``asc``) is loaded."""
    options = early_config.known_args_namespace
    start(options.npusim_policy, options.npusim_sync)
