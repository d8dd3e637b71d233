"""Element types the 950's pages list and npusim does not model are rejected as not modelled, not as types the
product lacks (src/npusim/ascend/arith_dtypes.py, NOT_MODELLED): integer Div (Div.md 数据类型: int16_t, uint16_t,
int32_t, uint32_t, int64_t, uint64_t), int64/uint64 Divs（灵活标量位置）and Reciprocal.  Nothing is written."""

from __future__ import annotations

import pytest

from npusim import ascend as asc
from npusim.errors import UnsupportedError

from .conftest import assert_rejected

VECCALC = asc.TPosition.VECCALC
CALLS = {
    "div": lambda z, x: asc.div(z, x, x, 32),
    "divs": lambda z, x: asc.divs(z, x, 3, 32),
    "reciprocal": lambda z, x: asc.reciprocal(z, x, 32),
}


@pytest.mark.parametrize(("name", "dtype"), [("div", asc.int16), ("div", asc.uint16), ("div", asc.int32),
                                              ("div", asc.uint32), ("div", asc.int64), ("div", asc.uint64),
                                              ("divs", asc.int64), ("divs", asc.uint64),
                                              ("reciprocal", asc.int64), ("reciprocal", asc.uint64)])
def test_documented_but_unmodelled_types_say_so(name, dtype):
    with asc.Core("950") as core:
        core.ub_write(0, bytes(1024))
        x, z = asc.LocalTensor(dtype, VECCALC, 0, 32), asc.LocalTensor(dtype, VECCALC, 512, 32)
        error = assert_rejected(core, UnsupportedError, lambda: CALLS[name](z, x), "not modelled", instruction=name,
                                operand="dst dtype", value=dtype.name)
        assert "数据类型" in error.source


def test_a_type_no_page_lists_keeps_its_unsupported_rule():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(1024))
        x, z = asc.LocalTensor(asc.int8, VECCALC, 0, 32), asc.LocalTensor(asc.int8, VECCALC, 512, 32)
        assert_rejected(core, UnsupportedError, lambda: asc.div(z, x, x, 32), "does not support this data type")
    with asc.Core("A2") as core:  # the A2's Div lists half and float only
        core.ub_write(0, bytes(1024))
        x, z = asc.LocalTensor(asc.int32, VECCALC, 0, 32), asc.LocalTensor(asc.int32, VECCALC, 512, 32)
        assert_rejected(core, UnsupportedError, lambda: asc.div(z, x, x, 32), "does not support this data type")
