"""An Ascend access record's call planned again, by the instruction's own plan step.

A record holds the call's parameters as JSON (:func:`npusim.engine.trace.json_value`):
tensors by their ``describe()`` text, enums by name, parameter objects by field.  To
split the record per repeat, :mod:`.anatomy` needs the call's geometry — lanes, strides,
which selMask byte each lane's bit sits in, which DataBlock goes where — and that is
exactly what the instruction's plan holds.  So the parameters are turned back into
values (the case vocabulary of ``npusim golden`` maps objects to classes and names to
enums: :data:`npusim.golden.ascend.PARAM_CLASSES`, :data:`~npusim.golden.ascend.ENUMS`),
and the registry's ``compile`` and the plan's ``bind`` run on a scratch core of the
record's chip.  Nothing is run and nothing of the user's core is touched.

The scratch core's registers are the reset values with every lane of the vector mask
set; a form that takes its lanes from the register therefore plans every lane, and the
anatomy keeps those the record shows (:func:`.anatomy.anatomy` says so in its notes).  A
call that reads DEQSCALE is planned after a stand-in SetDeqScale of each prototype in turn
(:data:`_DEQSCALE_STAND_INS`).  A record that leaves out parameters with defaults (written
by hand, or by an older npusim) is read with those defaults.
A call whose parameters cannot be read back (a record of an older trace, an address
list held in a UB tensor whose content the record does not hold) gets ``None``; a call whose
addresses are read from UB per call (TransDataTo5HD's address tensors) is planned, not bound.
"""

from __future__ import annotations

import contextlib
import functools
import re
from dataclasses import dataclass, fields
from typing import Any

from ..engine.trace import AccessRecord, TraceCollector, collecting

__all__ = ["Replanned", "replan"]

_TENSOR = re.compile(r"LocalTensor\((\w+), (\w+), addr=0x([0-9a-f]+), tile_size=(\d+)\)")
FULL_WORD = (1 << 64) - 1


@dataclass(frozen=True)
class Replanned:
    """A record's call as its instruction planned and bound it.

    Attributes:
        record: the record replanned.
        entry: the registry's instruction.
        form: the call form's name.
        values: the call's values by parameter name (tensors on the scratch core).
        plan, binding: what ``compile`` and ``bind`` returned (``binding`` None for a plan that finds its
            addresses in UB on every call: TransDataTo5HD's address tensors).
        mask_from_register: the call's lanes come from the vector mask register, which the
            scratch core holds all set (module docstring).
    """

    record: AccessRecord
    entry: Any
    form: str
    values: dict
    plan: Any
    binding: Any
    mask_from_register: bool


@contextlib.contextmanager
def _scratch_core(core_type, chip, **options):
    """A scratch core, active inside the ``with`` block, that no trace collector of the caller lists (a script
    under ``npusim run --trace`` that explains a record gets no extra core in its trace)."""
    with collecting(TraceCollector()), core_type(chip, **options) as core:
        yield core


@functools.cache
def _parameter_classes() -> tuple[type, ...]:
    """Every parameter class of :mod:`npusim.ascend.types` (Copy's CopyRepeatParams, Brcb's BrcbRepeatParams ...):
    a record's parameter object the golden case vocabulary names no class for is the one with its fields."""
    from ..ascend import types
    from ..ascend.types import KeyedFields

    return tuple(cls for cls in vars(types).values()
                 if isinstance(cls, type) and issubclass(cls, KeyedFields) and cls is not KeyedFields)


#: parameters that are enums besides the golden case vocabulary's: Cast's round mode, the reductions' order
_MORE_ENUMS = {"round_mode": "RoundMode", "order": "ReduceOrder"}


def _value(name: str, value, core):
    from .. import ascend as asc
    from ..dtypes import by_name
    from ..golden.ascend import ENUMS, PARAM_CLASSES

    if isinstance(value, str):
        match = _TENSOR.fullmatch(value)
        if match is not None:
            dtype, position, addr, size = match.groups()
            return asc.LocalTensor(by_name(dtype), asc.TPosition[position], int(addr, 16), int(size), core=core)
        if name in ENUMS:
            return ENUMS[name][value]
        if name in _MORE_ENUMS:  # by name, as the golden case vocabulary has no key for them
            return getattr(asc, _MORE_ENUMS[name])[value]
        if value.endswith(("j", "j)")):  # a complex scalar, recorded by its repr (complex32 / complex64 lanes)
            with contextlib.suppress(ValueError):
                return complex(value)
        return value
    if isinstance(value, dict):
        if name == "dtype" and "name" in value:
            return by_name(value["name"])
        for cls in (*PARAM_CLASSES.get(name, ()), *_parameter_classes()):
            if value.keys() == {f.name for f in fields(cls)}:
                return cls(**value)
        raise ValueError(f"{name}: no parameter class has the fields {sorted(value)}")
    if isinstance(value, list):
        return [_value(name, item, core) for item in value]
    return value


#: SetDeqScale's three prototypes (docs/semantics.md §5.21), a value of each (the word in both sign modes): a call
#: that reads DEQSCALE checks that the prototype its form needs was the last (CastDequant.md 约束说明); which value
#: it held is not in the record, and no lane's address depends on it, so the call is planned after each in turn
#: until one fits
_DEQSCALE_STAND_INS = (
    lambda asc: asc.set_deq_scale(1.0),
    lambda asc: asc.set_deq_scale(1.0, 0, False),  # (a uint8 dst)
    lambda asc: asc.set_deq_scale(1.0, 0, True),  # (an int8 dst)
    lambda asc: asc.set_deq_scale(asc.LocalTensor(asc.uint64, asc.TPosition.VECCALC, 0, 16),
                                  asc.VdeqInfo([1.0] * 16, [0] * 16, [False] * 16)),
)


def _form_of(entry, params: dict):
    """``(form, defaults)``: the call form whose parameters the record names, in order; else one that has them all
    and defaults for the rest (a record written by hand, or by an older npusim, may leave those out), with those
    defaults; ``(None, {})`` when none fits."""
    from ..overloads import REQUIRED

    exact = next((f for f in entry.forms if tuple(f.names) == tuple(params)), None)
    if exact is not None:
        return exact, {}
    for form in entry.forms:
        missing = [p for p in form.params if p.name not in params]
        if set(params) <= set(form.names) and all(p.default is not REQUIRED for p in missing):
            return form, {p.name: p.default for p in missing}
    return None, {}


def replan(record: AccessRecord, chip: str | None = None) -> Replanned | None:
    """The record's call planned and bound again on a scratch core of ``chip`` (module docstring), or None."""
    from .. import ascend as asc
    from ..ascend.ops.transpose import PerCallPlan
    from ..engine.registry import instructions

    entry = next((e for e in instructions("ascend") if e.name == record.instruction), None)
    if entry is None:
        return None
    form, defaults = _form_of(entry, record.params)
    if form is None:
        return None
    with _scratch_core(asc.Core, chip) as core:
        core.set_mask_words(FULL_WORD, FULL_WORD, FULL_WORD, FULL_WORD)
        for stand_in in (None, *(_DEQSCALE_STAND_INS if "DEQSCALE" in record.registers_read else ())):
            try:
                if stand_in is not None:
                    stand_in(asc)
                values = {name: _value(name, record.params[name], core) if name in record.params else defaults[name]
                          for name in form.names}
                plan = entry.compile(core, form.name, values)
                # a per-call plan reads its lists from UB, whose content the record does not hold: no binding
                binding = None if isinstance(plan, PerCallPlan) else plan.bind(core, [values[n] for n in plan.operands])
                break
            except Exception:  # noqa: BLE001, S112  (values read back from JSON can fail in any way: no plan)
                continue
        else:
            return None
    # with is_set_mask=False the mask argument is not written to the register: the call runs under what it holds
    from_register = (binding is not None and "MASK" in binding.registers_read and "count" not in values
                     and ("mask" not in values or values.get("is_set_mask") is False))
    return Replanned(record, entry, form.name, values, plan, binding, from_register)


# ------------------------------------------------------------------ Sophgo: which bytes are whose
@dataclass(frozen=True)
class PlacedOperand:
    """One memory operand of a Sophgo call as its binding placed it.

    Attributes:
        name: the parameter's name without ``_addr`` (``"dst"``, ``"src1"``).
        role: ``"read"`` or ``"write"``.
        kind: ``"TENSOR"``, ``"VECTOR"`` (one element per lane) or ``"GLOBAL"``.
        placement: its :class:`~npusim.sophgo.placement.LocalPlacement` or ``GlobalPlacement``.
    """

    name: str
    role: str
    kind: str
    placement: Any


def _sophgo_value(value):
    from .. import sophgo as tpu

    if isinstance(value, dict) and value.keys() == {"type", "addr", "scalar"}:
        kind = tpu.var_type_t[value["type"]]
        if kind is tpu.SCALAR:  # its bits play no part in where the call reads and writes
            return tpu.variable_t(type=kind, scalar=tpu.scalar_t(u32=0))
        return tpu.variable_t(type=kind, addr=value["addr"])
    if isinstance(value, dict) and value.keys() == {"n", "c", "h", "w"}:
        return tpu.dim4(**value)
    if isinstance(value, str) and value.startswith("DT_"):
        return tpu.data_type_t[value]
    if isinstance(value, str) and value.startswith("scalar_t("):  # as above: its bits place nothing
        return tpu.scalar_t(u32=0)
    return value


def sophgo_operands(record: AccessRecord, chip: str | None = None) -> tuple[PlacedOperand, ...] | None:
    """The memory operands of a Sophgo record's call, planned and bound again on a scratch core of ``chip``
    (as :func:`replan` does for Ascend), or None when its parameters cannot be read back."""
    from .. import sophgo as tpu
    from ..engine.registry import instructions
    from ..errors import ConstraintError
    from ..sophgo.placement import GlobalPlacement

    entry = next((e for e in instructions("sophgo") if e.name == record.instruction), None)
    form = None if entry is None else next((f for f in entry.forms if tuple(f.names) == tuple(record.params)), None)
    if form is None:
        return None
    with _scratch_core(tpu.Core, chip, uninit="ignore") as core:
        try:
            values = {name: _sophgo_value(record.params[name]) for name in form.names}
            plan = entry.compile(core, form.name, values)
            binding = plan.bind(core, tuple(values[name] for name in plan.operands))
        except (ConstraintError, KeyError, TypeError, ValueError):
            return None
    if hasattr(binding, "dests"):  # a select: its operands by name, a SCALAR source placed nowhere
        named = [("write", op) for op in binding.dests] + [("read", op) for op in binding.sources if op is not None]
        return tuple(PlacedOperand(op.name, role, values[op.name].type.name if op.name in values else "TENSOR",
                                   op.placement) for role, op in named)
    return tuple(PlacedOperand(name, role, "GLOBAL" if isinstance(p, GlobalPlacement) else "TENSOR", p)
                 for role, name, placements in (("read", "src", binding.read_placements),
                                                ("write", "dst", binding.write_placements)) for p in placements)
