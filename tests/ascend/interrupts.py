"""Interrupting an instruction anywhere: it must have changed everything or nothing.

docs/architecture.md: an instruction computes every value it writes (and makes every check
that can raise) before it changes memory or a register; then it commits.  This module
checks that from the outside.  A profile hook (``sys.setprofile``) sees every Python call
and return and every call of a C function (each numpy operation); :func:`sweep` runs a call
once to count those events, then again and again from the same state, raising an exception
at event 1, 2, 3 ... of the run.  After each interrupted run the memories and registers must
be exactly as before the call, or exactly as the uninterrupted call leaves them (the
exception came after the last write); and a rerun without interruption must still give the
uninterrupted result (nothing cached was left half-updated).

The commit itself is a short run of copies of values already computed; it is not
interrupted.  What counts as the commit: any function named ``commit`` or ``_commit...``
in npusim, and the memory and register primitives every commit goes through.  Everything
else — planning, reading, computing — must leave the state alone until a commit begins.
"""

from __future__ import annotations

import gc
import importlib
import inspect
import pkgutil
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import npusim
from npusim import ascend as asc
from npusim.ascend.operands import ByteSpan, OperandAccess
from npusim.engine import caches
from npusim.engine.caches import Cache
from npusim.memory import Memory


def _commit_codes() -> frozenset:
    codes = {f.__code__ for f in (Memory.write_bytes, Memory.scatter, Memory.mark_written, Memory.mark_undefined,
                                  asc.Core.load_cmpmask, asc.Core.set_mask_words, asc.Core.set_mask_mode,
                                  asc.Core.load_pad_value, asc.Core.load_va_reg, OperandAccess.write,
                                  ByteSpan.write)}
    for info in pkgutil.walk_packages(npusim.__path__, "npusim."):
        if not info.name.startswith("npusim.ascend"):
            continue
        module = importlib.import_module(info.name)
        for _name, obj in vars(module).items():
            members = [obj] if inspect.isfunction(obj) else (
                [m for m in vars(obj).values() if inspect.isfunction(m)] if inspect.isclass(obj) else [])
            for function in members:
                if function.__module__ == module.__name__ and (
                        function.__name__ == "commit" or function.__name__.startswith("_commit")):
                    codes.add(function.__code__)
    return frozenset(codes)


COMMIT_CODES = _commit_codes()

# The engine's cache stores hold their lock in a ``with`` block.  The hook sees the call of the lock's
# ``__exit__`` (a C call) before it runs, and raising there would leave the lock held, which no real
# interrupt can do (CPython handles signals between bytecodes, after a C call returns).  Their events
# are neither counted nor interrupted; what they store is an exact shortcut, never machine state.
UNINTERRUPTED_CODES = frozenset({Cache.put.__code__, Cache.clear.__code__})


class Injected(Exception):
    """Raised by the hook when the exception to inject is an ``Exception`` subclass of our own."""


class _Hook:
    """Counts events outside commit frames; raises ``error`` at event number ``at`` (0: never)."""

    def __init__(self, at: int, error: type[BaseException]) -> None:
        self.at, self.error = at, error
        self.count = 0
        self.depth = 0  # commit frames on the stack
        self.fired = False
        self.committed = False  # a commit had begun when the exception was raised
        self.raised = False  # the injected exception came out of the call

    def __call__(self, frame, event: str, arg) -> None:
        if event == "call" and frame.f_code in COMMIT_CODES:
            self.depth += 1
            self.committed = self.committed or not self.fired
            return
        if event == "return" and frame.f_code in COMMIT_CODES:
            self.depth -= 1
            return
        if self.depth or self.fired or frame.f_code is _RUNNER or frame.f_code in UNINTERRUPTED_CODES:
            return  # in a commit, done, or run_hooked itself (its call of sys.setprofile(None))
        self.count += 1
        if self.count == self.at:
            self.fired = True
            raise self.error(f"injected at event {self.at}")


def run_hooked(call: Callable[[], None], at: int, error: type[BaseException]) -> _Hook:
    """Run ``call`` with the hook, which raises at event ``at``; the injected exception is caught.

    ``hook.raised`` tells whether it came out of the call.  It may not: raised where Python
    itself cannot pass it on (a generator being closed), it goes to ``sys.unraisablehook``,
    which is silenced meanwhile, and the call carries on.
    """
    hook = _Hook(at, error)
    unraisable = sys.unraisablehook
    sys.unraisablehook = lambda info: None
    sys.setprofile(hook)
    try:
        call()
    except error as err:
        if not (hook.fired and str(err) == f"injected at event {at}"):
            raise
        hook.raised = True
    finally:
        sys.setprofile(None)
        sys.unraisablehook = unraisable
    return hook


_RUNNER = run_hooked.__code__


@dataclass
class Machine:
    """The state a call may change: one core's UB and registers, and GM arrays."""

    core: asc.Core
    gm: tuple[np.ndarray, ...] = ()

    def state(self) -> tuple:
        return (self.core.ub.snapshot(), self.core.register_state(), tuple(a.tobytes() for a in self.gm))

    def restore(self, state: tuple, *, fresh_plans: bool) -> None:
        (data, written), registers, gm = state
        ub = self.core.ub
        ub.data[:] = np.frombuffer(data, np.uint8)
        ub.written[:] = np.frombuffer(written, np.uint8)
        ub.shadow_epoch += 1  # the shadow was rewritten behind the plans' backs (memory.py contract)
        self.core.restore_register_state(registers)
        for array, raw in zip(self.gm, gm, strict=True):
            array.reshape(-1).view(np.uint8)[:] = np.frombuffer(raw, np.uint8)
        if fresh_plans:  # every cache (shared plans, this core's bindings, memos): the call plans anew
            caches.clear_all()


def points(events: int, tail: int, spread: int) -> list[int]:
    """Every one of the last ``tail`` events, and ``spread`` evenly spaced ones before them."""
    head = max(events - tail, 0)
    picked = set(range(head + 1, events + 1))
    if head:
        picked.update(np.linspace(1, head, min(spread, head), dtype=int).tolist())
    return sorted(picked)


def sweep(machine: Machine, call: Callable[[], None], *, fresh_plans: bool,
          error: type[BaseException] = KeyboardInterrupt) -> int:
    """Interrupt ``call`` at many points (module docstring); returns how many interrupted runs were checked.

    With ``fresh_plans`` every run plans the call anew (the plan caches are emptied); otherwise it
    runs the plan (and binding, and raw-argument invocation) an earlier call kept.  A run of a kept
    plan is interrupted at every one of its events; a planning run at its last 120 (the execution and
    the commit) and at 20 spread over the planning before them, which only reads.
    """
    tail, spread = (120, 20) if fresh_plans else (10**6, 0)
    gc.collect()  # a collection during a run calls weakref callbacks (the caches' registry): not the call's events
    gc.disable()
    try:
        return _sweep(machine, call, tail, spread, fresh_plans, error)
    finally:
        gc.enable()


def _sweep(machine: Machine, call: Callable[[], None], tail: int, spread: int, fresh_plans: bool,
           error: type[BaseException]) -> int:
    with machine.core:
        machine.restore(before := machine.state(), fresh_plans=True)
        for _warm in range(2):  # fill module-level caches (lookup tables, memos) so that every run repeats exactly
            call()
            machine.restore(before, fresh_plans=fresh_plans)
        events = run_hooked(call, 0, error).count
        after = machine.state()
        assert after != before, "the call changes nothing: nothing to interrupt"
        checked = 0
        for at in points(events, tail, spread):
            machine.restore(before, fresh_plans=fresh_plans)
            hook = run_hooked(call, at, error)
            assert hook.fired, f"event {at} of {events} was never reached"
            if hook.committed or not hook.raised:  # interrupted after the commit began, or not at all
                assert machine.state() == after, f"interrupted at event {at} of {events}, after its commit began"
            else:
                assert machine.state() == before, f"interrupted at event {at} of {events}: state changed before " \
                    "the commit"
            machine.restore(before, fresh_plans=fresh_plans)
            call()
            assert machine.state() == after, f"after an interruption at event {at}, a rerun differs"
            checked += 1
        machine.restore(before, fresh_plans=True)
    return checked
