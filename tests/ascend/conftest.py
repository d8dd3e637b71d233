"""Shared fixtures for the Ascend tests."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc


def state(core: asc.Core):
    """Everything an instruction may change: UB contents, UB written-shadow, registers."""
    return core.ub.snapshot(), core.register_state()


def assert_rejected(core: asc.Core, error: type, call, *message_parts: str):
    """``call()`` raises ``error`` whose message contains every part, and changes nothing."""
    before = state(core)
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    for part in message_parts:
        assert part in message, f"{part!r} not in {message!r}"
    assert state(core) == before
    return caught.value


def fill(core: asc.Core, start: int, nbytes: int, seed: int = 0) -> bytes:
    """Write random bytes to UB [start, start+nbytes) and return them."""
    payload = np.random.default_rng(seed).integers(0, 256, nbytes, dtype=np.uint8).tobytes()
    core.ub_write(start, payload)
    return payload


@pytest.fixture
def a2():
    with asc.Core("A2") as core:
        fill(core, 0, 64 * 1024)
        yield core
