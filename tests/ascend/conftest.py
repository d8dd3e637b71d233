"""Shared fixtures for the Ascend tests."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine import caches
from npusim.overloads import bind_values


def state(core: asc.Core):
    """Everything an instruction may change: UB contents, UB written-shadow, registers."""
    return core.ub.snapshot(), core.register_state()


_MISSING = object()


def assert_fields(err, *, instruction=_MISSING, operand=_MISSING, value=_MISSING, rule=None, allowed=None) -> None:
    """The structured fields of a ConstraintError (errors.py): ``instruction``, ``operand`` and
    ``value`` compared exactly, ``rule`` and ``allowed`` as substrings.  A field not given is not
    checked; every field given must be right (a test of the message text alone would not notice
    a dropped operand name)."""
    for name, expected in (("instruction", instruction), ("operand", operand), ("value", value)):
        if expected is not _MISSING:
            assert getattr(err, name) == expected, f"{name}: {getattr(err, name)!r} != {expected!r} ({err})"
    for name, part in (("rule", rule), ("allowed", allowed)):
        if part is not None:
            assert part in getattr(err, name), f"{name}: {part!r} not in {getattr(err, name)!r}"


def assert_rejected(core: asc.Core, error: type, call, *message_parts: str, **fields):
    """``call()`` raises ``error`` whose message contains every part, and changes nothing.

    Keyword arguments are checked against the error's fields (:func:`assert_fields`).
    """
    before = state(core)
    with pytest.raises(error) as caught:
        call()
    message = str(caught.value)
    for part in message_parts:
        assert part in message, f"{part!r} not in {message!r}"
    assert_fields(caught.value, **fields)
    assert state(core) == before
    return caught.value


def cached(count: int) -> int:
    """How many entries a cache holds after ``count`` stores: none with every cache off
    (``NPUSIM_CACHES=off``, tests/engine/test_caches_off.py)."""
    return count if caches.enabled() else 0


def binding_of(core: asc.Core, function, *args, **kwargs):
    """The binding a call ``function(*args, **kwargs)`` runs on ``core``: the engine's plan step and
    bind, done by hand (``npusim.engine.dispatch``), so a test can see the operand path it chose."""
    entry = function.instruction
    form, values = bind_values(entry.name, entry.forms, args, kwargs)
    plan = entry.compile(core, form.name, dict(zip(form.names, values, strict=True)))
    return plan.bind(core, [values[form.names.index(name)] for name in plan.operands])


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
