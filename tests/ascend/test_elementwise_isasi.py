"""Neg, Prelu, AbsSub, Mull, Ands, Ors and MulsCast: the 950's own element-wise instructions.

* the pages' worked examples (调用示例 and 结果示例), every call of each, at the printed positions;
  Ors and Prelu print results their own formula contradicts: the formula is tested (errata in
  docs/numerics.md);
* hypothesis properties against :mod:`.isasi_reference` (independent, exact) across dtypes, call
  forms, strides, masks, the scalar's position and kind, and special values, on raw UB bytes;
* every documented constraint: its ConstraintError, with its fields, and UB and registers unchanged;
* access records: exact on every registered example (run on the 950, their product).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.engine.registry import ACCURACY_MODEL, BIT_EXACT, IEEE_RNE, by_name
from npusim.errors import AlignmentError, OutOfBoundsError, OverlapError, ParameterRangeError, UnsupportedError

from . import cast_reference as cref
from . import elementwise_reference as eref
from . import isasi_reference as iref
from . import reference_model as ref
from .conftest import assert_rejected, fill
from .interrupts import Machine, sweep
from .test_elementwise_access_records import SPAN as RECORD_SPAN
from .test_elementwise_access_records import covered, run_from_setup

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT
N = 512
SPAN = 0x10000  # every tensor of these tests lies below this
NAMES = ("neg", "prelu", "abs_sub", "mull", "ands", "ors", "muls_cast", "truncate")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def t(dtype, addr: int, size: int = N, position=VECIN) -> asc.LocalTensor:
    return asc.LocalTensor(dtype, position, addr, size)


def bits_of(values, fmt: str) -> list[int]:
    """Exact values (ints) as bits of ``fmt`` (floats through the reference encoder)."""
    size, kind, _e, _m = ref.FORMATS[fmt]
    if kind == "float":
        return [ref.encode(Fraction(v), fmt) for v in values]
    return [v % (1 << (8 * size)) for v in values]


def write_bits(tensor: asc.LocalTensor, bits: list[int]) -> None:
    tensor.write(np.array(bits, dtype=tensor.dtype.raw).view(tensor.dtype.np_dtype))


def read_bits(tensor: asc.LocalTensor, count: int | None = None) -> list[int]:
    return [int(b) for b in tensor.read(count).view(tensor.dtype.raw)]


# ------------------------------------------------------------------ worked examples
def test_neg_worked_example():
    """Neg(ISASI).md: int64 [1 2 3 4 ...] -> [-1 -2 -3 -4 ...] (512 elements)."""
    with asc.Core("950"):
        src, dst = t(asc.int64, 0), t(asc.int64, 8192)
        write_bits(src, bits_of(range(1, N + 1), "int64"))
        asc.neg(dst, src, 512)
        out = read_bits(dst)
    assert out[:4] == bits_of([-1, -2, -3, -4], "int64")
    assert out == bits_of([-v for v in range(1, N + 1)], "int64")


@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
def test_prelu_worked_example_by_its_formula(dtype):
    """Prelu(ISASI).md: src0 [1 -2 -3 ... -512], src1 [513 -514 515 ... 1]; printed [1 1028 -1045 ... -512].
    The formula gives -3 * 515 = -1545 at index 2 (erratum); the rest of the print holds."""
    fmt = dtype.name
    src0 = [1, -2, -3] + [-4] * (N - 4) + [-512]
    src1 = [513, -514, 515] + [1] * (N - 4) + [1]
    with asc.Core("950"):
        a, b, dst = t(dtype, 0), t(dtype, 4096), t(dtype, 8192)
        write_bits(a, bits_of(src0, fmt))
        write_bits(b, bits_of(src1, fmt))
        asc.prelu(dst, a, b, 512)
        out = read_bits(dst)
    printed_head, printed_tail = [1, 1028, -1045], [-512]
    assert out[:2] == bits_of(printed_head[:2], fmt) and out[-1:] == bits_of(printed_tail, fmt)
    assert out[2] == bits_of([-1545], fmt)[0] != bits_of([printed_head[2]], fmt)[0]


@pytest.mark.parametrize("dtype", [asc.float16, asc.float32])
def test_abs_sub_worked_example(dtype):
    """AbsSub(ISASI).md: [1 2 ... 512] and [513 ... 1024] -> [512 512 ... 512]."""
    with asc.Core("950"):
        a, b, dst = t(dtype, 0), t(dtype, 4096), t(dtype, 8192)
        write_bits(a, bits_of(range(1, N + 1), dtype.name))
        write_bits(b, bits_of(range(513, 1025), dtype.name))
        asc.abs_sub(dst, a, b, 512)
        assert read_bits(dst) == bits_of([512] * N, dtype.name)


def test_mull_worked_example():
    """Mull(ISASI).md: the three printed lanes of dst0 (low) and dst1 (high)."""
    src0 = [-2039520159, 95829766, -1522913829]
    src1 = [-1791575569, -291976917, -1973597151]
    with asc.Core("950"):
        a, b = t(asc.int32, 0), t(asc.int32, 4096)
        lo, hi = t(asc.int32, 8192, position=VECOUT), t(asc.int32, 12288, position=VECOUT)
        write_bits(a, bits_of(src0 + [7] * (N - 3), "int32"))
        write_bits(b, bits_of(src1 + [-9] * (N - 3), "int32"))
        asc.mull(lo, hi, a, b, 512)
        assert read_bits(lo, 3) == bits_of([-1560359025, 212356098, 1219226939], "int32")
        assert read_bits(hi, 3) == bits_of([850752575, -6514620, 699800065], "int32")
        assert read_bits(lo)[3:] == bits_of([-63] * (N - 3), "int32")
        assert read_bits(hi)[3:] == bits_of([-1] * (N - 3), "int32")


def _logic_calls(name: str):
    """The page's six calls (mask 128 / mask {UINT64_MAX, UINT64_MAX} with repeat 4 and {1, 1, 8, 8}, the
    count 512), scalar after (src1Local[0]) and before (src0Local[0], BinaryConfig {0})."""
    fn = getattr(asc, name)
    params = asc.UnaryRepeatParams(1, 1, 8, 8)
    full = [(1 << 64) - 1, (1 << 64) - 1]
    for scalar_first in (False, True):
        for mask in (128, full, None):
            def call(dst, vector, element, mask=mask, scalar_first=scalar_first):
                operands = (element, vector) if scalar_first else (vector, element)
                index = {"scalar_tensor_index": 0} if scalar_first else {}
                if mask is None:
                    return fn(dst, *operands, 512, **index)
                return fn(dst, *operands, mask, 4, params, **index)
            yield call


@pytest.mark.parametrize(("name", "scalar", "printed"), [("ands", 0, [0] * N), ("ors", 1, list(range(1, N + 1)))])
def test_ands_ors_worked_examples(name, scalar, printed):
    """Ands.md / Ors.md: [1 2 ... 512] with the element [0] (Ands -> all 0) or [1] (Ors).  Ors prints
    [1 2 3 ... 512], but x | 1 is [1 3 3 5 ...] (erratum): the formula is tested."""
    expected = [x & scalar if name == "ands" else x | scalar for x in range(1, N + 1)]
    if name == "ands":
        assert expected == printed
    else:
        assert expected[:4] == [1, 3, 3, 5] != printed[:4]
    for call in _logic_calls(name):
        with asc.Core("950"):
            vector, element = t(asc.int16, 0), t(asc.int16, 4096, 16)
            dst = t(asc.int16, 8192, position=VECOUT)
            write_bits(vector, list(range(1, N + 1)))
            write_bits(element, [scalar] + [0x5A5A] * 15)
            write_bits(dst, [0x7777] * N)
            call(dst, vector, element)
            assert read_bits(dst) == expected


def test_muls_cast_worked_example():
    """MulsCast(ISASI).md: [6 5 11 ...] times the element 2 -> [12 10 22 ...], both scalar positions."""
    for scalar_first in (False, True):
        with asc.Core("950"):
            src, element, dst = t(asc.float32, 0), t(asc.float32, 4096, 8), t(asc.float16, 8192, position=VECOUT)
            write_bits(src, bits_of([6, 5, 11] + [3] * (N - 3), "float32"))
            write_bits(element, bits_of([2] * 8, "float32"))
            if scalar_first:
                asc.muls_cast(dst, element, src, 512, scalar_tensor_index=0)
            else:
                asc.muls_cast(dst, src, element, 512)
            assert read_bits(dst) == bits_of([12, 10, 22] + [6] * (N - 3), "float16")


# ------------------------------------------------------------------ properties against the reference
def special_bits(fmt: str) -> st.SearchStrategy[int]:
    size, kind, ebits, mbits = ref.FORMATS[fmt]
    width = 8 * size
    if kind != "float":
        return st.one_of(st.integers(0, (1 << width) - 1),
                         st.sampled_from([0, 1, (1 << width) - 1, 1 << (width - 1), (1 << (width - 1)) - 1]))
    top = ((1 << ebits) - 1) << mbits
    sign = 1 << (width - 1)
    specials = [0, sign, top, top | sign, top | 1, top | (1 << (mbits - 1)), 1, sign | 1, top - 1, sign | (top - 1)]
    return st.one_of(st.integers(0, (1 << width) - 1), st.sampled_from(specials))


def _image(draw, fmt: str, count: int) -> list[int]:
    return draw(st.lists(special_bits(fmt), min_size=count, max_size=count))


@st.composite
def count_cases(draw):
    name = draw(st.sampled_from(["neg", "prelu", "abs_sub"]))
    dtypes = {"neg": ["int8", "int16", "float16", "int32", "float32", "int64"],
              "prelu": ["float16", "float32"], "abs_sub": ["float16", "float32"]}[name]
    fmt = draw(st.sampled_from(dtypes))
    count = draw(st.integers(1, 300))
    sources = 1 if name == "neg" else 2
    return name, fmt, count, [_image(draw, fmt, count) for _ in range(sources)], draw(st.booleans())


@SETTINGS
@given(case=count_cases())
def test_neg_prelu_abs_sub_match_the_reference(case):
    name, fmt, count, sources, saturate = case
    dtype = getattr(asc, fmt)
    with asc.Core("950") as core:
        core.float_saturation = saturate
        fill(core, 0, SPAN)
        tensors = [t(dtype, 0x2000 * k, 512) for k in range(len(sources))]
        for tensor, bits in zip(tensors, sources, strict=True):
            write_bits(tensor, bits)
        dst = t(dtype, 0x8000, 512, VECOUT)
        before = bytearray(core.ub_read(0, SPAN))
        getattr(asc, name)(dst, *tensors, count)
        after = core.ub_read(0, SPAN)
    sat = saturate and fmt == "float16"
    size = dtype.itemsize
    for i in range(count):
        lanes = [s[i] for s in sources]
        bits = (iref.neg_bits(fmt, *lanes, sat) if name == "neg" else
                iref.prelu_bits(fmt, *lanes, sat) if name == "prelu" else iref.abs_sub_bits(fmt, *lanes, sat))
        ref.store(before, 0x8000 + i * size, size, bits)
    assert after == bytes(before)


@SETTINGS
@given(data=st.data(), signed=st.booleans(), count=st.integers(1, 200))
def test_mull_matches_the_reference(data, signed, count):
    fmt = "int32" if signed else "uint32"
    dtype = getattr(asc, fmt)
    a, b = (data.draw(st.lists(special_bits(fmt), min_size=count, max_size=count)) for _ in range(2))
    with asc.Core("950") as core:
        fill(core, 0, SPAN)
        x, y, lo, hi = t(dtype, 0, 256), t(dtype, 0x1000, 256), t(dtype, 0x2000, 256), t(dtype, 0x3000, 256)
        write_bits(x, a)
        write_bits(y, b)
        before = bytearray(core.ub_read(0, SPAN))
        asc.mull(lo, hi, x, y, count)
        after = core.ub_read(0, SPAN)
    for i in range(count):
        low, high = iref.mull_bits(fmt, a[i], b[i])
        ref.store(before, 0x2000 + 4 * i, 4, low)
        ref.store(before, 0x3000 + 4 * i, 4, high)
    assert after == bytes(before)


@SETTINGS
@given(data=st.data(), count=st.integers(1, 200), scalar_first=st.booleans(), element=st.booleans(),
       saturate=st.booleans())
def test_muls_cast_matches_the_reference(data, count, scalar_first, element, saturate):
    src = data.draw(st.lists(special_bits("float32"), min_size=count, max_size=count))
    scalar = data.draw(special_bits("float32"))
    with asc.Core("950") as core:
        core.float_saturation = saturate
        fill(core, 0, SPAN)
        x, dst = t(asc.float32, 0, 256), t(asc.float16, 0x2000, 256, VECOUT)
        write_bits(x, src)
        if element:
            operand = t(asc.float32, 0x1000, 8)
            write_bits(operand, [scalar] * 8)
        else:
            operand = ref.python_number(scalar, "float32")
        operands = (operand, x) if scalar_first else (x, operand)
        index = {"scalar_tensor_index": 0} if scalar_first else {}
        before = bytearray(core.ub_read(0, SPAN))
        asc.muls_cast(dst, *operands, count, **index)
        after = core.ub_read(0, SPAN)
    for i in range(count):
        ref.store(before, 0x2000 + 2 * i, 2, iref.muls_cast_bits(src[i], scalar, saturate))
    assert after == bytes(before)


def test_muls_cast_rounds_the_float_product_and_then_ties_away():
    """1 + 2^-11 (a half tie) stays a tie after the float product by 1 and goes away from zero: 1 + 2^-10;
    ties to even would give 1.  And 3 * (1 + 2^-11 + 2^-24) is rounded to float first."""
    with asc.Core("950"):
        x, dst = t(asc.float32, 0, 8), t(asc.float16, 1024, 8, VECOUT)
        write_bits(x, bits_of([1 + Fraction(1, 2048), -(1 + Fraction(1, 2048))] + [0] * 6, "float32"))
        asc.muls_cast(dst, x, 1.0, 8)
        assert read_bits(dst, 2) == bits_of([1 + Fraction(1, 1024), -(1 + Fraction(1, 1024))], "float16")


def test_a_tensor_element_scalar_is_read_when_the_call_runs():
    """The element is no part of the plan: a second call after it changed sees the new value."""
    with asc.Core("950"):
        x, s, z = t(asc.int16, 0, 128), t(asc.int16, 1024, 16), t(asc.int16, 2048, 128, VECOUT)
        write_bits(x, [0x0FF0] * 128)
        for scalar in (0x00FF, 0x0F00):
            write_bits(s, [scalar] * 16)
            asc.ands(z, x, s, 128)
            assert read_bits(z) == [0x0FF0 & scalar] * 128


def test_ands_under_the_mask_register_when_is_set_mask_is_false():
    with asc.Core("950"):
        x, z = t(asc.uint16, 0, 128), t(asc.uint16, 1024, 128, VECOUT)
        write_bits(x, [0xFFFF] * 128)
        write_bits(z, [0] * 128)
        asc.set_vector_mask(0, 0b1011)
        asc.ors(z, x, 0, 0, 1, asc.UnaryRepeatParams(), is_set_mask=False)
        assert read_bits(z)[:5] == [0xFFFF, 0xFFFF, 0, 0xFFFF, 0] and read_bits(z)[5:] == [0] * 123


# ------------------------------------------------------------------ constraints
def operands_950():
    return {
        "neg": lambda: asc.neg(t(asc.int32, 0x1000, 64, VECOUT), t(asc.int32, 0x2000, 64), 64),
        "prelu": lambda: asc.prelu(t(asc.float16, 0x1000, 64, VECOUT), t(asc.float16, 0x2000, 64),
                                   t(asc.float16, 0x3000, 64), 64),
        "abs_sub": lambda: asc.abs_sub(t(asc.float32, 0x1000, 64, VECOUT), t(asc.float32, 0x2000, 64),
                                       t(asc.float32, 0x3000, 64), 64),
        "mull": lambda: asc.mull(t(asc.int32, 0x1000, 64, VECOUT), t(asc.int32, 0x4000, 64, VECOUT),
                                 t(asc.int32, 0x2000, 64), t(asc.int32, 0x3000, 64), 64),
        "ands": lambda: asc.ands(t(asc.int16, 0x1000, 64, VECOUT), t(asc.int16, 0x2000, 64), 3, 64),
        "ors": lambda: asc.ors(t(asc.int16, 0x1000, 64, VECOUT), 3, t(asc.int16, 0x2000, 64), 64),
        "muls_cast": lambda: asc.muls_cast(t(asc.float16, 0x1000, 64, VECOUT), t(asc.float32, 0x2000, 64), 2.0, 64),
        "truncate": lambda: asc.truncate(t(asc.float32, 0x1000, 64, VECOUT), t(asc.float32, 0x2000, 64),
                                         asc.RoundMode.CAST_TRUNC, 64),
    }


@pytest.mark.parametrize("chip", ["A2", "A3", "310B", "310P", "910"])
@pytest.mark.parametrize("name", NAMES)
def test_every_other_product_rejects_them(chip, name):
    rejected(operands_950()[name], UnsupportedError, chip, instruction=name, operand="product")


@pytest.mark.parametrize("name", NAMES)
def test_the_950_runs_them(name):
    with asc.Core("950") as core:
        fill(core, 0, SPAN)
        before = core.ub_read(0, SPAN)
        operands_950()[name]()
        assert core.ub_read(0, SPAN) != before


def rejected(call, error, chip: str = "950", **fields):
    """``call`` on a fresh core of ``chip`` (random UB) is rejected with ``error`` and these fields, unchanged."""
    with asc.Core(chip) as core:
        fill(core, 0, SPAN)
        assert_rejected(core, error, call, **fields)


C = VECOUT
CONSTRAINTS = [
    # (id, call, error, instruction, operand)
    ("neg uint16", lambda: asc.neg(t(asc.uint16, 0, 64, C), t(asc.uint16, 256, 64), 64),
     UnsupportedError, "neg", "dst dtype"),
    ("neg src of another type", lambda: asc.neg(t(asc.int32, 0, 64, C), t(asc.float32, 256, 64), 64),
     UnsupportedError, "neg", "src dtype"),
    ("neg count 0 is no NOP on the 950", lambda: asc.neg(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64), 0),
     ParameterRangeError, "neg", "count"),
    ("neg count past the tensor", lambda: asc.neg(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64), 65),
     OutOfBoundsError, "neg", "dst byte range"),
    ("neg misaligned src", lambda: asc.neg(t(asc.int32, 0, 64, C), t(asc.int32, 272, 64), 64),
     AlignmentError, "neg", "src address"),
    ("neg partial overlap", lambda: asc.neg(t(asc.int32, 0, 64, C), t(asc.int32, 32, 64), 64),
     OverlapError, "neg", "src / dst"),
    ("prelu int16", lambda: asc.prelu(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64), t(asc.int16, 512, 64), 64),
     UnsupportedError, "prelu", "dst dtype"),
    ("prelu src1 of another type", lambda: asc.prelu(t(asc.float16, 0, 64, C), t(asc.float16, 256, 64),
                                                     t(asc.float32, 512, 64), 64),
     UnsupportedError, "prelu", "src1 dtype"),
    ("abs_sub int32", lambda: asc.abs_sub(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64), t(asc.int32, 512, 64), 64),
     UnsupportedError, "abs_sub", "dst dtype"),
    ("abs_sub count 0", lambda: asc.abs_sub(t(asc.float16, 0, 64, C), t(asc.float16, 256, 64),
                                            t(asc.float16, 512, 64), 0),
     ParameterRangeError, "abs_sub", "count"),
    ("mull int16", lambda: asc.mull(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64, C), t(asc.int16, 512, 64),
                                    t(asc.int16, 768, 64), 64),
     UnsupportedError, "mull", "dst0 dtype"),
    ("mull dst1 of another type", lambda: asc.mull(t(asc.int32, 0, 64, C), t(asc.uint32, 256, 64, C),
                                                   t(asc.int32, 512, 64), t(asc.int32, 768, 64), 64),
     UnsupportedError, "mull", "dst1 dtype"),
    ("mull dst0 over dst1", lambda: asc.mull(t(asc.int32, 0, 64, C), t(asc.int32, 128, 64, C),
                                             t(asc.int32, 512, 64), t(asc.int32, 768, 64), 64),
     OverlapError, "mull", "dst0 / dst1"),
    ("mull dst1 in place on src0 twice over", lambda: asc.mull(t(asc.int32, 0, 64, C), t(asc.int32, 0, 64, C),
                                                               t(asc.int32, 512, 64), t(asc.int32, 768, 64), 64),
     OverlapError, "mull", "dst0 / dst1"),
    ("mull dst0 partly over src1", lambda: asc.mull(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64, C),
                                                    t(asc.int32, 512, 64), t(asc.int32, 32, 64), 64),
     OverlapError, "mull", "src1 / dst0"),
    ("mull count 0", lambda: asc.mull(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64, C), t(asc.int32, 512, 64),
                                      t(asc.int32, 768, 64), 0),
     ParameterRangeError, "mull", "count"),
    ("mull count past src1", lambda: asc.mull(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64, C),
                                              t(asc.int32, 512, 64), t(asc.int32, 768, 8), 64),
     OutOfBoundsError, "mull", "src1 byte range"),
    ("ands int32", lambda: asc.ands(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64), 1, 64),
     UnsupportedError, "ands", "dst dtype"),
    ("ands int64 in a mask form", lambda: asc.ands(t(asc.int64, 0, 64, C), t(asc.int64, 512, 64), 1, 32, 1,
                                                   asc.UnaryRepeatParams()),
     UnsupportedError, "ands", "dst dtype"),
    ("ands two scalars", lambda: asc.ands(t(asc.int16, 0, 64, C), 1, 2, 64),
     UnsupportedError, "ands", "src0/src1"),
    ("ands scalar_tensor_index 2", lambda: asc.ands(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                                    t(asc.int16, 512, 64), 64, scalar_tensor_index=2),
     ParameterRangeError, "ands", "scalar_tensor_index"),
    ("ands element over dst", lambda: asc.ands(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64), t(asc.int16, 64, 4), 64),
     OverlapError, "ands", "src1 / dst"),
    ("ors element of another type", lambda: asc.ors(t(asc.int16, 0, 64, C), t(asc.int32, 512, 4),
                                                    t(asc.int16, 256, 64), 64, scalar_tensor_index=0),
     UnsupportedError, "ors", "src0 dtype"),
    ("ors misaligned element", lambda: asc.ors(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                               t(asc.int16, 514, 4), 64),
     AlignmentError, "ors", "src1 address"),
    ("ors element past its tensor", lambda: asc.ors(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                            t(asc.int16, 512, 16)[16:], 64),
     OutOfBoundsError, "ors", "src1 byte range"),
    ("ors scalar outside int16", lambda: asc.ors(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64), 70000, 64),
     ParameterRangeError, "ors", "src1"),
    ("ors fractional scalar first", lambda: asc.ors(t(asc.int16, 0, 64, C), 1.5, t(asc.int16, 256, 64), 64),
     ParameterRangeError, "ors", "src0"),
    ("ors vector of another type", lambda: asc.ors(t(asc.int16, 0, 64, C), t(asc.uint16, 256, 64), 1, 64),
     UnsupportedError, "ors", "src0 dtype"),
    ("ors partial overlap in a repeat", lambda: asc.ors(t(asc.int16, 0, 256, C), t(asc.int16, 32, 256), 1, 128, 2,
                                                        asc.UnaryRepeatParams()),
     OverlapError, "ors", "src0 / dst"),
    ("ors repeat_times 0 is no NOP on the 950", lambda: asc.ors(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64), 1,
                                                                64, 0, asc.UnaryRepeatParams()),
     ParameterRangeError, "ors", "repeat_times"),
    ("muls_cast half source", lambda: asc.muls_cast(t(asc.float16, 0, 64, C), t(asc.float16, 256, 64), 2.0, 64),
     UnsupportedError, "muls_cast", "src0/dst dtypes"),
    ("muls_cast two scalars", lambda: asc.muls_cast(t(asc.float16, 0, 64, C), 2.0, 3.0, 64),
     UnsupportedError, "muls_cast", "src0/src1"),
    ("muls_cast element over dst", lambda: asc.muls_cast(t(asc.float16, 0, 64, C), t(asc.float32, 0, 8),
                                                         t(asc.float32, 512, 64), 64, scalar_tensor_index=0),
     OverlapError, "muls_cast", "src0 / dst"),
    ("muls_cast element of another type", lambda: asc.muls_cast(t(asc.float16, 0, 64, C), t(asc.float32, 512, 64),
                                                                t(asc.float16, 256, 16), 64),
     UnsupportedError, "muls_cast", "src1 dtype"),
    ("muls_cast count 0", lambda: asc.muls_cast(t(asc.float16, 0, 64, C), t(asc.float32, 512, 64), 2.0, 0),
     ParameterRangeError, "muls_cast", "count"),
]


@pytest.mark.parametrize(("call", "error", "instruction", "operand"), [c[1:] for c in CONSTRAINTS],
                         ids=[c[0] for c in CONSTRAINTS])
def test_every_documented_constraint_is_a_clean_rejection(call, error, instruction, operand):
    rejected(call, error, instruction=instruction, operand=operand)


def test_a_bad_scalar_of_a_planned_call_is_rejected_per_call():
    """The number is not part of the plan: a later call with one int16 cannot hold is still rejected."""
    with asc.Core("950") as core:
        x, z = t(asc.int16, 0, 64), t(asc.int16, 256, 64, VECOUT)
        fill(core, 0, SPAN)
        asc.ands(z, x, 7, 64)
        assert_rejected(core, ParameterRangeError, lambda: asc.ands(z, x, -40000, 64), instruction="ands")


# ------------------------------------------------------------------ access records, on the 950
# (the 950's own forms of shift_left, shift_right, adds, muls, maxs and mins are their examples_on["950"]:
# tests/engine/test_access_records.py checks those records)
RECORD_CASES = [(name, i) for name in (*NAMES, "exp_sub", "interleave", "de_interleave", "subs", "divs")
                for i in range(len(by_name("ascend", name).examples))]


@pytest.mark.parametrize(("name", "index"), RECORD_CASES)
def test_access_records_are_exact(name, index):
    """As test_elementwise_access_records.py, on the 950 (the product of these examples)."""
    snippet = by_name("ascend", name).examples[index]
    rng = np.random.default_rng(index)
    image = rng.integers(0, 256, RECORD_SPAN, dtype=np.uint8)
    before, after, record = run_from_setup(snippet, image.tobytes(), "950")
    assert record.instruction == name
    writes, reads = covered(record.writes), covered(record.reads)
    changed = after != before
    assert writes.any() and not (changed & ~writes).any()
    other = before.copy()
    outside = ~(reads | writes)
    other[outside] = rng.integers(0, 256, int(outside.sum()), dtype=np.uint8)
    _, again, _ = run_from_setup(snippet, other.tobytes(), "950")
    assert (again[writes] == after[writes]).all(), "the written bytes depend on bytes outside reads + writes"


@pytest.mark.parametrize("name", NAMES)
def test_registry_entry(name):
    entry = by_name("ascend", name)
    products = [chip for chip in asc.CHIPS if entry.support(asc.CHIPS[chip])]
    assert products == ["950"]
    exact = name in ("neg", "mull", "ands", "ors")  # the float ones: IEEE_RNE (or the documented RoundMode)
    assert entry.exactness == (BIT_EXACT if exact else IEEE_RNE)


# ------------------------------------------------------------------ interrupted calls change nothing
INTERRUPTED = {
    "mull (two destinations)": lambda: asc.mull(t(asc.int32, 0x1000, 256, VECOUT), t(asc.int32, 0x2000, 256, VECOUT),
                                                t(asc.int32, 0x3000, 256), t(asc.int32, 0x4000, 256), 200),
    "ands, an element scalar, bit-wise mask": lambda: asc.ands(t(asc.int16, 0x1000, 256, VECOUT),
                                                               t(asc.int16, 0x3000, 16), t(asc.int16, 0x2000, 256),
                                                               [0xFFFF, 0xF], 2, asc.UnaryRepeatParams(),
                                                               scalar_tensor_index=0),
    "ors, a number": lambda: asc.ors(t(asc.uint16, 0x1000, 256, VECOUT), t(asc.uint16, 0x2000, 256), 0x8001, 200),
    "muls_cast, an element scalar": lambda: asc.muls_cast(t(asc.float16, 0x1000, 256, VECOUT),
                                                          t(asc.float32, 0x2000, 256), t(asc.float32, 0x3000, 8), 256),
    "neg": lambda: asc.neg(t(asc.float16, 0x1000, 256, VECOUT), t(asc.float16, 0x2000, 256), 256),
    "prelu, in place on src0": lambda: asc.prelu(t(asc.float32, 0x2000, 256, VECOUT), t(asc.float32, 0x2000, 256),
                                                 t(asc.float32, 0x3000, 256), 200),
}


@pytest.mark.parametrize("form", sorted(INTERRUPTED))
def test_an_interrupted_call_changes_nothing(form):
    core = interrupted_core()
    assert sweep(Machine(core), INTERRUPTED[form], fresh_plans=True)
    assert sweep(Machine(core), INTERRUPTED[form], fresh_plans=False)


def interrupted_core() -> asc.Core:
    core = asc.Core("950")
    with core:
        fill(core, 0, SPAN, seed=3)
        core.set_mask_words(0x0F0F_0F0F_0F0F_0F0F, 0x0000_FFFF_0000_FFFF)
    return core


# ------------------------------------------------------------------ shifts with the amounts in a tensor (950)
SHIFT_TYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def _shift(name: str, fmt: str, values: list[int], amounts: list[int]) -> list[int]:
    dtype = getattr(asc, fmt)
    amount_type = getattr(asc, f"int{8 * dtype.itemsize}")
    with asc.Core("950"):
        src, n, dst = t(dtype, 0, len(values)), t(amount_type, 4096, len(values)), t(dtype, 8192, len(values), VECOUT)
        write_bits(src, values)
        write_bits(n, bits_of(amounts, amount_type.name))
        getattr(asc, name)(dst, src, n, len(values))
        return read_bits(dst)


@pytest.mark.parametrize("fmt", SHIFT_TYPES[2:])
def test_shift_by_tensor_worked_examples(fmt):
    """ShiftLeft（左移位数为Tensor）.md: [1 2 3 ... 512] << [2 2 ...] = [4 8 12 ... 2048];
    ShiftRight（右移位数为Tensor）.md: >> 2 = [0 0 0 1 1 1 1 ... 128]."""
    values = list(range(1, N + 1))
    left = _shift("shift_left", fmt, values, [2] * N)
    assert left[:3] == [4, 8, 12] and left[-1] == 2048 and left == [4 * v for v in values]
    right = _shift("shift_right", fmt, values, [2] * N)
    assert right[:7] == [0, 0, 0, 1, 1, 1, 1] and right[-1] == 128 and right == [v >> 2 for v in values]


def test_shift_by_tensor_bit_examples_of_the_pages():
    """功能说明: uint16 1010101010101010 << 1 = 0101010101010100; int16 << 1 = 1101010101010100, << 3 =
    1101010101010000; >> 1 (uint16) = 0101010101010101; int16 >> 1 = 1101010101010101, >> 3 = 1111010101010101."""
    x = 0b1010101010101010
    assert _shift("shift_left", "uint16", [x] * 16, [1] * 16)[0] == 0b0101010101010100
    assert _shift("shift_left", "int16", [x, x] + [0] * 14, [1, 3] + [0] * 14)[:2] == [0b1101010101010100,
                                                                                         0b1101010101010000]
    assert _shift("shift_right", "uint16", [x] * 16, [1] * 16)[0] == 0b0101010101010101
    assert _shift("shift_right", "int16", [x, x] + [0] * 14, [1, 3] + [0] * 14)[:2] == [0b1101010101010101,
                                                                                          0b1111010101010101]


def test_shift_by_tensor_past_the_width():
    """约束说明: a logical shift by more than the width gives 0; an arithmetic right shift -1 for a negative
    source and 0 for a positive one; a signed left shift past the width 0 (as the scalar form's page)."""
    assert _shift("shift_left", "uint16", [0xFFFF] * 16, [17] * 16) == [0] * 16
    assert _shift("shift_right", "uint32", [0xFFFFFFFF] * 8, [40] * 8) == [0] * 8
    assert _shift("shift_right", "int16", [0x8001, 5] + [0] * 14, [20, 20] + [0] * 14)[:2] == [0xFFFF, 0]
    assert _shift("shift_left", "int32", [5, 0x80000001] + [0] * 6, [33, 33] + [0] * 6)[:2] == [0, 0]


@SETTINGS
@given(data=st.data(), name=st.sampled_from(["shift_left", "shift_right"]), fmt=st.sampled_from(SHIFT_TYPES),
       count=st.integers(1, 300))
def test_shift_by_tensor_matches_the_reference(data, name, fmt, count):
    width = 8 * ref.FORMATS[fmt][0]
    amounts = data.draw(st.lists(st.one_of(st.integers(0, width + 2), st.integers(0, (1 << (width - 1)) - 1)),
                                 min_size=count, max_size=count))
    values = data.draw(st.lists(special_bits(fmt), min_size=count, max_size=count))
    dtype = getattr(asc, fmt)
    amount_type = getattr(asc, f"int{width}")
    with asc.Core("950") as core:
        fill(core, 0, SPAN)
        src, n, dst = t(dtype, 0, 300), t(amount_type, 0x1000, 300), t(dtype, 0x4000, 300, VECOUT)
        write_bits(src, values)
        write_bits(n, amounts)
        before = bytearray(core.ub_read(0, SPAN))
        getattr(asc, name)(dst, src, n, count)
        after = core.ub_read(0, SPAN)
    size = width // 8
    for i in range(count):
        ref.store(before, 0x4000 + i * size, size, eref.int_bits(name, fmt, values[i], amounts[i]))
    assert after == bytes(before)


SHIFT_CONSTRAINTS = [
    ("another product", "A2", lambda: asc.shift_left(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                                     t(asc.int16, 512, 64), 64),
     UnsupportedError, "shift_left", "product"),
    ("unsigned amounts", "950", lambda: asc.shift_right(t(asc.uint16, 0, 64, C), t(asc.uint16, 256, 64),
                                                        t(asc.uint16, 512, 64), 64),
     UnsupportedError, "shift_right", "src1 dtype"),
    ("amounts of another size", "950", lambda: asc.shift_left(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                                              t(asc.int32, 512, 64), 64),
     UnsupportedError, "shift_left", "src1 dtype"),
    ("a float dst", "950", lambda: asc.shift_left(t(asc.float16, 0, 64, C), t(asc.float16, 256, 64),
                                                  t(asc.int16, 512, 64), 64),
     UnsupportedError, "shift_left", "dst dtype"),
    ("src0 of another type", "950", lambda: asc.shift_left(t(asc.int16, 0, 64, C), t(asc.uint16, 256, 64),
                                                           t(asc.int16, 512, 64), 64),
     UnsupportedError, "shift_left", "src0 dtype"),
    ("count 0", "950", lambda: asc.shift_right(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                               t(asc.int16, 512, 64), 0),
     ParameterRangeError, "shift_right", "count"),
    ("amounts past their tensor", "950", lambda: asc.shift_right(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                                                 t(asc.int16, 512, 16), 64),
     OutOfBoundsError, "shift_right", "src1 byte range"),
    ("amounts partly over dst", "950", lambda: asc.shift_right(t(asc.int16, 0, 64, C), t(asc.int16, 256, 64),
                                                               t(asc.int16, 32, 64), 64),
     OverlapError, "shift_right", "src1 / dst"),
]


@pytest.mark.parametrize(("chip", "call", "error", "instruction", "operand"), [c[1:] for c in SHIFT_CONSTRAINTS],
                         ids=[c[0] for c in SHIFT_CONSTRAINTS])
def test_shift_by_tensor_constraints(chip, call, error, instruction, operand):
    rejected(call, error, chip, instruction=instruction, operand=operand)


def test_a_negative_shift_amount_is_rejected_when_the_call_runs():
    """参数说明 (src1): "不支持设置为负数" — read from UB, so checked per call, before anything is written."""
    with asc.Core("950") as core:
        fill(core, 0, SPAN)
        src, n, dst = t(asc.int32, 0, 64), t(asc.int32, 256, 64), t(asc.int32, 512, 64, VECOUT)
        write_bits(n, [3] * 64)
        asc.shift_left(dst, src, n, 64)  # planned
        write_bits(n, bits_of([3] * 40 + [-2] + [3] * 23, "int32"))
        error = assert_rejected(core, ParameterRangeError, lambda: asc.shift_left(dst, src, n, 64),
                                "lane 40", instruction="shift_left", operand="src1", value=-2)
        assert "不支持设置为负数" not in str(error)  # the rule in English; the source names the page


# ------------------------------------------------------------------ truncate
TRUNCATE_MODES = [asc.RoundMode.CAST_RINT, asc.RoundMode.CAST_ROUND, asc.RoundMode.CAST_FLOOR, asc.RoundMode.CAST_CEIL,
                  asc.RoundMode.CAST_TRUNC]


def test_truncate_worked_example():
    """Truncate(ISASI).md: CAST_FLOOR of [-37.063736 64.17277 -33.448692 ...] is [-38 64 -34 ...]."""
    with asc.Core("950"):
        x, z = t(asc.float32, 0), t(asc.float32, 4096, position=VECOUT)
        x.write(np.array([-37.063736, 64.17277, -33.448692] + [0.5] * (N - 3), np.float32))
        asc.truncate(z, x, asc.RoundMode.CAST_FLOOR, 512)
        assert read_bits(z, 3) == bits_of([-38, 64, -34], "float32")


@SETTINGS
@given(data=st.data(), fmt=st.sampled_from(["float16", "float32", "bfloat16"]), mode=st.sampled_from(TRUNCATE_MODES),
       count=st.integers(1, 300), saturate=st.booleans())
def test_truncate_matches_the_cast_reference(data, fmt, mode, count, saturate):
    values = data.draw(st.lists(special_bits(fmt), min_size=count, max_size=count))
    dtype = getattr(asc, fmt)
    with asc.Core("950") as core:
        core.float_saturation = saturate
        fill(core, 0, SPAN)
        x, z = t(dtype, 0, 300), t(dtype, 0x1000, 300, VECOUT)
        write_bits(x, values)
        before = bytearray(core.ub_read(0, SPAN))
        asc.truncate(z, x, mode, count)
        after = core.ub_read(0, SPAN)
    size = dtype.itemsize
    sat = saturate and fmt in ("float16", "bfloat16")  # the 950's conversion saturation (docs/numerics.md, Cast)
    for i in range(count):
        ref.store(before, 0x1000 + i * size, size, cref.cast(fmt, fmt, values[i], int(mode), sat))
    assert after == bytes(before)


TRUNCATE_CONSTRAINTS = [
    ("another product", "A2", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64),
                                                   asc.RoundMode.CAST_RINT, 64),
     UnsupportedError, "product"),
    ("an integer type", "950", lambda: asc.truncate(t(asc.int32, 0, 64, C), t(asc.int32, 256, 64),
                                                    asc.RoundMode.CAST_RINT, 64),
     UnsupportedError, "dst dtype"),
    ("src of another type", "950", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float16, 256, 64),
                                                        asc.RoundMode.CAST_RINT, 64),
     UnsupportedError, "src dtype"),
    ("CAST_ODD", "950", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64),
                                             asc.RoundMode.CAST_ODD, 64),
     UnsupportedError, "round_mode"),
    ("CAST_NONE", "950", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64),
                                              asc.RoundMode.CAST_NONE, 64),
     UnsupportedError, "round_mode"),
    ("no RoundMode", "950", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64), 99, 64),
     ParameterRangeError, "round_mode"),
    ("count 0", "950", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64),
                                            asc.RoundMode.CAST_RINT, 0),
     ParameterRangeError, "count"),
    ("partial overlap", "950", lambda: asc.truncate(t(asc.float32, 0, 64, C), t(asc.float32, 32, 64),
                                                    asc.RoundMode.CAST_RINT, 64),
     OverlapError, "src / dst"),
]


@pytest.mark.parametrize(("chip", "call", "error", "operand"), [c[1:] for c in TRUNCATE_CONSTRAINTS],
                         ids=[c[0] for c in TRUNCATE_CONSTRAINTS])
def test_truncate_constraints(chip, call, error, operand):
    rejected(call, error, chip, instruction="truncate", operand=operand)


def test_truncate_in_place():
    with asc.Core("950"):
        x = t(asc.float16, 0, 64)
        write_bits(x, bits_of([Fraction(5, 2), Fraction(-7, 2)] * 32, "float16"))
        asc.truncate(x, x, asc.RoundMode.CAST_ROUND, 64)
        assert read_bits(x) == bits_of([3, -4] * 32, "float16")


# ------------------------------------------------------------------ exp_sub: an accuracy model
def test_exp_sub_worked_example():
    """ExpSub(ISASI).md: [1 2 4 ... 510] - [1 1 2 ... 510] -> [1 2.71828 7.38905 ... 1], printed to six digits
    (truncated: e^2 = 7.389056...); the exact results 1 are bit-exact."""
    with asc.Core("950"):
        x, y, z = t(asc.float16, 0), t(asc.float16, 2048), t(asc.float32, 4096, position=VECOUT)
        write_bits(x, bits_of([1, 2, 4] + [3] * (N - 4) + [510], "float16"))
        write_bits(y, bits_of([1, 1, 2] + [3] * (N - 4) + [510], "float16"))
        asc.exp_sub(z, x, y, 512)
        out = z.read()
        bits = read_bits(z)
    assert bits[0] == bits[-1] == bits_of([1], "float32")[0]
    # the printed digits are the first six of each result, exactly (no tolerance: the value's exact decimal
    # expansion, truncated, is the printed one)
    assert [math.floor(Fraction(float(out[i])) * 10**5) for i in (1, 2)] == [271828, 738905]


@SETTINGS
@given(data=st.data(), fmt=st.sampled_from(["float16", "float32"]), count=st.integers(1, 200))
def test_exp_sub_is_within_one_ulp_of_the_correctly_rounded_value(data, fmt, count):
    """The accuracy model's promise (docs/numerics.md): e^(float(a) - float(b)), the difference rounded to float,
    within one float ulp of the correctly rounded exponential (60-digit reference); NaN and infinities exact."""
    a, b = (data.draw(st.lists(special_bits(fmt), min_size=count, max_size=count)) for _ in range(2))
    dtype = getattr(asc, fmt)
    with asc.Core("950"):
        x, y, z = t(dtype, 0, 256), t(dtype, 2048, 256), t(asc.float32, 4096, 256, VECOUT)
        write_bits(x, a)
        write_bits(y, b)
        asc.exp_sub(z, x, y, count)
        out = read_bits(z, count)
    for i in range(count):
        difference = ref.decode(ref.encode(ref._float_binary("sub", ref.decode(a[i], fmt), ref.decode(b[i], fmt)),
                                           "float32"), "float32")
        if isinstance(difference, Fraction) and abs(difference) > 110:  # e^110 overflows float, e^-110 is below
            expected = ref.encode("+inf" if difference > 0 else ("zero", 0), "float32")  # half its least subnormal
        else:
            expected = ref.encode(eref._exact_unary("exp", difference), "float32")
        assert eref.ulps_apart(out[i], expected, "float32") <= 1, (i, hex(a[i]), hex(b[i]), hex(out[i]), hex(expected))


EXP_SUB_CONSTRAINTS = [
    ("another product", "A2", lambda: asc.exp_sub(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64),
                                                  t(asc.float32, 512, 64), 64),
     UnsupportedError, "product"),
    ("a half dst", "950", lambda: asc.exp_sub(t(asc.float16, 0, 64, C), t(asc.float16, 256, 64),
                                              t(asc.float16, 512, 64), 64),
     UnsupportedError, "src0/dst dtypes"),
    ("src1 of another type", "950", lambda: asc.exp_sub(t(asc.float32, 0, 64, C), t(asc.float16, 256, 64),
                                                        t(asc.float32, 512, 64), 64),
     UnsupportedError, "src1 dtype"),
    ("count 0", "950", lambda: asc.exp_sub(t(asc.float32, 0, 64, C), t(asc.float32, 256, 64),
                                           t(asc.float32, 512, 64), 0),
     ParameterRangeError, "count"),
    ("partial overlap", "950", lambda: asc.exp_sub(t(asc.float32, 0, 64, C), t(asc.float32, 32, 64),
                                                   t(asc.float32, 512, 64), 64),
     OverlapError, "src0 / dst"),
]


@pytest.mark.parametrize(("chip", "call", "error", "operand"), [c[1:] for c in EXP_SUB_CONSTRAINTS],
                         ids=[c[0] for c in EXP_SUB_CONSTRAINTS])
def test_exp_sub_constraints(chip, call, error, operand):
    rejected(call, error, chip, instruction="exp_sub", operand=operand)


def test_exp_sub_is_an_accuracy_model_in_the_registry():
    assert by_name("ascend", "exp_sub").exactness == ACCURACY_MODEL
