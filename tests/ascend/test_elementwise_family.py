"""The element-wise instructions of issue 14 (div, maxs/mins, leaky_relu, relu, sqrt, exp, ln,
reciprocal, rsqrt, bitwise and/or/not, shifts, add_relu/sub_relu) against the per-lane reference
of ``elementwise_reference.py``, byte for byte (lane by lane within one ulp for the accuracy-model
instructions), across the count, contiguous-mask and bit-mask forms, strides, products and dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.ascend.arith_dtypes import vector_support
from npusim.engine.registry import ACCURACY_MODEL, BIT_EXACT, IEEE_RNE, by_name
from npusim.errors import OverlapError, ParameterRangeError, UnsupportedError

from . import elementwise_reference as eref
from . import reference_model as ref
from .test_elementwise import DTYPE, SATURATING, SETTINGS, bits_strategy, run_npusim

OPERATION = {"div": "div", "maxs": "max", "mins": "min", "leaky_relu": "leaky_relu", "relu": "relu",
             "sqrt": "sqrt", "exp": "exp", "ln": "ln", "reciprocal": "reciprocal", "rsqrt": "rsqrt",
             "bitwise_and": "and", "bitwise_or": "or", "bitwise_not": "not", "shift_left": "shift_left",
             "shift_right": "shift_right", "add_relu": "add_relu", "sub_relu": "sub_relu",
             "fused_mul_add": "fused_mul_add", "fused_mul_add_relu": "fused_mul_add_relu",
             "mul_add_dst": "mul_add_dst", "axpy": "axpy"}
MULTIPLY_ADD = ("fused_mul_add", "fused_mul_add_relu", "mul_add_dst", "axpy")
BINARY = ("div", "bitwise_and", "bitwise_or", "add_relu", "sub_relu", "fused_mul_add", "fused_mul_add_relu",
          "mul_add_dst")
SCALAR = ("maxs", "mins", "leaky_relu", "shift_left", "shift_right", "axpy")
UNARY = ("relu", "sqrt", "exp", "ln", "reciprocal", "rsqrt", "bitwise_not")
SHIFTS = ("shift_left", "shift_right")
ACCURACY = ("exp", "ln", "reciprocal", "rsqrt")


def _float_scalar(fmt: str):
    return st.one_of(st.floats(width=32), st.sampled_from([0.0, -0.0, 0.01, -2.5, 65504.0, 1e-7]))


@st.composite
def cases(draw):
    op = draw(st.sampled_from(BINARY + SCALAR + UNARY))
    chips = [chip for chip in sorted(SATURATING) if vector_support(asc.CHIPS[chip], op) is not None]
    chip = draw(st.sampled_from(chips))
    support = vector_support(asc.CHIPS[chip], op)
    form = draw(st.sampled_from(("count", "mask_int", "mask_words")))
    fmt = draw(st.sampled_from(sorted(support.for_form(form == "count") & set(ref.FORMATS))))
    size = ref.FORMATS[fmt][0]
    lanes = 256 // size
    n_src = 2 if op in BINARY else 1
    if form == "count":
        count = draw(st.integers(1, 3 * lanes))
        repeats, strides, mask = -(-count // lanes), [(1, 8)] * (1 + n_src), count
    else:
        repeats = draw(st.integers(1, 4))
        blk = draw(st.integers(1, 3))
        # a multiply-add reads its dst: its repeats must not overlap (rejected, tested separately)
        strides = [(blk, 8 * blk + draw(st.integers(0, 4)) if op in MULTIPLY_ADD else draw(st.integers(0, 12)))]
        strides += [(draw(st.integers(0, 3)), draw(st.integers(0, 12))) for _ in range(n_src)]
        if form == "mask_int":
            mask = draw(st.integers(1, lanes))
        else:
            mask = [draw(st.integers(1, (1 << 64) - 1)),
                    0 if size >= 4 else draw(st.integers(0, (1 << 64) - 1))]
            if size == 8:
                mask[0] &= (1 << 32) - 1
                mask[0] |= 1
    spans = [((repeats - 1) * rep + 7 * blk + 1) * 32 for blk, rep in strides]
    addrs, cursor = [], 0
    for span in spans:
        addrs.append(cursor)
        cursor += span + 32 * draw(st.integers(0, 2))
    contents = [draw(st.lists(bits_strategy(fmt), min_size=span // size, max_size=span // size)) for span in spans]
    scalar = None
    if op in SHIFTS:
        width = 8 * size
        scalar = draw(st.integers(0, width + (3 if chip == "950" else 0)))
    elif op in SCALAR:
        if ref.FORMATS[fmt][1] == "float":
            scalar = draw(_float_scalar(fmt))
        else:
            info = np.iinfo(DTYPE[fmt].np_dtype)
            scalar = draw(st.integers(int(info.min), int(info.max)))
    return dict(chip=chip, op=op, fmt=fmt, form=form, repeats=repeats, strides=strides, mask=mask,
                addrs=addrs, spans=spans, contents=contents, scalar=scalar, end=cursor)


def active_lanes(case):
    lanes = 256 // ref.FORMATS[case["fmt"]][0]
    if case["form"] == "count":
        return lambda r: [j for j in range(lanes) if r * lanes + j < case["mask"]]
    chosen = ref.active_lanes_normal(case["mask"], ref.FORMATS[case["fmt"]][0])
    return lambda r: chosen


def run_reference(case) -> bytes:
    fmt, size = case["fmt"], ref.FORMATS[case["fmt"]][0]
    ub = bytearray(case["end"])
    for addr, content in zip(case["addrs"], case["contents"], strict=True):
        for i, bits in enumerate(content):
            ref.store(ub, addr + i * size, size, bits)
    if case["scalar"] is None:
        scalar = None
    elif case["op"] in SHIFTS:
        scalar = case["scalar"]
    else:
        scalar = ref.scalar_to_bits(case["scalar"], fmt)
    eref.elementwise(ub, OPERATION[case["op"]], fmt, case["addrs"][0], case["addrs"][1:], scalar, case["repeats"],
                     active_lanes(case), case["strides"], saturate=fmt in SATURATING[case["chip"]],
                     fused=case["chip"] == "950" and case["op"] != "axpy")
    return bytes(ub)


def assert_lanes_match(got: bytes, expected: bytes, fmt: str, within_one_ulp: bool) -> None:
    if got == expected:
        return
    assert within_one_ulp, "byte mismatch"
    size = ref.FORMATS[fmt][0]
    for i in range(0, len(got), size):
        g, e = got[i:i + size], expected[i:i + size]
        if g != e:
            distance = eref.ulps_apart(int.from_bytes(g, "little"), int.from_bytes(e, "little"), fmt)
            assert distance <= 1, (i, g.hex(), e.hex())


@SETTINGS
@given(cases())
def test_matches_the_per_lane_reference(case):
    assert_lanes_match(run_npusim(case), run_reference(case), case["fmt"], case["op"] in ACCURACY)


def count_form(op: str, dst, src, second, n: int) -> None:
    """``op``'s count form; ``second`` is src1 (binary), the scalar, or unused (unary)."""
    if op in BINARY or op in SCALAR:
        getattr(asc, op)(dst, src, second, n)
    else:
        getattr(asc, op)(dst, src, n)


# ------------------------------------------------------ dense special values, every float op
SPECIAL_TARGETS = [("A2", "float16"), ("310P", "float16"), ("A2", "float32"), ("950", "float16")]
FLOAT_OPS = ("div", "add_relu", "sub_relu", "relu", "sqrt", "exp", "ln", "reciprocal", "rsqrt", "leaky_relu", "maxs",
             *MULTIPLY_ADD)


@SETTINGS
@given(target=st.sampled_from(SPECIAL_TARGETS), op=st.sampled_from(FLOAT_OPS), data=st.data())
def test_float_special_values_match_the_reference(target, op, data):
    chip, fmt = target
    size = ref.FORMATS[fmt][0]
    n = 256 // size
    a = data.draw(st.lists(bits_strategy(fmt), min_size=n, max_size=n))
    b = data.draw(st.lists(bits_strategy(fmt), min_size=n, max_size=n))
    c = data.draw(st.lists(bits_strategy(fmt), min_size=n, max_size=n))  # the old dst
    scalar = data.draw(_float_scalar(fmt)) if op in SCALAR else None
    with asc.Core(chip) as core:
        core.ub_write(0, b"".join(x.to_bytes(size, "little") for x in a + b + c))
        x, y, z = (asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, addr, n) for addr in (0, 256, 512))
        count_form(op, z, x, y if op in BINARY else scalar, n)
        got = core.ub_read(512, 256)
    second = b if op in BINARY else [ref.scalar_to_bits(scalar, fmt)] * n if op in SCALAR else [None] * n
    saturate = fmt in SATURATING[chip]
    if op in MULTIPLY_ADD:
        fused = chip == "950" and op != "axpy"
        lanes = [[ai, bi, ci] if op in BINARY else [ai, ci, bi] for ai, bi, ci in zip(a, second, c, strict=True)]
        expected = b"".join(eref.multiply_add_bits(op, fmt, operands, saturate, fused).to_bytes(size, "little")
                            for operands in lanes)
    else:
        expected = b"".join(eref.lane_bits(OPERATION[op], fmt, ai, bi, saturate).to_bytes(size, "little")
                            for ai, bi in zip(a, second, strict=True))
    assert_lanes_match(got, expected, fmt, op in ACCURACY)


# ------------------------------------------------------------------ single lanes
def one_lane(chip: str, op: str, fmt: str, a_bits: int, second=None) -> int:
    size = ref.FORMATS[fmt][0]
    n = 32 // size
    with asc.Core(chip) as core:
        core.ub_write(0, a_bits.to_bytes(size, "little") * n)
        core.ub_write(32, (second if op in BINARY else 0).to_bytes(size, "little") * n)
        core.ub_write(64, bytes(32))
        x, y, z = (asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, addr, n) for addr in (0, 32, 64))
        count_form(op, z, x, y if op in BINARY else second, n)
        return int.from_bytes(core.ub_read(64, size), "little")


def test_division_by_zero_saturates_on_a2_half_and_is_ieee_elsewhere():
    assert one_lane("A2", "div", "float16", 0x3C00, 0x0000) == 0x7BFF    # 1/0 = inf -> +MAX
    assert one_lane("A2", "div", "float16", 0x0000, 0x0000) == 0x0000    # 0/0 = NaN -> 0
    assert one_lane("310P", "div", "float16", 0xBC00, 0x0000) == 0xFC00  # -1/+0 = -inf
    assert one_lane("A2", "div", "float32", 0x0000, 0x0000) == 0x7FC00000


def test_div_and_sqrt_round_once_to_nearest_even():
    # 1/3 in half: 0x3555 (0.33325); sqrt(2) in half 0x3DA8; float 1/3 = 0x3EAAAAAB
    assert one_lane("310P", "div", "float16", 0x3C00, 0x4200) == 0x3555
    assert one_lane("310P", "sqrt", "float16", 0x4000) == 0x3DA8
    assert one_lane("A2", "div", "float32", 0x3F800000, 0x40400000) == 0x3EAAAAAB
    assert one_lane("310P", "sqrt", "float16", 0x8000) == 0x8000  # sqrt(-0) = -0
    assert one_lane("310P", "sqrt", "float16", 0xBC00) == 0x7E00  # sqrt(-1) = NaN


def test_abs_clears_the_sign_and_gives_the_quiet_nan():
    assert one_lane("310P", "abs", "float16", 0xBC00) == 0x3C00
    assert one_lane("310P", "abs", "float16", 0x8000) == 0x0000
    assert one_lane("310P", "abs", "float16", 0xFE01) == 0x7E00  # a NaN's payload and sign are not kept
    assert one_lane("A2", "abs", "float32", 0xFFC00001) == 0x7FC00000


def test_relu_signed_zero_nan_and_integers():
    assert one_lane("310P", "relu", "float16", 0x8000) == 0x0000
    assert one_lane("310P", "relu", "float16", 0xFE01) == 0x7E00
    assert one_lane("A2", "relu", "int32", 0x80000000) == 0
    assert one_lane("A2", "relu", "int32", 0x7FFFFFFF) == 0x7FFFFFFF


def test_leaky_relu_keeps_negative_zero_and_rounds_the_product_once():
    assert one_lane("310P", "leaky_relu", "float16", 0x8000, 0.5) == 0x8000
    # -287 * half(0.001) = -0.2871... (LeakyRelu.md's example element), one rounding to half
    scalar_bits = ref.scalar_to_bits(0.001, "float16")
    product = ref.decode(ref.scalar_to_bits(-287.0, "float16"), "float16") * ref.decode(scalar_bits, "float16")
    assert one_lane("310P", "leaky_relu", "float16", ref.scalar_to_bits(-287.0, "float16"), 0.001) == \
        ref.encode(product, "float16")


def test_add_relu_rounds_the_sum_then_clamps_and_integer_sums_wrap():
    assert one_lane("A2", "add_relu", "int16", 0x7FFF, 0x0001) == 0       # wraps to -32768, then relu
    assert one_lane("A2", "sub_relu", "float16", 0x3C00, 0x3C00) == 0     # 1 - 1 = +0
    assert one_lane("A2", "add_relu", "float16", 0x7BFF, 0x7BFF) == 0x7BFF  # inf saturates to MAX


def test_shifts_follow_the_pages_examples():
    # ShiftLeft.md / ShiftRight.md: int16 0b1010101010101010 << 1, << 3; >> 1, >> 3; uint16 << 1
    assert one_lane("A2", "shift_left", "int16", 0b1010101010101010, 1) == 0b1101010101010100
    assert one_lane("A2", "shift_left", "int16", 0b1010101010101010, 3) == 0b1101010101010000
    assert one_lane("A2", "shift_left", "uint16", 0b1010101010101010, 1) == 0b0101010101010100
    assert one_lane("A2", "shift_right", "int16", 0b1010101010101010, 1) == 0b1101010101010101
    assert one_lane("A2", "shift_right", "int16", 0b1010101010101010, 3) == 0b1111010101010101
    assert one_lane("A2", "shift_right", "uint32", 0x80000000, 32) == 0
    assert one_lane("950", "shift_right", "int16", 0x8000, 100) == 0xFFFF
    assert one_lane("950", "shift_left", "uint8", 0xFF, 9) == 0
    assert one_lane("950", "shift_left", "int16", 0x8001, 17) == 0
    assert one_lane("950", "shift_left", "int16", 0x8001, 16) == 0x8000


def test_shift_amount_range_follows_the_product():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(128))
        x = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 0, 64)
        before = core.ub.snapshot()
        with pytest.raises(ParameterRangeError, match=r"shift_left: scalar = 17.*\[0, 16\].*ShiftLeft.md"):
            asc.shift_left(x, x, 17, 64)
        asc.shift_left(x, x, 16, 64)  # the width itself is in range
        core.ub_write(0, bytes(128))
        with pytest.raises(ParameterRangeError, match=r"\[0, 16\]"):
            asc.shift_right(x, x, -1, 64)
        with pytest.raises(TypeError, match="integer"):
            asc.shift_right(x, x, 1.5, 64)
        asc.shift_right(x, x, 2, 64)
        with pytest.raises(ParameterRangeError, match="scalar = 40"):  # per call, after the plan is cached
            asc.shift_right(x, x, 40, 64)
        assert core.ub.snapshot() == before
    with asc.Core("950") as core:
        core.ub_write(0, bytes(128))
        y = asc.LocalTensor(asc.int16, asc.TPosition.VECCALC, 0, 64)
        asc.shift_left(y, y, 1000, 64)
        with pytest.raises(ParameterRangeError, match=r"\[0, 32767\]"):
            asc.shift_left(y, y, 40000, 64)


def test_products_and_dtypes_follow_the_pages():
    assert vector_support(asc.CHIPS["A2"], "bitwise_and").dtypes == {"int16", "uint16"}
    assert vector_support(asc.CHIPS["950"], "bitwise_and").count_only == {"int8", "uint8", "int64", "uint64"}
    assert vector_support(asc.CHIPS["910"], "relu").dtypes == {"float16"}
    assert vector_support(asc.CHIPS["910"], "maxs") is None
    assert vector_support(asc.CHIPS["310P"], "shift_left") is None
    assert vector_support(asc.CHIPS["KirinX90"], "add_relu") is None
    assert vector_support(asc.CHIPS["310B"], "add_relu").dtypes == {"float16", "float32"}
    assert vector_support(asc.CHIPS["950"], "bitwise_not").dtypes >= {"float16", "float32"}
    assert all(vector_support(asc.CHIPS["310P-VEC"], op) is None for op in OPERATION)
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(256))
        i32 = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 0, 64)
        with pytest.raises(UnsupportedError, match="bitwise_and does not support") as err:
            asc.bitwise_and(i32, i32, i32, 64)  # And.md: reinterpret 32-bit data as 16-bit
        assert err.value.value == "int32"
    with asc.Core("910") as core:
        h = asc.LocalTensor(asc.float16, asc.TPosition.VECCALC, 0, 16)
        with pytest.raises(UnsupportedError, match="products that support it"):
            asc.maxs(h, h, 1.0, 16)
    with asc.Core("950") as core:
        core.ub_write(0, bytes(256))
        i8 = asc.LocalTensor(asc.int8, asc.TPosition.VECCALC, 0, 256)
        asc.bitwise_or(i8, i8, i8, 256)  # count form only
        with pytest.raises(UnsupportedError, match="in this form"):
            asc.bitwise_or(i8, i8, i8, 128, 1, asc.BinaryRepeatParams())


def test_exactness_classes_in_the_registry():
    classes = {name: by_name("ascend", name).exactness for name in OPERATION}
    assert {n for n, c in classes.items() if c == ACCURACY_MODEL} == set(ACCURACY)
    assert {n for n, c in classes.items() if c == IEEE_RNE} == {"div", "sqrt", "leaky_relu", "add_relu", "sub_relu",
                                                                *MULTIPLY_ADD}
    assert all(classes[n] == BIT_EXACT for n in ("bitwise_and", "bitwise_or", "bitwise_not", "shift_left",
                                                  "shift_right", "relu", "maxs", "mins"))
    assert by_name("ascend", "add").exactness == IEEE_RNE


def test_add_relu_takes_the_dst_src1_chain_and_div_does_not():
    with asc.Core("A2") as core:
        core.ub_write(0, np.full(256, 0.5, np.float32).tobytes())
        src0 = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 128)
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 512, 64)
        asc.add_relu(dst, src0, dst, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 0))
        assert dst.read()[0] == 1.5  # 0.5 + 0.5, then + 0.5 from repeat 1
        with pytest.raises(OverlapError):
            asc.div(dst, src0, dst, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 0))


# ------------------------------------------------------------------ multiply-add
def multiply_add_lane(chip: str, op: str, fmt: str, x: int, y: int, old_dst: int) -> int:
    """One lane of ``op`` with sources (x, y), or (x, scalar y) for axpy, and the given old dst."""
    size = ref.FORMATS[fmt][0]
    n = 32 // size
    with asc.Core(chip) as core:
        core.ub_write(0, x.to_bytes(size, "little") * n + y.to_bytes(size, "little") * n
                      + old_dst.to_bytes(size, "little") * n)
        a, b, d = (asc.LocalTensor(DTYPE[fmt], asc.TPosition.VECCALC, addr, n) for addr in (0, 32, 64))
        if op == "axpy":
            asc.axpy(d, a, ref.python_number(y, fmt), n)
        else:
            getattr(asc, op)(d, a, b, n)
        return int.from_bytes(core.ub_read(64, size), "little")


def test_multiply_add_rounds_the_product_first_except_on_the_950():
    one_plus = 0x3F800800  # float 1 + 2**-12: its square 1 + 2**-11 + 2**-24 is a tie in float
    minus_one = 0xBF800000
    # vmla: (1 + 2**-11) - 1 = 2**-11; the 950's fused MulAddDst keeps the 2**-24
    assert multiply_add_lane("A2", "mul_add_dst", "float32", one_plus, one_plus, minus_one) == 0x3A000000
    assert multiply_add_lane("950", "mul_add_dst", "float32", one_plus, one_plus, minus_one) == 0x3A000400
    # FusedMulAdd is src0 * dst + src1: the old dst is the multiplier
    assert multiply_add_lane("A2", "fused_mul_add", "float32", one_plus, minus_one, one_plus) == 0x3A000000
    assert multiply_add_lane("950", "fused_mul_add", "float32", one_plus, minus_one, one_plus) == 0x3A000400
    # Axpy rounds the product on every product (the 950's bfloat16 path is Mul then Add; no page says more)
    assert multiply_add_lane("950", "axpy", "float32", one_plus, one_plus, minus_one) == 0x3A000000
    # half: 1.0009765625**2 = 1.001953... rounds to 0x3C02 first
    h = 0x3C01
    assert multiply_add_lane("A2", "fused_mul_add", "float16", h, 0xBC00, h) == 0x1800  # 2**-9
    assert multiply_add_lane("A2", "fused_mul_add_relu", "float16", h, 0xBC00, h) == 0x1800
    assert multiply_add_lane("A2", "fused_mul_add_relu", "float16", h | 0x8000, 0xBC00, h) == 0  # relu of -2.002


def test_multiply_add_reads_dst_so_its_repeats_must_not_overlap():
    with asc.Core("A2") as core:
        core.ub_write(0, bytes(2048))
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 128)
        d = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 1024, 128)
        before = core.ub.snapshot()
        with pytest.raises(OverlapError, match="dst / dst"):
            asc.mul_add_dst(d, a, a, 64, 2, asc.BinaryRepeatParams(1, 1, 1, 0, 8, 8))
        with pytest.raises(OverlapError, match="dst / dst"):
            asc.axpy(d, a, 2.0, 64, 2, asc.UnaryRepeatParams(1, 1, 4, 8))
        assert core.ub.snapshot() == before
        asc.fused_mul_add(d, d, d, 128)  # fully in place is allowed


def test_multiply_add_products_and_dtypes():
    assert vector_support(asc.CHIPS["910"], "fused_mul_add") is None
    assert vector_support(asc.CHIPS["910"], "axpy").dtypes == {"float16", "float32"}
    assert vector_support(asc.CHIPS["310B"], "mul_add_dst").dtypes == {"float16", "float32", "int16", "uint16",
                                                                         "int32", "uint32"}
    assert vector_support(asc.CHIPS["KirinX90"], "fused_mul_add_relu") is None
    assert vector_support(asc.CHIPS["950"], "fused_mul_add").dtypes == {"float16", "bfloat16", "float32"}
    assert multiply_add_lane("310B", "mul_add_dst", "int16", 0x7FFF, 2, 3) == 1  # wraps: 65534 + 3


@pytest.mark.parametrize("name", ["add", "mul", "fused_mul_add"])
def test_half_sources_of_a_float_dst_stay_rejected_where_no_page_lists_them(name):
    # only Axpy.md and MulAddDst.md list "half | half | float" (docs/semantics.md §5.26)
    with asc.Core("A2") as core:
        dst = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 0, 64)
        src = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 1024, 64)
        core.ub_write(0, bytes(2048))
        before = core.ub_read(0, 2048)
        with pytest.raises(UnsupportedError) as info:
            getattr(asc, name)(dst, src, src, 64)
        assert core.ub_read(0, 2048) == before
    assert str(info.value).startswith(f"{name}: src0 dtype") and "must have dst's dtype" in str(info.value)
