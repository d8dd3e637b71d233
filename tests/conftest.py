"""What every test checks: each ConstraintError npusim raises names a source a user can open.

The fixture below wraps every test of the suite, so the constraint tests, the fuzz families
(tens of thousands of rejected calls) and every other test that provokes an error check the
error's ``source`` against ``tests/error_sources.py``: a vendor page and section that exist,
or a numbered section of a repository file that exists (``docs/semantics.md §N.N``).
"""

from __future__ import annotations

import pytest

from .error_sources import unopenable_sources


@pytest.fixture(autouse=True)
def every_error_names_a_source_a_user_can_open():
    with unopenable_sources() as found:
        yield
    assert not found, "errors whose [source] a user cannot open (tests/error_sources.py):\n" + "\n".join(
        f"  {message}" for message in found.values())
