"""Fixtures for the pyasc front end: the import hook on for one test, and a clean platform choice."""

from __future__ import annotations

import pytest

from npusim import pyasc


@pytest.fixture
def asc():
    """``import asc`` resolving to npusim for the test; the hook and its modules are gone afterwards."""
    was_active = pyasc.active()
    pyasc.start("hardware", sync="off")  # "off" is also the default it leaves behind
    import asc as module

    yield module
    if not was_active:
        pyasc.deactivate()
    pyasc.set_policy("hardware")
