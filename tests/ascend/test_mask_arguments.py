"""A contiguous mask is a lane count the API hands to ``SetMask(int32_t len)``.

``AscendCUtils::SetMask<T>(int32_t len)`` (``impl/basic_api/kernel_utils_base.h``) and
``SetVectorMask<T>(int32_t len)`` (``include/basic_api/kernel_common.h``) take an ``int32_t``:
a ``uint64_t`` mask above 2**31 - 1 becomes a negative length there, whose effect is undefined.
npusim rejects it in every form that takes a contiguous mask, naming the operand and the range;
2**31 - 1 itself is accepted (every lane, as any length from the lanes per repeat up is).
"""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.errors import ParameterRangeError

from .conftest import assert_rejected, fill

F16, U8 = asc.float16, asc.uint8
VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
INT32_MAX = 2**31 - 1
B = asc.BinaryRepeatParams()
U = asc.UnaryRepeatParams()


def tensors():
    """dst, src0, src1 (half, one repeat), selMask, bitmask."""
    return (asc.LocalTensor(F16, VECOUT, 0x1000, 128), asc.LocalTensor(F16, VECIN, 0x2000, 128),
            asc.LocalTensor(F16, VECIN, 0x3000, 128), asc.LocalTensor(U8, VECIN, 0x4000, 32),
            asc.LocalTensor(U8, VECOUT, 0x5000, 32))


MODE1, MODE2 = asc.SelMode.VSEL_TENSOR_SCALAR_MODE, asc.SelMode.VSEL_TENSOR_TENSOR_MODE
CALLS = {  # form: (instruction, operand, call(tensors, mask))
    "select": ("select", "mask", lambda t, m: asc.select(t[0], t[3], t[1], t[2], MODE2, m, 1, B)),
    "select mode 1": ("select", "mask", lambda t, m: asc.select(t[0], t[3], t[1], 1.5, MODE1, m, 1, B)),
    "compare": ("compare", "mask", lambda t, m: asc.compare(t[4], t[1], t[2], asc.CMPMODE.LT, m, 1, B)),
    "compare_scalar": ("compare_scalar", "mask",
                       lambda t, m: asc.compare_scalar(t[4], t[1], 0.5, asc.CMPMODE.LT, m, 1, U)),
    "compare to CMPMASK": ("compare", "mask", lambda t, m: asc.compare(t[1], t[2], asc.CMPMODE.LT, m, B)),
    "add": ("add", "mask", lambda t, m: asc.add(t[0], t[1], t[2], m, 1, B)),
    "adds": ("adds", "mask", lambda t, m: asc.adds(t[0], t[1], 2.0, m, 1, U)),
    "abs": ("abs", "mask", lambda t, m: asc.abs(t[0], t[1], m, 1, U)),
    "duplicate": ("duplicate", "mask", lambda t, m: asc.duplicate(t[0], 1.0, m, 1, 1, 8)),
    "set_vector_mask": ("set_vector_mask", "length", lambda t, m: asc.set_vector_mask(m, dtype=F16)),
    "set_vector_mask (counter)": ("set_vector_mask", "length",
                                  lambda t, m: asc.set_vector_mask(m, dtype=F16, mode=asc.MaskMode.COUNTER)),
}


@pytest.mark.parametrize("chip", ["A2", "950"])
@pytest.mark.parametrize("form", sorted(CALLS))
def test_contiguous_mask_above_int32_max_is_rejected(chip, form):
    instruction, operand, call = CALLS[form]
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        t = tensors()
        for too_big in (INT32_MAX + 1, 2**32, 2**64 - 1):
            assert_rejected(core, ParameterRangeError, lambda v=too_big: call(t, v), instruction=instruction,
                            operand=operand, value=too_big, rule="int32_t", allowed=f"[0, {INT32_MAX}]")
        call(t, INT32_MAX)  # the largest length SetMask(int32_t) takes: every lane


def test_the_largest_length_selects_every_lane():
    with asc.Core("A2") as core:
        fill(core, 0, 0x8000)
        t = tensors()
        asc.add(t[0], t[1], t[2], INT32_MAX, 1, B)
        assert core.vector_mask == (2**64 - 1, 2**64 - 1)  # SetMask<half>(len >= 128): both words full
