"""AddReluCast, SubReluCast and MulCast: the pages' printed examples, the products' type pairs, the forms'
constraints, and every lane against a reference (the sources' result rounded in their type, relu'd, then
``cast_reference.cast`` with CAST_NONE): 复合计算/AddReluCast.md, SubReluCast.md, MulCast.md."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from npusim import ascend as asc
from npusim.dtypes import DTYPES
from npusim.errors import UnsupportedError

from . import cast_reference as ref
from .conftest import assert_rejected

VECIN, VECOUT = asc.TPosition.VECIN, asc.TPosition.VECOUT


def _run(chip, name, src, dst, a, b, count=None, mask_form=None):
    s, d = DTYPES[src], DTYPES[dst]
    with asc.Core(chip) as core:
        x, y = asc.LocalTensor(s, VECIN, 0, 512), asc.LocalTensor(s, VECIN, 4096, 512)
        z = asc.LocalTensor(d, VECOUT, 8192, 512)
        core.ub_write(0, np.asarray(a, dtype=s.raw).tobytes())
        core.ub_write(4096, np.asarray(b, dtype=s.raw).tobytes())
        core.ub_write(8192, bytes(512 * d.itemsize))
        function = getattr(asc, name)
        if mask_form is None:
            function(z, x, y, count if count is not None else len(a))
        else:
            function(z, x, y, *mask_form)
        return np.frombuffer(core.ub_read(8192, 512 * d.itemsize), dtype=d.raw)


def _half_bits(values):
    return np.array(values, dtype=np.float16).view(np.uint16)


@pytest.mark.parametrize("name, a, b, printed", [
    # AddReluCast.md: [1 1 3 ... 512] + [0 0.5 -4 ... -513] -> [1 2 0 ... 0] (1 + 0.5 = 1.5 -> 2)
    ("add_relu_cast", [1, 1, 3, *range(4, 513)], [0, 0.5, -4, *(-(v + 1) for v in range(4, 513))], [1, 2, 0, 0]),
    # SubReluCast.md: [1 2 3 ... 512] - [0 0.5 4 ... 513] -> [1 2 0 ... 0]
    ("sub_relu_cast", list(range(1, 513)), [0, 0.5, 4, *(v + 1 for v in range(4, 513))], [1, 2, 0, 0]),
    # MulCast.md: [1 -2 3 ... -6] * [1 3 -4 ... 5] -> [1 -6 -12 ... -30]
    ("mul_cast", [1, -2, 3, *([0] * 508), -6], [1, 3, -4, *([0] * 508), 5], [1, -6, -12, -30]),
])
def test_printed_examples(name, a, b, printed):
    out = _run("A2", name, "float16", "int8", _half_bits(a), _half_bits(b)).view(np.int8)
    assert out[:3].tolist() == printed[:3] and out[511] == printed[3]


def _reference(name, src, dst, a, b, chip):
    """The sources' exact result rounded once to their type (integers wrap), relu'd, then the Cast reference."""
    results = []
    saturating = {"A2": {"float16"}}.get(chip, set())  # CTRL[48]: half computations (SetCtrlSpr table 5)
    for x, y in zip(a, b, strict=True):
        u, v = ref.decode(src, int(x)), ref.decode(src, int(y))
        if src in ref.INTEGERS:
            total = {"add_relu_cast": u + v, "sub_relu_cast": u - v, "mul_cast": u * v}[name]
            width, _ = ref.INTEGERS[src]
            bits = total & ((1 << width) - 1)
            value = ref.decode(src, bits)
            bits = 0 if name != "mul_cast" and value < 0 else bits
        else:
            if any(isinstance(t, float) for t in (u, v)):
                exact = {"add_relu_cast": float(u) + float(v), "sub_relu_cast": float(u) - float(v),
                         "mul_cast": float(u) * float(v)}[name]
            else:
                exact = {"add_relu_cast": u + v, "sub_relu_cast": u - v, "mul_cast": u * v}[name]
            if isinstance(exact, float) and exact != exact:
                bits = 0 if src in saturating else ref.nan_bits(src, False)
            else:
                if isinstance(exact, Fraction) and exact == 0:
                    exact = 0
                bits = ref.to_float(exact, src, "rint")
                value = ref.decode(src, bits)
                if src in saturating and isinstance(value, float) and value in (float("inf"), float("-inf")):
                    bits = ref.to_float(ref.largest_finite(src) * (1 if value > 0 else -1), src, "rint")
                if name != "mul_cast" and (isinstance(value, float) and value < 0 or
                                           not isinstance(value, float) and value < 0):
                    bits = 0
                if name != "mul_cast" and isinstance(ref.decode(src, bits), float) and ref.decode(src, bits) == 0:
                    bits = 0  # relu(-0) = +0
        results.append(ref.cast(src, dst, bits, 0, dst in ({"A2": {"float16"}}.get(chip, set()))))
    return results


CASES = [(chip, name, pair) for chip in ("A2", "310B", "310P") for name, pairs in (
    ("add_relu_cast", [("float16", "int8"), ("int16", "int8"), ("float32", "float16")]),
    ("sub_relu_cast", [("float16", "int8"), ("int16", "int8"), ("float32", "float16")]),
    ("mul_cast", [("float16", "int8"), ("float16", "uint8")])) for pair in pairs
    if not (chip == "310B" and pair == ("int16", "int8"))]


@settings(max_examples=80, deadline=None)
@given(case=st.sampled_from(CASES), data=st.data())
def test_every_lane_matches_the_reference(case, data):
    chip, name, (src, dst) = case
    s = DTYPES[src]
    n = data.draw(st.integers(1, 300))
    limit = (1 << (8 * s.itemsize)) - 1
    small = [int(v) for v in np.array([0.5, 1.5, -2.5, 127.5, 300.0, -0.0], dtype=s.np_dtype).view(s.raw)] \
        if s.is_float else [1, -1 & limit, 127, 200]
    bits = st.one_of(st.integers(0, limit), st.sampled_from(small))
    a = data.draw(st.lists(bits, min_size=n, max_size=n))
    b = data.draw(st.lists(bits, min_size=n, max_size=n))
    out = _run(chip, name, src, dst, a, b)
    assert out[:n].tolist() == _reference(name, src, dst, a, b, chip)
    assert not out[n:].any()


def test_mask_form_lanes_follow_the_wider_type():
    """half -> int8 with mask 128 (the half lanes), strides {dst rep 4, src rep 8}: 2 repeats of 128 lanes."""
    a, b = _half_bits(np.arange(256) % 100), _half_bits(np.ones(256))
    out = _run("A2", "mul_cast", "float16", "int8", a, b, mask_form=(128, 2, asc.BinaryRepeatParams(1, 1, 1, 4, 8, 8)))
    assert out.view(np.int8)[:256].tolist() == (np.arange(256) % 100).tolist()


def test_rejected_calls(a2):
    x, y = asc.LocalTensor(asc.float16, VECIN, 0, 256), asc.LocalTensor(asc.float16, VECIN, 1024, 256)
    z8, z32 = asc.LocalTensor(asc.int8, VECOUT, 4096, 256), asc.LocalTensor(asc.int32, VECOUT, 4096, 256)
    f = asc.LocalTensor(asc.float32, VECIN, 8192, 256)
    assert_rejected(a2, UnsupportedError, lambda: asc.add_relu_cast(z32, x, y, 256), "float16 -> int32",
                    instruction="add_relu_cast", operand="src0/dst dtypes")
    assert_rejected(a2, UnsupportedError, lambda: asc.mul_cast(z8, x, f, 256), instruction="mul_cast",
                    operand="src1 dtype")
    with asc.Core("910") as core:
        x, y = asc.LocalTensor(asc.float16, VECIN, 0, 256), asc.LocalTensor(asc.float16, VECIN, 1024, 256)
        z = asc.LocalTensor(asc.int8, VECOUT, 4096, 256)
        assert_rejected(core, UnsupportedError, lambda: asc.sub_relu_cast(z, x, y, 256), instruction="sub_relu_cast")
    with asc.Core("950") as core:
        x, y = asc.LocalTensor(asc.float16, VECIN, 0, 256), asc.LocalTensor(asc.float16, VECIN, 1024, 256)
        z = asc.LocalTensor(asc.int8, VECOUT, 4096, 256)
        assert_rejected(core, UnsupportedError, lambda: asc.mul_cast(z, x, y, 128, 1, asc.BinaryRepeatParams()),
                        "scratch", operand="form")


def test_950_int64_sources_in_the_count_form():
    a, b = np.array([2**40, -5, 7], dtype=np.int64), np.array([1, 2, -9], dtype=np.int64)
    out = _run("950", "add_relu_cast", "int64", "int32", a.view(np.uint64), b.view(np.uint64))
    assert out.view(np.int32)[:3].tolist() == [2**31 - 1, 0, 0]
    out = _run("950", "mul_cast", "int64", "float32", a.view(np.uint64), b.view(np.uint64))
    assert out.view(np.float32)[:3].tolist() == [2.0**40, -10.0, -63.0]
