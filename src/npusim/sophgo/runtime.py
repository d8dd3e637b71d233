"""Kernel entry and exit: ``tpu_initialize`` and ``tpu_poll`` (``tpu_kernel.h``).

A TPU-Kernel kernel starts with ``tpu_initialize()``, queues GDMA and BDC commands, and
ends with ``tpu_poll()``, which waits until every engine has finished.  In npusim a kernel
is a Python function run inside ``with tpu.Core(...)``, and every command runs to completion
when it is issued, so nothing is ever left in flight: ``tpu_poll`` has nothing to wait for
and ``tpu_initialize`` nothing to set up.  Both exist so kernels read as they do in C; both
need an active core, and they record that they ran (``Core.initialized``, ``Core.polls``).
The vendor cmodel accepts commands before ``tpu_initialize`` and a ``tpu_poll`` with nothing
queued, so neither order is an error here.
"""

from __future__ import annotations

from .core import current_core

__all__ = ["tpu_initialize", "tpu_poll"]


def tpu_initialize() -> None:
    """Start a kernel on the active core."""
    current_core("tpu_initialize").initialized = True


def tpu_poll() -> None:
    """Wait for every queued command: all have already completed in npusim."""
    current_core("tpu_poll").polls += 1
