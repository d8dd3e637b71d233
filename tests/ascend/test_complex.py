"""complex32 / complex64 on the 950 (docs/semantics.md §5.29): the element types, Add/Sub/Mul/Div and their
scalar forms (Adds, Muls, Subs, Divs, the scalar on either side), Abs of a complex source, against the
per-lane reference of ``complex_reference.py``, byte for byte; the Abs page's worked example; rejections.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import ConstraintError, OverlapError, UnsupportedError

from . import cast_reference
from . import complex_reference as cref
from . import reference_model as ref
from .conftest import state
from .test_elementwise import SETTINGS, special_bits

COMPLEX = {"complex32": asc.complex32, "complex64": asc.complex64}
REAL = {"complex32": asc.float16, "complex64": asc.float32}
BINARY = ("add", "sub", "mul", "div")
SCALAR = {"adds": "add", "muls": "mul", "subs": "sub", "divs": "div"}


def component_bits(fmt: str):
    comp = cref.COMPONENT[fmt]
    width = 8 * ref.FORMATS[comp][0]
    return st.one_of(st.sampled_from(special_bits(comp)), st.integers(0, (1 << width) - 1),
                     st.sampled_from([0x3C00, 0x4000, 0xBC00, 0x3800] if comp == "float16" else
                                     [0x3F800000, 0x40000000, 0xBF800000, 0x3F000000]))


def complex_bits(fmt: str):
    return st.builds(lambda re, im: cref.whole(re, im, fmt), component_bits(fmt), component_bits(fmt))


def to_bytes(lanes: list[int], size: int) -> bytes:
    return b"".join(bits.to_bytes(size, "little") for bits in lanes)


def lanes_of(raw: bytes, size: int) -> list[int]:
    return [int.from_bytes(raw[i:i + size], "little") for i in range(0, len(raw), size)]


SRC0, SRC1, DST = 0, 0x8000, 0x10000


# ------------------------------------------------------------------ the element types
def test_element_types():
    assert asc.complex32.itemsize == 4 and asc.complex64.itemsize == 8
    assert asc.complex32.is_complex() and not asc.complex32.is_float()
    assert asc.complex32.component is asc.float16 and asc.complex64.component is asc.float32
    with asc.Core("950"):
        t = asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, 0, 8)
        t.write([1 + 2j, -0.5, 70000 - 1j])  # each part rounded once to half; 70000 overflows to inf
        raw = lanes_of(bytes(t.read(3).view(np.uint8)), 4)
        assert raw == [0x40003C00, 0x0000B800, 0xBC007C00]
        u = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 64, 4)
        u.write(np.array([1 / 3 + 0.1j]))
        assert u.read(1)[0] == np.complex64(1 / 3 + 0.1j)


# ------------------------------------------------------------------ binary and scalar forms
@st.composite
def binary_cases(draw):
    fmt = draw(st.sampled_from(sorted(COMPLEX)))
    op = draw(st.sampled_from(BINARY + tuple(SCALAR)))
    size = cref.SIZE[fmt]
    count = draw(st.integers(1, 3 * 256 // size + 5))
    x = draw(st.lists(complex_bits(fmt), min_size=count, max_size=count))
    y = draw(st.lists(complex_bits(fmt), min_size=count, max_size=count))
    scalar_first = draw(st.booleans()) if op in ("subs", "divs") else False
    return dict(fmt=fmt, op=op, count=count, x=x, y=y, scalar=draw(complex_bits(fmt)), scalar_first=scalar_first)


def _scalar_value(bits: int, fmt: str) -> complex:
    """A Python complex whose parts round to ``bits``' parts exactly (NaN payloads become canonical: the
    scalar is a number, not bits)."""
    comp = cref.COMPONENT[fmt]
    np_type = np.float16 if comp == "float16" else np.float32
    re, im = (np.array([p], dtype=np.uint16 if comp == "float16" else np.uint32).view(np_type)[0]
              for p in cref.parts(bits, fmt))
    return complex(float(re), float(im))


@SETTINGS
@given(binary_cases())
def test_complex_arithmetic_matches_the_reference(case):
    fmt, op, count, size = case["fmt"], case["op"], case["count"], cref.SIZE[case["fmt"]]
    saturate = fmt == "complex32"  # the 950's half computations saturate (docs/numerics.md)
    with asc.Core("950") as core:
        core.ub_write(SRC0, to_bytes(case["x"], size))
        core.ub_write(SRC1, to_bytes(case["y"], size))
        x, y, z = (asc.LocalTensor(COMPLEX[fmt], asc.TPosition.VECCALC, a, count) for a in (SRC0, SRC1, DST))
        if op in BINARY:
            getattr(asc, op)(z, x, y, count)
            expected = [cref.lane_bits(op, fmt, a, b, saturate) for a, b in zip(case["x"], case["y"], strict=True)]
        else:
            value = _scalar_value(case["scalar"], fmt)
            scalar = asc_scalar_bits(value, fmt)
            if case["scalar_first"]:
                getattr(asc, op)(z, value, x, count)
                pairs = [(scalar, a) for a in case["x"]]
            else:
                getattr(asc, op)(z, x, value, count)
                pairs = [(a, scalar) for a in case["x"]]
            expected = [cref.lane_bits(SCALAR[op], fmt, a, b, saturate) for a, b in pairs]
        assert lanes_of(core.ub_read(DST, count * size), size) == expected


def finite_float_bits():
    """float32 bit patterns of magnitude below 2**60 (subnormals and zeros included): products and sums of two
    such parts stay finite, so no lane of a complex64 add / sub / mul meets the NaN or infinity rule."""
    return st.integers(0, 0x5D7FFFFF) | st.integers(0x80000000, 0xDD7FFFFF)


@SETTINGS
@given(op=st.sampled_from(("add", "sub", "mul", "adds", "muls", "subs")), data=st.data())
def test_complex64_finite_lanes_match_the_reference(op, data):
    """complex64 add / sub / mul with every part finite (magnitudes below 2**60, so every result is finite too):
    the calls whose lanes all stay finite, which the property above, with a special value in almost every
    array, seldom draws; each lane against the reference's rounded steps (e = a*c, f = b*d, g = b*c, h = a*d)."""
    count = data.draw(st.integers(1, 70))
    parts = st.builds(lambda re, im: cref.whole(re, im, "complex64"), finite_float_bits(), finite_float_bits())
    x = data.draw(st.lists(parts, min_size=count, max_size=count))
    y = data.draw(st.lists(parts, min_size=count, max_size=count))
    scalar = data.draw(parts)
    with asc.Core("950") as core:
        core.ub_write(SRC0, to_bytes(x, 8))
        core.ub_write(SRC1, to_bytes(y, 8))
        a, b, z = (asc.LocalTensor(asc.complex64, asc.TPosition.VECCALC, addr, count) for addr in (SRC0, SRC1, DST))
        if op in BINARY:
            getattr(asc, op)(z, a, b, count)
            pairs = list(zip(x, y, strict=True))
        else:
            value = _scalar_value(scalar, "complex64")
            first = op == "subs" and data.draw(st.booleans())
            getattr(asc, op)(*((z, value, a) if first else (z, a, value)), count)
            pairs = [(scalar, u) if first else (u, scalar) for u in x]
        expected = [cref.lane_bits(SCALAR.get(op, op), "complex64", u, v, False) for u, v in pairs]
        assert lanes_of(core.ub_read(DST, count * 8), 8) == expected


def asc_scalar_bits(value: complex, fmt: str) -> int:
    """The scalar's bits as the reference rounds it: each part to the component type."""
    comp = cref.COMPONENT[fmt]
    re = ref.scalar_to_bits(value.real, comp)
    im = ref.scalar_to_bits(value.imag, comp)
    return cref.whole(re, im, fmt)


# ------------------------------------------------------------------ Abs of a complex source
@SETTINGS
@given(fmt=st.sampled_from(sorted(COMPLEX)), data=st.data())
def test_complex_abs_matches_the_reference(fmt, data):
    size, count = cref.SIZE[fmt], data.draw(st.integers(1, 200))
    x = data.draw(st.lists(complex_bits(fmt), min_size=count, max_size=count))
    real = REAL[fmt]
    with asc.Core("950") as core:
        core.ub_write(SRC0, to_bytes(x, size))
        src = asc.LocalTensor(COMPLEX[fmt], asc.TPosition.VECCALC, SRC0, count)
        dst = asc.LocalTensor(real, asc.TPosition.VECCALC, DST, count)
        asc.abs(dst, src, count)
        got = lanes_of(core.ub_read(DST, count * real.itemsize), real.itemsize)
    assert got == [cref.lane_bits("abs", fmt, a, None, fmt == "complex32") for a in x]


def test_abs_page_example():
    """Abs.md 调用示例 (the 950, complex64 -> float, count 512): [1+2j 2-3j ...] -> [2.236 3.605 ...].  The page
    prints the magnitudes cut to three decimals (sqrt(13) = 3.60555... prints 3.605)."""
    values = np.array([1 + 2j, 2 - 3j] * 256, dtype=np.complex64)
    with asc.Core("950"):
        src = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0, 512)
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 512)
        src.write(values)
        asc.abs(dst, src, 512)
        out = dst.read()
    raw = lanes_of(bytes(values.view(np.uint8)), 8)
    expected = [cref.lane_bits("abs", "complex64", bits, None, False) for bits in raw]
    assert lanes_of(bytes(out.view(np.uint8)), 4) == expected
    assert [np.floor(float(v) * 1000) / 1000 for v in out[:2]] == [2.236, 3.605]
    assert out[0] == np.float32(np.sqrt(np.float32(5))) and out[1] == np.float32(np.sqrt(np.float32(13)))


# ------------------------------------------------------------------ worked cases of the lowering
def test_mul_rounds_each_product_then_the_sum():
    """ComplexMulKernel in half: with a = c = 1 + 2**-10, b = 1, d = 1 + 2**-9, a*c = 1 + 2**-9 + 2**-20 rounds to
    1 + 2**-9 = b*d before the subtraction, so the real part is 0 (a fused or float computation gives 2**-20)."""
    x_bits, y_bits = cref.whole(0x3C01, 0x3C00, "complex32"), cref.whole(0x3C01, 0x3C02, "complex32")
    with asc.Core("950") as core:
        core.ub_write(0, x_bits.to_bytes(4, "little"))
        core.ub_write(64, y_bits.to_bytes(4, "little"))
        x, y, z = (asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, a, 16) for a in (0, 64, 128))
        asc.mul(z, x, y, 1)
        got = lanes_of(core.ub_read(128, 4), 4)[0]
    assert cref.parts(got, "complex32") == (0x0000, 0x4002)  # 0 + (2 + 2**-8)i
    assert got == cref.lane_bits("mul", "complex32", x_bits, y_bits, True)


def test_half_steps_saturate():
    """complex32 runs in half, and the 950's half computations saturate: |300 + 300i| squares each part to
    90000 > 65504, saturated to 65504, and their sum saturates again: the magnitude is sqrt(65504) rounded to
    half, 255.875, not 424.26."""
    with asc.Core("950"):
        src = asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, 0, 16)
        dst = asc.LocalTensor(asc.half, asc.TPosition.VECOUT, 64, 16)
        src.write([300 + 300j])
        asc.abs(dst, src, 1)
        assert float(dst.read(1)[0]) == 255.875


def test_division_by_zero_follows_the_zero_branch():
    """ComplexDivKernel: |c| = |d| = 0 gives a / |c| and b / |d| (±inf, or NaN for 0 / 0), not numpy's."""
    with asc.Core("950") as core:
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0, 16)
        y = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 128, 16)
        z = asc.LocalTensor(asc.complex64, asc.TPosition.VECOUT, 256, 16)
        x.write([1 - 2j, 0 + 3j])
        y.write([complex(-0.0, 0.0), 0j])
        asc.div(z, x, y, 2)
        got = z.read(2)
        assert got[0].real == np.inf and got[0].imag == -np.inf
        assert np.isnan(got[1].real) and got[1].imag == np.inf
        assert lanes_of(core.ub_read(256, 8), 8)[0] == cref.whole(0x7F800000, 0xFF800000, "complex64")


def test_flexible_scalar_from_a_tensor_element():
    """Muls（灵活标量位置）: the scalar is a complex tensor's first element."""
    with asc.Core("950"):
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0, 8)
        s = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 128, 4)
        z = asc.LocalTensor(asc.complex64, asc.TPosition.VECOUT, 256, 8)
        x.write([1 + 1j, 2 - 1j])
        s.write([0 + 1j])
        asc.muls(z, s, x, 2, scalar_tensor_index=0)
        assert list(z.read(2)) == [-1 + 1j, 1 + 2j]


# ------------------------------------------------------------------ rejections
def _rejected(core, call, error=ConstraintError, match=None):
    """``call()`` raises ``error`` (its message matching ``match``) and leaves UB, its shadow and the registers."""
    before = state(core)
    with pytest.raises(error, match=match) as caught:
        call()
    assert state(core) == before
    if isinstance(caught.value, ConstraintError):
        assert caught.value.instruction and caught.value.operand and caught.value.source


@pytest.mark.parametrize("chip", ["A2", "A3", "310P", "910", "310B", "KirinX90"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_products_without_complex_reject_it(chip, op):
    with asc.Core(chip) as core:
        core.ub_write(0, bytes(512))
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECCALC, 0, 32)
        _rejected(core, lambda: getattr(asc, op)(x, x, x, 32), UnsupportedError, "complex64")
        f = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 256, 32)
        _rejected(core, lambda: asc.abs(f, x, 32), UnsupportedError, "not supported on this product")


def test_complex_takes_only_the_count_form():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(2048))
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECCALC, 0, 64)
        z = asc.LocalTensor(asc.complex64, asc.TPosition.VECCALC, 1024, 64)
        _rejected(core, lambda: asc.add(z, x, x, 32, 1, asc.BinaryRepeatParams()), UnsupportedError,
                  "in this form")
        _rejected(core, lambda: asc.muls(z, x, 2j, 32, 1, asc.UnaryRepeatParams()), UnsupportedError,
                  "in this form")
        f = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 64)
        _rejected(core, lambda: asc.abs(f, x, 32, 1, asc.UnaryRepeatParams()), UnsupportedError, "count form")


def test_rejected_complex_calls():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(4096))
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECCALC, 0, 64)
        h = asc.LocalTensor(asc.half, asc.TPosition.VECCALC, 1024, 64)
        f = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2048, 64)
        # Abs: complex64's magnitude is a float; a complex dst or an in-place partial overlap is wrong
        _rejected(core, lambda: asc.abs(h, x, 8), UnsupportedError, "float32")
        _rejected(core, lambda: asc.abs(x, x, 8), UnsupportedError, "float32")
        overlapping = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        _rejected(core, lambda: asc.abs(overlapping, x, 64), OverlapError)
        # no Max/Min/Relu/Exp of complex values (数据类型)
        _rejected(core, lambda: asc.max(x, x, x, 8), UnsupportedError, "complex64")
        _rejected(core, lambda: asc.exp(x, x, 8), UnsupportedError, "complex64")
        # a complex scalar belongs to a complex tensor only; mixed element types are rejected
        _rejected(core, lambda: asc.muls(f, f, 1 + 1j, 8), TypeError, "real number")
        _rejected(core, lambda: asc.add(x, x, f.reinterpret_cast(asc.complex32), 8), UnsupportedError)
        # the count still bounds the tensors
        _rejected(core, lambda: asc.add(x, x, x, 65), ConstraintError)


# ------------------------------------------------------------------ bytes of the element size: movement, fill, select
def _gm(array: np.ndarray) -> asc.GlobalTensor:
    g = asc.GlobalTensor()
    g.set_global_buffer(array)
    return g


def test_data_copy_moves_complex_elements_as_bytes():
    """DataCopy GM -> UB -> UB -> GM (the 950's pages list complex32/complex64): the bytes, NaN payloads
    included, arrive unchanged."""
    src = (np.arange(64) * (1 - 2j)).astype(np.complex64)
    src.view(np.uint32)[3] = 0x7F800123  # a signalling NaN in a real part
    out = np.zeros(64, dtype=np.complex64)
    with asc.Core("950"):
        a = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(asc.complex64, asc.TPosition.VECOUT, 1024, 64)
        asc.data_copy(a, _gm(src), 64)
        asc.data_copy(b, a, 64)
        asc.data_copy(_gm(out), b, 64)
    assert out.tobytes() == src.tobytes()


def test_data_copy_pad_of_complex32():
    """DataCopyPad GM -> UB of 3 complex32 elements (12 bytes) a row, padded to a 32-byte block."""
    src = np.arange(6, dtype=np.uint32) | 0x3C000000
    with asc.Core("950") as core:
        core.ub_write(0, bytes(range(64)))
        ub = asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, 0, 16)
        g = asc.GlobalTensor()
        g.set_global_buffer(src.view(asc.complex32.np_dtype))
        asc.data_copy_pad(ub, g, asc.DataCopyExtParams(2, 12, 0, 0, 0),
                          asc.DataCopyPadExtParams(asc.complex32, False, 0, 0, 0))
        got = lanes_of(core.ub_read(0, 64), 4)
    assert got[0:3] == list(src[0:3]) and got[8:11] == list(src[3:6])


def test_duplicate_select_of_complex():
    """Duplicate (count form) writes the scalar's two parts; Select (count form) picks whole elements."""
    with asc.Core("950") as core:
        a = asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, 0, 64)
        b = asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, 256, 64)
        o = asc.LocalTensor(asc.complex32, asc.TPosition.VECOUT, 512, 64)
        sel = asc.LocalTensor(asc.uint8, asc.TPosition.VECIN, 768, 32)
        asc.duplicate(a, 1 + 2j, 64)
        asc.duplicate(b, complex(0.0, -0.5), 64)  # (-0.5j has real part -0.0)
        sel.write([0b00000101] + [0] * 31)
        asc.select(o, sel, a, b, sel_mode=asc.SelMode.VSEL_TENSOR_TENSOR_MODE, count=64)
        lanes = lanes_of(core.ub_read(512, 16), 4)
        one_two, minus_half_i = cref.whole(0x3C00, 0x4000, "complex32"), cref.whole(0x0000, 0xB800, "complex32")
        assert lanes == [one_two, minus_half_i, one_two, minus_half_i]
        _rejected(core, lambda: asc.duplicate(a, 1j, 16, 1, 1, 8), UnsupportedError, "in this form")


def test_transpose_nchw_of_complex32():
    """Transpose NCHW -> NHWC (the 950 lists complex32): 4-byte elements moved as a uint32 transpose moves them."""
    n, c, h, w = 1, 2, 2, 8
    values = np.arange(n * c * h * w, dtype=np.uint32) * 0x00010001
    expected = values.reshape(n, c, h, w).transpose(0, 2, 3, 1).reshape(-1)
    with asc.Core("950") as core:
        src = asc.LocalTensor(asc.complex32, asc.TPosition.VECIN, 0, values.size)
        dst = asc.LocalTensor(asc.complex32, asc.TPosition.VECOUT, 1024, values.size)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 8192)
        core.ub_write(0, values.tobytes())
        params = asc.TransposeParamsExt(n, c, h, w, asc.TransposeType.TRANSPOSE_NCHW2NHWC)
        asc.transpose(dst, src, tmp, params)
        assert core.ub_read(1024, values.size * 4) == expected.tobytes()


# ------------------------------------------------------------------ Cast
CASTS = {("complex32", "complex64"): (0,), ("complex64", "complex32"): (0, 1, 2, 3, 4, 5, 6),
         ("complex64", "complex64"): (1, 2, 3, 4, 5)}  # Cast.md 数据类型 (the 950): RoundMode values


@SETTINGS
@given(pair=st.sampled_from(sorted(CASTS)), data=st.data())
def test_complex_cast_matches_the_reference(pair, data):
    """Cast's complex lines convert each part as the component line does (dav_3510 CastIntrinsicsB64ImplVF): the
    cast reference applied to the real and to the imaginary part; half targets saturate (the trait's SAT)."""
    src_fmt, dst_fmt = pair
    mode = data.draw(st.sampled_from(CASTS[pair]))
    count = data.draw(st.integers(1, 100))
    x = data.draw(st.lists(complex_bits(src_fmt), min_size=count, max_size=count))
    src_size, dst_size = cref.SIZE[src_fmt], cref.SIZE[dst_fmt]
    with asc.Core("950") as core:
        core.ub_write(0, to_bytes(x, src_size))
        src = asc.LocalTensor(COMPLEX[src_fmt], asc.TPosition.VECIN, 0, count)
        dst = asc.LocalTensor(COMPLEX[dst_fmt], asc.TPosition.VECOUT, 0x4000, count)
        asc.cast(dst, src, asc.RoundMode(mode), count)
        got = lanes_of(core.ub_read(0x4000, count * dst_size), dst_size)
    comp_src, comp_dst = cref.COMPONENT[src_fmt], cref.COMPONENT[dst_fmt]
    saturate = comp_dst == "float16"
    expected = [cref.whole(*(cast_reference.cast(comp_src, comp_dst, part, mode, saturate)
                             for part in cref.parts(bits, src_fmt)), dst_fmt) for bits in x]
    assert got == expected


def test_complex_cast_rules():
    with asc.Core("950") as core:
        core.ub_write(0, bytes(1024))
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0, 32)
        h = asc.LocalTensor(asc.complex32, asc.TPosition.VECOUT, 512, 32)
        f = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 512, 32)
        _rejected(core, lambda: asc.cast(h, x, asc.RoundMode.CAST_RINT, 32, 1, asc.UnaryRepeatParams()),
                  UnsupportedError, "count form")
        # a complex32 source too (the line complex32 -> complex64): the count form only
        _rejected(core, lambda: asc.cast(x, h, asc.RoundMode.CAST_NONE, 32, 1, asc.UnaryRepeatParams()),
                  UnsupportedError, "count form")
        _rejected(core, lambda: asc.cast(x, h, asc.RoundMode.CAST_RINT, 8), UnsupportedError, "other rounding")
        _rejected(core, lambda: asc.cast(f, x, asc.RoundMode.CAST_RINT, 8), UnsupportedError, "this pair")
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(1024))
        x = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0, 32)
        h = asc.LocalTensor(asc.complex32, asc.TPosition.VECOUT, 512, 32)
        _rejected(core, lambda: asc.cast(h, x, asc.RoundMode.CAST_RINT, 8), UnsupportedError, "this pair")


# ------------------------------------------------------------------ access records
@pytest.mark.parametrize("call", ["add", "mul_scalar", "abs", "cast"])
def test_access_records_are_exact(call):
    """Every byte a complex call changes lies in its record's writes, and the written bytes depend on no byte
    outside its reads and writes (re-randomising the others changes none of them)."""
    span = 0x3000
    rng = np.random.default_rng(7)

    def run(image: bytes):
        with asc.Core("950", trace=True) as core:
            core.ub_write(0, image)
            x = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0x0000, 100)
            y = asc.LocalTensor(asc.complex64, asc.TPosition.VECIN, 0x0400, 100)
            z = asc.LocalTensor(asc.complex64, asc.TPosition.VECOUT, 0x0800, 100)
            if call == "add":
                asc.add(z, x, y, 77)
            elif call == "mul_scalar":
                asc.muls(z, x, 0.5 - 3j, 77)
            elif call == "abs":
                asc.abs(asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0x1000, 100), x, 77)
            else:
                asc.cast(asc.LocalTensor(asc.complex32, asc.TPosition.VECOUT, 0x1000, 100), x,
                         asc.RoundMode.CAST_RINT, 77)
            return core.ub_read(0, span), core.trace[-1]

    def mask(ranges):
        m = np.zeros(span, bool)
        for r in ranges:
            m[r.start:r.stop] = True
        return m

    image = rng.integers(0, 256, span, dtype=np.uint8).tobytes()
    after, record = run(image)
    writes, touched = mask(record.writes), mask(record.writes) | mask(record.reads)
    changed = np.frombuffer(after, np.uint8) != np.frombuffer(image, np.uint8)
    assert not (changed & ~writes).any()
    other = np.where(touched, np.frombuffer(image, np.uint8), rng.integers(0, 256, span, dtype=np.uint8))
    again, _ = run(other.astype(np.uint8).tobytes())
    assert np.array_equal(np.frombuffer(again, np.uint8)[writes], np.frombuffer(after, np.uint8)[writes])
    size = {"abs": 4, "cast": 4}.get(call, 8)
    assert writes.sum() == 77 * size
