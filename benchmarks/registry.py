"""What a benchmark case is, and how its target is judged.

A :class:`Case` names a measurement and its target; its ``build`` function sets up
the data once and returns a :class:`Bench`: the npusim callable, the numpy
callable doing the same data movement on the *same* data, and one function per
side returning the output bytes, compared once for byte-equality before timing
(a fast wrong path must not look good).  A :class:`Pending` is a reserved row for
a case whose code lives on a branch not merged yet; it prints as pending, never
as a number.

Adding a case is a few lines in :mod:`cases`: a ``build`` function and one
``Case(...)`` entry.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Bench", "Case", "Pending", "Target"]


@dataclass(frozen=True)
class Target:
    """A limit on the ratio npusim / numpy, or on npusim's own time per call.

    ``kind``: ``"ratio"`` (npusim time / numpy time), ``"us"`` or ``"ms"`` (npusim time).
    """

    kind: Literal["ratio", "us", "ms"]
    limit: float

    def describe(self) -> str:
        if self.kind == "ratio":
            return f"<= {self.limit:g}x numpy"
        return f"<= {self.limit:g} {'µs' if self.kind == 'us' else 'ms'}"

    def met(self, npusim_seconds: float, ratio: float) -> bool:
        if self.kind == "ratio":
            return ratio <= self.limit
        scale = 1e6 if self.kind == "us" else 1e3
        return npusim_seconds * scale <= self.limit


@dataclass
class Bench:
    """A case set up and ready to time.

    Attributes:
        npusim, numpy: one call each; the numpy one does the same work on the same data.
        npusim_output, numpy_output: the bytes each call produced (checked equal once).
        self_timed: the callables return their own duration in seconds (e.g. a fresh
            interpreter's import time) instead of being timed from outside.
        resources: closed after the case (e.g. the active ``Core``).
    """

    npusim: Callable[[], object]
    numpy: Callable[[], object]
    npusim_output: Callable[[], bytes] | None = None
    numpy_output: Callable[[], bytes] | None = None
    self_timed: bool = False
    resources: ExitStack = field(default_factory=ExitStack)


@dataclass(frozen=True)
class Case:
    """One row of the table: a name, its target (``None``: reported only), and how to set it up."""

    name: str
    target: Target | None
    build: Callable[[], Bench]
    group: str = ""


@dataclass(frozen=True)
class Pending:
    """A reserved row: the case's code is on another branch (``reason`` says which)."""

    name: str
    target: Target | None
    reason: str
    group: str = ""
