"""The registry fuzz (``test_fuzz_registry.py``) of what only the 950 has, on a 950 core.

``tests/ascend/poisoned_core.py`` makes A2 cores (the examples' default product), where every call of these
instructions, and every dtype row and call form only the 950 has, is rejected as unsupported: here the same
mutated examples run where they exist.  Two kinds of case, both from the registry:

* every example of the instructions only the 950 has (``NAMES``; the C API data movement's in
  ``test_fuzz_registry_950_c_api_move.py``);
* every example an instruction registers for the 950 (``Instruction.examples_on["950"]``: the complex32 /
  complex64, hifloat8_t, int4b_t and fp4x2_e2m1_t rows, the scalar-first forms, asc_transto5hd), and for any
  other product on that product's cores; and the examples of the 950's AscendQuant and SoftMax forms
  (``tests/ascend/adv_examples.py``: the ``asc.adv`` APIs are not registry instructions).
"""

from __future__ import annotations

import pytest

from npusim import ascend as _ascend  # noqa: F401  (registers the instructions)
from npusim.engine.registry import by_name, instructions

from ..ascend import adv_examples, poisoned_core
from . import test_fuzz_registry as registry_fuzz

PRODUCT = "950"
#: the C API data movement's name prefixes (fuzzed in test_fuzz_registry_950_c_api_move.py)
C_API_MOVE = ("asc_copy_gm2ub", "asc_copy_ub2", "asc_set_gm2ub", "asc_set_ub2gm", "asc_set_ndim", "asc_ndim",
              "asc_set_copy_pad_val")
NAMES = [entry.name for entry in instructions("ascend")
         if list(entry.products) == [PRODUCT] and not entry.name.startswith(C_API_MOVE)]

ON_950 = poisoned_core.on_product(PRODUCT)
CASES = [pytest.param(by_name("ascend", name), example, id=f"{name}[{number}]")
         for name in NAMES for number, example in enumerate(by_name("ascend", name).examples)]
#: every product's examples (the 950's, so far), each on its own product's cores; with the 950's AscendQuant and
#: SoftMax forms (not registry instructions: tests/ascend/adv_examples.py)
PRODUCT_CASES = [pytest.param(ON_950 if product == PRODUCT else poisoned_core.on_product(product), entry, example,
                              id=f"{entry.name}@{product}[{number}]")
                 for entry in (*instructions("ascend"), *adv_examples.ENTRIES)
                 for product, examples in entry.examples_on.items() for number, example in enumerate(examples)]


def test_the_950s_own_instructions_are_found():
    assert {"neg", "subs", "truncate", "interleave", "sort_with_config", "nd_dma_dci"} <= set(NAMES)


@pytest.mark.parametrize(("entry", "example"), CASES)
def test_a_mutated_example_runs_or_is_rejected_cleanly_on_the_950(entry, example):
    registry_fuzz.test_a_mutated_example_runs_or_is_rejected_cleanly(helper=ON_950, entry=entry, example=example)


@pytest.mark.parametrize(("helper", "entry", "example"), PRODUCT_CASES)
def test_a_mutated_product_example_runs_or_is_rejected_cleanly(helper, entry, example):
    registry_fuzz.test_a_mutated_example_runs_or_is_rejected_cleanly(helper=helper, entry=entry, example=example)
