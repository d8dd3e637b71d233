"""Runtime int32 values of pyasc kernels use C's arithmetic (pyasc ir_value.py: divsi, remsi, wrap-around).

Expected values are C99's (6.5.5: the quotient truncated toward zero, ``(a/b)*b + a%b == a``)
and two's-complement int32 wrap-around, worked by hand.
"""

from __future__ import annotations

import numpy as np
import pytest

from npusim.errors import ParameterRangeError
from npusim.pyasc.cint import CInt32
from npusim.pyasc.jit import narrow


def test_division_truncates_and_the_remainder_has_the_dividends_sign():
    n = CInt32(-7)
    assert (n // 2, n / 2, n % 2) == (-3, -3, -1)
    assert (CInt32(7) // -2, CInt32(7) % -2) == (-3, 1)
    assert (100 // CInt32(-7), 100 % CInt32(-7)) == (-14, 2)  # reflected: the Python int is the dividend
    assert type(n // 2) is CInt32 and type(3 * n) is CInt32


def test_wrap_around_shifts_and_negation():
    top = CInt32(2**31 - 1)
    assert top + 1 == -(2**31) and CInt32(-(2**31)) - 1 == 2**31 - 1
    assert CInt32(65536) * 65536 == 0 and CInt32(46341) * 46341 == -2147479015
    assert -CInt32(-(2**31)) == -(2**31)
    assert (CInt32(-8) >> 1, CInt32(2) << 30, CInt32(6) & 3, CInt32(6) | 1, CInt32(6) ^ 5) == (-4, -(2**31), 2, 7, 3)
    with pytest.raises(ParameterRangeError):
        CInt32(1) << 32


def test_the_other_operand_becomes_int32_first():
    assert CInt32(3) * 0.5 == 0  # pyasc: int(0.5)
    assert CInt32(1) + (2**32 + 5) == 6


def test_division_by_zero_is_an_error():
    with pytest.raises(ParameterRangeError, match="division by zero"):
        CInt32(5) // 0
    with pytest.raises(ParameterRangeError):
        7 % CInt32(0)


def test_int_arguments_become_c_int32():
    value = narrow("k", "n", -7)
    assert type(value) is CInt32 and value // 2 == -3


def test_a_kernel_computes_with_c_division(asc):
    @asc.jit
    def kernel(z: asc.GlobalAddress, n: int):
        z_gm = asc.GlobalTensor()
        z_gm.set_global_buffer(z)
        t = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 24)
        asc.duplicate(t, n // 2, 8)
        asc.duplicate(t[8:], n % 2, 8)
        block = asc.get_block_idx()
        asc.duplicate(t[16:], (block - 3) // 2, 8)
        for i in asc.range(1):
            asc.duplicate(t[16:], (i - 3) // 2 + block, 8)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(z_gm, t, 24)

    z = np.zeros(24, np.int32)
    kernel[1](z, -7)
    assert z.tolist() == [-3] * 8 + [-1] * 8 + [-1] * 8


def test_cint64_has_cs_64_bit_arithmetic():
    from npusim.pyasc.cint import CInt32, CInt64
    top = CInt64(2**63 - 1)
    assert type(top + 1) is CInt64 and top + 1 == -(2**63)  # wraps
    assert type(CInt64(2**40) - CInt32(5)) is CInt64 and CInt64(2**40) - CInt32(5) == 2**40 - 5
    assert CInt64(1) << 63 == -(2**63) and CInt64(-7) // 2 == -3 and CInt64(-7) % 2 == -1
    with pytest.raises(ParameterRangeError):
        CInt64(1) << 64


def test_a_mixed_operation_has_the_left_operands_type():
    """pyasc's ``apply_binary_op`` takes the left runtime value's dtype (``infer_common_type``) and casts the
    right one to it (``TruncIOp`` / ``ExtSIOp``): int32 op int64 is int32, the int64 truncated to its low 32
    bits; int64 op int32 is int64 (python/asc/language/core/ir_value.py; docs/semantics.md §10.9)."""
    from npusim.pyasc.cint import CInt32, CInt64
    low = CInt32(5) + CInt64(2**40 + 3)  # 2**40 + 3 truncated to int32 is 3
    assert type(low) is CInt32 and low == 8
    assert type(CInt32(-1) * CInt64(2**32 + 2)) is CInt32 and CInt32(-1) * CInt64(2**32 + 2) == -2
    assert type(CInt64(5) + CInt32(-1)) is CInt64 and CInt64(5) + CInt32(-1) == 4
    with pytest.raises(ParameterRangeError):
        CInt32(1) << CInt64(40)  # an int32 shifted by 40: undefined
    with pytest.raises(ParameterRangeError, match="int64 //"):
        CInt64(1) // CInt64(0)


@pytest.mark.parametrize("other", [float("nan"), float("inf"), -np.inf, np.float32("nan")])
def test_a_non_finite_float_operand_is_a_range_error(other):
    """int() of a NaN or an infinity has no value (a ValueError / OverflowError escaped before; §10.9)."""
    from npusim.pyasc.cint import CInt32, CInt64
    for value in (CInt32(3), CInt64(3)):
        with pytest.raises(ParameterRangeError, match="finite"):
            value + other
        if not isinstance(other, np.generic):  # a numpy scalar on the left computes itself
            with pytest.raises(ParameterRangeError, match="finite"):
                other * value
