"""One dispatch for every instruction call: written once, here.

A call ``instruction(*args, **kwargs)`` goes through these steps:

1. **find the core** of the enclosing ``with Core(...)`` block (the vendor's context);
2. **find the plan**.  A call is first looked up by its raw arguments in the core's
   ``invocations`` cache (key: the instruction, the register configuration every form
   plans with, each positional argument's key part, then each keyword's name and key
   part, in call order), then among the :data:`TEMPLATES` other cores of the product made
   for the same raw key (a launch's blocks run on new cores).  Otherwise the call is bound to one of
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
6. **record** it, when the core keeps a trace (one :class:`~.trace.AccessRecord`), on the
   binding's ``pipe`` if it has one (a copy issues on the pipe of its direction), else
   the instruction's.

Key parts: an ``int`` is itself; an operand (a type the vendor registered in
``Vendor.operand_kinds``, or a list of them) is its geometry, plus its base for an
absolute instruction; an object with a ``fields_key()`` method (the repeat-parameter
classes) its fields; an array its dtype, shape and bytes; anything else a tuple that
begins with its type, so ``1``, ``1.0``, ``True`` and ``np.int64(1)`` never share a plan.
Equal raw keys therefore mean the same form with the same values, hence the same plan.
"""

from __future__ import annotations

import enum
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import HardwareToleranceWarning
from ..memory import user_stacklevel
from ..overloads import REQUIRED, Form, bind_values
from . import caches
from .caches import Cache
from .registry import Instruction, OperandKind, Vendor, install_dispatcher, vendor
from .trace import AccessRecord, caller_source, json_params

__all__ = ["MAX_BINDINGS", "MAX_INVOCATIONS", "PER_CALL", "PLANS", "Invocation", "check_call", "dispatch",
           "key_part", "new_core_caches"]

PLANS = Cache("plans", 4096)  # (chip name, tolerance, geometry key) -> Plan
TEMPLATES = Cache("invocation templates", 4096)  # (chip name, tolerance, raw key) -> Invocation, no core's state
TOLERATED = Cache("tolerated", 4096)  # plan key -> the HardwareToleranceWarnings its compilation gave
MAX_INVOCATIONS = 512  # per core: raw-argument keys -> Invocation
MAX_BINDINGS = 512  # per core: (plan, bases) -> Binding
PER_CALL = "<per-call value>"  # stands in a plan key for a value read per call


def new_core_caches() -> tuple[Cache, Cache]:
    """A fresh core's two caches: its invocations (raw keys) and its bindings."""
    return Cache("invocations", MAX_INVOCATIONS), Cache("bindings", MAX_BINDINGS)


@dataclass(slots=True, eq=False)
class Invocation:
    """A plan reached from a call, and where its operands sit among the call's values.

    Attributes:
        plan: the checked plan.
        form: the call form it was bound to (its parameter names name the values).
        defaults: the defaults of the parameters after the call's positional arguments (what
            a call of this shape leaves out).
        positions: the index in the values of each of ``plan.operands``.
        kinds: how each of those binds (``None``: the value is no operand here).
        later: the names of the parameters after the positional arguments.
        in_order: the call passes every one of ``later`` by keyword, in that order.
        bound: ``(index in the values, kind, operand name)`` of each value that is an operand,
            in ``plan.operands`` order: what a call found again computes its bases from and checks.
        plan_key: the plan's key in :data:`PLANS` (its tolerance warnings are kept under it).
        last_bases, last_binding: the operand bases of this core's last call of this invocation,
            and its binding (a loop over the same operands skips the binding lookup).
    """

    plan: Any
    form: Form
    defaults: tuple
    positions: tuple[int, ...]
    kinds: tuple[OperandKind | None, ...]
    later: tuple[str, ...] = ()
    in_order: bool = False
    bound: tuple[tuple[int, OperandKind, str], ...] = ()
    plan_key: tuple = ()
    last_bases: tuple | None = None
    last_binding: Any = None

    def template(self) -> Invocation:
        """A copy without this core's last binding (what :data:`TEMPLATES` keeps, and each core's copy of it)."""
        return Invocation(self.plan, self.form, self.defaults, self.positions, self.kinds, self.later,
                          self.in_order, self.bound, self.plan_key)

    def values(self, args: tuple, kwargs: dict) -> tuple:
        """The values, in form order, of a keyword call with this invocation's raw key."""
        if self.in_order:
            return args + tuple(kwargs.values())
        pairs = zip(self.later, self.defaults, strict=True)
        return args + tuple([kwargs.get(name, default) for name, default in pairs])


def dispatch(entry: Instruction, args: tuple, kwargs: dict):
    """Run one call of ``entry`` (module docstring); return what its binding's ``run`` returns
    (``None`` for every instruction but the few that read a register, such as ``get_saturation_flag``)."""
    owner = _OWNERS.get(entry.vendor) or _OWNERS.setdefault(entry.vendor, vendor(entry.vendor))
    core = owner.current_core(entry.name)
    raw_key = None
    if entry.fast_context is not None:
        raw_key = _raw_key(entry, owner, core, args, kwargs)
        invocation = core.invocations.get(raw_key)
        if invocation is None:
            invocation = _from_template(core, raw_key)
        if invocation is not None:
            values = invocation.values(args, kwargs) if kwargs else args + invocation.defaults
            return _run(entry, core, invocation, values)
    form, values = bind_values(entry.name, entry.forms, args, kwargs)
    invocation = _invocation(entry, owner, core, form, values, len(args), kwargs)
    if raw_key is not None and (entry.fast_ok is None or entry.fast_ok(form.name, values)):
        core.invocations.put(raw_key, invocation)
        TEMPLATES.put((core.chip.name, getattr(core, "tolerance", "strict"), raw_key), invocation.template())
    return _run(entry, core, invocation, values)


def check_call(function, *args, **kwargs) -> None:
    """Steps 1-4 of a call of the registered instruction ``function`` — every rule it checks, at these
    operands' addresses — without running it: nothing is read, written or recorded.  A composition (a
    high-level API) checks each of its steps so before the first one runs, so that a rejected call changes
    nothing.  The plan and the binding are kept as a call's would be (the call then binds nothing anew)."""
    entry = function.instruction
    owner = _OWNERS.get(entry.vendor) or _OWNERS.setdefault(entry.vendor, vendor(entry.vendor))
    core = owner.current_core(entry.name)
    form, values = bind_values(entry.name, entry.forms, args, kwargs)
    _binding(entry, core, _invocation(entry, owner, core, form, values, len(args), kwargs), values)


def _from_template(core, raw_key: tuple) -> Invocation | None:
    """This core's copy of an invocation another core of the product made for the same raw key
    (each launch runs its blocks on new cores: the second launch binds, but plans nothing)."""
    key = (core.chip.name, getattr(core, "tolerance", "strict"), raw_key)
    template = TEMPLATES.get(key)
    if template is None:
        return None
    for warning in TOLERATED.get(template.plan_key) or ():  # told on every core, as a plan found again is
        warnings.warn(warning, stacklevel=user_stacklevel())
    invocation = template.template()
    core.invocations.put(raw_key, invocation)
    return invocation


_OWNERS: dict[str, Vendor] = {}  # vendor name -> Vendor, looked up once


def _raw_key(entry: Instruction, owner: Vendor, core, args: tuple, kwargs: dict) -> tuple:
    """The raw-argument key of a call (the common argument types inline).  A keyword's name is
    the only bare string in it (a string value's part is ``(str, value)``)."""
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
        elif kind in _PLAIN_TYPES or isinstance(value, enum.Enum):
            append((kind, value))
        elif (kind is list or kind is tuple) and value:
            item_types = set(map(type, value))
            if item_types == _ONLY_INT:
                append((kind, *value))  # an address list (key_part's own first case)
            elif len(item_types) == 1 and relative and (operand := kinds.get(type(value[0]))) is not None:
                geometry = operand.geometry  # a list of one operand type (its part cannot be an address list's)
                append((kind, type(value[0]), *[geometry(item) for item in value]))
            else:
                append(key_part(owner, value, relative))
        else:
            fields_key = getattr(value, "fields_key", None)
            append(fields_key() if fields_key is not None else key_part(owner, value, relative))
    for name, value in kwargs.items():
        append(name)
        append(key_part(owner, value, relative))
    return tuple(parts)


#: argument types whose key part is ``(type, value)`` (the type keeps ``True`` apart from ``1``, 1.0 from 1)
_PLAIN_TYPES = frozenset({float, bool, str, type(None)})


def _compile(entry: Instruction, core, form: Form, values: tuple, key: tuple):
    """``entry.compile``; under the hardware policy, the tolerance warnings it gave are kept with ``key``."""
    params = dict(zip(form.names, values, strict=True))
    if getattr(core, "tolerance", "strict") != "hardware":
        return entry.compile(core, form.name, params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", HardwareToleranceWarning)
        plan = entry.compile(core, form.name, params)
    tolerated = tuple(w.message for w in caught if isinstance(w.message, HardwareToleranceWarning))
    if tolerated:
        TOLERATED.put(key, tolerated)
    for w in caught:  # given again, now to the caller's filters
        warnings.warn(w.message, stacklevel=user_stacklevel())
    return plan


def _invocation(entry: Instruction, owner: Vendor, core, form: Form, values: tuple, positional: int,
                kwargs: dict) -> Invocation:
    context = entry.plan_context(core, form.name, values) if entry.plan_context is not None else ()
    parts = [_value_part(entry, owner, name, value) for name, value in zip(form.names, values, strict=True)]
    # a plan's rules depend on the core's tolerance policy (docs/semantics.md §10.7): strict and hardware never share
    key = (core.chip.name, getattr(core, "tolerance", "strict"), entry.name, form.name, context, *parts)
    plan = PLANS.get(key)
    if plan is None:
        plan = _compile(entry, core, form, values, key)
        if type(plan).__hash__ is not object.__hash__:
            raise TypeError(f"{entry.name}: a plan must hash by identity (dataclass eq=False), "
                            f"{type(plan).__name__} does not")
        PLANS.put(key, plan)
    else:
        for warning in TOLERATED.get(key) or ():  # each core that uses the plan is told, not only the first
            warnings.warn(warning, stacklevel=user_stacklevel())
    names = form.names
    positions = tuple(names.index(name) for name in plan.operands)
    kinds = tuple(_kind_of(owner, values[i], name in entry.address_params)
                  for name, i in zip(plan.operands, positions, strict=True))
    later = form.params[positional:]
    if any(p.default is REQUIRED and p.name not in kwargs for p in later):  # cannot happen for a bound call
        raise AssertionError(f"{entry.name}: a bound call left a required parameter out")
    later_names = tuple(p.name for p in later)
    bound = tuple((i, kind, name) for i, kind, name in zip(positions, kinds, plan.operands, strict=True)
                  if kind is not None)
    return Invocation(plan, form, tuple(p.default for p in later), positions, kinds, later_names,
                      tuple(kwargs) == later_names, bound, key)


def _run(entry: Instruction, core, invocation: Invocation, values: tuple):
    binding = _binding(entry, core, invocation, values)
    trace, observer = core.trace, getattr(core, "observer", None)
    if trace is None and observer is None:
        return binding.run(core, values)
    return _run_observed(entry, core, invocation, binding, values, trace, observer)


def _binding(entry: Instruction, core, invocation: Invocation, values: tuple):
    """The call's binding: this core's for the plan at these bases, or a new one (checked and kept)."""
    plan = invocation.plan
    bound = invocation.bound
    # plain loops: this runs on every call, and a comprehension costs a frame of its own
    if len(bound) == len(invocation.positions):  # every operand binds (the usual case): no placeholders
        bases = ()
        for i, kind, _ in bound:
            bases += (kind.base(values[i]),)
    else:
        bases = tuple([None if kind is None else kind.base(values[i])
                       for i, kind in zip(invocation.positions, invocation.kinds, strict=True)])
    if bases == invocation.last_bases and caches.enabled():  # a loop over the same operands
        binding = invocation.last_binding
    else:
        binding = core.bindings.get((plan, *bases))
    if binding is None:
        binding = plan.bind(core, [values[i] for i in invocation.positions])  # checks every operand itself
        core.bindings.put((plan, *bases), binding)
    else:
        name = entry.name
        for i, kind, operand in bound:
            kind.check(values[i], name, operand, core)
    invocation.last_bases, invocation.last_binding = bases, binding
    return binding


def _run_observed(entry: Instruction, core, invocation: Invocation, binding, values: tuple, trace, observer):
    """Run a binding on a core that keeps a trace or has an observer (the sync checker): record the call."""
    if observer is not None and not getattr(binding, "ranges_after_run", False):
        record = _record(entry, core, invocation, binding, values, trace)
        # the observer may reject the call (raise) before it runs, or (a fuzzed schedule) run it later
        held = observer(record, lambda: binding.run(core, values))
        result = None if held else binding.run(core, values)
    else:  # a binding that knows its ranges only once it ran (tables read per call)
        if observer is not None:
            observer.flush()  # what a fuzzed schedule holds runs first
        result = binding.run(core, values)
        record = _record(entry, core, invocation, binding, values, trace)
        if observer is not None:
            observer(record, None)
    if trace is not None:
        trace.append(record)
    return result


def _record(entry: Instruction, core, invocation: Invocation, binding, values: tuple, trace) -> AccessRecord:
    """The call's access record.  Without a trace it only goes to the observer, which reads the
    parameters of the synchronisation calls alone: the others' are left empty (they cost a third)."""
    ranges = getattr(binding, "ranges", None)  # a binding whose ranges move with a per-call value
    reads, writes = ranges(values) if ranges is not None else (binding.reads, binding.writes)
    params = json_params(invocation.form.names, values) if trace is not None or entry.family == "sync" else {}
    if params and (stood_for := getattr(binding, "record_params", None)):  # a register argument's values
        params.update(stood_for)
    return AccessRecord(
        len(trace) if trace is not None else 0, entry.name, entry.vendor, getattr(binding, "pipe", entry.pipe),
        reads, writes, binding.registers_read, binding.registers_written, caller_source(), params,
        getattr(core, "block_idx", 0),
    )


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
    """The kind of a list of operands (TransDataTo5HD's 16 + 16 tensors): every item bound and checked.
    Its functions run on every call, so they build lists, not generators, and each operand name's
    item names (``src_list[3]``) once."""
    item_names: dict[str, tuple[str, ...]] = {}

    def geometry(items):
        return tuple([kind.geometry(item) for kind, item in zip(item_kinds, items, strict=True)])

    def base(items):
        return tuple([kind.base(item) for kind, item in zip(item_kinds, items, strict=True)])

    def check(items, instruction, name, core):
        names = item_names.get(name)
        if names is None:
            names = item_names[name] = tuple(f"{name}[{i}]" for i in range(len(item_kinds)))
        for kind, item, item_name in zip(item_kinds, items, names, strict=True):
            kind.check(item, instruction, item_name, core)

    return OperandKind(geometry, base, check)


_ONLY_INT = {int}


def key_part(owner: Vendor, value, relative: bool = True):
    """The key part of one argument (module docstring); may be unhashable (then nothing is cached)."""
    kind = type(value)
    if kind is int or value is None:
        return value
    operand = owner.operand_kinds.get(kind)
    if operand is not None:
        return (kind, operand.geometry(value)) if relative else (kind, operand.geometry(value), operand.base(value))
    if kind is list or kind is tuple:
        if set(map(type, value)) == _ONLY_INT:  # an address list: its items are their own parts
            return (kind, *value)
        return (kind, *[key_part(owner, item, relative) for item in value])
    if kind is np.ndarray:
        return (kind, value.dtype.str, value.shape, value.tobytes())
    fields_key = getattr(value, "fields_key", None)
    if fields_key is not None:
        return fields_key()
    return (kind, value)


install_dispatcher(dispatch)
