"""pyasc's scalar APIs in a kernel (docs/semantics.md §5.35): pyasc's names, its runtime result types."""

from __future__ import annotations

from npusim.pyasc.cint import CInt32, CInt64
from npusim.pyasc.jit import jit
from npusim.pyasc.namespaces import module_names


def test_a_kernel_gets_pyasc_runtime_values():
    asc = module_names("asc")
    seen = {}

    @jit
    def kernel():
        seen["count"] = asc["scalar_get_count_of_value"](16, 0)
        seen["sff"] = asc["scalar_get_sff_value"](28, 1)
        seen["clz"] = asc["scalar_count_leading_zero"](0x0fffffffffffffff)
        seen["sign"] = asc["count_bits_cnt_same_as_sign_bit"](0x0f00000000000000)
        seen["minus_one"] = asc["count_bits_cnt_same_as_sign_bit"](-1)
        seen["cast"] = asc["scalar_cast"](2.5, asc["int32"], asc["RoundMode"].CAST_ROUND)
        seen["half"] = asc["scalar_cast"](2.5, asc["half"], asc["RoundMode"].CAST_ODD)

    kernel[1]()
    assert {k: int(v) for k, v in seen.items() if k != "half"} == {
        "count": 63, "sff": 2, "clz": 4, "sign": 3, "minus_one": -1, "cast": 3}  # pyasc's docstrings: 4 and 3
    assert all(type(seen[k]) is CInt64 for k in ("count", "sff", "clz", "sign", "minus_one"))
    assert type(seen["cast"]) is CInt32 and float(seen["half"]) == 2.5
    assert type(seen["clz"] * seen["cast"]) is CInt64  # int64 * int32 is int64


def test_the_names_are_in_pyasc_basic():
    basic = module_names("asc.language.basic")
    for name in ("scalar_cast", "scalar_get_sff_value", "scalar_get_count_of_value", "scalar_count_leading_zero",
                 "count_bits_cnt_same_as_sign_bit"):
        assert type(basic[name]).__name__ != "Unmodelled", name
