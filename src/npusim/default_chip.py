"""Default chips: one per vendor (:class:`VendorDefault`), and choosing one by name (``npusim run --chip``).

Ascend and Sophgo keep separate defaults (``npusim.ascend.set_default_chip``,
``npusim.sophgo.set_default_chip``): an Ascend name changes what ``asc.Core()`` and kernel
launches run on, a Sophgo name what ``tpu.Core()`` runs on.  No name belongs to both.
:func:`set_default_chip` finds the vendor a name belongs to.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .errors import UnsupportedError
from .sources import semantics

__all__ = ["VendorDefault", "set_default_chip"]

ChipT = TypeVar("ChipT")


class VendorDefault(Generic[ChipT]):
    """A vendor's default chip, per context (thread, task): read it, set it, or set it for a block.

    Args:
        name: the context variable's name.
        initial: the chip's name before anyone sets it.
        lookup: the vendor's ``get_chip`` (a name or a chip -> the chip, raising on unknown names).
    """

    def __init__(self, name: str, initial: str, lookup: Callable[[object], ChipT]) -> None:
        self._var: contextvars.ContextVar[str] = contextvars.ContextVar(name, default=initial)
        self._lookup = lookup

    def get(self) -> ChipT:
        return self._lookup(self._var.get())

    def set(self, chip) -> None:
        self._var.set(self._lookup(chip).name)

    @contextlib.contextmanager
    def using(self, chip) -> Iterator[ChipT]:
        token = self._var.set(self._lookup(chip).name)
        try:
            yield self._lookup(chip)
        finally:
            self._var.reset(token)


def set_default_chip(name: str) -> str:
    """Make ``name`` the default chip of its vendor; return ``"<vendor> <canonical name>"``.

    Raises:
        UnsupportedError: neither vendor knows the name; the message lists both vendors' chips.
    """
    from . import ascend, sophgo

    rejections = []
    for vendor, module in (("Ascend", ascend), ("Sophgo", sophgo)):
        try:
            chip = module.get_chip(name)
        except UnsupportedError as err:
            rejections.append(f"{vendor}: {err.allowed}")
            continue
        module.set_default_chip(chip)
        return f"{vendor} {chip.name}"
    raise UnsupportedError("set_default_chip", "chip", name, "no Ascend or Sophgo chip has this name",
                           "; ".join(rejections), semantics("10.5"))
