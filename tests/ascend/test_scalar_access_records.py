"""Access records of the scalar unit's computations (docs/semantics.md §5.35): every example of every entry of
the ``scalar`` family, on a product that has it, issues on pipe S, reads and writes no memory, changes no UB byte
and no register (nop: only its pipe barrier), and records what it returns nothing of."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.engine.registry import instructions

from .poisoned_core import registers

ENTRIES = [entry for entry in instructions("ascend") if entry.family == "scalar"]
CASES = [(entry.name, "A2" if "A2" in entry.products else "950", snippet) for entry in ENTRIES
         for snippet in entry.examples]
CASES += [(entry.name, product, snippet) for entry in ENTRIES for product, snippets in entry.examples_on.items()
          for snippet in snippets]


@pytest.mark.parametrize(("name", "chip", "snippet"), CASES)
def test_a_scalar_call_touches_no_memory_and_no_register(name, chip, snippet):
    rng = np.random.default_rng(len(snippet))
    with asc.Core(chip, trace=True) as core:
        core.ub_write(0, rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())
        before_ub, before_registers, before_sync = core.ub_read(0, core.chip.ub_bytes), registers(core), \
            len(core.sync_log)
        exec(snippet, {"asc": asc, "core": core, "np": np})  # noqa: S102 - the registry's own examples
        record = core.trace[-1]
        assert (record.instruction, record.pipe, record.reads, record.writes, record.registers_written) \
            == (name, "S", (), (), ())
        assert core.ub_read(0, core.chip.ub_bytes) == before_ub and registers(core) == before_registers
        barriers = [entry.kind for entry in core.sync_log[before_sync:]]
        assert barriers == (["pipe_barrier"] if snippet == "asc.nop(10)" or snippet == "asc.nop()" else [])


def test_the_family_is_covered():
    assert {entry.name for entry in ENTRIES} == {
        "scalar_get_count_of_value", "scalar_count_leading_zero", "count_bits_cnt_same_as_sign_bit",
        "scalar_get_sff_value", "asc_popc", "asc_zero_bits_cnt", "asc_clz", "asc_sflbits", "asc_ffs", "asc_ffz",
        "asc_set_nthbit", "asc_clear_nthbit", "ceil_division", "nop", "scalar_cast", "to_bfloat16", "to_float"}


def test_the_half_cast_reads_ctrl():
    with asc.Core("A2", trace=True) as core:
        asc.scalar_cast(1.0, asc.half, asc.RoundMode.CAST_ODD)
        assert core.trace[-1].registers_read == ("CTRL",)
        asc.scalar_cast(1.0, asc.int32, asc.RoundMode.CAST_RINT)
        assert core.trace[-1].registers_read == ()
