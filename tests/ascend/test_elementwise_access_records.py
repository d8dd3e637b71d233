"""Access records of every element-wise instruction are exact, checked on its registered examples.

For each ``Instruction.examples`` snippet (count, contiguous-mask and bit-wise-mask forms): every
byte the call changes lies in the record's ``writes``, and the written bytes depend on no byte
outside ``reads`` + ``writes`` (re-randomising every other byte changes none of them).  The
multiply-adds read their dst, so it must be among the reads.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.ops.elementwise import VECTOR_OPS
from npusim.engine.registry import by_name
from npusim.errors import UnsupportedError

SPAN = 0x4000  # the examples' tensors lie below this


def covered(ranges) -> np.ndarray:
    mask = np.zeros(SPAN, bool)
    for r in ranges:
        assert r.space == "UB" and r.stop <= SPAN, r
        mask[r.start:r.stop] = True
    return mask


def run(snippet: str, image: bytes, chip: str = "A2"):
    """UB just after the example (from ``image``), and the call's record."""
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, image)
        exec(snippet, {"asc": asc, "core": core, "np": np})  # noqa: S102 - the registry's own examples
        return np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy(), core.trace[-1]


def run_from_setup(snippet: str, image: bytes, chip: str = "A2"):
    """UB just before the example's call (its setup lines may write: the shifts' amounts), just after, and the
    call's record."""
    setup, call = snippet.rsplit("\n", 1)
    namespace = {"asc": asc, "np": np}
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, image)
        exec(setup, namespace)  # noqa: S102 - the registry's own examples
        before = np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy()
        exec(call, namespace)  # noqa: S102
        return before, np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy(), core.trace[-1]


def chip_of(snippet: str) -> str:
    """The A2, where the examples are written for, or the 950 for an instruction only it has (the 950's own forms
    of the others are their ``examples_on["950"]``, checked in tests/engine/test_access_records.py)."""
    try:
        run(snippet, bytes(SPAN))
    except UnsupportedError as error:
        if error.operand == "product":
            return "950"
    return "A2"


CASES = [(name, i) for name in VECTOR_OPS for i in range(len(by_name("ascend", name).examples))]


@pytest.mark.parametrize("name, index", CASES)
def test_access_record_is_exact(name, index):
    snippet = by_name("ascend", name).examples[index]
    rng = np.random.default_rng(index)
    image = rng.integers(0, 256, SPAN, dtype=np.uint8)
    chip = chip_of(snippet)
    image, after, record = run_from_setup(snippet, image.tobytes(), chip)
    assert record.instruction == name
    writes, reads = covered(record.writes), covered(record.reads)
    changed = after != image
    assert not (changed & ~writes).any(), f"bytes changed outside the writes: {np.flatnonzero(changed & ~writes)[:8]}"
    assert writes.any()
    if VECTOR_OPS[name].reads_dst:
        assert (writes <= reads).all(), "a multiply-add reads every byte it writes"
    other = image.copy()
    outside = ~(reads | writes)
    other[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)
    _, again, _ = run_from_setup(snippet, other.tobytes(), chip)
    assert (again[writes] == after[writes]).all(), "the written bytes depend on bytes outside reads + writes"
