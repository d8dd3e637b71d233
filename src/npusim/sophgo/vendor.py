"""Sophgo on the instruction engine: its chips, its active core, and how operands take part in plans.

Every Sophgo instruction is registered here (:func:`sophgo_instruction`) and runs through the
engine's one dispatch (:mod:`npusim.engine.dispatch`): a plan per call *geometry*, bound per call
to the operands' addresses.

* **A local address is geometry only through its start lane.**  Aligned strides and channel runs
  depend on the lane ``s`` a tensor starts on (docs/semantics.md §7.3) and every operand of a BDC
  instruction starts on dst's lane (§8.5), so the plan key holds dst's start lane (``plan_context``);
  the in-lane offset, and a global address, bind per call: a kernel that walks memory tile by tile
  reuses one plan.  A ``variable_t`` is keyed by its kind and binds its address; a SCALAR's value,
  like a ``scalar_t`` argument, is read per call and never keyed.
* **Every rule that depends on an address** (inside the local address space or global memory,
  aligned, inside its lane, on dst's lane) is checked per call, by the binding (``Plan.bind``).

A plain integer address may be local or global depending on the instruction, so :data:`ADDRESS`
keys none of it.  Memory is never freed, so an operand is always usable: the per-call checks are empty.
"""

from __future__ import annotations

from ..engine import registry
from ..engine.registry import BIT_EXACT, Instruction, OperandKind, Vendor, register_vendor
from ..overloads import Form, Param
from .chips import CHIPS
from .core import current_core
from .types import scalar_t, variable_t

__all__ = ["ADDRESS", "instructions", "local_lane", "sophgo_instruction"]


def _always_usable(value, instruction: str, name: str, core) -> None:
    """Local and global memory are never freed: an operand can always be used."""


VARIABLE = OperandKind(geometry=lambda var: var.type, base=lambda var: var.addr, check=_always_usable)
SCALAR_VALUE = OperandKind(geometry=lambda value: (), base=lambda value: None, check=_always_usable)
ADDRESS = OperandKind(geometry=lambda addr: (), base=lambda addr: addr, check=_always_usable)

register_vendor(Vendor(
    "sophgo", chips=CHIPS.values, current_core=current_core,
    operand_kinds={variable_t: VARIABLE, scalar_t: SCALAR_VALUE}, address_kind=ADDRESS,
))


def local_lane(core, addr) -> tuple[int, ...]:
    """The start lane of a local address as a plan-key part (``()`` for anything but an ``int``,
    whose key part is then its exact value)."""
    return (addr // core.chip.local_mem_bytes,) if type(addr) is int else ()


def _any(value) -> bool:
    return True  # types are checked by the plan step, in the order and words of the vendor's parameters


def sophgo_instruction(name: str, family: str, pipe: str, params: tuple[str, ...], compile, source: str, dtypes,
                       summary: str, examples: tuple[str, ...], address_params: frozenset[str], plan_context=None):
    """Register one Sophgo instruction (one call form, its C parameters in order) and return its function.

    ``dtypes(chip)`` -> the element types it takes on the chip; every chip has every instruction,
    and its support row is the set of their names.
    """
    return registry.register(Instruction(
        name, "sophgo", family, pipe, (Form(name, tuple(Param(p, _any) for p in params)),), compile, source,
        lambda chip: frozenset(d.name for d in dtypes(chip)), BIT_EXACT, summary, examples,
        address_params=address_params, plan_context=plan_context, fast_context=lambda core: (),
    ))


def instructions() -> list[Instruction]:
    """Every Sophgo instruction's registry record (name, family, pipe, products, source, examples ...)."""
    return registry.instructions("sophgo")
