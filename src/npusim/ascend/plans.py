"""Checked plans, cached per core: plan once per parameter set, run per call (design.md §1).

What an instruction call does depends on three kinds of input:

1. its parameters and the register *configuration* it plans with (tensor addresses,
   extents, dtypes and positions; modes, masks, strides, repeat counts; the vector
   mask register and mask mode) — everything the plan step checks;
2. values that may change from call to call without changing what the plan checked:
   a scalar operand, and whether each tensor is still allocated and belongs to the
   running core;
3. the contents of memory and registers.

A plan is compiled from (1) and kept in ``core.plan_cache`` under a key holding
exactly (1); on later calls with the same key only (2) is checked again and (3)
read.  Keys are values, never object identities: a tensor contributes its
``plan_key`` (address, extent, dtype, position), so equal calls share a plan
whichever objects they pass.  Every other argument contributes its type with its
value, so ``1``, ``1.0`` and ``True`` never share a plan.  Only calls that passed
every check are stored, so a key that matches a stored one describes a call that
passes them too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .core import Core
from .tensor import LocalTensor

__all__ = ["MAX_PLANS", "PER_CALL", "call_key", "find_plan", "keep_plan", "per_call_flags", "require_usable",
           "value_key"]

MAX_PLANS = 512  # per core; beyond this the oldest plan is dropped
PER_CALL = "<per-call value>"  # stands in a key for an argument whose value is read per call


def value_key(value):
    """The key part of one argument (see the module docstring); may be unhashable."""
    kind = type(value)
    if kind is int or value is None:
        return value
    if kind is LocalTensor:
        return value.plan_key
    keyer = _KEYERS.get(kind)
    if keyer is None:
        keyer = _KEYERS[kind] = _keyer_for(kind)
    return keyer(value)


def _keyer_for(kind: type):
    """How arguments of one type become key parts, decided once per type."""
    if issubclass(kind, LocalTensor):
        return lambda tensor: tensor.plan_key
    if kind is list or kind is tuple:
        return lambda items: (kind, *map(value_key, items))
    if kind is np.ndarray:
        return lambda array: (kind, array.dtype.str, array.shape, array.tobytes())
    if callable(getattr(kind, "astuple", None)):  # the repeat / transpose parameter classes

        def fields_key(params):
            fields = params.astuple()
            return kind, fields, tuple(map(type, fields))

        return fields_key
    return lambda value: (kind, value)


_KEYERS: dict[type, object] = {}


def call_key(context: tuple, values: tuple, per_call: tuple[bool, ...]) -> tuple:
    """The key of a call: ``context`` (instruction, form, register configuration), then its values.

    ``per_call`` flags, position by position, the values read per call (a scalar operand):
    they contribute only :data:`PER_CALL` unless they are tensors.
    """
    parts = list(context)
    append = parts.append
    for value, later in zip(values, per_call, strict=True):
        kind = type(value)
        if kind is int:
            append(value)
        elif kind is LocalTensor:
            append(value.plan_key)
        elif later and not isinstance(value, LocalTensor):
            append(PER_CALL)
        else:
            append(value_key(value))
    return tuple(parts)


def per_call_flags(names: tuple[str, ...], per_call: frozenset[str]) -> tuple[bool, ...]:
    """``call_key``'s ``per_call`` for parameters ``names`` of which those in ``per_call`` are read per call."""
    return tuple(name in per_call for name in names)


def find_plan(core: Core, key: tuple):
    """The plan stored under ``key``, or ``None`` (also when ``key`` is unhashable)."""
    try:
        return core.plan_cache.get(key)
    except TypeError:
        return None


def keep_plan(core: Core, key: tuple, plan) -> None:
    """Store ``plan`` under ``key`` (nothing happens for an unhashable key)."""
    cache = core.plan_cache
    try:
        hash(key)
    except TypeError:
        return
    if len(cache) >= MAX_PLANS:
        del cache[next(iter(cache))]
    cache[key] = plan


def require_usable(instruction: str, core: Core, tensors: Sequence, names: Sequence[str]) -> None:
    """The per-call part of tensor validation: each tensor still allocated and owned by ``core``.

    ``tensors`` (any argument; only LocalTensors are checked) and their operand ``names``
    come in the order the plan step checks them, so the first failure reported is the one
    an uncached call would report.
    """
    for tensor in tensors:
        if isinstance(tensor, LocalTensor) and (
                tensor.core is not core or (tensor.lease is not None and not tensor.lease.alive)):
            break
    else:
        return
    for name, tensor in zip(names, tensors, strict=True):
        if isinstance(tensor, LocalTensor):
            tensor.check_usable(instruction, name, core)
