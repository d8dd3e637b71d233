"""Product rows, lookups by short and SoC name, and LocalTensor's pyasc-style API."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from npusim import ascend as asc
from npusim.ascend.chips import CHIPS
from npusim.errors import OutOfBoundsError, ParameterRangeError, UnsupportedError

KIB = 1024
# issue 2 / ref §1.5: the UB each product row must model
UB = {"950": 256, "A3": 192, "A2": 192, "310B": 248, "310P": 256, "310P-VEC": 256, "910": 256,
      "KirinX90": 118, "Kirin9030": 118}
SOC = {"Ascend910B1": "A2", "Ascend910_9391": "A3", "Ascend950PR_9599": "950", "Ascend310P1": "310P",
       "Ascend310B1": "310B", "Ascend910A": "910"}


def test_every_seed_product_has_a_row():
    assert set(CHIPS) == set(UB)


# The product lines the Ascend C API pages list under "产品支持情况" (the names errors quote to the user).
PRODUCT = {"950": "Ascend 950PR/Ascend 950DT", "A3": "Atlas A3 training/inference series",
           "A2": "Atlas A2 training/inference series", "310B": "Atlas 200I/500 A2 inference",
           "310P": "Atlas inference series AI Core", "310P-VEC": "Atlas inference series Vector Core",
           "910": "Atlas training series", "KirinX90": "Kirin X90", "Kirin9030": "Kirin 9030"}


@pytest.mark.parametrize("name", sorted(PRODUCT))
def test_product_line_of_every_row(name):
    assert CHIPS[name].product == PRODUCT[name]


def test_product_rows_are_read_only():
    """A row is shared by every core of the process: assigning a field must fail, not change them all."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        CHIPS["A2"].product = "Atlas 300"


@pytest.mark.parametrize("name", sorted(UB))
def test_ub_size(name):
    with asc.Core(name) as core:
        assert core.ub.size_bytes == UB[name] * KIB


@pytest.mark.parametrize("soc,short", sorted(SOC.items()))
def test_lookup_by_soc_name(soc, short):
    assert asc.get_chip(soc) is CHIPS[short]


def test_default_chip_is_a2():
    with asc.Core() as core:
        assert core.chip.name == "A2"


def test_unknown_chip():
    with pytest.raises(UnsupportedError, match="unknown Ascend product.*A2 \\(Ascend910B1\\)"):
        asc.Core("Ascend999")


def test_a2_scratch_offset_is_184_kib():
    assert CHIPS["A2"].select.scratch_offset_bytes == 184 * KIB
    assert CHIPS["310P"].select.scratch_offset_bytes == 248 * KIB


def test_cores_nest_and_instructions_use_the_innermost():
    with asc.Core("A2") as outer:
        with asc.Core("950") as inner:
            assert asc.current_core("x") is inner
        assert asc.current_core("x") is outer


def test_local_tensor_views_and_values():
    with asc.Core("A2"):
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0x100, 64)
        t.write(np.arange(64))
        view = t[16:]
        assert view.get_phy_addr() == 0x100 + 32 and view.tile_size == 48
        assert t[16].get_phy_addr() == view.get_phy_addr()
        assert view.get_value(0) == np.float16(16)
        view.set_value(1, 99.0)
        assert t.read()[17] == np.float16(99)
        assert t.reinterpret_cast(asc.uint16).read()[1] == 0x3C00


def test_local_tensor_extent_checks():
    with asc.Core("A2"):
        with pytest.raises(OutOfBoundsError):
            asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0x100, 64).write(np.zeros(65))
        with pytest.raises(Exception, match="tile_size"):
            asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 192 * KIB - 64, 17)
        with pytest.raises(Exception, match="index"):
            asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 4).get_value(4)


def test_local_tensor_dtype_and_position_are_read_only():
    """Assigning them by hand later raised AttributeError inside an instruction (``"float32".name``)."""
    with asc.Core("A2") as core:
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 128)
        for name, value in (("dtype", "float32"), ("dtype", asc.float32), ("position", asc.TPosition.VECOUT),
                            ("core", None), ("lease", None), ("geometry_key", (128, "float32", 9))):
            with pytest.raises(AttributeError, match=f"LocalTensor.{name} is read-only"):
                setattr(t, name, value)
        assert (t.dtype, t.position, t.core, t.geometry_key) == (asc.float16, asc.TPosition.VECIN, core,
                                                                  (128, "float16", int(asc.TPosition.VECIN)))
        core.ub_write(0, np.full(128, -1.5, np.float16).tobytes())
        asc.abs(t, t, 128)
        assert t.read().tobytes() == np.full(128, 1.5, np.float16).tobytes()
        assert t.reinterpret_cast(asc.int16).dtype == asc.int16  # the way to another type
        view = t[16:]  # a derived tensor is a LocalTensor like any other: the same read-only fields
        assert (type(view), view.addr, view.tile_size, view.geometry_key) == (
            asc.LocalTensor, 32, 112, (112, "float16", int(asc.TPosition.VECIN)))
        with pytest.raises(AttributeError, match="LocalTensor.dtype is read-only"):
            view.dtype = asc.float32


def test_local_tensor_addr_and_tile_size_assignments_are_checked():
    with asc.Core("A2"):
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        t.addr, t.tile_size = 0x100, 32
        assert (t.addr, t.geometry_key) == (0x100, (32, "float32", int(asc.TPosition.VECIN)))  # the key follows
        with pytest.raises(TypeError, match="LocalTensor.addr: addr must be an integer"):
            t.addr = "0x200"  # was accepted, then a TypeError from string formatting inside an instruction
        with pytest.raises(ParameterRangeError, match="addr"):
            t.addr = -32
        with pytest.raises(ParameterRangeError, match="tile_size"):
            t.tile_size = 192 * KIB
        assert (t.addr, t.tile_size) == (0x100, 32)


def test_aliases():
    assert asc.half is asc.float16 and asc.float_ is asc.float32
    assert asc.SELMODE is asc.SelMode
