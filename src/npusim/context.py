"""Which core instructions act on: the active cores of one vendor, per thread (and asyncio task).

Instructions run on the core of the innermost enclosing ``with Core(...)`` block; there is
no hidden global core (docs/semantics.md §10.2).  :class:`ActiveCores` keeps the entered cores as a
tuple, innermost last, in a :class:`contextvars.ContextVar`: each thread (each task) has its
own, so cores entered in one thread are not active in another.

Each vendor also keeps its default chip here (:class:`VendorDefault`): what ``Core()``
without a chip name, and a kernel launch without one, run on.

Leaving a core removes its innermost entry, wherever it is in the stack: cores left in
another order than they were entered (``a.__enter__(); b.__enter__(); a.__exit__()``) leave
exactly the others active.  Leaving a core that is not active here is a
:class:`~npusim.errors.RuntimeMisuseError`.  This module knows nothing about any vendor.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .errors import RuntimeMisuseError
from .sources import semantics

__all__ = ["ActiveCores", "VendorDefault"]

CoreT = TypeVar("CoreT")


class ActiveCores(Generic[CoreT]):
    """The entered cores of one vendor in this thread or task, innermost last."""

    def __init__(self, name: str) -> None:
        self._stack: contextvars.ContextVar[tuple[CoreT, ...]] = contextvars.ContextVar(name, default=())

    def enter(self, core: CoreT) -> None:
        self._stack.set((*self._stack.get(), core))

    def leave(self, core: CoreT, who: str) -> None:
        """Remove the innermost entry of ``core``; ``who`` names the method in the error if there is none."""
        stack = self._stack.get()
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth] is core:
                self._stack.set(stack[:depth] + stack[depth + 1 :])
                return
        raise RuntimeMisuseError(
            who, "core", repr(core), "the core is not active here: __exit__ without a matching __enter__ "
            "(or in another thread than the one that entered it)", "enter the core first: `with Core(...):`",
            semantics("10.2"),
        )

    def innermost(self) -> CoreT | None:
        stack = self._stack.get()
        return stack[-1] if stack else None


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
