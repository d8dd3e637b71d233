"""The instruction registry: every instruction of every vendor, registered once.

An :class:`Instruction` record says what an instruction is — public name, vendor,
family, pipe, call forms, the products that have it (from the vendor's chip table),
the document it follows and how exact npusim is about it — and how it is planned.
Everything that lists instructions reads this registry: the vendors' public modules
(``npusim.ascend.instructions()``), golden data, the fuzz suite, ``npusim list`` and
``docs/api.md``.

A vendor registers itself once (:func:`register_vendor`: its chips and its active-core
context); an instruction with :func:`register`, which returns the public function that
dispatches to it (:mod:`.dispatch`).  Registering a name twice is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..overloads import Form

__all__ = [
    "ACCURACY_MODEL", "BIT_EXACT", "IEEE_RNE", "Instruction",
    "Vendor", "by_name", "install_dispatcher", "instructions", "register",
    "register_vendor", "vendor",
]

BIT_EXACT = "bit-exact"
IEEE_RNE = "IEEE round-to-nearest-even"  # float lanes: the correctly rounded result, with the product's rules
ACCURACY_MODEL = "accuracy model"
EXACTNESS_CLASSES = (BIT_EXACT, IEEE_RNE, ACCURACY_MODEL)


@dataclass(frozen=True, eq=False)
class Vendor:
    """What the engine needs to know of a vendor.

    Attributes:
        name: ``"ascend"`` or ``"sophgo"``.
        chips: returns the vendor's products (objects with a ``name``), in table order.
        current_core: ``current_core(instruction)`` -> the active core, raising a
            :class:`~npusim.errors.NoActiveCoreError` naming ``instruction`` if none is.
        operand_kinds: per Python type, how an argument of that type binds per call
            (see :class:`OperandKind`).
        address_kind: how a plain integer *address* parameter binds per call (an
            instruction names those parameters in ``Instruction.address_params``); ``None`` if
            the vendor's instructions take no such parameter.
    """

    name: str
    chips: Callable[[], Iterable[Any]]
    current_core: Callable[[str], Any]
    operand_kinds: dict[type, OperandKind] = field(default_factory=dict)
    address_kind: OperandKind | None = None


@dataclass(frozen=True, eq=False)
class OperandKind:
    """How arguments of one Python type take part in a call: by geometry, bound per call.

    Attributes:
        geometry: the argument's plan-key part without its address (``LocalTensor``:
            extent, dtype, position).
        base: what binds per call (``LocalTensor``: its byte address).
        check: ``check(value, instruction, operand_name, core)`` raises unless the
            argument is usable now (still allocated, on this core).
    """

    geometry: Callable[[Any], Any]
    base: Callable[[Any], Any]
    check: Callable[[Any, str, str, Any], None]


@dataclass(frozen=True, eq=False)
class Instruction:
    """One registered instruction (module docstring).

    Attributes:
        name: public name (``"select"``, ``"asc_ne_scalar"``, ``"tpu_bdc_greater_select"``).
        vendor: ``"ascend"`` or ``"sophgo"``.
        family: ``"select"``, ``"compare"``, ``"arith"``, ``"data_movement"``, ``"layout"``,
            ``"register"``, ...
        pipe: the pipe it issues on: ``"V"``, ``"MTE2"``, ``"MTE3"``, ``"S"`` (Ascend), ``"BDC"``,
            ``"GDMA"`` (Sophgo).
        forms: its documented call forms, in binding order.
        compile: ``compile(core, form_name, values_by_name) -> Plan``: every parameter rule
            checked (the plan step); nothing read or written.
        source: the vendor document it follows (page and section).
        support: ``support(chip) -> row or None``: the product's rules for it (``None``: the
            product does not have it).
        exactness: :data:`BIT_EXACT`, :data:`IEEE_RNE` (integer lanes bit-exact, float lanes the
            correctly rounded result under the product's saturation and NaN rules) or
            :data:`ACCURACY_MODEL` (docs/architecture.md, "Exactness").
        summary: one line for listings.
        examples: short runnable snippets, one per call form where possible: setup lines, then
            the instruction call as the last statement (``asc`` / ``tpu`` is the vendor module,
            ``core`` the active core).  They run on the vendor's default product (Ascend's A2,
            Sophgo's BM1684X), or, for an instruction that product lacks, on one that has it.
            docs/api.md shows the first; the access-record tests run them all.
        examples_on: examples for named products, by product name (``{"950": (snippet, ...)}``),
            written as ``examples`` are: the dtype rows and call forms the default product rejects
            (the 950's complex32 lanes, its hifloat8_t Cast lines, the scalar-first forms), and calls
            the product lowers its own way (the 950's int4b_t casts) or lists as its own too
            (asc_transto5hd on the 950).
            The generated tests run each on a core of its product (the fuzz:
            ``tests/fuzz/test_fuzz_registry_950.py``; the access records:
            ``tests/engine/test_access_records.py``); docs/api.md shows none of them.
        relative: its plans hold no operand address (module :mod:`.plan`); ``False`` keys
            plans on addresses too.
        per_call: parameters read per call (a scalar operand), left out of plan keys.
        address_params: parameters that are plain integer addresses (Sophgo's ``dst_addr``):
            keyed and bound through ``Vendor.address_kind`` like an operand.
        plan_context: ``plan_context(core, form_name, values)`` -> the register
            configuration its plan depends on (part of the plan key).
        fast_context: ``fast_context(core)`` -> the register configuration every form
            plans with at most, for lookups by raw arguments; ``None`` turns those off.
        fast_ok: ``fast_ok(form_name, values)`` -> whether a call may be found again by
            its raw arguments (``False`` for forms that plan from more than the context).
        alias_of: the instruction whose plans a C-API alias shares.
        doc: the public function's docstring.
        function: the public function (set by :func:`register`).
    """

    name: str
    vendor: str
    family: str
    pipe: str
    forms: tuple[Form, ...]
    compile: Callable[[Any, str, dict], Any]
    source: str
    support: Callable[[Any], Any]
    exactness: str = BIT_EXACT
    summary: str = ""
    examples: tuple[str, ...] = ()
    examples_on: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    relative: bool = True
    per_call: frozenset[str] = frozenset()
    address_params: frozenset[str] = frozenset()
    plan_context: Callable[[Any, str, tuple], tuple] | None = None
    fast_context: Callable[[Any], tuple] | None = None
    fast_ok: Callable[[str, tuple], bool] | None = None
    alias_of: str | None = None
    doc: str = ""
    function: Callable[..., Any] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.exactness not in EXACTNESS_CLASSES:
            raise ValueError(f"{self.name}: exactness must be one of {EXACTNESS_CLASSES}, got {self.exactness!r}")
        for product, snippets in self.examples_on.items():
            if not (isinstance(product, str) and isinstance(snippets, tuple) and snippets
                    and all(isinstance(s, str) for s in snippets)):
                raise ValueError(f"{self.name}: examples_on maps a product name to a non-empty tuple of snippets, "
                                 f"got {product!r}: {snippets!r}")
        object.__setattr__(self, "examples_on", MappingProxyType(dict(self.examples_on)))  # frozen, as the record

    @property
    def products(self) -> dict[str, Any]:
        """Every product of the vendor that has this instruction, with its support row."""
        rows = {}
        for chip in vendor(self.vendor).chips():
            row = self.support(chip)
            if row is not None and row is not False:
                rows[chip.name] = row
        return rows

    def signatures(self) -> list[str]:
        """Each call form as ``name(param, param=default, ...)``."""
        return [f"{self.name}{form.signature()}" for form in self.forms]


_VENDORS: dict[str, Vendor] = {}
_INSTRUCTIONS: dict[tuple[str, str], Instruction] = {}


def register_vendor(entry: Vendor) -> Vendor:
    if entry.name in _VENDORS:
        raise KeyError(f"vendor {entry.name!r} is already registered")
    _VENDORS[entry.name] = entry
    return entry


def vendor(name: str) -> Vendor:
    try:
        return _VENDORS[name]
    except KeyError:
        raise KeyError(f"no vendor {name!r} is registered (import npusim.{name} first)") from None


def register(entry: Instruction) -> Callable[..., Any]:
    """Add ``entry`` to the registry and return its public function (which dispatches every call)."""
    key = (entry.vendor, entry.name)
    if key in _INSTRUCTIONS:
        raise KeyError(f"{entry.vendor} instruction {entry.name!r} is already registered")
    function = _public_function(entry)
    object.__setattr__(entry, "function", function)  # the record is frozen for everyone else
    function.instruction = entry  # type: ignore[attr-defined]
    _INSTRUCTIONS[key] = entry
    return function


def _public_function(entry: Instruction) -> Callable[..., Any]:
    """The function users call for ``entry``: its docstring lists the call forms."""

    def instruction(*args, **kwargs):
        return _dispatcher(entry, args, kwargs)

    instruction.__name__ = instruction.__qualname__ = entry.name
    instruction.__module__ = f"npusim.{entry.vendor}"
    forms = "\n".join(f"    {signature}" for signature in entry.signatures())
    instruction.__doc__ = f"{entry.doc or entry.summary}\n\nForms::\n\n{forms}\n\nDocument: {entry.source}\n"
    return instruction


def _no_dispatcher(entry: Instruction, args: tuple, kwargs: dict):
    raise RuntimeError("npusim.engine.dispatch is not loaded (import npusim.engine)")


_dispatcher: Callable[[Instruction, tuple, dict], Any] = _no_dispatcher


def install_dispatcher(dispatch: Callable[[Instruction, tuple, dict], Any]) -> None:
    """Make ``dispatch`` run every registered instruction's calls (:mod:`.dispatch` installs itself,
    so this module, which it imports, imports nothing of it)."""
    global _dispatcher
    _dispatcher = dispatch


def instructions(vendor_name: str | None = None) -> list[Instruction]:
    """Every registered instruction (of one vendor), in registration order."""
    return [entry for (owner, _), entry in _INSTRUCTIONS.items() if vendor_name in (None, owner)]


def by_name(vendor_name: str, name: str) -> Instruction:
    try:
        return _INSTRUCTIONS[(vendor_name, name)]
    except KeyError:
        raise KeyError(f"no {vendor_name} instruction {name!r} is registered") from None
