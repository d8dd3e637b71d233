"""Which instruction last wrote a byte (``npusim verify --trace``).

Cores run one after another (blocks in order, docs/architecture.md), so the *last* writer
of a byte is the latest record, in core order then sequence order, whose writes hold it.
A UB byte belongs to one core; a GM byte to the buffer every core shares.

When the writer is a copy (:data:`COPIES`) whose read and write ranges hold the same
number of bytes, the byte is followed back to the byte the copy read (the k-th byte
written is the k-th byte read, both in address order) and its writer is looked up
before the copy, so a wrong GM byte leads to the vector instruction that computed it.
Each step says where the byte lies in its writer: operand, repeat, DataBlock and lane
(:mod:`.anatomy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..engine.trace import AccessRecord, CoreTrace
from .anatomy import anatomy

__all__ = ["COPIES", "Step", "describe_steps", "provenance"]

COPIES = frozenset({"data_copy", "tpu_gdma_cpy_S2L", "tpu_gdma_cpy_L2S"})
MAX_STEPS = 8


@dataclass(frozen=True)
class Step:
    """One writer of the byte: the record, and where the byte lies in it.

    ``operand``, ``repeat``, ``data_block`` and ``lane`` are None where the record was not
    decomposed (:mod:`.anatomy`); ``lane`` counts lanes within the repeat (for a bit
    operand, the byte within the repeat).
    """

    record: AccessRecord
    space: str
    buffer: str | None
    byte: int
    operand: str | None = None
    repeat: int | None = None
    data_block: int | None = None
    lane: int | None = None


def _holds(ranges, space: str, buffer: str | None, byte: int) -> bool:
    return any(r.space == space and r.buffer == buffer and r.start <= byte < r.stop for r in ranges)


def _last_writer(cores: Sequence[CoreTrace], core_index: int | None, space: str, buffer: str | None, byte: int,
                 before: tuple[int, int] | None) -> tuple[int, AccessRecord] | None:
    for index in range(len(cores) - 1, -1, -1):
        if core_index is not None and index != core_index:
            continue
        for record in reversed(cores[index].records):
            if before is not None and (index, record.seq) >= before:
                continue
            if _holds(record.writes, space, buffer, byte):
                return index, record
    return None


def _step(record: AccessRecord, space: str, buffer: str | None, byte: int, chip: str | None) -> Step:
    parts = anatomy(record, chip)
    if parts.decomposed:
        for operand in parts.operands:
            if operand.role == "write" and (where := operand.locate(byte, space, buffer)) is not None:
                repeat, unit = where
                block = unit // operand.per_block if operand.per_block else None
                return Step(record, space, buffer, byte, operand.name, repeat, block, unit)
    return Step(record, space, buffer, byte)


def _copied_from(record: AccessRecord, space: str, buffer: str | None, byte: int):
    """The byte a copy read to write ``byte`` (module docstring), or None."""
    if record.instruction not in COPIES:
        return None
    written = sum(r.stop - r.start for r in record.writes)
    if written != sum(r.stop - r.start for r in record.reads):
        return None
    k = 0
    for r in record.writes:
        if r.space == space and r.buffer == buffer and r.start <= byte < r.stop:
            k += byte - r.start
            break
        k += r.stop - r.start
    for r in record.reads:
        if k < r.stop - r.start:
            return r.space, r.buffer, r.start + k
        k -= r.stop - r.start
    return None


def provenance(cores: Sequence[CoreTrace], space: str, byte: int, buffer: str | None = None,
               block: int | None = None) -> list[Step]:
    """The writers of ``byte``, last first, followed back through copies (module docstring).

    ``block`` picks the core of a UB byte (its block index); GM bytes search every core.
    An empty list: nothing in the trace wrote the byte.
    """
    core_index = None
    if space not in ("GM", "GLOBAL"):
        matches = [i for i, core in enumerate(cores) if core.block == (block or 0)]
        core_index = matches[-1] if matches else -1
    steps: list[Step] = []
    before = None
    while len(steps) < MAX_STEPS:
        found = _last_writer(cores, core_index, space, buffer, byte, before)
        if found is None:
            break
        index, record = found
        steps.append(_step(record, space, buffer, byte, cores[index].chip))
        source = _copied_from(record, space, buffer, byte)
        if source is None:
            break
        space, buffer, byte = source
        core_index, before = index, (index, record.seq)
    return steps


def describe_steps(steps: Sequence[Step]) -> list[str]:
    """One line per step, for reports."""
    if not steps:
        return ["not written by any traced instruction (an input byte, or written by the host)"]
    lines = []
    for i, step in enumerate(steps):
        record = step.record
        where = f"{step.space}{':' + step.buffer if step.buffer else ''} byte {step.byte:#x}"
        head = "last written by" if i == 0 else "copied from, which was last written by"
        detail = ""
        if step.operand is not None:
            detail = f": {step.operand} repeat {step.repeat}"
            if step.data_block is not None:
                detail += f", DataBlock {step.data_block}"
            detail += f", lane {step.lane}"
        lines.append(f"{head} {record.instruction} (seq {record.seq}, block {record.block}, {record.source}) "
                     f"at {where}{detail}")
    return lines
