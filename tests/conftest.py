"""Checks every test gets for free, on every ConstraintError npusim raises.

1. It names its five facts.  errors.py: a message names the instruction, the operand, the value,
   the rule and the allowed values.  A test that only asserts an error's class would not notice
   one of them going missing (an operand name dropped at a raise site), so every ConstraintError
   constructed while the tests run is checked: ``instruction``, ``operand``, ``rule`` and
   ``allowed`` must be non-empty text.  The constraint tests check the exact fields of the errors
   they provoke on top of this.
2. It names a source a user can open.  The fixture below wraps every test of the suite, so the
   constraint tests, the fuzz families (tens of thousands of rejected calls) and every other test
   that provokes an error check the error's ``source`` against ``tests/error_sources.py``: a vendor
   page and section that exist, or a numbered section of a repository file that exists
   (``docs/semantics.md §N.N``).

3. ``NPUSIM_EXAMPLES_DIVISOR=N`` (a test run that repeats others, such as the caches-off run of
   ``tests/engine/test_caches_off.py``) divides every property test's ``max_examples`` by N (at least
   one example each): every test still runs, on fewer draws.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from npusim.errors import ConstraintError

from .error_sources import unopenable_sources

# No property test is about time: hypothesis's default 200 ms deadline per example turns a busy machine
# into failures (a CI run at load average 8 failed an addressing property at 741 ms).  Every test's
# own @settings inherits this.
settings.register_profile("npusim", deadline=None)
settings.load_profile("npusim")


def pytest_collection_modifyitems(items) -> None:
    divisor = int(os.environ.get("NPUSIM_EXAMPLES_DIVISOR", "1"))
    if divisor <= 1:
        return
    done = set()  # the parametrised items of one test share its function: divide once
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        # where hypothesis keeps a @given test's settings (read when the test runs; hypothesis 6.80 and newer)
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        if own is not None and id(test) not in done:
            done.add(id(test))
            # fewer examples put all of them in hypothesis's small-example phase (6.80: the first ten are sized
            # from a zero-filled draw), where a test of very variable size overruns: a data-generation check the
            # main run makes at full size
            suppressed = (*own.suppress_health_check, HealthCheck.data_too_large)
            test._hypothesis_internal_use_settings = settings(own, max_examples=max(1, own.max_examples // divisor),
                                                              suppress_health_check=suppressed)


@pytest.fixture(autouse=True)
def every_error_names_a_source_a_user_can_open():
    with unopenable_sources() as found:
        yield
    assert not found, "errors whose [source] a user cannot open (tests/error_sources.py):\n" + "\n".join(
        f"  {message}" for message in found.values())


_original_init = ConstraintError.__init__


def _checked_init(self, instruction, operand, value, rule, allowed, source=None) -> None:
    _original_init(self, instruction, operand, value, rule, allowed, source)
    for field in ("instruction", "operand", "rule", "allowed"):
        text = getattr(self, field)
        assert isinstance(text, str) and text.strip(), f"{type(self).__name__} with an empty {field}: {self}"


@pytest.fixture(autouse=True, scope="session")
def _constraint_errors_name_their_facts():
    ConstraintError.__init__ = _checked_init
    yield
    ConstraintError.__init__ = _original_init
