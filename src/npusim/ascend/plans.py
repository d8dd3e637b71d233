"""Checked plans, cached per core: plan once per parameter set, run per call (docs/architecture.md).

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

**Plans shared between cores.**  A kernel launch runs every block on a fresh core, so a
per-core cache alone would compile each plan again in every launch.  A plan class whose
plans hold no core — only addresses and geometry, with their views over memory made by a
``bind(core)`` method — is *portable*: :func:`keep_plan` also keeps it, unbound, as a
template under ``(chip, key)``, and :func:`find_plan` binds the template to a core that
misses in its own cache.  This is safe because a key captures everything a plan's checks
depended on except the chip (UB size, per-product rules), which the template table adds;
what depends on the core itself (its memory, whether each tensor is on it) is bound or
checked per call.  A bound plan starts with no memory of shadow epochs, so the first call
on a new core checks for never-written bytes again: each block starts as a fresh core does.

Select and Compare (and the C API compares) plan on the engine (``npusim.engine``) instead.
"""

from __future__ import annotations

import _thread  # the templates' lock, without importing threading at start-up
from collections.abc import Sequence

import numpy as np

from .core import Core
from .tensor import LocalTensor
from .types import KeyedFields

__all__ = ["MAX_PLANS", "MAX_TEMPLATES", "find_plan", "keep_plan", "require_usable", "value_key"]

MAX_PLANS = 512  # per core; beyond this the oldest plan is dropped
MAX_TEMPLATES = 512  # portable plans kept for all cores; beyond this the oldest is dropped


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
    if issubclass(kind, KeyedFields):  # the repeat / copy / transpose parameter classes (all with astuple)
        return kind.fields_key
    return lambda value: (kind, value)


_KEYERS: dict[type, object] = {}  # filled once per type; threads racing store equal keyers, which is harmless


def find_plan(core: Core, key: tuple):
    """The plan stored under ``key`` for ``core``, or ``None`` (also when ``key`` is unhashable).

    A miss in the core's cache is looked up among the portable plans of the core's chip
    (module docstring); a template found there is bound to ``core`` and kept in its cache.
    """
    cache = core.plan_cache
    try:
        plan = cache.get(key)
    except TypeError:
        return None
    if plan is None:
        chip = core.chip
        entry = _TEMPLATES.get((id(chip), key))
        if entry is not None and entry[0] is chip:  # the entry holds the chip: its id cannot be reused
            plan = entry[1].bind(core)
            _store(cache, MAX_PLANS, key, plan)
    return plan


def keep_plan(core: Core, key: tuple, plan) -> None:
    """Store ``plan`` under ``key`` (nothing happens for an unhashable key); a portable plan also as a template."""
    try:
        hash(key)
    except TypeError:
        return
    _store(core.plan_cache, MAX_PLANS, key, plan)
    if hasattr(plan, "bind"):
        template = (core.chip, plan.bind(None))
        with _TEMPLATES_LOCK:
            _store(_TEMPLATES, MAX_TEMPLATES, (id(core.chip), key), template)


# The templates are shared by every core of the process, also by cores running in other threads:
# stores (which evict) take the lock, so two of them never evict the same entry; lookups are one
# dict.get, which needs none.  A core's own caches belong to the one thread running the core.
_TEMPLATES: dict = {}  # (id(chip), key) -> (chip, unbound portable plan)
_TEMPLATES_LOCK = _thread.allocate_lock()


def _store(cache: dict, limit: int, key, value) -> None:
    """``cache[key] = value``, dropping the oldest entry first when ``cache`` holds ``limit``."""
    if len(cache) >= limit:
        del cache[next(iter(cache))]
    cache[key] = value


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
