"""Access records of copy, transpose, brcb, gather and scatter are exact, checked on their registered examples.

As for the element-wise instructions (test_elementwise_access_records.py): every byte a call changes lies
in the record's ``writes``, the written bytes depend on no byte outside ``reads`` + ``writes``, and the
record names the registers the lowering leaves.  Each example runs on a product that has the instruction.
"""

from __future__ import annotations

import ast

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import by_name

from .test_elementwise_access_records import SPAN, covered

C_API = ("asc_copy", "asc_copy_sync", "asc_transpose", "asc_transpose_sync", "asc_brcb", "asc_brcb_sync",
         "asc_gather", "asc_gather_sync", "asc_reduce", "asc_reduce_sync", "asc_gather_datablock",
         "asc_gather_datablock_sync")
CHIPS = {"copy": "A2", "transpose": "A2", "brcb": "A2", "gather": "A2", "scatter": "310P", "gather_mask": "A2",
         "gatherb": "A2",
         **{name: "A2" for name in C_API}}


def run(chip: str, snippet: str, image: np.ndarray, overwrite: np.ndarray | None = None):
    """UB := ``image``, the example's setup, then (if given) UB := ``image`` where ``overwrite``, then its
    call: UB just before and just after the call, and the call's record."""
    statements = ast.parse(snippet).body
    setup, call = ast.Module(statements[:-1], []), ast.Module(statements[-1:], [])
    with asc.Core(chip, trace=True) as core:
        namespace = {"asc": asc, "np": np, "core": core}
        core.ub_write(0, image.tobytes())
        exec(compile(setup, "<example>", "exec"), namespace)  # noqa: S102 - the registry's own examples
        before = np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy()
        if overwrite is not None:
            before[overwrite] = image[overwrite]
            core.ub_write(0, before.tobytes())
        exec(compile(call, "<example>", "exec"), namespace)  # noqa: S102
        return before, np.frombuffer(core.ub_read(0, SPAN), np.uint8).copy(), core.trace[-1]


CASES = [(name, i) for name in CHIPS for i in range(len(by_name("ascend", name).examples))]


@pytest.mark.parametrize("name, index", CASES)
def test_access_record_is_exact(name, index):
    snippet = by_name("ascend", name).examples[index]
    rng = np.random.default_rng(index)
    image = rng.integers(0, 256, SPAN, dtype=np.uint8)
    before, after, record = run(CHIPS[name], snippet, image)
    assert record.instruction == name
    writes, reads = covered(record.writes), covered(record.reads)
    changed = after != before
    assert not (changed & ~writes).any(), f"bytes changed outside the writes: {np.flatnonzero(changed & ~writes)[:8]}"
    assert writes.any() and reads.any()
    outside = ~(reads | writes)
    other = rng.integers(0, 256, SPAN, dtype=np.uint8)
    _, again, _ = run(CHIPS[name], snippet, np.where(outside, other, image).astype(np.uint8), outside)
    assert (again[writes] == after[writes]).all(), "the written bytes depend on bytes outside reads + writes"


def test_registers_in_the_records():
    with asc.Core("A2", trace=True) as core:
        exec(by_name("ascend", "copy").examples[0], {"asc": asc, "core": core})  # noqa: S102
        assert core.trace[-1].registers_written == ("MASK",) and "MASK_MODE" in core.trace[-1].registers_read
        exec(by_name("ascend", "brcb").examples[0], {"asc": asc, "core": core})  # noqa: S102
        assert core.trace[-1].registers_written == ("MASK",)
        exec(by_name("ascend", "transpose").examples[0], {"asc": asc, "core": core})  # noqa: S102
        assert core.trace[-1].registers_written == () and core.trace[-1].registers_read == ()
