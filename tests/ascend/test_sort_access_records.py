"""Access records of the sort family (sort32, mrg_sort, their C API, sort_with_config) are exact, on their
registered examples: every byte the call changes lies in the writes, the written bytes depend on no byte outside
reads + writes, and a merge records VMS4_SR among the registers it writes."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import by_name, instructions

from .test_elementwise_access_records import covered

SPAN = 0x4000


def run(snippet: str, image: bytes, chip: str = "A2"):
    """The example's setup, then its call: UB just before and just after the call, and the call's record."""
    body = ast.parse(snippet).body
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, image)
        namespace = {"asc": asc, "core": core, "np": np}
        exec(compile(ast.Module(body[:-1], []), "<setup>", "exec"), namespace)  # noqa: S102 - registry examples
        before = np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy()
        exec(compile(ast.Module(body[-1:], []), "<call>", "exec"), namespace)  # noqa: S102
        return before, np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy(), core.trace[-1]

CASES = [(entry.name, i) for entry in instructions("ascend") if entry.family == "sort" and entry.pipe == "V"
         for i in range(len(entry.examples))]


@pytest.mark.parametrize("name, index", CASES)
def test_access_record_is_exact(name, index):
    entry = by_name("ascend", name)
    snippet = entry.examples[index]
    chip = "A2" if "A2" in entry.products else sorted(entry.products)[0]  # a product that has it (as test_anatomy)
    rng = np.random.default_rng(index)
    image = rng.integers(0, 256, SPAN, dtype=np.uint8)
    before, after, record = run(snippet, image.tobytes(), chip)
    assert record.instruction == name
    writes, reads = covered(record.writes), covered(record.reads)
    changed = after != before
    assert not (changed & ~writes).any(), f"bytes changed outside the writes: {np.flatnonzero(changed & ~writes)[:8]}"
    assert writes.any() and reads.any()
    assert ("VMS4_SR" in record.registers_written) == name.startswith(("mrg_sort", "asc_mrgsort4"))
    other = image.copy()
    outside = ~(reads | writes)
    other[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)
    _, again, _ = run(snippet, other.tobytes(), chip)
    assert (again[writes] == after[writes]).all(), "the written bytes depend on bytes outside reads + writes"


def test_the_families_are_covered():
    assert {name for name, _ in CASES} == {"sort32", "asc_bitsort", "asc_bitsort_sync", "mrg_sort", "mrg_sort4",
                                           "asc_mrgsort4", "asc_mrgsort4_sync", "proposal_concat", "proposal_extract",
                                           "rp_sort16", "sort_with_config"}


def test_the_sort_lengths_touch_no_memory():
    with asc.Core("A2", trace=True) as core:
        assert asc.get_sort_len(100) == 200
        record = core.trace[-1]
    assert (record.instruction, record.pipe, record.reads, record.writes) == ("get_sort_len", "S", (), ())
