"""data_type_t, scalar_t, var_type_t, variable_t, dim4 (sophgo-semantics §2, §4.5)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from npusim import sophgo as tpu
from npusim.errors import ParameterRangeError, UnsupportedError

from ..float_reference import expected_bits

# name -> (value, bits) from the reference table (§2)
VENDOR_DTYPES = {
    "DT_UINT8": (0, 8), "DT_INT8": (1, 8), "DT_FP16": (3, 16), "DT_FP32": (5, 32),
    "DT_UINT16": (6, 16), "DT_INT16": (7, 16), "DT_UINT32": (8, 32), "DT_INT32": (9, 32),
    "DT_BFP16": (11, 16), "DT_UINT4": (12, 4), "DT_INT4": (13, 4), "DT_FP8E5M2": (15, 8),
    "DT_FP8E4M3": (47, 8), "DT_FP20": (17, 20), "DT_TF32": (19, 32),
}  # fmt: skip


@pytest.mark.parametrize(("name", "value_bits"), VENDOR_DTYPES.items())
def test_data_type_values_and_widths_are_the_vendors(name, value_bits):
    value, bits = value_bits
    dt = getattr(tpu, name)
    assert dt == value and dt.name == name and tpu.data_type_t(value) is dt
    assert tpu.tpu_data_type_bits(dt) == bits == tpu.tpu_data_type_bits(value)


def test_every_data_type_is_listed_here():
    assert {d.name for d in tpu.data_type_t} == set(VENDOR_DTYPES)


def test_precision_field_encoding():
    """bit 0 = signed, bits 4..1 = precision, bit 5 = FP8 sub-type."""
    codes = (0, 1, 3, 5, 7, 9, 11, 13, 15, 47)
    assert [tpu.data_type_t(v).precision for v in codes] == [0, 0, 1, 2, 3, 4, 5, 6, 7, 7]


def test_data_type_size():
    types = (tpu.DT_INT8, tpu.DT_FP16, tpu.DT_FP32, tpu.DT_FP8E4M3)
    assert [tpu.tpu_data_type_size(d) for d in types] == [1, 2, 4, 1]
    for dt in (tpu.DT_INT4, tpu.DT_UINT4, tpu.DT_FP20):
        with pytest.raises(UnsupportedError, match="not a whole number of bytes"):
            tpu.tpu_data_type_size(dt)
    with pytest.raises(UnsupportedError, match="unknown data_type_t value"):
        tpu.tpu_data_type_bits(2)


# ------------------------------------------------------------------ scalar_t


def test_scalar_views_alias_the_low_bytes():
    s = tpu.scalar_t(u32=0xDEAD3C00)
    assert (s.u32, s.u16, s.u8, s.s8, s.s16) == (0xDEAD3C00, 0x3C00, 0x00, 0, 0x3C00)
    assert s.s32 == 0xDEAD3C00 - 2**32
    assert s.f16 == 1.0  # §4.5: the high half is ignored by an FP16 reader
    assert tpu.scalar_t(u32=0x3F800000).f32 == 1.0 and tpu.scalar_t(u32=0x3F80).bf16 == 1.0
    assert s.to_bytes() == bytes([0x00, 0x3C, 0xAD, 0xDE])


@pytest.mark.parametrize(
    ("view", "value", "u32"),
    [
        ("u8", 0xFA, 0xFA), ("s8", -6, 0xFA), ("u16", 0xFFFF, 0xFFFF), ("s16", -2, 0xFFFE),
        ("u32", 0xFFFFFFFF, 0xFFFFFFFF), ("s32", -1, 0xFFFFFFFF), ("s32", -(2**31), 0x80000000),
        ("f32", 1.5, 0x3FC00000), ("f32", -0.0, 0x80000000), ("f32", math.inf, 0x7F800000),
        ("f32", 1e39, 0x7F800000), ("f32", 1e-45, 0x00000001),
        ("f16", 1.0, 0x3C00), ("f16", 65520.0, 0x7C00), ("f16", 2.0**-24, 0x0001),
        ("f16", 1 + 2**-11 + 2**-40, 0x3C01),
        ("bf16", 1.0, 0x3F80), ("bf16", -2.0, 0xC000), ("bf16", 1 + 2**-8 + 2**-30, 0x3F81),
        ("bf16", 1 + 2**-8, 0x3F80), ("bf16", 3.4e38, 0x7F80), ("bf16", math.nan, 0x7FC0),
    ],
)  # fmt: skip
def test_scalar_from_one_view(view, value, u32):
    """Integers store two's complement; floats round to nearest even, overflow to inf."""
    assert tpu.scalar_t(**{view: value}).u32 == u32


def test_scalar_float_views_match_the_exact_reference_for_many_values():
    """The expected bits come from exact rational rounding (tests/float_reference.py), not a library cast."""
    rng = np.random.default_rng(0)
    scaled = rng.standard_normal(200) * 10.0 ** rng.integers(-45, 39, 200)
    values = [float(v) for v in scaled] + [0.0, -0.0, 1e-46]
    for view, name in (("f32", "float32"), ("f16", "float16"), ("bf16", "bfloat16")):
        got = [tpu.scalar_t(**{view: v}).u32 for v in values]
        assert got == [expected_bits(v, name) for v in values], view


def test_scalar_default_and_equality():
    assert tpu.scalar_t().u32 == 0
    assert tpu.scalar_t(s8=-1) == tpu.scalar_t(u32=0xFF) != tpu.scalar_t(u32=0xFFFF)
    assert len({tpu.scalar_t(u8=1), tpu.scalar_t(u32=1)}) == 1
    assert repr(tpu.scalar_t(u32=0x3C00)) == "scalar_t(u32=0x00003c00)"


@pytest.mark.parametrize(
    ("view", "value"), [("u8", 256), ("u8", -1), ("s8", 128), ("s16", -32769), ("u32", 2**32)]
)
def test_scalar_integer_out_of_range(view, value):
    with pytest.raises(ParameterRangeError, match=f"scalar_t: {view} = "):
        tpu.scalar_t(**{view: value})


@pytest.mark.parametrize(
    "kwargs", [{"u8": 1.5}, {"f32": "1"}, {"u32": True}, {"f16": None}, {"x": 1}, {"u8": 1, "u16": 2}]
)
def test_scalar_type_errors(kwargs):
    with pytest.raises(TypeError):
        tpu.scalar_t(**kwargs)


def test_scalar_is_immutable():
    s = tpu.scalar_t(u32=1)
    with pytest.raises(AttributeError):
        s.u32 = 2


# ------------------------------------------------------------------ variable_t, dim4


def test_var_type_values():
    assert (tpu.TENSOR, tpu.SCALAR, tpu.VECTOR) == (0, 1, 2)


def test_variable_construction():
    t = tpu.variable_t(type=tpu.TENSOR, addr=np.int64(0x40))
    assert (t.type, t.addr, t.scalar) == (tpu.TENSOR, 0x40, None) and type(t.addr) is int
    s = tpu.variable_t(type=tpu.SCALAR, scalar=tpu.scalar_t(f32=2.0))
    assert s.scalar.f32 == 2.0 and s.addr is None
    assert tpu.variable_t(type=2, addr=0).type is tpu.VECTOR


@pytest.mark.parametrize(
    "kwargs",
    [
        {"type": tpu.SCALAR, "addr": 0}, {"type": tpu.SCALAR}, {"type": tpu.SCALAR, "scalar": 5},
        {"type": tpu.TENSOR}, {"type": tpu.TENSOR, "addr": "0x40"}, {"type": tpu.VECTOR, "addr": 0,
        "scalar": tpu.scalar_t()}, {"type": 3, "addr": 0}, {"type": "TENSOR", "addr": 0},
    ],
)  # fmt: skip
def test_variable_misuse_is_a_type_error(kwargs):
    with pytest.raises(TypeError, match="variable_t"):
        tpu.variable_t(**kwargs)


def test_dim4():
    d = tpu.dim4(1, 2, 3, np.int32(4))
    assert tuple(d) == d.as_tuple() == (1, 2, 3, 4) and d == tpu.dim4(n=1, c=2, h=3, w=4)
    with pytest.raises(TypeError, match=r"dim4\.h"):
        tpu.dim4(1, 2, 3.0, 4)
