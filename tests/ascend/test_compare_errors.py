"""Bad input to the Compare family: one ConstraintError per rule, UB and registers unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import (
    AlignmentError,
    NoActiveCoreError,
    OutOfBoundsError,
    OverlapError,
    ParameterRangeError,
    UninitializedReadError,
    UninitializedReadWarning,
    UnsupportedError,
    WrongCoreError,
)

from .conftest import assert_fields

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
BIN = asc.BinaryRepeatParams
UN = asc.UnaryRepeatParams
LT, EQ, NE = asc.CMPMODE.LT, asc.CMPMODE.EQ, asc.CMPMODE.NE
C = "compare"


def setup(chip: str = "A2", dtype=asc.float32, strict: bool = False):
    """A core with src0 (0x0000), src1 (0x2000), dst (0x4000, uint8) all written."""
    core = asc.Core(chip, strict=strict)
    with core:
        src0 = asc.LocalTensor(dtype, VECIN, 0x0000, 0x2000 // dtype.itemsize)
        src1 = asc.LocalTensor(dtype, VECIN, 0x2000, 0x2000 // dtype.itemsize)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x4000, 0x400)
        core.ub_write(0, bytes(range(256)) * (0x4400 // 256))
        core.cmpmask = bytes(range(16))
    return core, src0, src1, dst


def rejected(core, error, call, match=None, **fields):
    """``call`` raises ``error`` and leaves UB, its written-shadow and every register unchanged.

    Keyword arguments are the error's expected fields (``conftest.assert_fields``).
    """
    before = (core.ub.snapshot(), core.register_state(), list(core.sync_log))
    with core, pytest.raises(error, match=match) as info:
        call()
    assert (core.ub.snapshot(), core.register_state(), list(core.sync_log)) == before
    assert_fields(info.value, **fields)
    return info.value


# --------------------------------------------------------------- alignment
@pytest.mark.parametrize("operand", ["dst", "src0", "src1"])
def test_misaligned_operand(operand):
    core, src0, src1, dst = setup()
    ops = {"dst": dst, "src0": src0, "src1": src1}
    ops[operand] = ops[operand][4:]  # 4 elements later: not 32-byte aligned
    address = {"dst": 0x4004, "src0": 0x0010, "src1": 0x2010}[operand]
    rejected(core, AlignmentError, lambda: asc.compare(ops["dst"], ops["src0"], ops["src1"], LT, 64),
             instruction=C, operand=f"{operand} address", value=address, rule="32-byte aligned",
             allowed="multiples of 32")


def test_misaligned_scalar_source_c_api():
    core, src0, _, dst = setup()
    rejected(core, AlignmentError, lambda: asc.asc_ne_scalar(dst, src0[1:], 1.0, 1, 1, 1, 8, 8),
             instruction="asc_ne_scalar", operand="src address", value=4, allowed="multiples of 32")


# ------------------------------------------------------------------ bounds
def test_source_past_its_tensor():
    core, src0, src1, dst = setup()
    with core:
        short = asc.LocalTensor(asc.float32, VECIN, 0x0000, 64)  # one repeat's worth
    rejected(core, OutOfBoundsError, lambda: asc.compare(dst, short, src1, LT, 64, 2, BIN()),
             instruction=C, operand="src0 byte range", value="[0x0, 0x200)", allowed="[0x0, 0x100)")


def test_dst_too_small_for_the_packed_bits():
    core, src0, src1, _ = setup()
    with core:
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x4000, 8)  # one float repeat = 8 bytes
    for call in (lambda: asc.compare(dst, src0, src1, LT, 64, 2, BIN()), lambda: asc.compare(dst, src0, src1, LT, 128)):
        rejected(core, OutOfBoundsError, call, instruction=C, operand="dst byte range", value="[0x4000, 0x4010)",
                 allowed="[0x4000, 0x4008)")


def test_strides_walk_out_of_ub():
    core, _, _, dst = setup()
    with core:
        top = asc.LocalTensor(asc.float32, VECIN, 0x2E000 - 256, 64)
        core.ub_write(0x2E000 - 256, bytes(256))
    rejected(core, OutOfBoundsError, lambda: asc.compare_scalar(dst, top, 0.0, LT, 64, 3, UN(1, 1, 8, 200)),
             instruction="compare_scalar", operand="src0 byte address", value=0x30000, allowed="[0x0, 0x30000)")


def test_huge_count_is_rejected_before_building_index_arrays():
    core, src0, src1, dst = setup()
    rejected(core, OutOfBoundsError, lambda: asc.compare(dst, src0, src1, LT, 64 * 1_000_000),
             instruction=C, operand="src0 byte address", value=0x30000, allowed="[0x0, 0x30000)")


def test_huge_counter_mode_count_on_950_is_rejected_by_dst_extent():
    core, src0, src1, dst = setup("950")
    with core:
        asc.set_mask_count()
    # mask[0] of a bitwise mask is the count (a contiguous mask stops at 2**31 - 1: SetMask(int32_t len))
    rejected(core, OutOfBoundsError,
             lambda: asc.compare(dst, src0, src1, LT, [2**32 - 1, 0], 1, BIN(1, 1, 1, 8, 0, 0)),
             instruction=C, operand="dst byte address", value=0x40000, allowed="[0x0, 0x40000)")


# ------------------------------------------------------------------ ranges
@pytest.mark.parametrize("repeat", [256, -1])
def test_repeat_times_out_of_range(repeat):
    core, src0, src1, dst = setup()
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, LT, 64, repeat, BIN()),
             instruction=C, operand="repeat_times", value=repeat, allowed="[0, 255]")


def test_binary_stride_does_not_fit_uint8():
    core, src0, src1, dst = setup()
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, LT, 64, 1, BIN(1, 1, 256, 8, 8, 8)),
             instruction=C, operand="repeat_params.src1_blk_stride", value=256, rule="uint8_t", allowed="[0, 255]")


def test_unary_strides_field_widths():
    core, src0, _, dst = setup()
    rejected(core, ParameterRangeError, lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64, 1, UN(1, 65536, 8, 8)),
             instruction="compare_scalar", operand="repeat_params.src_blk_stride", value=65536, allowed="[0, 65535]")
    rejected(core, ParameterRangeError, lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64, 1, UN(1, 1, 8, 256)),
             instruction="compare_scalar", operand="repeat_params.src_rep_stride", value=256, allowed="[0, 255]")


@pytest.mark.parametrize(("dtype", "count"), [(asc.float32, 65), (asc.float16, 100), (asc.float32, 2**32)])
def test_count_must_fill_whole_repeats(dtype, count):
    core, src0, src1, dst = setup(dtype=dtype)
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, LT, count),
             instruction=C, operand="count", value=count)


def test_count_rule_names_the_allowed_multiple():
    core, src0, _, dst = setup(dtype=asc.float16)
    rejected(core, ParameterRangeError, lambda: asc.compare_scalar(dst, src0, 1.0, LT, 100),
             instruction="compare_scalar", operand="count", value=100, rule="256 bytes", allowed="multiples of 128")


def test_unknown_cmp_mode():
    core, src0, src1, dst = setup()
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, 6, 64),
             instruction=C, operand="cmp_mode", value=6, rule="unknown CMPMODE")


@pytest.mark.parametrize(("mask", "operand", "value"), [([1, 2, 3], "mask length", 3), ([2**64, 0], "mask[0]", 2**64),
                                                        (-1, "mask", -1)])
def test_malformed_mask_even_where_reserved(mask, operand, value):
    core, src0, src1, dst = setup("A2")
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, LT, mask, 1, BIN()),
             instruction=C, operand=operand, value=value)


def test_950_bitwise_mask_rules():
    core, src0, src1, dst = setup("950")
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, LT, [0, 0], 1, BIN()),
             instruction=C, operand="mask", value=[0, 0], rule="cannot all be 0")
    rejected(core, ParameterRangeError, lambda: asc.compare(dst, src0, src1, LT, [1, 1], 1, BIN()),
             instruction=C, operand="mask[1]", value=1, allowed="0")  # 32-bit data: the high word must be 0


def test_register_compare_zero_mask_on_310p():
    core, src0, src1, _ = setup("310P")
    rejected(core, ParameterRangeError, lambda: asc.compare(src0, src1, LT, 0, BIN()),
             instruction=C, operand="mask", value=0, rule="normal-mode mask of 0")


def test_is_set_mask_is_reserved_for_compare_to_bitmask():
    core, src0, src1, dst = setup()
    err = rejected(core, ParameterRangeError,
                   lambda: asc.compare(dst, src0, src1, LT, 64, 1, BIN(), is_set_mask=False),
                   instruction=C, operand="is_set_mask", value=False, allowed="True")
    assert "Compare.md" in err.source


def test_integer_scalar_must_be_representable():
    core, _, _, dst = setup()
    with core:
        ints = asc.LocalTensor(asc.int32, VECIN, 0x0000, 64)
    rejected(core, ParameterRangeError, lambda: asc.compare_scalar(dst, ints, 1.5, EQ, 64),
             instruction="compare_scalar", operand="src1_scalar", value=1.5)
    rejected(core, ParameterRangeError, lambda: asc.compare_scalar(dst, ints, 2**31, EQ, 64),
             instruction="compare_scalar", operand="src1_scalar", value=2**31, allowed="[-2147483648, 2147483647]")


# ------------------------------------------------------- dtypes per product
def test_int32_only_with_eq_on_a2():
    core, _, _, dst = setup()
    with core:
        a = asc.LocalTensor(asc.int32, VECIN, 0x0000, 64)
        b = asc.LocalTensor(asc.int32, VECIN, 0x0100, 64)
    rejected(core, UnsupportedError, lambda: asc.compare(dst, a, b, LT, 64),
             instruction=C, operand="cmp_mode", value="LT", allowed="EQ")
    rejected(core, UnsupportedError, lambda: asc.asc_ne(dst, a, b, 1, 1, 1, 1, 8, 8, 8),
             instruction="asc_ne", operand="cmp_mode", value="NE", allowed="EQ")
    rejected(core, UnsupportedError, lambda: asc.asc_eq(a, b, 1, 1, 1, 1, 8, 8, 8),  # register: half/float
             instruction="asc_eq", operand="src0 dtype", value="int32", allowed="float16, float32")


def test_double_eq_only_for_compares_on_950():
    core, _, _, dst = setup("950")
    with core:
        a = asc.LocalTensor(asc.float64, VECIN, 0x0000, 64)
        b = asc.LocalTensor(asc.float64, VECIN, 0x0200, 64)
        asc.compare(dst, a, b, LT, 64)  # Compare.md lists double with every mode (count form)
    rejected(core, UnsupportedError, lambda: asc.compare_scalar(dst, a, 0.0, LT, 64),
             instruction="compare_scalar", operand="cmp_mode", value="LT", allowed="EQ")
    rejected(core, UnsupportedError, lambda: asc.compare(dst, a, b, LT, 32, 1, BIN()),  # count form only
             instruction=C, operand="src0 dtype", value="float64")


@pytest.mark.parametrize(("chip", "dtype"), [("A2", asc.int16), ("A2", asc.bfloat16), ("310P", asc.int32),
                                             ("910", asc.int32), ("950", asc.int8)])
def test_unsupported_compare_dtype(chip, dtype):
    core, _, _, dst = setup(chip)
    with core:
        a = asc.LocalTensor(dtype, VECIN, 0x0000, 256 // dtype.itemsize)
        b = asc.LocalTensor(dtype, VECIN, 0x0100, 256 // dtype.itemsize)
    err = rejected(core, UnsupportedError, lambda: asc.compare(dst, a, b, EQ, 256 // dtype.itemsize, 1, BIN()),
                   instruction=C, operand="src0 dtype", value=dtype.name)
    assert chip in err.rule


def test_bitmask_dst_type():
    core, src0, src1, _ = setup()
    with core:
        wrong = asc.LocalTensor(asc.float16, VECOUT, 0x4000, 64)
        int8_dst = asc.LocalTensor(asc.int8, VECOUT, 0x4000, 64)
    rejected(core, UnsupportedError, lambda: asc.compare(wrong, src0, src1, LT, 64),
             instruction=C, operand="dst dtype", value="float16", allowed="int8, uint8")
    rejected(core, UnsupportedError, lambda: asc.compare_scalar(int8_dst, src0, 0.0, LT, 64),  # Compares: uint8
             instruction="compare_scalar", operand="dst dtype", value="int8", allowed="uint8")
    rejected(core, UnsupportedError, lambda: asc.asc_lt(int8_dst, src0, src1, 1, 1, 1, 1, 8, 8, 8),  # uint8_t*
             instruction="asc_lt", operand="dst dtype", value="int8", allowed="uint8")
    k_core, k0, k1, _ = setup("KirinX90")
    with k_core:
        k_int8 = asc.LocalTensor(asc.int8, VECOUT, 0x4000, 64)
    rejected(k_core, UnsupportedError, lambda: asc.compare(k_int8, k0, k1, LT, 64),
             instruction=C, operand="dst dtype", value="int8", allowed="uint8")


def test_mismatched_source_dtypes():
    core, src0, _, dst = setup()
    with core:
        half = asc.LocalTensor(asc.float16, VECIN, 0x2000, 128)
    rejected(core, UnsupportedError, lambda: asc.compare(dst, src0, half, LT, 64),
             instruction=C, operand="src1 dtype", value="float16", allowed="float32")


@pytest.mark.parametrize(("chip", "call", "what"), [
    ("910", lambda d, a, b: asc.compare_scalar(d, a, 0.0, LT, 64), "Compares"),
    ("310B", lambda d, a, b: asc.compare(a, b, LT, 64, BIN()), "CMPMASK"),
    ("910", lambda d, a, b: asc.compare(a, b, LT, 64, BIN()), "CMPMASK"),
    ("310P-VEC", lambda d, a, b: asc.compare(d, a, b, LT, 64), "Compare"),
    ("950", lambda d, a, b: asc.asc_lt(d, a, b, 1, 1, 1, 1, 8, 8, 8), "C API"),
    ("310P", lambda d, a, b: asc.asc_ne_scalar(d, a, 1.0, 1, 1, 1, 8, 8), "C API"),
])
def test_not_supported_on_product_names_it(chip, call, what):
    core, src0, src1, dst = setup(chip)
    err = rejected(core, UnsupportedError, lambda: call(dst, src0, src1))
    assert err.operand == "product" and chip in err.value and what in err.rule


# ---------------------------------------------------------------- overlap
def test_dst_partially_overlapping_a_source_in_the_same_repeat():
    core, src0, src1, _ = setup()
    with core:
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0000, 64)  # the first 8 bytes of src0
    rejected(core, OverlapError, lambda: asc.compare(dst, src0, src1, LT, 64, 1, BIN()),
             instruction=C, operand="src0 / dst", rule="partially overlap")


def test_later_repeat_reading_what_an_earlier_one_wrote():
    core, src0, src1, _ = setup()
    with core:
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x0100, 64)  # repeat 0 writes [0x100, 0x108)
    # src0's repeat 1 reads [0x100, 0x200)
    rejected(core, OverlapError, lambda: asc.compare(dst, src0, src1, LT, 64, 2, BIN()),
             instruction=C, operand="src0 / dst", rule="repeat 1 reads")


def test_950_register_compare_source_in_the_scratch():
    core, _, _, _ = setup("950")
    with core:
        top = asc.LocalTensor(asc.float32, VECIN, 248 * 1024, 64)
        low = asc.LocalTensor(asc.float32, VECIN, 0, 64)
        core.ub_write(248 * 1024, bytes(256))
    rejected(core, OverlapError, lambda: asc.compare(top, low, LT, 64, BIN()),
             instruction=C, operand="src0", rule="UB scratch")


# --------------------------------------------------------- counter mode
def test_counter_mode_is_undocumented_for_native_compares():
    """docs/semantics.md §3.8: vcmpv/vcmp in counter mode is undocumented on A2: rejected, not guessed."""
    core, src0, src1, dst = setup("A2")
    with core:
        asc.set_mask_count()
    for call in (lambda: asc.compare(dst, src0, src1, LT, 64, 1, BIN()),
                 lambda: asc.compare(dst, src0, src1, LT, 64),
                 lambda: asc.compare(src0, src1, LT, 64, BIN()),
                 lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64, 1, UN()),
                 lambda: asc.asc_lt(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8),
                 lambda: asc.asc_lt(src0, src1, 1, 1, 1, 1, 8, 8, 8)):
        err = rejected(core, UnsupportedError, call, operand="mask mode", value="counter")
        assert err.source == "docs/semantics.md §3.8"


def test_a_plan_made_in_normal_mode_is_not_reused_in_counter_mode():
    """§3.8's rejection holds for a call whose plan was made in normal mode: the mask mode is part of what a
    count compare's plan depends on where counter mode is not modelled (a cached plan ran silently without it)."""
    core, src0, src1, dst = setup("A2")
    calls = (lambda: asc.compare(dst, src0, src1, LT, 64), lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64),
             lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64, 1, UN()))
    with core:
        for call in calls:
            call()
        asc.set_mask_count()
    for call in calls:
        rejected(core, UnsupportedError, call, operand="mask mode", value="counter")


def test_950_counter_mode_with_register_mask_spill_is_not_guessed():
    core, src0, src1, dst = setup("950")
    with core:
        asc.set_mask_count()
    rejected(core, UnsupportedError, lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64, 1, UN(), is_set_mask=False),
             instruction="compare_scalar", operand="is_set_mask", value=False)
    rejected(core, UnsupportedError, lambda: asc.compare(src0, src1, LT, 64, BIN(), is_set_mask=False),
             instruction=C, operand="is_set_mask", value=False)


# ----------------------------------------------------- positions, cores
def test_gm_position_rejected():
    core, src0, src1, dst = setup()
    with core:
        gm = asc.LocalTensor(asc.float32, asc.TPosition.GM, 0x0000, 64)
    rejected(core, UnsupportedError, lambda: asc.compare(dst, gm, src1, LT, 64),
             instruction=C, operand="src0 position", value="GM")


def test_tensor_of_another_core():
    core, src0, src1, dst = setup()
    other, other_src, _, _ = setup()
    rejected(core, WrongCoreError, lambda: asc.compare(dst, other_src, src1, LT, 64), instruction=C, operand="src0")


def test_no_active_core():
    core, src0, src1, dst = setup()
    with pytest.raises(NoActiveCoreError) as caught:
        asc.compare(dst, src0, src1, LT, 64)
    assert_fields(caught.value, instruction=C, operand="core", value=None)


def test_wrong_python_types_are_type_errors():
    core, src0, src1, dst = setup()
    for call in (lambda: asc.compare(dst, src0, src1, LT, 64.0),
                 lambda: asc.compare(dst, src0, src1, LT, 64, 1, UN()),
                 lambda: asc.compare_scalar(dst, src0, "1", LT, 64),
                 lambda: asc.asc_lt(dst, src0, src1, 1.0, 1, 1, 1, 8, 8, 8),
                 lambda: asc.compare(dst, src0, src1, LT, 64, 1, BIN(), is_set_mask="yes")):
        with core, pytest.raises(TypeError):
            call()


# ------------------------------------------------------- uninitialised
def test_never_written_source_warns_naming_the_address():
    with asc.Core("A2"):
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x1000, 64)
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x2000, 64)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x3000, 8)
        src1.write(np.zeros(64))
        with pytest.warns(UninitializedReadWarning, match="src0 reads never-written UB byte 0x1000"):
            asc.compare(dst, src0, src1, LT, 64)


def test_never_written_source_in_strict_mode_changes_nothing():
    core = asc.Core("A2", strict=True)
    with core:
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x1000, 64)
        dst = asc.LocalTensor(asc.uint8, VECOUT, 0x3000, 8)
    rejected(core, UninitializedReadError, lambda: asc.compare_scalar(dst, src0, 0.0, LT, 64),
             instruction="compare_scalar", operand="src0 byte address", value=0x1000)


def test_masked_off_bits_kept_from_a_never_set_cmpmask_warn():
    """A2 keeps masked-off CMPMASK bits (asc_lt.md): residue of a register nothing ever set."""
    with asc.Core("A2"):
        src0 = asc.LocalTensor(asc.float32, VECIN, 0x0000, 64)
        src1 = asc.LocalTensor(asc.float32, VECIN, 0x0100, 64)
        src0.write(np.zeros(64))
        src1.write(np.ones(64))
        with pytest.warns(UninitializedReadWarning, match="CMPMASK"):
            asc.compare(src0, src1, LT, 32, BIN())
        asc.compare(src0, src1, LT, 64, BIN())  # every lane written: no residue, no warning
