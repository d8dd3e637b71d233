"""Access records of ``cast`` and its C API functions are exact, checked on their registered examples.

As for the element-wise instructions (test_elementwise_access_records.py): every byte the call
changes lies in the record's ``writes``, and the written bytes depend on no byte outside ``reads`` +
``writes``.  The reads are exactly the source lanes' bytes: a half -> int32 call reads 2 bytes per lane.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import by_name, instructions
from npusim.engine.trace import ByteRange

from .test_elementwise_access_records import chip_of, covered, run_from_setup

CASES = [(entry.name, i) for entry in instructions("ascend")
         if entry.family == "cast" or entry.name in ("add_relu_cast", "sub_relu_cast", "mul_cast")
         for i in range(len(entry.examples))]


@pytest.mark.parametrize("name, index", CASES)
def test_access_record_is_exact(name, index):
    snippet = by_name("ascend", name).examples[index]
    rng = np.random.default_rng(index)
    image = rng.integers(0, 256, 0x4000, dtype=np.uint8)
    chip = chip_of(snippet)  # truncate is the 950's
    before, after, record = run_from_setup(snippet, image.tobytes(), chip)  # setup may write (set_deq_scale's table)
    assert record.instruction == name
    writes, reads = covered(record.writes), covered(record.reads)
    changed = after != before
    assert not (changed & ~writes).any(), f"bytes changed outside the writes: {np.flatnonzero(changed & ~writes)[:8]}"
    assert writes.any() and reads.any()
    other = image.copy()
    outside = ~(reads | writes)
    other[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)
    _, again, _ = run_from_setup(snippet, other.tobytes(), chip)
    assert (again[writes] == after[writes]).all(), "the written bytes depend on bytes outside reads + writes"


def test_the_record_of_a_two_size_call():
    """cast half -> int32 of 300 lanes: 600 bytes read, 1200 written; the count form leaves the mask registers."""
    with asc.Core("A2", trace=True) as core:
        x = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        z = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 1024, 512)
        x.write(np.zeros(512))
        asc.cast(z, x, asc.RoundMode.CAST_RINT, 300)
        record = core.trace[-1]
    assert record.reads == (ByteRange("UB", 0, 600),) and record.writes == (ByteRange("UB", 1024, 2224),)
    assert set(record.registers_written) == {"MASK", "MASK_MODE"} and "CTRL" not in record.registers_read
