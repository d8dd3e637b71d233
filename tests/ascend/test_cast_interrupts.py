"""``cast`` and its C API interrupted anywhere (KeyboardInterrupt, MemoryError) have changed nothing
(the sweep of tests/ascend/test_interrupted_calls.py: UB, its shadow, the mask registers as before, or
exactly as the uninterrupted call leaves them once its commit has begun)."""

from __future__ import annotations

import pytest

from npusim import ascend as asc

from .interrupts import Machine, sweep
from .test_interrupted_calls import core_with_data, t

R, VECOUT = asc.RoundMode, asc.TPosition.VECOUT
CASES = {
    "count, half -> int32 (dst, mask registers)": lambda d, h, f: asc.cast(d, h, R.CAST_RINT, 300),
    "mask, strided": lambda d, h, f: asc.cast(d, h, R.CAST_FLOOR, 64, 3, asc.UnaryRepeatParams(2, 1, 16, 4)),
    "bitwise mask, float -> half": lambda d, h, f: asc.cast(h, f, R.CAST_ODD, [0xF0F0, 0], 2,
                                                            asc.UnaryRepeatParams(1, 1, 4, 8)),
    "C API count (mask (count, 0), normal mode)": lambda d, h, f: asc.asc_half2int32_rz(d, h, 200),
    "C API sync (a barrier)": lambda d, h, f: asc.asc_float2half_rna_sync(h, f, 100),
    "add_relu_cast, float -> half, mask": lambda d, h, f: asc.add_relu_cast(h, f, f, 64, 2,
                                                                           asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)),
}


@pytest.mark.parametrize("form", sorted(CASES))
def test_cast(form):
    core = core_with_data("A2")
    with core:
        dst, half, single = t(asc.int32, 0x1000, 1024, VECOUT), t(asc.float16, 0x3000, 512), t(asc.float32, 0x4000, 256)
    assert sweep(Machine(core), lambda: CASES[form](dst, half, single), fresh_plans=True)


INT4_CASES = {
    "half -> int4b_t, count (packed dst, mask registers)": lambda q, h: asc.cast(q, h, R.CAST_RINT, 300),
    "int4b_t -> half, mask, strided": lambda q, h: asc.cast(h, q, R.CAST_NONE, 64, 3,
                                                            asc.UnaryRepeatParams(2, 1, 16, 2)),
    "half -> int4b_t, bitwise mask": lambda q, h: asc.cast(q, h, R.CAST_FLOOR, [0x0F0F, 0x3], 2,
                                                           asc.UnaryRepeatParams(1, 1, 2, 8)),
    "asc_half2int4_rna_sync": lambda q, h: asc.asc_half2int4_rna_sync(q, h, 200),
    "asc_int42half, repeat": lambda q, h: asc.asc_int42half(h, q, 2, 1, 1, 8, 2),
}


@pytest.mark.parametrize("form", sorted(INT4_CASES))
def test_cast_int4(form):
    core = core_with_data("A2")
    with core:
        core.set_mask_words((1 << 64) - 1, (1 << 64) - 1)  # asc_int42half's repeat form reads the register
        packed, half = t(asc.int4b_t, 0x1000, 1024, VECOUT), t(asc.float16, 0x3000, 1024)
    assert sweep(Machine(core), lambda: INT4_CASES[form](packed, half), fresh_plans=True)


FP4_CASES = {
    "bfloat16 -> fp4x2_e2m1_t, count (packed dst, mask registers)": lambda q, b: asc.cast(q, b, R.CAST_RINT, 300),
    "fp4x2_e2m1_t -> bfloat16, mask, strided": lambda q, b: asc.cast(b, q, R.CAST_NONE, 64, 3,
                                                                     asc.UnaryRepeatParams(2, 1, 16, 2)),
    "bfloat16 -> fp4x2_e2m1_t, bitwise mask": lambda q, b: asc.cast(q, b, R.CAST_FLOOR, [0x0F0F, 0x3], 2,
                                                                    asc.UnaryRepeatParams(1, 1, 2, 8)),
}


@pytest.mark.parametrize("form", sorted(FP4_CASES))
def test_cast_fp4(form):
    """The 950's fp4x2_e2m1_t lines (docs/semantics.md §5.33): the random UB is taken as bfloat16 and fp4 lanes."""
    core = core_with_data("950")
    with core:
        packed, bf16 = t(asc.fp4x2_e2m1_t, 0x1000, 1024, VECOUT), t(asc.bfloat16, 0x3000, 1024)
    assert sweep(Machine(core), lambda: FP4_CASES[form](packed, bf16), fresh_plans=True)
