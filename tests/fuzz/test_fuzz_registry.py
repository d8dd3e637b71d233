"""Fuzzing every registered instruction, generated from the registry: its examples, mutated.

The hand-written families (``test_fuzz_ascend.py``, ``test_fuzz_sophgo.py``) know each
instruction's rules and aim at them; this family knows nothing of any instruction, so an
instruction added to the registry is fuzzed the day it is registered.  Each example takes one
of the instruction's ``examples`` (setup lines, then the call), runs the setup, and changes
one to three of the call's arguments before the call:

* an integer: a hostile integer (outside every documented range) or a nearby one;
* a number: an awkward float (NaN, ±inf, -0.0, 1e308) or a value of the wrong type;
* a tensor: a view further in, a tensor of another element type at the same place, one
  freed before the call, one of another core, one at the end of memory;
* a list: shortened, lengthened, or one item changed the same way;
* a parameter object: one field changed (the constructor may reject it);
* anything: a value of the wrong Python type;

and now and then an argument too many (always, for a call that takes none).

The call then runs under the fuzzing contract (``harness.run_contract``): it succeeds, or is
rejected with a :class:`~npusim.errors.ConstraintError` naming instruction and operand, or a
TypeError from an npusim check, and a rejected call leaves memory and registers unchanged.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import math
import os
from types import ModuleType

import pytest
from hypothesis import given, settings

from npusim.engine.registry import instructions

from ..ascend import poisoned_core as ascend
from ..sophgo import poisoned_core as sophgo
from .harness import FUZZ_SETTINGS, run_contract
from .strategies import HOSTILE, HOSTILE_INTS, TAPES, Tape

VENDORS: tuple[ModuleType, ...] = (ascend, sophgo)
#: examples per (instruction, example); the hand-written families run many more per family
EXAMPLES = int(os.environ.get("NPUSIM_FUZZ_REGISTRY_EXAMPLES", "40"))
AWKWARD_FLOATS = (float("nan"), float("inf"), -float("inf"), -0.0, 1e308, 5e-324, 65504.0, 65520.0)


def _cases():
    for helper in VENDORS:
        for entry in instructions(helper.VENDOR):
            for number, example in enumerate(entry.examples):
                yield pytest.param(helper, entry, example, id=f"{helper.VENDOR}.{entry.name}[{number}]")


def _split(example: str) -> tuple[ast.Module, ast.Call]:
    statements = ast.parse(example).body
    return ast.Module(statements[:-1], []), statements[-1].value


class Mutator:
    """Changes one argument value, choosing from ``tape``, for calls on ``core`` (see module docstring)."""

    def __init__(self, tape: Tape, helper: ModuleType, core) -> None:
        self.tape, self.helper, self.core = tape, helper, core

    def __call__(self, label: str, value):
        tape = self.tape
        if tape.chance(f"{label}: wrong type", 6):
            return tape.pick(f"{label} =", HOSTILE)
        if isinstance(value, bool):
            return tape.pick(f"{label} =", (not value, 0, 1, 2, None))
        if isinstance(value, enum.Enum):
            return tape.pick(f"{label} =", (*type(value), value.value, value.name))
        if isinstance(value, int):
            near = tuple(value + d for d in (-1, 1, 8, -8, 32)) + (0, value * 2, value * 64)
            return tape.pick(f"{label} =", near + HOSTILE_INTS)
        if isinstance(value, float):
            return tape.pick(f"{label} =", AWKWARD_FLOATS + (int(value) if math.isfinite(value) else 0, -value))
        if isinstance(value, (list, tuple)):
            return self._sequence(label, value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return self._fields(label, value)
        tensor = self.helper.mutated_operand(tape, label, value, self.core)
        if tensor is not None:
            return tensor
        return tape.pick(f"{label} =", HOSTILE)

    def _sequence(self, label: str, items):
        kind = type(items)
        how = self.tape.pick(f"{label}: change", ("item", "shorter", "longer", "empty"))
        if how == "shorter" or (how == "item" and not items):
            return kind(items[:-1])
        if how == "longer":
            return kind([*items, items[-1] if items else 0])
        if how == "empty":
            return kind()
        index = self.tape.below(len(items))
        changed = list(items)
        changed[index] = self(f"{label}[{index}]", items[index])
        return kind(changed)

    def _fields(self, label: str, params):
        fields = [f.name for f in dataclasses.fields(params) if f.init]
        if not fields:
            return params
        name = self.tape.pick(f"{label}: field", fields)
        changed = self(f"{label}.{name}", getattr(params, name))
        return lambda: dataclasses.replace(params, **{name: changed})  # built inside the call: may be rejected


@pytest.mark.parametrize(("helper", "entry", "example"), list(_cases()))
@settings(FUZZ_SETTINGS, max_examples=EXAMPLES)
@given(tape=TAPES)
def test_a_mutated_example_runs_or_is_rejected_cleanly(helper, entry, example, tape: Tape):
    setup, call = _split(example)
    core = helper.new_core()
    namespace = {**helper.NAMESPACE, "core": core}
    with core:
        exec(compile(setup, f"<{entry.name} example>", "exec"), namespace)

        def evaluate(node: ast.expr):
            return eval(compile(ast.Expression(node), f"<{entry.name} example>", "eval"), namespace)

        args = [evaluate(node) for node in call.args]
        kwargs = {keyword.arg: evaluate(keyword.value) for keyword in call.keywords}
        names = [*range(len(args)), *kwargs]
        mutate = Mutator(tape, helper, core)
        if not names or tape.chance("an extra argument", 16):
            args.append(tape.pick("extra argument", HOSTILE))
        for _ in range(1 + tape.below(3) if names else 0):
            which = tape.pick("argument", names)
            if isinstance(which, int):
                args[which] = mutate(f"arg {which}", args[which])
            else:
                kwargs[which] = mutate(which, kwargs[which])

        def run():
            built = [a() if _is_deferred(a) else a for a in args]
            built_kw = {k: v() if _is_deferred(v) else v for k, v in kwargs.items()}
            return entry.function(*built, **built_kw)

        run_contract(f"{entry.vendor}.registry.{entry.name}", lambda: helper.state(core), run, tape)


def _is_deferred(value) -> bool:
    """A parameter object whose construction the mutator deferred into the call (a lambda)."""
    return getattr(value, "__name__", None) == "<lambda>"
