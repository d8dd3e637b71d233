"""The fuzzing contract, shared by every entry-point family (issue 6).

A fuzzed call may succeed, or raise a :class:`~npusim.errors.ConstraintError`
subclass, or raise ``TypeError`` for an argument of the wrong Python type.
Nothing else may escape (no IndexError, OverflowError, RecursionError, numpy
warning), and after a rejected call every memory and register is
byte-identical to before.

``NPUSIM_FUZZ_EXAMPLES`` sets the examples per family (CI default 2000;
``python3 dev.py fuzz`` runs 20000).  Counts are printed at the end of the run.
"""

from __future__ import annotations

import math
import os
import warnings
from collections import Counter
from collections.abc import Callable

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from npusim.errors import ConstraintError, UninitializedReadWarning

EXAMPLES = int(os.environ.get("NPUSIM_FUZZ_EXAMPLES", "2000"))
COUNTS: Counter = Counter()
OUTCOMES: Counter = Counter()

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
    suppress_health_check=list(HealthCheck),
)

HOSTILE_INTS = [-1, -32, -(2**31), 2**31, 2**32, 2**63, 2**64, 2**64 + 1, 10**30, 255, 256, 65535, 65536]
HOSTILE_OTHER = [None, "3", b"\x00", 1.5, -0.0, math.nan, math.inf, True, False, np.int64(3), np.uint8(7),
                 np.float32(2.0), np.array([1, 2]), [1], (), {"a": 1}, object(), np.bool_(True), 3 + 4j]


def hostile(valid: st.SearchStrategy, weight_valid: int = 8) -> st.SearchStrategy:
    """Mostly ``valid`` values, sometimes hostile integers or values of the wrong type."""
    bad = st.one_of(st.sampled_from(HOSTILE_INTS), st.sampled_from(HOSTILE_OTHER))
    # sampled_from draws near-uniformly (integers() favours boundary values such as 0)
    return st.sampled_from(range(weight_valid + 1)).flatmap(lambda pick: bad if pick == weight_valid else valid)


def run_contract(family: str, snapshot: Callable[[], object], call: Callable[[], object]) -> None:
    """Run ``call`` under the fuzzing contract; ``snapshot`` captures every piece of state."""
    COUNTS[family] += 1
    before = snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UninitializedReadWarning)
        try:
            call()
        except ConstraintError:
            OUTCOMES[(family, "ConstraintError")] += 1
            assert snapshot() == before, f"{family}: state changed by a rejected call"
            return
        except TypeError as err:
            OUTCOMES[(family, "TypeError")] += 1
            assert str(err), f"{family}: TypeError without a message"
            assert snapshot() == before, f"{family}: state changed by a rejected call"
            return
    OUTCOMES[(family, "ok")] += 1
