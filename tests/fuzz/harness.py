"""The fuzzing contract, shared by every entry-point family (issue 6).

A fuzzed call may succeed, or raise a :class:`~npusim.errors.ConstraintError`
subclass, or raise ``TypeError`` for an argument of the wrong Python type.
Nothing else may escape (no IndexError, OverflowError, RecursionError, numpy
warning), and after a rejected call every memory and register is
byte-identical to before.  Two more checks make the errors honest:

* a ``TypeError`` must come from a ``raise`` statement in npusim itself, the ones
  that name the parameter (``select: src0 must be a LocalTensor, got int``), or be
  Python's report of a call that does not fit a signature (``dim4.__init__() missing
  3 required positional arguments: 'c', 'h', and 'w'``) — not Python tripping over a
  value (``'NoneType' object is not subscriptable``);
* a ``ConstraintError`` must name its instruction and operand.

``NPUSIM_FUZZ_EXAMPLES`` sets the examples per family (CI default 2000;
``python3 dev.py fuzz`` runs 20000); an example is one fuzzed call, and families that
fuzz call *sequences* run a quarter as many sequences of several calls each.  Counts and
outcomes are printed at the end of the run (``conftest.py``).  Runs are derandomised (the same
examples every time, as CI needs); ``NPUSIM_FUZZ_RANDOM=1`` draws fresh ones instead, reproducible
with pytest's ``--hypothesis-seed=N``, to explore beyond the fixed set.  Arguments come from a
byte tape (``strategies.Tape``).
"""

from __future__ import annotations

import linecache
import os
import re
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, note, settings

import npusim
from npusim.errors import ConstraintError, DeprecatedApiWarning, UninitializedReadWarning

from .strategies import Tape

EXAMPLES = int(os.environ.get("NPUSIM_FUZZ_EXAMPLES", "2000"))
COUNTS: Counter = Counter()
OUTCOMES: Counter = Counter()

FUZZ_SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=os.environ.get("NPUSIM_FUZZ_RANDOM") != "1", database=None,
    suppress_health_check=list(HealthCheck),
)

# A sequence example (runtime protocols) makes about ten fuzzed calls, each counted by the contract.
SEQUENCE_SETTINGS = settings(FUZZ_SETTINGS, max_examples=max(EXAMPLES // 4, 1))

NPUSIM_DIR = str(Path(npusim.__file__).resolve().parent)


# Python's own TypeErrors for a call that does not fit a signature; they name the parameters.
SIGNATURE_ERROR = re.compile(r"missing \d+ required (positional|keyword-only) argument|got an unexpected keyword "
                             r"argument|takes \d+ positional arguments? but \d+ (was|were) given|got multiple values "
                             r"for argument|takes no arguments")


def raised_by_npusim(err: BaseException) -> bool:
    """True if ``err`` was raised by a ``raise`` statement in npusim's own source, or is Python's
    report of a call that does not fit an npusim signature (which names the parameter too)."""
    if isinstance(err, TypeError) and SIGNATURE_ERROR.search(str(err)):
        return True
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    filename = str(Path(tb.tb_frame.f_code.co_filename).resolve())
    line = linecache.getline(tb.tb_frame.f_code.co_filename, tb.tb_lineno).strip()
    return filename.startswith(NPUSIM_DIR) and line.startswith("raise")


def run_contract(family: str, snapshot: Callable[[], object], call: Callable[[], object],
                 tape: Tape | None = None) -> object:
    """Run ``call`` under the fuzzing contract; ``snapshot`` captures every piece of state.

    Returns the outcome: ``"ok"``, or the exception the call was rejected with.  When the
    contract fails, the choices the tape made so far are printed with the failing example.
    """
    COUNTS[family] += 1
    try:
        return _checked(family, snapshot, call)
    except BaseException:
        if tape is not None:
            note(f"{family}: {tape!r}")
        raise


def _checked(family: str, snapshot: Callable[[], object], call: Callable[[], object]) -> object:
    before = snapshot()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", UninitializedReadWarning)
        warnings.simplefilter("ignore", DeprecatedApiWarning)  # a deprecated API warns on every call (by design)
        try:
            call()
        except ConstraintError as err:
            OUTCOMES[(family, "ConstraintError")] += 1
            assert err.instruction and err.operand, f"{family}: {type(err).__name__} names no instruction/operand"
            assert snapshot() == before, f"{family}: state changed by a call rejected with {err!r}"
            return err
        except TypeError as err:
            OUTCOMES[(family, "TypeError")] += 1
            assert str(err), f"{family}: TypeError without a message"
            assert raised_by_npusim(err), f"{family}: TypeError not raised by an npusim check: {err!r}"
            assert snapshot() == before, f"{family}: state changed by a call rejected with {err!r}"
            return err
    OUTCOMES[(family, "ok")] += 1
    return "ok"
