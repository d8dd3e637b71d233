"""The registry fuzz of the C API data movement (docs/semantics.md §5.17) on a 950 core.

``test_fuzz_registry.py`` runs the examples on A2 cores, where the 950's prototypes, loop and NDDMA setters are
rejected as unsupported: here the same mutated examples run on the 950 (``test_fuzz_registry_950.ON_950``).
"""

from __future__ import annotations

import pytest

from npusim import ascend as _ascend  # noqa: F401  (registers the instructions)
from npusim.engine.registry import by_name, instructions

from . import test_fuzz_registry as registry_fuzz
from .test_fuzz_registry_950 import C_API_MOVE, ON_950

NAMES = [entry.name for entry in instructions("ascend") if entry.name.startswith(C_API_MOVE)]
CASES = [pytest.param(by_name("ascend", name), example, id=f"{name}[{number}]")
         for name in NAMES for number, example in enumerate(by_name("ascend", name).examples)]


def test_every_function_of_the_module_is_fuzzed():
    assert len(NAMES) == 28  # asc_set_gm2ub_pad (deprecated) among them


@pytest.mark.parametrize(("entry", "example"), CASES)
def test_a_mutated_example_runs_or_is_rejected_cleanly_on_the_950(entry, example):
    registry_fuzz.test_a_mutated_example_runs_or_is_rejected_cleanly(helper=ON_950, entry=entry, example=example)
