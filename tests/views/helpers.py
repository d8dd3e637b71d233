"""Shared by the views tests: run calls on a traced core whose UB is all written."""

from __future__ import annotations

import pytest

from npusim import ascend as asc


def traced(body, chip: str = "A2"):
    """Run ``body(core)`` on a fresh traced core (UB zeroed first, so no read is of unwritten bytes); its records."""
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, bytes(core.chip.ub_bytes))
        body(core)
    return core.trace


def registered(name: str) -> bool:
    return name in {entry.name for entry in asc.instructions()}


def waits_on(name: str, port: str):
    """Expected to fail while ``name`` is not on the engine (it records nothing until the ``port`` port
    lands); once registered the mark is gone and the test runs as written."""
    return pytest.mark.xfail(not registered(name), strict=True,
                             reason=f"{name} records no access until the {port} port lands on the engine")


def add_mask64(core) -> None:
    """add, half, mask 64, 2 repeats, default strides: per repeat lanes 0-63 run, 64-127 are masked off
    (docs/semantics.md §1.1, §1.3); dst at 0x400, src0 at 0, src1 at 0x200."""
    x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
    y = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0x200, 256)
    z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 0x400, 256)
    asc.add(z, x, y, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
