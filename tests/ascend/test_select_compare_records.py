"""Access records of Select, Compare, CompareScalar and their C-API aliases, from their registered examples.

Each example (``Instruction.examples``) runs on a tracing A2 core whose UB holds random bytes,
all marked written, and whose CMPMASK is set.  The last call's record must be *exact*: every UB
byte and register the call changes lies in its writes / ``registers_written``, and a second run
with every UB byte outside reads + writes randomised (and CMPMASK too, when the record does not
read it) writes the same bytes.  For one example per call form the record is also the one worked
out here from the example's parameters (Select.md, Compare.md, Compares.md, asc_select.md,
asc_ne_scalar.md; docs/semantics.md §1.1, §2.3, §3.1, §3.5).
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import by_name, instructions
from npusim.engine.trace import ByteRange

FAMILIES = ("select", "compare")
CASES = [(entry.name, index) for entry in instructions("ascend") if entry.family in FAMILIES
         for index in range(len(entry.examples))]
SCRATCH = 0x30000 - 0x2000  # A2: the API scratch is the top 8 KiB of the 192 KiB UB (Select.md 约束说明)
ALL_REGISTERS = ("CMPMASK", "MASK", "MASK_MODE")


def ub(*runs):
    return tuple(ByteRange("UB", a, b) for a, b in runs)


#: (instruction, example index) -> (reads, writes, registers read, registers written)
EXPECTED = {
    # count form, mode 2, 256 float32: src0, src1 1 KiB each, 32 selMask bytes; 32 copies of selMask's address
    # (4 B each) in the scratch, CMPMASK loaded from there; the count form ends in normal mode, mask all ones
    ("select", 0): (ub((0, 0x820)), ub((0xC00, 0x1000), (SCRATCH, SCRATCH + 128)), (),
                    ("CMPMASK", "MASK", "MASK_MODE")),
    # mask form, mode 1, 64 lanes x 4 repeats: src0 1 KiB, 4 x 8 selMask bytes; 32 float32 scalar copies
    ("select", 1): (ub((0, 0x400), (0x800, 0x820)), ub((0xC00, 0x1000), (SCRATCH, SCRATCH + 128)), ("MASK_MODE",),
                    ("CMPMASK", "MASK")),
    # no-mask forms: lanes, the scalar (mode 1) and the bits (mode 0) come from the registers
    ("select", 2): (ub((0, 0x400), (0x800, 0x820)), ub((0xC00, 0x1000)), ALL_REGISTERS, ()),
    ("select", 3): (ub((0, 0x800)), ub((0xC00, 0x1000)), ALL_REGISTERS, ()),
    # 256 halves = 2 repeats, 16 packed bytes each; the A2 compare mask is reserved (every bit written)
    ("compare", 0): (ub((0, 0x400)), ub((0x400, 0x420)), ("MASK_MODE",), ()),
    ("compare", 1): (ub((0, 0x400)), ub((0x400, 0x420)), ("MASK_MODE",), ()),
    # to CMPMASK, 100 active lanes: 200 bytes of each source; the other bits keep CMPMASK's value
    ("compare", 2): (ub((0, 0xC8), (0x200, 0x2C8)), (), ("CMPMASK", "MASK_MODE"), ("CMPMASK", "MASK")),
    ("compare_scalar", 0): (ub((0, 0x200)), ub((0x400, 0x420)), ("MASK_MODE",), ()),
    # C API: the bare instructions; count form: set_mask_count, set_vector_mask(0, 200), vsel, set_mask_norm
    ("asc_select", 0): (ub((0, 0x190), (0x200, 0x390)), ub((0x400, 0x590)), ("CMPMASK",), ("MASK", "MASK_MODE")),
    ("asc_select", 1): (ub((0, 0x400)), ub((0x400, 0x600)), ALL_REGISTERS, ()),
    ("asc_ne", 0): (ub((0, 0x400)), ub((0x400, 0x420)), ("MASK_MODE",), ()),
    ("asc_ne", 1): (ub((0, 0x100), (0x200, 0x300)), (), ALL_REGISTERS, ("CMPMASK",)),
    ("asc_ne_scalar", 0): (ub((0, 0x200)), ub((0x400, 0x420)), ("MASK_MODE",), ()),
}


def registers(core: asc.Core) -> dict:
    return {"CMPMASK": bytes(core.cmpmask), "MASK": core.mask_words, "MASK_MODE": core.mask_mode}


def inside(ranges, size: int) -> np.ndarray:
    mask = np.zeros(size, bool)
    for r in ranges:
        assert r.space == "UB", r
        mask[r.start : r.stop] = True
    return mask


def run_example(snippet: str, seed: int, keep=None, image=None, registers_image=None, randomise_cmpmask=False):
    """Run the example on a poisoned core; with ``keep``, just before the call set UB to ``image`` where
    ``keep`` is true, elsewhere to fresh random bytes, and the registers to ``registers_image``.
    Returns the call's record, UB before and after it, and the registers before and after."""
    *setup, call = snippet.rstrip().splitlines()
    rng = np.random.default_rng(seed)
    with asc.Core("A2", trace=True) as core:
        core.ub.data[:] = rng.integers(0, 256, core.ub.size_bytes, dtype=np.uint8)
        core.ub.written[:] = 1
        core.load_cmpmask(bytes(16))
        namespace = {"asc": asc, "np": np, "core": core}
        exec("\n".join(setup), namespace)  # noqa: S102 - the registry's own examples
        if keep is not None:
            core.ub.data[:] = rng.integers(0, 256, core.ub.size_bytes, dtype=np.uint8)
            core.ub.data[keep] = image[keep]
            core.load_cmpmask(registers_image["CMPMASK"])
            core.set_mask_words(*registers_image["MASK"])
            core.set_mask_mode(registers_image["MASK_MODE"])
            if randomise_cmpmask:
                core.load_cmpmask(rng.bytes(16))
        before, registers_before = core.ub.data.copy(), registers(core)
        del core.trace[:]
        exec(call, namespace)  # noqa: S102
        (record,) = core.trace
        return record, before, core.ub.data.copy(), registers_before, registers(core)


def test_every_form_has_an_example():
    for name in {name for name, _ in CASES}:
        entry = by_name("ascend", name)  # the 950's flexible-scalar forms have 950 examples (examples_on)
        assert len(entry.examples) + sum(map(len, entry.examples_on.values())) >= len(entry.forms), name


@pytest.mark.parametrize(("name", "index"), sorted(EXPECTED))
def test_the_record_is_the_documented_one(name, index):
    record, *_ = run_example(by_name("ascend", name).examples[index], seed=1)
    assert (record.instruction, record.pipe) == (name, "V")
    assert (record.reads, record.writes, record.registers_read, record.registers_written) == EXPECTED[(name, index)]


@pytest.mark.parametrize(("name", "index"), CASES)
def test_the_record_is_exact(name, index):
    snippet = by_name("ascend", name).examples[index]
    record, before, after, registers_before, registers_after = run_example(snippet, seed=1)
    written = inside(record.writes, before.size)
    changed = np.flatnonzero(before != after)
    assert written[changed].all(), f"changed outside the writes at {changed[~written[changed]][:8]}"
    changed_registers = {r for r in ALL_REGISTERS if registers_before[r] != registers_after[r]}
    assert changed_registers <= set(record.registers_written)

    keep = inside(record.reads, before.size) | written
    again, before2, after2, *_ = run_example(snippet, seed=2, keep=keep, image=before,
                                              registers_image=registers_before,
                                              randomise_cmpmask="CMPMASK" not in record.registers_read)
    assert (again.reads, again.writes) == (record.reads, record.writes)
    assert not np.array_equal(before2[~keep], before[~keep])
    assert np.array_equal(after2[written], after[written]), "the written bytes depend on bytes outside the record"
