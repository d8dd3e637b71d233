"""One dispatch for every instruction call: written once, here.

A call ``instruction(*args, **kwargs)`` goes through these steps:

1. **find the core** of the enclosing ``with Core(...)`` block (the vendor's context);
2. **find the plan**.  A positional call is first looked up by its raw arguments in the
   core's ``invocations`` cache (key: the instruction, the register configuration every
   form plans with, and each argument's key part).  Otherwise the call is bound to one of
   the documented forms (:func:`~npusim.overloads.bind_values`) and its plan looked up in
   :data:`PLANS`, shared by every core of the product, under its *geometry key*: the
   form, the register configuration the plan depends on, and each value's key part —
   an operand (a tensor) by its geometry, never its address; a value read per call (a
   scalar operand) not at all.  A miss compiles the plan (``Instruction.compile``: every
   parameter rule checked, nothing read or written) and keeps it;
3. **per-call checks**: every operand still usable (allocated, on this core);
4. **bind** the plan to the operands' base addresses (``Plan.bind``: the rules that depend
   on addresses, the per-call checks of step 3 in the plan step's order, and the views
   over this core's memory); the core keeps its latest bindings by ``(plan, bases)``, and a
   call that finds its binding there makes only the checks of step 3;
5. **run** the binding: read, compute, then commit;
6. **record** it, when the core keeps a trace (one :class:`~.trace.AccessRecord`).

Key parts: an ``int`` is itself; an operand (a type the vendor registered in
``Vendor.operand_kinds``, or a list of them) is its geometry, plus its base for an
absolute instruction; an object with a ``fields_key()`` method (the repeat-parameter
classes) its fields; an array its dtype, shape and bytes; anything else a tuple that
begins with its type, so ``1``, ``1.0``, ``True`` and ``np.int64(1)`` never share a plan.
Equal raw keys therefore mean the same form with the same values, hence the same plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..overloads import REQUIRED, Form, bind_values
from .caches import Cache
from .registry import Instruction, OperandKind, Vendor, install_dispatcher, vendor
from .trace import AccessRecord, caller_source, json_params

__all__ = ["MAX_BINDINGS", "MAX_INVOCATIONS", "PER_CALL", "PLANS", "Invocation", "dispatch", "key_part",
           "new_core_caches"]

PLANS = Cache("plans", 4096)  # (chip name, geometry key) -> Plan
MAX_INVOCATIONS = 512  # per core: raw-argument keys -> Invocation
MAX_BINDINGS = 512  # per core: (plan, bases) -> Binding
PER_CALL = "<per-call value>"  # stands in a plan key for a value read per call


def new_core_caches() -> tuple[Cache, Cache]:
    """A fresh core's two caches: its invocations (raw keys) and its bindings."""
    return Cache("invocations", MAX_INVOCATIONS), Cache("bindings", MAX_BINDINGS)


@dataclass(frozen=True, slots=True)
class Invocation:
    """A plan reached from a call, and where its operands sit among the call's values.

    Attributes:
        plan: the checked plan.
        form: the call form it was bound to (its parameter names name the values).
        defaults: the values a positional call of this shape leaves to their defaults.
        positions: the index in the values of each of ``plan.operands``.
        kinds: how each of those binds (``None``: the value is no operand here).
    """

    plan: Any
    form: Form
    defaults: tuple
    positions: tuple[int, ...]
    kinds: tuple[OperandKind | None, ...]


def dispatch(entry: Instruction, args: tuple, kwargs: dict):
    """Run one call of ``entry`` (module docstring); return what its binding's ``run`` returns
    (``None`` for every instruction but the few that read a register, such as ``get_saturation_flag``)."""
    owner = _OWNERS.get(entry.vendor) or _OWNERS.setdefault(entry.vendor, vendor(entry.vendor))
    core = owner.current_core(entry.name)
    raw_key = None
    if not kwargs and entry.fast_context is not None:
        raw_key = _raw_key(entry, owner, core, args)
        invocation = core.invocations.get(raw_key)
        if invocation is not None:
            return _run(entry, core, invocation, args + invocation.defaults)
    form, values = bind_values(entry.name, entry.forms, args, kwargs)
    invocation = _invocation(entry, owner, core, form, values, None if kwargs else len(args))
    if raw_key is not None and (entry.fast_ok is None or entry.fast_ok(form.name, values)):
        core.invocations.put(raw_key, invocation)
    return _run(entry, core, invocation, values)


_OWNERS: dict[str, Vendor] = {}  # vendor name -> Vendor, looked up once


def _raw_key(entry: Instruction, owner: Vendor, core, args: tuple) -> tuple:
    """The raw-argument key of a positional call (the common argument types inline)."""
    kinds = owner.operand_kinds
    relative = entry.relative
    parts = [entry.name, entry.fast_context(core)]
    append = parts.append
    for value in args:
        kind = type(value)
        if kind is int:
            append(value)
            continue
        operand = kinds.get(kind)
        if operand is not None and relative:
            append((kind, operand.geometry(value)))
        else:
            append(key_part(owner, value, relative))
    return tuple(parts)


def _invocation(entry: Instruction, owner: Vendor, core, form: Form, values: tuple,
                positional: int | None) -> Invocation:
    context = entry.plan_context(core, form.name, values) if entry.plan_context is not None else ()
    parts = [_value_part(entry, owner, name, value) for name, value in zip(form.names, values, strict=True)]
    key = (core.chip.name, entry.name, form.name, context, *parts)
    plan = PLANS.get(key)
    if plan is None:
        plan = entry.compile(core, form.name, dict(zip(form.names, values, strict=True)))
        if type(plan).__hash__ is not object.__hash__:
            raise TypeError(f"{entry.name}: a plan must hash by identity (dataclass eq=False), "
                            f"{type(plan).__name__} does not")
        PLANS.put(key, plan)
    names = form.names
    positions = tuple(names.index(name) for name in plan.operands)
    kinds = tuple(_kind_of(owner, values[i], name in entry.address_params)
                  for name, i in zip(plan.operands, positions, strict=True))
    defaults = () if positional is None else tuple(p.default for p in form.params[positional:])
    if any(d is REQUIRED for d in defaults):  # cannot happen for a bound call; keeps the invariant visible
        raise AssertionError(f"{entry.name}: a bound call left a required parameter out")
    return Invocation(plan, form, defaults, positions, kinds)


def _run(entry: Instruction, core, invocation: Invocation, values: tuple):
    plan = invocation.plan
    operands = [values[i] for i in invocation.positions]
    kinds = invocation.kinds
    binding_key = (plan, *[None if kind is None else kind.base(value)
                           for kind, value in zip(kinds, operands, strict=True)])
    binding = core.bindings.get(binding_key)
    if binding is None:
        binding = plan.bind(core, operands)  # checks every operand itself, in the plan step's order
        core.bindings.put(binding_key, binding)
    else:
        name = entry.name
        for kind, value, operand in zip(kinds, operands, plan.operands, strict=True):
            if kind is not None:
                kind.check(value, name, operand, core)
    trace, observer = core.trace, getattr(core, "observer", None)
    if trace is None and observer is None:
        return binding.run(core, values)
    ranges = getattr(binding, "ranges", None)  # a binding whose ranges move with a per-call value
    reads, writes = ranges(values) if ranges is not None else (binding.reads, binding.writes)
    record = AccessRecord(
        len(trace) if trace is not None else 0, entry.name, entry.vendor, getattr(binding, "pipe", entry.pipe),
        reads, writes, binding.registers_read, binding.registers_written, caller_source(),
        json_params(invocation.form.names, values), getattr(core, "block_idx", 0),
    )
    if observer is not None and observer(record, lambda: binding.run(core, values)):
        result = None  # the observer (a fuzzed schedule) runs the call later; it returns nothing
    else:  # the observer may also reject the call (raise) before it runs
        result = binding.run(core, values)
    if trace is not None:
        trace.append(record)
    return result


# ------------------------------------------------------------------ key parts
def _value_part(entry: Instruction, owner: Vendor, name: str, value):
    """The plan-key part of one bound value: an address by its geometry, a per-call value not at all."""
    if name in entry.address_params and type(value) is int and owner.address_kind is not None:
        kind = owner.address_kind
        return ("address", kind.geometry(value)) if entry.relative else ("address", value)
    if name in entry.per_call and _kind_of(owner, value) is None:
        return PER_CALL
    return key_part(owner, value, entry.relative)


def _kind_of(owner: Vendor, value, address: bool = False) -> OperandKind | None:
    """The operand kind of ``value`` (a registered type, or a non-empty list of one; with
    ``address``, an integer address), or ``None``."""
    if address and type(value) is int:
        return owner.address_kind
    kinds = owner.operand_kinds
    kind = kinds.get(type(value))
    if kind is not None:
        return kind
    if type(value) in (list, tuple) and value and all(type(item) in kinds for item in value):
        return _list_kind(tuple(kinds[type(item)] for item in value))
    return None


def _list_kind(item_kinds: tuple[OperandKind, ...]) -> OperandKind:
    def geometry(items):
        return tuple(kind.geometry(item) for kind, item in zip(item_kinds, items, strict=True))

    def base(items):
        return tuple(kind.base(item) for kind, item in zip(item_kinds, items, strict=True))

    def check(items, instruction, name, core):
        for i, (kind, item) in enumerate(zip(item_kinds, items, strict=True)):
            kind.check(item, instruction, f"{name}[{i}]", core)

    return OperandKind(geometry, base, check)


def key_part(owner: Vendor, value, relative: bool = True):
    """The key part of one argument (module docstring); may be unhashable (then nothing is cached)."""
    kind = type(value)
    if kind is int or value is None:
        return value
    operand = owner.operand_kinds.get(kind)
    if operand is not None:
        return (kind, operand.geometry(value)) if relative else (kind, operand.geometry(value), operand.base(value))
    if kind is list or kind is tuple:
        return (kind, *[key_part(owner, item, relative) for item in value])
    if kind is np.ndarray:
        return (kind, value.dtype.str, value.shape, value.tobytes())
    fields_key = getattr(value, "fields_key", None)
    if fields_key is not None:
        return fields_key()
    return (kind, value)


install_dispatcher(dispatch)
