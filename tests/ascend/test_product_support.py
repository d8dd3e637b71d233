"""Select and Compare on every product row: what each accepts, written out from the documents.

Nothing here is read back from ``asc.CHIPS``: the tables below restate the documents (and,
where they give less, the implementation in asc-devkit ``impl/basic_api/dav_*``), so a row of
``chips.py`` that drifts from them fails a test.  Sources:

* ``Select.md`` 产品支持情况 / 功能说明 (modes) / 数据类型; the no-mask forms need SetCmpMask
  (``SetCmpMask(ISASI).md``: 不支持 on 310B) and are implemented per ``SelectCal`` in the
  ``dav_*`` ``kernel_operator_vec_(cmp)sel_impl.h`` (310B ``dav_m300``: asserts; 910 ``dav_c100``:
  mode 0 only);
* ``Compare.md``, ``Compares.md``, ``Compare（结果存入寄存器）.md``: 产品支持情况 and 数据类型 (T, U,
  EQ-only types, types of the count ("前n个数据") form only);
* the C API pages ``asc_select.md``, ``asc_lt.md``, ``asc_eq.md``, ``asc_eq_scalar.md``: A2 and A3
  only; half and float, int32 for the ``eq`` functions.
"""

from __future__ import annotations

import itertools

import pytest

from npusim import ascend as asc
from npusim.errors import ConstraintError, UnsupportedError

from .conftest import fill

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
B, U = asc.BinaryRepeatParams(), asc.UnaryRepeatParams()
ROWS = ["950", "A3", "A2", "310B", "310P", "310P-VEC", "910", "KirinX90", "Kirin9030"]
TYPES = ["int8", "uint8", "int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32", "int64", "uint64",
         "float64"]
HALF_FLOAT = {"float16", "float32"}
KIRIN_T = {"int8", "uint8", "int16", "uint16", "float16", "int32", "uint32", "float32"}  # Select.md / Compare.md
B16_B32_950 = {"int16", "uint16", "float16", "bfloat16", "int32", "uint32", "float32"}
COUNT_ONLY_950 = {"int8", "uint8", "int64", "uint64"}


def test_every_product_row_is_covered():
    assert sorted(asc.CHIPS) == sorted(ROWS)


# ------------------------------------------------------------------ Select
# row: (modes, T of the count form, T of the mask forms, modes of the no-mask forms); None: 不支持
SELECT = {
    "950": ({0, 1, 2}, B16_B32_950 | COUNT_ONLY_950, B16_B32_950, {0, 1, 2}),
    "A3": ({0, 1, 2}, HALF_FLOAT, HALF_FLOAT, {0, 1, 2}),
    "A2": ({0, 1, 2}, HALF_FLOAT, HALF_FLOAT, {0, 1, 2}),
    "310B": ({0, 1, 2}, HALF_FLOAT, HALF_FLOAT, set()),  # dav_m300 SelectCal asserts; no SetCmpMask
    "310P": ({0, 1, 2}, HALF_FLOAT, HALF_FLOAT, {0, 1, 2}),
    "310P-VEC": None,
    "910": ({0}, HALF_FLOAT, HALF_FLOAT, {0}),  # "仅支持模式0"; dav_c100 SelectCal: mode 0 only
    # Select.md lists int8/uint8 for Kirin; dav_l300/dav_l311 VselImpl(mask) static_assert b16/b32 only
    "KirinX90": ({0, 1, 2}, KIRIN_T, KIRIN_T - {"int8", "uint8"}, {0, 1, 2}),
    "Kirin9030": ({0, 1, 2}, KIRIN_T, KIRIN_T - {"int8", "uint8"}, {0, 1, 2}),
}


def select_args(core, name: str):
    dtype = getattr(asc, name)
    dst, src0, src1 = (asc.LocalTensor(dtype, position, addr, 4096 // dtype.itemsize)
                       for position, addr in ((VECOUT, 0x1000), (VECIN, 0x2000), (VECIN, 0x3000)))
    return dtype, dst, asc.LocalTensor(asc.uint8, VECIN, 0x4000, 256), src0, src1


def outcome(function, *args) -> str:
    """``"ok"`` when ``function(*args)`` runs, or the operand the UnsupportedError it raises names."""
    try:
        function(*args)
    except UnsupportedError as err:
        return f"unsupported: {err.operand}"
    return "ok"


@pytest.mark.parametrize("chip", ROWS)
def test_select_support(chip):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        for name, mode, form in itertools.product(TYPES, (0, 1, 2), ("count", "mask")):
            dtype, dst, sel, src0, src1 = select_args(core, name)
            lanes = 256 // dtype.itemsize
            second = 1 if mode == 1 else src1
            shape = (lanes,) if form == "count" else ([1, 0], 1, B)
            got = outcome(asc.select, dst, sel, src0, second, mode, *shape)
            row = SELECT[chip]
            if row is None:
                assert got == "unsupported: product", (name, mode, form, got)
                continue
            modes, count_t, mask_t, _ = row
            if name not in (count_t if form == "count" else mask_t):
                assert got == "unsupported: dst dtype", (name, mode, form, got)
            elif mode not in modes or (dtype.itemsize == 8 and mode == 0):  # b64 mode 0: ref §9.5, not modelled
                assert got == "unsupported: sel_mode", (name, mode, form, got)
            else:
                assert got == "ok", (name, mode, form, got)


@pytest.mark.parametrize("chip", ROWS)
def test_select_no_mask_forms(chip):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        core.cmpmask = (0x4000).to_bytes(8, "little") * 2  # mode 2 reads the selMask address from CMPMASK
        for name in ("float16", "float32"):
            _, dst, sel, src0, src1 = select_args(core, name)
            got = {0: outcome(asc.select, dst, src0, src1, 1, B, 0), 1: outcome(asc.select, dst, sel, src0, 1, B),
                   2: outcome(asc.select, dst, src0, src1, 1, B, 2)}
            row = SELECT[chip]
            if row is None:
                assert set(got.values()) == {"unsupported: product"}, got
                continue
            assert got == {mode: "ok" if mode in row[3] else "unsupported: sel_mode" for mode in (0, 1, 2)}, \
                (chip, name, got)


# ----------------------------------------------------------------- Compare
# row: (T, EQ-only T, count-only T, U); None: 不支持
COMPARE = {
    "950": (B16_B32_950 | COUNT_ONLY_950 | {"float64"}, set(), COUNT_ONLY_950 | {"float64"}, {"int8", "uint8"}),
    "A3": (HALF_FLOAT | {"int32"}, {"int32"}, set(), {"int8", "uint8"}),
    "A2": (HALF_FLOAT | {"int32"}, {"int32"}, set(), {"int8", "uint8"}),
    "310B": (HALF_FLOAT, set(), set(), {"int8", "uint8"}),
    "310P": (HALF_FLOAT, set(), set(), {"int8", "uint8"}),
    "310P-VEC": None,
    "910": (HALF_FLOAT, set(), set(), {"int8", "uint8"}),
    "KirinX90": (HALF_FLOAT | {"int32"}, {"int32"}, set(), {"uint8"}),
    "Kirin9030": (HALF_FLOAT | {"int32"}, {"int32"}, set(), {"uint8"}),
}
COMPARES = {
    "950": (B16_B32_950 | COUNT_ONLY_950 | {"float64"}, {"float64"}, COUNT_ONLY_950 | {"float64"}),
    "A3": (HALF_FLOAT | {"int32"}, {"int32"}, set()),
    "A2": (HALF_FLOAT | {"int32"}, {"int32"}, set()),
    "310B": ({"int16", "uint16", "float16", "int32", "uint32", "float32"}, set(), set()),
    "310P": (HALF_FLOAT, set(), set()),
    "310P-VEC": None,
    "910": None,  # Compares.md: Atlas 训练系列产品 不支持
    "KirinX90": (HALF_FLOAT | {"int32"}, {"int32"}, set()),
    "Kirin9030": (HALF_FLOAT | {"int32"}, {"int32"}, set()),
}
# Compare（结果存入寄存器）.md: half and float where 支持 (Kirin is not listed there)
COMPARE_TO_CMPMASK = {"950", "A3", "A2", "310P"}


def compare_tensors(name: str, bits: str = "uint8"):
    dtype = getattr(asc, name)
    src0, src1 = (asc.LocalTensor(dtype, VECIN, addr, 4096 // dtype.itemsize) for addr in (0x2000, 0x3000))
    return dtype, asc.LocalTensor(getattr(asc, bits), VECOUT, 0x5000, 256), src0, src1


def expected_compare(row, name: str, form: str, mode: asc.CMPMODE) -> str:
    if row is None:
        return "unsupported: product"
    types, eq_only, count_only = row[:3]
    if name not in types or (form != "count" and name in count_only):
        return "unsupported: src0 dtype"
    if name in eq_only and mode != asc.CMPMODE.EQ:
        return "unsupported: cmp_mode"
    return "ok"


@pytest.mark.parametrize("chip", ROWS)
def test_compare_support(chip):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        for name, mode, form in itertools.product(TYPES, (asc.CMPMODE.LT, asc.CMPMODE.EQ), ("count", "mask")):
            dtype, dst, src0, src1 = compare_tensors(name)
            lanes = 256 // dtype.itemsize
            shape = (lanes,) if form == "count" else ([1, 0], 1, B)
            got = outcome(asc.compare, dst, src0, src1, mode, *shape)
            assert got == expected_compare(COMPARE[chip], name, form, mode), (name, mode, form)
            shape = (lanes,) if form == "count" else ([1, 0], 1, U)
            got = outcome(asc.compare_scalar, dst, src0, 1, mode, *shape)
            assert got == expected_compare(COMPARES[chip], name, form, mode), ("scalar", name, mode, form)


@pytest.mark.parametrize("chip", ROWS)
def test_compare_bitmask_types(chip):
    """U: int8 and uint8 for Compare (Kirin: uint8 only); uint8 only for Compares."""
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        for bits in ("uint8", "int8", "uint16"):
            _, dst, src0, src1 = compare_tensors("float16", bits)
            got = outcome(asc.compare, dst, src0, src1, asc.CMPMODE.LT, 128)
            row = COMPARE[chip]
            want = "unsupported: product" if row is None else "ok" if bits in row[3] else "unsupported: dst dtype"
            assert got == want, (bits, got)
            got = outcome(asc.compare_scalar, dst, src0, 1.0, asc.CMPMODE.LT, 128)
            row = COMPARES[chip]
            want = "unsupported: product" if row is None else "ok" if bits == "uint8" else "unsupported: dst dtype"
            assert got == want, ("scalar", bits, got)


@pytest.mark.parametrize("chip", ROWS)
def test_compare_to_cmpmask_support(chip):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        core.cmpmask = bytes(16)  # masked-off bits keep the register's value (A2/A3/310P)
        for name in ("float16", "float32", "int32", "int16"):
            _, _, src0, src1 = compare_tensors(name)
            got = outcome(asc.compare, src0, src1, asc.CMPMODE.LT, [1, 0], B)
            if chip not in COMPARE_TO_CMPMASK:
                assert got == "unsupported: product", (name, got)
            else:
                assert got == ("ok" if name in HALF_FLOAT else "unsupported: src0 dtype"), (name, got)


# -------------------------------------------------------------------- C API
C_API = {"A2", "A3"}


@pytest.mark.parametrize("chip", ROWS)
def test_c_api_select_and_compares(chip):
    with asc.Core(chip) as core:
        fill(core, 0, 0x8000)
        core.cmpmask = bytes(16)
        results = {}
        for name in ("float16", "float32", "int32"):
            _, dst, src0, src1 = compare_tensors(name)
            _, out, *_ = select_args(core, name)
            strides = (1, 1, 1, 1, 8, 8, 8)
            results[name] = {
                "asc_select": outcome(asc.asc_select, out, src0, src1, 64),
                "asc_lt": outcome(asc.asc_lt, dst, src0, src1, *strides),
                "asc_eq": outcome(asc.asc_eq, dst, src0, src1, *strides),
                "asc_lt to CMPMASK": outcome(asc.asc_lt, src0, src1, *strides),
                "asc_eq_scalar": outcome(asc.asc_eq_scalar, dst, src0, 1, 1, 1, 1, 8, 8),
                "asc_ne_scalar": outcome(asc.asc_ne_scalar, dst, src0, 1, 1, 1, 1, 8, 8),
            }
        for name, got in results.items():
            if chip not in C_API:
                assert set(got.values()) == {"unsupported: product"}, (name, got)
                continue
            if name in HALF_FLOAT:
                assert set(got.values()) == {"ok"}, (name, got)
            else:  # int32: asc_eq and asc_eq_scalar only (asc_eq.md, asc_eq_scalar.md)
                assert got["asc_eq"] == got["asc_eq_scalar"] == "ok", got
                assert all(v.startswith("unsupported") for k, v in got.items() if "eq" not in k), got


def test_an_accepted_call_is_not_merely_unraised():
    """The support tests above treat 'no UnsupportedError' as 'ok'; an ok call must also have run."""
    with asc.Core("KirinX90") as core:
        fill(core, 0, 0x8000)
        _, dst, sel, src0, src1 = select_args(core, "int32")
        core.ub_write(0x4000, b"\xff" * 32)
        asc.select(dst, sel, src0, src1, 2, [0xFFFF_FFFF_FFFF_FFFF, 0], 1, B)
        assert core.ub_read(0x1000, 256) == core.ub_read(0x2000, 256)
        with pytest.raises(ConstraintError):
            asc.select(dst, sel, src0, src1, 2, [1, 1], 1, B)  # 32-bit data: mask[1] must be 0
