"""Sophgo's part of the registry-generated tests (access records, tests/fuzz/test_fuzz_registry.py): its cores
and memories.

A core for an instruction example is a BM1684X core (the default chip, which the examples are
written for) with 1 MiB of global memory, tracing.  Its memories, by the record space their byte
ranges name: ``"LOCAL"`` is local memory as one lane-major array (a flat index *is*
``lane * LOCAL_MEM_SIZE + offset``), ``"GLOBAL"`` global memory.  Sophgo has no registers.
"""

from __future__ import annotations

from npusim import sophgo as tpu
from npusim.memory import Memory

VENDOR = "sophgo"
NAMESPACE = {"tpu": tpu}  # the module name the examples use
GLOBAL_MEM_BYTES = 1 << 20


def new_core() -> tpu.Core:
    return tpu.Core("BM1684X", global_mem_bytes=GLOBAL_MEM_BYTES, trace=True)


def memories(core: tpu.Core) -> dict[tuple[str, str | None], Memory]:
    """Every memory the core has, by ``(space, buffer)`` of the byte ranges that index it."""
    return {("LOCAL", None): core.lmem, ("GLOBAL", None): core.gmem}


def registers(core: tpu.Core) -> dict[str, object]:
    return {}


def state(core: tpu.Core) -> tuple:
    """Everything a rejected call must leave as it was (Sophgo has no registers)."""
    return core.lmem.snapshot(), core.gmem.snapshot()


def mutated_operand(tape, label: str, value, core: tpu.Core):
    """Sophgo operands are plain addresses and ``variable_t`` parameter objects, which the fuzz
    family mutates itself (an integer, a field): no tensor type of its own."""
    return None
