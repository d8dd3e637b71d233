"""The plan protocol every instruction implements.

An instruction call is computed in three steps: **plan** (check every rule that depends
on the parameters, turn them into addresses), **execute** (gather, compute vectorised)
and **commit** (write memory and registers, only after everything is computed).  Here
the first step is split in two, so that a kernel loop that moves its operands still
reuses what it planned:

* a :class:`Plan` depends on the call's *geometry* — dtypes, extents, strides, masks,
  modes, repeat counts, register configuration — and on no operand's address.  It is
  compiled once (every parameter rule checked, with the call's real operands, so a
  rejection names real addresses) and shared by every core of the product;
* a :class:`Binding` is a plan bound to the base addresses of one call's operands on
  one core: :meth:`Plan.bind` runs the rules that depend on addresses (alignment,
  bounds in memory, overlap between operands, scratch areas) and makes the views over
  that core's memory.  A binding depends only on ``(plan, bases)``, so a core keeps the
  few it saw last.

A binding knows, before it runs, exactly which bytes and registers it reads and writes
(:attr:`Binding.reads` ...): the access records of :mod:`.trace` are read from it.

An instruction whose plan still holds absolute addresses declares itself *absolute*
(:attr:`Instruction.relative` is False): its operands' addresses are then part of the
plan key, and :meth:`Plan.bind` is only ever called with the bases it was compiled for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from .trace import ByteRange

__all__ = ["Binding", "Plan", "SelfBinding"]


@runtime_checkable
class Binding(Protocol):
    """A plan bound to one call's operand addresses on one core."""

    #: bytes read and written, merged per space (see :mod:`.trace`)
    reads: tuple[ByteRange, ...]
    writes: tuple[ByteRange, ...]
    #: register names (``"CMPMASK"``, ``"MASK"``, ``"MASK_MODE"``, ...)
    registers_read: tuple[str, ...]
    registers_written: tuple[str, ...]

    def run(self, core: Any, values: tuple) -> Any:
        """Execute on ``core``: read, compute, then commit; return ``None`` (or, for an
        instruction that reads a register, its value).

        ``values`` are the call's argument values in its form's parameter order; a
        binding takes from them only what it reads per call (a scalar operand, a GM
        pointer).  A binding that raises has changed nothing.

        A binding whose byte ranges depend on a value read per call (a GM pointer that
        moves every call) also has ``ranges(values) -> (reads, writes)``, which access
        records use instead of the attributes; one whose pipe depends on the call (a copy
        issues on MTE2, MTE3 or V by its direction) has ``pipe``, which records use
        instead of ``Instruction.pipe``.
        """


@runtime_checkable
class Plan(Protocol):
    """A checked call geometry, independent of operand addresses (module docstring)."""

    #: parameter names of the operands that bind per call, in the order the plan step
    #: checks them (the dispatcher's per-call checks report the first failure in this order)
    operands: tuple[str, ...]

    def bind(self, core: Any, operands: Sequence[Any]) -> Binding:
        """Check the address-dependent rules for these operands on ``core`` and bind to them.

        ``operands`` are the call's values of :attr:`operands`, in that order.
        """


class SelfBinding:
    """Mixin for a plan that is its own binding (no operands, or an absolute plan).

    ``bind`` returns the plan itself; such a plan sets :attr:`reads` and the other
    access attributes itself.
    """

    operands: tuple[str, ...] = ()
    reads: tuple[ByteRange, ...] = ()
    writes: tuple[ByteRange, ...] = ()
    registers_read: tuple[str, ...] = ()
    registers_written: tuple[str, ...] = ()

    def bind(self, core: Any, operands: Sequence[Any]) -> SelfBinding:
        return self
