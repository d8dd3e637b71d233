"""The scalar unit's bit computations (docs/semantics.md §5.35): each page's 调用示例, the reference model
(tests/ascend/scalar_reference.py) over the whole 64-bit range, the products, and the rejections."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ParameterRangeError, UnsupportedError

from . import scalar_reference as ref
from .conftest import assert_rejected

INT64_MIN, INT64_MAX, UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
EDGES = (0, 1, -1, 2, INT64_MIN, INT64_MAX, UINT64_MAX, 2**63, 2**32, 2**32 - 1, 0x5555555555555555)
values64 = st.one_of(st.sampled_from(EDGES), st.integers(INT64_MIN, UINT64_MAX),
                     st.integers(0, 63).map(lambda n: 1 << n), st.integers(0, 63).map(lambda n: UINT64_MAX >> n))


@pytest.fixture
def core():
    with asc.Core("A2") as c:
        yield c


# ------------------------------------------------------------------ 调用示例
def test_get_bit_count_page_example(core):
    assert asc.scalar_get_count_of_value(0xFFFF, 1) == 16  # GetBitCount.md: 16 ones
    assert asc.scalar_get_count_of_value(0xFFFF, 0) == 48  # and 48 zeros


def test_count_leading_zero_page_examples(core):
    assert asc.scalar_count_leading_zero(0x0100000000000020) == 7  # 功能说明
    assert asc.scalar_count_leading_zero(0x000000000000FFFF) == 48
    assert asc.scalar_count_leading_zero(0) == 64
    assert asc.scalar_count_leading_zero(0xFFFFFFFFFFFFFFFF) == 0
    assert asc.asc_clz(0x0fffffffffffffff) == 4  # asc_clz.md


def test_count_bits_cnt_same_as_sign_bit_page_examples(core):
    f = asc.count_bits_cnt_same_as_sign_bit
    assert f(0x0100000000000020) == 6  # 功能说明
    assert [f(0), f(0xFFFFFFFFFFFFFFFF), f(0x7FFFFFFFFFFFFFFF), f(0x8000000000000000), f(1), f(0x00F0000000000000)] \
        == [-1, -1, 0, 0, 62, 7]
    assert f(-1) == -1 and f(INT64_MIN) == 0  # the same bits as signed values
    assert asc.asc_sflbits(0x000f00ff0ff0ffff) == 11  # asc_sflbits.md
    assert asc.asc_sflbits(0x0f00000000000000) == 3  # its 功能说明


def test_get_sff_value_page_examples(core):
    f = asc.scalar_get_sff_value
    assert f(0x1000000000000100, 1) == 8  # 功能说明
    assert f(0xFFFFFFFFFFFFFFFF, 0) == -1 and f(0, 1) == -1
    assert (f(0xFF00, 0), f(0xFF00, 1), f(0x00FF, 0), f(0x00FF, 1)) == (0, 8, 8, 0)
    assert asc.asc_ffz(33) == 1  # asc_ffz.md: 0b100001
    assert asc.asc_ffs(10) == 1  # asc_ffs.md's value: 0b1010


def test_c_api_page_examples(core):
    assert asc.asc_popc(33) == 2  # asc_popc.md
    assert asc.asc_zero_bits_cnt(33) == 62  # asc_zero_bits_cnt.md's value: 64 bits, two ones
    assert asc.asc_set_nthbit(0x0, 0x2) == 0x4  # asc_set_nthbit.md
    assert asc.asc_clear_nthbit(0x7, 0x2) == 0x3  # asc_clear_nthbit.md's call


# ------------------------------------------------------------------ against the reference, every 64-bit value
@settings(max_examples=300, deadline=None)
@given(value=values64)
@example(value=INT64_MIN)
@example(value=UINT64_MAX)
def test_the_bit_counts_match_the_reference(value):
    with asc.Core("A2"):
        for count_value in (0, 1):
            assert asc.scalar_get_count_of_value(value, count_value) == ref.get_bit_count(value, count_value)
            assert asc.scalar_get_sff_value(value, count_value) == ref.get_sff_value(value, count_value)
        assert asc.asc_popc(value) == ref.get_bit_count(value, 1)
        assert asc.asc_zero_bits_cnt(value) == ref.get_bit_count(value, 0)
        assert asc.asc_ffs(value) == ref.get_sff_value(value, 1)
        assert asc.asc_ffz(value) == ref.get_sff_value(value, 0)
        assert asc.scalar_count_leading_zero(value) == asc.asc_clz(value) == ref.count_leading_zero(value)
        assert asc.count_bits_cnt_same_as_sign_bit(value) == asc.asc_sflbits(value) \
            == ref.count_bits_same_as_sign(value)


@settings(max_examples=200, deadline=None)
@given(bits=values64, idx=st.integers(0, 63))
def test_nthbit_matches_the_reference(bits, idx):
    with asc.Core("950"):
        assert asc.asc_set_nthbit(bits, idx) == ref.set_nth_bit(bits, idx, 1)
        assert asc.asc_clear_nthbit(bits, idx) == ref.set_nth_bit(bits, idx, 0)


@pytest.mark.parametrize("value", [0, 1, 2**63 - 1, 2**63, 2**64 - 1, -1, -(2**63)])
def test_a_signed_and_an_unsigned_spelling_of_the_same_bits_agree(core, value):
    twin = value % 2**64
    assert asc.count_bits_cnt_same_as_sign_bit(value) == asc.count_bits_cnt_same_as_sign_bit(twin)
    assert asc.scalar_count_leading_zero(value) == asc.scalar_count_leading_zero(twin)


def test_numpy_integers_are_arguments(core):
    import numpy as np
    assert asc.scalar_count_leading_zero(np.uint64(2**63)) == 0
    assert asc.count_bits_cnt_same_as_sign_bit(np.int64(-2)) == 62


# ------------------------------------------------------------------ the 950's CeilDivision and Nop
def test_ceil_division():
    with asc.Core("950") as core:
        assert asc.ceil_division(300, 128) == 3  # the page's repeatTime: 300 elements, 128 a repeat
        assert asc.ceil_division(256, 128) == 2 and asc.ceil_division(1, 2**31 - 1) == 1
        assert asc.ceil_division(7, 0) == 0  # 约束说明: num2 = 0 gives 0
        for num1, num2, operand in ((0, 3, "num1"), (-1, 3, "num1"), (5, -2, "num2")):
            assert_rejected(core, ParameterRangeError, lambda a=num1, b=num2: asc.ceil_division(a, b),
                            "CeilDivision.md 约束说明", instruction="ceil_division", operand=operand)
        assert_rejected(core, ParameterRangeError, lambda: asc.ceil_division(2**31 - 1, 2), "overflows",
                        operand="num1 + num2 - 1")


def test_nop_is_a_pipe_barrier_for_a_positive_count():
    with asc.Core("950") as core:
        before = len(core.sync_log)
        assert asc.nop(0) is None and asc.nop(-3) is None
        assert len(core.sync_log) == before  # count <= 0 returns at once
        asc.nop(10)
        asc.nop()
        assert [entry[0] for entry in core.sync_log[before:]] == ["pipe_barrier", "pipe_barrier"]
        asc.nop(-(2**31))  # the template parameter's whole int range
        asc.nop(2**31 - 1)
        assert len(core.sync_log) == before + 3
        for count in (-(2**31) - 1, 2**31):
            assert_rejected(core, ParameterRangeError, lambda n=count: asc.nop(n), "Nop.md 参数说明",
                            instruction="nop", operand="count")


# ------------------------------------------------------------------ products and rejections
@pytest.mark.parametrize("chip", ["950", "A2", "A3", "310P", "KirinX90", "Kirin9030"])
def test_the_basic_bit_apis_run_where_the_pages_say(chip):
    with asc.Core(chip):
        assert asc.scalar_count_leading_zero(1) == 63


@pytest.mark.parametrize("chip", ["310B", "310P-VEC", "910"])
def test_the_basic_bit_apis_are_rejected_elsewhere(chip):
    with asc.Core(chip) as core:
        for call in (lambda: asc.scalar_get_count_of_value(1, 1), lambda: asc.scalar_count_leading_zero(1),
                     lambda: asc.count_bits_cnt_same_as_sign_bit(1), lambda: asc.scalar_get_sff_value(1, 1)):
            assert_rejected(core, UnsupportedError, call, "产品支持情况", operand="product")


@pytest.mark.parametrize("chip", ["310P", "KirinX90", "310B"])
def test_the_c_api_is_rejected_outside_the_950_and_a2_a3(chip):
    with asc.Core(chip) as core:
        for call in (lambda: asc.asc_clz(1), lambda: asc.asc_popc(1), lambda: asc.asc_set_nthbit(1, 1)):
            assert_rejected(core, UnsupportedError, call, "产品支持情况", operand="product")


@pytest.mark.parametrize("chip", ["A2", "A3", "310P"])
def test_ceil_division_and_nop_are_the_950s(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.ceil_division(3, 2), "CeilDivision.md 产品支持情况")
        assert_rejected(core, UnsupportedError, lambda: asc.nop(1), "Nop.md 产品支持情况")


@pytest.mark.parametrize("bad", [2**64, INT64_MIN - 1, 2**70])
def test_an_argument_wider_than_64_bits_is_rejected(core, bad):
    for function in (asc.scalar_count_leading_zero, asc.count_bits_cnt_same_as_sign_bit, asc.asc_clz,
                     asc.asc_popc, asc.asc_ffs):
        assert_rejected(core, ParameterRangeError, lambda f=function: f(bad), "函数原型", value=bad,
                        allowed="[-9223372036854775808, 18446744073709551615]")
    assert_rejected(core, ParameterRangeError, lambda: asc.scalar_get_sff_value(bad, 1), operand="value_in")
    assert_rejected(core, ParameterRangeError, lambda: asc.asc_set_nthbit(bad, 1), operand="bits")


@pytest.mark.parametrize("count_value", [2, -1, 255])
def test_count_value_is_0_or_1(core, count_value):
    for function, page in ((asc.scalar_get_count_of_value, "GetBitCount.md"),
                           (asc.scalar_get_sff_value, "GetSFFValue.md")):
        assert_rejected(core, ParameterRangeError, lambda f=function: f(5, count_value), f"{page} 参数说明",
                        operand="count_value", value=count_value, allowed="[0, 1]")


@pytest.mark.parametrize("idx", [-1, 64, 100])
def test_a_bit_index_outside_the_64_bits_is_rejected(core, idx):
    for function in (asc.asc_set_nthbit, asc.asc_clear_nthbit):
        assert_rejected(core, ParameterRangeError, lambda f=function: f(1, idx), "参数说明", operand="idx",
                        value=idx, allowed="[0, 63]")


@pytest.mark.parametrize("bad", [1.0, "1", None, True])
def test_a_non_integer_argument_is_a_type_error(core, bad):
    for call in (lambda: asc.scalar_count_leading_zero(bad), lambda: asc.asc_set_nthbit(1, bad),
                 lambda: asc.scalar_get_sff_value(bad, 0)):
        with pytest.raises(TypeError):
            call()


def test_a_value_that_passed_once_is_still_checked_on_the_next_call(core):
    """The plan is cached (values are read per call): a later bad value is still rejected."""
    assert asc.scalar_count_leading_zero(5) == 61
    assert_rejected(core, ParameterRangeError, lambda: asc.scalar_count_leading_zero(2**64), operand="value_in")
    assert asc.asc_set_nthbit(5, 1) == 7
    assert_rejected(core, ParameterRangeError, lambda: asc.asc_set_nthbit(5, 64), operand="idx")
