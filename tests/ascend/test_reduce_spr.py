"""get_reduce_repeat_sum_spr (GetReduceRepeatSumSpr(ISASI).md): the page's example (the sum of the
first 128 elements after ReduceSum(dst, src, work, 128)), the register as Core state written only by
the count-form ReduceSum of half/float, and what the page leaves undefined as rejected reads.

Expected values: each test's data is chosen so that its sum is exact in the type (powers of two and
small integers), so the expected value needs no model of the reduction order."""

from __future__ import annotations

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.errors import RuntimeMisuseError, UnsupportedError

from .conftest import assert_rejected


def tensors(dtype, n: int):
    x = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, n)
    w = asc.LocalTensor(dtype, asc.TPosition.VECCALC, 0x8000, 256)
    z = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 0xC000, 32 // dtype.itemsize)
    return x, w, z


@pytest.mark.parametrize("chip", ["A2", "A3", "950"])
@pytest.mark.parametrize("dtype", [asc.float32, asc.float16])
def test_the_pages_example_returns_the_sum_of_the_first_128(chip, dtype):
    values = (np.arange(300) % 8).astype(dtype.np_dtype)
    with asc.Core(chip, trace=True) as core:
        x, w, z = tensors(dtype, 300)
        x.write(values)
        asc.reduce_sum(z, x, w, 128)
        assert core.trace[-1].registers_written == ("ACC",)
        got = asc.get_reduce_repeat_sum_spr(dtype)
        assert core.trace[-1].registers_read == ("ACC",)
    assert type(got) is dtype.np_dtype.type
    assert got.tobytes() == dtype.np_dtype.type(values[:128].sum()).tobytes()


def test_the_last_count_form_reduce_sum_wins_and_other_forms_leave_it():
    with asc.Core("A2") as core:
        x, w, z = tensors(asc.float32, 256)
        x.write(np.ones(256, np.float32))
        asc.reduce_sum(z, x, w, 64)
        asc.reduce_sum(z, x, w, 128)
        assert asc.get_reduce_repeat_sum_spr(asc.float32) == np.float32(128)
        asc.reduce_sum(z, x, w, 64, 2, 8)  # the mask form (vcadd per repeat, then a tree): ACC as it was
        assert core.acc == ("float32", np.float32(128).tobytes())
        assert asc.get_reduce_repeat_sum_spr(asc.float32) == np.float32(128)


def test_integer_reduce_sums_do_not_write_it():
    with asc.Core("950") as core:
        x, w, z = tensors(asc.int64, 64)
        x.write(np.arange(64, dtype=np.int64))
        asc.reduce_sum(z, x, w, 64)
        assert core.acc is None


def test_reading_before_any_reduce_sum_or_as_another_type_is_rejected():
    with asc.Core("A2") as core:
        assert_rejected(core, RuntimeMisuseError, lambda: asc.get_reduce_repeat_sum_spr(asc.float32), operand="ACC")
        x, w, z = tensors(asc.float16, 128)
        x.write(np.ones(128, np.float16))
        asc.reduce_sum(z, x, w, 128)
        assert_rejected(core, UnsupportedError, lambda: asc.get_reduce_repeat_sum_spr(asc.float32), operand="T",
                        value="float32")
        assert_rejected(core, UnsupportedError, lambda: asc.get_reduce_repeat_sum_spr(asc.int32), operand="T")
        with pytest.raises(TypeError, match="asc dtype"):
            asc.get_reduce_repeat_sum_spr("float32")


@pytest.mark.parametrize("chip", ["310P", "310B", "910"])
def test_products_without_it(chip):
    with asc.Core(chip) as core:
        assert_rejected(core, UnsupportedError, lambda: asc.get_reduce_repeat_sum_spr(asc.float32), operand="product")
