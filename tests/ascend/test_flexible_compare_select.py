"""The 950's flexible scalar position of Compares and Select (比较与选择/Compares（灵活标量位置）.md,
Select（灵活标量位置）.md; docs/semantics.md §3.9, §2.7): the scalar on either side, a number or a tensor's
first element.

* the pages' 调用示例, every call (they print no values): random data with special values planted, the
  expected bytes from the independent per-lane model (``reference_model.compare_bits`` with the scalar
  first, ``reference_model.run_select`` with ``scalar_first``);
* hypothesis properties against the same model across forms, strides, masks, dtypes, special values (NaN,
  ±0, inf), both scalar positions and both scalar kinds, on the whole UB and the registers;
* the element is read when the call runs (a plan made once serves a changed element);
* the constraints: the 950 only, one vector, the element over dst, its dtype, the index, the count-only and
  EQ-only types, the 256-byte count rule, mode 1 only, the unmodelled tail stride; nothing changes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.errors import OverlapError, ParameterRangeError, UninitializedReadError, UnsupportedError

from . import reference_model as ref
from .conftest import assert_rejected, fill
from .test_compare_properties import fill as special_fill
from .test_compare_properties import plant_pairs, scalar_pairs
from .test_elementwise_isasi import special_bits

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
FULL = (1 << 64) - 1
SPAN = 0x8000
MODES = ("EQ", "GE", "GT", "LE", "LT", "NE")
M1 = asc.SelMode.VSEL_TENSOR_SCALAR_MODE
#: Compares（灵活标量位置）.md / Select（灵活标量位置）.md 数据类型, restated (the mask forms' types; the count forms
#: add the rest)
COMPARE_MASK_T = ["float16", "bfloat16", "int16", "uint16", "int32", "uint32", "float32"]
COMPARE_COUNT_ONLY = ["int8", "uint8", "int64", "uint64", "float64"]
SELECT_MASK_T = COMPARE_MASK_T
SELECT_COUNT_ONLY = ["int8", "uint8", "int64", "uint64", "complex32", "complex64"]
SIZE = {**{name: ref.FORMATS[name][0] for name in ref.FORMATS}, "complex32": 4, "complex64": 8}


def t(dtype, addr: int, size: int, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(getattr(asc, dtype) if isinstance(dtype, str) else dtype, position, addr, size)


def element_bits(core, addr: int, size: int) -> int:
    return int.from_bytes(core.ub_read(addr, size), "little")


# ------------------------------------------------------------------ Compares: the page's calls
def page_compare_calls():
    """Compares（灵活标量位置）.md 调用示例: float, 256 elements; the scalar after (src1Local[0]) and first
    (src0Local[0], config {0}); count, mask 64 with repeat 4 and {1, 1, 8, 8}, mask {UINT64_MAX, 0}."""
    params = asc.UnaryRepeatParams(1, 1, 8, 8)
    for shape in ((256,), (64, 4, params), ([FULL, 0], 4, params)):
        yield False, shape
        yield True, shape


@pytest.mark.parametrize(("scalar_first", "shape"), list(page_compare_calls()),
                         ids=[f"{'first' if f else 'after'}-{['count', 'mask', 'bits'][i // 2]}"
                              for i, (f, _s) in enumerate(page_compare_calls())])
def test_compares_page_calls(scalar_first, shape):
    rng = np.random.default_rng(len(shape) + scalar_first)
    with asc.Core("950") as core:
        fill(core, 0, SPAN, seed=3)
        core.ub_write(0, special_fill(rng, "float32", 256))
        core.ub_write(0x1000, special_fill(rng, "float32", 256))
        src0, src1, dst = t("float32", 0, 256), t("float32", 0x1000, 256), t(asc.uint8, 0x2000, 32, VECOUT)
        element = (0 if scalar_first else 0x1000)
        vector = 0x1000 if scalar_first else 0
        scalar = element_bits(core, element, 4)
        plant_pairs(core, "float32", [(b, scalar) for b, _ in scalar_pairs("float32", scalar)], (vector, 1, 8), None,
                    4, lambda r, j: j > 0 or vector != element)
        before = core.ub_read(0, SPAN)
        index = {"scalar_tensor_index": 0} if scalar_first else {}
        asc.compare_scalar(dst, src0, src1, asc.CMPMODE.LT, *shape, **index)
        after = core.ub_read(0, SPAN)
    bits = ref.compare_bits(before, "float32", "LT", vector, None, scalar, 4, (1, 8, 0, 0), scalar_first=scalar_first)
    expected = bytearray(before)
    expected[0x2000:0x2000 + 32] = ref.pack_bits(bits)
    assert after == bytes(expected)


def test_the_scalar_first_reads_left_to_right():
    """LT with the scalar first is ``scalar < src1_i`` (功能说明 "LT:src0小于src1"): 2 < [1, 2, 3, ...]."""
    with asc.Core("950"):
        x, dst = t("float32", 0, 64), t(asc.uint8, 0x1000, 32, VECOUT)
        x.write(np.arange(1, 65, dtype=np.float32))
        asc.compare_scalar(dst, 2.0, x, asc.CMPMODE.LT, 64)
        first = dst.read(8).tobytes()
        asc.compare_scalar(dst, x, 2.0, asc.CMPMODE.LT, 64)
        after = dst.read(8).tobytes()
    assert first == ref.pack_bits([1 if v > 2 else 0 for v in range(1, 65)])  # 2 < v
    assert after == ref.pack_bits([1 if v < 2 else 0 for v in range(1, 65)])


def draw_form(draw, mask_types: list[str], count_only: list[str]) -> tuple[str, str, object]:
    """A dtype, a form (``count``, contiguous ``mask``, ``bits``) it has, and for a mask form its mask."""
    fmt = draw(st.sampled_from(mask_types + count_only))
    size = SIZE[fmt]
    form = draw(st.sampled_from(["count"] if fmt in count_only else ["count", "mask", "bits"]))
    words = st.tuples(st.integers(1, FULL), st.integers(0, FULL) if size == 2 else st.just(0)).map(list)
    mask = None if form == "count" else draw(st.integers(1, 256 // size)) if form == "mask" else draw(words)
    return fmt, form, mask


# ------------------------------------------------------------------ Compares: the property
@st.composite
def compare_cases(draw):
    fmt, form, mask = draw_form(draw, COMPARE_MASK_T, COMPARE_COUNT_ONLY)
    mode = "EQ" if fmt == "float64" else draw(st.sampled_from(MODES))
    if form == "count":
        shape = {"repeats": draw(st.integers(0, 4))}
    else:
        shape = {"mask": mask,
                 "repeats": draw(st.integers(0, 3)), "blk": draw(st.integers(1, 2)), "rep": draw(st.integers(8, 16)),
                 "dst_strides": (draw(st.integers(1, 3)), draw(st.integers(1, 16)))}
    return dict(fmt=fmt, form=form, mode=mode, shape=shape, side=draw(st.sampled_from(["src0", "src1"])),
                element=draw(st.booleans()), scalar=draw(special_bits(fmt)), seed=draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=compare_cases())
def test_flexible_compares_match_the_model(case):
    fmt, form, mode, shape = case["fmt"], case["form"], case["mode"], case["shape"]
    size, lanes = SIZE[fmt], 256 // SIZE[fmt]
    scalar_first, scalar = case["side"] == "src0", case["scalar"]
    rng = np.random.default_rng(case["seed"])
    repeats = shape["repeats"]
    with asc.Core("950") as core:
        fill(core, 0, SPAN, seed=case["seed"] % 1000)
        core.ub_write(0, special_fill(rng, fmt, 0x2000 // size))
        blk, rep = (1, 8) if form == "count" else (shape["blk"], shape["rep"])
        active = (lambda r, j: True) if form == "count" else ref.mask_active(shape["mask"], lanes)
        plant_pairs(core, fmt, scalar_pairs(fmt, scalar), (0, blk, rep), None, repeats, active)
        vector, dst = t(fmt, 0, 0x2000 // size), t(asc.uint8, 0x4000, 512, VECOUT)
        if case["element"]:
            operand = t(fmt, 0x3000, 32 // size)
            core.ub_write(0x3000, scalar.to_bytes(size, "little"))
        else:
            operand = ref.python_number(scalar, fmt)
        operands = (operand, vector) if scalar_first else (vector, operand)
        index = {"scalar_tensor_index": 0 if scalar_first else 1} if case["element"] else {}
        words_before = core.mask_words
        before = core.ub_read(0, SPAN)
        if form == "count":
            asc.compare_scalar(dst, *operands, asc.CMPMODE[mode], repeats * lanes, **index)
        else:
            params = asc.UnaryRepeatParams(shape["dst_strides"][0], blk, shape["dst_strides"][1], rep)
            asc.compare_scalar(dst, *operands, asc.CMPMODE[mode], shape["mask"], repeats, params, **index)
        after, words_after = core.ub_read(0, SPAN), core.mask_words
    bits = ref.compare_bits(before, fmt, mode, 0, None, scalar, repeats, (blk, rep, 0, 0), active,
                            scalar_first=scalar_first)
    expected = bytearray(before)
    stored = ref.count_bitmask(bits, size) if form == "count" else ref.pack_bits(bits)
    expected[0x4000:0x4000 + len(stored)] = stored
    assert after == bytes(expected)
    # the 950's mask[] forms leave their mask in the register (SetVectorMask); the others leave it alone
    assert words_after == ((*shape["mask"], 0, 0) if form == "bits" else words_before)


def test_an_element_mask_list_sets_the_register_in_counter_mode_too():
    """dav_3510 VcmpvsImpl of two tensors with mask[]: SetVectorMask before the counter-mode test (§3.9); the
    number-scalar form sets it in normal mode only.  Counter mode: the count 100 from mask[0]."""
    with asc.Core("950") as core:
        x, s, dst = t("float32", 0, 256), t("float32", 0x1000, 8), t(asc.uint8, 0x2000, 64, VECOUT)
        x.write(np.arange(256, dtype=np.float32))
        s.write(np.full(8, 50, np.float32))
        dst.write(np.zeros(64, np.uint8))
        asc.set_mask_count()
        asc.compare_scalar(dst, s, x, asc.CMPMODE.GT, [100, 0], 0, asc.UnaryRepeatParams(), scalar_tensor_index=0)
        assert core.mask_words == (100, 0, 0, 0)
        expected = ref.pack_bits([1 if v < 50 else 0 for v in range(128)])  # 50 > v; 2 repeats of 64
        assert dst.read(16).tobytes() == expected
        asc.set_vector_mask(0, 5)
        asc.compare_scalar(dst, 50.0, x, asc.CMPMODE.GT, [100, 0], 0, asc.UnaryRepeatParams())
        assert core.mask_words == (5, 0, 0, 0)


def test_is_set_mask_false_takes_the_mask_register():
    """isSetMask false (模板参数说明): the lanes come from the vector mask register set beforehand."""
    with asc.Core("950") as core:
        x, dst = t("int16", 0, 128), t(asc.uint8, 0x1000, 32, VECOUT)
        x.write(np.arange(128, dtype=np.int16))
        dst.write(np.full(32, 0xFF, np.uint8))
        asc.set_vector_mask(0, 0b1011)
        asc.compare_scalar(dst, 1, x, asc.CMPMODE.LE, 0, 1, asc.UnaryRepeatParams(), is_set_mask=False)
        assert dst.read(16).tobytes() == ref.pack_bits([0, 1, 0, 1] + [0] * 124)  # 1 <= x at lanes 0, 1, 3
        assert core.mask_words == (0b1011, 0, 0, 0)


# ------------------------------------------------------------------ Select: the page's calls
@pytest.mark.parametrize("scalar_first", [False, True], ids=["src1-element", "src0-element"])
def test_select_page_calls(scalar_first):
    """Select（灵活标量位置）.md 调用示例 (mode 1, count dataSize, a uint8 selMask): config {1} with src1Local[0],
    config {0} with src0Local[0]; half data, 256 elements."""
    rng = np.random.default_rng(7 + scalar_first)
    with asc.Core("950") as core:
        fill(core, 0, SPAN, seed=5)
        core.ub_write(0, special_fill(rng, "float16", 512))
        src0, src1 = t("float16", 0, 256), t("float16", 0x200, 256)
        mask, dst = t(asc.uint8, 0x400, 32), t("float16", 0x800, 256, VECOUT)
        before = core.ub_read(0, SPAN)
        asc.select(dst, mask, src0, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 256,
                   scalar_tensor_index=0 if scalar_first else 1)
        after = core.ub_read(0, SPAN)
    scalar = before[0:2] if scalar_first else before[0x200:0x202]
    case = ref.SelectCase(1, 2, 0x800, None if scalar_first else 0, 0x200 if scalar_first else None, scalar, 0x400,
                          b"", ref.counter_lanes(256, 2), scalar_first=scalar_first)
    assert after == bytes(ref.run_select(bytearray(before), case))


def test_mode_1_with_two_tensors_takes_src1s_element_by_default():
    """BinaryConfig's default scalarTensorIndex 1: the plain form's call with a tensor src1 in mode 1."""
    with asc.Core("950"):
        src0, src1 = t("int32", 0, 64), t("int32", 0x100, 64)
        mask, dst = t(asc.uint8, 0x200, 32), t("int32", 0x400, 64, VECOUT)
        src0.write(np.arange(64, dtype=np.int32))
        src1.write(np.arange(100, 164, dtype=np.int32))
        mask.write(np.full(32, 0b01010101, np.uint8))
        asc.select(dst, mask, src0, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 64)
        assert dst.read().tolist() == [i if i % 2 == 0 else 100 for i in range(64)]
        asc.select(dst, mask, 7, src1, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 64)
        assert dst.read().tolist() == [7 if i % 2 == 0 else 100 + i for i in range(64)]


def test_the_element_is_read_when_the_call_runs():
    """One plan, two calls: each takes the element UB holds then (a number is per call, so is the element)."""
    with asc.Core("950"):
        x, s = t("float16", 0, 128), t("float16", 0x100, 16)
        mask, dst = t(asc.uint8, 0x200, 32), t("float16", 0x400, 128, VECOUT)
        bits = t(asc.uint8, 0x800, 32, VECOUT)
        x.write(np.arange(128, dtype=np.float16))
        mask.write(np.zeros(32, np.uint8))
        for value in (3.0, -1.0):
            s.write(np.full(16, value, np.float16))
            asc.select(dst, mask, s, x, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 128, scalar_tensor_index=0)
            asc.compare_scalar(bits, x, s, asc.CMPMODE.GT, 128)
            assert dst.read().tolist() == list(range(128))  # bit 0: src1's lanes
            assert bits.read(16).tobytes() == ref.pack_bits([1 if v > value else 0 for v in range(128)])
            mask.write(np.full(32, 0xFF, np.uint8))
            asc.select(dst, mask, s, x, asc.SelMode.VSEL_TENSOR_SCALAR_MODE, 128, scalar_tensor_index=0)
            assert dst.read().tolist() == [value] * 128
            mask.write(np.zeros(32, np.uint8))


@pytest.mark.parametrize("instruction", ["compare_scalar", "select"])
@pytest.mark.parametrize("index", [0, 1])
def test_a_never_written_element_is_a_never_written_read(instruction, index):
    """The element is a scalar read of UB: under a raising policy a never-written one rejects the call, naming
    its operand, before any byte or register changes (docs/semantics.md §3.9, §2.7)."""
    with asc.Core("950", uninit="raise") as core:
        x, s = t("float32", 0, 64), t("float32", 0x100, 8)
        mask, dst = t(asc.uint8, 0x200, 32), t("float32", 0x400, 64, VECOUT)
        bits = t(asc.uint8, 0x800, 32, VECOUT)
        x.write(np.arange(64, dtype=np.float32))
        mask.write(np.full(32, 0x55, np.uint8))
        src0, src1 = (s, x) if index == 0 else (x, s)
        call = (lambda: asc.compare_scalar(bits, src0, src1, asc.CMPMODE.LT, 64, scalar_tensor_index=index)) \
            if instruction == "compare_scalar" else \
            (lambda: asc.select(dst, mask, src0, src1, M1, 64, scalar_tensor_index=index))
        error = assert_rejected(core, UninitializedReadError, call, "never written")
        assert error.operand.startswith(("src0", "src1")[index])
        s.write(np.full(8, 7.0, np.float32))
        call()  # written, it is read


def test_select_in_counter_mode_takes_the_count_from_the_mask():
    """Counter mode (dav_3510 SelectBothTensorMode1Level0, isCounterMode): mask is the element count, 200 half
    lanes in two repeats; the rest of dst keeps its bytes."""
    with asc.Core("950") as core:
        fill(core, 0, SPAN, seed=11)
        x, s = t("float16", 0, 256), t("float16", 0x200, 16)
        sel, dst = t(asc.uint8, 0x400, 32), t("float16", 0x800, 256, VECOUT)
        asc.set_mask_count()
        before = core.ub_read(0, SPAN)
        asc.select(dst, sel, s, x, M1, 200, 0, asc.BinaryRepeatParams(), scalar_tensor_index=0)
        after = core.ub_read(0, SPAN)
    case = ref.SelectCase(1, 2, 0x800, None, 0, before[0x200:0x202], 0x400, b"", ref.counter_lanes(200, 2),
                          scalar_first=True)
    assert after == bytes(ref.run_select(bytearray(before), case))


# ------------------------------------------------------------------ Select: the property
def _select_scalar(draw, fmt: str, element: bool) -> int:
    """Raw scalar bits: any pattern for an element (its bits are copied); for a number one that converts to
    itself (no NaN: a NaN number becomes the quiet NaN)."""
    size = SIZE[fmt]
    component = {"complex32": "float16", "complex64": "float32"}.get(fmt)
    if component is not None:
        if element:
            return draw(st.integers(0, (1 << 8 * size) - 1))
        parts = [draw(special_bits(component).filter(lambda b: ref.number(b, component) != "nan")) for _ in range(2)]
        return parts[0] | parts[1] << (4 * size)
    bits = special_bits(fmt)
    if not element and ref.FORMATS[fmt][1] == "float":
        bits = bits.filter(lambda b: ref.number(b, fmt) != "nan")
    return draw(bits)


def _select_number(bits: int, fmt: str):
    component = {"complex32": "float16", "complex64": "float32"}.get(fmt)
    if component is None:
        return ref.python_number(bits, fmt)
    half = 4 * SIZE[fmt]
    return complex(ref.python_number(bits & ((1 << half) - 1), component), ref.python_number(bits >> half, component))


@st.composite
def select_cases(draw):
    fmt, form, mask = draw_form(draw, SELECT_MASK_T, SELECT_COUNT_ONLY)
    element = draw(st.booleans())
    if form == "count":
        shape = {"count": draw(st.integers(1, 3 * 256 // SIZE[fmt]))}
    else:
        shape = {"mask": mask,
                 "repeats": draw(st.integers(1, 3)),
                 "strides": (draw(st.integers(1, 2)), draw(st.integers(1, 2)), draw(st.integers(1, 2)),
                             draw(st.integers(8, 16)), draw(st.integers(8, 16)), draw(st.integers(8, 16)))}
    return dict(fmt=fmt, form=form, shape=shape, side=draw(st.sampled_from(["src0", "src1"])), element=element,
                scalar=_select_scalar(draw, fmt, element), seed=draw(st.integers(0, 2**32 - 1)))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=select_cases())
def test_flexible_select_matches_the_model(case):
    fmt, form, shape = case["fmt"], case["form"], case["shape"]
    size = SIZE[fmt]
    scalar_first, scalar = case["side"] == "src0", case["scalar"]
    with asc.Core("950") as core:
        fill(core, 0, SPAN, seed=case["seed"] % 1000)
        vector, dst = t(fmt, 0, 0x2000 // size), t(fmt, 0x4000, 0x2000 // size, VECOUT)
        sel = t(asc.uint8, 0x3400, 128)
        if case["element"]:
            operand = t(fmt, 0x3000, 32 // size)
            core.ub_write(0x3000, scalar.to_bytes(size, "little"))
        else:
            operand = _select_number(scalar, fmt)
        operands = (operand, vector) if scalar_first else (vector, operand)
        index = {"scalar_tensor_index": 0 if scalar_first else 1} if case["element"] else {}
        words_before = core.mask_words
        before = core.ub_read(0, SPAN)
        mode = M1
        if form == "count":
            lanes_model, strides = ref.counter_lanes(shape["count"], size), (1, 1, 1, 8, 8, 8)
            asc.select(dst, sel, *operands, mode, shape["count"], **index)
        else:
            strides = shape["strides"]
            low, high = ref.register_words(shape["mask"], size)
            lanes_model = ref.normal_lanes(low, high, shape["repeats"], size)
            unmodelled = (case["element"] and scalar_first and size == 4 and shape["repeats"] % 2
                          and strides[4] != strides[5])
            call = lambda: asc.select(dst, sel, *operands, mode, shape["mask"], shape["repeats"],  # noqa: E731
                                      asc.BinaryRepeatParams(*strides), **index)
            if unmodelled:  # docs/semantics.md §2.7: the implementation and the page disagree
                assert_rejected(core, UnsupportedError, call, instruction="select",
                                operand="repeat_params.src0_rep_stride")
                return
            call()
        after, words_after = core.ub_read(0, SPAN), core.mask_words
    model = ref.SelectCase(1, size, 0x4000, None if scalar_first else 0, 0 if scalar_first else None,
                           scalar.to_bytes(size, "little"), 0x3400, b"", lanes_model, strides,
                           scalar_first=scalar_first)
    assert after == bytes(ref.run_select(bytearray(before), model))
    assert words_after == ((*shape["mask"], 0, 0) if form == "bits" else words_before)


# ------------------------------------------------------------------ constraints
H, C = "float16", VECOUT
U8 = asc.uint8
CASES = [
    ("compares scalar first on the A2", "A2",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), 1.0, t(H, 256, 128), asc.CMPMODE.LT, 128),
     UnsupportedError, "compare_scalar", "product"),
    ("compares element on the A3", "A3",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), t(H, 256, 128), t(H, 512, 16), asc.CMPMODE.LT, 128),
     UnsupportedError, "compare_scalar", "product"),
    ("select scalar first on the A2", "A2",
     lambda: asc.select(t(H, 0, 128, C), t(U8, 256, 32), 1.0, t(H, 512, 128), M1, 128),
     UnsupportedError, "select", "product"),
    ("select mode 1 with two tensors on the A2", "A2",
     lambda: asc.select(t(H, 0, 128, C), t(U8, 256, 32), t(H, 512, 128), t(H, 768, 128), M1, 128),
     UnsupportedError, "select", "product"),
    ("compares two scalars", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), 1.0, 2.0, asc.CMPMODE.LT, 128),
     UnsupportedError, "compare_scalar", "src0/src1"),
    ("select two scalars", "950",
     lambda: asc.select(t(H, 0, 128, C), t(U8, 256, 32), 1.0, 2.0, M1, 128),
     UnsupportedError, "select", "src0/src1"),
    ("compares element over dst", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), t(H, 0, 16), t(H, 256, 128), asc.CMPMODE.LT, 128,
                                scalar_tensor_index=0),
     OverlapError, "compare_scalar", "src0 / dst"),
    ("select element over dst", "950",
     lambda: asc.select(t(H, 0, 128, C), t(U8, 256, 32), t(H, 512, 128), t(H, 64, 16), M1, 128),
     OverlapError, "select", "src1 / dst"),
    ("compares element of another type", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), t(H, 256, 128), t("float32", 512, 8), asc.CMPMODE.LT, 128),
     UnsupportedError, "compare_scalar", "src1 dtype"),
    ("select element of another type", "950",
     lambda: asc.select(t(H, 0, 128, C), t(U8, 256, 32), t("int16", 512, 16), t(H, 768, 128), M1, 128,
                        scalar_tensor_index=0),
     UnsupportedError, "select", "src0 dtype"),
    ("compares scalar_tensor_index 2", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), t(H, 256, 128), t(H, 512, 16), asc.CMPMODE.LT, 128,
                                scalar_tensor_index=2),
     ParameterRangeError, "compare_scalar", "scalar_tensor_index"),
    ("compares int8 in a mask form", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), 3, t("int8", 256, 256), asc.CMPMODE.LT, 64, 1,
                                asc.UnaryRepeatParams()),
     UnsupportedError, "compare_scalar", "src1 dtype"),
    ("compares double LT", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), 1.0, t("float64", 256, 32), asc.CMPMODE.LT, 32),
     UnsupportedError, "compare_scalar", "cmp_mode"),
    ("compares count not 256 bytes", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), 1.0, t(H, 256, 128), asc.CMPMODE.LT, 100),
     ParameterRangeError, "compare_scalar", "count"),
    ("compares scalar-first number outside int16", "950",
     lambda: asc.compare_scalar(t(U8, 0, 32, C), 40000, t("int16", 256, 128), asc.CMPMODE.LT, 128),
     ParameterRangeError, "compare_scalar", "src0"),
    ("select mode 2 with the scalar first", "950",
     lambda: asc.select(t(H, 0, 128, C), t(U8, 256, 32), 1.0, t(H, 512, 128), asc.SelMode.VSEL_TENSOR_TENSOR_MODE,
                        128),
     ParameterRangeError, "select", "sel_mode"),
    ("select complex64 in a mask form", "950",
     lambda: asc.select(t("complex64", 0, 32, C), t(U8, 256, 32), 1j, t("complex64", 512, 32), M1, 32, 1,
                        asc.BinaryRepeatParams()),
     UnsupportedError, "select", "dst dtype"),
    ("select the unmodelled tail stride", "950",
     lambda: asc.select(t("float32", 0, 256, C), t(U8, 1024, 32), t("float32", 1088, 8), t("float32", 2048, 512),
                        M1, 64, 3, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 16), scalar_tensor_index=0),
     UnsupportedError, "select", "repeat_params.src0_rep_stride"),
]


@pytest.mark.parametrize(("chip", "call", "error", "instruction", "operand"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_constraints(chip, call, error, instruction, operand):
    with asc.Core(chip) as core:
        fill(core, 0, SPAN)
        assert_rejected(core, error, call, instruction=instruction, operand=operand)
