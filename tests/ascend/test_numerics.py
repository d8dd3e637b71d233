"""Per-product floating-point behaviour of the vector arithmetic (docs/numerics.md), from the documents.

The expectations are transcribed here from the Ascend pages, not read back from
``asc.CHIPS``: 特殊寄存器访问/SetCtrlSpr(ISASI).md tables 3-5 (which float computations
saturate in the power-on state), SetSaturationFlag(ISASI).md "产品支持情况" (where the
switch exists), Reg矢量计算/基础算术/Max.md and Min.md "约束说明" (signed zeros on the 950).
Products the documents say nothing about are expected to compute IEEE results.
"""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.errors import UnsupportedError

# float types whose computed results saturate by default (inf -> +-MAX, NaN -> 0), per product row
SATURATING_BY_DEFAULT = {
    "950": {"float16"},                # table 3: CTRL[60] = 1, CTRL[48] = 0; "浮点数计算时支持half"
    "A3": {"float16", "bfloat16"},     # table 4
    "A2": {"float16", "bfloat16"},     # table 5
    "310B": set(), "310P": set(), "910": set(), "KirinX90": set(), "Kirin9030": set(),  # not documented
    "310P-VEC": set(),                 # no vector arithmetic
}
SATURATION_SWITCH = {"A2", "A3"}       # SetSaturationFlag(ISASI).md: 支持 on A2/A3 only (950: 不支持)

HALF_MAX, HALF_INF, HALF_QNAN = 0x7BFF, 0x7C00, 0x7E00


def _lanes(chip: str, op: str, dtype, *operands: int) -> int:
    """One lane of ``op`` on raw operand bits (every lane of a 32-byte block holds the same value)."""
    size = dtype.itemsize
    with asc.Core(chip) as core:
        tensors = []
        for i, bits in enumerate((*operands, 0)):
            core.ub_write(32 * i, bits.to_bytes(size, "little") * (32 // size))
            tensors.append(asc.LocalTensor(dtype, asc.TPosition.VECCALC, 32 * i, 32 // size))
        getattr(asc, op)(tensors[-1], *tensors[:-1], 32 // size)
        return int.from_bytes(core.ub_read(32 * len(operands), size), "little")


def test_every_product_row_has_a_documented_expectation():
    assert set(SATURATING_BY_DEFAULT) == set(asc.CHIPS)


HALF_CHIPS = sorted(set(SATURATING_BY_DEFAULT) - {"310P-VEC"})  # Add/Sub/Abs/Max.md list half on all others


@pytest.mark.parametrize("chip", HALF_CHIPS)
def test_half_overflow_and_nan_results_per_product(chip):
    saturating = "float16" in SATURATING_BY_DEFAULT[chip]
    assert _lanes(chip, "add", asc.half, HALF_MAX, HALF_MAX) == (HALF_MAX if saturating else HALF_INF)
    assert _lanes(chip, "sub", asc.half, 0xFBFF, HALF_MAX) == (0xFBFF if saturating else 0xFC00)
    assert _lanes(chip, "sub", asc.half, HALF_INF, HALF_INF) == (0x0000 if saturating else HALF_QNAN)  # inf - inf
    # "inf输出会被饱和为±MAX": an infinite input that reaches the output saturates too
    assert _lanes(chip, "abs", asc.half, 0xFC00) == (HALF_MAX if saturating else HALF_INF)
    assert _lanes(chip, "max", asc.half, HALF_INF, 0x3C00) == (HALF_MAX if saturating else HALF_INF)
    # a NaN input gives a NaN result: 0 when saturating, else the canonical quiet NaN (sign and payload dropped)
    assert _lanes(chip, "add", asc.half, 0xFD01, 0x3C00) == (0x0000 if saturating else HALF_QNAN)


@pytest.mark.parametrize("chip", ["A2", "310P"])  # one saturating by default, one not
@pytest.mark.parametrize("op", ["maxs", "mins"])
def test_a_nan_or_infinite_scalar_operand_meets_the_rules(chip, op):
    """The scalar of Maxs/Mins is an operand like a tensor's lanes: a NaN scalar makes every result NaN (0 when
    saturating), an infinite one that is chosen saturates to ±MAX."""
    saturating = "float16" in SATURATING_BY_DEFAULT[chip]
    with asc.Core(chip) as core:
        core.ub_write(0, (0x3C00).to_bytes(2, "little") * 16)  # 1.0 in every lane
        x, z = (asc.LocalTensor(asc.half, asc.TPosition.VECCALC, a, 16) for a in (0, 32))
        function = getattr(asc, op)
        function(z, x, float("nan"), 16)
        assert core.ub_read(32, 32) == (0 if saturating else HALF_QNAN).to_bytes(2, "little") * 16
        function(z, x, float("inf") if op == "maxs" else float("-inf"), 16)
        chosen = (HALF_MAX if saturating else HALF_INF) | (0 if op == "maxs" else 0x8000)
        assert core.ub_read(32, 32) == chosen.to_bytes(2, "little") * 16


def test_950_bfloat16_and_every_float32_result_are_not_saturated():
    assert _lanes("950", "add", asc.bfloat16, 0x7F7F, 0x7F7F) == 0x7F80  # table 3 lists half only
    assert _lanes("950", "mul", asc.bfloat16, 0x7F80, 0x0000) == 0x7FC0
    for chip in ("950", "A2"):
        assert _lanes(chip, "add", asc.float32, 0x7F7FFFFF, 0x7F7FFFFF) == 0x7F800000


@pytest.mark.parametrize("chip", sorted(asc.CHIPS))
def test_saturation_switch_exists_where_documented(chip):
    with asc.Core(chip) as core:
        if chip in SATURATION_SWITCH:
            assert asc.get_saturation_flag() is True  # CTRL[48] = 0 at power-on
            asc.set_saturation_flag(False)
            assert asc.get_saturation_flag() is False
            core.ub_write(0, HALF_MAX.to_bytes(2, "little") * 16)
            x, z = (asc.LocalTensor(asc.half, asc.TPosition.VECCALC, a, 16) for a in (0, 32))
            asc.add(z, x, x, 16)
            assert int.from_bytes(core.ub_read(32, 2), "little") == HALF_INF
        else:
            with pytest.raises(UnsupportedError, match="SetSaturationFlag"):
                asc.set_saturation_flag(False)


def test_signed_zeros_and_subnormals():
    # Reg Max.md / Min.md (950): max(-0, +0) = +0, min(-0, +0) = -0
    assert _lanes("950", "max", asc.half, 0x8000, 0x0000) == 0x0000
    assert _lanes("950", "min", asc.half, 0x0000, 0x8000) == 0x8000
    # IEEE 754 round to nearest: x + (-x) = +0, -0 + -0 = -0
    assert _lanes("A2", "add", asc.half, 0x3C00, 0xBC00) == 0x0000
    assert _lanes("A2", "add", asc.half, 0x8000, 0x8000) == 0x8000
    # subnormals are kept: 3 * 2**-24 * 0.5 = 1.5 * 2**-24, a tie, to even 2 * 2**-24
    assert _lanes("A2", "mul", asc.half, 0x0003, 0x3800) == 0x0002
    assert _lanes("A2", "mul", asc.half, 0x0001, 0x3800) == 0x0000  # 0.5 * 2**-24: a tie, to even 0


def test_duplicate_is_not_a_computation_and_never_saturates():
    with asc.Core("A2") as core:
        t = asc.LocalTensor(asc.half, asc.TPosition.VECOUT, 0, 16)
        asc.duplicate(t, float("inf"), 16)
        assert core.ub_read(0, 2) == HALF_INF.to_bytes(2, "little")
