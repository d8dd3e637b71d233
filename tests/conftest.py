"""Checks every test gets for free: each ConstraintError raised anywhere names its five facts.

errors.py: a message names the instruction, the operand, the value, the rule and the allowed
values.  A test that only asserts an error's class would not notice one of them going missing (an
operand name dropped at a raise site), so every ConstraintError constructed while the tests run is
checked here: ``instruction``, ``operand``, ``rule`` and ``allowed`` must be non-empty text.  The
constraint tests check the exact fields of the errors they provoke on top of this.
"""

from __future__ import annotations

import pytest

from npusim.errors import ConstraintError

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
