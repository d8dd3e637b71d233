"""Every registered instruction's access records are exact, checked on each of its examples.

For every instruction of every vendor listed in :data:`VENDORS` (generated from the registry) and
each of its ``examples``, on cores whose memories hold random bytes, every byte marked written:

1. the call appends one record, naming the instruction and its pipe, with sorted, merged ranges;
2. every byte the call changes lies in the record's writes (and every register it changes in
   ``registers_written``);
3. a second core whose memory equals the first's inside reads + writes, and holds fresh random
   bytes everywhere else, writes the same bytes at the writes;
4. with every cache switched off the call gives the same bytes.

A vendor takes part with a small helper module (``tests/sophgo/poisoned_core.py``): ``VENDOR``,
``NAMESPACE`` (its module name for the examples), ``new_core()`` (a tracing core),
``memories(core)`` (``{(space, buffer): Memory}``, the arrays the ranges index) and
``registers(core)`` (name -> value); optionally ``setup_memories(namespace)``, the memories an example's setup
made (Ascend: the GM allocations its names hold), poisoned after the setup as the core's are before it.

The examples an instruction registers for one product (``Instruction.examples_on``) run the same way on a
core of that product: a vendor in :data:`PRODUCT_HELPERS` gives, per product name, a helper as above
(``tests/ascend/poisoned_core.on_product``; Ascend's own ``examples`` have their family's record tests,
``tests/ascend/test_*_records.py``), and so do the 950's AscendQuant and SoftMax examples
(``tests/ascend/adv_examples.py``: the ``asc.adv`` APIs are not registry instructions).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from npusim.engine import caches
from npusim.engine.registry import Instruction, instructions

from ..ascend import adv_examples
from ..ascend import poisoned_core as ascend
from ..sophgo import poisoned_core as sophgo

VENDORS: tuple[ModuleType, ...] = (sophgo,)
#: per vendor, the helper for a product's cores (its ``examples_on``)
PRODUCT_HELPERS: dict[str, Callable[[str], Any]] = {"ascend": ascend.on_product}
#: pipes a call form issues on besides its instruction's (data_copy's is the GM -> UB form's, MTE2;
#: tests/ascend/test_data_movement_records.py)
FORM_PIPES = {("ascend", "data_copy"): ("MTE3", "V"),
              # the 950's scalar form of asc_float2int32_* (docs/semantics.md §5.35)
              **{("ascend", f"asc_float2int32{suffix}"): ("S",) for suffix in ("_rn", "_rna", "_rd", "_ru")}}


def _cases():
    for helper in VENDORS:
        for entry in instructions(helper.VENDOR):
            for number, example in enumerate(entry.examples):
                yield pytest.param(helper, entry, example, id=f"{entry.name}[{number}]")
    for vendor, on_product in PRODUCT_HELPERS.items():
        for entry in (*instructions(vendor), *(adv_examples.ENTRIES if vendor == "ascend" else ())):
            for product, examples in entry.examples_on.items():
                for number, example in enumerate(examples):
                    yield pytest.param(on_product(product), entry, example, id=f"{entry.name}@{product}[{number}]")


CASES = list(_cases())


class Run:
    """One example on one core: its memory just before the call, just after, and the call's record."""

    def __init__(self, helper: ModuleType, entry: Instruction, example: str, seed: int, image: dict | None = None,
                 keep: dict | None = None) -> None:
        """``image``/``keep``: before the call, set the memory to ``image`` where ``keep`` is true."""
        statements = ast.parse(example).body
        setup, call = ast.Module(statements[:-1], []), ast.Module(statements[-1:], [])
        rng = np.random.default_rng(seed)
        self.core = core = helper.new_core()
        namespace = {**helper.NAMESPACE, "core": core}
        with core:
            self.memories = helper.memories(core)
            _poison(self.memories, rng)
            exec(compile(setup, f"<{entry.name} example>", "exec"), namespace)
            made = getattr(helper, "setup_memories", lambda namespace: {})(namespace)  # e.g. GM the setup allocated
            _poison(made, rng)
            self.memories = {**self.memories, **made}
            if image is not None:
                _poison(self.memories, rng)
                for key, memory in self.memories.items():
                    memory.data[keep[key]] = image[key][keep[key]]
            self.before = _contents(self.memories)
            self.registers_before = helper.registers(core)
            records = len(core.trace)
            exec(compile(call, f"<{entry.name} example>", "exec"), namespace)
            assert len(core.trace) == records + 1, "the call must append exactly one access record"
        self.record = core.trace[-1]
        self.after = _contents(self.memories)
        self.registers_after = helper.registers(core)

    def covered(self, *kinds: str) -> dict:
        """Per memory, a mask of the bytes in the record's ranges of these kinds (``"reads"``, ``"writes"``)."""
        masks = {key: np.zeros(memory.size_bytes, dtype=bool) for key, memory in self.memories.items()}
        for kind in kinds:
            for space, start, stop, buffer in getattr(self.record, kind):
                masks[(space, buffer)][start:stop] = True
        return masks


def _poison(memories: dict, rng: np.random.Generator) -> None:
    for memory in memories.values():
        memory.data[:] = np.frombuffer(rng.bytes(memory.size_bytes), dtype=np.uint8)
        memory.written[:] = 1


def _contents(memories: dict) -> dict:
    return {key: memory.data.copy() for key, memory in memories.items()}


def _changed_outside(run: Run, mask: dict) -> list[str]:
    problems = []
    for key, before in run.before.items():
        changed = np.flatnonzero((before != run.after[key]) & ~mask[key])
        if changed.size:
            problems.append(f"{key}: {changed.size} changed bytes outside the writes, first at {changed[0]:#x}")
    return problems


def test_every_registered_instruction_has_an_example_ending_in_its_call():
    for helper in VENDORS:
        entries = instructions(helper.VENDOR)
        assert entries, f"no {helper.VENDOR} instruction is registered"
        for entry in entries:
            assert entry.examples, f"{entry.name} has no example"
            for example in entry.examples:
                last = ast.parse(example).body[-1]
                assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call), example
                assert ast.unparse(last.value.func).endswith(f".{entry.name}"), example


def test_every_product_example_names_a_product_that_has_the_instruction_and_ends_in_its_call():
    for vendor in ("ascend", "sophgo"):
        for entry in instructions(vendor):
            for product, examples in entry.examples_on.items():
                assert vendor in PRODUCT_HELPERS, f"{entry.name}: no helper runs {vendor}'s product examples"
                assert product in entry.products, f"{entry.name}: {product} does not have it"
                for example in examples:
                    last = ast.parse(example).body[-1]
                    assert isinstance(last, ast.Expr) and isinstance(last.value, ast.Call), example
                    assert ast.unparse(last.value.func).endswith(f".{entry.name}"), example


@pytest.mark.parametrize(("helper", "entry", "example"), CASES)
def test_the_record_names_the_call_and_every_changed_byte_lies_in_its_writes(helper, entry, example):
    run = Run(helper, entry, example, seed=1)
    record = run.record
    assert (record.instruction, record.vendor) == (entry.name, entry.vendor)
    assert record.pipe in (entry.pipe, *FORM_PIPES.get((entry.vendor, entry.name), ()))
    # the scalar unit's computations return a number and write nothing (docs/semantics.md §5.35)
    assert record.writes or entry.family == "scalar" or record.pipe == "S" and entry.family == "cast", \
        "the examples write something"
    for ranges in (record.reads, record.writes):
        assert list(ranges) == sorted(ranges, key=lambda r: (r.space, r.buffer or "", r.start))
        for first, second in zip(ranges, ranges[1:], strict=False):
            assert (first.space, first.buffer) != (second.space, second.buffer) or first.stop < second.start
        assert all(r.start < r.stop for r in ranges)
    assert not _changed_outside(run, run.covered("writes"))
    changed = {name for name, value in run.registers_after.items() if run.registers_before.get(name) != value}
    assert changed <= set(record.registers_written)


@pytest.mark.parametrize(("helper", "entry", "example"), CASES)
def test_the_written_bytes_depend_on_nothing_outside_the_reads_and_writes(helper, entry, example):
    first = Run(helper, entry, example, seed=1)
    keep = first.covered("reads", "writes")
    second = Run(helper, entry, example, seed=2, image=first.before, keep=keep)
    assert second.record.reads == first.record.reads and second.record.writes == first.record.writes
    for key, mask in keep.items():
        outside = ~mask
        assert not np.array_equal(second.before[key][outside], first.before[key][outside]) or not outside.any()
    writes = first.covered("writes")
    for key, mask in writes.items():
        differ = np.flatnonzero((first.after[key] != second.after[key]) & mask)
        assert differ.size == 0, f"{key}: written bytes differ at {differ[:8]}: they read outside the record"
    assert not _changed_outside(second, writes)


@pytest.mark.parametrize(("helper", "entry", "example"), CASES)
def test_the_call_gives_the_same_bytes_with_every_cache_off(helper, entry, example):
    cached = Run(helper, entry, example, seed=1)
    everything = {key: np.ones(data.size, dtype=bool) for key, data in cached.before.items()}
    with caches.disabled():
        uncached = Run(helper, entry, example, seed=3, image=cached.before, keep=everything)
    assert uncached.record.writes == cached.record.writes and uncached.record.reads == cached.record.reads
    for key, after in cached.after.items():
        assert np.array_equal(uncached.after[key], after), key
