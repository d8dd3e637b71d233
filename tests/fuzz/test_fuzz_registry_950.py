"""The registry fuzz (``test_fuzz_registry.py``) of the instructions only the 950 has, on a 950 core.

``tests/ascend/poisoned_core.py`` makes A2 cores (the examples' default product), where every call of
these instructions is rejected as unsupported: here the same mutated examples run where they exist.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import by_name

from ..ascend import poisoned_core
from . import test_fuzz_registry as registry_fuzz

# tests/ascend/test_elementwise_isasi.py; the shifts' examples include their 950-only tensor form
NAMES = ("neg", "prelu", "abs_sub", "exp_sub", "mull", "ands", "ors", "muls_cast", "truncate", "shift_left",
         "shift_right", "interleave", "de_interleave", "adds", "subs", "muls", "divs", "maxs", "mins",
         "sort_with_config")


def _new_950_core() -> asc.Core:
    core = asc.Core("950", trace=True)
    fill = np.random.default_rng(7).integers(0, 256, core.ub.size_bytes, dtype=np.uint8)
    core.ub.data[:] = fill
    core.ub.written[:] = 1
    return core


ON_950 = SimpleNamespace(**{name: getattr(poisoned_core, name) for name in
                            ("VENDOR", "NAMESPACE", "memories", "registers", "state", "mutated_operand")},
                         new_core=_new_950_core)
CASES = [pytest.param(by_name("ascend", name), example, id=f"{name}[{number}]")
         for name in NAMES for number, example in enumerate(by_name("ascend", name).examples)]


@pytest.mark.parametrize(("entry", "example"), CASES)
def test_a_mutated_example_runs_or_is_rejected_cleanly_on_the_950(entry, example):
    registry_fuzz.test_a_mutated_example_runs_or_is_rejected_cleanly(helper=ON_950, entry=entry, example=example)


# Cast's fp4x2_e2m1_t lines (docs/semantics.md §5.33): the registry's cast examples run on the A2, which has none
_FP4_SETUP = ("x = asc.LocalTensor(asc.bfloat16, asc.TPosition.VECIN, 0, 512)\n"
              "z = asc.LocalTensor(asc.fp4x2_e2m1_t, asc.TPosition.VECOUT, 2048, 512)\n")
FP4_EXAMPLES = (
    _FP4_SETUP + "asc.cast(z, x, asc.RoundMode.CAST_RINT, 300)",
    _FP4_SETUP + "asc.cast(z, x, asc.RoundMode.CAST_FLOOR, 128, 2, asc.UnaryRepeatParams(1, 1, 2, 8))",
    _FP4_SETUP + "asc.cast(x, z, asc.RoundMode.CAST_NONE, [0x3333, 0xC0], 3, asc.UnaryRepeatParams(1, 1, 8, 2))",
)


@pytest.mark.parametrize("example", FP4_EXAMPLES, ids=range(len(FP4_EXAMPLES)))
def test_a_mutated_fp4_cast_runs_or_is_rejected_cleanly_on_the_950(example):
    registry_fuzz.test_a_mutated_example_runs_or_is_rejected_cleanly(helper=ON_950, entry=by_name("ascend", "cast"),
                                                                     example=example)
