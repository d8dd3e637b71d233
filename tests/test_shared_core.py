"""The vendor-neutral core: errors, dtypes table, byte memory with its written-shadow."""

from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

from npusim.dtypes import DTYPES, by_name, from_numpy
from npusim.errors import ConstraintError, OutOfBoundsError, UninitializedReadError, UninitializedReadWarning
from npusim.memory import Memory


def test_error_message_names_all_five_facts():
    err = OutOfBoundsError("select", "src0 address", 0x44, "UB operands must be 32-byte aligned",
                           "multiples of 32", "docs/semantics.md §1.5")
    assert str(err) == ("select: src0 address = 0x44: UB operands must be 32-byte aligned; "
                        "allowed: multiples of 32 [docs/semantics.md §1.5]")
    assert isinstance(err, ConstraintError) and isinstance(err, ValueError)
    assert (err.instruction, err.operand, err.value) == ("select", "src0 address", 0x44)


@pytest.mark.parametrize("name,bits,kind", [
    ("int8", 8, "int"), ("uint8", 8, "uint"), ("int16", 16, "int"), ("uint16", 16, "uint"),
    ("int32", 32, "int"), ("uint32", 32, "uint"), ("int64", 64, "int"), ("uint64", 64, "uint"),
    ("float16", 16, "float"), ("bfloat16", 16, "float"), ("float32", 32, "float"),
])
def test_dtype_table(name, bits, kind):
    row = by_name(name)
    assert (row.bits, row.kind, row.itemsize) == (bits, kind, bits // 8)
    assert row.raw == np.dtype(f"<u{bits // 8}")
    assert from_numpy(row.np_dtype) is row


def test_bfloat16_is_ml_dtypes():
    assert DTYPES["bfloat16"].np_dtype == np.dtype(ml_dtypes.bfloat16)
    assert np.array([1.0], DTYPES["bfloat16"].np_dtype).view("<u2")[0] == 0x3F80


def test_unknown_dtype_names_known_ones():
    with pytest.raises(KeyError, match="float16"):
        by_name("float8")


def test_memory_tracks_written_bytes_and_reports_first_unwritten():
    mem = Memory(64, "UB")
    mem.write_bytes(0, bytes(range(10)))
    assert mem.read_bytes(0, 10) == bytes(range(10))
    with pytest.warns(UninitializedReadWarning, match="op: src reads never-written UB byte 0xa"):
        mem.check_initialized("op", "src", np.array([0, 1, 2]), 4)  # bytes 0..11; 10 is the first gap
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mem.check_initialized("op", "src", np.array([0, 1]), 4)


def test_memory_strict_and_ignore_policies():
    strict = Memory(64, "UB", uninit="raise")
    with pytest.raises(UninitializedReadError, match="0x8"):
        strict.check_initialized_span("op", "src", 8, 16)
    Memory(64, "UB", uninit="ignore").check_initialized_span("op", "src", 0, 64)


def test_memory_scatter_marks_written_and_last_duplicate_wins():
    mem = Memory(64, "UB")
    mem.scatter(np.array([1, 3, 1]), np.array([10, 20, 30], "<u4"))
    assert mem.typed(np.dtype("<u4"))[[1, 3]].tolist() == [30, 20]
    assert mem.written[4:8].all() and not mem.written[:4].any()


def test_forgetting_bytes_moves_the_shadow_epoch_only_where_some_were_written():
    """Memory.mark_undefined: the epoch (which cached "all written" checks rely on) moves when written bytes are
    forgotten, and stays when none of them was written: nothing changed."""
    mem = Memory(64, "UB")
    mem.scatter(np.arange(8), np.arange(8, dtype=np.uint8))
    mem.mark_undefined(np.arange(16, 24))  # never written
    assert mem.shadow_epoch == 0 and mem.written[:8].all()
    mem.mark_undefined(slice(4, 12))  # bytes 4..7 were written
    assert mem.shadow_epoch == 1 and not mem.written[4:12].any() and mem.written[:4].all()
    mem.mark_undefined(slice(4, 12))  # again: nothing left to forget
    assert mem.shadow_epoch == 1


def test_memory_bounds():
    mem = Memory(64, "UB")
    with pytest.raises(OutOfBoundsError, match=r"\[0x0, 0x40\)"):
        mem.write_bytes(60, bytes(8))
    assert not mem.written.any()
