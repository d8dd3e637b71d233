"""asc.adv floor / ceil / trunc / round / frac (高阶API/数学计算, A2/A3) and sign (A2/A3, 310P): the pages'
worked examples, an independent per-element reference (Python's exact integer rounding and Fraction
arithmetic, then the half conversion's saturation, CTRL[48]) over every half and over float value classes,
the vendor's chunking by the temp buffer, and every documented rule as a ConstraintError with memory
unchanged.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend import adv
from npusim.errors import OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

SRC, DST, TMP = 0, 32768, 65536
NAMES = ["floor", "ceil", "trunc", "round", "frac"]
FLOAT_NAN = 0x7FC00000  # the quiet NaN the vector unit writes (docs/numerics.md)
HALF_NAN = 0x7E00


def integral(name: str, x: float) -> float:
    """x rounded to an integer by ``name``'s rule, the sign of x kept on a zero (IEEE roundToIntegral)."""
    rounded = {"floor": math.floor, "ceil": math.ceil, "trunc": math.trunc, "round": round}[name](x)
    return math.copysign(float(rounded), x) if rounded == 0 else float(rounded)


def reference_float(name: str, x: float) -> float:
    """The exact result for a finite or infinite float input (NaN handled by the caller)."""
    if math.isinf(x):
        return math.nan if name == "frac" else x
    if name == "frac":
        whole = integral("trunc", x)
        diff = Fraction(x) - Fraction(whole)
        return 0.0 if diff == 0 else float(diff)  # x - x is +0 under round to nearest
    return integral(name, x)


def reference_bits(name: str, dtype, bits: int, saturate: bool = True) -> int:
    """dst's bits for one src element: float as computed exactly; half through float and back (exact),
    the float -> half cast saturating inf to +-65504 and NaN to 0 while CTRL[48] saturates."""
    np_float = np.float16 if dtype is asc.float16 else np.float32
    unsigned = np.uint16 if dtype is asc.float16 else np.uint32
    x = float(np.array(bits, unsigned).view(np_float))
    if name == "sign":  # Sign.md 功能说明: -1, 0, 1; a NaN compares neither way: 1 + -1 = +0
        return int(np.array(-1.0 if x < 0 else 1.0 if x > 0 else 0.0, np_float).view(unsigned))
    y = math.nan if math.isnan(x) else reference_float(name, x)
    if math.isnan(y):
        return 0 if dtype is asc.float16 and saturate else (HALF_NAN if dtype is asc.float16 else FLOAT_NAN)
    if dtype is asc.float16 and saturate and math.isinf(y):
        y = math.copysign(65504.0, y)
    return int(np.array(y, np_float).view(unsigned))


def run(name, dtype, bits, count=None, tmp_bytes=1024, chip="A2", saturate=True, temp=True, trace=False):
    """(dst bits, instructions issued) of one call on fresh memory."""
    unsigned = np.uint16 if dtype is asc.float16 else np.uint32
    with asc.Core(chip, trace=trace) as core:
        core.float_saturation = saturate
        src = asc.LocalTensor(dtype, asc.TPosition.VECIN, SRC, len(bits))
        src.write(np.asarray(bits, unsigned).view(dtype.np_dtype))
        dst = asc.LocalTensor(dtype, asc.TPosition.VECOUT, DST, len(bits))
        dst.write(np.full(len(bits), 0x55, unsigned).view(dtype.np_dtype))
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, tmp_bytes) if temp else None
        getattr(adv, name)(dst, src, count, tmp)
        return dst.read().view(unsigned).tolist(), [r.instruction for r in core.trace] if trace else None


def half_bits(values) -> list[int]:
    return np.asarray(values, np.float16).view(np.uint16).tolist()


def float_bits(values) -> list[int]:
    return np.asarray(values, np.float32).view(np.uint32).tolist()


# --- the pages' worked examples (调用示例, 结果示例) ---------------------------------------------------------------

def test_floor_page_example_half():
    got, _ = run("floor", asc.float16, half_bits([-1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5]))
    assert got == half_bits([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0])


@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
def test_ceil_page_example(dtype):
    convert = half_bits if dtype is asc.float16 else float_bits
    got, _ = run("ceil", dtype, convert([-1.1, 0.0, 0.9, 1.9, 2.9, 3.9, 4.9, 5.9]))
    assert got == convert([-1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0])


@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
def test_trunc_page_example(dtype):
    convert = half_bits if dtype is asc.float16 else float_bits
    got, _ = run("trunc", dtype, convert([9.33, -8.07, -6.38, 8.45, 5.83, 6.46, 4.18, 1.93]), temp=False)
    assert got == convert([9.0, -8.0, -6.0, 8.0, 5.0, 6.0, 4.0, 1.0])


def test_round_page_examples_float():
    got, _ = run("round", asc.float32, float_bits([0.80541134, 0.8385705, 0.49426016, 1.30962205, 0.28947052]))
    assert got == float_bits([1.0, 1.0, 0.0, 1.0, 0.0])
    # printed to one decimal: the last input prints as 6.5 and rounds to 7.0, so it lies above the tie (6.53 here);
    # an exact 6.5 is a tie and goes to even (约束说明), 6.0
    got, _ = run("round", asc.float32, float_bits([6.6, -4.3, -8.6, 8.8, -8.3, 6.53, 6.5, 7.5, -0.5]))
    assert got == float_bits([7.0, -4.0, -9.0, 9.0, -8.0, 7.0, 6.0, 8.0, -0.0])


def test_frac_page_examples_float():
    got, _ = run("frac", asc.float32, float_bits([-258.41888, 5592.625]))
    assert got == float_bits([-0.41888428, 0.625])  # 功能说明's printed values are these floats
    values = [9.33, -8.07, -6.38, 8.45, 5.83, 6.46, 4.18, 1.93]
    got, _ = run("frac", asc.float32, float_bits(values), temp=False)
    printed = [0.33, -0.07, -0.38, 0.45, 0.83, 0.46, 0.18, 0.93]
    assert [f"{v:.2f}" for v in np.array(got, np.uint32).view(np.float32)] == [f"{v:.2f}" for v in printed]
    assert got == [reference_bits("frac", asc.float32, b) for b in float_bits(values)]


# --- the independent reference ------------------------------------------------------------------------------------

@pytest.mark.parametrize("saturate", [True, False])
@pytest.mark.parametrize("name", NAMES)
def test_every_half(name, saturate):
    """All 65536 half codes, 4096 at a time (chunks of 256 halves with the 1 KiB buffer)."""
    for start in range(0, 1 << 16, 4096):
        bits = list(range(start, start + 4096))
        got, _ = run(name, asc.float16, bits, saturate=saturate)
        assert got == [reference_bits(name, asc.float16, b, saturate) for b in bits]


SPECIAL_FLOATS = [0.0, -0.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1e-40, -1e-40, 1.1754942e-38,
                  3.4028235e38, -3.4028235e38, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999997, -0.49999997,
                  2.0**23 - 0.5, -(2.0**23 - 0.5), 2.0**23 - 1.5, 2.0**23, 2.0**23 + 1, 2.0**24 + 2, 2.0**10 + 0.5,
                  2.0**10 - 0.25, -(2.0**10 + 0.75), 2147483647.0, -2147483648.0, 1e30]


def float_codes():
    classes = st.one_of(
        st.integers(0, (1 << 32) - 1),  # any code: NaN payloads, subnormals, huge values
        st.sampled_from(float_bits(SPECIAL_FLOATS)),
        st.integers(-(1 << 24), 1 << 24).map(lambda k: float_bits([k / 2])[0]),  # every x.5 tie near 2**23
        st.integers(-(1 << 14), 1 << 14).map(lambda k: float_bits([k / 16])[0]),  # near 2**10
    )
    return st.lists(classes, min_size=1, max_size=300)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(NAMES), float_codes(), st.sampled_from([None, 256, 512, 1024]))
def test_float_against_reference(name, bits, tmp_bytes):
    got, _ = run(name, asc.float32, bits, tmp_bytes=tmp_bytes or 1024, temp=tmp_bytes is not None)
    assert got == [reference_bits(name, asc.float32, b) for b in bits]


def test_special_float_values():
    bits = float_bits(SPECIAL_FLOATS)
    for name in NAMES:
        got, _ = run(name, asc.float32, bits)
        assert got == [reference_bits(name, asc.float32, b) for b in bits], name


# --- count, chunks and the instructions issued ----------------------------------------------------------------------

def test_count_leaves_the_rest_of_dst():
    bits = half_bits(np.linspace(-5, 5, 96))
    got, _ = run("floor", asc.float16, bits, count=40)
    assert got[:40] == [reference_bits("floor", asc.float16, b) for b in bits[:40]]
    assert got[40:] == [0x55] * 56


@pytest.mark.parametrize(("name", "dtype", "tmp_bytes", "n", "expected"), [
    ("floor", asc.float16, 512, 300, ["cast"] * 3 * 3),  # 128 halves a chunk: 128, 128, 44
    ("floor", asc.float32, 512, 300, ["cast"]),  # one cast, no buffer needed
    ("round", asc.float32, 512, 300, ["cast"]),
    ("ceil", asc.float32, 512, 300, ["cast"] * 3),  # 128 floats a chunk
    ("trunc", asc.float32, 256, 300, ["cast"] * 5),  # 64 floats a chunk
    ("round", asc.float16, 256, 300, ["cast"] * 3 * 5),
    ("frac", asc.float16, 1024, 300, ["cast", "cast", "sub", "cast"] * 3),  # 128 halves a chunk
    ("frac", asc.float32, 1024, 300, ["cast", "sub"]),
])
def test_chunks(name, dtype, tmp_bytes, n, expected):
    bits = (half_bits if dtype is asc.float16 else float_bits)(np.linspace(-70.3, 70.7, n))
    got, issued = run(name, dtype, bits, tmp_bytes=tmp_bytes, trace=True)
    assert issued == expected
    assert got == [reference_bits(name, dtype, b) for b in bits]


@pytest.mark.parametrize("name", ["trunc", "round"])
def test_in_place(name):
    values = half_bits([-2.5, -1.5, 0.5, 3.7])
    with asc.Core("A2"):
        t = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, SRC, 4)
        t.write(np.array(values, np.uint16).view(np.float16))
        getattr(adv, name)(t, t, temp_buffer=asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 512))
        assert t.read().view(np.uint16).tolist() == [reference_bits(name, asc.float16, b) for b in values]


def test_pyasc_namespace_has_them():
    from npusim.pyasc.namespaces import module_names
    names = module_names("asc.language.adv")
    for name in [*NAMES, "sign"]:
        assert names[name] is getattr(adv, name)


# --- rules ------------------------------------------------------------------------------------------------------------

def rejected(call, error, operand: str) -> None:
    """``call(dst, src, tmp)`` raises ``error`` about ``operand`` and leaves dst as it was."""
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 256)
        src.write(np.linspace(-3, 3, 256).astype(np.float16))
        dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 256)
        dst.write(np.full(256, 7, np.float16))
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 1024)
        with pytest.raises(error) as info:
            call(dst, src, tmp)
        assert info.value.operand == operand
        assert dst.read().tolist() == [7.0] * 256
        assert src.read().tolist() == np.linspace(-3, 3, 256).astype(np.float16).tolist()


@pytest.mark.parametrize("name", NAMES)
def test_count_beyond_src(name):
    rejected(lambda d, s, t: getattr(adv, name)(d, s, 257, t), ParameterRangeError, "count")


def test_dst_too_small():
    rejected(lambda d, s, t: adv.floor(d[160:], s, 200, t), OutOfBoundsError, "dst size")


@pytest.mark.parametrize(("name", "size", "minimum"), [("floor", 511, 512), ("ceil", 511, 512), ("trunc", 511, 512),
                                                       ("round", 255, 256), ("frac", 1023, 1024)])
def test_temp_buffer_below_the_minimum(name, size, minimum):
    def call(d, s, t):
        getattr(adv, name)(d, s, None, asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, size))
    rejected(call, ParameterRangeError, "temp_buffer size")
    with asc.Core("A2"):  # the minimum itself is accepted
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 64)
        src.write(np.zeros(64, np.float16))
        getattr(adv, name)(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 64), src, None,
                           asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, minimum))


@pytest.mark.parametrize("name", ["floor", "ceil", "frac"])
def test_src_dst_overlap(name):
    rejected(lambda d, s, t: getattr(adv, name)(s, s, None, t), OverlapError, "dst byte range")


@pytest.mark.parametrize("name", ["trunc", "round"])
def test_shifted_dst(name):
    def call(d, s, t):
        shifted = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, SRC + 32, 200)
        getattr(adv, name)(shifted, s, 200, t)
    rejected(call, OverlapError, "dst byte range")


@pytest.mark.parametrize("name", NAMES)
def test_temp_buffer_over_src(name):
    def call(d, s, t):
        getattr(adv, name)(d, s, None, asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, SRC, 1024))
    rejected(call, OverlapError, "src byte range")


def test_dtypes():
    def mixed(d, s, t):
        adv.floor(asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 256), s, None, t)
    rejected(mixed, UnsupportedError, "dtype")

    def int_buffer(d, s, t):
        adv.floor(d, s, None, t.reinterpret_cast(asc.int16))
    rejected(int_buffer, UnsupportedError, "temp_buffer dtype")


@pytest.mark.parametrize(("name", "chip"), [*((name, "310P") for name in NAMES), ("frac", "950"), ("sign", "950"),
                                            ("floor", "KirinX90"), ("sign", "KirinX90")])
def test_other_products_are_not_modelled(name, chip):
    with asc.Core(chip):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 128)
        with pytest.raises(UnsupportedError) as info:
            getattr(adv, name)(asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 128), src)
        assert info.value.operand == "product"


# --- Sign (A2/A3 and the 310P: sign_common_impl.h) --------------------------------------------------------------------

def test_sign_page_example_float():
    got, _ = run("sign", asc.float32, float_bits([-math.inf, -2.0, -0.0, 0.0, math.nan, -math.nan, 2.0, math.inf] * 8),
                 temp=False)
    assert got == float_bits([-1, -1, 0, 0, 0, 0, 1, 1] * 8)  # zeros +0


@pytest.mark.parametrize("chip", ["A2", "310P"])
def test_sign_every_half(chip):
    for start in range(0, 1 << 16, 4096):
        bits = list(range(start, start + 4096))
        got, _ = run("sign", asc.float16, bits, chip=chip, tmp_bytes=768)
        assert got == [reference_bits("sign", asc.float16, b) for b in bits]


@settings(max_examples=40, deadline=None)
@given(float_codes().map(lambda b: b + [0] * (-len(b) % 64)), st.sampled_from(["A2", "310P"]),
       st.sampled_from([None, 768, 1024, 3000]))
def test_sign_float_against_reference(bits, chip, tmp_bytes):
    got, _ = run("sign", asc.float32, bits, chip=chip, tmp_bytes=tmp_bytes or 768, temp=tmp_bytes is not None)
    assert got == [reference_bits("sign", asc.float32, b) for b in bits]


def test_sign_steps_and_chunks():
    bits = float_bits(np.linspace(-3, 3, 192))
    got, issued = run("sign", asc.float32, bits, tmp_bytes=768, trace=True)  # 64 floats a chunk: 3 chunks
    per_chunk = ["set_vector_mask", "duplicate", "set_mask_norm", "reset_mask", "compare", "compare",
                 "set_mask_count", "set_vector_mask", "duplicate", "set_cmp_mask", "select", "duplicate",
                 "set_cmp_mask", "select", "add"]
    assert issued == ["set_mask_count"] + per_chunk * 3 + ["set_mask_norm", "reset_mask"]
    assert got == [reference_bits("sign", asc.float32, b) for b in bits]


def test_sign_count_past_a_partial_repeat():
    """count 40 of 64-lane float repeats: the Compares read the whole repeat, inside the tensors here."""
    bits = float_bits(np.linspace(-3, 3, 64))
    got, _ = run("sign", asc.float32, bits, count=40)
    assert got[:40] == [reference_bits("sign", asc.float32, b) for b in bits[:40]]
    assert got[40:] == [0x55] * 24


def test_sign_rejects_a_repeat_past_the_tensors():
    with asc.Core("A2"):
        src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC, 40)
        src.write(np.ones(40, np.float32))
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 40)
        dst.write(np.full(40, 7, np.float32))
        with pytest.raises(OutOfBoundsError) as info:
            adv.sign(dst, src, temp_buffer=asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 768))
        assert info.value.operand == "src byte range"
        assert dst.read().tolist() == [7.0] * 40


def test_sign_rules():
    rejected(lambda d, s, t: adv.sign(d, s, None, asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 767)),
             ParameterRangeError, "temp_buffer size")
    rejected(lambda d, s, t: adv.sign(s, s, None, t), OverlapError, "dst byte range")
    rejected(lambda d, s, t: adv.sign(d, s, 257, t), ParameterRangeError, "count")


def test_sign_never_written_dst_past_count_under_a_raising_policy():
    """count 40: the Compares read dst's lanes 40-63, which the Duplicate did not write; under uninit="raise"
    that is rejected before the first instruction (dst unchanged: still never written)."""
    from npusim.errors import UninitializedReadError
    with asc.Core("A2", uninit="raise", trace=True) as core:
        src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, SRC, 64)
        src.write(np.ones(64, np.float32))
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, DST, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, TMP, 768)
        with pytest.raises(UninitializedReadError):
            adv.sign(dst, src, 40, tmp)
        assert core.trace == []
        dst.write(np.zeros(64, np.float32))
        adv.sign(dst, src, 40, tmp)
        assert dst.read().tolist() == [1.0] * 40 + [0.0] * 24


def test_sign_repeats_reaching_the_buffer():
    """pyasc's sign kernel with its tensors moved apart: dst [0x400, 0x800), the buffer from 0x800; the last
    chunk (32 halves) reads a whole repeat of dst, past its end into the bitmask the Compare writes.  The
    hardware tolerance lets the read pass the tensor's end; the overlap is rejected before any instruction."""
    with asc.Core("A2", trace=True, tolerance="hardware") as core:
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        src.write(np.ones(512, np.float16))
        dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 1024, 512)
        dst.write(np.zeros(512, np.float16))
        with pytest.warns(UserWarning), pytest.raises(OverlapError) as info:
            adv.sign(dst, src, 512, asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 2048, 1024))
        assert info.value.operand == "dst byte range"
        assert core.trace == [] and dst.read().tolist() == [0.0] * 512


# --- the 950 (<name>_3510_impl.h: Truncate<T, mode>) ---------------------------------------------------------------

NAMES_950 = ["floor", "ceil", "trunc", "round"]


@pytest.mark.parametrize("name", NAMES_950)
def test_950_every_half(name):
    """The 950's half results saturate (no CTRL[48] switch there): inf -> 65504, NaN -> 0, as the reference's."""
    for start in range(0, 1 << 16, 4096):
        bits = list(range(start, start + 4096))
        got, _ = run(name, asc.float16, bits, chip="950", temp=start % 8192 == 0, tmp_bytes=32)
        assert got == [reference_bits(name, asc.float16, b) for b in bits]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(NAMES_950), float_codes())
def test_950_float_against_reference(name, bits):
    got, issued = run(name, asc.float32, bits, chip="950", temp=False, trace=True)
    assert issued == ["truncate"]  # one call, one access record
    assert got == [reference_bits(name, asc.float32, b) for b in bits]


def test_950_page_examples():
    got, _ = run("floor", asc.float16, half_bits([-1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 4.5, 5.5]), chip="950")
    assert got == half_bits([-2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    got, _ = run("round", asc.float32, float_bits([6.6, -4.3, -8.6, 8.8, -8.3, 6.53, 6.5]), chip="950")
    assert got == float_bits([7.0, -4.0, -9.0, 9.0, -8.0, 7.0, 6.0])


def test_950_rules():
    with asc.Core("950"):
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, SRC, 256)
        src.write(np.ones(256, np.float16))
        dst = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, DST, 256)
        dst.write(np.zeros(256, np.float16))
        with pytest.raises(OverlapError):
            adv.floor(src, src)
        with pytest.raises(ParameterRangeError):
            adv.ceil(dst, src, 257)
        with pytest.raises(UnsupportedError):
            adv.trunc(dst, src, None, asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, TMP, 64))
        assert dst.read().tolist() == [0.0] * 256
        adv.trunc(src, src)  # Trunc's page: src and dst may overlap
        assert src.read().tolist() == [1.0] * 256
